/* bad_values.c - the distinct bad values (bad_values.h). */
#include "bad_values.h"

#include <stdlib.h> /* calloc, free */
#include <string.h> /* memmove, strcmp, strdup */


static int rank(struct la_num v, const char *text)
{
    if (text)
        return 2;
    return v.kind == LA_NUM_F64 && v.v.f != v.v.f ? 1 : 0;   /* NaN after every number */
}

int la_bad_value_cmp(struct la_num a, const char *a_text, struct la_num b, const char *b_text)
{
    int ra = rank(a, a_text), rb = rank(b, b_text);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra == 2) {
        int c = strcmp(a_text, b_text);
        return (c > 0) - (c < 0);
    }
    return ra == 1 ? 0 : la_num_cmp(a, b);
}

/* Where value lies in t: *found when it is there. */
static size_t search(const struct la_bad_values *t, struct la_num value, const char *text,
                     int *found)
{
    size_t lo = 0, hi = t->n;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = la_bad_value_cmp(t->v[mid].value, t->v[mid].text, value, text);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct la_bad_value *la_bad_values_find(struct la_bad_values *t, struct la_num value,
                                        const char *text, int verdict)
{
    if (t->last < t->n && la_bad_value_cmp(t->v[t->last].value, t->v[t->last].text, value,
                                           text) == 0)
        return &t->v[t->last];
    int found;
    size_t at = search(t, value, text, &found);
    if (found) {
        t->last = at;
        return &t->v[at];
    }
    if (at >= LA_BAD_VALUES)
        return NULL;          /* above every one of a full table */
    if (!t->v && !(t->v = calloc(LA_BAD_VALUES, sizeof *t->v)))
        return NULL;
    char *copy = text ? strdup(text) : NULL;
    if (text && !copy)
        return NULL;
    if (t->n == LA_BAD_VALUES)
        free(t->v[--t->n].text);   /* the largest makes room */
    memmove(&t->v[at + 1], &t->v[at], (t->n - at) * sizeof *t->v);
    t->v[at] = (struct la_bad_value){ value, copy, verdict, 0, 0, { 0 }, { 0 } };
    t->n++;
    t->last = at;
    return &t->v[at];
}

void la_bad_value_place(struct la_bad_value *x, uint64_t index, uint64_t sample)
{
    if (x->n_first >= LA_BAD_VALUE_FIRST)
        return;
    /* samples mapped by a reader (COCO) may come in any order: any of the
     * kept ones, not only the last, may be met again */
    for (int k = 0; k < x->n_first; k++)
        if (x->first_sample[k] == sample)
            return;
    x->first_index[x->n_first] = index;
    x->first_sample[x->n_first++] = sample;
}

int la_bad_values_settled(const struct la_bad_values *t, struct la_num v)
{
    int found;
    size_t at = search(t, v, NULL, &found);
    return found ? t->v[at].n_first >= LA_BAD_VALUE_FIRST : at >= LA_BAD_VALUES;
}

/* A value's first appearance: its first sample (what a report writes, so a
 * --merge of reports orders as the whole did; values first met in one sample
 * keep the table's order); one without a place (none is left so once the
 * scan ends) after every other. */
static uint64_t first_seen(const struct la_bad_value *x)
{
    return x->n_first ? x->first_sample[0] : UINT64_MAX;
}

size_t la_bad_values_in_order(const struct la_bad_values *t, const struct la_bad_value **out)
{
    for (size_t i = 0; i < t->n; i++) {   /* insertion: 64 at most, already nearly sorted */
        size_t j = i;
        for (; j > 0 && first_seen(out[j - 1]) > first_seen(&t->v[i]); j--)
            out[j] = out[j - 1];
        out[j] = &t->v[i];
    }
    return t->n;
}

void la_bad_values_merge(struct la_bad_values *dst, const struct la_bad_values *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct la_bad_value *y = &src->v[i];
        struct la_bad_value *x = la_bad_values_find(dst, y->value, y->text, y->verdict);
        if (!x)
            continue;
        x->count += y->count;
        for (int k = 0; k < y->n_first; k++)
            la_bad_value_place(x, y->first_index[k], y->first_sample[k]);
    }
}

void la_bad_values_shift(struct la_bad_values *t, uint64_t index, uint64_t sample)
{
    for (size_t i = 0; i < t->n; i++)
        for (int k = 0; k < t->v[i].n_first; k++) {
            t->v[i].first_index[k] += index;
            if (t->v[i].first_sample[k] != LA_NO_SAMPLE)
                t->v[i].first_sample[k] += sample;
        }
}

uint64_t la_bad_values_listed(const struct la_bad_values *t)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->v[i].count;
    return n;
}

void la_bad_values_reset(struct la_bad_values *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].text);
    t->n = 0;
}

void la_bad_values_free(struct la_bad_values *t)
{
    la_bad_values_reset(t);
    free(t->v);
    t->v = NULL;
}
