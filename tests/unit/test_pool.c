/* test_pool.c - the persistent threads of pool.h run every part of a job once.
 *
 * TAP. Each job marks the parts it ran; the marks must show every part in
 * [0, nparts) exactly once, part 0 on the calling thread, over many jobs in a
 * row (the workers wait between them), and never a part beyond la_pool_size(). */
#include "pool.h"
#include "tap.h"

#include <pthread.h> /* pthread_self, pthread_equal */
#include <string.h>  /* memset */

struct job {
    int runs[LA_POOL_MAX + 8];
    pthread_t part0_thread;
};

static void mark(void *ctx, int part)
{
    struct job *j = ctx;
    __atomic_fetch_add(&j->runs[part], 1, __ATOMIC_RELAXED);
    if (part == 0)
        j->part0_thread = pthread_self();
}

/* Run nparts on p; @return 1 when parts [0, want) ran once each and no other did. */
static int job_ok(struct la_pool *p, int nparts, int want)
{
    struct job j;
    memset(&j, 0, sizeof j);
    la_pool_run(p, nparts, mark, &j);
    for (int t = 0; t < LA_POOL_MAX + 8; t++)
        if (j.runs[t] != (t < want))
            return 0;
    return pthread_equal(j.part0_thread, pthread_self());
}

int main(void)
{
    struct la_pool *p = la_pool_open(4);
    TAP_OK(p != NULL && la_pool_size(p) == 4, "a pool of 4: the caller and 3 workers");
    int all = 1;
    for (int round = 0; round < 2000 && all; round++)
        all = job_ok(p, 1 + round % 4, 1 + round % 4);
    TAP_OK(all, "2000 jobs of 1 to 4 parts: each part once, part 0 on the caller");
    TAP_OK(job_ok(p, 9, 4), "more parts than threads: only la_pool_size() of them run");
    la_pool_close(p);

    struct la_pool *one = la_pool_open(1);
    TAP_OK(one && la_pool_size(one) == 1 && job_ok(one, 3, 1), "a pool of 1: the caller alone");
    la_pool_close(one);

    struct la_pool *big = la_pool_open(LA_POOL_MAX + 10);
    TAP_OK(big && la_pool_size(big) == LA_POOL_MAX, "at most LA_POOL_MAX threads");
    TAP_OK(job_ok(big, LA_POOL_MAX, LA_POOL_MAX), "LA_POOL_MAX parts at once");
    la_pool_close(big);
    la_pool_close(NULL);
    return tap_done();
}
