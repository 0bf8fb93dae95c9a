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

#ifdef __cplusplus
extern "C" {
#endif

#define LA_POOL_MAX 64

struct la_pool;
typedef void (*la_pool_part_fn)(void *ctx, int part);

/** la_pool_open() : the caller and up to threads - 1 workers (fewer when the
 *  system refuses some: jobs are still complete). @return NULL when out of memory. */
struct la_pool *la_pool_open(int threads);

/** la_pool_size() : the caller and the workers started, >= 1. */
int la_pool_size(const struct la_pool *p);

/** la_pool_run() : run fn(ctx, t) for every t in [0, nparts) and return when all
 *  have; the caller runs part 0. nparts is at most la_pool_size(). */
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
