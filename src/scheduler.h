/* scheduler.h - the scheduler: numbered tasks run on the threads the -j budget
 * allows, and handed back in order. It owns the run's threads.
 *
 * Every place that works on several threads says what the work is (a batch
 * of numbered tasks, or a stream of items whose results are taken in
 * order) and leaves the threads to this module, as zstd's fileio_asyncio.h
 * leaves asynchronous I/O to its pools: callers never see a thread, a
 * mutex, a condition variable or an atomic. The dataset layer audits files
 * on it (la_sched_ordered), the CSV reader parses blocks of rows on it, the
 * HDF5 reader inflates chunks on it.
 *
 * The model. A scheduler is the calling thread and up to threads - 1 workers
 * taken from the -j budget when it opens. A batch is n tasks numbered 0 ..
 * n - 1; la_sched_submit() queues it and returns at once. Batches are taken
 * in the order they were submitted, and the tasks of a batch in the order
 * of their numbers: task k is begun only once tasks 0 .. k - 1 have been.
 * la_sched_wait(b) runs queued tasks (b's, then any submitted after it) on
 * the calling thread until every task of b has finished, so the caller
 * works rather than idles, and a scheduler without workers still gets
 * everything done: on the caller, in order. A task may end its batch early
 * (la_sched_stop): the tasks after it that no thread has begun are not run.
 * What a task writes is seen by the caller once la_sched_wait() returns, and
 * what the caller wrote before la_sched_submit() is seen by the tasks.
 *
 * The worker number a task gets (0 for the calling thread, 1 .. threads - 1
 * for the workers) names state a thread keeps from task to task (an
 * inflater, a scan backend): two tasks never run at once with one worker
 * number. Which thread runs a task depends on timing; the results must not.
 *
 * The switch. LABELAUDIT_SCHED_INLINE=1 in the environment starts no
 * worker: every task runs on the thread that waits for it, in order, as
 * worker 0, while la_sched_threads() still says what was asked (bounded as
 * the budget bounds it), so the callers take the same paths, cut the work
 * the same way and give the same report: a debugger sees one thread, and a
 * report that changes with it points at a race rather than the logic.
 * -j1 turns threads off the other way: no worker can start, and callers
 * that need two threads to gain anything take their one-thread paths. */
#ifndef LA_SCHEDULER_H
#define LA_SCHEDULER_H

#include <pthread.h> /* pthread_t: for the long-lived threads of la_thread_create */
#include <stddef.h>  /* size_t */

#ifdef __cplusplus
extern "C" {
#endif

#define LA_SCHED_MAX 64   /* threads of one scheduler, the caller's included */

// ---- the -j budget --------------------------------------------------------------

/* -j N is every thread of the run, the main thread included: each is started
 * through la_thread_create(), which takes one from the budget or, when none
 * is left, starts none (every caller has a way to go on without: fewer
 * workers, the work on the calling thread), and la_thread_join() gives it
 * back. Whoever asks first gets the threads, so how many a reader gets
 * depends on timing; the reports must not. */

/** la_threads_budget() : at most total threads at once, the caller (the
 *  main thread) being one. Never called: no bound (the unit tests). With
 *  LABELAUDIT_THREAD_PEAK=1 in the environment, the most threads seen alive
 *  at once (/proc/self/task, counted at each thread's start and at exit,
 *  where the pools a library keeps are still alive) is printed on
 *  stderr at exit: the tests' check of the budget. */
void la_threads_budget(int total);

/** la_thread_create() : pthread_create() of one thread from the budget, for
 *  the few threads that live as long as what they serve (a reader ahead of
 *  the scan, a decompressor) rather than running tasks.
 *  @return 0, or -1 when the budget is spent or the system refused. */
int la_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg);

/** la_thread_join() : pthread_join(), and the thread is given back. */
void la_thread_join(pthread_t tid);

// ---- the scheduler --------------------------------------------------------------

struct la_sched;

/* A task: number task of its batch, on worker worker (see above). */
typedef void (*la_task_fn)(void *ctx, int worker, size_t task);

/* A batch, in memory the caller owns from la_sched_submit() until
 * la_sched_wait() has returned for it. Its fields are the scheduler's. */
struct la_batch {
    struct la_batch *next;    /* the queue of batches with tasks not begun */
    la_task_fn fn;
    void *ctx;
    size_t end;               /* tasks to run: n, or fewer after la_sched_stop */
    size_t begun;             /* tasks handed to a thread, 0 .. begun - 1 */
    size_t finished;          /* of those, returned */
};

/** la_sched_open() : a scheduler of the caller and up to threads - 1 workers,
 *  as many as the budget gives now (none with LABELAUDIT_SCHED_INLINE=1).
 *  @return NULL when out of memory. */
struct la_sched *la_sched_open(int threads);

/** la_sched_threads() : the threads tasks may run on at once, >= 1: the
 *  caller and the workers started (with LABELAUDIT_SCHED_INLINE=1, what was
 *  asked). Size per-worker state and the cut of the work by this. */
int la_sched_threads(const struct la_sched *s);

/** la_sched_submit() : queue tasks 0 .. n - 1 of b, fn(ctx, worker, k) each;
 *  the workers begin at once. n may be 0. b must not be in flight. */
void la_sched_submit(struct la_sched *s, struct la_batch *b, size_t n, la_task_fn fn, void *ctx);

/** la_sched_wait() : return once every task of b that is to run has
 *  finished, running queued tasks (of b, or of batches submitted after it)
 *  on this thread meanwhile, as worker 0. b is then the caller's again. */
void la_sched_wait(struct la_sched *s, struct la_batch *b);

/** la_sched_stop() : the tasks of b numbered from on that no thread has
 *  begun are not run (of several calls, the lowest from holds). From a task
 *  of b (say, at a row only the caller may parse: from = its number + 1)
 *  or from the caller (from = 0 drops a batch submitted ahead); those
 *  running finish, and la_sched_wait() still waits for them. */
void la_sched_stop(struct la_sched *s, struct la_batch *b, size_t from);

/** la_sched_ran() : whether task k of b was begun (not left out by
 *  la_sched_stop). Once la_sched_wait() has returned for b. */
int la_sched_ran(const struct la_batch *b, size_t k);

/** la_sched_close() : batches still queued are stopped, tasks running are
 *  waited for, the workers end and are given back to the budget. NULL: nothing. */
void la_sched_close(struct la_sched *s);

/* A task's result, handed to the caller in order (la_sched_ordered). */
typedef void (*la_done_fn)(void *ctx, size_t item);

/** la_sched_ordered() : run(ctx, worker, i) for every item i in [0, n), and
 *  done(ctx, i) on this thread for i = 0, 1, ... as each has finished: a
 *  stream whose results are consumed in order. Item i + ahead is not begun
 *  before done(ctx, i) has returned, so the caller keeps ahead results at
 *  most (a slot ring of that size, indexed i % ahead, is safe: run(i) and
 *  done(i - ahead) never meet). This thread runs items while the next to
 *  hand back is not finished. @return 0, or -1 when out of memory (nothing
 *  was run). */
int la_sched_ordered(struct la_sched *s, size_t n, size_t ahead, la_task_fn run, la_done_fn done,
                     void *ctx);

#ifdef __cplusplus
}
#endif

#endif
