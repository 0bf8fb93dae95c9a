/* test_stats.c - the verdict, the CPU reference scan, and merging: the pieces
 * both backends share. The CUDA backend is compared against exactly these. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "stats.h"
#include "tap.h"
#include "verdict.h"
#include "ignored_samples.h"

static const struct la_rule CE10 = { 0, 1, -100, 1, 10 };

static void test_verdicts(void)
{
    struct la_rule bce = { 1, 0, 0, 0, 0 };
    struct la_rule open_top = { 0, 1, -100, 0, 0 };
    TAP_OK(la_verdict_i64(0, &CE10) == LA_V_VALID, "0 is valid in [0, 10)");
    TAP_OK(la_verdict_i64(9, &CE10) == LA_V_VALID, "9 is valid in [0, 10)");
    TAP_OK(la_verdict_i64(10, &CE10) == LA_V_ABOVE, "10 is above [0, 10)");
    TAP_OK(la_verdict_i64(-1, &CE10) == LA_V_BELOW, "-1 is below");
    TAP_OK(la_verdict_i64(-100, &CE10) == LA_V_IGNORED, "-100 is the ignore index");
    TAP_OK(la_verdict_i64(1000000, &open_top) == LA_V_VALID, "no -n: large labels are valid");
    TAP_OK(la_verdict_u64(UINT64_MAX, &CE10) == LA_V_ABOVE, "uint64 max is above");
    TAP_OK(la_verdict_f64(NAN, &CE10) == LA_V_NON_FINITE, "NaN is non-finite");
    TAP_OK(la_verdict_f64(-INFINITY, &CE10) == LA_V_NON_FINITE, "-Inf is non-finite");
    TAP_OK(la_verdict_f64(2.5, &CE10) == LA_V_NON_INTEGER, "2.5 is non-integer");
    TAP_OK(la_verdict_f64(-0.5, &CE10) == LA_V_NON_INTEGER, "-0.5: non-integer before below");
    TAP_OK(la_verdict_f64(-100.0, &CE10) == LA_V_IGNORED, "-100.0 is ignored");
    TAP_OK(la_verdict_f64(3.0, &CE10) == LA_V_VALID, "3.0 is valid");
    TAP_OK(la_verdict_f64(LA_TWO_63, &CE10) == LA_V_ABOVE, "2^63 as a float is above");
    TAP_OK(la_verdict_f64(0.5, &bce) == LA_V_VALID, "bce: 0.5 is valid");
    TAP_OK(la_verdict_f64(1.0, &bce) == LA_V_VALID, "bce: 1 is valid");
    TAP_OK(la_verdict_f64(1.2, &bce) == LA_V_ABOVE, "bce: 1.2 is above");
    TAP_OK(la_verdict_f64(-0.1, &bce) == LA_V_BELOW, "bce: -0.1 is below");
    TAP_OK(la_verdict_i64(-100, &bce) == LA_V_BELOW, "bce: no ignore index");
}

static void scan_ints(const int64_t *v, size_t n, const struct la_rule *rule,
                      struct la_stats *s)
{
    struct la_chunk c = { LA_DT_INT64, v, n, 0, NULL };
    la_scan_chunk_cpu_ref(&c, rule, s);
}

static void test_reference_scan(void)
{
    int64_t v[] = { 0, 1, 10, -100, -1, 9, 255, 255, 3 };
    struct la_stats s;
    la_stats_init(&s, 1, 2, 10, 10);
    scan_ints(v, 9, &CE10, &s);
    TAP_OK(s.count == 9, "count includes ignored and invalid (%llu)", (unsigned long long)s.count);
    TAP_OK(s.n_verdict[LA_V_IGNORED] == 1, "one ignored");
    TAP_OK(s.n_verdict[LA_V_ABOVE] == 3 && s.n_verdict[LA_V_BELOW] == 1, "3 above, 1 below");
    TAP_OK(s.min.v.i == -1 && s.max.v.i == 255, "min/max skip the ignored value");
    TAP_OK(s.hist[0] == 1 && s.hist[1] == 1 && s.hist[9] == 1 && s.hist[3] == 1,
           "histogram counts valid labels");
    TAP_OK(s.hist_hi == 10, "hist_hi is 1 + highest bin");
    TAP_OK(s.n_bad == 2 && s.bad[0].index == 2 && s.bad[1].index == 4, "first 2 bad kept in order");
    TAP_OK(s.bad_total == 4, "all 4 bad counted");
    TAP_OK(s.outlier_above[255 - 10] == 2 && s.outlier_below[0] == 1, "outlier bins");
    la_stats_free(&s);
}

static void test_samples(void)
{
    /* 4 samples of 3 values: samples 1 and 3 hold bad entries, 3 twice */
    int64_t v[] = { 0, 1, 2, 3, 11, 4, 5, 6, 7, 12, 13, 8 };
    struct la_stats s;
    la_stats_init(&s, 3, 10, 10, 10);
    struct la_chunk a = { LA_DT_INT64, v, 6, 0, NULL }, b = { LA_DT_INT64, v + 6, 6, 6, NULL };
    la_scan_chunk_cpu_ref(&a, &CE10, &s);
    la_scan_chunk_cpu_ref(&b, &CE10, &s);
    TAP_OK(s.bad_samples == 2, "two samples hold bad entries (%llu)",
           (unsigned long long)s.bad_samples);
    TAP_OK(s.n_groups == 2 && s.groups[1].sample == 3 && s.groups[1].count == 2 &&
           s.groups[1].mixed, "sample 3 has 2 different bad values");
    TAP_OK(s.bad[2].sample == 3 && s.bad[2].index == 10, "sample is index / stride");
    la_stats_free(&s);
}

/* A sample's distinct bad values: NaN is one (la_num_cmp calls it neither
 * below nor above inf), and unparsable cells differ by their text. */
static void test_group_values(void)
{
    struct la_stats s;
    la_stats_init(&s, 4, 10, 10, 10);
    struct la_num inf = { LA_NUM_F64, { .f = INFINITY } }, nan = { LA_NUM_F64, { .f = NAN } };
    la_stats_add_bad(&s, 0, LA_V_NON_FINITE, inf, NULL);
    la_stats_add_bad(&s, 1, LA_V_NON_FINITE, nan, NULL);
    la_stats_add_bad(&s, 2, LA_V_NON_FINITE, nan, NULL);
    la_stats_add_unparsable(&s, 4, "x");
    la_stats_add_unparsable(&s, 5, "abc");
    la_stats_add_unparsable(&s, 6, "x");
    const struct la_bad_group *g = s.groups, *h = s.groups + 1;
    TAP_OK(s.n_groups == 2 && g->n_values == 2 && g->values[1].v.f != g->values[1].v.f,
           "inf then NaN: two values, NaN kept once (%d)", g->n_values);
    TAP_OK(h->n_values == 2 && h->texts[0] && !strcmp(h->texts[0], "x") && h->texts[1] &&
           !strcmp(h->texts[1], "abc") && h->mixed, "cells x, abc, x: two values, by their text");
    /* a later part whose first sample continues the last one: its texts are copied */
    struct la_stats t;
    la_stats_init(&t, 4, 10, 10, 10);
    la_stats_add_unparsable(&t, 7, "y");
    la_stats_add_unparsable(&t, 8, "z");
    la_stats_merge(&s, &t);
    la_stats_free(&t);
    TAP_OK(s.n_groups == 3 && h->n_values == 3 && !strcmp(h->texts[2], "y") &&
           s.groups[2].n_values == 1 && !strcmp(s.groups[2].texts[0], "z"),
           "merged: the continued sample gains y, the next keeps its own copy of z");
    la_stats_free(&s);
}

/* Random labels with bad ones everywhere, scanned in uneven chunks with 1 and 4 threads. */
static void fill_random(int64_t *v, size_t n, unsigned seed)
{
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        int r = rand() % 1000;
        v[i] = r < 5 ? 10 + r : r < 8 ? -100 : r < 10 ? -r : r % 10;
    }
}

/* The distinct bad values of two stats: the same values, counts and places. */
static int values_equal(const struct la_stats *a, const struct la_stats *b)
{
    const struct la_bad_values *x = &a->values, *y = &b->values;
    if (x->n != y->n)
        return 0;
    for (size_t i = 0; i < x->n; i++) {
        const struct la_bad_value *p = &x->v[i], *q = &y->v[i];
        if (la_bad_value_cmp(p->value, p->text, q->value, q->text) || p->count != q->count ||
            p->n_first != q->n_first || p->verdict != q->verdict)
            return 0;
        for (int k = 0; k < p->n_first; k++)
            if (p->first_index[k] != q->first_index[k] || p->first_sample[k] != q->first_sample[k])
                return 0;
    }
    return 1;
}

static int stats_equal(const struct la_stats *a, const struct la_stats *b)
{
    if (!values_equal(a, b))
        return 0;
    if (a->count != b->count || memcmp(a->n_verdict, b->n_verdict, sizeof a->n_verdict) ||
        a->bad_total != b->bad_total || a->bad_samples != b->bad_samples ||
        a->n_bad != b->n_bad || a->n_groups != b->n_groups || a->hist_hi != b->hist_hi ||
        la_num_cmp(a->min, b->min) || la_num_cmp(a->max, b->max) ||
        memcmp(a->outlier_above, b->outlier_above, sizeof a->outlier_above) ||
        memcmp(a->outlier_below, b->outlier_below, sizeof a->outlier_below))
        return 0;
    for (size_t i = 0; i < a->n_bad; i++)
        if (a->bad[i].index != b->bad[i].index || a->bad[i].value.v.i != b->bad[i].value.v.i)
            return 0;
    for (size_t i = 0; i < a->n_groups; i++)
        if (a->groups[i].sample != b->groups[i].sample || a->groups[i].count != b->groups[i].count)
            return 0;
    return memcmp(a->hist, b->hist, a->hist_len * sizeof *a->hist) == 0;
}

static void scan_with(int threads, const int64_t *v, size_t n, struct la_stats *s)
{
    struct la_scan_backend b;
    char err[256];
    la_scan_cpu_open(&b, threads);
    la_stats_init(s, 7, 1000, 10, 10);
    size_t pos = 0, step = 300001;
    while (pos < n) {
        size_t k = n - pos < step ? n - pos : step;
        struct la_chunk c = { LA_DT_INT64, v + pos, k, pos, NULL };
        b.ops->scan(&b, &c, &CE10, s, err, sizeof err);
        pos += k;
    }
    la_scan_close(&b);
}

/* The reference loop over v[lo, hi) into s. */
static void scan_part(const int64_t *v, size_t lo, size_t hi, struct la_stats *s)
{
    struct la_chunk c = { LA_DT_INT64, v + lo, hi - lo, lo, NULL };
    la_scan_chunk_cpu_ref(&c, &CE10, s);
}

static void test_threads_identical(void)
{
    size_t n = 2000003;
    int64_t *v = malloc(n * sizeof *v);
    fill_random(v, n, 7);
    struct la_stats one, four;
    scan_with(1, v, n, &one);
    scan_with(4, v, n, &four);
    TAP_OK(stats_equal(&one, &four), "-j1 and -j4 give identical stats");
    struct la_stats ref;
    la_stats_init(&ref, 7, 1000, 10, 10);
    scan_part(v, 0, n, &ref);
    TAP_OK(values_equal(&one, &ref) && one.values.n > 3,
           "the fast folds count and place each distinct bad value as the reference loop");
    la_stats_free(&ref);
    TAP_OK(one.bad_total > 10000 && one.n_bad == 1000, "many bad entries, 1000 kept");
    la_stats_free(&one);
    la_stats_free(&four);
    free(v);
}

static void test_bad_values(void)
{
    /* a stray 6 behind forty 5s, samples of 3 entries: the 6 is named */
    int64_t v[300];
    for (size_t i = 0; i < 300; i++)
        v[i] = i % 5 == 4 ? 10 : (int64_t)(i % 5);
    v[137] = 12;
    v[196] = -3;
    v[197] = -3;
    v[299] = 10;
    struct la_stats whole;
    la_stats_init(&whole, 3, 2, 10, 10);
    scan_part(v, 0, 300, &whole);
    const struct la_bad_values *t = &whole.values;
    TAP_OK(t->n == 3 && t->v[0].value.v.i == -3 && t->v[1].value.v.i == 10 &&
           t->v[2].value.v.i == 12, "each distinct bad value, ascending (%zu)", t->n);
    TAP_OK(t->v[1].count == 60 && t->v[2].count == 1 && t->v[0].count == 2,
           "each with its exact count, past the 2 entries kept");
    TAP_OK(t->v[1].n_first == 3 && t->v[1].first_index[0] == 4 && t->v[1].first_sample[1] == 3 &&
           t->v[2].first_index[0] == 137 && t->v[2].first_sample[0] == 45,
           "its first 3 samples, with the index of its first entry in each");
    TAP_OK(t->v[0].n_first == 1 && t->v[0].first_sample[0] == 65,
           "two entries in one sample: one first sample");
    int all = 1;
    for (size_t cut = 1; cut < 300; cut += 7) {   /* every fold of two parts, in order */
        struct la_stats a, b;
        la_stats_init(&a, 3, 2, 10, 10);
        la_stats_init(&b, 3, 2, 10, 10);
        scan_part(v, 0, cut, &a);
        scan_part(v, cut, 300, &b);
        la_stats_merge(&a, &b);
        all &= values_equal(&a, &whole);
        la_stats_free(&a);
        la_stats_free(&b);
    }
    TAP_OK(all, "two parts merged give the whole's bad values, cut anywhere");
    la_stats_free(&whole);

    /* 70 distinct values: the 64 smallest are kept and counted exactly,
     * whatever the order they come in and however the parts are cut */
    int64_t w[700];
    for (size_t i = 0; i < 700; i++)
        w[i] = 10 + (int64_t)((i * 37) % 70);
    la_stats_init(&whole, 1, 4, 10, 10);
    scan_part(w, 0, 700, &whole);
    uint64_t listed = la_bad_values_listed(&whole.values);
    TAP_OK(whole.values.n == LA_BAD_VALUES && whole.values.v[0].value.v.i == 10 &&
           whole.values.v[63].value.v.i == 73 && whole.values.v[63].count == 10,
           "past %d distinct values the smallest are kept", LA_BAD_VALUES);
    TAP_OK(listed == 640 && whole.bad_total - listed == 60,
           "the entries of the values left out are told (%llu)",
           (unsigned long long)(whole.bad_total - listed));
    all = 1;
    for (size_t cut = 1; cut < 700; cut += 13) {
        struct la_stats a, b;
        la_stats_init(&a, 1, 4, 10, 10);
        la_stats_init(&b, 1, 4, 10, 10);
        scan_part(w, 0, cut, &a);
        scan_part(w, cut, 700, &b);
        la_stats_merge(&a, &b);
        all &= values_equal(&a, &whole);
        la_stats_free(&a);
        la_stats_free(&b);
    }
    TAP_OK(all, "... and merged parts keep the same ones with the same counts");
    la_stats_free(&whole);

    /* unparsable cells: told apart by their text, after every number */
    struct la_stats u;
    la_stats_init(&u, 1, 1, 10, 10);
    la_stats_add_unparsable(&u, 3, "n/a");
    la_stats_add_unparsable(&u, 5, "?");
    la_stats_add_unparsable(&u, 8, "n/a");
    u.count++;
    u.n_verdict[LA_V_ABOVE]++;
    la_stats_add_bad(&u, 9, LA_V_ABOVE, (struct la_num){ LA_NUM_I64, { .i = 99 } }, NULL);
    TAP_OK(u.values.n == 3 && u.values.v[0].value.v.i == 99 && !strcmp(u.values.v[1].text, "?") &&
           !strcmp(u.values.v[2].text, "n/a") && u.values.v[2].count == 2 &&
           u.values.v[2].first_index[1] == 8, "unparsable cells by their text, after the numbers");
    la_bad_values_shift(&u.values, 100, 1000);
    TAP_OK(u.values.v[2].first_index[0] == 103 && u.values.v[2].first_sample[0] == 1003,
           "a dataset's source shifts the places");
    la_stats_free(&u);
}

static void test_float_dtypes(void)
{
    float f[] = { 0.0f, 2.0f, 2.5f, NAN, -INFINITY, 11.0f, -100.0f };
    struct la_stats s;
    la_stats_init(&s, 1, 10, 10, 10);
    struct la_chunk c = { LA_DT_FLOAT32, f, 7, 0, NULL };
    la_scan_chunk_cpu_ref(&c, &CE10, &s);
    TAP_OK(s.n_verdict[LA_V_NON_FINITE] == 2 && s.n_verdict[LA_V_NON_INTEGER] == 1 &&
           s.n_verdict[LA_V_ABOVE] == 1 && s.n_verdict[LA_V_IGNORED] == 1, "float32 categories");
    TAP_OK(s.saw_float && s.min.kind == LA_NUM_F64 && s.min.v.f == 0.0 && s.max.v.f == 11.0,
           "float min/max skip non-finite values");
    la_stats_free(&s);
    uint16_t h[] = { 0x3c00, 0x7e00, 0x4900 };   /* 1, NaN, 10 */
    la_stats_init(&s, 1, 10, 10, 10);
    struct la_chunk ch = { LA_DT_FLOAT16, h, 3, 0, NULL };
    la_scan_chunk_cpu_ref(&ch, &CE10, &s);
    TAP_OK(s.n_verdict[LA_V_NON_FINITE] == 1 && s.n_verdict[LA_V_ABOVE] == 1 && s.hist[1] == 1,
           "float16 values are converted exactly");
    la_stats_free(&s);
}

static void test_unparsable(void)
{
    struct la_stats s;
    la_stats_init(&s, 1, 10, 10, 10);
    la_stats_add_unparsable(&s, 5, "cat");
    TAP_OK(s.count == 1 && s.n_verdict[LA_V_UNPARSABLE] == 1 && s.n_bad == 1 &&
           strcmp(s.bad[0].text, "cat") == 0 && la_stats_invalid(&s) == 1,
           "an unparsable cell is counted and kept with its text");
    la_stats_free(&s);
}

/* all-ignored by the map alone (sample_of, no sample_end): samples of random
 * lengths (empty, one, long), chunks cut anywhere, against a count by hand. */
struct firsts { const uint64_t *first; size_t n; uint64_t lookups; };

static uint64_t firsts_sample_of(void *ctx, uint64_t index)
{
    struct firsts *f = ctx;
    size_t lo = 0, hi = f->n;   /* the last sample whose first is <= index */
    f->lookups++;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->first[mid] <= index)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void test_ignored_by_lookup(void)
{
    enum { SAMPLES = 3000 };
    static uint64_t first[SAMPLES];
    static int64_t v[SAMPLES * 40];
    int all_ok = 1, cheap = 1;
    srand(7);
    for (int round = 0; round < 20; round++) {
        size_t n = 0;
        uint64_t want = 0, want_first = UINT64_MAX;
        int lists = round % 5 != 4;   /* every fifth: one value a sample */
        for (size_t k = 0; k < SAMPLES; k++) {
            first[k] = n;
            size_t len = !lists ? 1 : rand() % 7 == 0 ? (size_t)(rand() % 40) : (size_t)(rand() % 4);
            int ignored = rand() % 3 == 0;
            for (size_t i = 0; i < len; i++)
                v[n++] = ignored || rand() % 4 == 0 ? -100 : rand() % 5;
            int all = len > 0;
            for (size_t i = first[k]; i < n; i++)
                all &= v[i] == -100;
            if (all && lists) {
                want++;
                if (want_first == UINT64_MAX)
                    want_first = k;
            }
        }
        struct firsts f = { first, SAMPLES, 0 };
        struct la_ignored_samples t;
        la_ignored_samples_start(&t, 1, -100, LA_DT_INT64, 0, firsts_sample_of, NULL, &f, 16);
        for (size_t at = 0; at < n;) {
            size_t len = 1 + (size_t)(rand() % 97);
            len = len < n - at ? len : n - at;
            struct la_chunk c = { LA_DT_INT64, v + at, len, at, NULL };
            la_ignored_samples_fold(&t, &c);
            at += len;
        }
        la_ignored_samples_end(&t);
        all_ok &= t.count == want && (!want || (t.n_list && t.list[0] == want_first));
        for (size_t i = 1; i < t.n_list; i++)
            all_ok &= t.list[i] > t.list[i - 1];
        cheap &= f.lookups < 12 * (uint64_t)SAMPLES;
        la_ignored_samples_free(&t);
    }
    TAP_OK(all_ok, "all-ignored by sample_of alone: the count and the first samples, "
           "chunks cut anywhere; one value a sample counts none");
    TAP_OK(cheap, "a few lookups a sample, whatever its length");
}

int main(void)
{
    test_ignored_by_lookup();
    test_verdicts();
    test_reference_scan();
    test_samples();
    test_group_values();
    test_threads_identical();
    test_bad_values();
    test_float_dtypes();
    test_unparsable();
    return tap_done();
}
