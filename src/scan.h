/* scan.h - scan backends: fold chunks of labels into a file's la_stats.
 *
 * Two backends implement this interface: the CPU reference (scan_cpu.c,
 * pthreads) and CUDA (scan_cuda.cu, or scan_cuda_stub.c when built without
 * it). Both must leave identical stats for identical chunks; scan.c picks one. */
#ifndef LA_SCAN_H
#define LA_SCAN_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* int64_t */
#include "reader.h"
#include "stats.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

struct la_scan_backend;
struct la_progress;

struct la_scan_backend_ops {
    const char *name;   /* "cpu" or "gpu": the JSON "backend" field */
    /** scan() : fold chunk (never an unparsable one) into stats.
     *  @return 0, or -1 with a one-line reason in err. */
    int (*scan)(struct la_scan_backend *b, const struct la_chunk *chunk,
                const struct la_rule *rule, struct la_stats *stats, char *err, size_t errlen);
    void (*close)(struct la_scan_backend *b);
    /** scan_run() : fold a whole file run (reader.h), each thread reading its
     *  own contiguous share of the file; NULL, or a return of 1, when the
     *  backend cannot (the caller then maps windows and calls scan()).
     *  progress (may be NULL) is updated from the calling thread.
     *  @return 0, 1, -1 on a read error or -2 on a scan error, with the
     *  reason in err. */
    int (*scan_run)(struct la_scan_backend *b, const struct la_file_run *run,
                    const struct la_rule *rule, struct la_stats *stats,
                    struct la_progress *progress, char *err, size_t errlen);
    unsigned flags;     /* LA_SCANF_*: what the audit may do with this backend */
};

/* la_scan_backend_ops.flags */
enum {
    /* several files may be scanned at once, each on its own thread (the CPU);
     * without it a dataset's files take turns (one GPU is one device) */
    LA_SCANF_CONCURRENT = 1u << 0,
    /* may fail mid-file where the CPU would not (a device lost): --backend=auto
     * then reads the file again on the CPU, so no report goes out before
     * every file is read */
    LA_SCANF_FALLIBLE = 1u << 1,
};

struct la_scan_backend {
    const struct la_scan_backend_ops *ops;
    int threads;        /* CPU threads (-j) */
    size_t window_bytes; /* bytes of a mapped file per scan() call (0: the caller's) */
    void *state;
};

/** la_scan_cpu_open() : the CPU backend with the given thread count (>= 1). */
int la_scan_cpu_open(struct la_scan_backend *b, int threads);

/** la_gpu_probe() : 1 when a usable CUDA device is present; else 0 with the
 *  reason in why ("built without CUDA support", "no CUDA-capable device is detected"). */
int la_gpu_probe(char *why, size_t whylen);

/** la_scan_gpu_open() : the CUDA backend; threads (-j) bounds the host threads
 *  that copy labels into pinned memory. @return 0, or -1 with the reason in err. */
int la_scan_gpu_open(struct la_scan_backend *b, int threads, char *err, size_t errlen);

/* --backend=auto: what it decides from, the inputs as their readers' open()
 * found them (la_auto_hint_of, audit.h). Only values a reader offers as a
 * run of a regular file (reader.h's la_file_run: plain .npy, raw, an
 * uncompressed tensor of a .pt, .safetensors, HDF5 or .mat file) are read in
 * place, at memory speed; text is bounded by its parsing, .npz and compressed
 * files by inflating, far below what either backend scans, so their bytes do
 * not count. */
struct la_auto_hint {
    int64_t in_place_bytes;       /* the files whose values are read in place */
    int64_t in_place_float_bytes; /* ... of which float16/32/64 */
    int64_t parsed_bytes;         /* csv, tsv, text, .npz, compressed: the file sizes */
    int unknown;                  /* an input is not a regular file (a pipe, "-") */
    int64_t other_bytes;          /* of files read in place, the other arrays they hold */
};

/* The auto rule (la_auto_wants_gpu), estimates until tests/gpu-check.sh
 * measures the crossover on a GPU (it prints it):
 * - never with an input that is not a regular file: if the GPU failed
 *   mid-file, the CPU could not read it again;
 * - at least LA_GPU_MIN_BYTES read in place: creating a CUDA context costs
 *   some 0.2-0.5 s, in which the CPU scan already reads about a gigabyte;
 * - integer labels: with fewer than LA_GPU_INT_THREADS CPU threads (-j) only.
 *   The CPU's integer fold reaches the host memory bandwidth with that many
 *   threads, and the GPU path's copy into pinned memory needs that bus too;
 * - float labels (at least LA_GPU_MIN_BYTES of them): with fewer than
 *   LA_GPU_FLOAT_THREADS threads. The CPU classifies floats one by one, several
 *   times slower per core than integers, so the GPU wins up to many more cores. */
#define LA_GPU_MIN_BYTES (1ull << 30)
#define LA_GPU_INT_THREADS 8
#define LA_GPU_FLOAT_THREADS 64

/** la_auto_wants_gpu() : 1 when --backend=auto should use a GPU (if present)
 *  for inputs h scanned with threads CPU threads. */
int la_auto_wants_gpu(const struct la_auto_hint *h, int threads);

/** la_scan_choose() : open the backend --backend asks for. For auto, the GPU
 *  is used when present and la_auto_wants_gpu(hint, threads) (hint NULL: the CPU).
 *  @return 0, or -1 (only for --backend=gpu) with the reason in err. */
int la_scan_choose(struct la_scan_backend *b, int choice, int threads,
                   const struct la_auto_hint *hint, char *err, size_t errlen);

/** For tests: when set, called by the CPU backend's scan_run() once the
 *  shares are given out and before any is read, so that a test can cut the
 *  file at a known point. NULL in the tool. */
extern void (*la_run_test_hook)(int fd);

/** la_scan_cpu_rest() : the CPU backend's scan threads go back to the -j
 *  budget (pool.h) until its next scan of several parts starts them again;
 *  for any other backend, nothing. Called before each file's reader starts,
 *  since the reader may want them (its own thread, the CSV or HDF5 pools). */
void la_scan_cpu_rest(struct la_scan_backend *b);

/** la_scan_chunk_cpu_ref() : the single-threaded reference fold, used by the
 *  CPU backend per thread and by the GPU backend to recheck overflowing chunks. */
void la_scan_chunk_cpu_ref(const struct la_chunk *chunk, const struct la_rule *rule,
                           struct la_stats *stats);

static inline void la_scan_close(struct la_scan_backend *b)
{
    if (b->ops && b->ops->close)
        b->ops->close(b);
    b->ops = 0;
}

#ifdef __cplusplus
}
#endif

#endif
