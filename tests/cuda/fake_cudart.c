/* fake_cudart.c - the CUDA runtime calls src/scan_cuda.cu makes, on the CPU.
 *
 * See fake_cudart.h. The definitions take the runtime's C ABI with plain
 * types (int for cudaError_t and the enums, a struct of three unsigned for
 * dim3, void * for handles), so this file needs no CUDA header: the linker
 * only matches names. The __cuda* functions are what nvcc's generated code
 * calls to register the device code and to launch a kernel. */
#include "fake_cudart.h"

#include <stddef.h> /* size_t, max_align_t, offsetof */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy, memset */

enum { SUCCESS = 0, INJECTED = 999 /* cudaErrorUnknown */ };
struct dim3 { unsigned x, y, z; };

long fake_cuda_calls, fake_cuda_fail_at, fake_cuda_live, fake_cuda_resets;
const char *fake_cuda_failed;
int fake_cuda_deferred, fake_cuda_sticky;
size_t fake_cuda_arg_bytes;
void (*fake_cuda_launch)(const void *kernel, void **args);

static int last_error;            /* what cudaGetLastError() returns next */
static int sticky;                /* a sticky failure happened: all calls fail */

/* One checked call named name: @return 1 when it fails. A failure is the
 * thread's last error until cudaGetLastError() takes it, as in cudart. */
static int fails(const char *name)
{
    ++fake_cuda_calls;
    if (!sticky && fake_cuda_calls != fake_cuda_fail_at)
        return 0;
    if (!sticky)
        fake_cuda_failed = name;
    sticky = fake_cuda_sticky;
    last_error = INJECTED;
    return 1;
}

// ---- allocations: a list, so that cudaDeviceReset() can free them all ---------------

struct block {
    struct block *prev, *next;
    max_align_t align[]; /* the memory handed out */
};
static struct block blocks = { &blocks, &blocks };

static int alloc(void **p, size_t n, const char *name)
{
    if (fails(name))
        return INJECTED;
    struct block *b = malloc(sizeof *b + (n ? n : 1));
    if (!b)
        return 2; /* cudaErrorMemoryAllocation */
    b->next = &blocks;
    b->prev = blocks.prev;
    blocks.prev->next = b;
    blocks.prev = b;
    fake_cuda_live++;
    *p = b->align;
    return SUCCESS;
}

static void unlink_free(struct block *b)
{
    b->prev->next = b->next;
    b->next->prev = b->prev;
    free(b);
    fake_cuda_live--;
}

static int release(void *p)
{
    if (sticky)          /* the context is lost: nothing is freed before the reset */
        return INJECTED;
    if (p)
        unlink_free((struct block *)((char *)p - offsetof(struct block, align)));
    return SUCCESS;
}

// ---- streams: queues of work that runs late when deferred ----------------------------

enum op_kind { OP_COPY, OP_SET, OP_LAUNCH, OP_WAIT };
struct fake_stream;
struct op {
    enum op_kind kind;
    void *dst;
    const void *src;    /* a copy reads it when it runs */
    size_t n;
    int value;
    const void *kernel;
    void *arg;          /* the launch's argument, copied when queued */
    struct fake_stream *wait_for;
    size_t wait_upto;
};
struct fake_stream {
    struct op *ops;
    size_t n, cap, done; /* ops [done, n) are still to run */
};
struct fake_event {
    struct fake_stream *stream; /* NULL: recorded on the legacy stream, done */
    size_t upto;
};

#define MAX_STREAMS 16
static struct fake_stream *streams[MAX_STREAMS];

static void drain(struct fake_stream *s, size_t upto);

static void run_op(struct op *o)
{
    switch (o->kind) {
    case OP_COPY: memcpy(o->dst, o->src, o->n); break;
    case OP_SET: memset(o->dst, o->value, o->n); break;
    case OP_LAUNCH: {
        void *args[1] = { o->arg };
        if (fake_cuda_launch)
            fake_cuda_launch(o->kernel, args);
        free(o->arg);
        break;
    }
    case OP_WAIT: drain(o->wait_for, o->wait_upto); break;
    }
}

/* Run s's queued work up to position upto. */
static void drain(struct fake_stream *s, size_t upto)
{
    while (s && s->done < upto) {
        struct op o = s->ops[s->done++];
        run_op(&o);
    }
}

static void drain_all(void)
{
    for (int k = 0; k < MAX_STREAMS; k++)
        if (streams[k])
            drain(streams[k], streams[k]->n);
}

/* Queue o on stream, or run it now (not deferred, or the legacy stream). */
static void enqueue(void *stream, struct op o)
{
    struct fake_stream *s = stream;
    if (!fake_cuda_deferred || !s) {
        run_op(&o);
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->ops = realloc(s->ops, s->cap * sizeof *s->ops);
        if (!s->ops)
            abort(); /* a test helper: out of memory ends the test */
    }
    s->ops[s->n++] = o;
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
int cudaDeviceReset(void);
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
/* cudaFree waits for the device, as the real one does */
int cudaFree(void *p) { drain_all(); return release(p); }
int cudaFreeHost(void *p) { drain_all(); return release(p); }

int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
    (void)kind;
    if (fails("cudaMemcpyAsync"))
        return INJECTED;
    enqueue(stream, (struct op){ .kind = OP_COPY, .dst = dst, .src = src, .n = n });
    return SUCCESS;
}

/* The legacy stream: the non-blocking streams' queued work does not come first. */
int cudaMemset(void *p, int v, size_t n)
{
    if (fails("cudaMemset"))
        return INJECTED;
    memset(p, v, n);
    return SUCCESS;
}

int cudaMemsetAsync(void *p, int v, size_t n, void *stream)
{
    if (fails("cudaMemsetAsync"))
        return INJECTED;
    enqueue(stream, (struct op){ .kind = OP_SET, .dst = p, .n = n, .value = v });
    return SUCCESS;
}

// ---- streams and events ------------------------------------------------------------------

int cudaStreamCreateWithFlags(void **s, unsigned flags)
{
    (void)flags;
    int rc = alloc(s, sizeof(struct fake_stream), "cudaStreamCreateWithFlags");
    if (rc != SUCCESS)
        return rc;
    memset(*s, 0, sizeof(struct fake_stream));
    for (int k = 0; k < MAX_STREAMS; k++)
        if (!streams[k]) {
            streams[k] = *s;
            break;
        }
    return SUCCESS;
}

/* Work still queued completes first, as the real stream's does. */
int cudaStreamDestroy(void *s)
{
    if (sticky)
        return INJECTED;
    struct fake_stream *fs = s;
    drain(fs, fs->n);
    for (int k = 0; k < MAX_STREAMS; k++)
        if (streams[k] == fs)
            streams[k] = NULL;
    free(fs->ops);
    return release(s);
}

int cudaEventCreateWithFlags(void **e, unsigned flags)
{
    (void)flags;
    int rc = alloc(e, sizeof(struct fake_event), "cudaEventCreateWithFlags");
    if (rc == SUCCESS)
        memset(*e, 0, sizeof(struct fake_event));
    return rc;
}

int cudaEventDestroy(void *e) { return release(e); }

int cudaEventRecord(void *e, void *stream)
{
    if (fails("cudaEventRecord"))
        return INJECTED;
    struct fake_event *ev = e;
    ev->stream = stream;
    ev->upto = stream ? ((struct fake_stream *)stream)->n : 0;
    return SUCCESS;
}

int cudaEventSynchronize(void *e)
{
    if (fails("cudaEventSynchronize"))
        return INJECTED;
    struct fake_event *ev = e;
    drain(ev->stream, ev->upto);
    return SUCCESS;
}

int cudaStreamWaitEvent(void *stream, void *e, unsigned flags)
{
    (void)flags;
    if (fails("cudaStreamWaitEvent"))
        return INJECTED;
    struct fake_event *ev = e;
    if (ev->stream && ev->stream != stream)
        enqueue(stream, (struct op){ .kind = OP_WAIT, .wait_for = ev->stream,
                                     .wait_upto = ev->upto });
    return SUCCESS;
}

int cudaStreamSynchronize(void *stream)
{
    if (fails("cudaStreamSynchronize"))
        return INJECTED;
    struct fake_stream *s = stream;
    if (s)
        drain(s, s->n);
    else
        drain_all();
    return SUCCESS;
}

int cudaDeviceSynchronize(void)
{
    if (fails("cudaDeviceSynchronize"))
        return INJECTED;
    drain_all();
    return SUCCESS;
}

/* Frees every allocation, stream and event, and ends a sticky failure. */
int cudaDeviceReset(void)
{
    fake_cuda_resets++;
    for (int k = 0; k < MAX_STREAMS; k++)
        if (streams[k]) {
            free(streams[k]->ops);
            streams[k] = NULL;
        }
    while (blocks.next != &blocks)
        unlink_free(blocks.next);
    sticky = 0;
    last_error = SUCCESS;
    return SUCCESS;
}

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
    int e = sticky ? INJECTED : last_error; /* a sticky error is never taken back */
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

static void *launch_stream; /* from the <<<...>>> configuration */

unsigned __cudaPushCallConfiguration(struct dim3 grid, struct dim3 block, size_t shmem,
                                     void *stream)
{
    (void)grid, (void)block, (void)shmem;
    launch_stream = stream;
    return 0;
}

int __cudaPopCallConfiguration(struct dim3 *grid, struct dim3 *block, size_t *shmem,
                               void *stream)
{
    *grid = (struct dim3){ 1, 1, 1 };
    *block = (struct dim3){ 1, 1, 1 };
    *shmem = 0;
    memcpy(stream, &launch_stream, sizeof launch_stream);
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
    (void)grid, (void)block, (void)shmem;
    if (fails("kernel launch"))
        return INJECTED;
    struct op o = { .kind = OP_LAUNCH, .kernel = kernel };
    if (!fake_cuda_deferred || !fake_cuda_arg_bytes) {
        if (fake_cuda_launch)
            fake_cuda_launch(kernel, args);
        return SUCCESS;
    }
    if (!(o.arg = malloc(fake_cuda_arg_bytes)))
        abort();
    memcpy(o.arg, args[0], fake_cuda_arg_bytes);
    enqueue(stream, o);
    return SUCCESS;
}
