/* input_ahead.c - the decoded bytes in order: the first ones kept in the
 * peek (input.h) and replayed, then the rest, decompressed ahead.
 *
 * Compressed data is decompressed on a thread of its own
 * once the reader starts pulling (after the peek), a few MiB ahead of it:
 * inflating costs as much as parsing a CSV, so the two overlap on two cores.
 * Where -j leaves no thread for it, or a CSV parse on two threads needs that
 * thread more (la_source_ahead_inline), it is decompressed inline, ahead of
 * the reads by la_source_prefetch(), which the parse runs as a task beside
 * its own. */
#include "input_source.h"

#include <pthread.h>   /* pthread_t */
#include <stdlib.h>    /* calloc, malloc, free */
#include <string.h>    /* memcpy */

#include "msg.h"        /* la_verbose: -v says which path read the file */
#include "pool.h"       /* la_thread_create: the decompressor is one of -j */
#include "ring.h"       /* the decompressor hands blocks over */

/* Decompressed data waiting for the reader: AHEAD_SLOTS blocks of AHEAD_SLOT_LEN bytes. */
#define AHEAD_SLOTS 4
#define AHEAD_SLOT_LEN ((size_t)1 << 20)

/* The decompressor thread and the blocks it hands over, oldest first; or,
 * inline (no thread, or its thread handed to the parse), the blocks that
 * la_source_prefetch() decompressed ahead on the reader's threads. */
struct ahead {
    pthread_t tid;
    struct la_ring ring;
    unsigned char *slot[AHEAD_SLOTS];
    size_t len[AHEAD_SLOTS];
    uint64_t raw_end[AHEAD_SLOTS];  /* compressed bytes read when the block was done */
    int failed;                     /* the decompressor stopped on an error, in err */
    int finished;                   /* the thread met the end or an error (not a quit) */
    size_t pos;                     /* reader's position in its current block */
    uint64_t raw_seen;              /* raw_end of the block the reader is in */
    int inline_mode;                /* no thread: the fields below count the blocks */
    uint64_t filled, taken;         /* inline: blocks decompressed ahead; blocks read */
    size_t bytes;                   /* inline: decompressed bytes waiting in them */
    int ended;                      /* inline: the data ended or failed */
};



/* The decompressor: fill free blocks until the data ends or fails. It alone
 * touches the decoder's stream and raw_offset from now on. */
static void *ahead_main(void *arg)
{
    struct la_source *s = arg;
    struct ahead *a = s->ahead;
    long k;
    while ((k = la_ring_wait_free(&a->ring)) >= 0) {
        ssize_t got = la_source_decode(s, a->slot[k], AHEAD_SLOT_LEN);
        if (got <= 0) {
            a->failed = got < 0;
            a->finished = 1;
            break;
        }
        a->len[k] = (size_t)got;
        a->raw_end[k] = s->raw_offset;
        la_ring_fill(&a->ring, 1);
    }
    la_ring_fill(&a->ring, 0);
    return NULL;
}

void la_source_ahead_stop(struct la_source *s)
{
    struct ahead *a = s->ahead;
    if (!a)
        return;
    if (!a->inline_mode) {
        la_ring_quit(&a->ring);
        la_thread_join(a->tid);
    }
    for (int i = 0; i < AHEAD_SLOTS; i++)
        free(a->slot[i]);
    la_ring_destroy(&a->ring);
    free(a);
    s->ahead = NULL;
}

/* Start the decompressor thread, or, when none can start, decompress inline
 * (la_source_prefetch). @return 0, or -1 when out of memory (then the reader
 * decompresses inline, nothing ahead). */
static int ahead_start(struct la_source *s)
{
    struct ahead *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    for (int i = 0; i < AHEAD_SLOTS; i++)
        if (!(a->slot[i] = malloc(AHEAD_SLOT_LEN)))
            goto fail;
    la_ring_init(&a->ring, AHEAD_SLOTS);
    a->raw_seen = s->raw_offset;
    s->ahead = a;
    if (la_thread_create(&a->tid, ahead_main, s) == 0) {
        la_verbose(s->path, "%s: decompressed ahead on a thread of its own",
                   la_codecs[s->codec].name);
        return 0;
    }
    a->inline_mode = 1;
    la_verbose(s->path, "%s: no thread could start: decompressed inline", la_codecs[s->codec].name);
    return 0;
fail:
    for (int i = 0; i < AHEAD_SLOTS; i++)
        free(a->slot[i]);
    free(a);
    return -1;
}

/* Inline: up to n bytes from the blocks decompressed ahead, or, when none
 * waits, decompressed straight into buf. */
static ssize_t read_inline(struct la_source *s, unsigned char *buf, size_t n)
{
    struct ahead *a = s->ahead;
    if (a->taken == a->filled) {
        if (a->ended)
            return a->failed ? -1 : 0;
        ssize_t got = la_source_decode(s, buf, n);
        a->raw_seen = s->raw_offset;
        if (got <= 0) {
            a->ended = 1;
            a->failed = got < 0;
        }
        return got;
    }
    long k = (long)(a->taken % AHEAD_SLOTS);
    size_t left = a->len[k] - a->pos;
    n = n < left ? n : left;
    memcpy(buf, a->slot[k] + a->pos, n);
    a->pos += n;
    a->bytes -= n;
    a->raw_seen = a->raw_end[k];
    if (a->pos == a->len[k]) {
        a->pos = 0;
        a->taken++;
    }
    return (ssize_t)n;
}

void la_source_prefetch(struct la_source *s, size_t want)
{
    struct ahead *a = s->ahead;
    if (!a || !a->inline_mode)
        return;
    while (!a->ended && a->filled - a->taken < AHEAD_SLOTS && a->bytes < want) {
        long k = (long)(a->filled % AHEAD_SLOTS);
        ssize_t got = la_source_decode(s, a->slot[k], AHEAD_SLOT_LEN);
        if (got <= 0) {
            a->ended = 1;
            a->failed = got < 0;
            break;
        }
        a->len[k] = (size_t)got;
        a->raw_end[k] = s->raw_offset;
        a->filled++;
        a->bytes += (size_t)got;
    }
}

int la_source_prefetches(const struct la_source *s)
{
    return s->ahead && s->ahead->inline_mode && !s->ahead->ended;
}

int la_source_ahead_inline(struct la_source *s)
{
    struct ahead *a = s->ahead;
    if (!a || a->inline_mode)
        return 0;
    la_ring_quit(&a->ring);
    la_thread_join(a->tid);          /* given back to the -j budget */
    /* the thread is gone: its ring's counts and blocks are this thread's now */
    a->filled = a->ring.filled;
    a->taken = a->ring.taken;
    a->ended = a->finished;
    a->bytes = 0;
    for (uint64_t b = a->taken; b < a->filled; b++)
        a->bytes += a->len[b % AHEAD_SLOTS];
    a->bytes -= a->pos;
    a->inline_mode = 1;
    la_verbose(s->path, "%s: the decompressor's thread goes to the parse, which decompresses "
               "ahead between its pieces", la_codecs[s->codec].name);
    return 1;
}

/* Copy up to n decompressed bytes from the blocks the thread has finished. */
static ssize_t read_ahead(struct la_source *s, unsigned char *buf, size_t n)
{
    struct ahead *a = s->ahead;
    if (a->inline_mode)
        return read_inline(s, buf, n);
    long k = la_ring_wait_filled(&a->ring);
    if (k < 0)
        return a->failed ? -1 : 0;   /* err was written before the ring finished */
    size_t left = a->len[k] - a->pos;
    n = n < left ? n : left;
    memcpy(buf, a->slot[k] + a->pos, n);
    a->pos += n;
    a->raw_seen = a->raw_end[k];
    if (a->pos == a->len[k]) {
        a->pos = 0;
        la_ring_take(&a->ring);
    }
    return (ssize_t)n;
}


/* Past the thread's blocks: the compressed bytes behind the block being read. */
uint64_t la_source_raw_offset(const struct la_source *s)
{
    return s->ahead ? s->ahead->raw_seen : s->raw_offset;
}

// ---- the decoded bytes in order: the peek, then the rest

/* Fill the peek buffer with the first decoded bytes. */
int la_source_fill_peek(struct la_source *s)
{
    while (s->peek_len < LA_PEEK_LEN) {
        ssize_t got = la_source_decode(s, s->peek + s->peek_len, LA_PEEK_LEN - s->peek_len);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        s->peek_len += (size_t)got;
    }
    return 0;
}

/* The decompressed bytes in order: the peek's replay, then the rest. */
ssize_t la_source_read_bytes(struct la_source *s, void *buf, size_t n)
{
    if (s->peek_pos < s->peek_len) {
        size_t k = s->peek_len - s->peek_pos;
        if (k > n)
            k = n;
        memcpy(buf, s->peek + s->peek_pos, k);
        s->peek_pos += k;
        return (ssize_t)k;
    }
    if (s->codec != LA_CODEC_PLAIN && !s->ahead_tried && !s->dec_done) {
        s->ahead_tried = 1;          /* once: each try allocates the blocks afresh */
        ahead_start(s);
    }
    return s->ahead ? read_ahead(s, buf, n) : la_source_decode(s, buf, n);
}
