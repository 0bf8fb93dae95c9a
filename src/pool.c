/* pool.c - the persistent worker threads of pool.h. */
#include "pool.h"

#include <pthread.h> /* pthread_create, pthread_cond_wait */
#include <stdint.h>  /* uint64_t */
#include <stdlib.h>  /* calloc, free */

struct worker {
    struct la_pool *pool;
    int idx;
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
    pthread_t tids[LA_POOL_MAX];
    struct worker workers[LA_POOL_MAX];
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct la_pool *p = w->pool;
    uint64_t seen = 0;
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

struct la_pool *la_pool_open(int threads)
{
    struct la_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->idle, NULL);
    p->size = 1;
    for (int t = 1; t < threads && t < LA_POOL_MAX; t++) {
        p->workers[t] = (struct worker){ p, t };
        if (pthread_create(&p->tids[t], NULL, worker_main, &p->workers[t]) != 0)
            break;
        p->size = t + 1;
    }
    return p;
}

int la_pool_size(const struct la_pool *p)
{
    return p->size;
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
    int started = la_pool_start(p, nparts, fn, ctx);
    fn(ctx, 0);
    if (started)
        la_pool_wait(p);
}

void la_pool_close(struct la_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t < p->size; t++)
        pthread_join(p->tids[t], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->idle);
    free(p);
}
