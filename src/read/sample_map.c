/* sample_map.c - see sample_map.h.
 *
 * A piece holds the first elements of consecutive samples, as offsets from
 * its first sample's (4 bytes each: a sample further than 2^32 elements on
 * starts a piece of its own). The pieces form a list that only grows at its
 * end: the reader links a finished piece with a release store into the last
 * one's `next` (or `first`, for the first), the scan follows the links with
 * acquire loads, so a piece's contents are seen whole or the piece is not
 * seen at all. Each side has fields of its own that the other never touches. */
#include "sample_map.h"
#include "stats.h"     /* LA_NO_SAMPLE */

#include <stdatomic.h> /* the links between the threads */
#include <stdlib.h>    /* malloc, realloc, free */

#define PIECE_MIN 256u

struct piece {
    _Atomic(struct piece *) next;   /* NULL: the last published one */
    uint64_t base;                  /* its first sample's first element */
    uint64_t sample0;               /* its first sample's number */
    uint32_t n, cap;                /* samples, room for them */
    uint32_t off[];                 /* each sample's first element - base */
};

struct la_sample_map {
    _Atomic(struct piece *) first;  /* the first published piece; NULL: none yet */
    /* the reader's */
    struct piece *open;             /* being filled, unpublished */
    struct piece *last;             /* the last published */
    uint64_t samples;
    /* the scan's */
    struct piece *live;             /* the oldest piece not freed (NULL: take first) */
    struct piece *cur;              /* where the last lookup ended */
    uint64_t passed;
};

struct la_sample_map *la_sample_map_new(void)
{
    struct la_sample_map *m = calloc(1, sizeof *m);
    if (m)
        atomic_init(&m->first, NULL);
    return m;
}

void la_sample_map_free(void *map)
{
    struct la_sample_map *m = map;
    if (!m)
        return;
    struct piece *p = m->live ? m->live : atomic_load_explicit(&m->first, memory_order_acquire);
    while (p) {
        struct piece *next = atomic_load_explicit(&p->next, memory_order_acquire);
        free(p);
        p = next;
    }
    free(m->open);
    free(m);
}

// ---- the reader's thread -----------------------------------------------------------

static struct piece *new_piece(uint32_t cap, uint64_t base, uint64_t sample0)
{
    struct piece *p = malloc(sizeof *p + (size_t)cap * sizeof p->off[0]);
    if (!p)
        return NULL;
    atomic_init(&p->next, NULL);
    p->base = base;
    p->sample0 = sample0;
    p->n = 0;
    p->cap = cap;
    return p;
}

int la_sample_map_start(struct la_sample_map *m, uint64_t first)
{
    struct piece *p = m->open;
    if (p && first - p->base > UINT32_MAX) {
        la_sample_map_publish(m);     /* too far for an offset: a piece of its own */
        p = NULL;
    }
    if (!p && !(p = m->open = new_piece(PIECE_MIN, first, m->samples)))
        return -1;
    if (p->n == p->cap) {      /* unpublished: still the reader's alone to move */
        if (p->cap > UINT32_MAX / 2)
            return -1;
        struct piece *q = realloc(p, sizeof *p + (size_t)p->cap * 2 * sizeof p->off[0]);
        if (!q)
            return -1;
        q->cap *= 2;
        p = m->open = q;
    }
    p->off[p->n++] = (uint32_t)(first - p->base);
    m->samples++;
    return 0;
}

void la_sample_map_publish(struct la_sample_map *m)
{
    struct piece *p = m->open;
    if (!p || p->n == 0)
        return;
    m->open = NULL;
    if (m->last)
        atomic_store_explicit(&m->last->next, p, memory_order_release);
    else
        atomic_store_explicit(&m->first, p, memory_order_release);
    m->last = p;
}

uint64_t la_sample_map_samples(const struct la_sample_map *m)
{
    return m->samples;
}

// ---- the scan's thread -------------------------------------------------------------

static struct piece *next_of(struct piece *p)
{
    return atomic_load_explicit(&p->next, memory_order_acquire);
}

/* The oldest piece the scan may read, or NULL while none is published. */
static struct piece *live_head(struct la_sample_map *m)
{
    if (!m->live)
        m->live = atomic_load_explicit(&m->first, memory_order_acquire);
    return m->live;
}

/* The sample of index within piece p (p->base <= index). */
static uint64_t sample_in(const struct piece *p, uint64_t index)
{
    uint64_t at = index - p->base;
    uint32_t lo = 0, hi = p->n;        /* the last sample whose first <= at */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->off[mid] <= at)
            lo = mid;
        else
            hi = mid;
    }
    return p->sample0 + lo;
}

uint64_t la_sample_map_sample_of(void *map, uint64_t index)
{
    struct la_sample_map *m = map;
    struct piece *p = m->cur;
    if (!p || index < p->base)         /* back (another fold of the same chunk): from the oldest */
        p = live_head(m);
    if (!p || index < p->base)         /* none published yet, or freed: never asked, by the contract */
        return LA_NO_SAMPLE;
    for (struct piece *q; (q = next_of(p)) && q->base <= index;)
        p = q;
    m->cur = p;
    return sample_in(p, index);
}

void la_sample_map_passed(void *map, uint64_t index)
{
    struct la_sample_map *m = map;
    if (index > m->passed)
        m->passed = index;
    struct piece *p = live_head(m), *q;
    /* p's samples end where q's start; the last piece is never freed */
    while (p && (q = next_of(p)) && q->base <= m->passed) {
        if (m->cur == p)
            m->cur = NULL;
        free(p);
        p = m->live = q;
    }
}
