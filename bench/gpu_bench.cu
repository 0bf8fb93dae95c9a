/* gpu_bench.cu - check the CUDA scan against the CPU reference, then time it.
 *
 * llm.c style: the CPU reference (scan_cpu.c) validates the kernel before any
 * timing. This file includes src/scan_cuda.cu, so it reaches the kernels and
 * launchers directly.
 *
 *   gpu_bench --host-check   no GPU needed: runs the kernel's per-element fold
 *                            (fold_one, __host__ __device__) serially on the host,
 *                            in a scrambled order like a grid-stride loop, through
 *                            the backend's own host assembly (apply_chunk), and
 *                            compares the stats with la_scan_chunk_cpu_ref.
 *   gpu_bench --copy         no GPU needed: GB/s of the host-side staging copy
 *                            (stage(), out of a mapped file) on 1 to 8 threads.
 *   gpu_bench                on a GPU: the same check on the device, then
 *                            PCIe host->device and HBM device->device bandwidth
 *                            (cudaMemcpy), the kernel alone on device-resident
 *                            data (events), end to end through scan() from host
 *                            chunks, and the CPU/GPU crossover for --backend=auto.
 *
 * Build (tests/gpu-check.sh does this):
 *   gcc -std=c11 -O2 -D_GNU_SOURCE -Isrc -c src/stats.c src/scan_cpu.c src/pool.c \
 *       src/util.c src/dtype.c
 *   nvcc -O3 -std=c++17 -arch=native -D_GNU_SOURCE -Isrc bench/gpu_bench.cu \
 *        stats.o scan_cpu.o pool.o util.o dtype.o -lpthread -o gpu_bench
 * (make check builds it too, as bench/gpu_bench, when CUDA is configured.)
 */
#include "scan_cuda.cu" // the backend itself: kernels, launchers, apply_chunk

#include <stdarg.h> // va_list
#include <sys/mman.h> // mmap: the copy benchmark maps a file as the tool does
#include <time.h>   // clock_gettime
#include <unistd.h> // sysconf

// ---- CPU code reference ------------------------------------------------------------

// la_scan_chunk_cpu_ref() and la_scan_cpu_open() come from scan_cpu.c.

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

// ---- host emulation of the kernel ------------------------------------------------------

/* One sub-chunk, folded by THREADS emulated threads of one block that each
 * take every THREADS-th element (as the grid-stride loop does), so bad entries
 * land out of order. The rest is the kernel's own code: the shared-bin clear
 * and flush, the fold's packing and reduction identities and operators, and
 * the block's fold into the accumulator; only the warp shuffles and the
 * atomics (plain adds on the host) are not exercised. */
#define THREADS 7
template <typename S, int K>
static void host_fold_typed(const struct scan_args *a)
{
    static unsigned sh_hist_mem[SHARED_HIST_MAX];
    unsigned sh_out[2 * LA_OUTLIER_BINS];
    unsigned *sh_hist = hist_in_shared(a) ? sh_hist_mem : NULL;
    clear_shared_bins(a, sh_hist, sh_out, 0, 1);
    const S *v = (const S *)a->values;
    unsigned long long block[NRED];
    for (int k = 0; k < NRED; k++)
        block[k] = reduce_identity(k);
    for (size_t t = THREADS; t-- > 0;) {
        struct fold f;
        fold_init(&f);
        for (size_t i = t; i < a->n; i += THREADS) {
            bool bad = false;
            int verdict = fold_one<S, K>(a, &f, sh_hist, sh_out, v[i], a->offset + i, &bad);
            count_verdict(&f, verdict);
            if (bad && a->acc->bad_count++ < BAD_CAP)
                a->bad[a->acc->bad_count - 1] = bad_entry(a->offset + i, verdict);
        }
        unsigned long long x[NRED];
        fold_pack(&f, x);
        for (int k = 0; k < NRED; k++)
            block[k] = reduce_pair(k, block[k], x[k]);
    }
    acc_add_block(a->acc, block);
    flush_shared_bins(a, sh_hist, sh_out, 0, 1);
}

static void host_fold(enum la_dtype dt, const struct scan_args *a)
{
    switch (dt) {
    case LA_DT_BOOL:    host_fold_typed<uint8_t, EK_INT>(a); break;
    case LA_DT_INT8:    host_fold_typed<int8_t, EK_INT>(a); break;
    case LA_DT_UINT8:   host_fold_typed<uint8_t, EK_INT>(a); break;
    case LA_DT_INT16:   host_fold_typed<int16_t, EK_INT>(a); break;
    case LA_DT_UINT16:  host_fold_typed<uint16_t, EK_INT>(a); break;
    case LA_DT_INT32:   host_fold_typed<int32_t, EK_INT>(a); break;
    case LA_DT_UINT32:  host_fold_typed<uint32_t, EK_INT>(a); break;
    case LA_DT_INT64:   host_fold_typed<int64_t, EK_INT>(a); break;
    case LA_DT_UINT64:  host_fold_typed<uint64_t, EK_U64>(a); break;
    case LA_DT_FLOAT16: host_fold_typed<uint16_t, EK_HALF>(a); break;
    case LA_DT_FLOAT32: host_fold_typed<float, EK_FLOAT>(a); break;
    case LA_DT_FLOAT64: host_fold_typed<double, EK_FLOAT>(a); break;
    default: break;
    }
}

/* gpu_scan() with the device replaced by host_fold: same sub-chunks, same
 * staging copy (on 3 threads), same accumulator, same overflow rule, same
 * apply_chunk(). */
static void host_scan(const struct la_chunk *c, const struct la_rule *r, struct la_stats *s)
{
    static unsigned long long *bad;
    static char *staging;          // stands in for pinned memory
    static struct la_pool *copiers;
    if (!bad) {
        bad = (unsigned long long *)malloc(BAD_CAP * sizeof *bad);
        staging = (char *)malloc(SUB_BYTES);
        copiers = la_pool_open(3);
    }
    if (c->count == 0) {
        la_scan_chunk_cpu_ref(c, r, s);
        return;
    }
    struct acc h;
    acc_reset(&h);
    uint64_t hist_len = s->hist ? s->hist_len : 0;
    unsigned long long *hist =
        (unsigned long long *)calloc(hist_len ? hist_len : 1, sizeof *hist);
    struct gpu g;
    memset(&g, 0, sizeof g);
    g.copiers = copiers;
    g.host_acc = &h;
    g.host_hist = hist;
    g.host_bad = bad;
    struct scan_args a;
    memset(&a, 0, sizeof a);
    a.rule = *r;
    a.hist_len = hist_len;
    a.above_base = s->above_base;
    a.acc = &h;
    a.hist = hist;
    a.bad = bad;
    size_t elem = la_dtype_info(c->dtype)->size, per_sub = SUB_BYTES / elem;
    for (size_t lo = 0; lo < c->count; lo += per_sub) {
        a.n = c->count - lo < per_sub ? c->count - lo : per_sub;
        // through the backend's own staging copy; poisoned first, so a byte it
        // missed changes the stats
        memset(staging, 0xa5, SUB_BYTES);
        stage(&g, staging, (const char *)c->values + lo * elem, a.n * elem);
        a.values = staging;
        a.offset = lo;
        host_fold(c->dtype, &a);
    }
    if (h.bad_count > BAD_CAP)
        la_scan_chunk_cpu_ref(c, r, s);
    else
        apply_chunk(&g, c, r, s, h.hist_hi < hist_len ? h.hist_hi : hist_len);
    free(hist);
}

// ---- checks ------------------------------------------------------------------------

#include "../tests/unit/scan_setups.h" /* struct setup, setups[]: the test's cases */

typedef int (*scan_fn)(struct la_scan_backend *b, const struct la_chunk *c,
                       const struct la_rule *r, struct la_stats *s);

static int scan_host(struct la_scan_backend *b, const struct la_chunk *c,
                     const struct la_rule *r, struct la_stats *s)
{
    (void)b;
    host_scan(c, r, s);
    return 0;
}

static int scan_backend(struct la_scan_backend *b, const struct la_chunk *c,
                        const struct la_rule *r, struct la_stats *s)
{
    char err[256];
    if (b->ops->scan(b, c, r, s, err, sizeof err) != 0) {
        fprintf(stderr, "gpu_bench: scan: %s\n", err);
        return -1;
    }
    return 0;
}

/* One TAP line per comparison, so `make check` (tests/cuda-host.sh) counts
 * each and names the one that differs. */
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
static int check_all(scan_fn fn, struct la_scan_backend *b, const char *label)
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
                rc = fn(b, &c, &st->rule, &sg);
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
                int rc = fn(b, &c, &setups[2].rule, &sg);
                tap(rc == 0 && digest(&sc) == digest(&sg),
                    "%s: %s, signed zeros, case %d/%d: the first zero is min/max", label,
                    la_dtype_info((enum la_dtype)dt)->name, sign, k);
                la_stats_free(&sc);
                la_stats_free(&sg);
            }
        free(buf);
    }

    // more bad entries than the device keeps: the CPU rescan path
    size_t n = (size_t)3 << 20;
    int8_t *q = (int8_t *)malloc(n);
    for (size_t i = 0; i < n; i++)
        q[i] = (int8_t)(i % 2 ? -1 : (int)(i % 10));
    struct la_stats sc, sg;
    la_stats_init(&sc, 1, 100, 10, 10);
    la_stats_init(&sg, 1, 100, 10, 10);
    struct la_chunk c = { LA_DT_INT8, q, n, 0, NULL };
    la_scan_chunk_cpu_ref(&c, &setups[0].rule, &sc);
    int rc = fn(b, &c, &setups[0].rule, &sg);
    tap(rc == 0 && digest(&sc) == digest(&sg) && sc.bad_total > BAD_CAP,
        "%s: more bad entries than BAD_CAP: exact after the CPU rescan", label);
    la_stats_free(&sc);
    la_stats_free(&sg);
    free(q);
    printf("# %s check: %d of %d runs identical to the CPU reference\n", label,
           tap_runs - tap_failures, tap_runs);
    return tap_failures;
}

// ---- timing ------------------------------------------------------------------------

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "gpu_bench: %s: %s\n", #call, cudaGetErrorString(e_));     \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

/* Fold all of buf (bytes of int64 labels) through backend b in reader-sized chunks. */
static double time_backend(struct la_scan_backend *b, const int64_t *buf, size_t bytes,
                           size_t chunk_bytes)
{
    struct la_stats s;
    char err[256];
    la_stats_init(&s, 1, 1000, 1000, 1000);
    struct la_rule r = { 0, 1, -100, 1, 1000 };
    double t0 = now_s();
    for (size_t at = 0; at < bytes / 8; at += chunk_bytes / 8) {
        size_t n = bytes / 8 - at < chunk_bytes / 8 ? bytes / 8 - at : chunk_bytes / 8;
        struct la_chunk c = { LA_DT_INT64, buf + at, n, at, NULL };
        if (b->ops->scan(b, &c, &r, &s, err, sizeof err) != 0) {
            fprintf(stderr, "gpu_bench: %s\n", err);
            break;
        }
    }
    double t = now_s() - t0;
    la_stats_free(&s);
    return t;
}

static int bench(double startup_s)
{
    cudaDeviceProp p;
    int dev = 0, drv = 0, rtv = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    CHECK(cudaDriverGetVersion(&drv));
    CHECK(cudaRuntimeGetVersion(&rtv));
    printf("device: %s, %d SMs, cc %d.%d, driver %d, runtime %d\n", p.name,
           p.multiProcessorCount, p.major, p.minor, drv, rtv);
    printf("CUDA start-up (probe + open, first in process): %.1f ms\n", startup_s * 1e3);

    const size_t big = (size_t)1 << 30; // 1 GiB
    void *h_pin, *d_a, *d_b;
    cudaEvent_t e0, e1;
    float ms;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaHostAlloc(&h_pin, (size_t)256 << 20, cudaHostAllocDefault));
    CHECK(cudaMalloc(&d_a, big));
    CHECK(cudaMalloc(&d_b, big));
    memset(h_pin, 1, (size_t)256 << 20);

    // PCIe: pinned host -> device, 256 MiB x 4
    CHECK(cudaMemcpy(d_a, h_pin, (size_t)256 << 20, cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(e0));
    for (int i = 0; i < 4; i++)
        CHECK(cudaMemcpy(d_a, h_pin, (size_t)256 << 20, cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    double pcie = 4.0 * (256 << 20) / (ms * 1e-3) / 1e9;
    printf("PCIe host->device (pinned): %.1f GB/s\n", pcie);

    // HBM: device -> device, 1 GiB x 4; a copy reads and writes every byte
    CHECK(cudaMemcpy(d_b, d_a, big, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(e0));
    for (int i = 0; i < 4; i++)
        CHECK(cudaMemcpy(d_b, d_a, big, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    double hbm = 2.0 * 4.0 * (double)big / (ms * 1e-3) / 1e9;
    printf("HBM device->device copy: %.0f GB/s (read + write)\n", hbm);

    // Kernel alone, device-resident 256 MiB (milliseconds at HBM speed), per dtype
    // and histogram kind
    const size_t kbytes = (size_t)256 << 20;
    int64_t *host = (int64_t *)malloc(big);
    struct acc *d_acc, h_acc;
    unsigned long long *d_hist, *d_bad;
    CHECK(cudaMalloc((void **)&d_acc, sizeof *d_acc));
    CHECK(cudaMalloc((void **)&d_hist, LA_HIST_MAX * sizeof *d_hist));
    CHECK(cudaMalloc((void **)&d_bad, BAD_CAP * sizeof *d_bad));
    const enum la_dtype kdt[] = { LA_DT_INT8, LA_DT_INT32, LA_DT_INT64, LA_DT_FLOAT16,
                                  LA_DT_FLOAT32, LA_DT_FLOAT64 };
    for (size_t k = 0; k < sizeof kdt / sizeof *kdt; k++) {
        size_t elem = la_dtype_info(kdt[k])->size, n = kbytes / elem;
        rng_state = 7;
        fill(host, kdt[k], n, 1000, 1);
        CHECK(cudaMemcpy(d_a, host, kbytes, cudaMemcpyHostToDevice));
        for (int hk = 0; hk < 2; hk++) {
            uint64_t hl = hk ? 100000 : 1000; // shared-memory vs global histogram
            struct scan_args a;
            memset(&a, 0, sizeof a);
            a.values = d_a;
            a.n = n;
            a.rule = (struct la_rule){ 0, 1, -100, 1, (int64_t)hl };
            a.hist_len = hl;
            a.above_base = (int64_t)hl;
            a.acc = d_acc;
            a.hist = d_hist;
            a.bad = d_bad;
            float best = 1e30f;
            for (int rep = 0; rep < 3; rep++) {
                acc_reset(&h_acc);
                CHECK(cudaMemcpy(d_acc, &h_acc, sizeof h_acc, cudaMemcpyHostToDevice));
                CHECK(cudaEventRecord(e0));
                CHECK(launch_scan(kdt[k], &a, p.multiProcessorCount * 4, 0));
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                best = ms < best ? ms : best;
            }
            double gbs = (double)kbytes / (best * 1e-3) / 1e9;
            printf("kernel alone %-7s hist %6llu bins (%s): %6.0f GB/s = %3.0f%% of HBM "
                   "copy, %.2f Gelem/s\n", la_dtype_info(kdt[k])->name,
                   (unsigned long long)hl, hl <= SHARED_HIST_MAX ? "shared" : "global", gbs,
                   100.0 * gbs / hbm, (double)n / (best * 1e-3) / 1e9);
        }
    }
    cudaFree(d_acc);
    cudaFree(d_hist);
    cudaFree(d_bad);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFreeHost(h_pin);

    // End to end and the crossover: int64 labels in 16 MiB reader chunks
    rng_state = 8;
    fill(host, LA_DT_INT64, big / 8, 1000, 1);
    struct la_scan_backend gb, cb;
    char err[256];
    if (la_scan_gpu_open(&gb, (int)sysconf(_SC_NPROCESSORS_ONLN), err, sizeof err) != 0) {
        fprintf(stderr, "gpu_bench: %s\n", err);
        return 1;
    }
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    la_scan_cpu_open(&cb, cpus);
    // the windows the audit hands each backend (src/audit.c RUN_WINDOW for the CPU)
    const size_t gpu_chunk = gb.window_bytes, cpu_chunk = (size_t)8 << 20;
    double t_gpu = time_backend(&gb, host, big, gpu_chunk);
    printf("end to end (host chunks of %zu MiB, pipelined): %.1f GB/s = %.0f%% of PCIe\n",
           gpu_chunk >> 20, (double)big / t_gpu / 1e9, 100.0 * big / t_gpu / 1e9 / pcie);
    printf("\n%10s %12s %12s %12s\n", "input", "cpu -j", "gpu", "gpu+startup");
    size_t cross = 0, cross_warm = 0;
    for (size_t sz = (size_t)1 << 20; sz <= big; sz <<= 2) {
        double tc = 1e30, tg = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double x = time_backend(&cb, host, sz, sz < cpu_chunk ? sz : cpu_chunk);
            double y = time_backend(&gb, host, sz, sz < gpu_chunk ? sz : gpu_chunk);
            tc = x < tc ? x : tc;
            tg = y < tg ? y : tg;
        }
        printf("%7zu MiB %9.2f ms %9.2f ms %9.2f ms\n", sz >> 20, tc * 1e3, tg * 1e3,
               (tg + startup_s) * 1e3);
        if (!cross_warm && tg < tc)
            cross_warm = sz;
        if (!cross && tg + startup_s < tc)
            cross = sz;
    }
    printf("\ncpu threads: %d\n", cpus);
    printf("crossover, GPU already initialised: %s%zu MiB\n", cross_warm ? "" : "> ",
           (cross_warm ? cross_warm : big) >> 20);
    printf("crossover, counting CUDA start-up (what --backend=auto pays): %s%zu MiB "
           "(LA_GPU_MIN_BYTES is %llu MiB)\n", cross ? "" : "> ", (cross ? cross : big) >> 20,
           (unsigned long long)LA_GPU_MIN_BYTES >> 20);
    la_scan_close(&gb);
    la_scan_close(&cb);
    free(host);
    return 0;
}

/* The host half of the pipeline alone, no GPU needed: stage() from a freshly
 * mapped file in the page cache (its page faults included, as in the tool)
 * into a staging buffer, in sub-chunks, with 1, 2, 4 and 8 copy threads. */
static int copy_bench(void)
{
    const size_t bytes = (size_t)512 << 20;
    char path[] = "/tmp/gpu_bench-copy-XXXXXX";
    int fd = mkstemp(path);
    char *block = (char *)malloc(SUB_BYTES), *staging[2];
    staging[0] = (char *)malloc(SUB_BYTES);
    staging[1] = (char *)malloc(SUB_BYTES);
    if (fd < 0 || !block || !staging[0] || !staging[1])
        return 1;
    memset(block, 7, SUB_BYTES);
    memset(staging[0], 0, SUB_BYTES);
    memset(staging[1], 0, SUB_BYTES);
    for (size_t at = 0; at < bytes; at += SUB_BYTES)
        if (write(fd, block, SUB_BYTES) != (ssize_t)SUB_BYTES)
            return 1;
    printf("staging copy of a mapped %zu MiB file in %zu MiB sub-chunks:\n", bytes >> 20,
           SUB_BYTES >> 20);
    for (int threads = 1; threads <= COPY_THREADS_MAX; threads *= 2) {
        struct gpu g;
        memset(&g, 0, sizeof g);
        g.copiers = la_pool_open(threads);
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            void *map = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map == MAP_FAILED)
                return 1;
            double t0 = now_s();
            for (size_t at = 0, k = 0; at < bytes; at += SUB_BYTES, k++)
                stage(&g, staging[k % 2], (const char *)map + at, SUB_BYTES);
            double t = now_s() - t0;
            best = t < best ? t : best;
            munmap(map, bytes);
        }
        printf("  %d thread%s: %5.1f GB/s\n", threads, threads > 1 ? "s" : " ",
               (double)bytes / best / 1e9);
        la_pool_close(g.copiers);
    }
    close(fd);
    unlink(path);
    free(block);
    free(staging[0]);
    free(staging[1]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--copy") == 0)
        return copy_bench();
    if (argc > 1 && strcmp(argv[1], "--host-check") == 0) {
        int failures = check_all(scan_host, NULL, "host emulation");
        printf("1..%d\n", tap_runs);
        return failures ? 1 : 0;
    }
    char why[256];
    double t0 = now_s();
    struct la_scan_backend g;
    if (!la_gpu_probe(why, sizeof why)) {
        printf("no GPU: %s\n", why);
        return 77;
    }
    if (la_scan_gpu_open(&g, (int)sysconf(_SC_NPROCESSORS_ONLN), why, sizeof why) != 0) {
        printf("gpu open: %s\n", why);
        return 1;
    }
    double startup = now_s() - t0;
    int fails = check_all(scan_backend, &g, "gpu");
    la_scan_close(&g);
    if (fails)
        return 1;
    return bench(startup);
}
