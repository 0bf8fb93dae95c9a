/* source_list.c - see source_list.h. */
#include "source_list.h"

#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy, strdup */

#include "msg.h"  /* la_verbose, la_err */
#include "util.h" /* la_grow_n */

void la_dataset_note_skipped(struct la_dataset *d, const char *path, const char *why,
                             uint64_t max_report)
{
    la_verbose(path, "skipped: %s", why);
    d->skipped_total++;
    if (d->n_skipped >= max_report)
        return;
    if (la_grow_n(&d->skipped, &d->cap_skipped, d->n_skipped + 1, sizeof *d->skipped, 16) != 0)
        return;
    struct la_skipped *s = &d->skipped[d->n_skipped];
    s->path = strdup(path);
    s->why = strdup(why);
    if (s->path && s->why)
        d->n_skipped++;
    else {
        free(s->path);
        free(s->why);
    }
}

/* An unreadable file or folder: exit 3, named on stderr and in the report. */
void la_dataset_note_unreadable(struct la_dataset *d, const char *path, const char *why,
                                uint64_t max_report)
{
    la_err(path, "%s", why);
    d->unreadable++;
    la_dataset_note_skipped(d, path, why, max_report);
}

int la_dataset_append(struct la_dataset *d, const struct la_source_info *from)
{
    if (la_grow_n(&d->src, &d->cap_src, d->n_src + 1, sizeof *d->src, 16) != 0)
        return -1;
    struct la_source_info *s = &d->src[d->n_src];
    *s = *from;
    s->inner = NULL;
    if (!(s->path = strdup(from->path)) ||
        (s->ndim && !(s->inner = malloc((size_t)s->ndim * sizeof *s->inner)))) {
        free(s->path);
        return -1;
    }
    if (s->ndim)                /* memcpy from NULL is undefined, even of 0 bytes */
        memcpy(s->inner, from->inner, (size_t)s->ndim * sizeof *s->inner);
    d->n_src++;
    return 0;
}

/* The last source whose first sample (or, by_index, first flat index) is at
 * or below pos: sources run in order of both. */
static const struct la_source_info *last_source_from(const struct la_dataset *d, int by_index,
                                                     uint64_t pos)
{
    size_t lo = 0, hi = d->n_src;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t first = by_index ? d->src[mid].first_index : d->src[mid].first_sample;
        if (first <= pos)
            lo = mid;
        else
            hi = mid;
    }
    return d->n_src ? &d->src[lo] : NULL;
}

const struct la_source_info *la_dataset_source_of(const struct la_dataset *d, uint64_t sample)
{
    return last_source_from(d, 0, sample);
}

const struct la_source_info *la_dataset_source_of_index(const struct la_dataset *d,
                                                        uint64_t index)
{
    return last_source_from(d, 1, index);
}

void la_dataset_at(const struct la_source_info *s, uint64_t index, uint64_t *at, int *n)
{
    uint64_t stride = 1;
    for (int k = 0; k < s->ndim; k++)
        stride *= s->inner[k] ? s->inner[k] : 1;
    uint64_t rest = (index - s->first_index) % stride;
    for (int k = s->ndim - 1; k >= 0; k--) {
        uint64_t dim = s->inner[k] ? s->inner[k] : 1;
        at[k] = rest % dim;
        rest /= dim;
    }
    *n = s->ndim;
}

void la_dataset_free(struct la_dataset *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_src; i++) {
        free(d->src[i].path);
        free(d->src[i].inner);
    }
    for (size_t i = 0; i < d->n_skipped; i++) {
        free(d->skipped[i].path);
        free(d->skipped[i].why);
    }
    free(d->src);
    free(d->skipped);
    free(d->path);
    free(d);
}
