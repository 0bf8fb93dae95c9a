/* scan.h - scan backends: fold chunks of labels into a file's la_stats.
 *
 * Two backends implement this interface: the CPU reference (scan_cpu.c,
 * pthreads) and CUDA (scan_cuda.cu, or scan_cuda_stub.c when built without
 * it). Both must leave identical stats for identical chunks; scan.c picks one. */
#ifndef LA_SCAN_H
#define LA_SCAN_H

#include <stddef.h> /* size_t */
#include "reader.h"
#include "stats.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

struct la_scan_backend;

struct la_scan_backend_ops {
    const char *name;   /* "cpu" or "gpu": the JSON "backend" field */
    /** scan() : fold chunk (never an unparsable one) into stats.
     *  @return 0, or -1 with a one-line reason in err. */
    int (*scan)(struct la_scan_backend *b, const struct la_chunk *chunk,
                const struct la_rule *rule, struct la_stats *stats, char *err, size_t errlen);
    void (*close)(struct la_scan_backend *b);
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

/* Below this many input bytes, --backend=auto stays on the CPU. Not yet
 * measured on a GPU (tests/gpu-check.sh prints the crossover): creating a CUDA
 * context costs some 0.2-0.5 s, in which the CPU scan already reads about a
 * gigabyte from the page cache, and every byte must cross the host memory bus
 * either way, so the GPU can only win on inputs well beyond that. */
#define LA_GPU_MIN_BYTES (1ull << 30)

/** la_scan_choose() : open the backend --backend asks for. For auto, the GPU
 *  is used when present and expected_bytes >= LA_GPU_MIN_BYTES (-1: unknown, CPU).
 *  @return 0, or -1 (only for --backend=gpu) with the reason in err. */
int la_scan_choose(struct la_scan_backend *b, int choice, int threads, int64_t expected_bytes,
                   char *err, size_t errlen);

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
