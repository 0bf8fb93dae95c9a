/* test_scan_backends.c - every scan backend leaves the same la_stats.
 *
 * TAP. Three groups:
 * - la_verdict_* and la_half_to_float on edge values (always);
 * - the CPU backend with -j1 and -j4 on chunks large enough to be split (always);
 * - the GPU backend against the CPU reference, field by field, for every dtype and
 *   several rules, with bad entries at chunk and sub-chunk boundaries and chunks
 *   holding more bad entries than the device buffer. Reported "# SKIP no GPU"
 *   when la_gpu_probe() finds none (a TAP test cannot use exit 77). */
#include "scan.h"    /* la_scan_backend, la_gpu_probe, la_scan_chunk_cpu_ref */
#include "audit.h"   /* la_auto_hint_of */
#include "stats.h"   /* la_stats */
#include "verdict.h" /* la_verdict_*, la_half_to_float */
#include "dtype.h"   /* la_dtype, la_dtype_info */
#include "options.h" /* la_options_parse: the configurations of the auto hint */

#include <fcntl.h>  /* open */
#include <getopt.h> /* optind */
#include <unistd.h> /* ftruncate, write, close, unlink */

#include <math.h>   /* NAN, INFINITY, signbit */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcmp, memcpy */

#ifdef LA_TEST_DTYPE_STUB
/* Only for linking this test by hand before src/dtype.c exists; the build
 * links the real one. */
const struct la_dtype_info *la_dtype_info(enum la_dtype dt)
{
    static const struct la_dtype_info t[LA_DT_COUNT] = {
        { "bool", 1, 'b' },    { "int8", 1, 'i' },    { "uint8", 1, 'u' },
        { "int16", 2, 'i' },   { "uint16", 2, 'u' },  { "int32", 4, 'i' },
        { "uint32", 4, 'u' },  { "int64", 8, 'i' },   { "uint64", 8, 'u' },
        { "float16", 2, 'f' }, { "float32", 4, 'f' }, { "float64", 8, 'f' },
    };
    return (unsigned)dt < LA_DT_COUNT ? &t[dt] : NULL;
}
#endif

// ---- TAP ---------------------------------------------------------------------

static int tap_n, tap_not_ok;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_not_ok += !cond;
    printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

static void skip(const char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip(const char *why, const char *fmt, ...)
{
    va_list ap;
    printf("ok %d # SKIP %s: ", ++tap_n, why);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

// ---- a deterministic generator -----------------------------------------------

static uint64_t rng_state;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The half with the value of the integer k (0 <= k <= 2048), exactly. */
static uint16_t half_of_int(unsigned k)
{
    if (k == 0)
        return 0;
    int e = 0;
    while ((k >> (e + 1)) != 0)
        e++;
    return (uint16_t)(((unsigned)(e + 15) << 10) | ((k << (10 - e)) & 0x3ffu));
}

/* Store the number x as element i of dtype dt (integers wrap as C casts do). */
static void put(void *buf, enum la_dtype dt, size_t i, double x, int64_t xi, int is_int)
{
    switch (dt) {
    case LA_DT_BOOL:    ((uint8_t *)buf)[i] = (uint8_t)xi; break; /* raw bytes need not be 0/1 */
    case LA_DT_INT8:    ((int8_t *)buf)[i] = (int8_t)xi; break;
    case LA_DT_UINT8:   ((uint8_t *)buf)[i] = (uint8_t)xi; break;
    case LA_DT_INT16:   ((int16_t *)buf)[i] = (int16_t)xi; break;
    case LA_DT_UINT16:  ((uint16_t *)buf)[i] = (uint16_t)xi; break;
    case LA_DT_INT32:   ((int32_t *)buf)[i] = (int32_t)xi; break;
    case LA_DT_UINT32:  ((uint32_t *)buf)[i] = (uint32_t)xi; break;
    case LA_DT_INT64:   ((int64_t *)buf)[i] = xi; break;
    case LA_DT_UINT64:  ((uint64_t *)buf)[i] = (uint64_t)xi; break;
    case LA_DT_FLOAT16:
        /* integers in range exactly; anything else as random bits (NaN, Inf,
         * subnormals and fractions all turn up) */
        ((uint16_t *)buf)[i] = is_int && xi >= 0 && xi <= 2048 ? half_of_int((unsigned)xi)
                             : is_int && xi < 0 && xi >= -2048
                             ? (uint16_t)(0x8000u | half_of_int((unsigned)-xi))
                             : (uint16_t)rnd();
        break;
    case LA_DT_FLOAT32: ((float *)buf)[i] = is_int ? (float)xi : (float)x; break;
    case LA_DT_FLOAT64: ((double *)buf)[i] = is_int ? (double)xi : x; break;
    case LA_DT_COUNT:   break;
    }
}

/* One label: mostly valid, sometimes one of the values that break training. */
static void put_label(void *buf, enum la_dtype dt, size_t i, int64_t n_classes, int bad_pct)
{
    static const double odd[] = { NAN, INFINITY, -INFINITY, 2.5, -0.5, 0.25, -0.0, 0.0,
                                  9223372036854775808.0, -9223372036854775808.0, 1e300,
                                  18446744073709551616.0, 1e-310, 65504.0, 5.960464477539063e-8 };
    static const int64_t odd_int[] = { -1, -2, -100, 255, -256, -257, 1, 0,
                                       INT64_MAX, INT64_MIN, 65535, -32768 };
    uint64_t r = rnd();
    if ((int)(r % 100) >= bad_pct) {
        put(buf, dt, i, 0, (int64_t)((r >> 8) % (uint64_t)n_classes), 1);
        return;
    }
    switch ((r >> 8) % 5) {
    case 0: put(buf, dt, i, 0, n_classes + (int64_t)((r >> 16) % 300), 1); break;
    case 1: put(buf, dt, i, 0, odd_int[(r >> 16) % (sizeof odd_int / sizeof *odd_int)], 1); break;
    case 2: put(buf, dt, i, odd[(r >> 16) % (sizeof odd / sizeof *odd)], 0, 0); break;
    case 3:
        if (dt == LA_DT_UINT64) /* above INT64_MAX, up to the maximum */
            ((uint64_t *)buf)[i] = r % 2 ? UINT64_MAX : (1ull << 63) + (r >> 40);
        else
            put(buf, dt, i, 0, -1 - (int64_t)((r >> 16) % 300), 1);
        break;
    default: put(buf, dt, i, 0, (int64_t)(r >> 20) - (int64_t)(1ull << 43), 1); break;
    }
}

// ---- comparing stats -----------------------------------------------------------

/* Records the sink's calls: how many, and a hash of everything in order. */
struct sink_log {
    uint64_t calls, hash;
};

static void sink_record(void *ctx, const struct la_bad *b)
{
    struct sink_log *l = ctx;
    uint64_t w[4] = { b->index, b->sample, (uint64_t)b->verdict, (uint64_t)b->value.kind };
    unsigned char bytes[sizeof w + sizeof b->value.v];
    memcpy(bytes, w, sizeof w);
    memcpy(bytes + sizeof w, &b->value.v, sizeof b->value.v);
    for (size_t i = 0; i < sizeof bytes; i++)
        l->hash = (l->hash ^ bytes[i]) * 0x100000001b3ull;
    l->calls++;
}

static int num_same(struct la_num a, struct la_num b)
{
    if (a.kind != b.kind)
        return 0;
    return a.kind == LA_NUM_F64 ? memcmp(&a.v.f, &b.v.f, sizeof a.v.f) == 0
         : a.kind == LA_NUM_U64 ? a.v.u == b.v.u : a.v.i == b.v.i;
}

#define SAME(field)                                                                    \
    do {                                                                               \
        if (a->field != b->field) {                                                    \
            printf("# %s: %s differs: %llu vs %llu\n", what, #field,                   \
                   (unsigned long long)a->field, (unsigned long long)b->field);        \
            return 0;                                                                  \
        }                                                                              \
    } while (0)

/* 1 when every accumulated field of a and b is the same (bitwise for floats). */
static int stats_same(const struct la_stats *a, const struct la_stats *b, const char *what)
{
    SAME(count);
    for (int v = 0; v < LA_V_COUNT; v++)
        SAME(n_verdict[v]);
    SAME(has_minmax);
    if (a->has_minmax && (!num_same(a->min, b->min) || !num_same(a->max, b->max))) {
        printf("# %s: min/max differ: kinds %d/%d %d/%d\n", what, a->min.kind, b->min.kind,
               a->max.kind, b->max.kind);
        return 0;
    }
    SAME(saw_float);
    SAME(hist_len);
    for (uint64_t c = 0; c < a->hist_len; c++)
        SAME(hist[c]);
    SAME(hist_beyond);
    SAME(hist_hi);
    for (int k = 0; k < LA_OUTLIER_BINS; k++) {
        SAME(outlier_below[k]);
        SAME(outlier_above[k]);
    }
    SAME(n_bad);
    for (size_t i = 0; i < a->n_bad; i++) {
        SAME(bad[i].index);
        SAME(bad[i].sample);
        SAME(bad[i].verdict);
        if (!num_same(a->bad[i].value, b->bad[i].value)) {
            printf("# %s: bad[%zu].value differs\n", what, i);
            return 0;
        }
        if ((a->bad[i].text == NULL) != (b->bad[i].text == NULL)) {
            printf("# %s: bad[%zu].text differs\n", what, i);
            return 0;
        }
    }
    SAME(n_groups);
    for (size_t i = 0; i < a->n_groups; i++) {
        SAME(groups[i].sample);
        SAME(groups[i].count);
        SAME(groups[i].first_index);
        SAME(groups[i].first_verdict);
        SAME(groups[i].mixed);
        if (!num_same(a->groups[i].first_value, b->groups[i].first_value)) {
            printf("# %s: groups[%zu].first_value differs\n", what, i);
            return 0;
        }
    }
    SAME(bad_total);
    SAME(bad_samples);
    SAME(has_last_bad);
    SAME(first_bad_sample);
    SAME(last_bad_sample);
    const struct sink_log *la = a->sink_ctx, *lb = b->sink_ctx;
    if (la && lb && (la->calls != lb->calls || la->hash != lb->hash)) {
        printf("# %s: sink calls differ: %llu vs %llu\n", what,
               (unsigned long long)la->calls, (unsigned long long)lb->calls);
        return 0;
    }
    return 1;
}

// ---- the rules -----------------------------------------------------------------

#include "scan_setups.h" /* struct setup, setups[] */

#define N_SETUPS ((int)(sizeof setups / sizeof *setups))

static int init_stats(struct la_stats *s, const struct setup *st, uint64_t stride,
                      size_t bad_cap, struct sink_log *log)
{
    if (la_stats_init(s, stride, bad_cap, st->hist_len, st->above_base) != 0)
        return -1;
    if (log) {
        memset(log, 0, sizeof *log);
        s->sink = sink_record;
        s->sink_ctx = log;
    }
    return 0;
}

/* Scan buf[0..total) as the given chunk sizes through backend b (NULL: the
 * single-threaded reference) into s. @return 0, or -1 with err set. */
static int scan_all(struct la_scan_backend *b, enum la_dtype dt, const void *buf,
                    const size_t *sizes, int nsizes, const struct la_rule *r,
                    struct la_stats *s, char *err, size_t errlen)
{
    size_t elem = la_dtype_info(dt)->size, at = 0;
    for (int k = 0; k < nsizes; k++) {
        struct la_chunk c = { dt, (const char *)buf + at * elem, sizes[k], at, NULL };
        if (!b)
            la_scan_chunk_cpu_ref(&c, r, s);
        else if (b->ops->scan(b, &c, r, s, err, errlen) != 0)
            return -1;
        at += sizes[k];
    }
    return 0;
}

// ---- verdict edge values -------------------------------------------------------

#define N_VERDICT_TESTS 26

static void test_verdicts(void)
{
    const struct la_rule ce = { 0, 1, -100, 1, 10 }, none = { 0, 0, 0, 0, 0 };
    const struct la_rule bce = { 1, 0, 0, 0, 0 };
    ok(la_verdict_f64(NAN, &ce) == LA_V_NON_FINITE, "NaN is non-finite");
    ok(la_verdict_f64(INFINITY, &ce) == LA_V_NON_FINITE, "+Inf is non-finite");
    ok(la_verdict_f64(-INFINITY, &bce) == LA_V_NON_FINITE, "-Inf is non-finite for bce");
    ok(la_verdict_i64(-100, &ce) == LA_V_IGNORED, "-100 is ignored");
    ok(la_verdict_f64(-100.0, &ce) == LA_V_IGNORED, "-100.0 is ignored");
    ok(la_verdict_i64(-100, &none) == LA_V_BELOW, "-100 without an ignore index is below");
    ok(la_verdict_i64(-1, &ce) == LA_V_BELOW && la_verdict_i64(10, &ce) == LA_V_ABOVE &&
       la_verdict_i64(9, &ce) == LA_V_VALID && la_verdict_i64(0, &ce) == LA_V_VALID,
       "ce N=10: -1 below, 0 and 9 valid, 10 above");
    ok(la_verdict_f64(2.5, &ce) == LA_V_NON_INTEGER, "2.5 is non-integer");
    ok(la_verdict_f64(-2.5, &ce) == LA_V_NON_INTEGER, "-2.5 is non-integer (before below)");
    ok(la_verdict_f64(-0.0, &ce) == LA_V_VALID, "-0.0 is the valid label 0");
    ok(la_verdict_f64(9223372036854775808.0, &ce) == LA_V_ABOVE, "2^63 is above N");
    ok(la_verdict_f64(9223372036854775808.0, &none) == LA_V_VALID, "2^63 without N is valid");
    ok(la_verdict_f64(-9223372036854775808.0, &none) == LA_V_BELOW, "-2^63 is below");
    ok(la_verdict_f64(-1.8446744073709552e19, &none) == LA_V_BELOW, "-2^64 is below");
    ok(la_verdict_f64(9223372036854774784.0, &ce) == LA_V_ABOVE,
       "the largest double below 2^63 is above N");
    ok(la_verdict_u64(UINT64_MAX, &ce) == LA_V_ABOVE, "uint64 max is above N");
    ok(la_verdict_u64(UINT64_MAX, &none) == LA_V_VALID, "uint64 max without N is valid");
    ok(la_verdict_u64(UINT64_MAX, &bce) == LA_V_ABOVE, "uint64 max is above for bce");
    ok(la_verdict_u64((uint64_t)INT64_MAX, &ce) == LA_V_ABOVE, "INT64_MAX as uint64 is above");
    ok(la_verdict_f64(0.5, &bce) == LA_V_VALID && la_verdict_f64(1.0, &bce) == LA_V_VALID &&
       la_verdict_f64(1.5, &bce) == LA_V_ABOVE && la_verdict_f64(-0.25, &bce) == LA_V_BELOW,
       "bce: 0.5 and 1 valid, 1.5 above, -0.25 below");
    ok(la_verdict_i64(-100, &bce) == LA_V_BELOW, "bce has no ignore index");
    ok(la_half_to_float(0x0001) == 5.960464477539063e-8f, "smallest half subnormal");
    ok(la_half_to_float(0x03ff) == 6.097555160522461e-5f, "largest half subnormal");
    ok(la_half_to_float(0x7bff) == 65504.0f && la_half_to_float(0x7c00) == INFINITY &&
       la_half_to_float(0xfc00) == -INFINITY, "half max, +Inf, -Inf");
    ok(isnan(la_half_to_float(0x7e00)) && isnan(la_half_to_float(0xfc01)), "half NaNs");
    float nz = la_half_to_float(0x8000);
    ok(nz == 0.0f && signbit(nz) && la_verdict_f64((double)la_half_to_float(0x0001), &ce) ==
       LA_V_NON_INTEGER, "half -0 keeps its sign; a subnormal is non-integer");
}

// ---- CPU -j1 against -j4 ---------------------------------------------------------

#define N_THREAD_TESTS LA_DT_COUNT

static void test_cpu_threads(void)
{
    /* more than 4 * 65536 values, so -j4 really uses four threads */
    const size_t n = 4 * 65536 + 54321;
    const struct setup *st = &setups[0];
    for (int dt = 0; dt < LA_DT_COUNT; dt++) {
        const char *name = la_dtype_info((enum la_dtype)dt)->name;
        void *buf = malloc(n * 8);
        struct la_stats s1, s4;
        struct sink_log l1, l4;
        struct la_scan_backend b1, b4;
        char err[256] = "";
        rng_state = 1000 + (uint64_t)dt;
        for (size_t i = 0; i < n; i++)
            put_label(buf, (enum la_dtype)dt, i, st->n_classes, 10);
        /* bad entries at both ends of every chunk and of every thread's part */
        size_t sizes[] = { n - 7, 7 };
        put(buf, (enum la_dtype)dt, 0, 0, -1, 1);
        put(buf, (enum la_dtype)dt, n - 8, 0, 11, 1);
        put(buf, (enum la_dtype)dt, n - 7, 0, 12, 1);
        for (int t = 1; t < 4; t++) {
            put(buf, (enum la_dtype)dt, (n - 7) / 4 * (size_t)t - 1, 0, -3, 1);
            put(buf, (enum la_dtype)dt, (n - 7) / 4 * (size_t)t, 0, 10, 1);
        }
        la_scan_cpu_open(&b1, 1);
        la_scan_cpu_open(&b4, 4);
        int rc = init_stats(&s1, st, 3, 1000, &l1) | init_stats(&s4, st, 3, 1000, &l4);
        rc |= scan_all(&b1, (enum la_dtype)dt, buf, sizes, 2, &st->rule, &s1, err, sizeof err);
        rc |= scan_all(&b4, (enum la_dtype)dt, buf, sizes, 2, &st->rule, &s4, err, sizeof err);
        ok(rc == 0 && stats_same(&s1, &s4, name) && s1.bad_total > 0,
           "cpu -j1 and -j4 give the same stats for %s", name);
        la_scan_close(&b1);
        la_scan_close(&b4);
        la_stats_free(&s1);
        la_stats_free(&s4);
        free(buf);
    }
}

// ---- GPU against the CPU reference -----------------------------------------------

/* Chunk sizes: a big one that spans several 4 MiB sub-chunks, small ones, a
 * single value and an empty chunk, as readers may produce. */
static int chunk_sizes(enum la_dtype dt, size_t *sizes)
{
    size_t elem = la_dtype_info(dt)->size;
    size_t sub = ((size_t)4 << 20) / elem;
    int k = 0;
    sizes[k++] = 2 * sub + 12345;  /* two full sub-chunks and a bit */
    sizes[k++] = 1;
    sizes[k++] = 0;
    sizes[k++] = 1000;
    sizes[k++] = sub;              /* exactly one sub-chunk */
    sizes[k++] = 77777;
    return k;
}

#define N_GPU_TESTS (1 + LA_DT_COUNT * N_SETUPS + 4)

static void test_gpu_dtype(struct la_scan_backend *g, enum la_dtype dt, const struct setup *st,
                           size_t bad_cap)
{
    const char *name = la_dtype_info(dt)->name;
    size_t sizes[8], total = 0, elem = la_dtype_info(dt)->size;
    int nsizes = chunk_sizes(dt, sizes);
    for (int k = 0; k < nsizes; k++)
        total += sizes[k];
    void *buf = malloc(total * elem);
    rng_state = 77 + (uint64_t)dt * 31 + (uint64_t)st->hist_len;
    for (size_t i = 0; i < total; i++)
        put_label(buf, dt, i, st->n_classes, 3);
    /* bad entries on both sides of every chunk boundary and sub-chunk boundary */
    size_t sub = ((size_t)4 << 20) / elem;
    size_t at = 0;
    for (int k = 0; k <= nsizes; k++) {
        if (at > 0)
            put(buf, dt, at - 1, 0, st->n_classes, 1);
        if (at < total)
            put(buf, dt, at, 0, -1, 1);
        at += k < nsizes ? sizes[k] : 0;
    }
    put(buf, dt, sub - 1, 0, -2, 1);
    put(buf, dt, sub, 0, st->n_classes + 1, 1);
    put(buf, dt, 2 * sub, 0, -1, 1);

    struct la_stats sc, sg;
    struct sink_log lc, lg;
    char err[256] = "";
    int rc = init_stats(&sc, st, 5, bad_cap, &lc) | init_stats(&sg, st, 5, bad_cap, &lg);
    rc |= scan_all(NULL, dt, buf, sizes, nsizes, &st->rule, &sc, err, sizeof err);
    if (rc == 0 && scan_all(g, dt, buf, sizes, nsizes, &st->rule, &sg, err, sizeof err) != 0) {
        printf("# %s: %s\n", name, err);
        rc = -1;
    }
    char what[128];
    snprintf(what, sizeof what, "%s %s", name, st->name);
    ok(rc == 0 && stats_same(&sc, &sg, what), "gpu = cpu for %s, %s (%llu bad)", name,
       st->name, (unsigned long long)sc.bad_total);
    la_stats_free(&sc);
    la_stats_free(&sg);
    free(buf);
}

/* A chunk with nbad bad entries spread over it: compacted on the device and
 * read back in pieces of 2^20; the stats must match the CPU's. */
static void test_gpu_many_bad(struct la_scan_backend *g, enum la_dtype dt, size_t n,
                              size_t nbad)
{
    const struct setup *st = &setups[0];
    size_t elem = la_dtype_info(dt)->size;
    void *buf = malloc(n * elem);
    rng_state = 4242 + nbad;
    for (size_t i = 0; i < n; i++)
        put(buf, dt, i, 0, (int64_t)(rnd() % 10), 1);
    /* every (n / nbad)-th value is bad, the rest of them at the end */
    size_t step = n / nbad, placed = 0;
    for (size_t i = 0; i < n && placed < nbad; i += step, placed++)
        put(buf, dt, i, 0, placed % 2 ? 10 + (int64_t)(placed % 7) : -1, 1);
    for (size_t i = n - 1; placed < nbad; i--, placed++)
        put(buf, dt, i, 0, 200, 1);
    size_t sizes[] = { n };
    struct la_stats sc, sg;
    struct sink_log lc, lg;
    char err[256] = "";
    int rc = init_stats(&sc, st, 1, 4096, &lc) | init_stats(&sg, st, 1, 4096, &lg);
    rc |= scan_all(NULL, dt, buf, sizes, 1, &st->rule, &sc, err, sizeof err);
    if (rc == 0 && scan_all(g, dt, buf, sizes, 1, &st->rule, &sg, err, sizeof err) != 0) {
        printf("# %s\n", err);
        rc = -1;
    }
    ok(rc == 0 && stats_same(&sc, &sg, "many bad") && sc.bad_total == nbad,
       "gpu = cpu for %s with %zu bad entries in one chunk", la_dtype_info(dt)->name, nbad);
    la_stats_free(&sc);
    la_stats_free(&sg);
    free(buf);
}

/* -0.0 and 0.0 compare equal: min/max must be the first one met, as on the CPU,
 * also when the first one is in a later sub-chunk's block. And a csv-like file
 * whose chunks switch from int64 to float64. */
static void test_gpu_zeros_and_mixed(struct la_scan_backend *g)
{
    const struct setup *st = &setups[2];
    size_t n = ((size_t)4 << 20) / 8 * 2 + 100;
    double *d = malloc(n * sizeof *d);
    int64_t *q = malloc(1000 * sizeof *q);
    int good = 1;
    char err[256] = "";
    for (int order = 0; order < 2; order++) {
        for (size_t i = 0; i < n; i++)
            d[i] = (double)(1 + i % 5);
        d[n - 1] = order ? -0.0 : 0.0;   /* last sub-chunk first ... */
        d[n - 2] = order ? 0.0 : -0.0;
        d[3] = 9.0;                      /* ... the max repeated across sub-chunks */
        d[n - 3] = 9.0;
        struct la_stats sc, sg;
        size_t sizes[] = { n };
        int rc = init_stats(&sc, st, 1, 10, NULL) | init_stats(&sg, st, 1, 10, NULL);
        rc |= scan_all(NULL, LA_DT_FLOAT64, d, sizes, 1, &st->rule, &sc, err, sizeof err);
        rc |= scan_all(g, LA_DT_FLOAT64, d, sizes, 1, &st->rule, &sg, err, sizeof err);
        good &= rc == 0 && stats_same(&sc, &sg, "zeros") && signbit(sg.min.v.f) == !order;
        la_stats_free(&sc);
        la_stats_free(&sg);
    }
    ok(good, "gpu = cpu for min -0.0 vs 0.0, in both orders");

    for (int i = 0; i < 1000; i++)
        q[i] = i % 3 == 0 ? -1 - i % 5 : i % 300;
    for (size_t i = 0; i < 1000; i++)
        d[i] = i % 7 == 0 ? 0.5 * (double)i : (double)(i % 400);
    struct la_stats sc, sg;
    struct sink_log lc, lg;
    int rc = init_stats(&sc, st, 1, 100, &lc) | init_stats(&sg, st, 1, 100, &lg);
    struct la_chunk parts[] = { { LA_DT_INT64, q, 1000, 0, NULL },
                                { LA_DT_FLOAT64, d, 1000, 1000, NULL },
                                { LA_DT_INT64, q, 500, 2000, NULL } };
    for (int k = 0; k < 3 && rc == 0; k++) {
        la_scan_chunk_cpu_ref(&parts[k], &st->rule, &sc);
        rc = g->ops->scan(g, &parts[k], &st->rule, &sg, err, sizeof err);
    }
    ok(rc == 0 && stats_same(&sc, &sg, "mixed"), "gpu = cpu for int64 then float64 chunks");
    la_stats_free(&sc);
    la_stats_free(&sg);
    free(d);
    free(q);
}

// ---- what --backend=auto decides from ----------------------------------------------

/* A sparse file of LA_GPU_MIN_BYTES whose first bytes are head: the hint
 * reads only those, and the disk holds only them. */
static int sparse_file(char *path, const void *head, size_t len)
{
    int fd = mkstemps(path, (int)strlen(strrchr(path, '.')));
    int ok_ = fd >= 0 && write(fd, head, len) == (ssize_t)len &&
              ftruncate(fd, (off_t)LA_GPU_MIN_BYTES) == 0;
    if (fd >= 0)
        close(fd);
    return ok_ ? 0 : -1;
}

/* The npy header of an array of dtype descr, filling the file. */
static size_t npy_head(unsigned char *buf, const char *descr, size_t elem)
{
    char dict[118];
    unsigned long long n = (LA_GPU_MIN_BYTES - 128) / elem;
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
                       "'shape': (%llu,), }", descr, n);
    memcpy(buf, "\x93NUMPY\x01\x00\x76\x00", 10);
    memset(buf + 10, ' ', 118);
    memcpy(buf + 10, dict, (size_t)len);
    buf[127] = '\n';
    return 128;
}

#define N_AUTO_TESTS 6

static void test_auto_hint(void)
{
    const int64_t size = (int64_t)LA_GPU_MIN_BYTES;
    unsigned char head[128];
    char npy_i[] = "/tmp/la-auto-XXXXXX.npy", npy_f[] = "/tmp/la-auto-XXXXXX.npy";
    char raw[] = "/tmp/la-auto-XXXXXX.bin", csv[] = "/tmp/la-auto-XXXXXX.csv";
    char gz[] = "/tmp/la-auto-XXXXXX.npy";
    static const unsigned char gzip_magic[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    int made = sparse_file(npy_i, head, npy_head(head, "<i8", 8)) == 0 &&
               sparse_file(npy_f, head, npy_head(head, "<f4", 4)) == 0 &&
               sparse_file(raw, "\0\0\0\0", 4) == 0 && sparse_file(csv, "0\n1\n", 4) == 0 &&
               sparse_file(gz, gzip_magic, sizeof gzip_magic) == 0;
    struct {
        const char *args[6];
        int64_t in_place, floats, parsed;
        const char *what;
    } cases[] = {
        { { npy_i }, size, 0, 0, "a plain int64 .npy is read in place" },
        { { npy_f }, size, size, 0, "a plain float32 .npy is read in place, as floats" },
        { { "--format=raw", "--dtype=float64", raw }, size, size, 0,
          "a raw float64 file is read in place, as floats" },
        { { csv }, 0, 0, size, "a csv file is parsed: its bytes do not count" },
        { { gz }, 0, 0, size, "a compressed .npy is inflated: its bytes do not count" },
        { { npy_i, csv }, size, 0, size, "an .npy and a csv: only the .npy counts" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char *argv[8] = { (char *)"labelaudit" };
        int argc = 1;
        for (int i = 0; i < 6 && cases[k].args[i]; i++)
            argv[argc++] = (char *)cases[k].args[i];
        struct la_config cfg;
        struct la_auto_hint h;
        optind = 0;
        memset(&h, 0, sizeof h);
        if (made && la_options_parse(argc, argv, &cfg) == LA_OPT_OK)
            la_auto_hint_of(&cfg, &h);
        ok(made && h.in_place_bytes == cases[k].in_place &&
               h.in_place_float_bytes == cases[k].floats && h.parsed_bytes == cases[k].parsed &&
               !h.unknown, "auto hint: %s (in place %lld, float %lld, parsed %lld)",
           cases[k].what, (long long)h.in_place_bytes, (long long)h.in_place_float_bytes,
           (long long)h.parsed_bytes);
    }
    unlink(npy_i);
    unlink(npy_f);
    unlink(raw);
    unlink(csv);
    unlink(gz);
}

static void test_gpu(void)
{
    char why[512] = "";
    struct la_scan_backend g;
    if (!la_gpu_probe(why, sizeof why) || la_scan_gpu_open(&g, 4, why, sizeof why) != 0) {
        printf("# no GPU: %s\n", why);
        for (int k = 0; k < N_GPU_TESTS; k++)
            skip("no GPU", "gpu against cpu");
        return;
    }
    ok(strcmp(g.ops->name, "gpu") == 0 &&
       la_verdict_i64(0, &setups[0].rule) == LA_V_VALID, "the gpu backend is named gpu");
    for (int s = 0; s < N_SETUPS; s++)
        for (int dt = 0; dt < LA_DT_COUNT; dt++)
            test_gpu_dtype(&g, (enum la_dtype)dt, &setups[s], s == 1 ? 3 : 2000);
    test_gpu_many_bad(&g, LA_DT_INT32, (size_t)3 << 20, (size_t)1 << 20);      /* 2^20 bad */
    test_gpu_many_bad(&g, LA_DT_INT8, (size_t)9 << 20, ((size_t)3 << 19) + 1); /* in pieces */
    test_gpu_zeros_and_mixed(&g);
    la_scan_close(&g);
}

int main(void)
{
    printf("1..%d\n", N_VERDICT_TESTS + N_THREAD_TESTS + N_AUTO_TESTS + N_GPU_TESTS + 1);
    test_verdicts();
    test_cpu_threads();
    test_auto_hint();
    test_gpu();
    /* the plan must match what ran */
    ok(tap_n == N_VERDICT_TESTS + N_THREAD_TESTS + N_AUTO_TESTS + N_GPU_TESTS,
       "ran %d checks as planned",
       tap_n);
    /* a failed check fails the program too, for a runner that reads only the status */
    return tap_not_ok ? 1 : 0;
}
