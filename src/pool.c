/* pool.c - the persistent worker threads of pool.h. */
#include "pool.h"

#include <dirent.h>    /* opendir: the live threads of /proc/self/task */
#include <pthread.h>   /* pthread_create, pthread_cond_wait */
#include <stdatomic.h> /* atomic_int: threads start and end on any thread */
#include <stdint.h>    /* uint64_t */
#include <stdio.h>     /* fprintf */
#include <stdlib.h>    /* calloc, free, getenv, atexit */
#include <string.h>    /* strcmp */

// ---- the -j budget ---------------------------------------------------------------

static int budget_total;           /* 0: no bound */
static atomic_int budget_left;     /* threads that may still start */
static int peak_wanted;            /* LABELAUDIT_THREAD_PEAK=1 */
static atomic_int peak_seen;

/* Whether thread tid is the purge thread of the jemalloc inside Apache
 * Arrow's libarrow (pyarrow's), which it starts when the library loads,
 * before main, whatever the input: it sleeps, and nothing can ask it not to
 * start (its configuration is read from the environment at exec). */
static int is_allocator_thread(const char *tid)
{
    char path[320], name[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int got = fgets(name, sizeof name, f) != NULL;
    fclose(f);
    return got && strcmp(name, "jemalloc_bg_thd\n") == 0;
}

/* The threads alive now, as the kernel counts them (those a library might
 * start itself included, but for an allocator's idle purge thread). */
static int live_threads(void)
{
    DIR *dir = opendir("/proc/self/task");
    int n = 0;
    if (!dir)
        return 0;
    for (struct dirent *e; (e = readdir(dir));)
        n += e->d_name[0] != '.' && !is_allocator_thread(e->d_name);
    closedir(dir);
    return n;
}

static void note_live_threads(void)
{
    int n = live_threads(), seen = atomic_load(&peak_seen);
    while (n > seen && !atomic_compare_exchange_weak(&peak_seen, &seen, n))
        ;
}

static void print_peak(void)
{
    fprintf(stderr, "labelaudit: threads: peak %d, budget %d\n", atomic_load(&peak_seen),
            budget_total);
}

void la_threads_budget(int total)
{
    const char *peak = getenv("LABELAUDIT_THREAD_PEAK");
    budget_total = total < 1 ? 1 : total;
    atomic_store(&budget_left, budget_total - 1);      /* the caller's own */
    if (peak && strcmp(peak, "1") == 0 && !peak_wanted) {
        peak_wanted = 1;
        note_live_threads();
        atexit(print_peak);
    }
}

static int budget_take(void)
{
    if (!budget_total)
        return 1;
    int left = atomic_load(&budget_left);
    while (left > 0 && !atomic_compare_exchange_weak(&budget_left, &left, left - 1))
        ;
    return left > 0;
}

static void budget_give_back(void)
{
    if (budget_total)
        atomic_fetch_add(&budget_left, 1);
}

struct thread_start {
    void *(*fn)(void *);
    void *arg;
};

static void *thread_main(void *arg)
{
    struct thread_start start = *(struct thread_start *)arg;
    free(arg);
    if (peak_wanted)
        note_live_threads();
    return start.fn(start.arg);
}

int la_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
    if (!budget_take())
        return -1;
    struct thread_start *start = malloc(sizeof *start);
    if (!start) {
        budget_give_back();
        return -1;
    }
    *start = (struct thread_start){ fn, arg };
    if (pthread_create(tid, NULL, thread_main, start) != 0) {
        free(start);
        budget_give_back();
        return -1;
    }
    return 0;
}

void la_thread_join(pthread_t tid)
{
    pthread_join(tid, NULL);
    budget_give_back();
}

// ---- the pool --------------------------------------------------------------------

struct worker {
    struct la_pool *pool;
    int idx;
    uint64_t seen;              /* the last job it has seen */
};

struct la_pool {
    pthread_mutex_t mu;
    pthread_cond_t go;          /* a new job (gen changed) or quit */
    pthread_cond_t idle;        /* pending reached 0 */
    uint64_t gen;
    int pending;                /* workers still running their part of this job */
    int nparts;
    int quit;
    la_pool_part_fn fn;
    void *ctx;
    int size;                   /* the caller and the workers started */
    int want;                   /* la_pool_size(): size, or a lazy pool's threads */
    int lazy;                   /* workers start at the jobs (la_pool_open_lazy) */
    pthread_t tids[LA_POOL_MAX];
    struct worker workers[LA_POOL_MAX];
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct la_pool *p = w->pool;
    uint64_t seen = w->seen;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        if (w->idx >= p->nparts)
            continue;
        pthread_mutex_unlock(&p->mu);
        p->fn(p->ctx, w->idx);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0)
            pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Start workers until the pool has want threads or none more can start.
 * Called only between jobs: no worker is in a job. */
static void add_workers(struct la_pool *p)
{
    for (int t = p->size; t < p->want; t++) {
        /* a worker added after some jobs must not take the last for a new one */
        p->workers[t] = (struct worker){ p, t, p->gen };
        if (la_thread_create(&p->tids[t], worker_main, &p->workers[t]) != 0)
            break;
        p->size = t + 1;
    }
}

static struct la_pool *pool_new(int threads)
{
    struct la_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->idle, NULL);
    p->size = 1;
    p->want = threads < 1 ? 1 : threads < LA_POOL_MAX ? threads : LA_POOL_MAX;
    return p;
}

struct la_pool *la_pool_open(int threads)
{
    struct la_pool *p = pool_new(threads);
    if (p) {
        add_workers(p);
        p->want = p->size;
    }
    return p;
}

struct la_pool *la_pool_open_lazy(int threads)
{
    struct la_pool *p = pool_new(threads);
    if (p)
        p->lazy = 1;
    return p;
}

int la_pool_size(const struct la_pool *p)
{
    return p->want;
}

int la_pool_start(struct la_pool *p, int nparts, la_pool_part_fn fn, void *ctx)
{
    if (nparts > p->size)
        nparts = p->size;
    if (nparts <= 1)
        return 0;
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->nparts = nparts;
    p->pending = nparts - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    return 1;
}

void la_pool_wait(struct la_pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0)
        pthread_cond_wait(&p->idle, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void la_pool_run(struct la_pool *p, int nparts, la_pool_part_fn fn, void *ctx)
{
    if (nparts > p->size)
        add_workers(p);
    int started = la_pool_start(p, nparts, fn, ctx);
    fn(ctx, 0);
    for (int t = p->size; t < nparts && t < p->want; t++)   /* a lazy pool's parts without a worker */
        fn(ctx, t);
    if (started)
        la_pool_wait(p);
}

/* End the workers, between jobs. */
static void end_workers(struct la_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t < p->size; t++)
        la_thread_join(p->tids[t]);
    p->quit = 0;
    p->size = 1;
}

void la_pool_rest(struct la_pool *p)
{
    if (p && p->lazy && p->size > 1)
        end_workers(p);
}

void la_pool_close(struct la_pool *p)
{
    if (!p)
        return;
    end_workers(p);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->idle);
    free(p);
}
