/* gpu_bench.cu - check the CUDA scan against the CPU reference, then time it.
 *
 * llm.c style: the CPU reference (scan_cpu.c) validates the kernel before any
 * timing (tests/cuda/checks.h, which make check also runs on a fake device).
 * This file includes src/scan_cuda.cu, so it reaches the kernels and
 * launchers directly.
 *
 *   gpu_bench --copy         no GPU needed: GB/s of the host-side staging copy
 *                            (stage(), out of a mapped file) on 1 to 8 threads.
 *   gpu_bench                on a GPU: the checks on the device, then
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
 * (make builds it too, as bench/gpu_bench, when CUDA is configured.)
 */
#include "scan_cuda.cu" // the backend itself: kernels, launchers, apply_chunk

#include <stdarg.h> // va_list
#include <sys/mman.h> // mmap: the copy benchmark maps a file as the tool does
#include <time.h>   // clock_gettime
#include <unistd.h> // sysconf

#include "../tests/cuda/checks.h" // fill, digest, check_all

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

/* Segmentation masks (uint8, 21 classes, ignore 255 forgotten): permille of
 * the pixels scattered bad, folded by both backends in their windows. */
static void time_masks(struct la_scan_backend *gb, struct la_scan_backend *cb, uint8_t *buf,
                       size_t bytes)
{
    const unsigned permille[] = { 1, 20 };
    struct la_rule r = { 0, 1, -100, 1, 21 };
    for (size_t k = 0; k < sizeof permille / sizeof *permille; k++) {
        rng_state = 9 + k;
        for (size_t i = 0; i < bytes; i++) {
            uint64_t x = rnd();
            buf[i] = (uint8_t)((x & 1023) < permille[k] ? 255 : (x >> 20) % 21);
        }
        double t[2];
        struct la_scan_backend *bs[2] = { cb, gb };
        uint64_t d[2];
        for (int b = 0; b < 2; b++) {
            size_t win = bs[b]->window_bytes ? bs[b]->window_bytes : (size_t)8 << 20;
            struct la_stats s;
            char err[256];
            la_stats_init(&s, 512 * 512, 1000, 21, 21);
            double t0 = now_s();
            for (size_t at = 0; at < bytes; at += win) {
                struct la_chunk c = { LA_DT_UINT8, buf + at, bytes - at < win ? bytes - at : win,
                                      at, NULL };
                if (bs[b]->ops->scan(bs[b], &c, &r, &s, err, sizeof err) != 0)
                    fprintf(stderr, "gpu_bench: %s\n", err);
            }
            t[b] = now_s() - t0;
            d[b] = digest(&s);
            la_stats_free(&s);
        }
        printf("uint8 masks, %.1f%% bad, %zu MiB: cpu %.1f GB/s, gpu %.1f GB/s, %s\n",
               permille[k] / 10.0, bytes >> 20, (double)bytes / t[0] / 1e9,
               (double)bytes / t[1] / 1e9, d[0] == d[1] ? "same stats" : "STATS DIFFER");
    }
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
    unsigned long long *d_hist, *d_bad, *d_sub, *d_block;
    const int max_grid = p.multiProcessorCount * 4;
    CHECK(cudaMalloc((void **)&d_acc, sizeof *d_acc));
    CHECK(cudaMalloc((void **)&d_hist, LA_HIST_MAX * sizeof *d_hist));
    CHECK(cudaMalloc((void **)&d_bad, BAD_CAP * sizeof *d_bad));
    CHECK(cudaMalloc((void **)&d_sub, sizeof *d_sub));
    CHECK(cudaMalloc((void **)&d_block, (size_t)max_grid * sizeof *d_block));
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
            a.bad_len = BAD_CAP;
            a.sub_bad = d_sub;
            a.block_bad = d_block;
            a.blocks = grid_for(n, max_grid);
            float best = 1e30f;
            for (int rep = 0; rep < 3; rep++) {
                acc_reset(&h_acc);
                CHECK(cudaMemcpy(d_acc, &h_acc, sizeof h_acc, cudaMemcpyHostToDevice));
                CHECK(cudaMemset(d_sub, 0, sizeof *d_sub));
                CHECK(cudaEventRecord(e0));
                CHECK(launch_scan(kdt[k], &a, 0));
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
    cudaFree(d_sub);
    cudaFree(d_block);
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
    time_masks(&gb, &cb, (uint8_t *)host, big);
    printf("gpu chunks overflowed to the CPU: %llu (must be 0)\n",
           ((struct gpu *)gb.state)->overflows);
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
    int fails = check_all(&g, "gpu");
    la_scan_close(&g);
    if (fails)
        return 1;
    return bench(startup);
}
