/* csv_parallel.c - the CSV parse on other threads, each piece of it a task
 * on the scheduler (scheduler.h), so that no thread, lock or atomic is seen
 * here:
 *   - the fast path's blocks cut in two halves, the second parsed on a
 *     helper thread (la_csv_split_parse);
 *   - libcsv in steps of blocks of rows, each block with its own libcsv and
 *     requote filter, their rows taken in file order (la_csv_blocks_parse).
 * Both give the rows and line numbers of a one-thread parse: a piece stops
 * at any row that needs the reader thread, which parses it again. */
#include "read_csv.h"

#include "msg.h"       /* la_verbose: -v says where the threads begin */
#include "scheduler.h" /* the halves and blocks are tasks */
#include "util.h"      /* la_parse_number */

#include <stdlib.h>    /* calloc, malloc, free */
#include <string.h>    /* memchr, memcpy, memrchr */
#include <sys/mman.h>  /* madvise */

/* One half of a split block: complete lines p..end, parsed by quick_lines
 * into vals/kinds until a line needs the sequential code (stop). */
struct half {
    const char *p, *end;
    void *vals;
    unsigned char *kinds;
    size_t cap;               /* at most this many rows */
    size_t rows;              /* rows stored */
    uint64_t lines;           /* LF bytes passed */
    const char *stop;         /* the first line not parsed (end when all were) */
};

/* Pieces of a block when the bytes are decompressed inline: the two threads
 * take the decompression ahead and the pieces in turn, so that neither
 * waits for the other longer than a piece (halves would leave the one that
 * decompressed a block's worth behind by that much). */
#define PIECES_INLINE 6

/* The helper thread (a scheduler of two: this one and one worker): the
 * pieces of a block are tasks, the first parsed into the pending buffer, the
 * others into the helper's own (2 * CHUNK / (pieces - 1) rows at most
 * each, and no more than CHUNK past the run's room in all); with the decompression inline (la_source_prefetch), a task
 * before them decompresses the next block's bytes ahead. */
struct helper {
    struct la_sched *sched;
    struct la_batch batch;
    const struct la_csv *s;      /* of the block being parsed */
    int pieces;                  /* 2 (halves), or PIECES_INLINE */
    int prefetch;                /* task 0 decompresses ahead: the pieces are 1 .. */
    size_t want;                 /* the bytes it decompresses ahead */
    void *vals;                  /* the pieces after the first: 2 * CHUNK rows */
    unsigned char *kinds;
    struct half halves[PIECES_INLINE];   /* [0] points into the csv's pending buffer */
};

// ---- the fast path on two threads

/* Parse the whole lines h->p..h->end (end follows an LF) as fast_line would,
 * as long as each row is one that fast_line only stores: a number of the
 * current kind (an integer, or any number once a float was seen) in a row no
 * wider than the first. A short row, an unparsable cell, the first float or a
 * wide row stops it there; fast_line then parses that line, with its break in
 * the run or its error and line number. It reads only fields of s that do not
 * change while it runs, so two threads may run it on one s at once. */
static void quick_lines(const struct la_csv *s, struct half *h)
{
    const char *p = h->p, *end = h->end;
    const unsigned char delim = s->delim;
    const size_t col = s->hdr.col;
    const int saw_float = s->pend.saw_float;
    size_t rows = 0;
    uint64_t lines = 0;

    while (p < end && rows < h->cap) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *a = p, *b = nl;
        if (b > a && b[-1] == '\r')
            b--;
        if (a == b || (is_pad(s, (unsigned char)*a) && blank_line(s, a, b))) {
            lines++;
            p = nl + 1;
            continue;
        }
        size_t k;
        for (k = col; k; k--) {
            const char *d = memchr(a, delim, (size_t)(b - a));
            if (!d)
                break;
            a = d + 1;
        }
        if (k)
            break;                       /* too short: fast_line pushes it as unparsable */
        const char *d = a;               /* the label cell is short: no memchr call */
        while (d < b && (unsigned char)*d != delim)
            d++;
        if (d < b) {
            if (col + 1 + count_fields(s, d + 1, b) > s->hdr.width)
                break;                   /* fast_line reports it */
            b = d;
        }
        trim(s, &a, &b);
        struct la_num v;
        size_t n = (size_t)(b - a);
        enum la_cell c = small_int(a, n, &v.v.i) ? LA_CELL_INT : la_parse_number(a, n, &v);
        if (c == LA_CELL_BAD || (c == LA_CELL_FLOAT && !saw_float))
            break;
        if (saw_float) {
            ((double *)h->vals)[rows] = c == LA_CELL_INT ? (double)v.v.i : v.v.f;
            h->kinds[rows] = K_FLOAT;
        } else {
            ((int64_t *)h->vals)[rows] = v.v.i;
            h->kinds[rows] = K_INT;
        }
        rows++;
        lines++;
        p = nl + 1;
    }
    h->rows = rows;
    h->lines = lines;
    h->stop = p;
}

static void parse_half(void *ctx, int worker, size_t t)
{
    struct helper *hp = ctx;
    (void)worker;
    if (hp->prefetch && t-- == 0)        /* the next block's bytes, decompressed */
        la_source_prefetch(hp->s->r->src, hp->want);
    else
        quick_lines(hp->s, &hp->halves[t]);
}

static void helper_free(struct helper *hp)
{
    la_sched_close(hp->sched);
    free(hp->vals);
    free(hp->kinds);
    free(hp);
}

/* @return 0, or -1 when no helper can start (the parse stays on one thread). */
static int helper_start(struct la_csv *s)
{
    struct helper *hp = calloc(1, sizeof *hp);
    if (!hp)
        return -1;
    hp->vals = malloc(2 * CHUNK * sizeof(int64_t));
    hp->kinds = malloc(2 * CHUNK);
    hp->sched = la_sched_open(2);
    /* -j2 with compressed input: the decompressor took the thread; two
     * threads parsing and decompressing in turns beat one of each (the
     * parse costs about three times the inflating) */
    if (hp->sched && la_sched_threads(hp->sched) < 2 && s->r->src &&
        la_source_ahead_inline(s->r->src)) {
        la_sched_close(hp->sched);
        hp->sched = la_sched_open(2);
    }
    if (!hp->vals || !hp->kinds || !hp->sched || la_sched_threads(hp->sched) < 2) {
        helper_free(hp);
        la_verbose(s->r->path, "csv: no helper thread: the fast path stays on one thread");
        return -1;
    }
    /* inline decompression (handed over above, or no thread could start) */
    hp->prefetch = s->r->src && la_source_prefetches(s->r->src);
    hp->pieces = hp->prefetch ? PIECES_INLINE : 2;
    s->fast.helper = hp;
    la_verbose(s->r->path, "csv: fast path on two threads from line %llu (%s)",
               (unsigned long long)s->at.line, hp->prefetch ?
               "each block in pieces that the helper and this thread take in turns, "
               "with the decompression of the next" : "a helper parses half of each block");
    return 0;
}

void la_csv_helper_stop(struct la_csv *s)
{
    if (s->fast.helper)
        helper_free(s->fast.helper);
    s->fast.helper = NULL;
}

/* Parse the complete lines from *pp on two threads: the block is cut after
 * LFs into pieces (halves, or PIECES_INLINE beside the decompression), the
 * first parsed straight into the pending buffer, the others into the
 * helper's, and their rows appended in order. Rows are numbered by
 * position, so the order is all that matters. The block holds about the rows
 * the run still lacks (at the line length seen so far); each piece stops at a
 * line quick_lines leaves to fast_line, and what comes after that line is
 * dropped. last follows the last LF read. *pp moves past the lines parsed.
 * @return 1 when the whole block was, 0 to have fast_line go on. */
int la_csv_split_parse(struct la_csv *s, const char **pp, const char *last)
{
    const char *p = *pp, *end = last;
    size_t room = CHUNK - (s->pend.tail - s->pend.head);           /* the run is not complete */
    size_t est = s->fast.fast_lines ? (size_t)(s->fast.fast_bytes / s->fast.fast_lines) : 8;

    if (s->pend.tail + room > PENDING || PENDING - (s->pend.tail + room) < CHUNK)
        return 0;                                         /* head is 0 here: never */
    if (est < 1)
        est = 1;
    if ((size_t)(last - p) / est > room) {
        const char *lim = p + room * est;
        end = (const char *)memchr(lim, '\n', (size_t)(last - lim)) + 1;   /* last[-1] is LF */
    }
    if ((size_t)(end - p) < SPLIT_MIN)
        return 0;
    const char *mid = p + (end - p) / 2;
    if ((const char *)memchr(mid, '\n', (size_t)(end - mid)) + 1 == end)
        return 0;                        /* one line past the middle: nothing to share */
    if (!s->fast.helper && helper_start(s) < 0) {
        s->fast.no_helper = 1;
        return 0;
    }

    struct helper *hp = s->fast.helper;
    int n = hp->pieces;
    size_t cap = 2 * CHUNK / (size_t)(n - 1);
    hp->s = s;
    hp->want = (size_t)(end - p);        /* the next block's bytes, about */
    const char *from = p;
    for (int i = 0; i < n; i++) {
        const char *to = end;
        if (i + 1 < n) {                 /* after the LF that follows the cut */
            const char *cut = p + (size_t)(end - p) / (size_t)n * (size_t)(i + 1);
            to = cut < from ? from : (const char *)memchr(cut, '\n', (size_t)(end - cut)) + 1;
        }
        hp->halves[i] = i == 0
            ? (struct half){ .p = from, .end = to, .cap = room,
                             .vals = (char *)s->pend.vals + s->pend.tail * sizeof(int64_t),
                             .kinds = s->pend.kinds + s->pend.tail }
            : (struct half){ .p = from, .end = to, .cap = cap,
                             .vals = (char *)hp->vals + (size_t)(i - 1) * cap * sizeof(int64_t),
                             .kinds = hp->kinds + (size_t)(i - 1) * cap };
        from = to;
    }
    la_sched_submit(hp->sched, &hp->batch, (size_t)(n + hp->prefetch), parse_half, hp);
    la_sched_wait(hp->sched, &hp->batch);

    struct half *a = &hp->halves[0];
    size_t limit = s->pend.tail + room + CHUNK;   /* <= PENDING (above): past room, one CHUNK */
    s->pend.tail += a->rows;
    s->at.line += a->lines;
    s->fast.fast_lines += a->lines;
    const char *stop = a->stop;
    for (int i = 1; i < n && stop == hp->halves[i - 1].end; i++) {
        struct half *b = &hp->halves[i];
        if (s->pend.tail + b->rows > limit)
            break;                       /* rows far shorter than est: fast_line goes on */
        memcpy((char *)s->pend.vals + s->pend.tail * sizeof(int64_t), b->vals, b->rows * sizeof(int64_t));
        memcpy(s->pend.kinds + s->pend.tail, b->kinds, b->rows);
        s->pend.tail += b->rows;
        s->at.line += b->lines;
        s->fast.fast_lines += b->lines;
        stop = b->stop;
    }
    if (stop != end && a->rows < room)
        s->fast.split_after = s->at.line + CHUNK;   /* a piece's work was wasted: back off */
    s->fast.fast_bytes += (uint64_t)(stop - p);
    *pp = stop;
    return stop == end;
}

// ---- libcsv on every thread

/* One block of a parallel step: the rows in p..end (p starts a row, end
 * follows the newline that ends one), parsed into s's own buffers by s's own
 * libcsv; stop is where the part stopped (end when it parsed them all). p
 * is NULL when the block's stretch holds no row start (block_start). */
struct block_part {
    struct la_csv s;
    const char *p, *end, *stop;
};

/* Blocks per thread in a step. Threads take the next block as they finish
 * one, so a thread that the system sets aside (two cores, three busy
 * threads: the scan wakes now and then) holds up a step by a quarter block,
 * not by half of it while the other thread idles at the step's end. */
#define BLOCKS_PER_THREAD 4

/* A step: the rows from..to, cut into n blocks, each parsed into its part:
 * a batch of n + 1 tasks on the scheduler, task 0 giving the parsed pages
 * back (la_csv_pages_due) while the others parse, task 1 + t parsing block t. A
 * block that stops short stops the batch: the blocks after it that no
 * thread has begun are not parsed (their rows are the reader thread's). */
struct step {
    const struct la_csv *s;       /* whose step: its filter's rules */
    const struct blocks *b;
    const char *from, *to;        /* the step's bytes, cut into n stretches */
    char *give_from;              /* parsed pages (la_csv_pages_due) the step drops first */
    size_t give_len;
    uint64_t lines;               /* the step's lines, estimated */
    int whole;                    /* step_merge took every block */
    struct la_batch batch;
    struct block_part *parts;
};

/* The scheduler the blocks are parsed on, and the two steps it may hold:
 * step k (counted from 0) lies in steps[k % 2]. The reader thread publishes
 * a step and, on a mapped file, the one after it before it waits for the
 * first (step_ahead): a thread that runs out of blocks goes on to the next
 * step instead of idling at the step's end and through the merge, and so
 * does the reader thread while the last blocks of its step finish. */
struct blocks {
    struct la_sched *sched;
    int threads;                  /* the scheduler's */
    int n;                        /* blocks of a step: BLOCKS_PER_THREAD per thread */
    uint64_t published;           /* steps published */
    uint64_t merged;              /* steps merged (or dropped) */
    struct step steps[2];
};

int la_csv_blocks_wanted(const struct la_csv *s)
{
    return s->hdr.resolved && !s->blk.no_blocks && s->at.line >= s->fast.split_after;
}

/* Whether the next bytes go to libcsv in blocks on the scheduler, whose steps
 * then give the parsed pages of a mapping back (la_csv_pages_due). */
int la_csv_steps_in_blocks(const struct la_csv *s)
{
    return s->lib.slow && la_csv_blocks_wanted(s);
}

void la_csv_blocks_free(struct blocks *b)
{
    if (!b)
        return;
    la_sched_close(b->sched);           /* a step in flight is stopped, its blocks finish */
    for (int k = 0; k < 2; k++) {
        struct step *st = &b->steps[k];
        for (int t = 0; st->parts && t < b->n; t++) {
            struct la_csv *ps = &st->parts[t].s;
            if (ps->lib.parser_live)
                csv_free(&ps->lib.parser);
            free(ps->pend.vals);
            free(ps->pend.kinds);
        }
        free(st->parts);
    }
    free(b);
}

/* A part per block of each step, its rows a share of CHUNK: the merged rows
 * of a step fit in PENDING, and the memory is the same for any -j. Compressed
 * input is inflated on a thread of its own (input.c), so the parse takes one
 * thread fewer. @return 0, or -1 when fewer than two threads can run (libcsv
 * stays on this thread). */
static int blocks_start(struct la_csv *s)
{
    struct blocks *b = calloc(1, sizeof *b);
    int inflating = la_source_is_compressed(s->r->src);
    if (!b)
        return -1;
    s->blk.blocks = b;
    b->sched = la_sched_open(la_read_opts_or_default(s->r->opts)->threads - inflating);
    b->threads = b->sched ? la_sched_threads(b->sched) : 0;
    b->n = b->threads * BLOCKS_PER_THREAD;
    if (b->threads < 2) {
        la_verbose(s->r->path, "csv: fewer than two threads free%s: libcsv stays on one thread",
                   inflating ? " beside the decompressor" : "");
        return -1;
    }
    la_verbose(s->r->path, "csv: libcsv in blocks on %d threads from line %llu", b->threads,
               (unsigned long long)s->at.line);
    for (int k = 0; k < 2; k++) {
        struct step *st = &b->steps[k];
        st->b = b;
        if (!(st->parts = calloc((size_t)b->n, sizeof *st->parts)))
            return -1;
        for (int t = 0; t < b->n; t++) {
            struct la_csv *ps = &st->parts[t].s;
            ps->blk.cap = CHUNK / (size_t)b->n;
            ps->pend.vals = malloc(ps->blk.cap * sizeof(int64_t));
            ps->pend.kinds = malloc(ps->blk.cap);
            if (!ps->pend.vals || !ps->pend.kinds)
                return -1;
        }
    }
    return 0;
}

/* What a part needs of s for one step: the column, the width, the kind. */
static void part_begin(struct la_csv *ps, const struct la_csv *s)
{
    ps->blk.part = ps->hdr.resolved = 1;
    ps->delim = s->delim;
    ps->hdr.col = s->hdr.col;
    ps->hdr.width = s->hdr.width;
    ps->pend.saw_float = s->pend.saw_float;
    ps->failed = 0;
    ps->pend.head = ps->pend.tail = 0;
    ps->at.line = 0;
    ps->at.field = 0;
    ps->lib.rq.state = RQ_START;
    ps->lib.rq.n = ps->lib.rq.pads = ps->lib.rq.field = 0;
    ps->lib.rq.elided = 0;
    ps->lib.rq.elide = s->lib.rq.elide;
    ps->lib.rq.el = ps->lib.rq.elide && ps->hdr.col != 0;   /* a part starts at a row's first cell */
    ps->lib.rq.open = 0;
}

/* Parse a part's block a unit at a time: whole rows, until UNIT_BYTES of them
 * are gathered for libcsv (one csv_parse call per row cost more than the
 * parse). The unit in which the part stops (see FAIL) is taken back whole,
 * for this thread to parse. Runs on a scheduler thread: it touches its part only. */
static void parse_part(struct block_part *bp)
{
    struct la_csv *ps = &bp->s;
    const char *p = bp->p, *unit = p;
    size_t unit_rows = 0;
    uint64_t unit_lines = 0;

    if (ps->lib.parser_live)
        csv_free(&ps->lib.parser);           /* the last step may have left it mid-row */
    ps->lib.parser_live = 0;
    if (la_csv_parser_init(ps) == 0)
        while (la_csv_requote_span(ps, &p, bp->end) > 0) {
            if (ps->lib.rq.n < UNIT_BYTES && p < bp->end)
                continue;
            if (la_csv_requote_flush(ps, 0) != 0)
                break;
            unit = p, unit_rows = ps->pend.tail, unit_lines = ps->at.line;
        }
    ps->pend.tail = unit_rows;
    ps->at.line = unit_lines;
    bp->stop = unit;
}

static const char *block_start(const struct step *st, int t);

/* Where block t ends: where the next block starts, or the step's end. */
static const char *block_end(const struct step *st, int t)
{
    for (int j = t + 1; j < st->b->n; j++) {
        const char *start = block_start(st, j);
        if (start)
            return start;
    }
    return st->to;
}

/* Task k of step st's batch (see struct step). A block runs from its start
 * to the next block's (block_start): a stretch with no row start belongs to
 * the block before it. Each touches its part only. */
static void step_task(void *ctx, int worker, size_t k)
{
    struct step *st = ctx;
    (void)worker;
    if (k == 0) {
        if (st->give_len)
            madvise(st->give_from, st->give_len, MADV_DONTNEED);   /* the others parse */
        return;
    }
    int t = (int)(k - 1);
    struct block_part *bp = &st->parts[t];
    if (!(bp->p = block_start(st, t)))
        return;
    bp->end = block_end(st, t);
    parse_part(bp);
    if (bp->stop != bp->end)
        la_sched_stop(st->b->sched, &st->batch, k + 1);
}

/* Where a row surely starts at or after p, whatever the filter's state at p
 * (a block does not know whether it begins inside a quoted field): run every
 * state through the bytes until all agree, then up to a newline that ends a
 * row. The rules of requote_byte make the states meet within a row or two
 * (at a quote next to a letter: '"great' opens, 'great"' closes). @return
 * NULL when they have not by end: a block inside one quoted field, or quotes
 * that read both ways ('"\n' after a delimiter, as in '1,"\nx",2'). */
static const char *sure_row_start(const struct la_csv *s, const char *p, const char *end)
{
    enum rq_state st[] = { RQ_START, RQ_PLAIN, RQ_QUOTED, RQ_QUOTE, RQ_TAIL };
    size_t n = sizeof st / sizeof st[0];

    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        int agree = 1;
        for (size_t i = 0; i < n; i++) {
            st[i] = la_csv_rq_next(s->delim, st[i], c);
            agree &= st[i] == st[0];
        }
        if (agree)
            n = 1;
        if (n == 1 && c == '\n' && st[0] == RQ_START)
            return p + 1;
    }
    return NULL;
}

/* Where block t of step st starts, NULL when its stretch (the step's bytes
 * cut into n) holds none: a row surely starts there (sure_row_start,
 * within SURE_MAX bytes), or else after its first newline, a speculation that
 * the newline is not inside a quoted field. The block before confirms or
 * refutes it: it parses exactly up to it, and stops short unless a row ends
 * there (step_merge then drops the blocks after it). The parser of block t
 * and that of the one before each find it (the answer is the same for both,
 * from the bytes alone), so that neither waits for the other. */
static const char *block_start(const struct step *st, int t)
{
    if (t == 0)
        return st->from;
    int n = st->b->n;
    size_t len = (size_t)(st->to - st->from);
    const char *guess = st->from + len * (size_t)t / (size_t)n;
    const char *lim = st->from + len * (size_t)(t + 1) / (size_t)n;
    const char *cut = sure_row_start(st->s, guess, lim - guess > SURE_MAX ? guess + SURE_MAX : lim);
    if (!cut && (cut = memchr(guess, '\n', (size_t)(lim - guess))) != NULL)
        cut++;
    if (cut && cut >= st->to)
        cut = NULL;                 /* at or past the end: the block before ends there */
    return cut;
}

/* The lines in p..end, estimated from SAMPLES pieces spread over it (all of
 * them when it is short): counting every line of a step on this thread,
 * before the parts start, cost a tenth of the parse. A part that meets more
 * rows than it holds stops there (la_csv_push_cell), and this thread goes on from
 * its stop, so a low estimate costs time, not rows. */
static uint64_t estimate_lines(const char *p, const char *end)
{
    size_t len = (size_t)(end - p), piece = SAMPLE_BYTES / SAMPLES;
    if (len <= SAMPLE_BYTES)
        return count_lf(p, len);
    uint64_t seen = 0;
    for (size_t i = 0; i < SAMPLES; i++)
        seen += count_lf(p + (len - piece) * i / (SAMPLES - 1), piece);
    return (seen + 1) * (uint64_t)len / SAMPLE_BYTES + 1;
}

/* Publish a step over the rows from p to last's newline (as many of them as
 * the parts hold), in the slot of the step two before it, which is merged:
 * the scheduler's threads begin on it at once. */
static void step_publish(struct la_csv *s, const char *p, const char *last)
{
    struct blocks *b = s->blk.blocks;
    struct step *st = &b->steps[b->published % 2];
    size_t want = (size_t)b->n * st->parts[0].s.blk.cap / 8 * 7;   /* rows the parts hold */
    uint64_t lines = estimate_lines(p, last + 1);
    const char *end = last + 1;
    if (lines > want) {                  /* fewer bytes, as many lines as the parts hold */
        const char *lim = p + (size_t)((uint64_t)(end - p) * want / lines);
        end = (const char *)memchr(lim, '\n', (size_t)(last + 1 - lim)) + 1;
    }
    for (int t = 0; t < b->n; t++) {
        part_begin(&st->parts[t].s, s);
        st->parts[t].p = st->parts[t].end = st->parts[t].stop = NULL;
    }
    st->s = s;
    st->from = p;
    st->to = end;
    st->lines = lines;
    st->give_len = la_csv_pages_due(s, &st->give_from);
    b->published++;
    la_sched_submit(b->sched, &st->batch, (size_t)b->n + 1, step_task, st);
}

/* Wait until the oldest step in flight is parsed, and count it merged: its
 * parts are then this thread's. Meanwhile this thread parses blocks of it,
 * and then of the step published after it (la_sched_wait): waiting idle, it
 * lost up to a block's time at the end of every step (3 of a 50 ms parse
 * on two threads). */
static struct step *step_wait(struct blocks *b)
{
    struct step *st = &b->steps[b->merged % 2];
    la_sched_wait(b->sched, &st->batch);
    b->merged++;
    return st;
}

/* Drop the oldest step in flight unparsed: no block more of it is begun,
 * and those that were are waited for. */
static void step_drop(struct blocks *b)
{
    la_sched_stop(b->sched, &b->steps[b->merged % 2].batch, 0);
    step_wait(b);
}

/* Append the parsed step's rows in file order, up to the first block that
 * stopped short, and move pos to where the step stopped: its end when whole
 * (where a step published ahead begins). @return 1 when rows
 * were taken, -1 when none (the first block stopped at its first row). */
static int step_merge(struct la_csv *s, struct step *st)
{
    struct blocks *b = s->blk.blocks;
    const char *p = st->from, *stop = p;
    st->whole = 1;
    for (int t = 0; t < b->n; t++) {
        const struct block_part *bp = &st->parts[t];
        if (!la_sched_ran(&st->batch, (size_t)t + 1)) {
            st->whole = 0;               /* never: a block before it stopped short */
            break;
        }
        if (!bp->p)
            continue;                    /* its stretch is the block before's */
        const struct la_csv *ps = &bp->s;
        if (s->pend.tail + ps->pend.tail > PENDING) {
            st->whole = 0;               /* never: the parts hold CHUNK rows in all */
            break;
        }
        memcpy((char *)s->pend.vals + s->pend.tail * sizeof(int64_t), ps->pend.vals, ps->pend.tail * sizeof(int64_t));
        memcpy(s->pend.kinds + s->pend.tail, ps->pend.kinds, ps->pend.tail);
        s->pend.tail += ps->pend.tail;
        s->at.line += ps->at.line;
        stop = bp->stop;
        if (bp->stop != bp->end) {
            st->whole = 0;
            break;
        }
    }
    if ((size_t)(stop - p) < (size_t)(st->parts[0].end - p) / 16)
        s->fast.split_after = s->at.line + st->lines;   /* rows that need this thread are dense here */
    s->in.pos = (size_t)(stop - s->in.buf);
    return stop > p ? 1 : -1;
}

/* The last LF in p..buf+len, when split_min bytes or more lie there: where
 * a step over them ends. NULL when fewer, or no row ends in them. */
static const char *last_row_end(const struct la_csv *s, const char *p)
{
    const char *end = s->in.buf + s->in.len;
    return (size_t)(end - p) >= s->blk.split_min ? memrchr(p, '\n', (size_t)(end - p)) : NULL;
}

/* On a mapped file, publish the step after st (the only one in flight), from
 * where st ends, before this thread waits for st: a worker that runs out of
 * st's blocks goes on to it, and parses on while this thread merges st and
 * hands its rows to the scan. Waiting for each step whole, the workers idled
 * through the last block and the merge (7 of a 55 ms parse on two threads).
 * Only a mapping is read ahead: its bytes stay where they are, where a read
 * buffer moves them. When st stops short, the step after it is dropped. */
static void step_ahead(struct la_csv *s, const struct step *st)
{
    struct blocks *b = s->blk.blocks;
    if (!s->in.map.base || b->published - b->merged != 1 || s->failed)
        return;
    if (!s->in.eof && (size_t)(s->in.buf + s->in.len - st->to) < s->blk.block && la_csv_fill(s) < 0)
        return;
    const char *last = last_row_end(s, st->to);
    if (last)
        step_publish(s, st->to, last);
}

/* Parse the rows in buf[pos..len) on every thread (-j2 and up): cut them into
 * blocks at proved row starts, parse each block with its own libcsv behind
 * its own requote filter, then append their rows in file order, so the rows
 * and their numbers are those of a one-thread parse. A block stops at a row
 * that needs this thread (an unparsable cell, the first float, a short or
 * wide row, an error); the blocks after it are dropped and this thread goes
 * on from that row. libcsv on this thread must be between rows (at_row_start).
 * A step published ahead (step_ahead) starts at pos: this thread joins it.
 * @return 1 when rows were taken, 0 when more bytes are wanted first, -1 when
 * no block can be parsed now (the caller parses a PIECE). */
int la_csv_blocks_parse(struct la_csv *s)
{
    struct blocks *b = s->blk.blocks;
    if (!b || b->published == b->merged) {
        const char *p = s->in.buf + s->in.pos, *last = last_row_end(s, p);
        if (!last)
            return 0;
        if (!b && blocks_start(s) < 0) {
            s->blk.no_blocks = 1;
            return -1;
        }
        b = s->blk.blocks;
        step_publish(s, p, last);
    }
    step_ahead(s, &b->steps[b->merged % 2]);
    struct step *st = step_wait(b);
    int got = step_merge(s, st);
    if (b->published != b->merged && !st->whole)
        step_drop(b);                    /* it began where this step was to end */
    return got;
}
