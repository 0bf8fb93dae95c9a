/* ignored_samples.c - see ignored_samples.h. */
#include "ignored_samples.h"

#include <stdlib.h> /* calloc, realloc, free */
#include "dtype.h"

/* Whether a value of dtype can equal ignore at all. */
static int dtype_holds(int dtype, int64_t v)
{
    switch (dtype) {
    case LA_DT_BOOL:   return v == 0 || v == 1;
    case LA_DT_INT8:   return v >= INT8_MIN && v <= INT8_MAX;
    case LA_DT_UINT8:  return v >= 0 && v <= UINT8_MAX;
    case LA_DT_INT16:  return v >= INT16_MIN && v <= INT16_MAX;
    case LA_DT_UINT16: return v >= 0 && v <= UINT16_MAX;
    case LA_DT_INT32:  return v >= INT32_MIN && v <= INT32_MAX;
    case LA_DT_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case LA_DT_UINT64: return v >= 0;
    default:           return 1;   /* int64, floats: -100.0 is -100 */
    }
}

void la_ignored_samples_start(struct la_ignored_samples *t, int has_ignore, int64_t ignore,
                              int dtype, uint64_t stride, la_sample_of sample_of,
                              la_sample_end sample_end, void *ctx, size_t cap)
{
    *t = (struct la_ignored_samples){ .ignore = ignore, .stride = stride,
                                      .sample_of = sample_of, .sample_end = sample_end,
                                      .ctx = ctx, .cap = cap };
    int by_map = stride == 0 && sample_of;
    t->active = has_ignore && (stride > 1 || by_map) && dtype_holds(dtype, ignore);
}

/* By sample_of alone: the singles' counter, made on first use. */
static struct la_ignored_samples *singles_of(struct la_ignored_samples *t)
{
    if (!t->singles && (t->singles = calloc(1, sizeof *t->singles)))
        t->singles->cap = t->cap;
    return t->singles;
}

/* Whether any of n values from p (of dtype) is not the ignore index. */
#define ANY_TARGET(T)                                                      \
    {                                                                      \
        const T *v = (const T *)p + from;                                  \
        for (size_t i = 0; i < n; i++)                                     \
            if ((int64_t)v[i] != ign)                                      \
                return 1;                                                  \
        return 0;                                                          \
    }

static int any_target(const void *p, int dtype, size_t from, size_t n, int64_t ign)
{
    switch (dtype) {
    case LA_DT_BOOL: case LA_DT_UINT8: ANY_TARGET(uint8_t)
    case LA_DT_INT8:   ANY_TARGET(int8_t)
    case LA_DT_INT16:  ANY_TARGET(int16_t)
    case LA_DT_UINT16: ANY_TARGET(uint16_t)
    case LA_DT_INT32:  ANY_TARGET(int32_t)
    case LA_DT_UINT32: ANY_TARGET(uint32_t)
    case LA_DT_INT64:  ANY_TARGET(int64_t)
    case LA_DT_UINT64: {
        const uint64_t *v = (const uint64_t *)p + from;
        for (size_t i = 0; i < n; i++)
            if (v[i] > (uint64_t)INT64_MAX || (int64_t)v[i] != ign)
                return 1;
        return 0;
    }
    case LA_DT_FLOAT32: {
        const float *v = (const float *)p + from;
        for (size_t i = 0; i < n; i++)
            if ((double)v[i] != (double)ign)
                return 1;
        return 0;
    }
    case LA_DT_FLOAT64: {
        const double *v = (const double *)p + from;
        for (size_t i = 0; i < n; i++)
            if (v[i] != (double)ign)
                return 1;
        return 0;
    }
    default: {   /* float16: as the scan reads it */
        const uint16_t *v = (const uint16_t *)p + from;
        for (size_t i = 0; i < n; i++)
            if ((double)la_half_to_float(v[i]) != (double)ign)
                return 1;
        return 0;
    }
    }
}

/* Count sample as one with no target, and list it while there is room. */
static void count_sample(struct la_ignored_samples *t, uint64_t sample)
{
    t->count++;
    if (t->n_list < t->cap) {
        uint64_t *grown = t->list;
        if (t->n_list % 64 == 0 &&
            !(grown = realloc(t->list, (t->n_list + 64) * sizeof *t->list)))
            return;   /* out of memory: counted, not listed */
        t->list = grown;
        t->list[t->n_list++] = sample;
    }
}

static void close_sample(struct la_ignored_samples *t)
{
    if (!t->open || t->cur_target || t->cur == LA_NO_SAMPLE)
        return;
    int alone = t->stride == 0 && !t->sample_end;
    if (alone && t->cur_n == 1) {
        struct la_ignored_samples *one = singles_of(t);
        if (one)
            count_sample(one, t->cur);
        return;
    }
    count_sample(t, t->cur);
}

/* The singles into the count, in sample order, when the samples were lists. */
static void merge_singles(struct la_ignored_samples *t)
{
    struct la_ignored_samples *one = t->singles;
    if (!one || !t->seen_multi || !one->count)
        return;
    uint64_t *a = t->list, *b = one->list;
    size_t na = t->n_list, nb = one->n_list, i = 0, j = 0;
    uint64_t total = t->count + one->count;
    t->list = NULL;
    t->n_list = 0;
    t->count = 0;
    while ((i < na || j < nb) && t->n_list < t->cap)
        count_sample(t, j == nb || (i < na && a[i] < b[j]) ? a[i++] : b[j++]);
    t->count = total;   /* those past cap: counted, not listed */
    free(a);
}

void la_ignored_samples_add(struct la_ignored_samples *into, const struct la_ignored_samples *from,
                            uint64_t first_sample)
{
    uint64_t unlisted = from->count - from->n_list;
    for (size_t i = 0; i < from->n_list; i++)
        count_sample(into, first_sample + from->list[i]);
    into->count += unlisted;
    if (from->count && !into->active) {
        into->active = 1;           /* its ignore index, for the message */
        into->ignore = from->ignore;
    }
}

/* Start the sample holding element index. */
static void open_sample(struct la_ignored_samples *t, uint64_t index)
{
    t->open = 1;
    t->cur_target = 0;
    if (t->stride) {
        t->cur = index / t->stride;
        t->cur_end = (t->cur + 1) * t->stride;
    } else {
        t->cur = t->sample_of(t->ctx, index);
        t->cur_end = t->cur == LA_NO_SAMPLE ? index + 1 : t->sample_end(t->ctx, t->cur);
        if (t->cur_end <= index)
            t->cur_end = index + 1;
    }
}

/* By sample_of alone: one past the last element of [at, end) in at's sample s
 * (contiguous samples: sample_of never decreases), and in *next the sample
 * there when it was looked up (else LA_NO_SAMPLE). Tried first, after two
 * samples of one length (token rows, a run of equal records): that length;
 * else galloping then halving, so a sample costs a few lookups whatever its
 * length, and the next sample's first is always one of them. */
static uint64_t run_end(struct la_ignored_samples *t, uint64_t at, uint64_t end, uint64_t s,
                        uint64_t *next)
{
    uint64_t guess = at + t->last_len, v;
    *next = LA_NO_SAMPLE;
    if (t->last_len && t->last_len == t->prev_len && guess < end &&
        t->sample_of(t->ctx, guess - 1) == s && (v = t->sample_of(t->ctx, guess)) != s) {
        *next = v;
        return guess;
    }
    uint64_t lo = at, hi = end, step = 1;   /* lo in s; hi past it, its sample *next */
    while (lo + step < end) {
        if ((v = t->sample_of(t->ctx, lo + step)) != s) {
            hi = lo + step;
            *next = v;
            break;
        }
        lo += step;
        step *= 2;
    }
    if (hi == end) {   /* no probe left s: does the chunk's last element? */
        if (lo == end - 1 || (v = t->sample_of(t->ctx, end - 1)) == s)
            return end;
        hi = end - 1;
        *next = v;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((v = t->sample_of(t->ctx, mid)) == s) {
            lo = mid;
        } else {
            hi = mid;
            *next = v;
        }
    }
    return hi;
}

/* By sample_of alone: fold values [at, end) of c. */
static void fold_by_lookup(struct la_ignored_samples *t, const struct la_chunk *c)
{
    uint64_t at = c->first_index, end = c->first_index + c->count, next = LA_NO_SAMPLE;
    while (at < end) {
        uint64_t s = next != LA_NO_SAMPLE ? next : t->sample_of(t->ctx, at);
        if (!t->open || s != t->cur) {
            if (t->open) {
                t->prev_len = t->last_len;
                t->last_len = t->cur_n;
            }
            close_sample(t);
            t->open = 1;
            t->cur = s;
            t->cur_n = 0;
            t->cur_target = 0;
        }
        uint64_t stop = run_end(t, at, end, s, &next);
        t->cur_n += stop - at;
        t->seen_multi |= t->cur_n > 1;
        if (!t->cur_target)
            t->cur_target = any_target(c->values, c->dtype, (size_t)(at - c->first_index),
                                       (size_t)(stop - at), t->ignore);
        at = stop;
    }
}

void la_ignored_samples_fold(struct la_ignored_samples *t, const struct la_chunk *c)
{
    if (!t->active || c->unparsable) {
        if (t->active && c->unparsable && t->open)
            t->cur_target = 1;   /* a cell that is not a number is no ignored target */
        return;
    }
    if (t->stride == 0 && !t->sample_end) {
        fold_by_lookup(t, c);
        return;
    }
    uint64_t at = c->first_index, end = c->first_index + c->count;
    while (at < end) {
        if (!t->open || at >= t->cur_end) {
            close_sample(t);
            open_sample(t, at);
        }
        uint64_t stop = t->cur_end < end ? t->cur_end : end;
        if (!t->cur_target)
            t->cur_target = any_target(c->values, c->dtype, (size_t)(at - c->first_index),
                                       (size_t)(stop - at), t->ignore);
        at = stop;
    }
}

void la_ignored_samples_end(struct la_ignored_samples *t)
{
    if (t->active)
        close_sample(t);
    t->open = 0;
    merge_singles(t);
    if (t->singles) {
        la_ignored_samples_free(t->singles);
        free(t->singles);
        t->singles = NULL;
    }
}

void la_ignored_samples_free(struct la_ignored_samples *t)
{
    free(t->list);
    t->list = NULL;
    t->n_list = 0;
    if (t->singles) {
        la_ignored_samples_free(t->singles);
        free(t->singles);
        t->singles = NULL;
    }
}
