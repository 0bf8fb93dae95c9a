/* ring.c - see ring.h. */
#include "ring.h"

void la_ring_init(struct la_ring *g, unsigned slots)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->slots = slots;
    g->filled = g->taken = 0;
    g->done = g->quit = 0;
}

void la_ring_destroy(struct la_ring *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}

long la_ring_wait_free(struct la_ring *g)
{
    pthread_mutex_lock(&g->mu);
    while (g->filled - g->taken == g->slots && !g->quit)
        pthread_cond_wait(&g->cv, &g->mu);
    long k = g->quit ? -1 : (long)(g->filled % g->slots);
    pthread_mutex_unlock(&g->mu);
    return k;
}

void la_ring_fill(struct la_ring *g, int more)
{
    pthread_mutex_lock(&g->mu);
    if (more)
        g->filled++;
    else
        g->done = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

long la_ring_wait_filled(struct la_ring *g)
{
    pthread_mutex_lock(&g->mu);
    while (g->filled == g->taken && !g->done)
        pthread_cond_wait(&g->cv, &g->mu);
    long k = g->filled == g->taken ? -1 : (long)(g->taken % g->slots);
    pthread_mutex_unlock(&g->mu);
    return k;
}

static void signal_change(struct la_ring *g, int quit)
{
    pthread_mutex_lock(&g->mu);
    if (quit)
        g->quit = 1;
    else
        g->taken++;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void la_ring_take(struct la_ring *g) { signal_change(g, 0); }
void la_ring_quit(struct la_ring *g) { signal_change(g, 1); }
