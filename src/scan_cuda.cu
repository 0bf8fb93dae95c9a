/* scan_cuda.cu - the CUDA scan backend: the same fold as scan_cpu.c, on a GPU.
 *
 * scan() is one synchronous call per chunk. Inside it the chunk is cut into
 * sub-chunks of SUB_BYTES that are pipelined over two streams: the host copies
 * sub-chunk k+1 into a pinned staging buffer (on up to 8 threads, stage())
 * while sub-chunk k is in flight (DMA to the device, then the kernel). Mapped
 * files come in windows of GPU_WINDOW_BYTES, so most copies overlap. Every kernel folds into one device
 * accumulator (struct acc) and one device histogram with atomics, so the two
 * streams never need to be merged. At the end of the chunk the host reads the
 * accumulator, the histogram bins that were touched, and the bad entries.
 *
 * Identical stats to the CPU by construction:
 * - the kernel classifies with the very functions the CPU uses (verdict.h) and
 *   converts elements exactly as scan_cpu.c does (half -> float -> double);
 * - counts, histogram and outlier bins are integer sums: order does not matter;
 * - min/max are order-free except for -0.0 vs 0.0 (equal, but printed
 *   differently): the CPU keeps the first one it meets, so the kernel records
 *   the first index of each zero and the host picks the earlier one;
 * - bad entries (chunk offset and verdict, packed in a uint64) are appended in
 *   any order with warp-aggregated atomics, sorted on the host, and replayed
 *   through la_stats_add_bad() in ascending order with their values read from
 *   the host copy of the chunk, so the cap, the sink and bad_samples behave
 *   exactly as on the CPU.
 * When a chunk holds more bad entries than the device buffer (BAD_CAP), the
 * GPU result for that chunk is dropped and the chunk is rescanned on the CPU
 * with la_scan_chunk_cpu_ref(): slow, but only for files that are mostly bad.
 *
 * Every CUDA call goes through CU_TRY(), which puts "cudaCall: message" in err
 * and jumps to the cleanup; nothing here exits. The stats are only touched
 * after the whole chunk succeeded, so a failed scan() leaves them as they were.
 *
 * Compile check by hand:
 *   nvcc -arch=all-major -O3 -std=c++17 -D_GNU_SOURCE -Isrc -c src/scan_cuda.cu
 */
#include <cuda_runtime.h> // cudaMalloc, cudaMemcpyAsync, streams, events
#include <dlfcn.h>        // dlopen: is there an NVIDIA driver at all

extern "C" {
#include "pool.h"    // la_pool: the threads that copy into pinned memory
#include "scan.h"    // la_scan_backend, la_gpu_probe, la_scan_chunk_cpu_ref
#include "stats.h"   // la_stats, la_stats_add_bad, la_stats_note_minmax
#include "verdict.h" // la_verdict_*, la_half_to_float (host and device)
#include "dtype.h"   // la_dtype, la_dtype_info
}

#include <stdint.h> // uint64_t, int64_t
#include <stdio.h>  // snprintf
#include <stdlib.h> // calloc, free, qsort
#include <string.h> // memcpy, memset, strcspn

// Sub-chunk size: big enough that each copy and launch amortises its overhead,
// small enough that a 16-64 MiB reader chunk becomes 4-16 pieces to pipeline.
// A chunk of 4 MiB or less is one piece: nothing overlaps, and such small
// chunks are latency-bound anyway (--backend=auto keeps small inputs on the CPU).
#define SUB_BYTES ((size_t)4 << 20)
// Bad entries the device keeps per chunk before the CPU rescans the chunk.
#define BAD_CAP ((size_t)1 << 20)
// Histograms up to this many bins are counted per block in shared memory
// (4 bytes a bin: 32 KiB, under the 48 KiB a launch gets without opting in).
#define SHARED_HIST_MAX 8192u
#define BLOCK 256
#define NSTREAMS 2
// Bytes of a mapped file per scan() call: 16 sub-chunks, so the copy of one
// overlaps the kernel of the one before for all but the first and last, and
// the synchronisation and read-back at the end of each call are paid once
// every 64 MiB (the CPU's 8 MiB windows would give only 2 sub-chunks).
#define GPU_WINDOW_BYTES ((size_t)64 << 20)
// Host threads that copy a sub-chunk into pinned memory. One core copying out
// of a freshly mapped file (page faults included) moves a few GB/s, well below
// PCIe; a few cores reach it, and beyond 8 the host memory bus is the limit.
#define COPY_THREADS_MAX 8
// The least a copy thread is given: waking one costs microseconds.
#define COPY_MIN_BYTES ((size_t)512 << 10)

// What every kernel folds into (device), and what the host reads back per chunk.
// Min/max are kept as order-preserving uint64 keys whatever the dtype.
struct acc {
    unsigned long long n_verdict[LA_V_COUNT];
    unsigned long long hist_beyond;
    unsigned long long hist_hi;
    unsigned long long bad_count;   // exact, may exceed BAD_CAP
    unsigned long long any;         // some value took part in min/max
    unsigned long long key_lo, key_hi;
    unsigned long long zero_first[2]; // floats: first offset of +0.0 / -0.0 in min/max
    unsigned long long below[LA_OUTLIER_BINS], above[LA_OUTLIER_BINS];
};

// How a stored element becomes the number the verdict sees (as in scan_cpu.c).
enum elem_kind { EK_INT, EK_U64, EK_HALF, EK_FLOAT };

struct scan_args {
    const void *values;     // this sub-chunk, on the device
    size_t n;
    uint64_t offset;        // of values[0] within the chunk
    struct la_rule rule;
    uint64_t hist_len;
    int64_t above_base;
    struct acc *acc;
    unsigned long long *hist;  // hist_len bins (NULL when hist_len is 0)
    unsigned long long *bad;   // BAD_CAP packed entries: offset << 3 | verdict
};

// ---- GPU kernels ---------------------------------------------------------------

// The per-element fold and the block reduction below are __host__ __device__
// (FOLD_HD) so that a machine without a GPU can run them, emulating the kernel
// on a fake CUDA runtime, and check them against scan_cpu.c
// (tests/cuda/test_fake_device.cu). Only these helpers differ between the two.
#define FOLD_HD __host__ __device__ __forceinline__

FOLD_HD void bump32(unsigned *p)
{
#ifdef __CUDA_ARCH__
    atomicAdd(p, 1u);
#else
    ++*p;
#endif
}

FOLD_HD void bump64(unsigned long long *p)
{
#ifdef __CUDA_ARCH__
    atomicAdd(p, 1ull);
#else
    ++*p;
#endif
}

FOLD_HD void add64(unsigned long long *p, unsigned long long v)
{
#ifdef __CUDA_ARCH__
    atomicAdd(p, v);
#else
    *p += v;
#endif
}

FOLD_HD void max64(unsigned long long *p, unsigned long long v)
{
#ifdef __CUDA_ARCH__
    atomicMax(p, v);
#else
    *p = v > *p ? v : *p;
#endif
}

FOLD_HD void min64(unsigned long long *p, unsigned long long v)
{
#ifdef __CUDA_ARCH__
    atomicMin(p, v);
#else
    *p = v < *p ? v : *p;
#endif
}

FOLD_HD unsigned long long bits_of(double x)
{
#ifdef __CUDA_ARCH__
    return (unsigned long long)__double_as_longlong(x);
#else
    unsigned long long b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

// Order-preserving keys: key(a) < key(b) exactly when a < b.
FOLD_HD unsigned long long key_i64(int64_t x)
{
    return (unsigned long long)x ^ 0x8000000000000000ull;
}

FOLD_HD unsigned long long key_f64(double x)
{
    if (x == 0.0)
        x = 0.0; // -0.0 and 0.0 are equal; zero_first decides which one is shown
    unsigned long long b = bits_of(x);
    return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

// Per-thread partial state; the block reduces it once at the end.
struct fold {
    unsigned long long cnt[LA_V_UNPARSABLE]; // the kernel never sees unparsable cells
    unsigned long long beyond, hist_hi, any, lo, hi, zero_first[2];
};

FOLD_HD void fold_init(struct fold *f)
{
    for (int k = 0; k < LA_V_UNPARSABLE; k++)
        f->cnt[k] = 0;
    f->beyond = f->hist_hi = f->any = f->hi = 0;
    f->lo = f->zero_first[0] = f->zero_first[1] = ~0ull;
}

FOLD_HD void note_key(struct fold *f, unsigned long long k)
{
    f->any = 1;
    f->lo = k < f->lo ? k : f->lo;
    f->hi = k > f->hi ? k : f->hi;
}

// count_valid() of scan_cpu.c: a bin when it fits, else "beyond".
FOLD_HD void count_valid(const struct scan_args *a, struct fold *f, unsigned *sh_hist,
                         int64_t label)
{
    uint64_t c = (uint64_t)label;
    if (c < a->hist_len) {
        if (sh_hist)
            bump32(&sh_hist[c]);
        else
            bump64(&a->hist[c]);
        f->hist_hi = c + 1 > f->hist_hi ? c + 1 : f->hist_hi;
    } else {
        f->beyond++;
    }
}

// count_outlier() of scan_cpu.c, into the block's shared bins.
FOLD_HD void count_outlier(const struct scan_args *a, unsigned *sh_out, int verdict, int64_t x)
{
    if (verdict == LA_V_BELOW && x < 0 && x >= -LA_OUTLIER_BINS)
        bump32(&sh_out[-1 - x]);
    else if (verdict == LA_V_ABOVE && x >= a->above_base &&
             x - a->above_base < LA_OUTLIER_BINS)
        bump32(&sh_out[LA_OUTLIER_BINS + (x - a->above_base)]);
}

// Fold one element; returns its verdict, and whether it is a bad entry in *bad.
template <typename S, int K>
FOLD_HD int fold_one(const struct scan_args *a, struct fold *f, unsigned *sh_hist,
                     unsigned *sh_out, S raw, uint64_t off, bool *bad)
{
    const struct la_rule *r = &a->rule;
    int v;
    if constexpr (K == EK_INT) {
        int64_t x = (int64_t)raw;
        v = la_verdict_i64(x, r);
        if (v == LA_V_IGNORED)
            return v;
        note_key(f, key_i64(x));
        if (v == LA_V_VALID) {
            count_valid(a, f, sh_hist, x);
        } else {
            count_outlier(a, sh_out, v, x);
            *bad = true;
        }
    } else if constexpr (K == EK_U64) {
        uint64_t x = (uint64_t)raw;
        v = la_verdict_u64(x, r);
        if (v == LA_V_IGNORED)
            return v;
        note_key(f, x);
        if (v == LA_V_VALID && x <= (uint64_t)INT64_MAX) {
            count_valid(a, f, sh_hist, (int64_t)x);
        } else if (v == LA_V_VALID) {
            f->beyond++;
        } else {
            if (x <= (uint64_t)INT64_MAX)
                count_outlier(a, sh_out, v, (int64_t)x);
            *bad = true;
        }
    } else {
        double x;
        if constexpr (K == EK_HALF)
            x = (double)la_half_to_float(raw);
        else
            x = (double)raw;
        v = la_verdict_f64(x, r);
        if (v == LA_V_IGNORED)
            return v;
        if (v != LA_V_NON_FINITE) {
            note_key(f, key_f64(x));
            if (x == 0.0) {
                // constant indices: a computed one would put f in local memory
                if (bits_of(x) >> 63)
                    f->zero_first[1] = off < f->zero_first[1] ? off : f->zero_first[1];
                else
                    f->zero_first[0] = off < f->zero_first[0] ? off : f->zero_first[0];
            }
        }
        if (v == LA_V_VALID) {
            // The CPU's (int64_t)x on x86 turns x >= 2^63 into INT64_MIN: "beyond".
            if (!r->bce) {
                if (x >= LA_TWO_63)
                    f->beyond++;
                else
                    count_valid(a, f, sh_hist, (int64_t)x);
            }
        } else {
            if (v != LA_V_NON_FINITE && v != LA_V_NON_INTEGER && x >= -LA_TWO_63 &&
                x < LA_TWO_63 && (double)(int64_t)x == x)
                count_outlier(a, sh_out, v, (int64_t)x);
            *bad = true;
        }
    }
    return v;
}

// The verdict's count; unrolled so that f stays in registers (a computed index
// would put it in local memory).
FOLD_HD void count_verdict(struct fold *f, int verdict)
{
#ifdef __CUDA_ARCH__ // the host compiler does not know the pragma
#pragma unroll
#endif
    for (int k = 0; k < LA_V_UNPARSABLE; k++)
        f->cnt[k] += verdict == k;
}

// A bad entry as the device buffer holds it: chunk offset and verdict in one word.
FOLD_HD unsigned long long bad_entry(uint64_t off, int verdict)
{
    return (unsigned long long)off << 3 | (unsigned)verdict;
}

// ---- block reduction, shared with the host emulation --------------------------------
//
// A struct fold travels as a vector of NRED words: the sums first, then the
// maxima, then the minima, so a word's position says how two are combined.
#define NSUM (LA_V_UNPARSABLE + 1)  // cnt[], beyond
#define NMAX 3                      // hist_hi, any, hi
#define NMIN 3                      // lo, zero_first[2]
#define NRED (NSUM + NMAX + NMIN)

FOLD_HD void fold_pack(const struct fold *f, unsigned long long x[NRED])
{
    for (int k = 0; k < LA_V_UNPARSABLE; k++)
        x[k] = f->cnt[k];
    x[NSUM - 1] = f->beyond;
    x[NSUM] = f->hist_hi;
    x[NSUM + 1] = f->any;
    x[NSUM + 2] = f->hi;
    x[NSUM + NMAX] = f->lo;
    x[NSUM + NMAX + 1] = f->zero_first[0];
    x[NSUM + NMAX + 2] = f->zero_first[1];
}

// What word k of a thread that saw nothing holds.
FOLD_HD unsigned long long reduce_identity(int k)
{
    return k < NSUM + NMAX ? 0ull : ~0ull;
}

FOLD_HD unsigned long long reduce_pair(int k, unsigned long long x, unsigned long long y)
{
    if (k < NSUM)
        return x + y;
    if (k < NSUM + NMAX)
        return x > y ? x : y;
    return x < y ? x : y;
}

// Fold one block's reduced vector into the chunk's accumulator.
FOLD_HD void acc_add_block(struct acc *g, const unsigned long long x[NRED])
{
    for (int k = 0; k < LA_V_UNPARSABLE; k++)
        if (x[k])
            add64(&g->n_verdict[k], x[k]);
    if (x[NSUM - 1])
        add64(&g->hist_beyond, x[NSUM - 1]);
    max64(&g->hist_hi, x[NSUM]);
    if (x[NSUM + 1]) {
        max64(&g->any, 1ull);
        max64(&g->key_hi, x[NSUM + 2]);
        min64(&g->key_lo, x[NSUM + NMAX]);
    }
    min64(&g->zero_first[0], x[NSUM + NMAX + 1]);
    min64(&g->zero_first[1], x[NSUM + NMAX + 2]);
}

// The block's shared bins, each handled by thread `first` onwards in steps of `step`.
FOLD_HD void clear_shared_bins(const struct scan_args *a, unsigned *sh_hist, unsigned *sh_out,
                               unsigned first, unsigned step)
{
    for (unsigned i = first; sh_hist && i < a->hist_len; i += step)
        sh_hist[i] = 0;
    for (unsigned i = first; i < 2 * LA_OUTLIER_BINS; i += step)
        sh_out[i] = 0;
}

FOLD_HD void flush_shared_bins(const struct scan_args *a, const unsigned *sh_hist,
                               const unsigned *sh_out, unsigned first, unsigned step)
{
    for (unsigned i = first; i < 2 * LA_OUTLIER_BINS; i += step)
        if (sh_out[i])
            add64(i < LA_OUTLIER_BINS ? &a->acc->below[i] : &a->acc->above[i - LA_OUTLIER_BINS],
                  sh_out[i]);
    for (unsigned i = first; sh_hist && i < a->hist_len; i += step)
        if (sh_hist[i])
            add64(&a->hist[i], sh_hist[i]);
}

// Whether the block counts the histogram in shared memory (else: global atomics).
FOLD_HD bool hist_in_shared(const struct scan_args *a)
{
    return a->hist_len && a->hist_len <= SHARED_HIST_MAX;
}

__device__ __forceinline__ unsigned long long warp_reduce(int k, unsigned long long x)
{
    for (int d = 16; d > 0; d >>= 1)
        x = reduce_pair(k, x, __shfl_down_sync(0xffffffffu, x, d));
    return x;
}

// One kernel per element type: a grid-stride loop whose trip count is the
// same for every lane of a warp, so the warp-wide ballot below is legal.
template <typename S, int K>
__global__ void scan_kernel(struct scan_args a)
{
    extern __shared__ unsigned sh_hist_dyn[];    // hist_len bins when they fit
    __shared__ unsigned sh_out[2 * LA_OUTLIER_BINS];
    __shared__ unsigned long long sh_red[BLOCK / 32][NRED];

    unsigned *sh_hist = hist_in_shared(&a) ? sh_hist_dyn : NULL;
    clear_shared_bins(&a, sh_hist, sh_out, threadIdx.x, blockDim.x);
    __syncthreads();

    struct fold f;
    fold_init(&f);

    const S *v = (const S *)a.values;
    const unsigned lane = threadIdx.x & 31;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t w = (size_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); w < a.n;
         w += stride) {
        size_t i = w + lane;
        bool bad = false;
        int verdict = LA_V_VALID;
        if (i < a.n) {
            verdict = fold_one<S, K>(&a, &f, sh_hist, sh_out, v[i], a.offset + i, &bad);
            count_verdict(&f, verdict);
        }
        // Warp-aggregated append: one atomic per warp, each lane at its rank.
        unsigned mask = __ballot_sync(0xffffffffu, bad);
        if (mask) {
            unsigned long long base = 0;
            if (lane == 0)
                base = atomicAdd(&a.acc->bad_count, (unsigned long long)__popc(mask));
            base = __shfl_sync(0xffffffffu, base, 0);
            unsigned long long pos = base + __popc(mask & ((1u << lane) - 1u));
            if (bad && pos < BAD_CAP)
                a.bad[pos] = bad_entry(a.offset + i, verdict);
        }
    }

    // Block reduction: warps by shuffles, then warp 0 over the warps' results.
    unsigned long long x[NRED];
    fold_pack(&f, x);
    const unsigned warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
#pragma unroll
    for (int k = 0; k < NRED; k++) {
        unsigned long long y = warp_reduce(k, x[k]);
        if (lane == 0)
            sh_red[warp][k] = y;
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < NRED; k++)
            x[k] = warp_reduce(k, lane < nwarps ? sh_red[lane][k] : reduce_identity(k));
        if (lane == 0)
            acc_add_block(a.acc, x);
    }
    // The __syncthreads above ordered every update of the shared bins.
    flush_shared_bins(&a, sh_hist, sh_out, threadIdx.x, blockDim.x);
}

// ---- launchers -----------------------------------------------------------------

template <typename S, int K>
static cudaError_t launch_typed(const struct scan_args *a, int grid, cudaStream_t st)
{
    size_t shmem = hist_in_shared(a) ? (size_t)a->hist_len * sizeof(unsigned) : 0;
    scan_kernel<S, K><<<grid, BLOCK, shmem, st>>>(*a);
    return cudaGetLastError();
}

/* launch_scan() : fold one device-resident sub-chunk of dtype dt into a->acc,
 * a->hist and a->bad on stream st. max_grid bounds the grid (a few blocks per
 * SM: the loop is grid-stride). */
static cudaError_t launch_scan(enum la_dtype dt, const struct scan_args *a, int max_grid,
                               cudaStream_t st)
{
    size_t blocks = (a->n + BLOCK - 1) / BLOCK;
    int grid = blocks < (size_t)max_grid ? (int)blocks : max_grid;
    if (grid < 1)
        grid = 1;
    switch (dt) {
    case LA_DT_BOOL:    return launch_typed<uint8_t, EK_INT>(a, grid, st);
    case LA_DT_INT8:    return launch_typed<int8_t, EK_INT>(a, grid, st);
    case LA_DT_UINT8:   return launch_typed<uint8_t, EK_INT>(a, grid, st);
    case LA_DT_INT16:   return launch_typed<int16_t, EK_INT>(a, grid, st);
    case LA_DT_UINT16:  return launch_typed<uint16_t, EK_INT>(a, grid, st);
    case LA_DT_INT32:   return launch_typed<int32_t, EK_INT>(a, grid, st);
    case LA_DT_UINT32:  return launch_typed<uint32_t, EK_INT>(a, grid, st);
    case LA_DT_INT64:   return launch_typed<int64_t, EK_INT>(a, grid, st);
    case LA_DT_UINT64:  return launch_typed<uint64_t, EK_U64>(a, grid, st);
    case LA_DT_FLOAT16: return launch_typed<uint16_t, EK_HALF>(a, grid, st);
    case LA_DT_FLOAT32: return launch_typed<float, EK_FLOAT>(a, grid, st);
    case LA_DT_FLOAT64: return launch_typed<double, EK_FLOAT>(a, grid, st);
    default:            return cudaErrorInvalidValue;
    }
}

// ---- host side -----------------------------------------------------------------

/* CU_TRY(call) : run a CUDA runtime call; on failure put "cudaName: message" in
 * err and go to the enclosing function's fail label. */
#define CU_TRY(call)                                                                    \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            snprintf(err, errlen, "%.*s: %s", (int)strcspn(#call, "("), #call,          \
                     cudaGetErrorString(e_));                                           \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

struct gpu {
    struct la_pool *copiers;        // NULL: the scanning thread copies alone
    cudaStream_t stream[NSTREAMS];
    cudaEvent_t staged[NSTREAMS];   // the DMA out of pinned[s] has finished
    cudaEvent_t done1;              // stream 1's work of this chunk is queued before this
    void *pinned[NSTREAMS];         // host staging, SUB_BYTES each
    void *dev_in[NSTREAMS];         // device copies, SUB_BYTES each
    struct acc *dev_acc, *host_acc; // host_acc is pinned
    unsigned long long *dev_bad, *host_bad;
    unsigned long long *dev_hist;   // atomics need unsigned long long
    uint64_t *host_hist;            // read back: la_stats' type
    uint64_t hist_cap;              // bins allocated in dev_hist/host_hist
    int max_grid;
    int n_streams, n_events;        // how many were created, for close
    int done1_made;
};

static void acc_reset(struct acc *h)
{
    memset(h, 0, sizeof *h);
    h->key_lo = ~0ull;
    h->zero_first[0] = h->zero_first[1] = ~0ull;
}

// ---- staging: host labels into pinned memory, on several threads ----------------

struct copy_job {
    char *dst;
    const char *src;
    size_t bytes, per;   // per: bytes a part copies, a multiple of 64 (cache lines)
};

static void copy_part(void *ctx, int t)
{
    const struct copy_job *j = (const struct copy_job *)ctx;
    size_t lo = (size_t)t * j->per;
    if (lo < j->bytes)
        memcpy(j->dst + lo, j->src + lo, j->bytes - lo < j->per ? j->bytes - lo : j->per);
}

/* stage() : copy bytes from src to dst (pinned), split over the copy threads. */
static void stage(const struct gpu *g, void *dst, const void *src, size_t bytes)
{
    size_t parts = g->copiers ? (size_t)la_pool_size(g->copiers) : 1;
    if (parts > bytes / COPY_MIN_BYTES)
        parts = bytes / COPY_MIN_BYTES;
    if (parts <= 1) {
        memcpy(dst, src, bytes);
        return;
    }
    struct copy_job j = { (char *)dst, (const char *)src, bytes,
                          ((bytes + parts - 1) / parts + 63) & ~(size_t)63 };
    la_pool_run(g->copiers, (int)parts, copy_part, &j);
}

static void gpu_free(struct gpu *g)
{
    if (!g)
        return;
    for (int s = 0; s < g->n_streams; s++)
        cudaStreamSynchronize(g->stream[s]);
    for (int s = 0; s < NSTREAMS; s++) {
        cudaFreeHost(g->pinned[s]);
        cudaFree(g->dev_in[s]);
    }
    for (int s = 0; s < g->n_events; s++)
        cudaEventDestroy(g->staged[s]);
    if (g->done1_made)
        cudaEventDestroy(g->done1);
    for (int s = 0; s < g->n_streams; s++)
        cudaStreamDestroy(g->stream[s]);
    cudaFree(g->dev_acc);
    cudaFreeHost(g->host_acc);
    cudaFree(g->dev_bad);
    cudaFreeHost(g->host_bad);
    cudaFree(g->dev_hist);
    cudaFreeHost(g->host_hist);
    la_pool_close(g->copiers);
    free(g);
}

/* The device histogram grows to the largest hist_len seen; it is all zero
 * between chunks (each chunk clears the bins it touched). */
static int ensure_hist(struct gpu *g, uint64_t bins, char *err, size_t errlen)
{
    if (bins <= g->hist_cap)
        return 0;
    cudaFree(g->dev_hist);
    cudaFreeHost(g->host_hist);
    g->dev_hist = NULL;
    g->host_hist = NULL;
    g->hist_cap = 0;
    CU_TRY(cudaMalloc((void **)&g->dev_hist, bins * sizeof *g->dev_hist));
    CU_TRY(cudaMemset(g->dev_hist, 0, bins * sizeof *g->dev_hist));
    // cudaMemset runs on the legacy stream, which our non-blocking streams do not wait for.
    CU_TRY(cudaDeviceSynchronize());
    CU_TRY(cudaHostAlloc((void **)&g->host_hist, bins * sizeof *g->host_hist,
                         cudaHostAllocDefault));
    g->hist_cap = bins;
    return 0;
fail:
    return -1;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* The value of element off as scan_cpu.c reports it for a bad entry. */
static struct la_num bad_value(const struct la_chunk *c, uint64_t off)
{
    const void *p = c->values;
    struct la_num n;
    n.kind = LA_NUM_I64;
    switch (c->dtype) {
    case LA_DT_BOOL:
    case LA_DT_UINT8:   n.v.i = ((const uint8_t *)p)[off]; break;
    case LA_DT_INT8:    n.v.i = ((const int8_t *)p)[off]; break;
    case LA_DT_INT16:   n.v.i = ((const int16_t *)p)[off]; break;
    case LA_DT_UINT16:  n.v.i = ((const uint16_t *)p)[off]; break;
    case LA_DT_INT32:   n.v.i = ((const int32_t *)p)[off]; break;
    case LA_DT_UINT32:  n.v.i = ((const uint32_t *)p)[off]; break;
    case LA_DT_INT64:   n.v.i = ((const int64_t *)p)[off]; break;
    case LA_DT_UINT64: {
        uint64_t u = ((const uint64_t *)p)[off];
        if (u > (uint64_t)INT64_MAX) {
            n.kind = LA_NUM_U64;
            n.v.u = u;
        } else {
            n.v.i = (int64_t)u;
        }
        break;
    }
    case LA_DT_FLOAT16:
        n.kind = LA_NUM_F64;
        n.v.f = (double)la_half_to_float(((const uint16_t *)p)[off]);
        break;
    case LA_DT_FLOAT32: n.kind = LA_NUM_F64; n.v.f = ((const float *)p)[off]; break;
    case LA_DT_FLOAT64: n.kind = LA_NUM_F64; n.v.f = ((const double *)p)[off]; break;
    default: n.v.i = 0; break;
    }
    return n;
}

/* Turn a min/max key back into the number scan_cpu.c would report. */
static struct la_num key_to_num(enum la_dtype dt, unsigned long long k,
                                const unsigned long long zero_first[2])
{
    struct la_num n;
    if (dt == LA_DT_UINT64) {
        n.kind = LA_NUM_U64;
        n.v.u = k;
    } else if (la_dtype_is_float(dt)) {
        uint64_t b = (k >> 63) ? k & 0x7fffffffffffffffull : ~k;
        n.kind = LA_NUM_F64;
        memcpy(&n.v.f, &b, sizeof b);
        if (n.v.f == 0.0 && zero_first[1] < zero_first[0])
            n.v.f = -0.0; // the CPU keeps the first of equal values
    } else {
        n.kind = LA_NUM_I64;
        n.v.i = (int64_t)(k ^ 0x8000000000000000ull);
    }
    return n;
}

/* Fold the accumulator, touched bins and sorted bad entries of one chunk into s,
 * in the order scan_cpu.c would: the counts merge as a CPU part's do
 * (la_stats_merge), the bad entries are replayed one by one in index order. */
static void apply_chunk(struct gpu *g, const struct la_chunk *c, struct la_stats *s)
{
    const struct acc *h = g->host_acc;
    struct la_stats part;
    memset(&part, 0, sizeof part);
    part.count = c->count;
    for (int k = 0; k < LA_V_COUNT; k++)
        part.n_verdict[k] = h->n_verdict[k];
    part.has_minmax = h->any != 0;
    if (part.has_minmax) {
        part.min = key_to_num(c->dtype, h->key_lo, h->zero_first);
        part.max = key_to_num(c->dtype, h->key_hi, h->zero_first);
    }
    part.saw_float = la_dtype_is_float(c->dtype);
    part.hist = g->host_hist;   // its first min(hist_hi, hist_len) bins were read back
    part.hist_len = s->hist_len;
    part.hist_hi = h->hist_hi;
    part.hist_beyond = h->hist_beyond;
    for (int k = 0; k < LA_OUTLIER_BINS; k++) {
        part.outlier_below[k] = h->below[k];
        part.outlier_above[k] = h->above[k];
    }
    la_stats_merge(s, &part);

    size_t nbad = (size_t)h->bad_count;
    int sorted = 1;
    for (size_t i = 1; i < nbad && sorted; i++)
        sorted = g->host_bad[i - 1] <= g->host_bad[i];
    if (!sorted)
        qsort(g->host_bad, nbad, sizeof *g->host_bad, cmp_u64);
    for (size_t i = 0; i < nbad; i++) {
        uint64_t off = g->host_bad[i] >> 3;
        la_stats_add_bad(s, c->first_index + off, (int)(g->host_bad[i] & 7u),
                         bad_value(c, off), NULL);
    }
}

static int gpu_scan(struct la_scan_backend *b, const struct la_chunk *c,
                    const struct la_rule *r, struct la_stats *s, char *err, size_t errlen)
{
    struct gpu *g = (struct gpu *)b->state;
    if (c->dtype >= LA_DT_COUNT) {
        snprintf(err, errlen, "gpu scan: unknown dtype %d", (int)c->dtype);
        return -1;
    }
    if (c->count == 0) { // nothing to move; the CPU fold is exact and free
        la_scan_chunk_cpu_ref(c, r, s);
        return 0;
    }
    const size_t elem = la_dtype_info(c->dtype)->size;
    const size_t per_sub = SUB_BYTES / elem;
    const uint64_t hist_len = s->hist ? s->hist_len : 0;
    if (ensure_hist(g, hist_len, err, errlen) != 0)
        return -1;

    struct scan_args a;
    memset(&a, 0, sizeof a);
    a.rule = *r;
    a.hist_len = hist_len;
    a.above_base = s->above_base;
    a.acc = g->dev_acc;
    a.hist = hist_len ? g->dev_hist : NULL;
    a.bad = g->dev_bad;

    // The accumulator is reset on stream 0; stream 1 waits for that.
    acc_reset(g->host_acc);
    CU_TRY(cudaMemcpyAsync(g->dev_acc, g->host_acc, sizeof *g->dev_acc, cudaMemcpyHostToDevice,
                           g->stream[0]));
    CU_TRY(cudaEventRecord(g->done1, g->stream[0]));
    CU_TRY(cudaStreamWaitEvent(g->stream[1], g->done1, 0));

    for (size_t lo = 0, k = 0; lo < c->count; lo += per_sub, k++) {
        int st = (int)(k % NSTREAMS);
        size_t n = c->count - lo < per_sub ? c->count - lo : per_sub;
        // pinned[st] is free once its previous DMA is done (the kernel reads dev_in).
        CU_TRY(cudaEventSynchronize(g->staged[st]));
        stage(g, g->pinned[st], (const char *)c->values + lo * elem, n * elem);
        CU_TRY(cudaMemcpyAsync(g->dev_in[st], g->pinned[st], n * elem, cudaMemcpyHostToDevice,
                               g->stream[st]));
        CU_TRY(cudaEventRecord(g->staged[st], g->stream[st]));
        a.values = g->dev_in[st];
        a.n = n;
        a.offset = lo;
        CU_TRY(launch_scan(c->dtype, &a, g->max_grid, g->stream[st]));
    }

    // Join stream 1 into stream 0, then read the accumulator.
    CU_TRY(cudaEventRecord(g->done1, g->stream[1]));
    CU_TRY(cudaStreamWaitEvent(g->stream[0], g->done1, 0));
    CU_TRY(cudaMemcpyAsync(g->host_acc, g->dev_acc, sizeof *g->host_acc, cudaMemcpyDeviceToHost,
                           g->stream[0]));
    CU_TRY(cudaStreamSynchronize(g->stream[0]));

    {
        const struct acc *h = g->host_acc;
        uint64_t bins = h->hist_hi < hist_len ? h->hist_hi : hist_len;
        int overflow = h->bad_count > BAD_CAP;
        if (bins && !overflow)
            CU_TRY(cudaMemcpyAsync(g->host_hist, g->dev_hist, bins * sizeof *g->host_hist,
                                   cudaMemcpyDeviceToHost, g->stream[0]));
        if (bins)
            CU_TRY(cudaMemsetAsync(g->dev_hist, 0, bins * sizeof *g->dev_hist, g->stream[0]));
        if (h->bad_count && !overflow)
            CU_TRY(cudaMemcpyAsync(g->host_bad, g->dev_bad, h->bad_count * sizeof *g->host_bad,
                                   cudaMemcpyDeviceToHost, g->stream[0]));
        CU_TRY(cudaStreamSynchronize(g->stream[0]));
        if (overflow)
            la_scan_chunk_cpu_ref(c, r, s); // too many bad entries to keep: CPU rescan
        else
            apply_chunk(g, c, s);
    }
    return 0;
fail:
    // Leave the device histogram clean for a caller that goes on after an error.
    if (g->dev_hist && cudaMemset(g->dev_hist, 0, g->hist_cap * sizeof *g->dev_hist) == 0)
        cudaDeviceSynchronize();
    return -1;
}

static void gpu_close(struct la_scan_backend *b)
{
    gpu_free((struct gpu *)b->state);
    b->state = NULL;
}

static const struct la_scan_backend_ops gpu_ops = { "gpu", gpu_scan, gpu_close };

/* The runtime's reason, made specific where it is vague: cudart says "driver
 * version is insufficient" both for an old driver and for none at all. */
static void explain_no_gpu(cudaError_t e, char *why, size_t whylen)
{
    int len = snprintf(why, whylen, "%s", cudaGetErrorString(e));
    size_t at = len < 0 ? 0 : (size_t)len < whylen ? (size_t)len : whylen;
    if (e != cudaErrorInsufficientDriver)
        return;
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    int drv = 0, rt = 0;
    if (!driver) {
        snprintf(why + at, whylen - at, ": no NVIDIA driver is installed, libcuda.so.1 not found");
        return;
    }
    dlclose(driver);
    if (cudaDriverGetVersion(&drv) == cudaSuccess && cudaRuntimeGetVersion(&rt) == cudaSuccess)
        snprintf(why + at, whylen - at, ": the driver supports CUDA %d.%d, this build needs %d.%d",
                 drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
}

extern "C" int la_gpu_probe(char *why, size_t whylen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) { // no driver, no device, ...: all mean "no GPU" here
        explain_no_gpu(e, why, whylen);
        cudaGetLastError();
        return 0;
    }
    if (n < 1) {
        snprintf(why, whylen, "no CUDA-capable device is detected");
        return 0;
    }
    // A device this binary has no code for (too old for CUDA 13) is no device either.
    struct cudaFuncAttributes fa;
    e = cudaFuncGetAttributes(&fa, scan_kernel<int64_t, EK_INT>);
    if (e != cudaSuccess) {
        snprintf(why, whylen, "%s", cudaGetErrorString(e));
        cudaGetLastError();
        return 0;
    }
    return 1;
}

extern "C" int la_scan_gpu_open(struct la_scan_backend *b, int threads, char *err,
                                size_t errlen)
{
    struct gpu *g = (struct gpu *)calloc(1, sizeof *g);
    int dev = 0, sms = 0;
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    // without the pool (out of memory) the scanning thread copies alone: slower, not wrong
    g->copiers = la_pool_open(threads < COPY_THREADS_MAX ? threads : COPY_THREADS_MAX);
    CU_TRY(cudaGetDevice(&dev));
    CU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // Enough resident blocks to hide latency; the loop strides over the rest.
    g->max_grid = (sms > 0 ? sms : 1) * 4;
    for (; g->n_streams < NSTREAMS; g->n_streams++)
        CU_TRY(cudaStreamCreateWithFlags(&g->stream[g->n_streams], cudaStreamNonBlocking));
    for (; g->n_events < NSTREAMS; g->n_events++)
        CU_TRY(cudaEventCreateWithFlags(&g->staged[g->n_events], cudaEventDisableTiming));
    CU_TRY(cudaEventCreateWithFlags(&g->done1, cudaEventDisableTiming));
    g->done1_made = 1;
    for (int s = 0; s < NSTREAMS; s++) {
        CU_TRY(cudaHostAlloc(&g->pinned[s], SUB_BYTES, cudaHostAllocDefault));
        CU_TRY(cudaMalloc(&g->dev_in[s], SUB_BYTES));
    }
    CU_TRY(cudaMalloc((void **)&g->dev_acc, sizeof *g->dev_acc));
    CU_TRY(cudaHostAlloc((void **)&g->host_acc, sizeof *g->host_acc, cudaHostAllocDefault));
    CU_TRY(cudaMalloc((void **)&g->dev_bad, BAD_CAP * sizeof *g->dev_bad));
    CU_TRY(cudaHostAlloc((void **)&g->host_bad, BAD_CAP * sizeof *g->host_bad,
                         cudaHostAllocDefault));
    b->ops = &gpu_ops;
    b->threads = 1;
    b->window_bytes = GPU_WINDOW_BYTES;
    b->state = g;
    return 0;
fail:
    gpu_free(g);
    return -1;
}
