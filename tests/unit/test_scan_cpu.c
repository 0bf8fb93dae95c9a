/* test_scan_cpu.c - the CPU backend (fast loops, thread pool, ordered merge)
 * leaves exactly the stats of the reference fold, la_scan_chunk_cpu_ref, for
 * every integer dtype, rule and thread count, with and without a sink, for
 * bad values in runs and scattered densely (the fast loops then count them
 * without their positions), in samples of one value, a few, or thousands. */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcmp */

#include "scan.h"
#include "tap.h"

#define N_VALUES (3u << 17)     /* several parts per chunk at -j2 and -j3 */

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Bad values one in `dense` (0: only in rare runs), scattered one by one. */
static unsigned dense;

/* Mostly labels in [0, 12), in runs (like masks); sometimes -1, -100, 255,
 * 1000, a huge value, or 0/1 only (bool). */
static int64_t pick(int bool_only)
{
    static int64_t run_value;
    static int run_left;
    static const int64_t bad[] = { -1, -100, 255, 10, 11, 2, -129, 1000, 5000, -1, 255, 10 };
    uint64_t r = next_rand();
    if (bool_only)
        return (int64_t)(r & 1);
    if (dense && (r >> 20) % dense == 0)
        return bad[(r >> 8) % (sizeof bad / sizeof bad[0])];
    if (run_left-- > 0)
        return run_value;
    switch (r % 2000) {
    case 0: return -1;
    case 1: return -100;
    case 2: return 255;
    case 3: return 1000;
    case 4: return 5000;
    case 5: return -129;
    default: break;
    }
    run_value = (int64_t)((r >> 16) % 12);
    run_left = (int)((r >> 40) % 40);
    return run_value;
}

static void *make_values(enum la_dtype dt, size_t n)
{
    size_t sz = la_dtype_info(dt)->size;
    unsigned char *v = malloc(n * sz);
    for (size_t i = 0; i < n; i++) {
        int64_t x = pick(dt == LA_DT_BOOL);
        switch (dt) {
        case LA_DT_BOOL: case LA_DT_UINT8: ((uint8_t *)v)[i] = (uint8_t)x; break;
        case LA_DT_INT8:   ((int8_t *)v)[i] = (int8_t)x; break;
        case LA_DT_INT16:  ((int16_t *)v)[i] = (int16_t)x; break;
        case LA_DT_UINT16: ((uint16_t *)v)[i] = (uint16_t)x; break;
        case LA_DT_INT32:  ((int32_t *)v)[i] = (int32_t)x; break;
        case LA_DT_UINT32: ((uint32_t *)v)[i] = (uint32_t)x; break;
        case LA_DT_INT64:  ((int64_t *)v)[i] = x; break;
        case LA_DT_UINT64: ((uint64_t *)v)[i] = x == 5000 ? UINT64_MAX - 3 : (uint64_t)x; break;
        case LA_DT_FLOAT32: ((float *)v)[i] = x == 1000 ? 0.5f : (float)x; break;
        case LA_DT_FLOAT64: ((double *)v)[i] = x == 1000 ? 2.25 : (double)x; break;
        default: break;
        }
    }
    return v;
}

/* Every bad entry a sink sees, as one running checksum of (index, verdict). */
static void sink_sum(void *ctx, const struct la_bad *b)
{
    uint64_t *sum = ctx;
    *sum = *sum * 1000003u + b->index * 7u + (uint64_t)b->verdict;
}

static int same_stats(const struct la_stats *a, const struct la_stats *b)
{
    if (a->count != b->count || memcmp(a->n_verdict, b->n_verdict, sizeof a->n_verdict) ||
        a->has_minmax != b->has_minmax || a->saw_float != b->saw_float ||
        a->hist_beyond != b->hist_beyond || a->hist_hi != b->hist_hi ||
        memcmp(a->outlier_below, b->outlier_below, sizeof a->outlier_below) ||
        memcmp(a->outlier_above, b->outlier_above, sizeof a->outlier_above) ||
        a->n_bad != b->n_bad || a->bad_total != b->bad_total || a->bad_samples != b->bad_samples ||
        a->has_last_bad != b->has_last_bad || a->first_bad_sample != b->first_bad_sample ||
        a->last_bad_sample != b->last_bad_sample || a->n_groups != b->n_groups)
        return 0;
    if (a->has_minmax && (la_num_cmp(a->min, b->min) || la_num_cmp(a->max, b->max) ||
                          a->min.kind != b->min.kind || a->max.kind != b->max.kind))
        return 0;
    if (a->hist && memcmp(a->hist, b->hist, a->hist_len * sizeof *a->hist))
        return 0;
    for (size_t i = 0; i < a->n_bad; i++)
        if (a->bad[i].index != b->bad[i].index || a->bad[i].verdict != b->bad[i].verdict ||
            a->bad[i].sample != b->bad[i].sample || la_num_cmp(a->bad[i].value, b->bad[i].value))
            return 0;
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct la_bad_group *g = &a->groups[i], *h = &b->groups[i];
        if (g->sample != h->sample || g->count != h->count || g->first_index != h->first_index ||
            g->first_verdict != h->first_verdict || g->mixed != h->mixed ||
            la_num_cmp(g->first_value, h->first_value))
            return 0;
    }
    return 1;
}

struct rule_case {
    const char *name;
    struct la_rule rule;
    uint64_t hist_len;
    int64_t above_base;
};

/* Elements per sample: 3 unless a case says otherwise. */
static uint64_t stride = 3;

static void check(enum la_dtype dt, const struct rule_case *rc, int threads, size_t cap,
                  int with_sink)
{
    void *v = make_values(dt, N_VALUES);
    struct la_stats ref, got;
    uint64_t sum_ref = 0, sum_got = 0;
    la_stats_init(&ref, stride, cap, rc->hist_len, rc->above_base);
    la_stats_init(&got, stride, cap, rc->hist_len, rc->above_base);
    if (with_sink) {
        ref.sink = got.sink = sink_sum;
        ref.sink_ctx = &sum_ref;
        got.sink_ctx = &sum_got;
    }
    struct la_scan_backend b = { 0 };
    la_scan_cpu_open(&b, threads);
    char err[256];
    size_t sz = la_dtype_info(dt)->size;
    /* two chunks, so merging across chunks is exercised too */
    size_t half = N_VALUES / 2 + 17;
    struct la_chunk c1 = { dt, v, half, 0, NULL };
    struct la_chunk c2 = { dt, (char *)v + half * sz, N_VALUES - half, half, NULL };
    la_scan_chunk_cpu_ref(&c1, &rc->rule, &ref);
    la_scan_chunk_cpu_ref(&c2, &rc->rule, &ref);
    int rc1 = b.ops->scan(&b, &c1, &rc->rule, &got, err, sizeof err);
    int rc2 = b.ops->scan(&b, &c2, &rc->rule, &got, err, sizeof err);
    TAP_OK(rc1 == 0 && rc2 == 0 && same_stats(&ref, &got) && sum_ref == sum_got,
           "%s, %s, -j%d, cap %zu%s, stride %llu%s: same stats as the reference",
           la_dtype_info(dt)->name, rc->name, threads, cap, with_sink ? ", sink" : "",
           (unsigned long long)stride, dense ? ", dense bad" : "");
    la_scan_close(&b);
    la_stats_free(&ref);
    la_stats_free(&got);
    free(v);
}

int main(void)
{
    static const struct rule_case rules[] = {
        { "ce N=10", { 0, 1, -100, 1, 10 }, 10, 10 },
        { "ce N=10 ignore=255", { 0, 1, 255, 1, 10 }, 10, 10 },
        { "ce N=10 ignore=3", { 0, 1, 3, 1, 10 }, 10, 10 },
        { "ce no N", { 0, 1, -100, 0, 0 }, LA_HIST_MAX, 0 },
        { "ce N=2000, no ignore", { 0, 0, 0, 1, 2000 }, 2000, 2000 },
        { "bce", { 1, 0, 0, 0, 0 }, 0, 1 },
        { "ce N=2 (mostly bad)", { 0, 1, -100, 1, 2 }, 2, 2 },
    };
    static const enum la_dtype dts[] = {
        LA_DT_BOOL, LA_DT_INT8, LA_DT_UINT8, LA_DT_INT16, LA_DT_UINT16, LA_DT_INT32,
        LA_DT_UINT32, LA_DT_INT64, LA_DT_UINT64, LA_DT_FLOAT32, LA_DT_FLOAT64,
    };
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
            for (int t = 1; t <= 3; t++)
                check(dts[d], &rules[k], t, 1000, 0);
    /* few kept entries, every entry to a sink, and a sink with parts that overflow */
    check(LA_DT_INT64, &rules[0], 2, 5, 0);
    check(LA_DT_UINT8, &rules[1], 3, 10, 1);
    check(LA_DT_INT32, &rules[3], 2, 1u << 20, 1);
    check(LA_DT_INT16, &rules[0], 2, 0, 0);
    check(LA_DT_INT64, &rules[6], 2, 1u << 20, 1);
    check(LA_DT_UINT8, &rules[6], 2, 1u << 20, 0);
    /* dense scattered bad values: one in 20 and one in 1000, in samples of one
     * value (1-D labels), a few, some that straddle blocks, and large masks */
    static const uint64_t strides[] = { 1, 3, 7, 5000, 1u << 16 };
    static const unsigned densities[] = { 20, 1000 };
    for (size_t k = 0; k < sizeof densities / sizeof densities[0]; k++) {
        dense = densities[k];
        for (size_t w = 0; w < sizeof strides / sizeof strides[0]; w++) {
            stride = strides[w];
            for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
                check(dts[d], &rules[0], 1 + (int)(d % 3), 10, 0);
                check(dts[d], &rules[1], 2, 10, 0);
            }
            check(LA_DT_UINT8, &rules[1], 3, 0, 0);
            check(LA_DT_INT64, &rules[2], 2, 1000, 0);
            check(LA_DT_INT32, &rules[3], 2, 10, 0);
            check(LA_DT_UINT16, &rules[4], 3, 10, 0);
            check(LA_DT_INT64, &rules[0], 2, 10, 1);
        }
    }
    return tap_done();
}
