/* scan_cpu.c - the CPU scan backend, and the reference every backend matches.
 *
 * The reference (la_scan_chunk_cpu_ref) has one type-specialised loop per
 * dtype (a macro instantiates them), so the inner loop has no per-element
 * switch or function pointer. The backend itself takes a faster road to the
 * same stats: integer blocks are counted into a small local histogram with
 * branch-free code, and only a block holding an invalid value is folded again
 * by the reference loop (see "fast integer folds").
 *
 * With -j > 1 a chunk is cut into one contiguous part per thread of a
 * persistent pool; each part folds into the thread's own la_stats and the
 * parts are merged in index order, so reports are the same for any -j. */
#include "scan.h"
#include "pool.h"    /* the threads a chunk's parts are folded on */

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, free */
#include <string.h>  /* memset */

// ---- folding one value ------------------------------------------------------

static inline void count_valid(struct la_stats *s, int64_t label)
{
    if (la_hist_fits(label, s->hist_len)) {
        s->hist[label]++;
        if ((uint64_t)label >= s->hist_hi)
            s->hist_hi = (uint64_t)label + 1;
    } else {
        s->hist_beyond++;
    }
}

/* Out-of-range integers near the valid range feed the ignore-value hint. */
static inline void count_outlier(struct la_stats *s, int verdict, int64_t x)
{
    int slot = la_outlier_slot(verdict, x, s->above_base, LA_OUTLIER_BINS);
    if (slot >= 0 && slot < LA_OUTLIER_BINS)
        s->outlier_below[slot]++;
    else if (slot >= LA_OUTLIER_BINS)
        s->outlier_above[slot - LA_OUTLIER_BINS]++;
}

static void fold_invalid_int(struct la_stats *s, uint64_t index, int verdict, int64_t x)
{
    count_outlier(s, verdict, x);
    la_stats_add_bad(s, index, verdict, (struct la_num){ LA_NUM_I64, { .i = x } }, NULL);
}

static void fold_invalid_float(struct la_stats *s, uint64_t index, int verdict, double x)
{
    int64_t label;
    if (la_f64_label(x, &label))
        count_outlier(s, verdict, label);
    la_stats_add_bad(s, index, verdict, (struct la_num){ LA_NUM_F64, { .f = x } }, NULL);
}

// ---- one loop per dtype ------------------------------------------------------

/* Signed and small unsigned integers: every value fits int64. */
#define DEFINE_FOLD_INT(NAME, CTYPE)                                                     \
    static void fold_##NAME(const CTYPE *v, size_t n, uint64_t first,                   \
                            const struct la_rule *r, struct la_stats *s)                \
    {                                                                                    \
        int64_t lo = INT64_MAX, hi = INT64_MIN;                                          \
        for (size_t i = 0; i < n; i++) {                                                 \
            int64_t x = (int64_t)v[i];                                                   \
            int verdict = la_verdict_i64(x, r);                                          \
            s->n_verdict[verdict]++;                                                     \
            if (verdict == LA_V_IGNORED)                                                 \
                continue;                                                                \
            lo = x < lo ? x : lo;                                                        \
            hi = x > hi ? x : hi;                                                        \
            if (verdict == LA_V_VALID)                                                   \
                count_valid(s, x);                                                       \
            else                                                                         \
                fold_invalid_int(s, first + i, verdict, x);                              \
        }                                                                                \
        if (lo <= hi) {                                                                  \
            la_stats_note_minmax(s, (struct la_num){ LA_NUM_I64, { .i = lo } });         \
            la_stats_note_minmax(s, (struct la_num){ LA_NUM_I64, { .i = hi } });         \
        }                                                                                \
    }

/* Floating point: CONVERT turns one stored element into a double. */
#define DEFINE_FOLD_FLOAT(NAME, CTYPE, CONVERT)                                          \
    static void fold_##NAME(const CTYPE *v, size_t n, uint64_t first,                   \
                            const struct la_rule *r, struct la_stats *s)                \
    {                                                                                    \
        double lo = 0, hi = 0;                                                           \
        int any = 0;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                 \
            double x = CONVERT(v[i]);                                                    \
            int verdict = la_verdict_f64(x, r);                                          \
            s->n_verdict[verdict]++;                                                     \
            if (verdict == LA_V_IGNORED)                                                 \
                continue;                                                                \
            if (verdict != LA_V_NON_FINITE) {                                            \
                lo = !any || x < lo ? x : lo;                                            \
                hi = !any || x > hi ? x : hi;                                            \
                any = 1;                                                                 \
            }                                                                            \
            if (verdict == LA_V_VALID) {                                                 \
                int64_t label; /* none: >= 2^63, only without -n */                      \
                if (!r->bce && la_f64_label(x, &label))                                  \
                    count_valid(s, label);                                               \
                else if (!r->bce)                                                        \
                    s->hist_beyond++;                                                    \
            } else {                                                                     \
                fold_invalid_float(s, first + i, verdict, x);                            \
            }                                                                            \
        }                                                                                \
        if (any) {                                                                       \
            la_stats_note_minmax(s, (struct la_num){ LA_NUM_F64, { .f = lo } });         \
            la_stats_note_minmax(s, (struct la_num){ LA_NUM_F64, { .f = hi } });         \
        }                                                                                \
        s->saw_float = 1;                                                                \
    }

#define AS_DOUBLE(x) ((double)(x))
#define HALF_AS_DOUBLE(x) ((double)la_half_to_float(x))

DEFINE_FOLD_INT(bool, uint8_t)
DEFINE_FOLD_INT(int8, int8_t)
DEFINE_FOLD_INT(uint8, uint8_t)
DEFINE_FOLD_INT(int16, int16_t)
DEFINE_FOLD_INT(uint16, uint16_t)
DEFINE_FOLD_INT(int32, int32_t)
DEFINE_FOLD_INT(uint32, uint32_t)
DEFINE_FOLD_INT(int64, int64_t)
DEFINE_FOLD_FLOAT(float16, uint16_t, HALF_AS_DOUBLE)
DEFINE_FOLD_FLOAT(float32, float, AS_DOUBLE)
DEFINE_FOLD_FLOAT(float64, double, AS_DOUBLE)

/* uint64 alone can hold values above INT64_MAX. */
static void fold_uint64(const uint64_t *v, size_t n, uint64_t first,
                        const struct la_rule *r, struct la_stats *s)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        int verdict = la_verdict_u64(x, r);
        s->n_verdict[verdict]++;
        if (verdict == LA_V_IGNORED)
            continue;
        any = 1;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        if (verdict == LA_V_VALID && x <= (uint64_t)INT64_MAX)
            count_valid(s, (int64_t)x);
        else if (verdict == LA_V_VALID)
            s->hist_beyond++;
        else if (x <= (uint64_t)INT64_MAX)
            fold_invalid_int(s, first + i, verdict, (int64_t)x);
        else
            la_stats_add_bad(s, first + i, verdict, (struct la_num){ LA_NUM_U64, { .u = x } },
                             NULL);
    }
    if (any) {
        la_stats_note_minmax(s, (struct la_num){ LA_NUM_U64, { .u = lo } });
        la_stats_note_minmax(s, (struct la_num){ LA_NUM_U64, { .u = hi } });
    }
}

void la_scan_chunk_cpu_ref(const struct la_chunk *c, const struct la_rule *r,
                           struct la_stats *s)
{
    const void *v = c->values;
    size_t n = c->count;
    uint64_t first = c->first_index;
    s->count += n;
    switch (c->dtype) {
    case LA_DT_BOOL:    fold_bool(v, n, first, r, s); break;
    case LA_DT_INT8:    fold_int8(v, n, first, r, s); break;
    case LA_DT_UINT8:   fold_uint8(v, n, first, r, s); break;
    case LA_DT_INT16:   fold_int16(v, n, first, r, s); break;
    case LA_DT_UINT16:  fold_uint16(v, n, first, r, s); break;
    case LA_DT_INT32:   fold_int32(v, n, first, r, s); break;
    case LA_DT_UINT32:  fold_uint32(v, n, first, r, s); break;
    case LA_DT_INT64:   fold_int64(v, n, first, r, s); break;
    case LA_DT_UINT64:  fold_uint64(v, n, first, r, s); break;
    case LA_DT_FLOAT16: fold_float16(v, n, first, r, s); break;
    case LA_DT_FLOAT32: fold_float32(v, n, first, r, s); break;
    case LA_DT_FLOAT64: fold_float64(v, n, first, r, s); break;
    case LA_DT_COUNT:   break;
    }
}


// ---- fast integer folds ------------------------------------------------------
//
// A label in [0, lim) needs no verdict: it is valid and only its histogram bin
// counts. So each value is mapped, branch-free, to its bin, to the ignore bin,
// or to a "bad" bin, and counted in a small local histogram. A block whose bad
// bin stays empty is done; one that is not (an invalid value, or a valid label
// beyond lim) has its counts taken back and is folded by the reference loop,
// which finds its bad entries in order. Min and max of the counted values are
// the lowest and highest non-empty bins, so the stats match the reference's.

/* Local histogram size: labels at or above this take the reference loop. */
#define FAST_BINS 1024u
/* Values per block: an invalid value costs at most one block of reference loop. */
#define FAST_BLOCK 4096u
/* Interleaved copies of the histogram, so that runs of one label (masks) do
 * not wait on the previous increment of the same counter. */
#define FAST_SUBS 4
/* The uint32 counters are flushed well before they could overflow. */
#define FAST_FLUSH_EVERY ((size_t)1 << 30)

struct fast {
    uint32_t *bins;         /* FAST_SUBS rows of lim + 2 counters; all zero between calls */
    uint64_t lim;           /* labels in [0, lim) are counted in bins [0, lim) */
    uint64_t ignore;        /* bin lim; bin lim + 1 is "anything else" */
    int use_ignore;
    uint16_t lut[256];      /* bytes: each value's bin */
};

/* Labels below lim are valid with every rule the fast loops accept. */
static uint64_t fast_limit(const struct la_rule *r, const struct la_stats *s)
{
    if (r->bce || s->hist_len == 0)
        return 0;
    return s->hist_len < FAST_BINS ? s->hist_len : FAST_BINS;
}

static inline size_t fast_bin(uint64_t x, uint64_t lim, uint64_t ignore, int use_ignore)
{
    size_t bin = x < lim ? (size_t)x : (size_t)lim + 1;
    return use_ignore && x == ignore ? (size_t)lim : bin;
}

static int fast_block_bad(const struct fast *f)
{
    size_t row = (size_t)f->lim + 2, bad = (size_t)f->lim + 1;
    uint32_t any = 0;
    for (int k = 0; k < FAST_SUBS; k++)
        any |= f->bins[k * row + bad];
    return any != 0;
}

/* Move the local counts into s, then zero them. */
static void fast_flush(struct fast *f, struct la_stats *s, int kind)
{
    size_t row = (size_t)f->lim + 2;
    uint64_t valid = 0, lo = 0, hi = 0, ignored = 0;
    for (size_t bin = 0; bin < f->lim; bin++) {
        uint64_t c = 0;
        for (int k = 0; k < FAST_SUBS; k++)
            c += f->bins[k * row + bin];
        if (!c)
            continue;
        if (!valid)
            lo = bin;
        hi = bin;
        valid += c;
        s->hist[bin] += c;
    }
    for (int k = 0; k < FAST_SUBS; k++)
        ignored += f->bins[k * row + f->lim];
    memset(f->bins, 0, FAST_SUBS * row * sizeof *f->bins);
    s->n_verdict[LA_V_VALID] += valid;
    s->n_verdict[LA_V_IGNORED] += ignored;
    if (!valid)
        return;
    if (hi + 1 > s->hist_hi)
        s->hist_hi = hi + 1;
    struct la_num a = { kind, { .u = lo } }, b = { kind, { .u = hi } };
    if (kind == LA_NUM_I64)
        a.v.i = (int64_t)lo, b.v.i = (int64_t)hi;
    la_stats_note_minmax(s, a);
    la_stats_note_minmax(s, b);
}

/* CONV_u widens one stored element to uint64 as the verdict sees it: signed
 * types sign-extend (CONV_0), so negative labels land far above lim. */
#define CONV_0(x) ((uint64_t)(int64_t)(x))
#define CONV_1(x) ((uint64_t)(x))

/* Add d (1, or UINT32_MAX to take counts back) to the bins of p[0..m). BIN is
 * an expression of x giving its bin; four rows take every fourth value. */
#define TALLY_LOOP(BIN)                                                                  \
    do {                                                                                 \
        const size_t row = (size_t)f->lim + 2;                                           \
        uint32_t *c0 = f->bins, *c1 = c0 + row, *c2 = c1 + row, *c3 = c2 + row;          \
        size_t i = 0;                                                                    \
        for (; i + 4 <= m; i += 4) {                                                     \
            uint64_t x;                                                                  \
            x = CONV(p[i]);     c0[BIN] += d;                                            \
            x = CONV(p[i + 1]); c1[BIN] += d;                                            \
            x = CONV(p[i + 2]); c2[BIN] += d;                                            \
            x = CONV(p[i + 3]); c3[BIN] += d;                                            \
        }                                                                                \
        for (; i < m; i++) {                                                             \
            uint64_t x = CONV(p[i]);                                                     \
            c0[BIN] += d;                                                                \
        }                                                                                \
    } while (0)

/* Block by block: count, and give a block holding anything but counted labels
 * and the ignore index back to the reference loop. */
#define FAST_BLOCKS(TALLY, FOLD, KIND)                                                          \
    do {                                                                                 \
        size_t since = 0;                                                                \
        for (size_t b = 0; b < n; b += FAST_BLOCK) {                                     \
            size_t m = n - b < FAST_BLOCK ? n - b : FAST_BLOCK;                          \
            TALLY(v + b, m, f, 1);                                                       \
            if (fast_block_bad(f)) {                                                     \
                TALLY(v + b, m, f, UINT32_MAX);   /* adds -1: takes them back */         \
                FOLD(v + b, m, first + b, r, s);                                         \
            }                                                                            \
            if ((since += m) >= FAST_FLUSH_EVERY) {                                      \
                fast_flush(f, s, KIND);                                                  \
                since = 0;                                                               \
            }                                                                            \
        }                                                                                \
        fast_flush(f, s, KIND);                                                          \
    } while (0)

/* Wider integers: the bin is computed with two branch-free selects. */
#define DEFINE_FAST_INT(NAME, CTYPE, IS_UNSIGNED, KIND)                                  \
    static void tally_##NAME(const CTYPE *p, size_t m, const struct fast *f, uint32_t d) \
    {                                                                                    \
        const uint64_t lim = f->lim, ign = f->ignore, bad = lim + 1;                     \
        if (f->use_ignore)                                                               \
            TALLY_LOOP(x == ign ? lim : x < lim ? x : bad);                              \
        else                                                                             \
            TALLY_LOOP(x < lim ? x : bad);                                               \
    }                                                                                    \
    static void fast_##NAME(const CTYPE *v, size_t n, uint64_t first,                   \
                            const struct la_rule *r, struct la_stats *s, struct fast *f) \
    {                                                                                    \
        /* an unsigned value never equals a negative ignore index */                     \
        f->use_ignore = r->has_ignore && !(IS_UNSIGNED && r->ignore < 0);                \
        f->ignore = (uint64_t)r->ignore;                                                 \
        FAST_BLOCKS(tally_##NAME, fold_##NAME, KIND);                                    \
    }

/* Bytes: a 256-entry table gives each value's bin, one load instead of compares. */
#define DEFINE_FAST_BYTE(NAME, CTYPE)                                                    \
    static void tally_##NAME(const CTYPE *p, size_t m, const struct fast *f, uint32_t d) \
    {                                                                                    \
        const uint16_t *lut = f->lut;                                                    \
        TALLY_LOOP(lut[x & 0xFF]);                                                       \
    }                                                                                    \
    static void fast_##NAME(const CTYPE *v, size_t n, uint64_t first,                   \
                            const struct la_rule *r, struct la_stats *s, struct fast *f) \
    {                                                                                    \
        for (unsigned k = 0; k < 256; k++) {                                             \
            int64_t x = (int64_t)(CTYPE)k;                                               \
            f->lut[k] = (uint16_t)(r->has_ignore && x == r->ignore ? f->lim             \
                                   : x >= 0 && (uint64_t)x < f->lim ? (uint64_t)x        \
                                   : f->lim + 1);                                        \
        }                                                                                \
        FAST_BLOCKS(tally_##NAME, fold_##NAME, LA_NUM_I64);                              \
    }

#define CONV CONV_1
DEFINE_FAST_BYTE(bool, uint8_t)
DEFINE_FAST_BYTE(uint8, uint8_t)
DEFINE_FAST_INT(uint16, uint16_t, 1, LA_NUM_I64)
DEFINE_FAST_INT(uint32, uint32_t, 1, LA_NUM_I64)
DEFINE_FAST_INT(uint64, uint64_t, 1, LA_NUM_U64)
#undef CONV
#define CONV CONV_0
DEFINE_FAST_BYTE(int8, int8_t)
DEFINE_FAST_INT(int16, int16_t, 0, LA_NUM_I64)
DEFINE_FAST_INT(int32, int32_t, 0, LA_NUM_I64)
DEFINE_FAST_INT(int64, int64_t, 0, LA_NUM_I64)
#undef CONV

/* The backend's fold: the same stats as la_scan_chunk_cpu_ref, faster for integers. */
static void fold_fast(const struct la_chunk *c, const struct la_rule *r, struct la_stats *s,
                      struct fast *f)
{
    uint64_t lim = fast_limit(r, s);
    if (!f->bins || !lim || la_dtype_is_float(c->dtype)) {
        la_scan_chunk_cpu_ref(c, r, s);
        return;
    }
    f->lim = lim;
    const void *v = c->values;
    size_t n = c->count;
    uint64_t first = c->first_index;
    s->count += n;
    switch (c->dtype) {
    case LA_DT_BOOL:   fast_bool(v, n, first, r, s, f); break;
    case LA_DT_INT8:   fast_int8(v, n, first, r, s, f); break;
    case LA_DT_UINT8:  fast_uint8(v, n, first, r, s, f); break;
    case LA_DT_INT16:  fast_int16(v, n, first, r, s, f); break;
    case LA_DT_UINT16: fast_uint16(v, n, first, r, s, f); break;
    case LA_DT_INT32:  fast_int32(v, n, first, r, s, f); break;
    case LA_DT_UINT32: fast_uint32(v, n, first, r, s, f); break;
    case LA_DT_INT64:  fast_int64(v, n, first, r, s, f); break;
    case LA_DT_UINT64: fast_uint64(v, n, first, r, s, f); break;
    default:           break;   /* floats took the reference loop above */
    }
}

// ---- the threads ---------------------------------------------------------------
//
// A chunk is cut into one contiguous part per thread of a persistent pool
// (pool.h): part t folds into its own la_stats, and the caller merges the
// parts in order, so the result does not depend on which thread finishes first.

#define MAX_THREADS LA_POOL_MAX
/* Below this many values per thread, waking a thread costs more than it saves. */
#define MIN_VALUES_PER_THREAD (1u << 16)
/* Bad entries a part keeps; a part with more than it may need is folded again
 * serially (see merge_parts), so memory stays bounded whatever the input. */
#define PART_BAD_CAP ((size_t)1 << 14)

struct part {
    struct la_chunk chunk;
    struct la_stats stats;
    int ready;              /* stats allocated for the current file's parameters */
    struct fast fast;
};

/* The backend's state: the pool, and one part per thread that has its bins. */
struct cpu {
    struct la_pool *pool;
    int nthreads;               /* parts usable: min(pool size, bins allocated) */
    const struct la_rule *rule; /* of the chunk being folded */
    struct part parts[MAX_THREADS];
};

static void fold_part(void *ctx, int t)
{
    struct cpu *p = ctx;
    struct part *pt = &p->parts[t];
    fold_fast(&pt->chunk, p->rule, &pt->stats, &pt->fast);
}

static void cpu_free(struct cpu *p)
{
    if (!p)
        return;
    la_pool_close(p->pool);
    for (int t = 0; t < MAX_THREADS; t++) {
        if (p->parts[t].ready)
            la_stats_free(&p->parts[t].stats);
        free(p->parts[t].fast.bins);
    }
    free(p);
}

static struct cpu *cpu_alloc(int threads)
{
    struct cpu *p = calloc(1, sizeof *p);
    if (!p || !(p->pool = la_pool_open(threads))) {
        free(p);
        return NULL;
    }
    for (int t = 0; t < la_pool_size(p->pool); t++) {
        if (!(p->parts[t].fast.bins = calloc(FAST_SUBS * (FAST_BINS + 2), sizeof(uint32_t))))
            break;   /* fewer threads: the scan is still complete */
        p->nthreads = t + 1;
    }
    if (p->nthreads == 0) {
        cpu_free(p);
        return NULL;
    }
    return p;
}

// ---- parts -----------------------------------------------------------------------

/* Give part t its slice of c and an empty accumulator shaped like s. */
static int prepare_part(struct part *pt, const struct la_chunk *c, size_t lo, size_t hi,
                        const struct la_stats *s)
{
    size_t elem = la_dtype_info(c->dtype)->size;
    pt->chunk = *c;
    pt->chunk.values = (const char *)c->values + lo * elem;
    pt->chunk.count = hi - lo;
    pt->chunk.first_index = c->first_index + lo;
    struct la_stats *ps = &pt->stats;
    if (pt->ready && (ps->sample_stride != s->sample_stride || ps->hist_len != s->hist_len ||
                      ps->above_base != s->above_base)) {
        la_stats_free(ps);
        pt->ready = 0;
    }
    if (!pt->ready) {
        if (la_stats_init(ps, s->sample_stride, PART_BAD_CAP, s->hist_len, s->above_base) != 0)
            return -1;
        pt->ready = 1;
    }
    /* without a sink, dst keeps at most its room; a sink needs every entry */
    size_t room = s->bad_cap - s->n_bad;
    ps->bad_cap = s->sink || room > PART_BAD_CAP ? PART_BAD_CAP : room;
    return 0;
}

/* Empty a part's accumulator for the next chunk, keeping its allocations. */
static void reset_part(struct la_stats *ps)
{
    for (size_t i = 0; i < ps->n_bad; i++)
        free(ps->bad[i].text);
    if (ps->hist)
        memset(ps->hist, 0, (size_t)(ps->hist_hi < ps->hist_len ? ps->hist_hi : ps->hist_len)
                                * sizeof *ps->hist);
    ps->count = 0;
    memset(ps->n_verdict, 0, sizeof ps->n_verdict);
    ps->has_minmax = 0;
    ps->saw_float = 0;
    ps->hist_beyond = ps->hist_hi = 0;
    memset(ps->outlier_below, 0, sizeof ps->outlier_below);
    memset(ps->outlier_above, 0, sizeof ps->outlier_above);
    ps->n_bad = 0;
    ps->bad_total = ps->bad_samples = 0;
    ps->has_last_bad = 0;
    ps->first_bad_sample = ps->last_bad_sample = 0;
}

/* Merge the parts into s in index order. A part that dropped bad entries s
 * would still keep (or a sink must see) is folded again here, serially. */
static void merge_parts(struct cpu *p, int nparts, const struct la_rule *r, struct la_stats *s)
{
    for (int t = 0; t < nparts; t++) {
        struct la_stats *ps = &p->parts[t].stats;
        size_t room = s->bad_cap - s->n_bad;
        int dropped = ps->n_bad < ps->bad_total && (s->sink || ps->n_bad < room);
        if (dropped)
            la_scan_chunk_cpu_ref(&p->parts[t].chunk, r, s);
        else
            la_stats_merge(s, ps);
        reset_part(ps);
    }
}

// ---- the backend ------------------------------------------------------------------

static int cpu_scan(struct la_scan_backend *b, const struct la_chunk *c,
                    const struct la_rule *r, struct la_stats *s, char *err, size_t errlen)
{
    struct cpu *p = b->state;
    if (!p) {                       /* the pool could not be allocated: stay correct */
        la_scan_chunk_cpu_ref(c, r, s);
        return 0;
    }
    int nparts = p->nthreads;
    if ((size_t)nparts > c->count / MIN_VALUES_PER_THREAD)
        nparts = (int)(c->count / MIN_VALUES_PER_THREAD);
    if (nparts <= 1) {
        fold_fast(c, r, s, &p->parts[0].fast);
        return 0;
    }
    size_t per = c->count / (size_t)nparts;
    for (int t = 0; t < nparts; t++) {
        size_t lo = per * (size_t)t, hi = t == nparts - 1 ? c->count : lo + per;
        if (prepare_part(&p->parts[t], c, lo, hi, s) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    p->rule = r;
    la_pool_run(p->pool, nparts, fold_part, p);
    merge_parts(p, nparts, r, s);
    return 0;
}

static void cpu_close(struct la_scan_backend *b)
{
    cpu_free(b->state);
    b->state = NULL;
}

static const struct la_scan_backend_ops cpu_ops = { "cpu", cpu_scan, cpu_close };

int la_scan_cpu_open(struct la_scan_backend *b, int threads)
{
    b->ops = &cpu_ops;
    b->threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    b->window_bytes = 0;
    b->state = cpu_alloc(b->threads);
    return 0;
}
