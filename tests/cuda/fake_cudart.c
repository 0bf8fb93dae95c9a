/* fake_cudart.c - the CUDA runtime calls src/scan_cuda.cu makes, on the CPU.
 *
 * See fake_cudart.h. The definitions take the runtime's C ABI with plain
 * types (int for cudaError_t and the enums, a struct of three unsigned for
 * dim3, void * for handles), so this file needs no CUDA header: the linker
 * only matches names. The __cuda* functions are what nvcc's generated code
 * calls to register the device code and to launch a kernel. */
#include "fake_cudart.h"

#include <stddef.h> /* size_t */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy, memset */

enum { SUCCESS = 0, INJECTED = 999 /* cudaErrorUnknown */ };
struct dim3 { unsigned x, y, z; };

long fake_cuda_calls, fake_cuda_fail_at, fake_cuda_live;
const char *fake_cuda_failed;
void (*fake_cuda_launch)(const void *kernel, void **args);

static int last_error;            /* what cudaGetLastError() returns next */

/* One checked call named name: @return 1 when it is the one to fail. */
static int fails(const char *name)
{
    if (++fake_cuda_calls != fake_cuda_fail_at)
        return 0;
    fake_cuda_failed = name;
    return 1;
}

static int alloc(void **p, size_t n, const char *name)
{
    if (fails(name))
        return INJECTED;
    if (!(*p = malloc(n ? n : 1)))
        return 2; /* cudaErrorMemoryAllocation */
    fake_cuda_live++;
    return SUCCESS;
}

static int release(void *p)
{
    if (p) {
        free(p);
        fake_cuda_live--;
    }
    return SUCCESS;
}

/* Prototypes for -Wmissing-prototypes; callers see the real ones. */
int cudaMalloc(void **p, size_t n);
int cudaHostAlloc(void **p, size_t n, unsigned flags);
int cudaFree(void *p);
int cudaFreeHost(void *p);
int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream);
int cudaMemset(void *p, int v, size_t n);
int cudaMemsetAsync(void *p, int v, size_t n, void *stream);
int cudaStreamCreateWithFlags(void **s, unsigned flags);
int cudaStreamDestroy(void *s);
int cudaEventCreateWithFlags(void **e, unsigned flags);
int cudaEventDestroy(void *e);
int cudaEventRecord(void *e, void *stream);
int cudaEventSynchronize(void *e);
int cudaStreamWaitEvent(void *stream, void *e, unsigned flags);
int cudaStreamSynchronize(void *stream);
int cudaDeviceSynchronize(void);
int cudaGetDevice(int *dev);
int cudaDeviceGetAttribute(int *value, int attr, int dev);
int cudaGetDeviceCount(int *n);
int cudaFuncGetAttributes(void *attr, const void *func);
int cudaGetLastError(void);
const char *cudaGetErrorString(int e);
int cudaDriverGetVersion(int *v);
int cudaRuntimeGetVersion(int *v);
void **__cudaRegisterFatBinary(void *fatbin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *name, int limit, void *tid, void *bid, void *bdim,
                            void *gdim, int *wsize);
unsigned __cudaPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shmem,
                                     void *stream);
int __cudaPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shmem,
                               void *stream);
int __cudaGetKernel(const void **kernel, const void *host_fun);
int __cudaLaunchKernel(const void *kernel, struct dim3 grid, struct dim3 block, void **args,
                       size_t shmem, void *stream);

// ---- memory ----------------------------------------------------------------------

int cudaMalloc(void **p, size_t n) { return alloc(p, n, "cudaMalloc"); }
int cudaHostAlloc(void **p, size_t n, unsigned flags) { (void)flags; return alloc(p, n, "cudaHostAlloc"); }
int cudaFree(void *p) { return release(p); }
int cudaFreeHost(void *p) { return release(p); }

int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
    (void)kind, (void)stream;
    if (fails("cudaMemcpyAsync"))
        return INJECTED;
    memcpy(dst, src, n);
    return SUCCESS;
}

int cudaMemset(void *p, int v, size_t n)
{
    if (fails("cudaMemset"))
        return INJECTED;
    memset(p, v, n);
    return SUCCESS;
}

int cudaMemsetAsync(void *p, int v, size_t n, void *stream)
{
    (void)stream;
    if (fails("cudaMemsetAsync"))
        return INJECTED;
    memset(p, v, n);
    return SUCCESS;
}

// ---- streams and events: everything is done already -------------------------------

int cudaStreamCreateWithFlags(void **s, unsigned flags) { (void)flags; return alloc(s, 1, "cudaStreamCreateWithFlags"); }
int cudaStreamDestroy(void *s) { return release(s); }
int cudaEventCreateWithFlags(void **e, unsigned flags) { (void)flags; return alloc(e, 1, "cudaEventCreateWithFlags"); }
int cudaEventDestroy(void *e) { return release(e); }
int cudaEventRecord(void *e, void *stream) { (void)e, (void)stream; return fails("cudaEventRecord") ? INJECTED : SUCCESS; }
int cudaEventSynchronize(void *e) { (void)e; return fails("cudaEventSynchronize") ? INJECTED : SUCCESS; }
int cudaStreamWaitEvent(void *stream, void *e, unsigned flags) { (void)stream, (void)e, (void)flags; return fails("cudaStreamWaitEvent") ? INJECTED : SUCCESS; }
int cudaStreamSynchronize(void *stream) { (void)stream; return fails("cudaStreamSynchronize") ? INJECTED : SUCCESS; }
int cudaDeviceSynchronize(void) { return fails("cudaDeviceSynchronize") ? INJECTED : SUCCESS; }

// ---- the device ----------------------------------------------------------------------

int cudaGetDevice(int *dev)
{
    *dev = 0;
    return fails("cudaGetDevice") ? INJECTED : SUCCESS;
}

int cudaDeviceGetAttribute(int *value, int attr, int dev)
{
    (void)attr, (void)dev;
    *value = 2; /* multiprocessors: a small grid */
    return fails("cudaDeviceGetAttribute") ? INJECTED : SUCCESS;
}

int cudaGetDeviceCount(int *n)
{
    *n = 1;
    return fails("cudaGetDeviceCount") ? INJECTED : SUCCESS;
}

int cudaFuncGetAttributes(void *attr, const void *func)
{
    (void)attr, (void)func;
    return fails("cudaFuncGetAttributes") ? INJECTED : SUCCESS;
}

int cudaGetLastError(void)
{
    int e = last_error;
    last_error = SUCCESS;
    return e;
}

const char *cudaGetErrorString(int e)
{
    return e == SUCCESS ? "no error" : FAKE_CUDA_MESSAGE;
}

int cudaDriverGetVersion(int *v) { *v = 13000; return SUCCESS; }
int cudaRuntimeGetVersion(int *v) { *v = 13000; return SUCCESS; }

// ---- what nvcc's generated code calls -------------------------------------------------

void **__cudaRegisterFatBinary(void *fatbin)
{
    static void *handle;
    handle = fatbin;
    return &handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
void __cudaUnregisterFatBinary(void **handle) { (void)handle; }

void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *name, int limit, void *tid, void *bid, void *bdim,
                            void *gdim, int *wsize)
{
    (void)handle, (void)host_fun, (void)device_fun, (void)name, (void)limit;
    (void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize;
}

unsigned __cudaPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shmem,
                                     void *stream)
{
    (void)grid, (void)block, (void)shmem, (void)stream;
    return 0;
}

int __cudaPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shmem,
                               void *stream)
{
    *grid = (struct dim3){ 1, 1, 1 };
    *block = (struct dim3){ 1, 1, 1 };
    *shmem = 0;
    memset(stream, 0, sizeof(void *));
    return SUCCESS;
}

/* The kernel handle is the host function's address itself. */
int __cudaGetKernel(const void **kernel, const void *host_fun)
{
    *kernel = host_fun;
    return SUCCESS;
}

/* nvcc's launch code ignores this result: a failure shows in cudaGetLastError(). */
int __cudaLaunchKernel(const void *kernel, struct dim3 grid, struct dim3 block, void **args,
                       size_t shmem, void *stream)
{
    (void)grid, (void)block, (void)shmem, (void)stream;
    if (fails("kernel launch")) {
        last_error = INJECTED;
        return INJECTED;
    }
    if (fake_cuda_launch)
        fake_cuda_launch(kernel, args);
    return SUCCESS;
}
