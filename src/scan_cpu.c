/* scan_cpu.c - the CPU scan backend, and the reference every backend matches.
 *
 * One type-specialised loop per dtype (a macro instantiates them), so the
 * inner loop has no per-element switch or function pointer. With -j > 1 a
 * chunk is cut into one part per thread; each part folds into its own
 * la_stats and the parts are merged in index order, so reports are the same
 * for any thread count. */
#include "scan.h"

#include <pthread.h> /* pthread_create, pthread_join */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, free */
#include <string.h>  /* memset */

// ---- folding one value ------------------------------------------------------

static inline void count_valid(struct la_stats *s, int64_t label)
{
    if ((uint64_t)label < s->hist_len) {
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
    if (verdict == LA_V_BELOW && x < 0 && x >= -LA_OUTLIER_BINS)
        s->outlier_below[-1 - x]++;
    else if (verdict == LA_V_ABOVE && x >= s->above_base &&
             x - s->above_base < LA_OUTLIER_BINS)
        s->outlier_above[x - s->above_base]++;
}

static void fold_invalid_int(struct la_stats *s, uint64_t index, int verdict, int64_t x)
{
    count_outlier(s, verdict, x);
    la_stats_add_bad(s, index, verdict, (struct la_num){ LA_NUM_I64, { .i = x } }, NULL);
}

static void fold_invalid_float(struct la_stats *s, uint64_t index, int verdict, double x)
{
    if (verdict != LA_V_NON_FINITE && verdict != LA_V_NON_INTEGER &&
        x >= -LA_TWO_63 && x < LA_TWO_63 && (double)(int64_t)x == x)
        count_outlier(s, verdict, (int64_t)x);
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
                if (!r->bce && x < LA_TWO_63) /* larger: only without -n */              \
                    count_valid(s, (int64_t)x);                                          \
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

// ---- threads -----------------------------------------------------------------

/* Below this many values per thread, starting threads costs more than it saves. */
#define MIN_VALUES_PER_THREAD (1u << 16)

struct part {
    struct la_chunk chunk;
    const struct la_rule *rule;
    struct la_stats stats;
};

static void *scan_part(void *arg)
{
    struct part *p = arg;
    la_scan_chunk_cpu_ref(&p->chunk, p->rule, &p->stats);
    return NULL;
}

/* Cut the chunk into nparts contiguous parts, scan them at once, merge in order. */
static int scan_parallel(const struct la_chunk *c, const struct la_rule *r, struct la_stats *s,
                         int nparts, char *err, size_t errlen)
{
    struct part parts[64];
    pthread_t tids[64];
    size_t elem = la_dtype_info(c->dtype)->size;
    size_t per = c->count / (size_t)nparts;
    int started = 0, rc = 0;
    for (int t = 0; t < nparts; t++) {
        size_t lo = per * (size_t)t, hi = t == nparts - 1 ? c->count : lo + per;
        parts[t].chunk = *c;
        parts[t].chunk.values = (const char *)c->values + lo * elem;
        parts[t].chunk.count = hi - lo;
        parts[t].chunk.first_index = c->first_index + lo;
        parts[t].rule = r;
        /* with a sink every entry must reach it, so keep them all */
        size_t room = s->sink ? hi - lo : s->bad_cap - s->n_bad;
        if (la_stats_init(&parts[t].stats, s->sample_stride, room, s->hist_len,
                          s->above_base) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        started++;
    }
    int launched = 0;
    for (int t = 1; rc == 0 && t < started; t++, launched++)
        if (pthread_create(&tids[t], NULL, scan_part, &parts[t]) != 0)
            break;
    if (rc == 0)
        scan_part(&parts[0]);
    for (int t = 1; t <= launched; t++)
        pthread_join(tids[t], NULL);
    for (int t = launched + 1; rc == 0 && t < started; t++)
        scan_part(&parts[t]);   /* a thread that could not start: do its part here */
    for (int t = 0; t < started; t++) {
        if (rc == 0)
            la_stats_merge(s, &parts[t].stats);
        la_stats_free(&parts[t].stats);
    }
    return rc;
}

static int cpu_scan(struct la_scan_backend *b, const struct la_chunk *c,
                    const struct la_rule *r, struct la_stats *s, char *err, size_t errlen)
{
    int nparts = b->threads;
    if (nparts > 64)
        nparts = 64;
    if ((size_t)nparts > c->count / MIN_VALUES_PER_THREAD)
        nparts = (int)(c->count / MIN_VALUES_PER_THREAD);
    if (nparts <= 1) {
        la_scan_chunk_cpu_ref(c, r, s);
        return 0;
    }
    return scan_parallel(c, r, s, nparts, err, errlen);
}

static const struct la_scan_backend_ops cpu_ops = { "cpu", cpu_scan, NULL };

int la_scan_cpu_open(struct la_scan_backend *b, int threads)
{
    b->ops = &cpu_ops;
    b->threads = threads < 1 ? 1 : threads;
    b->state = NULL;
    return 0;
}
