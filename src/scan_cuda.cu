/* scan_cuda.cu - the CUDA scan backend: the same fold as scan_cpu.c, on a GPU.
 *
 * scan() is one synchronous call per chunk. Inside it the chunk is cut into
 * sub-chunks of SUB_BYTES that are pipelined over two streams: the host copies
 * sub-chunk k+1 into a pinned staging buffer (on up to 8 threads, stage())
 * while sub-chunk k is in flight (DMA to the device, then the kernels). Mapped
 * files come in windows of GPU_WINDOW_BYTES, so most copies overlap. Every
 * kernel folds into one device accumulator (struct acc) and one device
 * histogram with atomics, so the two streams never need to be merged. scan()
 * is enqueue() then read_back(): at the end of the chunk the host reads the
 * accumulator, the histogram bins that were touched, and the bad entries.
 *
 * Identical stats to the CPU by construction:
 * - the kernel classifies with the very functions the CPU uses (verdict.h) and
 *   converts elements exactly as scan_cpu.c does (half -> float -> double);
 * - counts, histogram and outlier bins are integer sums: order does not matter;
 * - min/max are order-free except for -0.0 vs 0.0 (equal, but printed
 *   differently): the CPU keeps the first one it meets, so the kernel records
 *   the first index of each zero and the host picks the earlier one;
 * - bad entries (chunk offset and verdict, la_bad_pack) are written in index
 *   order on the device: pass 1 counts them per block (each block folds a
 *   contiguous range), pass 2 (compact_kernel) places each block's after those
 *   of the blocks before it, each sub-chunk's from its own offset in a buffer
 *   as long as the chunk (a window of the narrowest dtype at most). The host
 *   reads them back in pieces of READ_PIECE and replays them through
 *   la_stats_add_bad(), values from the host copy of the chunk, so the cap,
 *   the sink and bad_samples behave exactly as on the CPU. No sort.
 * A chunk whose bad entries do not fit (a chunk longer than the buffer, or
 * LABELAUDIT_GPU_BAD_CAP) is scanned by the threaded CPU backend instead.
 *
 * Every CUDA call goes through CU_TRY(), which puts "cudaCall: message" in err,
 * takes the error back from the runtime (cudaGetLastError) and jumps to the
 * cleanup; nothing here exits. The stats are only touched after the chunk's
 * device work succeeded; a failed scan() waits for both streams and clears the
 * histogram on a stream (recover()) before it returns. After a sticky error
 * close resets the device, the one way to release its memory then.
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
#include <stdlib.h> // calloc, free, getenv, strtoull
#include <string.h> // memcpy, memset, strcspn

// Sub-chunk size: big enough that each copy and launch amortises its overhead,
// small enough that a 16-64 MiB reader chunk becomes 4-16 pieces to pipeline.
// A chunk of 4 MiB or less is one piece: nothing overlaps, and such small
// chunks are latency-bound anyway (--backend=auto keeps small inputs on the CPU).
#define SUB_BYTES ((size_t)4 << 20)
// Bad entries the device buffer holds: one per element of a window of the
// narrowest dtype, so a window never overflows it, however bad. A sub-chunk's
// entries start at its own offset in the chunk; a chunk larger than this whose
// entries do not fit is scanned by the threaded CPU backend instead.
// LABELAUDIT_GPU_BAD_CAP lowers it (tests/gpu-check.sh makes chunks overflow).
#define BAD_CAP (GPU_WINDOW_BYTES)
// Bad entries read back per copy into pinned host memory (8 MiB).
#define READ_PIECE ((size_t)1 << 20)
// Histograms up to this many bins are counted per block in shared memory
// (4 bytes a bin: 32 KiB, under the 48 KiB a launch gets without opting in).
#define SHARED_HIST_MAX 8192u
#define THREADS_PER_BLOCK 256
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
    unsigned long long bad_count;   // the chunk's bad entries
    unsigned long long any;         // some value took part in min/max
    unsigned long long key_lo, key_hi;
    unsigned long long zero_first[2]; // floats: first offset of +0.0 / -0.0 in min/max
    unsigned long long below[LA_OUTLIER_BINS], above[LA_OUTLIER_BINS];
};

// How a stored element becomes the number the verdict sees (as in scan_cpu.c).
enum elem_kind { EK_INT, EK_U64, EK_HALF, EK_FLOAT };

// One sub-chunk's launch: both kernels take it (by value), nothing else.
struct scan_args {
    const void *values;     // this sub-chunk, on the device
    size_t n;
    uint64_t offset;        // of values[0] within the chunk
    struct la_rule rule;
    uint64_t hist_len;
    int64_t above_base;
    struct acc *acc;
    unsigned long long *hist;  // hist_len bins (NULL when hist_len is 0)
    unsigned long long *bad;   // bad_len entries (la_bad_pack), in chunk order: this
    unsigned long long bad_len; //  sub-chunk's go from bad[offset] on
    unsigned long long *sub_bad;   // this sub-chunk's count of bad entries
    unsigned long long *block_bad; // ... and each block's, `blocks` of them
    unsigned blocks;           // the grid: block b takes a contiguous range (block_range)
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
    unsigned long long beyond, bad, hist_hi, any, lo, hi, zero_first[2];
};

FOLD_HD void fold_init(struct fold *f)
{
    for (int k = 0; k < LA_V_UNPARSABLE; k++)
        f->cnt[k] = 0;
    f->beyond = f->bad = f->hist_hi = f->any = f->hi = 0;
    f->lo = f->zero_first[0] = f->zero_first[1] = ~0ull;
}

FOLD_HD void note_key(struct fold *f, unsigned long long k)
{
    f->any = 1;
    f->lo = k < f->lo ? k : f->lo;
    f->hi = k > f->hi ? k : f->hi;
}

// count_valid() of scan_cpu.c: a bin when it fits, else "beyond" (verdict.h).
FOLD_HD void count_valid(const struct scan_args *a, struct fold *f, unsigned *sh_hist,
                         int64_t label)
{
    uint64_t c = (uint64_t)label;
    if (la_hist_fits(label, a->hist_len)) {
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
// The shared bins are laid out as la_outlier_slot() numbers them.
FOLD_HD void count_outlier(const struct scan_args *a, unsigned *sh_out, int verdict, int64_t x)
{
    int slot = la_outlier_slot(verdict, x, a->above_base, LA_OUTLIER_BINS);
    if (slot >= 0)
        bump32(&sh_out[slot]);
}

// How a stored element becomes the double the verdict sees (as in scan_cpu.c).
template <typename S, int K>
FOLD_HD double as_double(S raw)
{
    if constexpr (K == EK_HALF)
        return (double)la_half_to_float(raw);
    else
        return (double)raw;
}

// The verdict of one stored element, alone: what the compaction pass needs.
template <typename S, int K>
FOLD_HD int verdict_of(S raw, const struct la_rule *r)
{
    if constexpr (K == EK_INT)
        return la_verdict_i64((int64_t)raw, r);
    else if constexpr (K == EK_U64)
        return la_verdict_u64((uint64_t)raw, r);
    else
        return la_verdict_f64(as_double<S, K>(raw), r);
}

// A bad entry: a verdict that is neither valid nor the ignore index.
FOLD_HD bool is_bad(int verdict)
{
    return verdict != LA_V_VALID && verdict != LA_V_IGNORED;
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
        double x = as_double<S, K>(raw);
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
        int64_t label;
        if (v == LA_V_VALID) {
            if (!r->bce) { // a valid float beyond int64 is counted "beyond", as on the CPU
                if (la_f64_label(x, &label))
                    count_valid(a, f, sh_hist, label);
                else
                    f->beyond++;
            }
        } else {
            if (la_f64_label(x, &label))
                count_outlier(a, sh_out, v, label);
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

// The elements [*lo, *hi) of the sub-chunk that block b folds: contiguous, and
// whole tiles of THREADS_PER_BLOCK elements, so that the compaction pass can write each
// block's bad entries in index order after those of the blocks before it.
FOLD_HD void block_range(const struct scan_args *a, unsigned b, size_t *lo, size_t *hi)
{
    size_t per = (a->n + a->blocks - 1) / a->blocks;
    per = (per + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK * THREADS_PER_BLOCK;
    *lo = (size_t)b * per < a->n ? (size_t)b * per : a->n;
    *hi = a->n - *lo < per ? a->n : *lo + per;
}

// ---- block reduction, shared with the host emulation --------------------------------
//
// A struct fold travels as a vector of NRED words: the sums first, then the
// maxima, then the minima, so a word's position says how two are combined.
#define NSUM (LA_V_UNPARSABLE + 2)  // cnt[], beyond, bad
#define BAD_WORD (NSUM - 1)
#define NMAX 3                      // hist_hi, any, hi
#define NMIN 3                      // lo, zero_first[2]
#define NRED (NSUM + NMAX + NMIN)

FOLD_HD void fold_pack(const struct fold *f, unsigned long long x[NRED])
{
    for (int k = 0; k < LA_V_UNPARSABLE; k++)
        x[k] = f->cnt[k];
    x[NSUM - 2] = f->beyond;
    x[BAD_WORD] = f->bad;
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

// Fold block b's reduced vector into the chunk's accumulator, and note its
// count of bad entries for the compaction pass.
FOLD_HD void acc_add_block(const struct scan_args *a, unsigned b, const unsigned long long x[NRED])
{
    struct acc *g = a->acc;
    for (int k = 0; k < LA_V_UNPARSABLE; k++)
        if (x[k])
            add64(&g->n_verdict[k], x[k]);
    if (x[NSUM - 2])
        add64(&g->hist_beyond, x[NSUM - 2]);
    a->block_bad[b] = x[BAD_WORD];
    if (x[BAD_WORD]) {
        add64(&g->bad_count, x[BAD_WORD]);
        add64(a->sub_bad, x[BAD_WORD]);
    }
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

// Pass 1, one kernel per element type: fold every element into the block's
// partial state, the shared bins and the accumulator, and count bad entries
// per block (the compaction pass places them from those counts).
template <typename S, int K>
__global__ void scan_kernel(struct scan_args a)
{
    extern __shared__ unsigned sh_hist_dyn[];    // hist_len bins when they fit
    __shared__ unsigned sh_out[2 * LA_OUTLIER_BINS];
    __shared__ unsigned long long sh_red[THREADS_PER_BLOCK / 32][NRED];

    unsigned *sh_hist = hist_in_shared(&a) ? sh_hist_dyn : NULL;
    clear_shared_bins(&a, sh_hist, sh_out, threadIdx.x, blockDim.x);
    __syncthreads();

    struct fold f;
    fold_init(&f);

    const S *v = (const S *)a.values;
    size_t lo, hi;
    block_range(&a, blockIdx.x, &lo, &hi);
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        bool bad = false;
        int verdict = fold_one<S, K>(&a, &f, sh_hist, sh_out, v[i], a.offset + i, &bad);
        count_verdict(&f, verdict);
        f.bad += bad;
    }

    // Block reduction: warps by shuffles, then warp 0 over the warps' results.
    const unsigned lane = threadIdx.x & 31;
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
            acc_add_block(&a, blockIdx.x, x);
    }
    // The __syncthreads above ordered every update of the shared bins.
    flush_shared_bins(&a, sh_hist, sh_out, threadIdx.x, blockDim.x);
}

// The sum of x over the block, in every thread; sh holds a word per warp.
__device__ unsigned long long block_sum(unsigned long long x, unsigned long long *sh)
{
    for (int d = 16; d > 0; d >>= 1)
        x += __shfl_down_sync(0xffffffffu, x, d);
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x / 32] = x;
    __syncthreads();
    unsigned long long total = 0;
    for (unsigned w = 0; w < blockDim.x / 32; w++)
        total += sh[w];
    __syncthreads(); // sh may be reused
    return total;
}

// Pass 2, after pass 1 on the same stream: write the sub-chunk's bad entries
// in index order, from bad[offset] on. Block b's entries follow those of
// blocks 0..b-1 (their pass-1 counts); within a block, tile after tile, each
// entry's place is the number of bad entries before it: a ballot per warp and
// a prefix over the warps. Nothing to do, the usual case, costs one read.
template <typename S, int K>
__global__ void compact_kernel(struct scan_args a)
{
    __shared__ unsigned long long sh_sum[THREADS_PER_BLOCK / 32];
    __shared__ unsigned sh_warp[THREADS_PER_BLOCK / 32];
    if (*a.sub_bad == 0 || a.block_bad[blockIdx.x] == 0)
        return; // the same for every thread of the block
    unsigned long long before = 0;
    for (unsigned j = threadIdx.x; j < blockIdx.x; j += blockDim.x)
        before += a.block_bad[j];
    unsigned long long pos = a.offset + block_sum(before, sh_sum);

    const S *v = (const S *)a.values;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    size_t lo, hi;
    block_range(&a, blockIdx.x, &lo, &hi);
    for (size_t t = lo; t < hi; t += blockDim.x) { // the same trip count for every lane
        size_t i = t + threadIdx.x;
        int verdict = i < hi ? verdict_of<S, K>(v[i], &a.rule) : LA_V_VALID;
        bool bad = is_bad(verdict);
        unsigned mask = __ballot_sync(0xffffffffu, bad);
        if (lane == 0)
            sh_warp[warp] = __popc(mask);
        __syncthreads();
        unsigned below = 0, tile = 0;
        for (unsigned w = 0; w < nwarps; w++) {
            below += w < warp ? sh_warp[w] : 0;
            tile += sh_warp[w];
        }
        unsigned long long at = pos + below + __popc(mask & ((1u << lane) - 1u));
        if (bad && at < a.bad_len)
            a.bad[at] = la_bad_pack(a.offset + i, verdict);
        pos += tile;
        __syncthreads(); // sh_warp is rewritten by the next tile
    }
}

// ---- launchers -----------------------------------------------------------------

template <typename S, int K>
static cudaError_t launch_typed(const struct scan_args *a, int grid, cudaStream_t st)
{
    size_t shmem = hist_in_shared(a) ? (size_t)a->hist_len * sizeof(unsigned) : 0;
    scan_kernel<S, K><<<grid, THREADS_PER_BLOCK, shmem, st>>>(*a);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    compact_kernel<S, K><<<grid, THREADS_PER_BLOCK, 0, st>>>(*a);
    return cudaGetLastError();
}

/* grid_for() : blocks for n elements: one per THREADS_PER_BLOCK, at most max_grid (a few
 * per SM; each block then takes a longer contiguous range). */
static unsigned grid_for(size_t n, int max_grid)
{
    size_t blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    return blocks < 1 ? 1u : blocks < (size_t)max_grid ? (unsigned)blocks : (unsigned)max_grid;
}

// Element type tags: by_dtype() calls fn(elem<S, K>{}) for a chunk's dtype, so
// that each use (the launch, the host's own pass) has one dtype switch.
template <typename S_, int K_>
struct elem {
    typedef S_ S;
    static const int K = K_;
};

/* by_dtype() : fn(elem<S, K>{}) for dt; @return 0, or -1 for an unknown dtype. */
template <typename Fn>
static int by_dtype(enum la_dtype dt, Fn fn)
{
    switch (dt) {
    case LA_DT_BOOL:    fn(elem<uint8_t, EK_INT>{}); return 0;
    case LA_DT_INT8:    fn(elem<int8_t, EK_INT>{}); return 0;
    case LA_DT_UINT8:   fn(elem<uint8_t, EK_INT>{}); return 0;
    case LA_DT_INT16:   fn(elem<int16_t, EK_INT>{}); return 0;
    case LA_DT_UINT16:  fn(elem<uint16_t, EK_INT>{}); return 0;
    case LA_DT_INT32:   fn(elem<int32_t, EK_INT>{}); return 0;
    case LA_DT_UINT32:  fn(elem<uint32_t, EK_INT>{}); return 0;
    case LA_DT_INT64:   fn(elem<int64_t, EK_INT>{}); return 0;
    case LA_DT_UINT64:  fn(elem<uint64_t, EK_U64>{}); return 0;
    case LA_DT_FLOAT16: fn(elem<uint16_t, EK_HALF>{}); return 0;
    case LA_DT_FLOAT32: fn(elem<float, EK_FLOAT>{}); return 0;
    case LA_DT_FLOAT64: fn(elem<double, EK_FLOAT>{}); return 0;
    default:            return -1;
    }
}

/* launch_scan() : fold one device-resident sub-chunk of dtype dt into a->acc
 * and a->hist, and write its bad entries in order into a->bad, on stream st
 * (a->blocks blocks). */
static cudaError_t launch_scan(enum la_dtype dt, const struct scan_args *a, cudaStream_t st)
{
    cudaError_t e = cudaErrorInvalidValue;
    by_dtype(dt, [&](auto t) {
        e = launch_typed<typename decltype(t)::S, decltype(t)::K>(a, (int)a->blocks, st);
    });
    return e;
}

// ---- host side -----------------------------------------------------------------

// LABELAUDIT_GPU_FAULT=N: the Nth CUDA call that CU_TRY checks (counted from
// la_scan_gpu_open) is reported as failed after it ran, so that the retry and
// the CPU fallback can be exercised on a real GPU (tests/gpu-check.sh).
static long fault_at, fault_calls;
static int fault_fired;
#define FAULT_MESSAGE "injected by LABELAUDIT_GPU_FAULT"

static cudaError_t checked(cudaError_t e)
{
    if (fault_at && ++fault_calls == fault_at && e == cudaSuccess) {
        fault_fired = 1;
        return cudaErrorUnknown;
    }
    return e;
}

/* Put "cudaName: message" in err, and take the error back from the runtime:
 * it stays the thread's last error otherwise, and the next launch, which reads
 * cudaGetLastError(), would fail for nothing. */
static void cu_failed(cudaError_t e, const char *call, char *err, size_t errlen)
{
    snprintf(err, errlen, "%.*s: %s", (int)strcspn(call, "("), call,
             fault_fired ? FAULT_MESSAGE : cudaGetErrorString(e));
    fault_fired = 0;
    cudaGetLastError();
}

/* CU_TRY(call) : run a CUDA runtime call; on failure put "cudaName: message" in
 * err and go to the enclosing function's fail label. */
#define CU_TRY(call)                                                                    \
    do {                                                                                \
        cudaError_t e_ = checked(call);                                                 \
        if (e_ != cudaSuccess) {                                                        \
            cu_failed(e_, #call, err, errlen);                                          \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

struct gpu {
    struct la_pool *copiers;        // NULL: the scanning thread copies alone
    int threads;                    // -j: also the CPU backend's, on overflow
    struct la_scan_backend cpu;     // the threaded CPU scan, opened on the first overflow
    cudaStream_t stream[NSTREAMS];
    cudaEvent_t staged[NSTREAMS];   // the DMA out of pinned[s] has finished
    cudaEvent_t joined;             // orders one stream's work before the other's
    void *pinned[NSTREAMS];         // host staging, SUB_BYTES each
    void *dev_in[NSTREAMS];         // device copies, SUB_BYTES each
    struct acc *dev_acc, *host_acc; // host_acc is pinned
    unsigned long long *dev_bad;    // bad_len entries, a sub-chunk's from its offset on
    size_t bad_len, bad_limit;      // entries allocated; the most to allocate
    unsigned long long *host_piece; // piece entries, pinned: the read-back goes through it
    size_t piece;
    unsigned long long *dev_sub_bad, *host_sub_bad; // per sub-chunk: its bad entries
    unsigned long long *dev_block_bad; // per sub-chunk, per block (max_grid each)
    size_t slots;                   // sub-chunks those three have room for
    unsigned long long *dev_hist;   // atomics need unsigned long long
    uint64_t *host_hist;            // read back: la_stats' type
    uint64_t hist_cap;              // bins allocated in dev_hist/host_hist
    int max_grid;
    int n_streams, n_events;        // how many were created, for close
    int joined_made;
    // what happened, for tests and LABELAUDIT_GPU_REPORT
    unsigned long long chunks, overflows, pieces, host_finishes;
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

// ---- device memory -------------------------------------------------------------------

static void free_device_memory(struct gpu *g)
{
    for (int s = 0; s < NSTREAMS; s++) {
        cudaFreeHost(g->pinned[s]);
        cudaFree(g->dev_in[s]);
    }
    for (int s = 0; s < g->n_events; s++)
        cudaEventDestroy(g->staged[s]);
    if (g->joined_made)
        cudaEventDestroy(g->joined);
    for (int s = 0; s < g->n_streams; s++)
        cudaStreamDestroy(g->stream[s]);
    cudaFree(g->dev_acc);
    cudaFreeHost(g->host_acc);
    cudaFree(g->dev_bad);
    cudaFreeHost(g->host_piece);
    cudaFree(g->dev_sub_bad);
    cudaFreeHost(g->host_sub_bad);
    cudaFree(g->dev_block_bad);
    cudaFree(g->dev_hist);
    cudaFreeHost(g->host_hist);
}

static void gpu_free(struct gpu *g)
{
    if (!g)
        return;
    cudaGetLastError();
    // Work still queued ends first. If that fails, the context is lost (a sticky
    // error: a kernel fault, a device gone) and every call fails, cudaFree
    // included: resetting the device is then what releases the memory, pinned
    // buffers included. This process has no other CUDA user to disturb.
    if (cudaDeviceSynchronize() == cudaSuccess)
        free_device_memory(g);
    else
        cudaDeviceReset();
    cudaGetLastError();
    la_scan_close(&g->cpu);
    la_pool_close(g->copiers);
    if (getenv("LABELAUDIT_GPU_REPORT"))
        fprintf(stderr, "labelaudit: gpu: %llu chunks, %llu overflowed to the CPU, "
                "%llu read-back pieces, %llu finished on the host\n", g->chunks, g->overflows,
                g->pieces, g->host_finishes);
    free(g);
}

/* After a failure: let the work still queued on both streams end (the legacy
 * stream would not wait for it), then clear the histogram on a stream and
 * wait, so that neither the failed call's kernels nor this reset can race the
 * next call's work. Errors here are ignored: the next call reports its own. */
static void recover(struct gpu *g)
{
    cudaGetLastError();
    for (int s = 0; s < g->n_streams; s++)
        cudaStreamSynchronize(g->stream[s]);
    if (g->dev_hist &&
        cudaMemsetAsync(g->dev_hist, 0, g->hist_cap * sizeof *g->dev_hist, g->stream[0]) ==
            cudaSuccess)
        cudaStreamSynchronize(g->stream[0]);
    cudaGetLastError();
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
    CU_TRY(cudaMemsetAsync(g->dev_hist, 0, bins * sizeof *g->dev_hist, g->stream[0]));
    CU_TRY(cudaStreamSynchronize(g->stream[0]));
    CU_TRY(cudaHostAlloc((void **)&g->host_hist, bins * sizeof *g->host_hist,
                         cudaHostAllocDefault));
    g->hist_cap = bins;
    return 0;
fail:
    return -1;
}

/* Room for the bad entries of a chunk of count elements (at most bad_limit)
 * and for the counts of its nsubs sub-chunks. */
static int ensure_room(struct gpu *g, size_t count, size_t nsubs, char *err, size_t errlen)
{
    size_t want = count < g->bad_limit ? count : g->bad_limit;
    if (want > g->bad_len) {
        cudaFree(g->dev_bad);
        g->dev_bad = NULL;
        g->bad_len = 0;
        CU_TRY(cudaMalloc((void **)&g->dev_bad, want * sizeof *g->dev_bad));
        g->bad_len = want;
    }
    if (nsubs > g->slots) {
        cudaFree(g->dev_sub_bad);
        cudaFreeHost(g->host_sub_bad);
        cudaFree(g->dev_block_bad);
        g->dev_sub_bad = g->host_sub_bad = g->dev_block_bad = NULL;
        g->slots = 0;
        CU_TRY(cudaMalloc((void **)&g->dev_sub_bad, nsubs * sizeof *g->dev_sub_bad));
        CU_TRY(cudaHostAlloc((void **)&g->host_sub_bad, nsubs * sizeof *g->host_sub_bad,
                             cudaHostAllocDefault));
        CU_TRY(cudaMalloc((void **)&g->dev_block_bad,
                          nsubs * (size_t)g->max_grid * sizeof *g->dev_block_bad));
        g->slots = nsubs;
    }
    return 0;
fail:
    return -1;
}

// ---- one chunk: enqueue ---------------------------------------------------------------

/* What a chunk's scan needs to know about how it was cut. */
struct plan {
    size_t per_sub;     // elements per sub-chunk
    size_t nsubs;
    uint64_t hist_len;  // bins the device counts (0: no histogram)
};

/* enqueue() : reset the accumulators, then pipeline the chunk's sub-chunks over
 * both streams (stage into pinned memory, copy, both kernels), then join the
 * streams and read back the accumulator and the per-sub-chunk counts. */
static int enqueue(struct gpu *g, const struct la_chunk *c, const struct la_rule *r,
                   const struct la_stats *s, const struct plan *p, char *err, size_t errlen)
{
    const size_t elem = la_dtype_info(c->dtype)->size;
    struct scan_args a;
    memset(&a, 0, sizeof a);
    a.rule = *r;
    a.hist_len = p->hist_len;
    a.above_base = s->above_base;
    a.acc = g->dev_acc;
    a.hist = p->hist_len ? g->dev_hist : NULL;
    a.bad = g->dev_bad;
    a.bad_len = g->bad_len;

    // The accumulators are reset on stream 0; stream 1 waits for that.
    acc_reset(g->host_acc);
    CU_TRY(cudaMemcpyAsync(g->dev_acc, g->host_acc, sizeof *g->dev_acc, cudaMemcpyHostToDevice,
                           g->stream[0]));
    CU_TRY(cudaMemsetAsync(g->dev_sub_bad, 0, p->nsubs * sizeof *g->dev_sub_bad, g->stream[0]));
    CU_TRY(cudaEventRecord(g->joined, g->stream[0]));
    CU_TRY(cudaStreamWaitEvent(g->stream[1], g->joined, 0));

    for (size_t k = 0; k < p->nsubs; k++) {
        int st = (int)(k % NSTREAMS);
        size_t lo = k * p->per_sub;
        size_t n = c->count - lo < p->per_sub ? c->count - lo : p->per_sub;
        // pinned[st] is free once its previous DMA is done (the kernels read dev_in).
        CU_TRY(cudaEventSynchronize(g->staged[st]));
        stage(g, g->pinned[st], (const char *)c->values + lo * elem, n * elem);
        CU_TRY(cudaMemcpyAsync(g->dev_in[st], g->pinned[st], n * elem, cudaMemcpyHostToDevice,
                               g->stream[st]));
        CU_TRY(cudaEventRecord(g->staged[st], g->stream[st]));
        a.values = g->dev_in[st];
        a.n = n;
        a.offset = lo;
        a.sub_bad = g->dev_sub_bad + k;
        a.block_bad = g->dev_block_bad + k * (size_t)g->max_grid;
        a.blocks = grid_for(n, g->max_grid);
        CU_TRY(launch_scan(c->dtype, &a, g->stream[st]));
    }

    // Join stream 1 into stream 0, then read the accumulator and the counts.
    CU_TRY(cudaEventRecord(g->joined, g->stream[1]));
    CU_TRY(cudaStreamWaitEvent(g->stream[0], g->joined, 0));
    CU_TRY(cudaMemcpyAsync(g->host_acc, g->dev_acc, sizeof *g->host_acc, cudaMemcpyDeviceToHost,
                           g->stream[0]));
    CU_TRY(cudaMemcpyAsync(g->host_sub_bad, g->dev_sub_bad, p->nsubs * sizeof *g->host_sub_bad,
                           cudaMemcpyDeviceToHost, g->stream[0]));
    CU_TRY(cudaStreamSynchronize(g->stream[0]));
    return 0;
fail:
    return -1;
}

// ---- one chunk: read back -----------------------------------------------------------------

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

/* Merge the accumulator and the touched bins of one chunk into s, as a CPU
 * part's stats merge (la_stats_merge); the bad entries come after. */
static void apply_counts(struct gpu *g, const struct la_chunk *c, struct la_stats *s)
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
}

/* The first labels 0 of c, found on the host where the device's histogram
 * counted some in it and the stats still want their places (the CPU folds
 * note them as they go): the one-based finding names a stray 0's rows. */
static void note_zeros_on_host(const struct gpu *g, const struct la_chunk *c,
                               const struct la_rule *r, struct la_stats *s, uint64_t bins)
{
    if (!bins || g->host_hist[0] == 0 || s->n_zero_first >= LA_BAD_VALUE_FIRST ||
        (r->has_ignore && r->ignore == 0))
        return;
    for (uint64_t i = 0; i < c->count && s->n_zero_first < LA_BAD_VALUE_FIRST; i++) {
        struct la_num x = bad_value(c, i);
        if ((x.kind == LA_NUM_I64 && x.v.i == 0) || (x.kind == LA_NUM_U64 && x.v.u == 0) ||
            (x.kind == LA_NUM_F64 && x.v.f == 0))
            la_stats_note_zero(s, c->first_index + i);
    }
}

/* Where the read-back of a chunk's bad entries stands. */
struct cursor {
    size_t sub;         // the sub-chunk being read
    uint64_t done;      // of its entries, already queued
    uint64_t next;      // chunk offset after the last entry replayed
};

/* Queue the copy of the next entries (up to a piece) into host_piece, on
 * stream 0; *n says how many. */
static cudaError_t queue_piece(struct gpu *g, const struct plan *p, struct cursor *cur,
                               size_t *n)
{
    *n = 0;
    while (cur->sub < p->nsubs && *n < g->piece) {
        uint64_t left = g->host_sub_bad[cur->sub] - cur->done;
        size_t m = left < g->piece - *n ? (size_t)left : g->piece - *n;
        if (m) {
            cudaError_t e = checked(cudaMemcpyAsync(
                g->host_piece + *n, g->dev_bad + cur->sub * p->per_sub + cur->done,
                m * sizeof *g->host_piece, cudaMemcpyDeviceToHost, g->stream[0]));
            if (e != cudaSuccess)
                return e;
        }
        *n += m;
        cur->done += m;
        if (cur->done == g->host_sub_bad[cur->sub]) {
            cur->sub++;
            cur->done = 0;
        }
    }
    g->pieces += *n != 0;
    return cudaSuccess;
}

/* Replay n entries of host_piece, in index order as the CPU meets them. */
static void replay_piece(struct gpu *g, const struct la_chunk *c, struct la_stats *s, size_t n,
                         struct cursor *cur)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t off = la_bad_offset(g->host_piece[i]);
        la_stats_add_bad(s, c->first_index + off, la_bad_verdict(g->host_piece[i]),
                         bad_value(c, off), NULL);
        cur->next = off + 1;
    }
}

/* The bad entries of c from offset `from` on, found on the host with the
 * kernel's own verdict: how a read-back that fails half-way is finished. */
static void bad_entries_on_host(const struct la_chunk *c, const struct la_rule *r,
                                struct la_stats *s, uint64_t from)
{
    by_dtype(c->dtype, [&](auto t) {
        typedef typename decltype(t)::S S;
        const S *v = (const S *)c->values;
        for (size_t i = from; i < c->count; i++) {
            int verdict = verdict_of<S, decltype(t)::K>(v[i], r);
            if (is_bad(verdict))
                la_stats_add_bad(s, c->first_index + i, verdict, bad_value(c, i), NULL);
        }
    });
}

/* The threaded CPU scan, for a chunk whose bad entries overflowed the buffer. */
static int scan_on_cpu(struct gpu *g, const struct la_chunk *c, const struct la_rule *r,
                       struct la_stats *s, char *err, size_t errlen)
{
    g->overflows++;
    if (!g->cpu.ops)
        la_scan_cpu_open(&g->cpu, g->threads);
    return g->cpu.ops->scan(&g->cpu, c, r, s, err, errlen);
}

/* read_back() : the chunk's histogram bins and bad entries, into s. Every call
 * that can fail comes before s is touched, but for the copies of the second
 * and later pieces: if one of those fails, the rest of the entries are found
 * on the host, so that s is still exact. */
static int read_back(struct gpu *g, const struct la_chunk *c, const struct la_rule *r,
                     struct la_stats *s, const struct plan *p, char *err, size_t errlen)
{
    const struct acc *h = g->host_acc;
    uint64_t bins = h->hist_hi < p->hist_len ? h->hist_hi : p->hist_len;
    int overflow = 0;
    for (size_t k = 0; k < p->nsubs; k++)
        overflow |= k * p->per_sub + g->host_sub_bad[k] > g->bad_len;
    struct cursor cur = { 0, 0, 0 };
    size_t n = 0;
    cudaError_t e;
    if (bins && !overflow)
        CU_TRY(cudaMemcpyAsync(g->host_hist, g->dev_hist, bins * sizeof *g->host_hist,
                               cudaMemcpyDeviceToHost, g->stream[0]));
    if (bins)
        CU_TRY(cudaMemsetAsync(g->dev_hist, 0, bins * sizeof *g->dev_hist, g->stream[0]));
    if (!overflow && (e = queue_piece(g, p, &cur, &n)) != cudaSuccess) {
        cu_failed(e, "cudaMemcpyAsync", err, errlen);
        goto fail;
    }
    CU_TRY(cudaStreamSynchronize(g->stream[0]));
    if (overflow)
        return scan_on_cpu(g, c, r, s, err, errlen);
    note_zeros_on_host(g, c, r, s, bins);   /* before the merge adds this chunk's bins */
    apply_counts(g, c, s);
    replay_piece(g, c, s, n, &cur);
    while (cur.sub < p->nsubs) {
        if (queue_piece(g, p, &cur, &n) != cudaSuccess ||
            checked(cudaStreamSynchronize(g->stream[0])) != cudaSuccess) {
            fault_fired = 0;
            recover(g);
            g->host_finishes++;
            bad_entries_on_host(c, r, s, cur.next);
            return 0;
        }
        replay_piece(g, c, s, n, &cur);
    }
    return 0;
fail:
    return -1;
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
    struct plan p;
    p.per_sub = SUB_BYTES / la_dtype_info(c->dtype)->size;
    p.nsubs = (c->count + p.per_sub - 1) / p.per_sub;
    p.hist_len = s->hist ? s->hist_len : 0;
    g->chunks++;
    if (ensure_hist(g, p.hist_len, err, errlen) != 0 ||
        ensure_room(g, c->count, p.nsubs, err, errlen) != 0 ||
        enqueue(g, c, r, s, &p, err, errlen) != 0 || read_back(g, c, r, s, &p, err, errlen) != 0) {
        recover(g);
        return -1;
    }
    return 0;
}

static void gpu_close(struct la_scan_backend *b)
{
    gpu_free((struct gpu *)b->state);
    b->state = NULL;
}

static const struct la_scan_backend_ops gpu_ops = { "gpu", gpu_scan, gpu_close, NULL,
                                                     LA_SCANF_FALLIBLE };

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

/* A positive count from the environment variable name, or dflt. */
static size_t env_count(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long n = v ? strtoull(v, &end, 10) : 0;
    return v && *v && !*end && n > 0 ? (size_t)n : dflt;
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
    // without the pool (out of memory) the scanning thread copies alone: slower, not wrong;
    // its threads start at the first copy, so that a file's reader thread (of the same -j
    // budget, pool.h) is started first
    g->copiers = la_pool_open_lazy(threads < COPY_THREADS_MAX ? threads : COPY_THREADS_MAX);
    g->threads = threads;
    g->bad_limit = env_count("LABELAUDIT_GPU_BAD_CAP", BAD_CAP);
    g->piece = READ_PIECE;
    fault_at = (long)env_count("LABELAUDIT_GPU_FAULT", 0);
    fault_calls = 0;
    CU_TRY(cudaGetDevice(&dev));
    CU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // Enough resident blocks to hide latency; each takes a longer range beyond.
    g->max_grid = (sms > 0 ? sms : 1) * 4;
    for (; g->n_streams < NSTREAMS; g->n_streams++)
        CU_TRY(cudaStreamCreateWithFlags(&g->stream[g->n_streams], cudaStreamNonBlocking));
    for (; g->n_events < NSTREAMS; g->n_events++)
        CU_TRY(cudaEventCreateWithFlags(&g->staged[g->n_events], cudaEventDisableTiming));
    CU_TRY(cudaEventCreateWithFlags(&g->joined, cudaEventDisableTiming));
    g->joined_made = 1;
    for (int s = 0; s < NSTREAMS; s++) {
        CU_TRY(cudaHostAlloc(&g->pinned[s], SUB_BYTES, cudaHostAllocDefault));
        CU_TRY(cudaMalloc(&g->dev_in[s], SUB_BYTES));
    }
    CU_TRY(cudaMalloc((void **)&g->dev_acc, sizeof *g->dev_acc));
    CU_TRY(cudaHostAlloc((void **)&g->host_acc, sizeof *g->host_acc, cudaHostAllocDefault));
    // dev_bad, the sub-chunk counts and the histogram grow with the chunks seen
    CU_TRY(cudaHostAlloc((void **)&g->host_piece, g->piece * sizeof *g->host_piece,
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
