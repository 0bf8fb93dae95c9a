/* test_sample_map.c - sample_map.c: the row of each element, filled by one
 * thread and read by another. Built as every unit test is, and in .ci/run's
 * ThreadSanitizer stage with -fsanitize=thread, where a read of something
 * the reader's thread still writes (or frees) exits 66.
 *
 * Rows of lengths 0..19 (a pseudo-random walk, empty rows included, a
 * 2^32-element row once), the reader's thread publishing every few rows and
 * then saying how many elements are out, as a reader hands chunks over; the
 * scan's thread looks each element's row up in order, twice per "chunk" (as
 * the all-ignored count and the stats do), says what it passed, and compares
 * with the row it computes itself. */
#include "sample_map.h"
#include "stats.h"   /* LA_NO_SAMPLE */
#include "tap.h"

#include <pthread.h>
#include <sched.h>     /* sched_yield */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define ROWS 200000u

static uint32_t len_of(uint64_t row)   /* the same lengths on both threads */
{
    uint64_t x = row * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return (uint32_t)(x % 20);
}

struct shared {
    struct la_sample_map *m;
    _Atomic uint64_t out;      /* elements handed out: their rows are published */
    _Atomic int done;
    int failed;
};

static void *reader(void *arg)
{
    struct shared *s = arg;
    uint64_t elem = 0;
    for (uint64_t row = 0; row < ROWS; row++) {
        if (la_sample_map_start(s->m, elem) != 0)
            s->failed = 1;
        elem += len_of(row);
        if (row % 97 == 96 || row + 1 == ROWS) {
            la_sample_map_publish(s->m);
            atomic_store_explicit(&s->out, elem, memory_order_release);
        }
    }
    atomic_store_explicit(&s->done, 1, memory_order_release);
    return NULL;
}

/* The scan: every element once, in order, in "chunks" of what is out. */
static int scan(struct shared *s, uint64_t *checked)
{
    uint64_t at = 0, row = 0, row_first = 0;   /* the row of element `at`, its first */
    int wrong = 0;
    for (;;) {
        int done = atomic_load_explicit(&s->done, memory_order_acquire);
        uint64_t out = atomic_load_explicit(&s->out, memory_order_acquire);
        if (at == out && done)
            break;
        if (at == out) {
            sched_yield();
            continue;
        }
        uint64_t r = row, f = row_first;
        for (int pass = 0; pass < 2; pass++) {   /* the chunk, looked up twice */
            r = row, f = row_first;
            for (uint64_t i = at; i < out; i++) {
                while (i >= f + len_of(r))
                    f += len_of(r++);
                if (la_sample_map_sample_of(s->m, i) != r)
                    wrong++;
            }
        }
        row = r, row_first = f;
        *checked += out - at;
        at = out;
        la_sample_map_passed(s->m, at);
    }
    return wrong;
}

static void test_threads(void)
{
    struct shared s = { .m = la_sample_map_new() };
    atomic_init(&s.out, 0);
    atomic_init(&s.done, 0);
    pthread_t t;
    TAP_OK(s.m && pthread_create(&t, NULL, reader, &s) == 0, "the reader's thread starts");
    uint64_t checked = 0;
    int wrong = scan(&s, &checked);
    pthread_join(t, NULL);
    TAP_OK(!s.failed, "every row started");
    TAP_OK(wrong == 0, "every element's row, looked up while rows were added: %d wrong of %llu",
           wrong, (unsigned long long)checked);
    TAP_OK(la_sample_map_samples(s.m) == ROWS, "the reader counts %u rows", ROWS);
    la_sample_map_free(s.m);
}

static void test_one_thread(void)
{
    struct la_sample_map *m = la_sample_map_new();
    TAP_OK(la_sample_map_sample_of(m, 0) == LA_NO_SAMPLE, "nothing published: no row");
    /* rows: 0 [0,3), 1 empty, 2 [3,4), then 3 of 2^32 + 5, 4 [.., +1) */
    uint64_t big = (1ull << 32) + 5;
    la_sample_map_start(m, 0);
    la_sample_map_start(m, 3);
    la_sample_map_start(m, 3);
    TAP_OK(la_sample_map_sample_of(m, 0) == LA_NO_SAMPLE, "unpublished rows are not seen");
    la_sample_map_publish(m);
    la_sample_map_start(m, 4);
    la_sample_map_start(m, 4 + big);   /* past an offset's reach: a piece of its own */
    la_sample_map_publish(m);
    TAP_OK(la_sample_map_sample_of(m, 2) == 0, "element 2: row 0");
    TAP_OK(la_sample_map_sample_of(m, 3) == 2, "element 3: row 2 (row 1 is empty)");
    TAP_OK(la_sample_map_sample_of(m, 4 + big - 1) == 3, "the last element of a 2^32-long row");
    TAP_OK(la_sample_map_sample_of(m, 1) == 0, "back to element 1: row 0");
    TAP_OK(la_sample_map_sample_of(m, 4 + big + 100) == 4, "past the last row's first: the last row");
    la_sample_map_passed(m, 4 + big);
    TAP_OK(la_sample_map_sample_of(m, 4 + big) == 4, "after the pieces before were freed");
    TAP_OK(la_sample_map_sample_of(m, 0) == LA_NO_SAMPLE, "a freed place: no row");
    la_sample_map_free(m);
    la_sample_map_free(NULL);
}

int main(void)
{
    test_one_thread();
    test_threads();
    return tap_done();
}
