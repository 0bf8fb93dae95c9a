/* stats.c - the per-file accumulator: init, bad entries, min/max, merging. */
#include "stats.h"

#include <stdlib.h> /* calloc, free */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memset, strdup */

#include "dtype.h"
#include "util.h"   /* la_grow */

int la_stats_init(struct la_stats *s, uint64_t sample_stride, size_t bad_cap,
                  uint64_t hist_len, int64_t above_base)
{
    memset(s, 0, sizeof *s);
    s->sample_stride = sample_stride ? sample_stride : 1;
    s->bad_cap = bad_cap;
    s->hist_len = hist_len;
    s->above_base = above_base;
    /* calloc'd pages cost no memory until a bin is touched */
    if (hist_len && !(s->hist = calloc(hist_len, sizeof *s->hist)))
        return -1;
    return 0;
}

/* Room for one more entry in bad[] / groups[], below bad_cap: the lists grow
 * as entries come, so 100,000 clean files cost nothing each. Out of
 * memory, the entry is counted but not kept. @return 1 when there is room. */
static int room_for_bad(struct la_stats *s)
{
    if (s->n_bad >= s->bad_cap)
        return 0;
    size_t bytes = s->bad_alloc * sizeof *s->bad;
    if (s->n_bad < s->bad_alloc)
        return 1;
    if (la_grow(&s->bad, &bytes, (s->n_bad + 1) * sizeof *s->bad, 16 * sizeof *s->bad) != 0)
        return 0;
    s->bad_alloc = bytes / sizeof *s->bad;
    return 1;
}

static int room_for_group(struct la_stats *s)
{
    if (s->n_groups >= s->bad_cap)
        return 0;
    size_t bytes = s->groups_alloc * sizeof *s->groups;
    if (s->n_groups < s->groups_alloc)
        return 1;
    if (la_grow(&s->groups, &bytes, (s->n_groups + 1) * sizeof *s->groups,
                16 * sizeof *s->groups) != 0)
        return 0;
    s->groups_alloc = bytes / sizeof *s->groups;
    return 1;
}

int la_stats_map_samples(struct la_stats *s, la_sample_of sample_of, void *ctx,
                         uint64_t n_samples, int ordered)
{
    s->sample_of = sample_of;
    s->sample_ctx = ctx;
    s->n_samples = n_samples;
    if (ordered)
        return 0;
    s->seen = calloc(n_samples / 64 + 1, sizeof *s->seen);
    return s->seen ? 0 : -1;
}

static void free_group_texts(struct la_bad_group *g)
{
    for (int k = 0; k < g->n_values; k++)
        free(g->texts[k]);
}

void la_stats_free(struct la_stats *s)
{
    for (size_t i = 0; i < s->n_bad; i++)
        free(s->bad[i].text);
    for (size_t i = 0; i < s->n_groups; i++)
        free_group_texts(&s->groups[i]);
    la_bad_values_free(&s->values);
    free(s->bad);
    free(s->groups);
    free(s->hist);
    free(s->seen);
    s->bad = NULL;
    s->groups = NULL;
    s->hist = NULL;
    s->seen = NULL;
    s->n_bad = s->bad_alloc = s->n_groups = s->groups_alloc = 0;
}

void la_stats_note_minmax(struct la_stats *s, struct la_num v)
{
    if (!s->has_minmax) {
        s->min = s->max = v;
        s->has_minmax = 1;
        return;
    }
    if (la_num_cmp(v, s->min) < 0)
        s->min = v;
    if (la_num_cmp(v, s->max) > 0)
        s->max = v;
}

static int is_nan(struct la_num a) { return a.kind == LA_NUM_F64 && a.v.f != a.v.f; }

/* NaN is one value here, equal to NaN only: la_num_cmp finds NaN neither
 * below nor above any number, which is not "equal". */
static int same_value(struct la_num a, struct la_num b)
{
    if (is_nan(a) || is_nan(b))
        return is_nan(a) && is_nan(b);
    return a.kind == b.kind && la_num_cmp(a, b) == 0;
}

/* A bad value with its cell: unparsable cells (all read as 0) are told apart
 * by their text, and never equal a number. */
static int same_entry(struct la_num a, const char *a_text, struct la_num b, const char *b_text)
{
    if (a_text || b_text)
        return a_text && b_text && strcmp(a_text, b_text) == 0;
    return same_value(a, b);
}

/* Add v (and text, copied) to g's distinct values while there is room; out
 * of memory for the text, the value is left out rather than shown as 0. */
static void group_note_value(struct la_bad_group *g, struct la_num v, const char *text)
{
    for (int i = 0; i < g->n_values; i++)
        if (same_entry(g->values[i], g->texts[i], v, text))
            return;
    if (g->n_values >= LA_GROUP_VALUES)
        return;
    char *copy = text ? strdup(text) : NULL;
    if (text && !copy)
        return;
    g->texts[g->n_values] = copy;
    g->values[g->n_values++] = v;
}

/* dst = src, with copies of its texts (src's stats keep theirs). */
static void copy_group(struct la_bad_group *dst, const struct la_bad_group *src)
{
    *dst = *src;
    dst->n_values = 0;
    for (int k = 0; k < src->n_values; k++)
        group_note_value(dst, src->values[k], src->texts[k]);
}

/* The group of the last bad sample, when it is in the list. */
static struct la_bad_group *last_group(struct la_stats *s)
{
    if (!s->n_groups || !s->has_last_bad || s->groups[s->n_groups - 1].sample != s->last_bad_sample)
        return NULL;
    return &s->groups[s->n_groups - 1];
}

/* Keep the sample tally exact across chunk and thread boundaries: entries
 * arrive in index order, so a new sample shows as a change of sample. */
static struct la_bad_group new_group(const struct la_bad *b)
{
    struct la_bad_group g = { b->sample, 1, b->index, b->value, b->verdict, 0, 0, { { 0 } },
                              { NULL } };
    group_note_value(&g, b->value, b->text);
    return g;
}

/* The first value's text: the group's first distinct value is its first entry's. */
static const char *first_text(const struct la_bad_group *g)
{
    return g->n_values ? g->texts[0] : NULL;
}

static void extend_group(struct la_bad_group *g, const struct la_bad *b)
{
    g->count++;
    g->mixed |= !same_entry(g->first_value, first_text(g), b->value, b->text) ||
                g->first_verdict != b->verdict;
    group_note_value(g, b->value, b->text);
}

static void note_bad_sample(struct la_stats *s, const struct la_bad *b)
{
    if (s->has_last_bad && s->last_bad_sample == b->sample) {
        struct la_bad_group *g = last_group(s);
        if (g)
            extend_group(g, b);
        return;
    }
    if (!s->has_last_bad)
        s->first_bad_sample = b->sample;
    s->bad_samples++;
    s->has_last_bad = 1;
    s->last_bad_sample = b->sample;
    if (room_for_group(s))
        s->groups[s->n_groups++] = new_group(b);
}

/* Samples in any order (la_stats_map_samples): groups[] keeps the bad_cap
 * smallest samples met so far, ascending, each with all its entries. That is
 * exact: a sample left out (or pushed out) is above every one kept, and the
 * largest kept only falls, so it never returns. A sample newly kept costs a
 * move of up to bad_cap groups (--max-report). */
static void note_unordered_group(struct la_stats *s, const struct la_bad *b, int first_time)
{
    size_t lo = 0, hi = s->n_groups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->groups[mid].sample < b->sample)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!first_time) {
        if (lo < s->n_groups && s->groups[lo].sample == b->sample)
            extend_group(&s->groups[lo], b);
        return;
    }
    if (s->n_groups >= s->bad_cap && lo < s->n_groups)
        free_group_texts(&s->groups[--s->n_groups]);   /* the largest kept makes room */
    if (!room_for_group(s))
        return;
    memmove(&s->groups[lo + 1], &s->groups[lo], (s->n_groups - lo) * sizeof *s->groups);
    s->groups[lo] = new_group(b);
    s->n_groups++;
}

/* The sample tally where samples come in any order: a bitmap of those met.
 * first/last_bad_sample hold the smallest and largest, as a merge wants. */
static void note_unordered_sample(struct la_stats *s, const struct la_bad *b)
{
    if (b->sample >= s->n_samples)
        return;   /* LA_NO_SAMPLE: an annotation of no listed image */
    uint64_t *word = &s->seen[b->sample / 64], bit = (uint64_t)1 << (b->sample % 64);
    int first_time = !(*word & bit);
    *word |= bit;
    s->bad_samples += (uint64_t)first_time;
    if (!s->has_last_bad || b->sample < s->first_bad_sample)
        s->first_bad_sample = b->sample;
    if (!s->has_last_bad || b->sample > s->last_bad_sample)
        s->last_bad_sample = b->sample;
    s->has_last_bad = 1;
    note_unordered_group(s, b, first_time);
}

const int64_t la_sentinels[LA_SENTINELS] = { 127, 255, 32767, 65535 };

/* A "no label" value above the range and beyond the outlier bins: counted
 * here, where every such entry passes on either backend (the bins' fast
 * path keeps only values within their reach). */
static void count_sentinel(struct la_stats *s, int verdict, struct la_num v)
{
    int64_t x;
    if (verdict != LA_V_ABOVE)
        return;
    if (v.kind == LA_NUM_I64)
        x = v.v.i;
    else if (v.kind == LA_NUM_U64 && v.v.u <= 65535)
        x = (int64_t)v.v.u;
    else if (v.kind == LA_NUM_F64 && v.v.f >= 0 && v.v.f <= 65535 && v.v.f == (int64_t)v.v.f)
        x = (int64_t)v.v.f;
    else
        return;
    if (x - s->above_base < LA_OUTLIER_BINS)
        return;                          /* in a bin already */
    for (int k = 0; k < LA_SENTINELS; k++)
        if (x == la_sentinels[k])
            s->sentinel_above[k]++;
}

/* One bad entry; counted: its value's count too (else its bins' flush adds it). */
static void add_bad(struct la_stats *s, uint64_t index, int verdict, struct la_num value,
                    const char *text, int counted)
{
    count_sentinel(s, verdict, value);
    uint64_t sample = s->sample_of ? s->sample_of(s->sample_ctx, index) : index / s->sample_stride;
    struct la_bad b = { index, sample, verdict, value, (char *)text };   /* text: borrowed */
    struct la_bad_value *x = la_bad_values_find(&s->values, value, text, verdict);
    if (x) {
        x->count += (uint64_t)counted;
        la_bad_value_place(x, index, sample);
    }
    s->bad_total++;
    if (s->seen)
        note_unordered_sample(s, &b);
    else if (sample != LA_NO_SAMPLE)
        note_bad_sample(s, &b);
    if (s->sink)
        s->sink(s->sink_ctx, &b);
    if (room_for_bad(s)) {
        b.text = text ? strdup(text) : NULL;
        s->bad[s->n_bad++] = b;
    }
}

void la_stats_add_bad(struct la_stats *s, uint64_t index, int verdict,
                      struct la_num value, const char *text)
{
    add_bad(s, index, verdict, value, text, 1);
}

void la_stats_add_bad_placed(struct la_stats *s, uint64_t index, int verdict,
                             struct la_num value)
{
    add_bad(s, index, verdict, value, NULL, 0);
}

void la_stats_count_value(struct la_stats *s, int verdict, struct la_num value, uint64_t n)
{
    struct la_bad_value *x = la_bad_values_find(&s->values, value, NULL, verdict);
    if (x)
        x->count += n;
}

int la_stats_value_settled(const struct la_stats *s, struct la_num value)
{
    return la_bad_values_settled(&s->values, value);
}

void la_stats_add_unparsable(struct la_stats *s, uint64_t index, const char *text)
{
    s->count++;
    s->n_verdict[LA_V_UNPARSABLE]++;
    la_stats_add_bad(s, index, LA_V_UNPARSABLE, (struct la_num){ LA_NUM_I64, { 0 } }, text);
}

/* src's groups after dst's; src's first sample may continue dst's last one. */
static void merge_groups(struct la_stats *dst, const struct la_stats *src, int continues)
{
    size_t i = 0;
    if (continues && src->n_groups) {
        struct la_bad_group *g = last_group(dst);
        if (g) {
            const struct la_bad_group *h = &src->groups[0];
            g->count += h->count;
            g->mixed |= h->mixed ||
                        !same_entry(g->first_value, first_text(g), h->first_value, first_text(h)) ||
                        g->first_verdict != h->first_verdict;
            for (int k = 0; k < h->n_values; k++)
                group_note_value(g, h->values[k], h->texts[k]);
        }
        i = 1;
    }
    for (; i < src->n_groups && room_for_group(dst); i++)
        copy_group(&dst->groups[dst->n_groups++], &src->groups[i]);
}

static void merge_bad(struct la_stats *dst, const struct la_stats *src)
{
    if (!src->bad_total)
        return;
    int continues = dst->has_last_bad && src->first_bad_sample == dst->last_bad_sample;
    merge_groups(dst, src, continues);
    dst->bad_samples += src->bad_samples - (continues ? 1 : 0);
    if (!dst->has_last_bad)
        dst->first_bad_sample = src->first_bad_sample;
    dst->has_last_bad = 1;
    dst->last_bad_sample = src->last_bad_sample;
    dst->bad_total += src->bad_total;
    la_bad_values_merge(&dst->values, &src->values);
    for (size_t i = 0; dst->sink && i < src->n_bad; i++)
        dst->sink(dst->sink_ctx, &src->bad[i]);
    for (size_t i = 0; i < src->n_bad && room_for_bad(dst); i++) {
        dst->bad[dst->n_bad] = src->bad[i];
        dst->bad[dst->n_bad].text = src->bad[i].text ? strdup(src->bad[i].text) : NULL;
        dst->n_bad++;
    }
}

void la_stats_merge(struct la_stats *dst, const struct la_stats *src)
{
    dst->count += src->count;
    for (int v = 0; v < LA_V_COUNT; v++)
        dst->n_verdict[v] += src->n_verdict[v];
    if (src->has_minmax) {
        la_stats_note_minmax(dst, src->min);
        la_stats_note_minmax(dst, src->max);
    }
    dst->saw_float |= src->saw_float;
    uint64_t bins = src->hist_hi < dst->hist_len ? src->hist_hi : dst->hist_len;
    for (uint64_t c = 0; c < bins; c++)
        dst->hist[c] += src->hist[c];
    if (src->hist_hi > dst->hist_hi)
        dst->hist_hi = src->hist_hi;
    dst->hist_beyond += src->hist_beyond;
    dst->ambiguous_headers += src->ambiguous_headers;
    for (int k = 0; k < LA_OUTLIER_BINS; k++) {
        dst->outlier_below[k] += src->outlier_below[k];
        dst->outlier_above[k] += src->outlier_above[k];
    }
    for (int k = 0; k < LA_SENTINELS; k++)
        dst->sentinel_above[k] += src->sentinel_above[k];
    merge_bad(dst, src);
    for (int k = 0; k < src->n_zero_first; k++)
        la_stats_note_zero(dst, src->zero_first[k]);
}

uint64_t la_stats_invalid(const struct la_stats *s)
{
    return s->n_verdict[LA_V_NON_FINITE] + s->n_verdict[LA_V_NON_INTEGER] +
           s->n_verdict[LA_V_BELOW] + s->n_verdict[LA_V_ABOVE] + s->n_verdict[LA_V_UNPARSABLE];
}

void la_format_num(struct la_num v, int dtype, char *buf, size_t len)
{
    if (v.kind == LA_NUM_I64) {
        snprintf(buf, len, "%lld", (long long)v.v.i);
        return;
    }
    if (v.kind == LA_NUM_U64) {
        snprintf(buf, len, "%llu", (unsigned long long)v.v.u);
        return;
    }
    double d = v.v.f;
    if (d != d) {
        snprintf(buf, len, "nan");
        return;
    }
    if (d - d != 0) {
        snprintf(buf, len, "%s", d < 0 ? "-inf" : "inf");
        return;
    }
    /* float16/float32 values print as short as their own precision allows */
    int narrow = dtype == LA_DT_FLOAT16 || dtype == LA_DT_FLOAT32;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, d);
        double back = strtod(buf, NULL);
        if (narrow ? (float)back == (float)d : back == d)
            return;
    }
}

int la_stats_group_wants_values(const struct la_stats *s)
{
    const struct la_bad_group *g = last_group((struct la_stats *)s);
    return g && g->n_values < LA_GROUP_VALUES;
}

void la_stats_note_group_value(struct la_stats *s, struct la_num v)
{
    struct la_bad_group *g = last_group(s);
    if (g)
        group_note_value(g, v, NULL);
}

int la_stats_keeps_group(const struct la_stats *s, uint64_t sample)
{
    if (s->has_last_bad && s->last_bad_sample == sample)
        return last_group((struct la_stats *)s) != NULL;
    return s->n_groups < s->bad_cap;
}

const struct la_bad_group *la_stats_open_group(const struct la_stats *s, uint64_t sample)
{
    const struct la_bad_group *g = last_group((struct la_stats *)s);
    return g && g->sample == sample ? g : NULL;
}

void la_stats_add_bad_run(struct la_stats *s, const struct la_bad *first, uint64_t last_sample,
                          uint64_t samples, uint64_t count, int mixed)
{
    /* first as one entry, then the rest of its sample into its group */
    note_bad_sample(s, first);
    struct la_bad_group *g = last_group(s);
    if (g && samples == 1) {
        g->count += count - 1;
        g->mixed |= mixed;
    }
    s->bad_samples += samples - 1;
    s->last_bad_sample = last_sample;
    s->bad_total += count;
}

size_t la_stats_values_of(const struct la_stats *s, unsigned mask)
{
    size_t n = 0;
    for (size_t i = 0; i < s->values.n; i++)
        n += (mask >> s->values.v[i].verdict) & 1u;
    return n;
}

/* b's value among those kept, or NULL. */
static const struct la_bad_value *kept_value(const struct la_stats *s, const struct la_bad *b)
{
    for (size_t i = 0; i < s->values.n; i++)
        if (la_bad_value_cmp(s->values.v[i].value, s->values.v[i].text, b->value, b->text) == 0)
            return &s->values.v[i];
    return NULL;
}

/* Whether b is one of the first `named` places its value's line names. */
static int named_by_value(const struct la_stats *s, const struct la_bad *b, int named)
{
    const struct la_bad_value *x = kept_value(s, b);
    for (int k = 0; x && k < x->n_first && k < named; k++)
        if (x->first_index[k] == b->index)
            return 1;
    return 0;
}

/* The first of bad[] whose verdict is in mask, or NULL. */
static const struct la_bad *first_bad_of(const struct la_stats *s, unsigned mask)
{
    for (size_t i = 0; i < s->n_bad; i++)
        if ((mask >> s->bad[i].verdict) & 1u)
            return &s->bad[i];
    return NULL;
}

size_t la_stats_shown(const struct la_stats *s, unsigned mask, size_t max, int named,
                      struct la_shown *out, uint64_t *entries)
{
    const struct la_bad_value *order[LA_BAD_VALUES];
    size_t n = 0, values = la_bad_values_in_order(&s->values, order);
    *entries = 0;
    /* past the values kept (more than LA_BAD_VALUES), the very first entry
     * still leads, as it did before any value was counted: a header read as
     * a row */
    const struct la_bad *lead = first_bad_of(s, mask);
    if (lead && !kept_value(s, lead) && n < max) {
        out[n++] = (struct la_shown){ NULL, lead };
        (*entries)++;
    }
    for (size_t i = 0; i < values && n < max; i++)
        if ((mask >> order[i]->verdict) & 1u) {
            out[n++] = (struct la_shown){ order[i], NULL };
            *entries += (uint64_t)(order[i]->n_first < named ? order[i]->n_first : named);
        }
    for (size_t i = 0; i < s->n_bad && n < max; i++)
        if (((mask >> s->bad[i].verdict) & 1u) && !named_by_value(s, &s->bad[i], named) &&
            &s->bad[i] != lead) {
            out[n++] = (struct la_shown){ NULL, &s->bad[i] };
            (*entries)++;
        }
    return n;
}

size_t la_stats_shown_places(const struct la_shown *shown, size_t n, struct la_bad *places)
{
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        const struct la_bad_value *x = shown[i].value;
        if (!x) {
            places[np++] = *shown[i].bad;
            continue;
        }
        for (int k = 0; k < x->n_first; k++)   /* text: the value's, borrowed */
            places[np++] = (struct la_bad){ x->first_index[k], x->first_sample[k], x->verdict,
                                            x->value, x->text };
    }
    return np;
}
