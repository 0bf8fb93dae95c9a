/* fake_cudart.h - the knobs of fake_cudart.c, a CUDA runtime that runs on the CPU.
 *
 * A test program links fake_cudart.o instead of libcudart_static: device memory
 * is host memory, and a kernel launch calls fake_cuda_launch with the kernel's
 * host stub and its arguments, so the test can run the kernel's host emulation.
 * Every call the backend checks counts in fake_cuda_calls; the one numbered
 * fake_cuda_fail_at fails, and its error becomes the thread's last error
 * (cudaGetLastError), as with the real runtime.
 *
 * Two ways to complete work:
 * - at once (fake_cuda_deferred = 0): every copy, memset and launch is done
 *   when the call returns, so streams and events order nothing;
 * - late (fake_cuda_deferred = 1): work on a stream is queued and done only
 *   when something waits for it (cudaStreamSynchronize, cudaEventSynchronize,
 *   cudaDeviceSynchronize, a cudaStreamWaitEvent on another stream, cudaFree),
 *   so one stream's work completes out of order with the other's, the legacy
 *   stream (cudaMemset) waits for neither, and a copy reads its source when it
 *   runs, not when it was queued: the orderings a real GPU may show.
 * With fake_cuda_sticky, the failure is a sticky one, as after a kernel fault:
 * every later call fails, nothing is freed, until cudaDeviceReset() frees all. */
#ifndef LA_FAKE_CUDART_H
#define LA_FAKE_CUDART_H

#include <stddef.h> /* size_t */

#ifdef __cplusplus
extern "C" {
#endif

extern long fake_cuda_calls;      /* checked calls made so far */
extern long fake_cuda_fail_at;    /* the call (1-based) that fails; 0: none */
extern long fake_cuda_live;       /* allocations, streams and events not released */
extern const char *fake_cuda_failed; /* the function that failed, or NULL */
extern int fake_cuda_deferred;    /* 1: stream work completes late (see above) */
extern int fake_cuda_sticky;      /* 1: the injected failure is sticky */
extern long fake_cuda_resets;     /* cudaDeviceReset() calls */
/* Bytes of a kernel's one argument (a struct passed by value), copied when a
 * launch is queued; 0 runs every launch at once even when deferred. */
extern size_t fake_cuda_arg_bytes;

/* Run one launch: kernel is the __global__ function's host address, args its
 * argument pointers. Set by the test before any launch. */
extern void (*fake_cuda_launch)(const void *kernel, void **args);

/* The message cudaGetErrorString() gives for an injected failure. */
#define FAKE_CUDA_MESSAGE "injected failure"

#ifdef __cplusplus
}
#endif

#endif
