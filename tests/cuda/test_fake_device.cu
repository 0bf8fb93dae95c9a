/* test_fake_device.cu - the CUDA backend's own host code, on the CPU. No GPU needed.
 *
 * TAP. This program includes src/scan_cuda.cu and links fake_cudart.c instead
 * of the CUDA runtime, so la_scan_gpu_open(), gpu_scan() and gpu_close() run
 * for real: the staging copy on the pool, sub-chunks over two "streams", the
 * device histogram and its clearing, the BAD_CAP overflow rescan, the read-back
 * and apply_chunk(). A kernel launch runs an emulation of the kernel built from
 * its own __host__ __device__ pieces (fold_one, the block reduction, the
 * shared-bin flush); only the warp shuffles, the ballot and the atomics are
 * not the device's.
 *
 * Then every CUDA call the backend makes is failed in turn: the error must
 * name the call and the runtime's message, leave the stats as they were,
 * leak nothing, and leave the backend able to scan on. And --backend choice
 * with a "device" present: auto takes it for large inputs only, and the audit
 * of real files on it gives the CPU's reports. */
#include "scan_cuda.cu" // the backend: kernels, launchers, gpu_scan, apply_chunk

extern "C" {
#include "plan.h"        // la_audit_files
#include "options.h"     // la_options_parse
}
#include "fake_cudart.h" // fake_cuda_*

#include <getopt.h> // optind
#include <unistd.h> // unlink
#include <stdarg.h> // va_list

#include "checks.h" // fill, digest, tap, check_all

// ---- the kernels, emulated on the host ------------------------------------------------

/* Pass 1: every block of the grid, last block first, each folded by THREADS
 * emulated threads that take every THREADS-th element of the block's range.
 * The rest is the kernel's own code: the block ranges, the shared-bin clear
 * and flush, the fold's packing and reduction identities and operators, and
 * the block's fold into the accumulator with its count of bad entries; only
 * the warp shuffles and the atomics (plain adds on the host) are not exercised. */
#define THREADS 7
template <typename S, int K>
static void host_scan(const struct scan_args *a)
{
    static unsigned sh_hist_mem[SHARED_HIST_MAX];
    unsigned sh_out[2 * LA_OUTLIER_BINS];
    unsigned *sh_hist = hist_in_shared(a) ? sh_hist_mem : NULL;
    const S *v = (const S *)a->values;
    for (unsigned b = a->blocks; b-- > 0;) {
        size_t lo, hi;
        block_range(a, b, &lo, &hi);
        clear_shared_bins(a, sh_hist, sh_out, 0, 1);
        unsigned long long block[NRED];
        for (int k = 0; k < NRED; k++)
            block[k] = reduce_identity(k);
        for (size_t t = THREADS; t-- > 0;) {
            struct fold f;
            fold_init(&f);
            for (size_t i = lo + t; i < hi; i += THREADS) {
                bool bad = false;
                int verdict = fold_one<S, K>(a, &f, sh_hist, sh_out, v[i], a->offset + i, &bad);
                count_verdict(&f, verdict);
                f.bad += bad;
            }
            unsigned long long x[NRED];
            fold_pack(&f, x);
            for (int k = 0; k < NRED; k++)
                block[k] = reduce_pair(k, block[k], x[k]);
        }
        acc_add_block(a, b, block);
        flush_shared_bins(a, sh_hist, sh_out, 0, 1);
    }
}

/* Pass 2: what compact_kernel computes, block by block in reverse: each
 * block's entries in order from after those of the blocks before it. (The
 * ballot and prefix sum inside a tile are the device's; gpu-check.sh runs them.) */
template <typename S, int K>
static void host_compact(const struct scan_args *a)
{
    if (*a->sub_bad == 0)
        return;
    const S *v = (const S *)a->values;
    for (unsigned b = a->blocks; b-- > 0;) {
        unsigned long long pos = a->offset;
        for (unsigned j = 0; j < b; j++)
            pos += a->block_bad[j];
        size_t lo, hi;
        block_range(a, b, &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            int verdict = verdict_of<S, K>(v[i], &a->rule);
            if (is_bad(verdict) && pos++ < a->bad_len)
                a->bad[pos - 1] = la_bad_pack(a->offset + i, verdict);
        }
    }
}

/* Run the launch of kernel (a host address) if it is one of <S, K>'s. */
template <typename S, int K>
static bool run_if(const void *kernel, void **args)
{
    const struct scan_args *a = (const struct scan_args *)args[0];
    if (kernel == (const void *)scan_kernel<S, K>)
        host_scan<S, K>(a);
    else if (kernel == (const void *)compact_kernel<S, K>)
        host_compact<S, K>(a);
    else
        return false;
    return true;
}

static int unknown_launches;

static void launch_on_host(const void *kernel, void **args)
{
    if (!(run_if<uint8_t, EK_INT>(kernel, args) || run_if<int8_t, EK_INT>(kernel, args) ||
          run_if<int16_t, EK_INT>(kernel, args) || run_if<uint16_t, EK_INT>(kernel, args) ||
          run_if<int32_t, EK_INT>(kernel, args) || run_if<uint32_t, EK_INT>(kernel, args) ||
          run_if<int64_t, EK_INT>(kernel, args) || run_if<uint64_t, EK_U64>(kernel, args) ||
          run_if<uint16_t, EK_HALF>(kernel, args) || run_if<float, EK_FLOAT>(kernel, args) ||
          run_if<double, EK_FLOAT>(kernel, args)))
        unknown_launches++;
}

// ---- every CUDA call, failing --------------------------------------------------------

#define FAULT_CHUNKS 3

/* int32 labels under -n 10, bad ones scattered, in chunks of 2.5 sub-chunks. */
struct fault_input {
    int32_t *values;
    size_t per_chunk;
    struct la_rule rule;
    uint64_t want;      // digest of the CPU reference over all chunks
};

static void fault_stats(struct la_stats *s)
{
    la_stats_init(s, 1, 1000, 10, 10);
}

static struct la_chunk fault_chunk(const struct fault_input *in, int k)
{
    struct la_chunk c = { LA_DT_INT32, in->values + (size_t)k * in->per_chunk, in->per_chunk,
                          (uint64_t)k * in->per_chunk, NULL };
    return c;
}

enum fault_place { IN_OPEN, IN_SCAN, IN_CLOSE };
/* Bad entries read back per copy in the fault test: several pieces a chunk, so
 * that a copy after the first fails too (the host finishes such a chunk). */
#define FAULT_PIECE 16384

/* What one failure left wrong, or NULL when it was handled as it must be.
 * *place says where the failing call was; err holds the error reported. */
static const char *one_fault(const struct fault_input *in, long at, char *err, size_t errlen,
                             enum fault_place *place, unsigned long long *finished)
{
    *finished = 0;
    struct la_scan_backend g;
    fake_cuda_calls = 0;
    fake_cuda_fail_at = at;
    fake_cuda_failed = NULL;
    *place = IN_OPEN;
    err[0] = '\0';
    if (la_scan_gpu_open(&g, 2, err, errlen) != 0)
        return fake_cuda_live != 0 ? "a failed open leaked" : NULL;
    *place = IN_SCAN;
    struct gpu *gs = (struct gpu *)g.state;
    gs->piece = FAULT_PIECE;
    struct la_stats s;
    fault_stats(&s);
    const char *wrong = NULL;
    for (int k = 0; k < FAULT_CHUNKS && !wrong; k++) {
        struct la_chunk c = fault_chunk(in, k);
        uint64_t before = digest(&s);
        char e[256];
        if (g.ops->scan(&g, &c, &in->rule, &s, e, sizeof e) == 0)
            continue;   // the failure, if any, was in a later piece: see host_finishes
        snprintf(err, errlen, "%s", e);
        if (digest(&s) != before)
            wrong = "a failed scan changed the stats";
        else if (g.ops->scan(&g, &c, &in->rule, &s, e, sizeof e) != 0)
            wrong = "the scan after a failure failed too";
    }
    if (!wrong && digest(&s) != in->want)
        wrong = "after a failure and a retry, the stats are not the CPU's";
    if (!wrong && fake_cuda_failed && !err[0] && gs->host_finishes != 1)
        wrong = "a failure went unreported and the host did not finish the chunk";
    *finished = gs->host_finishes;
    la_stats_free(&s);
    if (at > fake_cuda_calls)
        *place = IN_CLOSE;  // cleanup goes on through errors: nothing to report
    la_scan_close(&g);
    if (!wrong && fake_cuda_live != 0)
        wrong = "close after a failure leaked";
    return wrong;
}

static void test_faults(void)
{
    struct fault_input in;
    in.per_chunk = SUB_BYTES / 4 * 5 / 2;
    in.values = (int32_t *)malloc(FAULT_CHUNKS * in.per_chunk * sizeof *in.values);
    rng_state = 4242;
    fill(in.values, LA_DT_INT32, FAULT_CHUNKS * in.per_chunk, 10, 20);
    in.rule = (struct la_rule){ 0, 1, -100, 1, 10 };
    struct la_stats ref;
    fault_stats(&ref);
    for (int k = 0; k < FAULT_CHUNKS; k++) {
        struct la_chunk c = fault_chunk(&in, k);
        la_scan_chunk_cpu_ref(&c, &in.rule, &ref);
    }
    in.want = digest(&ref);
    la_stats_free(&ref);

    char err[256];
    enum fault_place place;
    unsigned long long finished;
    const char *wrong = one_fault(&in, 0, err, sizeof err, &place, &finished);
    long total = fake_cuda_calls;
    tap(!wrong && !err[0], "fake device: %ld CUDA calls to open, scan %d chunks and close",
        total, FAULT_CHUNKS);

    long named = 0, handled = 0, on_host = 0, where[3] = { 0, 0, 0 };
    for (long at = 1; at <= total; at++) {
        wrong = one_fault(&in, at, err, sizeof err, &place, &finished);
        where[place]++;
        handled += !wrong;
        on_host += finished != 0;
        // CU_TRY names the call as written: the launch is wrapped in launch_scan();
        // close reports nothing, nor does a read-back the host finished
        char want[128] = "";
        if (place != IN_CLOSE && !finished)
            snprintf(want, sizeof want, "%s: " FAKE_CUDA_MESSAGE,
                     fake_cuda_failed && strcmp(fake_cuda_failed, "kernel launch") == 0
                         ? "launch_scan" : fake_cuda_failed ? fake_cuda_failed : "?");
        named += strcmp(err, want) == 0;
        if (wrong || strcmp(err, want) != 0)
            printf("# failing call %ld (%s): %s; error \"%s\"\n", at,
                   fake_cuda_failed ? fake_cuda_failed : "none", wrong ? wrong : "ok", err);
    }
    fake_cuda_fail_at = 0;
    tap(total > 20 && where[IN_OPEN] > 5 && where[IN_SCAN] > 20 && named == total,
        "each of the %ld calls, failing, gives \"call: message\" (%ld in open, %ld in scan; "
        "%ld in close, which goes on)", total, where[IN_OPEN], where[IN_SCAN], where[IN_CLOSE]);
    tap(handled == total,
        "each failure leaves the stats as they were, leaks nothing, and the backend scans on "
        "(%ld of %ld)", handled, total);
    tap(on_host > 0, "%s: %ld failures in the read-back of a later piece, finished on the host",
        fake_cuda_deferred ? "late work" : "work at once", on_host);
    free(in.values);
}

// ---- a sticky error: the context is lost ----------------------------------------------

/* After a kernel fault every CUDA call fails, cudaFree included: close must
 * still release everything (by resetting the device), and a new open work. */
static void test_sticky(void)
{
    size_t n = SUB_BYTES / 4 * 3;
    int32_t *v = (int32_t *)malloc(n * sizeof *v);
    rng_state = 77;
    fill(v, LA_DT_INT32, n, 10, 20);
    struct la_rule rule = { 0, 1, -100, 1, 10 };
    struct la_chunk c = { LA_DT_INT32, v, n, 0, NULL };
    struct la_scan_backend g;
    char err[256];
    long resets = fake_cuda_resets;
    int opened = la_scan_gpu_open(&g, 2, err, sizeof err) == 0;
    fake_cuda_sticky = 1;
    fake_cuda_calls = 0;
    fake_cuda_fail_at = 12; // in the middle of the first scan
    struct la_stats s;
    la_stats_init(&s, 1, 100, 10, 10);
    int first = opened ? g.ops->scan(&g, &c, &rule, &s, err, sizeof err) : 0;
    int second = opened ? g.ops->scan(&g, &c, &rule, &s, err, sizeof err) : 0;
    if (opened)
        la_scan_close(&g);
    tap(opened && first == -1 && second == -1 && fake_cuda_live == 0 &&
            fake_cuda_resets == resets + 1,
        "a sticky error: scans fail, and close resets the device, so nothing stays allocated "
        "(%ld left), pinned buffers included", fake_cuda_live);
    fake_cuda_sticky = 0;
    fake_cuda_fail_at = 0;
    int again = la_scan_gpu_open(&g, 2, err, sizeof err) == 0;
    la_stats_free(&s);
    la_stats_init(&s, 1, 100, 10, 10);
    struct la_stats want;
    la_stats_init(&want, 1, 100, 10, 10);
    la_scan_chunk_cpu_ref(&c, &rule, &want);
    tap(again && g.ops->scan(&g, &c, &rule, &s, err, sizeof err) == 0 &&
            digest(&s) == digest(&want),
        "after the reset the backend opens and scans again");
    if (again)
        la_scan_close(&g);
    la_stats_free(&s);
    la_stats_free(&want);
    free(v);
}

// ---- choosing the backend, and whole audits on the fake device ------------------------

static void test_choice(void)
{
    char why[256], err[256];
    fake_cuda_calls = 0;
    tap(la_gpu_probe(why, sizeof why) == 1, "probe: the fake device is found");
    for (const char *name : { "cudaGetDeviceCount", "cudaFuncGetAttributes" }) {
        long at;
        for (at = 1; at < 10; at++) { // find the call's number
            fake_cuda_calls = 0;
            fake_cuda_fail_at = at;
            fake_cuda_failed = NULL;
            int found = la_gpu_probe(why, sizeof why);
            if (fake_cuda_failed && strcmp(fake_cuda_failed, name) == 0) {
                tap(!found && strcmp(why, FAKE_CUDA_MESSAGE) == 0,
                    "probe: a failing %s means no device, with the runtime's reason", name);
                break;
            }
        }
        if (at == 10)
            tap(0, "probe: %s is called", name);
    }
    fake_cuda_fail_at = 0;

    struct la_scan_backend b;
    const int64_t gib = (int64_t)LA_GPU_MIN_BYTES;
    struct la_auto_hint ints = { gib, 0, 0, 0 }, less = { gib - 1, 0, 0, 0 };
    struct la_auto_hint text = { 0, 0, 8 * gib, 0 }, pipe = { gib, 0, 0, 1 };
    struct la_auto_hint floats = { gib, gib, 0, 0 };
    struct {
        const struct la_auto_hint *hint;
        int choice, threads;
        const char *want, *what;
    } cases[] = {
        { &ints, LA_BACKEND_AUTO, 2, "gpu", "auto, 1 GiB of int labels in place, -j2: the GPU" },
        { &less, LA_BACKEND_AUTO, 2, "cpu", "auto, 1 byte less: the CPU" },
        { &ints, LA_BACKEND_AUTO, LA_GPU_INT_THREADS, "cpu",
          "auto, 1 GiB of int labels, as many threads as fill the memory bus: the CPU" },
        { &floats, LA_BACKEND_AUTO, LA_GPU_INT_THREADS, "gpu",
          "auto, 1 GiB of float labels with as many threads: the GPU" },
        { &text, LA_BACKEND_AUTO, 2, "cpu", "auto, 8 GiB of csv or compressed input: the CPU" },
        { &pipe, LA_BACKEND_AUTO, 2, "cpu", "auto, an input that is a pipe: the CPU" },
        { NULL, LA_BACKEND_AUTO, 2, "cpu", "auto, no hint: the CPU" },
        { &less, LA_BACKEND_GPU, 2, "gpu", "--backend=gpu, a small input: the GPU" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int rc = la_scan_choose(&b, cases[k].choice, cases[k].threads, cases[k].hint, err,
                                sizeof err);
        tap(rc == 0 && strcmp(b.ops->name, cases[k].want) == 0, "%s", cases[k].what);
        la_scan_close(&b);
    }
    tap(fake_cuda_live == 0, "nothing leaked by opening and closing");
}

/* Audit path with argv on backend b. @return la_audit_files()'s result. */
static int audit(struct la_scan_backend *b, struct la_file_report *r, char **argv, int argc)
{
    struct la_config cfg;
    optind = 0; // GNU getopt: start over on a new argv
    if (la_options_parse(argc, argv, &cfg) != LA_OPT_OK)
        return -99;
    cfg.threads = 2;
    memset(r, 0, sizeof *r);
    return la_audit_files(&cfg, b, NULL, r);
}

static void test_audits(void)
{
    const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
    char csv[4096], raw[] = "/tmp/labelaudit-fake-XXXXXX";
    snprintf(csv, sizeof csv, "%s/samples/stray-10.csv", srcdir);
    // a raw int16 file of 40 MiB: mapped in windows, several sub-chunks each
    int fd = mkstemp(raw);
    FILE *f = fdopen(fd, "wb");
    for (int32_t i = 0; i < 20 << 20; i++) {
        int16_t v = (int16_t)(i % 1001 == 7 ? -1 : i % 4099 == 3 ? 10 : i % 10);
        fwrite(&v, sizeof v, 1, f);
    }
    fclose(f);
    char *csv_argv[] = { (char *)"labelaudit", (char *)"-n", (char *)"10", csv, NULL };
    char *raw_argv[] = { (char *)"labelaudit", (char *)"-n", (char *)"10",
                         (char *)"--format=raw", (char *)"--dtype=int16", raw, NULL };
    struct { char **argv; int argc; const char *what; } runs[] = {
        { csv_argv, 4, "samples/stray-10.csv (read on a thread, small chunks)" },
        { raw_argv, 6, "40 MiB raw int16 (mapped, 64 MiB windows)" },
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        struct la_scan_backend cpu, gpu;
        struct la_file_report want, got;
        char err[256];
        la_scan_cpu_open(&cpu, 2);
        int rc_cpu = audit(&cpu, &want, runs[i].argv, runs[i].argc);
        int rc_gpu = la_scan_gpu_open(&gpu, 2, err, sizeof err) == 0
                   ? audit(&gpu, &got, runs[i].argv, runs[i].argc) : -98;
        tap(rc_cpu == 0 && rc_gpu == 0 && got.read_ok && want.stats.bad_total > 0 &&
                digest(&got.stats) == digest(&want.stats) && got.n_findings == want.n_findings,
            "audit on the fake device = on the CPU: %s, %llu bad", runs[i].what,
            (unsigned long long)want.stats.bad_total);
        la_file_report_free(&want);
        if (rc_gpu != -98)
            la_file_report_free(&got);
        la_scan_close(&cpu);
        la_scan_close(&gpu);
    }

    // auto, and the device fails in the middle of the raw file: the CPU takes over
    struct la_scan_backend cpu, gpu;
    struct la_file_report want, got;
    char err[256];
    la_scan_cpu_open(&cpu, 2);
    audit(&cpu, &want, raw_argv, 6);
    la_scan_close(&cpu);
    la_scan_gpu_open(&gpu, 2, err, sizeof err);
    fake_cuda_calls = 0;
    fake_cuda_fail_at = 20; // a few sub-chunks in
    fflush(stdout);
    int rc = audit(&gpu, &got, raw_argv, 6);
    tap(rc == 0 && fake_cuda_failed && strcmp(gpu.ops->name, "cpu") == 0 &&
            digest(&got.stats) == digest(&want.stats),
        "auto: %s failing mid-file on the real backend, the CPU audits the file again",
        fake_cuda_failed ? fake_cuda_failed : "(no call)");
    fake_cuda_fail_at = 0;
    la_file_report_free(&want);
    la_file_report_free(&got);
    la_scan_close(&gpu);
    unlink(raw);
    tap(fake_cuda_live == 0, "whole audits leak nothing");
}

int main(void)
{
    fake_cuda_launch = launch_on_host;
    struct la_scan_backend g;
    char err[256];
    if (la_scan_gpu_open(&g, 3, err, sizeof err) != 0) {
        printf("Bail out! the fake device does not open: %s\n", err);
        return 1;
    }
    check_all(&g, "fake device");
    la_scan_close(&g);
    // again with work that completes late, out of order between the streams
    fake_cuda_deferred = 1;
    fake_cuda_arg_bytes = sizeof(struct scan_args);
    if (la_scan_gpu_open(&g, 3, err, sizeof err) == 0) {
        check_all(&g, "fake device, late work");
        la_scan_close(&g);
    }
    tap(unknown_launches == 0 && fake_cuda_live == 0,
        "every launch ran a known kernel; everything allocated was freed");
    fake_cuda_deferred = 0;
    test_faults();
    fake_cuda_deferred = 1;
    test_faults();
    test_sticky();
    fake_cuda_deferred = 0;
    test_choice();
    test_audits();
    printf("1..%d\n", tap_runs);
    return tap_failures ? 1 : 0;
}
