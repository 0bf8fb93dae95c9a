/* pool.h - threads started once, that run the numbered parts of one job at a time.
 *
 * The CPU scan folds one part of a chunk per thread; the CUDA backend copies
 * one part of a sub-chunk per thread into pinned memory. Starting threads per
 * job would cost more than such a job, so they wait on a condition variable
 * between jobs. Part t always goes to thread t (the caller is thread 0), so a
 * job whose parts write only their own state gives the same result whichever
 * thread finishes first. */
#ifndef LA_POOL_H
#define LA_POOL_H

#include "scheduler.h" /* the -j budget, which the pool's workers are taken from */

#ifdef __cplusplus
extern "C" {
#endif

#define LA_POOL_MAX 64

struct la_pool;
typedef void (*la_pool_part_fn)(void *ctx, int part);

/** la_pool_open() : the caller and up to threads - 1 workers (fewer when the
 *  system refuses some: jobs are still complete). @return NULL when out of memory. */
struct la_pool *la_pool_open(int threads);

/** la_pool_open_lazy() : a pool whose workers start at the first job of more
 *  than one part, with what the budget has left then (and again at later
 *  jobs while it has fewer than threads - 1). la_pool_size() says threads;
 *  la_pool_run() runs the parts that no worker holds on the caller. Only
 *  la_pool_run() is for such a pool. The scan backend's pool is one: it
 *  takes no thread from the budget before it has values to fold. */
struct la_pool *la_pool_open_lazy(int threads);

/** la_pool_rest() : a lazy pool's workers end, given back to the budget; its
 *  next job of several parts starts them again. Between jobs only. */
void la_pool_rest(struct la_pool *p);

/** la_pool_size() : the caller and the workers started, >= 1 (for a lazy
 *  pool: the parts a job may have). */
int la_pool_size(const struct la_pool *p);

/** la_pool_run() : run fn(ctx, t) for every t in [0, nparts) and return when all
 *  have; the caller runs part 0 (and those of a lazy pool that no worker
 *  holds). nparts is at most la_pool_size(). */
void la_pool_run(struct la_pool *p, int nparts, la_pool_part_fn fn, void *ctx);

/** la_pool_start() : la_pool_run()'s parts 1 .. nparts - 1 on the workers,
 *  begun without waiting; part 0 is not run. la_pool_wait() returns when they
 *  have; until then the pool takes no other job. The CSV reader's workers
 *  run one such job for as long as the file is read. @return 1 when parts
 *  were begun, 0 when there are none (nparts or the pool below 2). */
int la_pool_start(struct la_pool *p, int nparts, la_pool_part_fn fn, void *ctx);
void la_pool_wait(struct la_pool *p);

void la_pool_close(struct la_pool *p);

#ifdef __cplusplus
}
#endif

#endif
