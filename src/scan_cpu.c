/* scan_cpu.c - the CPU scan backend, and the reference every backend matches.
 *
 * The reference (la_scan_chunk_cpu_ref) has one type-specialised loop per
 * dtype (a macro instantiates them), so the inner loop has no per-element
 * switch or function pointer. The backend itself takes a faster road to the
 * same stats: integer blocks are counted into a small local histogram with
 * branch-free code, one bin per value near the valid range, and a block
 * holding invalid values is folded again by the reference loop only while
 * their positions are still wanted (see "fast integer folds").
 *
 * With -j > 1 a chunk is cut into one contiguous part per thread of a
 * persistent pool; each part folds into the thread's own la_stats and the
 * parts are merged in index order, so reports are the same for any -j. */
#include "scan.h"
#include "pool.h"    /* the threads a chunk's parts are folded on */

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, free */
#include <string.h>  /* memset */

#include "msg.h"     /* la_progress_update */
#include "window.h"  /* a file run's windows */

// ---- folding one value ------------------------------------------------------

/* n valid entries holding label. */
static inline void count_valid(struct la_stats *s, int64_t label, uint64_t n)
{
    if (la_hist_fits(label, s->hist_len)) {
        s->hist[label] += n;
        if ((uint64_t)label >= s->hist_hi)
            s->hist_hi = (uint64_t)label + 1;
    } else {
        s->hist_beyond += n;
    }
}

/* Out-of-range integers near the valid range feed the ignore-value hint:
 * n entries holding x. */
static inline void count_outlier(struct la_stats *s, int verdict, int64_t x, uint64_t n)
{
    int slot = la_outlier_slot(verdict, x, s->above_base, LA_OUTLIER_BINS);
    if (slot >= 0 && slot < LA_OUTLIER_BINS)
        s->outlier_below[slot] += n;
    else if (slot >= LA_OUTLIER_BINS)
        s->outlier_above[slot - LA_OUTLIER_BINS] += n;
}

static void fold_invalid_int(struct la_stats *s, uint64_t index, int verdict, int64_t x)
{
    count_outlier(s, verdict, x, 1);
    la_stats_add_bad(s, index, verdict, (struct la_num){ LA_NUM_I64, { .i = x } }, NULL);
}

static void fold_invalid_float(struct la_stats *s, uint64_t index, int verdict, double x)
{
    int64_t label;
    if (la_f64_label(x, &label))
        count_outlier(s, verdict, label, 1);
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
            if (verdict == LA_V_VALID && x == 0)                                         \
                la_stats_note_zero(s, first + i);                                        \
            if (verdict == LA_V_VALID)                                                   \
                count_valid(s, x, 1);                                                    \
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
                if (!r->bce && x == 0)                                                   \
                    la_stats_note_zero(s, first + i);                                    \
                if (!r->bce && la_f64_label(x, &label))                                  \
                    count_valid(s, label, 1);                                            \
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
        if (verdict == LA_V_VALID && x == 0)
            la_stats_note_zero(s, first + i);
        if (verdict == LA_V_VALID && x <= (uint64_t)INT64_MAX)
            count_valid(s, (int64_t)x, 1);
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

/* The reference loop for n values of dtype, the first at flat index `first`
 * (s->count is the caller's). */
static void fold_values_ref(int dtype, const void *v, size_t n, uint64_t first,
                            const struct la_rule *r, struct la_stats *s)
{
    switch (dtype) {
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

void la_scan_chunk_cpu_ref(const struct la_chunk *c, const struct la_rule *r,
                           struct la_stats *s)
{
    s->count += c->count;
    fold_values_ref(c->dtype, c->values, c->count, c->first_index, r, s);
}


// ---- fast integer folds ------------------------------------------------------
//
// A label in [0, lim) needs no verdict: it is valid and only its histogram bin
// counts. So each value goes, without a branch, to a bin of a small local
// histogram: values near the valid range (-256 .. lim + 255, where the invalid
// values people write live: -1, -100, 255, N) have a bin of their own, and
// everything else shares a "far" bin. The verdicts, histogram, outliers and
// min/max are taken from the bins once per chunk (fast_flush), one verdict per
// bin instead of one per value.
//
// Only the bad-entry list and the sink need every position, and the list is
// full after the first --max-report entries; a kept per-sample group needs
// only its first entry, its count, and whether another value occurs. So a
// block of values holding invalid ones is settled in one of two ways:
//  - the list or a sink wants its entries, a far value hides its value, lim is
//    not the class count (a value >= lim may be valid), or it spans samples
//    whose groups are kept: its counts are taken back and the reference loop
//    folds it, finding its bad entries in order;
//  - otherwise its counts stay in the bins, and only the samples holding its
//    invalid values are counted (la_stats_add_bad_run), with the first entry
//    of a kept group found by a short scan (group_head).

/* Local histogram size: labels at or above this take the reference loop. */
#define FAST_BINS 1024u
/* Values per block: an invalid value costs at most one block of reference loop. */
#define FAST_BLOCK 4096u
/* Interleaved copies of the histogram, so that runs of one label (masks) do
 * not wait on the previous increment of the same counter. */
#define FAST_SUBS 4
/* The uint32 counters are flushed well before they could overflow. */
#define FAST_FLUSH_EVERY ((size_t)1 << 30)
/* Values within this distance below 0 or at and above lim have bins: the
 * outlier counters' reach, so that every outlier is counted from a bin. */
#define FAST_NEAR ((uint64_t)LA_OUTLIER_BINS)
/* A row: the window of near values, the far bin, the ignore index's bin. */
#define FAST_ROW_MAX (FAST_NEAR + FAST_BINS + FAST_NEAR + 2)

#if defined(__GNUC__)
/* The templates below are instantiated per dtype: inlining them into each
 * instance is what turns their dtype switch into one load instruction. */
#define FAST_INLINE static inline __attribute__((always_inline))
#else
#define FAST_INLINE static inline
#endif

/* Bad values' bins watched by their counts; past them, a block's values are
 * looked up one by one. */
#define FAST_SETTLED_MAX 128

struct fast {
    uint32_t *bins;         /* FAST_SUBS rows of `row` counters; all zero between chunks */
    uint64_t lim;           /* labels in [0, lim) are valid */
    uint64_t window;        /* the value x in [-FAST_NEAR, lim + FAST_NEAR) has bin x + FAST_NEAR */
    size_t far_bin;         /* = window: values outside it */
    size_t ignore_bin;      /* = window + 1: the ignore index, when outside the window */
    size_t row;             /* = window + 2 */
    int use_ignore;         /* the dtype can hold the ignore index */
    int ignore_far;         /* ... and it lies outside the window */
    uint64_t ignore;        /* as load_label widens a value */
    int counts_only;        /* lim is the class count: no value >= lim is valid */
    size_t entry_cap;       /* bad entries wanted in the stats' bad[] (parts: dst's room) */
    int watching;           /* watch is set: a value (an open group's first) whose */
    uint64_t watch;         /* bin, read before and after a block, tells how often */
    size_t watch_bin;       /* it occurs there (see group_head) */
    int dirty;              /* bins of values outside [0, lim) may hold counts */
    /* 1 for a bin whose value may be a bad one the stats' distinct values
     * still want places of (la_stats_value_settled); 0 for the labels below
     * lim, the ignore index and the bad values settled: a block whose bins
     * are all 0 is counted alone. Set for each chunk, as the stats it was
     * asked of may change between them. */
    unsigned char need[FAST_ROW_MAX];
    /* the bad values' bins set to 0 in need[]: where a block's bad entries
     * all lie in them (their counts grew by as many), no value in it is new,
     * and the block costs no pass of its own (see places_settled) */
    uint16_t settled[FAST_SETTLED_MAX];
    size_t n_settled;
    unsigned probe_rest;    /* blocks to count without probe_clean() first */
    unsigned probe_fails;   /* probes failed in a row */
};

/* Labels below lim are valid with every rule the fast loops accept. */
static uint64_t fast_limit(const struct la_rule *r, const struct la_stats *s)
{
    if (r->bce || s->hist_len == 0)
        return 0;
    return s->hist_len < FAST_BINS ? s->hist_len : FAST_BINS;
}

static int dtype_unsigned(int dtype)
{
    return dtype == LA_DT_BOOL || dtype == LA_DT_UINT8 || dtype == LA_DT_UINT16 ||
           dtype == LA_DT_UINT32 || dtype == LA_DT_UINT64;
}

/* Lay the bins out for one chunk's rule and dtype. */
static void fast_setup(struct fast *f, uint64_t lim, int dtype, const struct la_rule *r)
{
    f->lim = lim;
    f->window = lim + 2 * FAST_NEAR;
    f->far_bin = (size_t)f->window;
    f->ignore_bin = f->far_bin + 1;
    f->row = f->far_bin + 2;
    /* an unsigned value never equals a negative ignore index */
    f->use_ignore = r->has_ignore && !(dtype_unsigned(dtype) && r->ignore < 0);
    f->ignore = (uint64_t)r->ignore;
    f->ignore_far = f->use_ignore && (f->ignore + FAST_NEAR >= f->window);
    f->counts_only = r->has_upper && (uint64_t)r->upper == lim;
    f->watching = 0;
    f->probe_rest = f->probe_fails = 0;
    f->n_settled = 0;
    memset(f->need, 1, f->row);
    memset(f->need + FAST_NEAR, 0, (size_t)lim);          /* the valid labels */
    f->need[f->ignore_bin] = 0;
    if (f->use_ignore && !f->ignore_far)
        f->need[f->ignore + FAST_NEAR] = 0;
}

/* A bin's count over the FAST_SUBS rows, modulo 2^32. */
static inline uint32_t bin_total(const struct fast *f, size_t bin)
{
    uint32_t c = 0;
    for (int k = 0; k < FAST_SUBS; k++)
        c += f->bins[(size_t)k * f->row + bin];
    return c;
}

/* One stored element, widened to uint64 as the verdict sees it: signed types
 * sign-extend, so negative labels land far above lim. dtype is a constant in
 * every instance, so the switch folds away. */
FAST_INLINE uint64_t load_label(const void *p, size_t i, int dtype)
{
    switch (dtype) {
    case LA_DT_INT8:   return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case LA_DT_INT16:  return (uint64_t)(int64_t)((const int16_t *)p)[i];
    case LA_DT_UINT16: return ((const uint16_t *)p)[i];
    case LA_DT_INT32:  return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case LA_DT_UINT32: return ((const uint32_t *)p)[i];
    case LA_DT_INT64:  return (uint64_t)((const int64_t *)p)[i];
    case LA_DT_UINT64: return ((const uint64_t *)p)[i];
    default:           return ((const uint8_t *)p)[i];   /* bool, uint8 */
    }
}

/* How the loops treat the ignore index: a constant in each instance, so that
 * the tests a file does not need are not compiled into its loop. */
enum keys_mode { KEYS_NO_IGNORE, KEYS_IGNORE_NEAR, KEYS_IGNORE_FAR };

/* What a value's bin and test need, copied out of struct fast into a local:
 * the counters the loops store to could alias an int field, and the copy
 * lets the compiler keep these in registers. */
struct keys {
    uint64_t lim, ignore, window;
    size_t far_bin, ignore_bin;
    int mode;                /* enum keys_mode */
};

static int keys_mode(const struct fast *f)
{
    return !f->use_ignore ? KEYS_NO_IGNORE : f->ignore_far ? KEYS_IGNORE_FAR : KEYS_IGNORE_NEAR;
}

FAST_INLINE struct keys fast_keys(const struct fast *f, int mode)
{
    return (struct keys){ f->lim, f->ignore, f->window, f->far_bin, f->ignore_bin, mode };
}

/* x's bin, with selects only. Bytes always lie in the window (it reaches
 * 256 past lim and 256 below 0). A uint64 above INT64_MAX must not wrap into
 * the negative part of the window, hence the unsigned compare. */
FAST_INLINE size_t fast_bin(uint64_t x, int dtype, const struct keys *k)
{
    uint64_t w = x + FAST_NEAR;
    if (dtype == LA_DT_BOOL || dtype == LA_DT_UINT8 || dtype == LA_DT_INT8)
        return (size_t)w;
    int near = dtype_unsigned(dtype) ? x < k->window - FAST_NEAR : w < k->window;
    size_t bin = near ? (size_t)w : k->far_bin;
    return k->mode == KEYS_IGNORE_FAR && x == k->ignore ? k->ignore_bin : bin;
}

/* 1 when x is neither a label below lim nor the ignore index: invalid, or
 * (unless counts_only) a valid label the reference loop must count. */
FAST_INLINE unsigned not_fast(uint64_t x, const struct keys *k)
{
    if (k->mode == KEYS_NO_IGNORE)
        return x >= k->lim;
    return (x >= k->lim) & (x != k->ignore);
}

/* Whether dtype's values are bytes, whose runs byte_run finds. */
FAST_INLINE int is_byte(int dtype)
{
    return dtype == LA_DT_UINT8 || dtype == LA_DT_INT8 || dtype == LA_DT_BOOL;
}

/* Whether the eight bytes from p[i] on are one value (a run: a mask's
 * regions are thousands of pixels of one class). Such a run is counted with
 * one add instead of eight: adds to one counter wait on each other, and in a
 * mask the next pixel's counter is the same one (on 512 x 512 VOC-like masks,
 * those adds were a fifth of the time). */
FAST_INLINE int byte_run(const void *p, size_t i)
{
    uint64_t w;
    memcpy(&w, (const unsigned char *)p + i, 8);
    return w == (w & 0xFFu) * 0x0101010101010101ull;
}

/* Add d to the bins of p[i..i+4), one value to each row. @return how many are not_fast(). */
FAST_INLINE size_t tally4(const void *p, size_t i, int dtype, const struct fast *f,
                          const struct keys *k, uint32_t d)
{
    uint32_t *c0 = f->bins, *c1 = c0 + f->row, *c2 = c1 + f->row, *c3 = c2 + f->row;
    uint64_t x0 = load_label(p, i, dtype), x1 = load_label(p, i + 1, dtype);
    uint64_t x2 = load_label(p, i + 2, dtype), x3 = load_label(p, i + 3, dtype);
    c0[fast_bin(x0, dtype, k)] += d;
    c1[fast_bin(x1, dtype, k)] += d;
    c2[fast_bin(x2, dtype, k)] += d;
    c3[fast_bin(x3, dtype, k)] += d;
    return not_fast(x0, k) + not_fast(x1, k) + not_fast(x2, k) + not_fast(x3, k);
}

/* Add d (1, or UINT32_MAX to take counts back) to the bins of p[0..m); four
 * rows take every fourth value, a run of eight bytes one add. Returns how
 * many values are not_fast(). */
FAST_INLINE size_t tally_block(const void *p, size_t m, int dtype, const struct fast *f,
                               const struct keys *keys, uint32_t d)
{
    const struct keys k = *keys;
    uint32_t *c0 = f->bins;
    size_t i = 0, other = 0;
    for (; is_byte(dtype) && i + 8 <= m; i += 8) {
        if (byte_run(p, i)) {
            uint64_t x = load_label(p, i, dtype);
            c0[fast_bin(x, dtype, &k)] += 8u * d;
            other += 8u * not_fast(x, &k);
        } else {
            other += tally4(p, i, dtype, f, &k, d) + tally4(p, i + 4, dtype, f, &k, d);
        }
    }
    for (; i + 4 <= m; i += 4)
        other += tally4(p, i, dtype, f, &k, d);
    for (; i < m; i++) {
        uint64_t x = load_label(p, i, dtype);
        c0[fast_bin(x, dtype, &k)] += d;
        other += not_fast(x, &k);
    }
    return other;
}

/* 1 when every value of v[0..m) (a dtype's bits, as unsigned) is below
 * lim: a first pass over a block, with no branch and no compare, in the
 * dtype's own width, so that it vectorizes; such a block, the common case,
 * is then counted by tally_near with no test per value. With L = lim, at
 * most the top bit, x < L exactly when x - L wraps to a value with the top
 * bit set and x itself has it clear; a signed x with it set is negative. A
 * larger lim (uint8 labels above 127) only sends blocks the longer way. */
#define DEFINE_ALL_BELOW(NAME, UTYPE)                                              \
    FAST_INLINE int NAME(const UTYPE *v, size_t m, uint64_t lim)                  \
    {                                                                              \
        const UTYPE top = (UTYPE)((UTYPE)1 << (sizeof(UTYPE) * 8 - 1));            \
        const UTYPE below = lim < top ? (UTYPE)lim : top;                          \
        UTYPE acc = (UTYPE)~(UTYPE)0;                                              \
        for (size_t i = 0; i < m; i++)                                             \
            acc &= (UTYPE)((UTYPE)(v[i] - below) & (UTYPE)~v[i]);                  \
        return (acc & top) != 0;                                                   \
    }

DEFINE_ALL_BELOW(all_below8, uint8_t)
DEFINE_ALL_BELOW(all_below16, uint16_t)
DEFINE_ALL_BELOW(all_below32, uint32_t)
DEFINE_ALL_BELOW(all_below64, uint64_t)

FAST_INLINE int all_below(const void *p, size_t m, int dtype, uint64_t lim)
{
    switch (dtype) {
    case LA_DT_INT16:
    case LA_DT_UINT16: return all_below16(p, m, lim);
    case LA_DT_INT32:
    case LA_DT_UINT32: return all_below32(p, m, lim);
    case LA_DT_INT64:
    case LA_DT_UINT64: return all_below64(p, m, lim);
    default:           return all_below8(p, m, lim);   /* bool, int8, uint8 */
    }
}

/* Blocks not probed after two probes in a row fail: where most blocks hold
 * other values (1-based labels, an ignore index in every mask), the probe
 * would be a wasted pass over each. One failure alone (a stray bad label)
 * does not stop the probing. */
#define FAST_PROBE_REST 7

/* Whether block p[0..m) is all labels below lim, by all_below, unless
 * probing rests (then 0). */
FAST_INLINE int probe_clean(const void *p, size_t m, int dtype, const struct keys *k,
                            struct fast *f)
{
    if (f->probe_rest > 0) {
        f->probe_rest--;
        return 0;
    }
    /* a full block's constant count lets -O2 vectorize all_below's loop */
    int clean = m == FAST_BLOCK ? all_below(p, FAST_BLOCK, dtype, k->lim)
                                : all_below(p, m, dtype, k->lim);
    f->probe_fails = clean ? 0 : f->probe_fails + 1;
    f->probe_rest = f->probe_fails >= 2 ? FAST_PROBE_REST : 0;
    return clean;
}

/* Add 1 to the bins of p[i..i+4), one value to each row. */
FAST_INLINE void near4(const void *p, size_t i, int dtype, const struct fast *f)
{
    uint32_t *c0 = f->bins + FAST_NEAR, *c1 = c0 + f->row, *c2 = c1 + f->row, *c3 = c2 + f->row;
    c0[load_label(p, i, dtype)]++;
    c1[load_label(p, i + 1, dtype)]++;
    c2[load_label(p, i + 2, dtype)]++;
    c3[load_label(p, i + 3, dtype)]++;
}

/* Add 1 to the bins of p[0..m), every value of which lies in the window
 * (all_below found them all below lim):
 * its bin is x + FAST_NEAR. Four rows and runs of bytes, as in tally_block. */
FAST_INLINE void tally_near(const void *p, size_t m, int dtype, const struct fast *f)
{
    uint32_t *c0 = f->bins + FAST_NEAR;
    size_t i = 0;
    for (; is_byte(dtype) && i + 8 <= m; i += 8) {
        if (byte_run(p, i)) {
            c0[load_label(p, i, dtype)] += 8;
        } else {
            near4(p, i, dtype, f);
            near4(p, i + 4, dtype, f);
        }
    }
    for (; i + 4 <= m; i += 4)
        near4(p, i, dtype, f);
    for (; i < m; i++)
        c0[load_label(p, i, dtype)]++;
}

/* The samples of p[0..m) (p[0] has flat index `first`, and the block spans
 * several samples) that hold a value not_fast(): how many, the first and
 * the last. */
struct bad_samples {
    uint64_t count, first, last;
};

FAST_INLINE struct bad_samples find_bad_samples(const void *p, size_t m, int dtype,
                                                uint64_t first, uint64_t stride, size_t n_bad,
                                                const struct keys *k)
{
    struct bad_samples b = { 0, first / stride, (first + m - 1) / stride };
    if (stride == 1) {                     /* each value its own sample */
        size_t lo = 0, hi = m - 1;
        while (!not_fast(load_label(p, lo, dtype), k))
            lo++;
        while (!not_fast(load_label(p, hi, dtype), k))
            hi--;
        return (struct bad_samples){ n_bad, first + lo, first + hi };
    }
    /* several samples: an OR over each, then selects */
    uint64_t sample = b.first;
    int found = 0;
    for (size_t i = 0; i < m; sample++) {
        size_t end = i + (size_t)(stride - (first + i) % stride);
        end = end < m ? end : m;
        unsigned any = 0;
        for (; i < end; i++)
            any |= not_fast(load_label(p, i, dtype), k);
        b.count += any;
        b.first = any && !found ? sample : b.first;
        b.last = any ? sample : b.last;
        found |= (int)any;
    }
    return b;
}

/* The index in p[0..m) of its first value that is not_fast(). */
FAST_INLINE size_t first_bad(const void *p, int dtype, const struct keys *k)
{
    size_t i = 0;
    while (!not_fast(load_label(p, i, dtype), k))
        i++;
    return i;
}

/* How many values of p[0..m) are x: compares and adds, no branch. */
FAST_INLINE size_t count_equal(const void *p, size_t m, int dtype, uint64_t x)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        n += load_label(p, i, dtype) == x;
    return n;
}

/* The first bad entry of a single-sample block and whether the block's other
 * bad entries (n_bad in all) hold another value, for the sample's kept group.
 * A group that is already mixed needs neither; one continued from an earlier
 * block is compared with its own first value, by how much that value's bin
 * grew in this block (`before`: its count before the block) when it is
 * watched, else by a count. */
FAST_INLINE struct la_bad group_head(const void *p, size_t m, uint64_t first, size_t n_bad,
                                     uint32_t before, int dtype, const struct keys *k,
                                     const struct la_rule *r, const struct la_stats *s,
                                     struct fast *f, int *mixed)
{
    uint64_t sample = first / s->sample_stride;
    const struct la_bad_group *g = la_stats_open_group(s, sample);
    if (g && (g->mixed || g->first_value.kind != LA_NUM_I64)) {
        *mixed = 1;   /* already mixed, or a uint64 beyond int64 no window value equals */
        f->watching = 0;
        return (struct la_bad){ first, sample, g->first_verdict, g->first_value, NULL };
    }
    size_t at = g ? 0 : first_bad(p, dtype, k);
    uint64_t x = g ? (uint64_t)g->first_value.v.i : load_label(p, at, dtype);
    if (g && f->watching && f->watch == x)
        *mixed = bin_total(f, f->watch_bin) - before != (uint32_t)n_bad;
    else
        *mixed = count_equal(p, m, dtype, x) != n_bad;
    f->watching = 1;
    f->watch = x;
    f->watch_bin = fast_bin(x, dtype, k);
    return (struct la_bad){ first + at, sample, g ? g->first_verdict : la_verdict_i64((int64_t)x, r),
                            { LA_NUM_I64, { .i = (int64_t)x } }, NULL };
}

/* A kept group's distinct bad values, from a block of its one sample whose
 * entries are counted in a run: so the group lists the same values however
 * the file was cut into blocks (a mapped file, a pipe). */
static void note_group_values(const void *p, size_t m, int dtype, const struct keys *k,
                              struct la_stats *s)
{
    for (size_t i = 0; i < m && la_stats_group_wants_values(s); i++) {
        uint64_t x = load_label(p, i, dtype);
        if (not_fast(x, k))
            la_stats_note_group_value(s, (struct la_num){ LA_NUM_I64, { .i = (int64_t)x } });
    }
}

/* The bad entries of p[0..m) (p[0] has flat index `first`), in order, as the
 * reference loop adds them, when the bins hold the block's counts: every
 * value not_fast() is invalid (lim is the class count) and none is far (its
 * value is in its bin), so only the list, the groups and the sink still need
 * each entry's place. Costs a compare per value, not the reference loop's
 * verdict and histogram update. */
FAST_INLINE void list_bad(const void *p, size_t m, uint64_t first, int dtype,
                          const struct keys *k, const struct la_rule *r, struct la_stats *s)
{
    for (size_t i = 0; i < m; i++) {
        uint64_t x = load_label(p, i, dtype);
        if (not_fast(x, k))   /* the value's count comes with its bin's flush */
            la_stats_add_bad_placed(s, first + i, la_verdict_i64((int64_t)x, r),
                                    (struct la_num){ LA_NUM_I64, { .i = (int64_t)x } });
    }
}

/* The counts of the settled bins, summed modulo 2^32. */
static inline uint32_t settled_total(const struct fast *f)
{
    uint32_t t = 0;
    for (size_t i = 0; i < f->n_settled; i++)
        t += bin_total(f, f->settled[i]);
    return t;
}

/* 1 when every bad value of p[0..m) (none far; n_bad of them, `before`:
 * settled_total() before the block was counted) is one whose places the
 * stats' distinct values have (or never keep): its entries may then be
 * counted alone. A value once settled stays so for the chunk (its first
 * places only fill, the table's largest only falls). Where the settled bins
 * grew by n_bad, the block holds no other bad value: no pass over it. */
FAST_INLINE int places_settled(const void *p, size_t m, uint64_t n_bad, uint32_t before,
                               int dtype, const struct keys *k, const struct la_stats *s,
                               struct fast *f)
{
    if (f->n_settled < FAST_SETTLED_MAX && settled_total(f) - before == (uint32_t)n_bad)
        return 1;
    for (size_t i = 0; i < m; i++) {      /* a value not settled yet: ask the stats */
        uint64_t x = load_label(p, i, dtype);
        size_t bin = fast_bin(x, dtype, k);
        if (!f->need[bin])
            continue;
        if (!la_stats_value_settled(s, (struct la_num){ LA_NUM_I64, { .i = (int64_t)x } }))
            return 0;
        f->need[bin] = 0;
        if (f->n_settled < FAST_SETTLED_MAX)
            f->settled[f->n_settled++] = (uint16_t)bin;
    }
    return 1;
}

/* A block whose values are not all labels below lim (n_bad of them). When
 * only counts matter, its counts stay in the bins and the samples holding
 * them are counted; when its entries are wanted and the bins say all the
 * rest, they stay too and the entries are listed (list_bad); else they are
 * taken back and the reference loop folds it. */
FAST_INLINE void settle_block(const void *p, size_t m, uint64_t first, size_t n_bad,
                              uint32_t before, uint32_t settled_before, int dtype,
                              const struct keys *k, const struct la_rule *r, struct la_stats *s,
                              struct fast *f)
{
    uint32_t far = bin_total(f, f->far_bin);   /* this block's: they never stay */
    uint64_t sample = first / s->sample_stride;
    int one_sample = (first + m - 1) / s->sample_stride == sample;
    int group = la_stats_keeps_group(s, sample);
    /* a group of one sample is kept from the block's first bad value; where
     * the block holds several samples, groups take the reference loop */
    int counts_only = f->counts_only && !far && !s->sink && s->n_bad >= f->entry_cap &&
                      (one_sample || (!group && !la_stats_keeps_group(s, sample + 1))) &&
                      places_settled(p, m, n_bad, settled_before, dtype, k, s, f);
    if (!counts_only && f->counts_only && !far) {
        list_bad(p, m, first, dtype, k, r, s);
        f->dirty = 1;
        return;
    }
    if (!counts_only) {
        tally_block(p, m, dtype, f, k, UINT32_MAX);   /* adds -1: takes them back */
        fold_values_ref(dtype, p, m, first, r, s);
        return;
    }
    struct la_bad head = { .sample = sample };
    int mixed = 0;
    struct bad_samples b = { 1, sample, sample };
    if (group)
        head = group_head(p, m, first, n_bad, before, dtype, k, r, s, f, &mixed);
    else if (!one_sample)
        b = find_bad_samples(p, m, dtype, first, s->sample_stride, n_bad, k);
    head.sample = b.first;
    la_stats_add_bad_run(s, &head, b.last, b.count, n_bad, mixed);
    if (group && mixed && head.value.kind == LA_NUM_I64)
        note_group_values(p, m, dtype, k, s);
    f->dirty = 1;
}

/* Fold one bin's counts into s (by its value's verdict) and zero them. */
static void flush_bin(struct fast *f, size_t bin, int64_t x, int kind, const struct la_rule *r,
                      struct la_stats *s, struct la_num *lo, struct la_num *hi, int *any)
{
    uint64_t c = 0;
    for (int k = 0; k < FAST_SUBS; k++) {
        c += f->bins[(size_t)k * f->row + bin];
        f->bins[(size_t)k * f->row + bin] = 0;
    }
    if (!c)
        return;
    int verdict = la_verdict_i64(x, r);
    s->n_verdict[verdict] += c;
    if (verdict == LA_V_IGNORED)
        return;
    struct la_num v = { kind, { .i = x } };
    if (verdict == LA_V_VALID) {
        count_valid(s, x, c);
    } else {
        count_outlier(s, verdict, x, c);
        la_stats_count_value(s, verdict, v, c);
    }
    if (!*any)
        *lo = v;
    *hi = v;
    *any = 1;
}

/* Move the local counts into s, leaving the bins zero. Bins are in value
 * order, so min and max are the first and last non-ignored non-empty bins. */
static void fast_flush(struct fast *f, const struct la_rule *r, struct la_stats *s, int kind)
{
    struct la_num lo, hi;
    int any = 0;
    /* without settled blocks, only labels below lim and the ignore index were left */
    size_t from = f->dirty ? 0 : (size_t)FAST_NEAR, to = from + (f->dirty ? f->window : f->lim);
    for (size_t bin = from; bin < to; bin++)
        flush_bin(f, bin, (int64_t)bin - (int64_t)FAST_NEAR, kind, r, s, &lo, &hi, &any);
    if (f->use_ignore && !f->ignore_far)    /* zeroed above if it was in [from, to) */
        flush_bin(f, (size_t)(f->ignore + FAST_NEAR), (int64_t)f->ignore, kind, r, s, &lo, &hi,
                  &any);
    for (int k = 0; k < FAST_SUBS; k++) {
        s->n_verdict[LA_V_IGNORED] += f->bins[(size_t)k * f->row + f->ignore_bin];
        f->bins[(size_t)k * f->row + f->ignore_bin] = 0;
    }
    f->dirty = 0;
    if (any) {
        la_stats_note_minmax(s, lo);
        la_stats_note_minmax(s, hi);
    }
}

/* The first labels 0 of a block that holds some (its zero bin grew), while
 * the stats want their places (a block the reference loop folded took its
 * counts back from the bins and noted its own). */
FAST_INLINE void note_zeros(const void *p, size_t m, uint64_t first, int dtype,
                            struct la_stats *s)
{
    for (size_t i = 0; i < m && s->n_zero_first < LA_BAD_VALUE_FIRST; i++)
        if (load_label(p, i, dtype) == 0)
            la_stats_note_zero(s, first + i);
}

/* Block by block: count, and settle a block holding anything but labels
 * below lim and the ignore index. */
FAST_INLINE void fast_blocks(const void *v, size_t n, uint64_t first, int dtype, int mode,
                             const struct la_rule *r, struct la_stats *s, struct fast *f)
{
    const struct keys k = fast_keys(f, mode);
    size_t elem = la_dtype_info(dtype)->size, since = 0;
    int kind = dtype == LA_DT_UINT64 ? LA_NUM_U64 : LA_NUM_I64;
    for (size_t b = 0; b < n; b += FAST_BLOCK) {
        size_t m = n - b < FAST_BLOCK ? n - b : FAST_BLOCK;
        const void *p = (const char *)v + b * elem;
        uint32_t before = f->watching ? bin_total(f, f->watch_bin) : 0;
        int zeros_wanted = s->n_zero_first < LA_BAD_VALUE_FIRST &&
                           !(r->has_ignore && r->ignore == 0);
        uint32_t zeros = zeros_wanted ? bin_total(f, FAST_NEAR) : 0;
        size_t n_bad;
        if (probe_clean(p, m, dtype, &k, f)) {
            tally_near(p, m, dtype, f);
        } else {
            uint32_t settled = f->counts_only ? settled_total(f) : 0;
            if ((n_bad = tally_block(p, m, dtype, f, &k, 1)) != 0)
                settle_block(p, m, first + b, n_bad, before, settled, dtype, &k, r, s, f);
        }
        if (zeros_wanted && bin_total(f, FAST_NEAR) != zeros)
            note_zeros(p, m, first + b, dtype, s);
        if ((since += m) >= FAST_FLUSH_EVERY) {
            fast_flush(f, r, s, kind);
            since = 0;
        }
    }
    fast_flush(f, r, s, kind);
}

/* One instance per integer dtype and ignore mode: the template with both constant. */
#define DEFINE_FAST(NAME, DTYPE)                                                          \
    static void fast_##NAME(const void *v, size_t n, uint64_t first,                     \
                            const struct la_rule *r, struct la_stats *s, struct fast *f)  \
    {                                                                                     \
        switch (keys_mode(f)) {                                                           \
        case KEYS_NO_IGNORE:                                                              \
            fast_blocks(v, n, first, DTYPE, KEYS_NO_IGNORE, r, s, f);                     \
            break;                                                                        \
        case KEYS_IGNORE_NEAR:                                                            \
            fast_blocks(v, n, first, DTYPE, KEYS_IGNORE_NEAR, r, s, f);                   \
            break;                                                                        \
        default:                                                                          \
            fast_blocks(v, n, first, DTYPE, KEYS_IGNORE_FAR, r, s, f);                    \
            break;                                                                        \
        }                                                                                 \
    }

DEFINE_FAST(bool, LA_DT_BOOL)
DEFINE_FAST(int8, LA_DT_INT8)
DEFINE_FAST(uint8, LA_DT_UINT8)
DEFINE_FAST(int16, LA_DT_INT16)
DEFINE_FAST(uint16, LA_DT_UINT16)
DEFINE_FAST(int32, LA_DT_INT32)
DEFINE_FAST(uint32, LA_DT_UINT32)
DEFINE_FAST(int64, LA_DT_INT64)
DEFINE_FAST(uint64, LA_DT_UINT64)

// ---- a range check without a histogram ---------------------------------------------
//
// Token ids against a vocabulary (--vocab-size, or an -n above the histogram's
// cap) keep no histogram: a block is then settled by its minimum and maximum
// alone, one pass in the dtype's own width that vectorizes. A block whose
// values all lie in [0, upper), the ignore index outside its span, is all
// valid; any other block is folded by the reference loop.

#define RANGE_BLOCK 8192

#define DEFINE_RANGE_ONLY(NAME, CTYPE)                                                    \
    static void range_##NAME(const CTYPE *v, size_t n, uint64_t first,                   \
                             const struct la_rule *r, struct la_stats *s)                \
    {                                                                                     \
        for (size_t b = 0; b < n; b += RANGE_BLOCK) {                                     \
            size_t m = n - b < RANGE_BLOCK ? n - b : RANGE_BLOCK;                         \
            const CTYPE *p = v + b;                                                       \
            CTYPE lo = p[0], hi = p[0];                                                   \
            if (m == RANGE_BLOCK) {      /* a constant count: -O2 vectorizes it */        \
                for (size_t i = 0; i < RANGE_BLOCK; i++) {                                \
                    lo = p[i] < lo ? p[i] : lo;                                           \
                    hi = p[i] > hi ? p[i] : hi;                                           \
                }                                                                         \
            } else {                                                                      \
                for (size_t i = 1; i < m; i++) {                                          \
                    lo = p[i] < lo ? p[i] : lo;                                           \
                    hi = p[i] > hi ? p[i] : hi;                                           \
                }                                                                         \
            }                                                                             \
            int64_t l = (int64_t)lo, h = (int64_t)hi;                                     \
            if (l >= 0 && h < r->upper && !(r->has_ignore && r->ignore >= l && r->ignore <= h)) { \
                s->n_verdict[LA_V_VALID] += m;                                            \
                s->hist_beyond += m;         /* as count_valid counts them without bins */ \
                la_stats_note_minmax(s, (struct la_num){ LA_NUM_I64, { .i = l } });       \
                la_stats_note_minmax(s, (struct la_num){ LA_NUM_I64, { .i = h } });       \
            } else {                                                                      \
                fold_##NAME(p, m, first + b, r, s);                                       \
            }                                                                             \
        }                                                                                 \
    }

DEFINE_RANGE_ONLY(bool, uint8_t)
DEFINE_RANGE_ONLY(int8, int8_t)
DEFINE_RANGE_ONLY(uint8, uint8_t)
DEFINE_RANGE_ONLY(int16, int16_t)
DEFINE_RANGE_ONLY(uint16, uint16_t)
DEFINE_RANGE_ONLY(int32, int32_t)
DEFINE_RANGE_ONLY(uint32, uint32_t)
DEFINE_RANGE_ONLY(int64, int64_t)

/* @return 1 when the chunk was folded by its blocks' ranges, 0 when this
 * road does not apply (a histogram is kept, bce, floats, uint64). */
static int fold_range_only(const struct la_chunk *c, const struct la_rule *r, struct la_stats *s)
{
    if (s->hist_len != 0 || r->bce || !r->has_upper || c->count == 0)
        return 0;
    const void *v = c->values;
    size_t n = c->count;
    uint64_t first = c->first_index;
    switch (c->dtype) {
    case LA_DT_BOOL:   range_bool(v, n, first, r, s); break;
    case LA_DT_INT8:   range_int8(v, n, first, r, s); break;
    case LA_DT_UINT8:  range_uint8(v, n, first, r, s); break;
    case LA_DT_INT16:  range_int16(v, n, first, r, s); break;
    case LA_DT_UINT16: range_uint16(v, n, first, r, s); break;
    case LA_DT_INT32:  range_int32(v, n, first, r, s); break;
    case LA_DT_UINT32: range_uint32(v, n, first, r, s); break;
    case LA_DT_INT64:  range_int64(v, n, first, r, s); break;
    default:           return 0;
    }
    s->count += n;
    return 1;
}

/* The backend's fold: the same stats as la_scan_chunk_cpu_ref, faster for integers. */
static void fold_fast(const struct la_chunk *c, const struct la_rule *r, struct la_stats *s,
                      struct fast *f, size_t entry_cap)
{
    uint64_t lim = fast_limit(r, s);
    if (!lim && fold_range_only(c, r, s))
        return;
    if (!f->bins || !lim || la_dtype_is_float(c->dtype)) {
        la_scan_chunk_cpu_ref(c, r, s);
        return;
    }
    fast_setup(f, lim, c->dtype, r);
    f->entry_cap = entry_cap;
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
    struct la_chunk chunk;  /* a chunk's slice; for a file run, values [lo, hi) */
    uint64_t lo, hi;
    struct la_window window;    /* a file run's: the buffer its share is read into */
    struct la_window_failure fail;  /* where the thread's read of a file run failed */
    struct la_stats stats;
    int ready;              /* stats allocated for the current file's parameters */
    size_t entries;         /* bad entries dst still keeps (its bad_cap may be larger
                             * for groups): beyond them, only counts are needed */
    struct fast fast;
};

/* The backend's state: the pool, and one part per thread that has its bins. */
struct cpu {
    struct la_pool *pool;
    int nthreads;               /* parts usable: min(pool size, bins allocated) */
    const struct la_rule *rule; /* of the chunk being folded */
    const struct la_file_run *run;  /* the file run being folded, or NULL */
    struct la_progress *progress;   /* ... and its progress bar */
    int nparts;
    struct part parts[MAX_THREADS];
};

static void fold_part(void *ctx, int t)
{
    struct cpu *p = ctx;
    struct part *pt = &p->parts[t];
    fold_fast(&pt->chunk, p->rule, &pt->stats, &pt->fast, pt->entries);
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
        la_window_free(&p->parts[t].window);
    }
    free(p);
}

static struct cpu *cpu_alloc(int threads)
{
    struct cpu *p = calloc(1, sizeof *p);
    if (!p || !(p->pool = la_pool_open_lazy(threads))) {
        free(p);
        return NULL;
    }
    for (int t = 0; t < la_pool_size(p->pool); t++) {
        if (!(p->parts[t].fast.bins = calloc(FAST_SUBS * FAST_ROW_MAX, sizeof(uint32_t))))
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

/* The bad entries and groups a part must keep for s (without a sink). */
static size_t part_room(const struct la_stats *s)
{
    size_t entries = s->bad_cap - s->n_bad, groups = s->bad_cap - s->n_groups;
    size_t room = entries > groups ? entries : groups;
    return room ? room : 1;
}

/* How many parts count values are cut into: one per thread, each of at
 * least MIN_VALUES_PER_THREAD, and at least one. */
static int parts_for(const struct cpu *p, uint64_t count)
{
    int nparts = p->nthreads;
    if ((uint64_t)nparts > count / MIN_VALUES_PER_THREAD)
        nparts = (int)(count / MIN_VALUES_PER_THREAD);
    return nparts < 1 ? 1 : nparts;
}

/* Part t of nparts of count values: [*lo, *hi), the last one taking the rest. */
static void part_range(uint64_t count, int nparts, int t, uint64_t *lo, uint64_t *hi)
{
    uint64_t per = count / (uint64_t)nparts;
    *lo = per * (uint64_t)t;
    *hi = t == nparts - 1 ? count : *lo + per;
}

/* Give part t an empty accumulator shaped like s. */
static int prepare_part_stats(struct part *pt, const struct la_stats *s)
{
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
    /* a sink needs every entry; else dst keeps at most its room of entries
     * and of groups, and a group it continues needs the part's first one */
    size_t room = part_room(s);
    ps->bad_cap = s->sink || room > PART_BAD_CAP ? PART_BAD_CAP : room;
    pt->entries = s->bad_cap - s->n_bad;
    return 0;
}

/* Give part t its slice of c and an empty accumulator shaped like s. */
static int prepare_part(struct part *pt, const struct la_chunk *c, size_t lo, size_t hi,
                        const struct la_stats *s)
{
    size_t elem = la_dtype_info(c->dtype)->size;
    pt->chunk = *c;
    pt->chunk.values = (const char *)c->values + lo * elem;
    pt->chunk.count = hi - lo;
    pt->chunk.first_index = c->first_index + lo;
    return prepare_part_stats(pt, s);
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
    memset(ps->sentinel_above, 0, sizeof ps->sentinel_above);
    la_bad_values_reset(&ps->values);
    ps->n_zero_first = 0;
    ps->n_bad = ps->n_groups = 0;
    ps->bad_total = ps->bad_samples = 0;
    ps->has_last_bad = 0;
    ps->first_bad_sample = ps->last_bad_sample = 0;
}

// ---- file runs ------------------------------------------------------------------
//
// A file run (reader.h: a plain .npy, raw, a tensor stored whole) is cut into
// one contiguous share per thread, and each thread reads its share with
// pread a window (LA_WINDOW_COPY_BYTES) at a time into a buffer of its own
// and folds the values there while they are in its cache: the threads never
// wait on each other until the end. window.h says why a copy and not a
// mapping: as fast, with a tenth of the page faults and of the memory. A
// share whose file is cut short (np.save over it) reads short, and the file
// is reported as shrunk.

void (*la_run_test_hook)(int fd);

typedef void fold_fn(struct cpu *, struct part *, const struct la_chunk *, void *);

/* Fold values [i, i + n) of the run, read into pt's window. @return 0, or
 * -1 with pt->fail. */
static int fold_window(struct cpu *p, struct part *pt, uint64_t i, size_t n, fold_fn *fold,
                       void *arg)
{
    const struct la_file_run *run = p->run;
    size_t esz = la_dtype_info(run->dtype)->size;
    const char *values = la_window_open(&pt->window, run->fd, run->offset + i * esz, n * esz,
                                        &pt->fail);
    if (!values)
        return -1;
    struct la_chunk c = { run->dtype, values, n, i, NULL };
    fold(p, pt, &c, arg);
    return la_window_close(&pt->window, &pt->fail);
}

/* Fold part pt's share of the run a window at a time (fold_window). */
static int read_share(struct cpu *p, struct part *pt, int t, fold_fn *fold, void *arg)
{
    const struct la_file_run *run = p->run;
    size_t esz = la_dtype_info(run->dtype)->size, per = LA_WINDOW_COPY_BYTES / esz;
    pt->window.copy = 1;
    for (uint64_t i = pt->lo; i < pt->hi;) {
        size_t n = pt->hi - i < per ? (size_t)(pt->hi - i) : per;
        if (fold_window(p, pt, i, n, fold, arg) != 0)
            return -1;
        i += n;
        if (t == 0 && p->progress)   /* the shares advance together: part 0 speaks for all */
            la_progress_update(p->progress,
                               run->offset + (i - pt->lo) * esz * (uint64_t)p->nparts);
    }
    return 0;
}

static void fold_into_part(struct cpu *p, struct part *pt, const struct la_chunk *c, void *dst)
{
    struct la_stats *s = dst ? dst : &pt->stats;
    fold_fast(c, p->rule, s, &pt->fast, dst ? s->bad_cap : pt->entries);
}

static void fold_run_part(void *ctx, int t)
{
    struct cpu *p = ctx;
    read_share(p, &p->parts[t], t, fold_into_part, NULL);
}

static void fold_ref(struct cpu *p, struct part *pt, const struct la_chunk *c, void *dst)
{
    (void)pt;
    la_scan_chunk_cpu_ref(c, p->rule, dst);
}

/* A part that dropped entries s still wants: its share read and folded again, serially. */
static void refold_run_part(struct cpu *p, struct part *pt, struct la_stats *s)
{
    read_share(p, pt, -1, fold_ref, s);
}

/* Merge the parts into s in index order. A part that dropped bad entries or
 * groups s would still keep (or a sink must see) is folded again here, serially. */
static void merge_parts(struct cpu *p, int nparts, const struct la_rule *r, struct la_stats *s)
{
    for (int t = 0; t < nparts; t++) {
        struct la_stats *ps = &p->parts[t].stats;
        size_t room = s->bad_cap - s->n_bad, group_room = s->bad_cap - s->n_groups;
        int dropped = (ps->n_bad < ps->bad_total && (s->sink || ps->n_bad < room)) ||
                      (ps->n_groups < ps->bad_samples && ps->n_groups < group_room);
        if (dropped && p->run)
            refold_run_part(p, &p->parts[t], s);
        else if (dropped)
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
    /* no pool: stay correct; samples mapped by the reader (yolo, coco): every
     * bad entry must reach la_stats_add_bad, in order (few values: no loss) */
    if (!p || s->sample_of) {
        /* the range road folds its bad blocks by the reference loop, in order */
        if (!fold_range_only(c, r, s))
            la_scan_chunk_cpu_ref(c, r, s);
        return 0;
    }
    int nparts = parts_for(p, c->count);
    if (nparts == 1) {
        fold_fast(c, r, s, &p->parts[0].fast, s->bad_cap);
        return 0;
    }
    for (int t = 0; t < nparts; t++) {
        uint64_t lo, hi;
        part_range(c->count, nparts, t, &lo, &hi);
        if (prepare_part(&p->parts[t], c, (size_t)lo, (size_t)hi, s) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    p->rule = r;
    la_pool_run(p->pool, nparts, fold_part, p);
    merge_parts(p, nparts, r, s);
    return 0;
}

/* The first failure of the parts, in file order, as the error. @return 0, or -1. */
static int run_failure(struct cpu *p, int nparts, char *err, size_t errlen)
{
    for (int t = 0; t < nparts; t++) {
        if (p->parts[t].fail.failed) {
            la_window_failure_text(&p->parts[t].fail, err, errlen);
            return -1;
        }
    }
    return 0;
}

static int cpu_scan_run(struct la_scan_backend *b, const struct la_file_run *run,
                        const struct la_rule *r, struct la_stats *s,
                        struct la_progress *progress, char *err, size_t errlen)
{
    struct cpu *p = b->state;
    if (!p || s->sample_of)
        return 1;
    int nparts = parts_for(p, run->count);
    for (int t = 0; t < nparts; t++) {
        struct part *pt = &p->parts[t];
        part_range(run->count, nparts, t, &pt->lo, &pt->hi);
        pt->fail.failed = 0;
        if (nparts > 1 && prepare_part_stats(pt, s) != 0) {
            snprintf(err, errlen, "out of memory");
            return -2;
        }
    }
    p->rule = r;
    p->run = run;
    p->progress = progress;
    p->nparts = nparts;
    if (la_run_test_hook)
        la_run_test_hook(run->fd);
    if (nparts == 1)     /* one share: folded straight into s, as cpu_scan does */
        read_share(p, &p->parts[0], 0, fold_into_part, s);
    else
        la_pool_run(p->pool, nparts, fold_run_part, p);
    int rc = run_failure(p, nparts, err, errlen);
    for (int t = 0; t < nparts && nparts > 1 && rc != 0; t++)
        reset_part(&p->parts[t].stats);    /* the file is an error: nothing to merge */
    if (nparts > 1 && rc == 0)
        merge_parts(p, nparts, r, s);
    p->run = NULL;
    if (rc == 0)
        rc = run_failure(p, nparts, err, errlen);   /* a refold's */
    return rc;
}

static void cpu_close(struct la_scan_backend *b)
{
    cpu_free(b->state);
    b->state = NULL;
}

static const struct la_scan_backend_ops cpu_ops = { "cpu", cpu_scan, cpu_close, cpu_scan_run,
                                                     LA_SCANF_CONCURRENT };

void la_scan_cpu_rest(struct la_scan_backend *b)
{
    if (b->ops == &cpu_ops && b->state)
        la_pool_rest(((struct cpu *)b->state)->pool);
}

int la_scan_cpu_open(struct la_scan_backend *b, int threads)
{
    b->ops = &cpu_ops;
    b->threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    b->window_bytes = 0;
    b->state = cpu_alloc(b->threads);
    return 0;
}
