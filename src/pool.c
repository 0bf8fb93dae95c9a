/* pool.c - the persistent worker threads of pool.h, taken from the -j budget
 * (scheduler.c). */
#include "pool.h"

#include <pthread.h>   /* pthread_cond_wait */
#include <stdint.h>    /* uint64_t */
#include <stdlib.h>    /* calloc, free */

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
