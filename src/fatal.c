/* fatal.c - see fatal.h.
 *
 * Why zero pages rather than sigsetjmp/siglongjmp around the mapped reads: the
 * bytes are read by code that knows nothing of files (the CPU scan on pool
 * threads, the CUDA backend's staging threads, the npy gather), and a longjmp
 * out of one of them would leave its job half done: a pool whose caller waits
 * forever for a part, a mutex never unlocked, counters half merged. Mapping
 * zero pages over the missing part lets every one of them finish as usual; the
 * owner of the mapping then asks la_guard_fault() and discards what was read.
 * Checking the size with fstat() before each window is not enough either: the
 * file can shrink between the check and the read.
 *
 * Everything the handlers touch is a lock-free atomic or a system call:
 * mmap() and unlink() are plain system calls on Linux, safe in a handler. */
#include "fatal.h"

#include <pthread.h>   /* pthread_once */
#include <signal.h>    /* sigaction, raise */
#include <stdatomic.h> /* atomic_uintptr_t */
#include <string.h>    /* memset */
#include <sys/mman.h>  /* mmap */
#include <unistd.h>    /* unlink, sysconf */

void (*la_guard_test_hook)(const void *map, size_t len);

// ---- guarded mappings ------------------------------------------------------------

/* One file is audited at a time, with at most one window or gather mapping
 * live; the table leaves room for tests that hold several. */
#define GUARDS 16

struct guard {
    atomic_uintptr_t start;     /* 0: a free slot */
    atomic_size_t len;
    atomic_uint_least64_t file_offset;
    atomic_uintptr_t fault;     /* the lowest faulting address, 0 when none */
};

static struct guard g_guards[GUARDS];
static uintptr_t g_page = 4096;

static struct guard *find_guard(const void *map)
{
    for (int i = 0; i < GUARDS; i++)
        if (atomic_load(&g_guards[i].start) == (uintptr_t)map)
            return &g_guards[i];
    return NULL;
}

int la_guard_add(const void *map, size_t len, uint64_t file_offset)
{
    la_fatal_setup();
    for (int i = 0; i < GUARDS; i++) {
        struct guard *g = &g_guards[i];
        uintptr_t free_slot = 0;
        /* claim the slot with a placeholder, fill it, then publish the start */
        if (!atomic_compare_exchange_strong(&g->start, &free_slot, (uintptr_t)1))
            continue;
        atomic_store(&g->len, len);
        atomic_store(&g->file_offset, file_offset);
        atomic_store(&g->fault, 0);
        atomic_store(&g->start, (uintptr_t)map);
        if (la_guard_test_hook)
            la_guard_test_hook(map, len);
        return 0;
    }
    return -1;
}

int64_t la_guard_fault(const void *map)
{
    struct guard *g = find_guard(map);
    uintptr_t fault = g ? atomic_load(&g->fault) : 0;
    if (!fault)
        return -1;
    return (int64_t)(atomic_load(&g->file_offset) + (fault - (uintptr_t)map));
}

int64_t la_guard_remove(const void *map)
{
    int64_t fault = la_guard_fault(map);
    struct guard *g = find_guard(map);
    if (g)
        atomic_store(&g->start, 0);
    return fault;
}

const void *la_map_guarded(int fd, uint64_t offset, uint64_t len, struct la_mapping *m)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), skip = offset % page;
    *m = (struct la_mapping){ NULL, 0 };
    if (len == 0 || len > SIZE_MAX - skip)
        return NULL;
    void *map = mmap(NULL, (size_t)(len + skip), PROT_READ, MAP_PRIVATE, fd, (off_t)(offset - skip));
    if (map == MAP_FAILED)
        return NULL;
    if (la_guard_add(map, (size_t)(len + skip), offset - skip) != 0) {
        munmap(map, (size_t)(len + skip));   /* unguarded, a shrinking file would kill us */
        return NULL;
    }
    *m = (struct la_mapping){ map, (size_t)(len + skip) };
    return (const char *)map + skip;
}

int64_t la_unmap_guarded(struct la_mapping *m)
{
    if (!m->base)
        return -1;
    int64_t fault = la_guard_remove(m->base);
    munmap(m->base, m->len);
    *m = (struct la_mapping){ NULL, 0 };
    return fault;
}

/* In the handler: if addr lies in a guarded mapping, put zero pages from its
 * page to the mapping's end, note the fault, @return 1 (the read is retried
 * and finds zeros); else 0. */
static int absorb(uintptr_t addr)
{
    for (int i = 0; i < GUARDS; i++) {
        struct guard *g = &g_guards[i];
        uintptr_t start = atomic_load(&g->start);
        if (start <= 1 || addr < start || addr - start >= atomic_load(&g->len))
            continue;
        uintptr_t page = addr / g_page * g_page;
        uintptr_t end = (start + atomic_load(&g->len) + g_page - 1) / g_page * g_page;
        if (mmap((void *)page, end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                 -1, 0) == MAP_FAILED)
            return 0;
        uintptr_t seen = atomic_load(&g->fault);
        while ((seen == 0 || addr < seen) &&
               !atomic_compare_exchange_weak(&g->fault, &seen, addr))
            ;
        return 1;
    }
    return 0;
}

// ---- the handler -------------------------------------------------------------------

static const int g_signals[] = {
    SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT,        /* faults, abort */
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,      /* kill, Ctrl-C */
    SIGXCPU, SIGVTALRM, SIGPROF,
};
#define NSIGNALS (sizeof g_signals / sizeof g_signals[0])

static struct sigaction g_previous[NSIGNALS];
static _Atomic(const char *) g_remove;

void la_fatal_remove_on_death(const char *path)
{
    atomic_store(&g_remove, path);
}

/* Raised by the processor for the instruction that faulted (not sent by kill):
 * returning runs that instruction again. */
static int is_fault(int sig, const siginfo_t *si)
{
    return si->si_code > 0 &&
           (sig == SIGBUS || sig == SIGSEGV || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP);
}

static void on_fatal(int sig, siginfo_t *si, void *context)
{
    (void)context;
    if (sig == SIGBUS && is_fault(sig, si) && absorb((uintptr_t)si->si_addr))
        return;
    const char *path = atomic_exchange(&g_remove, NULL);
    if (path)
        unlink(path);
    /* die as the signal would have: with the action there was before ours (the
     * default, or a sanitizer's report), which a fault reaches by faulting
     * again on return, and any other signal by being raised again */
    for (size_t i = 0; i < NSIGNALS; i++)
        if (g_signals[i] == sig)
            sigaction(sig, &g_previous[i], NULL);
    if (!is_fault(sig, si))
        raise(sig);
}

static void install(void)
{
    g_page = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGNALS; i++) {
        if (sigaction(g_signals[i], NULL, &g_previous[i]) != 0)
            continue;
        if (g_previous[i].sa_handler == SIG_IGN && !(g_previous[i].sa_flags & SA_SIGINFO))
            continue;              /* nohup, or a background job's SIGINT */
        sigaction(g_signals[i], &sa, NULL);
    }
}

void la_fatal_setup(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
}
