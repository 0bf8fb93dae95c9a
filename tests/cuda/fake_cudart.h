/* fake_cudart.h - the knobs of fake_cudart.c, a CUDA runtime that runs on the CPU.
 *
 * A test program links fake_cudart.o instead of libcudart_static: device memory
 * is host memory, every copy and memset happens at once (streams and events
 * order nothing, as everything is already done), and a kernel launch calls
 * fake_cuda_launch with the kernel's host stub and its arguments, so the test
 * can run the kernel's host emulation. Every call the backend checks counts in
 * fake_cuda_calls; the one numbered fake_cuda_fail_at fails. */
#ifndef LA_FAKE_CUDART_H
#define LA_FAKE_CUDART_H

#ifdef __cplusplus
extern "C" {
#endif

extern long fake_cuda_calls;      /* checked calls made so far */
extern long fake_cuda_fail_at;    /* the call (1-based) that fails; 0: none */
extern long fake_cuda_live;       /* allocations, streams and events not released */
extern const char *fake_cuda_failed; /* the function that failed, or NULL */

/* Run one launch: kernel is the __global__ function's host address, args its
 * argument pointers. Set by the test before any launch. */
extern void (*fake_cuda_launch)(const void *kernel, void **args);

/* The message cudaGetErrorString() gives for an injected failure. */
#define FAKE_CUDA_MESSAGE "injected failure"

#ifdef __cplusplus
}
#endif

#endif
