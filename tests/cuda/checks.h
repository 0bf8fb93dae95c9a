/* checks.h - the CUDA backend against the CPU reference, field by field.
 *
 * Included after src/scan_cuda.cu by tests/cuda/test_fake_device.cu (the
 * backend on fake_cudart, no GPU) and bench/gpu_bench.cu (on a GPU). Prints a
 * TAP line per comparison: every dtype and rule of scan_setups.h, chunks that
 * span sub-chunks, signed zeros, and a chunk with more bad entries than the
 * device keeps. */
#ifndef LA_CUDA_CHECKS_H
#define LA_CUDA_CHECKS_H

#include <math.h>   // NAN, INFINITY, signbit
#include <stdarg.h> // va_list

// ---- inputs ----------------------------------------------------------------------

static uint64_t rng_state = 12345;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fill n elements of dt: valid labels below nc, and bad_permille odd ones
 * (random bits, -1, nc, the ignore index, NaN, +-0.0, fractions, 2^63...). */
static void fill(void *buf, enum la_dtype dt, size_t n, int64_t nc, unsigned bad_permille)
{
    static const double odd[] = { NAN, INFINITY, -INFINITY, -0.0, 0.0, 2.5, -1.0, -100.0,
                                  9223372036854775808.0, 1e300, 1e-310 };
    size_t elem = la_dtype_info(dt)->size;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd(), bits;
        int64_t x = (int64_t)((r >> 12) % (uint64_t)nc);
        double d = (double)x;
        if ((r & 1023) < bad_permille) {
            switch ((r >> 10) % 4) {
            case 0: x = -1; d = odd[(r >> 20) % (sizeof odd / sizeof *odd)]; break;
            case 1: x = nc + (int64_t)((r >> 20) % 300); d = (double)x; break;
            case 2: x = -100; d = -100.0; break;
            default: x = (int64_t)rnd(); d = odd[(r >> 20) % 5]; break;
            }
        }
        switch (dt) {
        case LA_DT_FLOAT16: // integers below 2048 exactly, else random bits
            bits = x >= 0 && x < 2048 && (r & 1023) >= bad_permille
                 ? (x ? ((uint64_t)(63 - __builtin_clzll((uint64_t)x) + 15) << 10) |
                        (((uint64_t)x << (10 - (63 - __builtin_clzll((uint64_t)x)))) & 0x3ff)
                      : 0)
                 : rnd() & 0xffff;
            memcpy((char *)buf + i * 2, &bits, 2);
            break;
        case LA_DT_FLOAT32: { float f = (float)d; memcpy((char *)buf + i * 4, &f, 4); break; }
        case LA_DT_FLOAT64: memcpy((char *)buf + i * 8, &d, 8); break;
        default: memcpy((char *)buf + i * elem, &x, elem); break; // little-endian truncation
        }
    }
}

/* Store x (an integer below 2048 in magnitude, or a signed zero) as a float dtype. */
static void put_float(void *buf, enum la_dtype dt, size_t i, double x)
{
    if (dt == LA_DT_FLOAT16) {
        uint64_t m = (uint64_t)(x < 0 ? -x : x);
        int e = m ? 63 - __builtin_clzll(m) : 0;
        uint16_t h = (uint16_t)(m ? ((unsigned)(e + 15) << 10) | ((m << (10 - e)) & 0x3ff) : 0);
        if (signbit(x))
            h |= 0x8000;
        ((uint16_t *)buf)[i] = h;
    } else if (dt == LA_DT_FLOAT32) {
        ((float *)buf)[i] = (float)x;
    } else {
        ((double *)buf)[i] = x;
    }
}

/* A digest of every accumulated field: equal digests, equal stats. */
static uint64_t digest(const struct la_stats *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
#define MIX(p, n)                                                                      \
    for (size_t i_ = 0; i_ < (size_t)(n); i_++)                                        \
        h = (h ^ ((const unsigned char *)(p))[i_]) * 0x100000001b3ull
    MIX(&s->count, sizeof s->count);
    MIX(s->n_verdict, sizeof s->n_verdict);
    MIX(&s->has_minmax, sizeof s->has_minmax);
    if (s->has_minmax) {
        MIX(&s->min.kind, sizeof s->min.kind);
        MIX(&s->min.v, sizeof s->min.v);
        MIX(&s->max.kind, sizeof s->max.kind);
        MIX(&s->max.v, sizeof s->max.v);
    }
    MIX(&s->saw_float, sizeof s->saw_float);
    MIX(s->hist, s->hist_len * sizeof *s->hist);
    MIX(&s->hist_beyond, sizeof s->hist_beyond);
    MIX(&s->hist_hi, sizeof s->hist_hi);
    MIX(s->outlier_below, sizeof s->outlier_below);
    MIX(s->outlier_above, sizeof s->outlier_above);
    for (size_t i = 0; i < s->n_bad; i++) {
        MIX(&s->bad[i].index, sizeof s->bad[i].index);
        MIX(&s->bad[i].sample, sizeof s->bad[i].sample);
        MIX(&s->bad[i].verdict, sizeof s->bad[i].verdict);
        MIX(&s->bad[i].value.kind, sizeof s->bad[i].value.kind);
        MIX(&s->bad[i].value.v, sizeof s->bad[i].value.v);
    }
    for (size_t i = 0; i < s->n_groups; i++) {
        const struct la_bad_group *g = &s->groups[i];
        MIX(&g->sample, sizeof g->sample);
        MIX(&g->count, sizeof g->count);
        MIX(&g->first_index, sizeof g->first_index);
        MIX(&g->first_value.kind, sizeof g->first_value.kind);
        MIX(&g->first_value.v, sizeof g->first_value.v);
        MIX(&g->first_verdict, sizeof g->first_verdict);
        MIX(&g->mixed, sizeof g->mixed);
    }
    MIX(&s->bad_total, sizeof s->bad_total);
    MIX(&s->bad_samples, sizeof s->bad_samples);
    MIX(&s->first_bad_sample, sizeof s->first_bad_sample);
    MIX(&s->last_bad_sample, sizeof s->last_bad_sample);
#undef MIX
    return h;
}

// ---- the backend against the CPU reference ------------------------------------------------------------------------

#include "../unit/scan_setups.h" /* struct setup, setups[]: the test's cases */

static int scan_backend(struct la_scan_backend *b, const struct la_chunk *c,
                        const struct la_rule *r, struct la_stats *s)
{
    char err[256];
    if (b->ops->scan(b, c, r, s, err, sizeof err) != 0) {
        printf("# scan: %s\n", err);
        return -1;
    }
    return 0;
}

/* One TAP line per comparison, so `make check` counts each and names the
 * one that differs. */
static int tap_runs, tap_failures;
static void tap(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %d - ", ok ? "" : "not ", ++tap_runs);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    tap_failures += !ok;
}

/* Every dtype and setup, several chunk sizes (spanning sub-chunks), plus
 * chunks with more bad entries than BAD_CAP. @return failures. */
static int check_all(struct la_scan_backend *b, const char *label)
{
    for (size_t si = 0; si < sizeof setups / sizeof *setups; si++) {
        const struct setup *st = &setups[si];
        for (int dt = 0; dt < LA_DT_COUNT; dt++) {
            size_t elem = la_dtype_info((enum la_dtype)dt)->size;
            size_t sizes[] = { SUB_BYTES / elem * 2 + 999, 1, 0, 4096, SUB_BYTES / elem };
            size_t total = 0;
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
                total += sizes[k];
            void *buf = malloc(total * elem);
            rng_state = 99 + (uint64_t)dt + 1000 * si;
            fill(buf, (enum la_dtype)dt, total, st->n_classes, si == 2 ? 400 : 30);
            struct la_stats sc, sg;
            la_stats_init(&sc, 3, 50000, st->hist_len, st->above_base);
            la_stats_init(&sg, 3, 50000, st->hist_len, st->above_base);
            size_t at = 0;
            int rc = 0;
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes && rc == 0; k++) {
                struct la_chunk c = { (enum la_dtype)dt, (char *)buf + at * elem, sizes[k],
                                      at, NULL };
                la_scan_chunk_cpu_ref(&c, &st->rule, &sc);
                rc = scan_backend(b, &c, &st->rule, &sg);
                at += sizes[k];
            }
            int same = rc == 0 && digest(&sc) == digest(&sg);
            tap(same, "%s: %s, %s: stats identical to the CPU reference", label,
                la_dtype_info((enum la_dtype)dt)->name, st->name);
            if (!same)
                printf("# cpu/%s: bad %llu/%llu n_bad %zu/%zu min kind %d/%d "
                       "hist_hi %llu/%llu beyond %llu/%llu\n", label,
                       (unsigned long long)sc.bad_total, (unsigned long long)sg.bad_total,
                       sc.n_bad, sg.n_bad, sc.min.kind, sg.min.kind,
                       (unsigned long long)sc.hist_hi, (unsigned long long)sg.hist_hi,
                       (unsigned long long)sc.hist_beyond, (unsigned long long)sg.hist_beyond);
            la_stats_free(&sc);
            la_stats_free(&sg);
            free(buf);
        }
    }
    // -0.0 and 0.0 are equal: min and max must be the zero met first, as on the CPU
    for (int dt = LA_DT_FLOAT16; dt <= LA_DT_FLOAT64; dt++) {
        size_t elem = la_dtype_info((enum la_dtype)dt)->size;
        size_t n = SUB_BYTES / elem + 5000, at[][2] = { { n - 2, n - 1 }, { 1, n - 3 } };
        void *buf = malloc(n * elem);
        for (int sign = -1; sign <= 1; sign += 2)      // zero is the max, then the min
            for (int k = 0; k < 4; k++) {              // two places, both orders
                for (size_t i = 0; i < n; i++)
                    put_float(buf, (enum la_dtype)dt, i, sign * (double)(1 + i % 5));
                put_float(buf, (enum la_dtype)dt, at[k / 2][0], k % 2 ? -0.0 : 0.0);
                put_float(buf, (enum la_dtype)dt, at[k / 2][1], k % 2 ? 0.0 : -0.0);
                struct la_stats sc, sg;
                la_stats_init(&sc, 1, 10, 0, 1);
                la_stats_init(&sg, 1, 10, 0, 1);
                struct la_chunk c = { (enum la_dtype)dt, buf, sign < 0 ? 20000 : n, 0, NULL };
                la_scan_chunk_cpu_ref(&c, &setups[2].rule, &sc);
                int rc = scan_backend(b, &c, &setups[2].rule, &sg);
                tap(rc == 0 && digest(&sc) == digest(&sg),
                    "%s: %s, signed zeros, case %d/%d: the first zero is min/max", label,
                    la_dtype_info((enum la_dtype)dt)->name, sign, k);
                la_stats_free(&sc);
                la_stats_free(&sg);
            }
        free(buf);
    }

    // Many bad entries: read back in pieces, in index order, without overflowing
    // a buffer sized to the window; then, with the buffer cut to 2^20 entries,
    // a chunk with more: the threaded CPU scan takes it, exact all the same.
    struct gpu *g = (struct gpu *)b->state;
    size_t n = (size_t)3 << 20;
    int8_t *q = (int8_t *)malloc(n);
    for (size_t i = 0; i < n; i++)
        q[i] = (int8_t)(i % 2 ? -1 : (int)(i % 10));
    for (int cut = 0; cut <= 1; cut++) {
        if (cut) { // the next chunk gets a buffer of bad_limit entries
            cudaFree(g->dev_bad);
            g->dev_bad = NULL;
            g->bad_len = 0;
            g->bad_limit = (size_t)1 << 20;
        }
        unsigned long long overflows = g->overflows, pieces = g->pieces;
        struct la_stats sc, sg;
        la_stats_init(&sc, 1, 100, 10, 10);
        la_stats_init(&sg, 1, 100, 10, 10);
        struct la_chunk c = { LA_DT_INT8, q, n, 0, NULL };
        la_scan_chunk_cpu_ref(&c, &setups[0].rule, &sc);
        int rc = scan_backend(b, &c, &setups[0].rule, &sg);
        int exact = rc == 0 && digest(&sc) == digest(&sg) && sc.bad_total > ((size_t)1 << 20);
        if (!cut)
            tap(exact && g->overflows == overflows && g->pieces - pieces > 1,
                "%s: %llu bad entries in one chunk: read back in %llu pieces, none overflowed, "
                "exact", label, (unsigned long long)sc.bad_total, g->pieces - pieces);
        else
            tap(exact && g->overflows == overflows + 1,
                "%s: more bad entries than a buffer of 2^20: the threaded CPU scan, exact", label);
        la_stats_free(&sc);
        la_stats_free(&sg);
    }
    cudaFree(g->dev_bad);
    g->dev_bad = NULL;
    g->bad_len = 0;
    g->bad_limit = BAD_CAP;
    free(q);
    printf("# %s check: %d of %d runs identical to the CPU reference\n", label,
           tap_runs - tap_failures, tap_runs);
    return tap_failures;
}

#endif
