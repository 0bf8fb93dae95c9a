/* test_scheduler.c - the scheduler of scheduler.h runs every task once, in
 * order of beginning, and hands a stream back in order.
 *
 * TAP. Batches mark the tasks they ran (each must run once, on a worker
 * number below la_sched_threads(), never two at once on one number); a
 * stopped batch runs none after the stop that had not begun; two batches
 * in flight both finish; la_sched_ordered() calls done() for 0, 1, ... with
 * item i + ahead not begun before done(i); and with LABELAUDIT_SCHED_INLINE=1
 * the same runs all happen on the calling thread. */
#include "scheduler.h"
#include "tap.h"

#include <pthread.h> /* pthread_self, pthread_equal */
#include <stdlib.h>  /* setenv */
#include <string.h>  /* memset */

#define TASKS 500

struct marks {
    int runs[TASKS];
    int busy[LA_SCHED_MAX];       /* a worker number in use now */
    int clash;                    /* two tasks at once on one worker number */
    int bad_worker;
    int off_caller;               /* a task ran on another thread than the caller */
    int threads;
    pthread_t caller;
    struct la_sched *s;
    struct la_batch *b;
    size_t stop_at;               /* the task that stops its batch (TASKS: none) */
};

static void mark(void *ctx, int worker, size_t task)
{
    struct marks *m = ctx;
    if (worker < 0 || worker >= m->threads) {
        __atomic_store_n(&m->bad_worker, 1, __ATOMIC_RELAXED);
        return;
    }
    if (__atomic_exchange_n(&m->busy[worker], 1, __ATOMIC_ACQ_REL))
        __atomic_store_n(&m->clash, 1, __ATOMIC_RELAXED);
    if (!pthread_equal(pthread_self(), m->caller))
        __atomic_store_n(&m->off_caller, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&m->runs[task], 1, __ATOMIC_RELAXED);
    if (task == m->stop_at)
        la_sched_stop(m->s, m->b, task + 1);
    __atomic_store_n(&m->busy[worker], 0, __ATOMIC_RELEASE);
}

static void marks_init(struct marks *m, struct la_sched *s, struct la_batch *b)
{
    memset(m, 0, sizeof *m);
    m->threads = la_sched_threads(s);
    m->caller = pthread_self();
    m->s = s;
    m->b = b;
    m->stop_at = TASKS;
}

/* Tasks [0, ran) once each, none after; no clash, no worker out of range. */
static int marks_ok(const struct marks *m, size_t ran)
{
    for (size_t k = 0; k < TASKS; k++)
        if (m->runs[k] != (k < ran))
            return 0;
    return !m->clash && !m->bad_worker;
}

/* La_sched_ordered's check: done(i) comes in order, after run(i), and
 * run(i + ahead) after done(i). */
struct stream {
    size_t ahead, next_done;
    int ran[TASKS], done_seen[TASKS];
    int out_of_order;
};

static void stream_run(void *ctx, int worker, size_t i)
{
    struct stream *st = ctx;
    (void)worker;
    if (i >= st->ahead && !__atomic_load_n(&st->done_seen[i - st->ahead], __ATOMIC_ACQUIRE))
        __atomic_store_n(&st->out_of_order, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&st->ran[i], 1, __ATOMIC_RELEASE);
}

static void stream_done(void *ctx, size_t i)
{
    struct stream *st = ctx;
    if (i != st->next_done++ || !st->ran[i])
        st->out_of_order = 1;
    __atomic_store_n(&st->done_seen[i], 1, __ATOMIC_RELEASE);
}

static void check_scheduler(struct la_sched *s, const char *how)
{
    struct la_batch b, ahead;
    struct marks m, m2;

    int all = 1;
    for (int round = 0; round < 200 && all; round++) {
        size_t n = 1 + (size_t)round * 7 % TASKS;
        marks_init(&m, s, &b);
        la_sched_submit(s, &b, n, mark, &m);
        la_sched_wait(s, &b);
        all = marks_ok(&m, n);
    }
    TAP_OK(all, "%s: 200 batches of 1 to %d tasks: each task once, no worker number twice at once",
           how, TASKS);

    marks_init(&m, s, &b);
    la_sched_submit(s, &b, 0, mark, &m);
    la_sched_wait(s, &b);
    TAP_OK(marks_ok(&m, 0), "%s: a batch of no task", how);

    marks_init(&m, s, &b);
    m.stop_at = 100;
    la_sched_submit(s, &b, TASKS, mark, &m);
    la_sched_wait(s, &b);
    int stopped = !m.clash && m.runs[100] == 1 && la_sched_ran(&b, 100);
    for (size_t k = 0; k < 100; k++)
        stopped &= m.runs[k] == 1;
    for (size_t k = 101; k < TASKS; k++)
        stopped &= m.runs[k] == la_sched_ran(&b, k);
    TAP_OK(stopped, "%s: a task stops its batch: those before it ran, those after only if begun",
           how);

    marks_init(&m, s, &b);
    marks_init(&m2, s, &ahead);
    la_sched_submit(s, &b, TASKS, mark, &m);
    la_sched_submit(s, &ahead, TASKS, mark, &m2);
    la_sched_wait(s, &b);
    la_sched_stop(s, &ahead, 0);
    la_sched_wait(s, &ahead);
    int dropped = marks_ok(&m, TASKS);
    for (size_t k = 0; k < TASKS; k++)
        dropped &= m2.runs[k] == la_sched_ran(&ahead, k);
    TAP_OK(dropped, "%s: a batch submitted ahead, then dropped: those begun ran once", how);

    struct stream st;
    memset(&st, 0, sizeof st);
    st.ahead = 6;
    int rc = la_sched_ordered(s, TASKS, st.ahead, stream_run, stream_done, &st);
    TAP_OK(rc == 0 && st.next_done == TASKS && !st.out_of_order,
           "%s: la_sched_ordered: done() in order, never more than ahead items begun past it", how);
}

int main(void)
{
    struct la_sched *s = la_sched_open(4);
    TAP_OK(s && la_sched_threads(s) == 4, "a scheduler of 4: the caller and 3 workers");
    check_scheduler(s, "4 threads");
    la_sched_close(s);

    struct la_sched *one = la_sched_open(1);
    TAP_OK(one && la_sched_threads(one) == 1, "a scheduler of 1: the caller alone");
    check_scheduler(one, "1 thread");
    struct marks m;
    struct la_batch b;
    marks_init(&m, one, &b);
    la_sched_submit(one, &b, TASKS, mark, &m);
    la_sched_wait(one, &b);
    TAP_OK(marks_ok(&m, TASKS) && !m.off_caller, "1 thread: every task on the caller");
    la_sched_close(one);

    struct la_sched *big = la_sched_open(LA_SCHED_MAX + 10);
    TAP_OK(big && la_sched_threads(big) == LA_SCHED_MAX, "at most LA_SCHED_MAX threads");
    la_sched_close(big);

    /* closing with a batch still queued: it is stopped, nothing hangs */
    struct la_sched *q = la_sched_open(2);
    marks_init(&m, q, &b);
    la_sched_submit(q, &b, TASKS, mark, &m);
    la_sched_close(q);
    TAP_OK(!m.clash, "closed with a batch queued: the tasks begun finished, no more ran");
    la_sched_close(NULL);

    setenv("LABELAUDIT_SCHED_INLINE", "1", 1);
    struct la_sched *in = la_sched_open(4);
    TAP_OK(in && la_sched_threads(in) == 4, "LABELAUDIT_SCHED_INLINE=1: still 4 threads to plan");
    check_scheduler(in, "inline");
    marks_init(&m, in, &b);
    la_sched_submit(in, &b, TASKS, mark, &m);
    la_sched_wait(in, &b);
    TAP_OK(marks_ok(&m, TASKS) && !m.off_caller, "inline: every task on the caller");
    la_sched_close(in);
    return tap_done();
}
