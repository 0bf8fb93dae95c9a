/* scheduler.c - the -j budget and the scheduler of scheduler.h: the one place where
 * the threads that run tasks wait, take work and hand it back. */
#include "scheduler.h"

#include <dirent.h>    /* opendir: the live threads of /proc/self/task */
#include <pthread.h>   /* pthread_create, pthread_cond_wait */
#include <stdatomic.h> /* atomic_int: threads start and end on any thread */
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
 * whatever the input: it sleeps, and only the environment at exec can ask it
 * not to start (JE_ARROW_MALLOC_CONF=background_thread:false, as the tests
 * do: until it has named itself it looks like one of ours). */
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
    note_live_threads();   /* those a library started and keeps (Arrow's pools) */
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

// ---- the scheduler ---------------------------------------------------------------

struct worker {
    struct la_sched *s;
    int idx;
};

struct la_sched {
    pthread_mutex_t mu;
    pthread_cond_t work;          /* a batch was queued, or quit */
    pthread_cond_t done;          /* a batch has no task left to run or running */
    struct la_batch *head, *tail; /* batches with tasks not begun, in submission order */
    int threads;                  /* la_sched_threads() */
    int workers;                  /* started */
    int running;                  /* tasks begun and not finished */
    int quit;
    pthread_t tids[LA_SCHED_MAX];
    struct worker w[LA_SCHED_MAX];
};

/* LABELAUDIT_SCHED_INLINE=1: no worker, every task on the waiting thread. */
static int inline_only(void)
{
    const char *env = getenv("LABELAUDIT_SCHED_INLINE");
    return env && strcmp(env, "1") == 0;
}

static int batch_complete(const struct la_batch *b)
{
    return b->begun >= b->end && b->finished == b->begun;
}

/* With s->mu held: the next task of the oldest batch that has one, which is
 * begun (and its batch leaves the queue with its last). @return its batch,
 * or NULL when none is queued. */
static struct la_batch *take_task(struct la_sched *s, size_t *task)
{
    struct la_batch *b = s->head;
    if (!b)
        return NULL;
    *task = b->begun++;
    if (b->begun >= b->end) {
        s->head = b->next;
        if (!s->head)
            s->tail = NULL;
        b->next = NULL;
    }
    return b;
}

/* With s->mu held: run task of b as worker, unlocked meanwhile. */
static void run_task(struct la_sched *s, struct la_batch *b, size_t task, int worker)
{
    s->running++;
    pthread_mutex_unlock(&s->mu);
    b->fn(b->ctx, worker, task);
    pthread_mutex_lock(&s->mu);
    s->running--;
    b->finished++;
    if (batch_complete(b) || (s->running == 0 && !s->head))
        pthread_cond_broadcast(&s->done);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct la_sched *s = w->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        size_t task;
        struct la_batch *b = take_task(s, &task);
        if (b)
            run_task(s, b, task, w->idx);
        else if (s->quit)
            break;
        else
            pthread_cond_wait(&s->work, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

struct la_sched *la_sched_open(int threads)
{
    struct la_sched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    int want = threads < 1 ? 1 : threads < LA_SCHED_MAX ? threads : LA_SCHED_MAX;
    if (inline_only()) {
        int left = budget_total ? atomic_load(&budget_left) : want;
        s->threads = want - 1 < left ? want : left + 1;
        return s;
    }
    for (int t = 1; t < want; t++) {
        s->w[t] = (struct worker){ s, t };
        if (la_thread_create(&s->tids[t], worker_main, &s->w[t]) != 0)
            break;
        s->workers = t;
    }
    s->threads = s->workers + 1;
    return s;
}

int la_sched_threads(const struct la_sched *s)
{
    return s->threads;
}

void la_sched_submit(struct la_sched *s, struct la_batch *b, size_t n, la_task_fn fn, void *ctx)
{
    *b = (struct la_batch){ .fn = fn, .ctx = ctx, .end = n };
    if (!n)
        return;
    pthread_mutex_lock(&s->mu);
    if (s->tail)
        s->tail->next = b;
    else
        s->head = b;
    s->tail = b;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->mu);
}

void la_sched_wait(struct la_sched *s, struct la_batch *b)
{
    pthread_mutex_lock(&s->mu);
    while (!batch_complete(b)) {
        size_t task;
        struct la_batch *next = take_task(s, &task);
        if (next)
            run_task(s, next, task, 0);
        else
            pthread_cond_wait(&s->done, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
}

/* With s->mu held: b leaves the queue (it has no task left to begin). */
static void unqueue(struct la_sched *s, struct la_batch *b)
{
    struct la_batch **at = &s->head, *prev = NULL;
    while (*at && *at != b)
        prev = *at, at = &(*at)->next;
    if (!*at)
        return;
    *at = b->next;
    if (s->tail == b)
        s->tail = prev;
    b->next = NULL;
}

void la_sched_stop(struct la_sched *s, struct la_batch *b, size_t from)
{
    pthread_mutex_lock(&s->mu);
    if (from < b->end) {
        b->end = from > b->begun ? from : b->begun;
        if (b->begun >= b->end)
            unqueue(s, b);
        if (batch_complete(b))
            pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->mu);
}

int la_sched_ran(const struct la_batch *b, size_t k)
{
    return k < b->begun;
}

/* Stop every queued batch and wait until no task runs. */
static void drain(struct la_sched *s)
{
    pthread_mutex_lock(&s->mu);
    for (struct la_batch *b = s->head, *next; b; b = next) {
        next = b->next;
        b->end = b->begun;
        b->next = NULL;
    }
    s->head = s->tail = NULL;
    while (s->running > 0)
        pthread_cond_wait(&s->done, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void la_sched_close(struct la_sched *s)
{
    if (!s)
        return;
    drain(s);
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->mu);
    for (int t = 1; t <= s->workers; t++)
        la_thread_join(s->tids[t]);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
    free(s);
}

// ---- a stream handed back in order -----------------------------------------------

/* One item in flight: a batch of one task, the item's number its own. */
struct ordered_slot {
    struct la_batch batch;
    size_t item;
    la_task_fn run;
    void *ctx;
};

static void run_slot(void *ctx, int worker, size_t task)
{
    struct ordered_slot *slot = ctx;
    (void)task;
    slot->run(slot->ctx, worker, slot->item);
}

static void submit_item(struct la_sched *s, struct ordered_slot *slot, size_t item,
                        la_task_fn run, void *ctx)
{
    *slot = (struct ordered_slot){ .item = item, .run = run, .ctx = ctx };
    la_sched_submit(s, &slot->batch, 1, run_slot, slot);
}

int la_sched_ordered(struct la_sched *s, size_t n, size_t ahead, la_task_fn run, la_done_fn done,
                     void *ctx)
{
    if (ahead < 1)
        ahead = 1;
    if (ahead > n)
        ahead = n;
    if (!n)
        return 0;
    struct ordered_slot *slots = calloc(ahead, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < ahead; i++)
        submit_item(s, &slots[i], i, run, ctx);
    for (size_t i = 0; i < n; i++) {
        struct ordered_slot *slot = &slots[i % ahead];
        la_sched_wait(s, &slot->batch);
        done(ctx, i);
        if (i + ahead < n)
            submit_item(s, slot, i + ahead, run, ctx);
    }
    free(slots);
    return 0;
}
