/* stats.h - what a scan learns about one file: the accumulator both scan
 * backends fold chunks into, and the report modules read.
 *
 * Chunks are folded in index order, so the bad-entry list stays ascending and
 * distinct bad samples can be counted across chunk boundaries. */
#ifndef LA_STATS_H
#define LA_STATS_H

#include <stdint.h> /* uint64_t, int64_t */
#include <stddef.h> /* size_t */
#include "dtype.h"   /* struct la_num */
#include "verdict.h"
#include "bad_values.h" /* the distinct bad values; LA_NO_SAMPLE */

/* One invalid entry. text is set only for unparsable cells (owned by the stats). */
struct la_bad {
    uint64_t index;       /* flat, 0-based, C order */
    uint64_t sample;      /* index on the first axis */
    int verdict;          /* enum la_verdict */
    struct la_num value;
    char *text;
};

#define LA_GROUP_VALUES 4

/* The invalid entries of one sample (a mask, a row of a multi-label matrix). */
struct la_bad_group {
    uint64_t sample;
    uint64_t count;           /* invalid entries in this sample */
    uint64_t first_index;
    struct la_num first_value;
    int first_verdict;
    int mixed;                /* not every entry holds first_value */
    /* The distinct bad values met, in index order, at most LA_GROUP_VALUES
     * of them (the CPU scan's runs add theirs: la_stats_note_group_value). */
    int n_values;
    struct la_num values[LA_GROUP_VALUES];
    /* An unparsable value's cell, as bad[].text holds it (owned by the
     * stats); NULL for a number. Two cells are one value when their texts are. */
    char *texts[LA_GROUP_VALUES];
};

/* Counts of integer out-of-range values near the valid range, exact and
 * mergeable: below[k] counts the value -1-k, above[k] the value above_base+k.
 * They find a dominant "ignore" value such as 255 or -1. */
#define LA_OUTLIER_BINS 256
/* The "no label" values past the bins' reach (ignore-like-value): 127, 255,
 * 32767, 65535 (la_sentinels), counted where N lies farther below them. */
#define LA_SENTINELS 4
extern const int64_t la_sentinels[LA_SENTINELS];

/* Histogram cap from the SPEC: N above this gives "histogram": null. */
#define LA_HIST_MAX (1u << 20)

typedef void (*la_bad_sink)(void *ctx, const struct la_bad *bad);

/* The sample of a flat index where it is not index / sample_stride (yolo: a
 * file's lines; coco: an image's annotations, anywhere in the file), or
 * LA_NO_SAMPLE (bad_values.h: an annotation of an image the file does not list: it counts
 * in no sample). Called in index order, on the scan's thread. */
typedef uint64_t (*la_sample_of)(void *ctx, uint64_t index);

/* One past the last element of a sample whose elements are contiguous, where
 * samples differ in length (Megatron's sequences): for the all-ignored count. */
typedef uint64_t (*la_sample_end)(void *ctx, uint64_t sample);

struct la_stats {
    /* --- set by the caller before the first chunk --- */
    uint64_t sample_stride;   /* elements per sample (product of shape[1:]), >= 1 */
    size_t bad_cap;           /* keep at most this many bad entries in bad[] (and
                                 groups in groups[]); both grow on demand */
    uint64_t hist_len;        /* bins in hist[]; 0: no histogram (bce, N too big) */
    int64_t above_base;       /* first "above" value: N (ce/nll) or 1 (bce) */
    la_bad_sink sink;         /* optional: called for every bad entry, in order */
    void *sink_ctx;
    la_sample_of sample_of;   /* optional (la_stats_map_samples): the backends
                                 then fold every bad entry through
                                 la_stats_add_bad, in order */
    void *sample_ctx;
    uint64_t *seen;           /* samples in any order: a bit per sample met */
    uint64_t n_samples;

    /* --- accumulated --- */
    uint64_t count;           /* every value read, ignored/invalid/unparsable included */
    uint64_t n_verdict[LA_V_COUNT];
    int has_minmax;           /* min/max over finite, non-ignored numbers */
    struct la_num min, max;
    int saw_float;            /* a float value or float-syntax cell was read */
    uint64_t *hist;           /* hist_len bins of valid labels */
    uint64_t hist_beyond;     /* valid labels >= hist_len (histogram unknowable) */
    uint64_t hist_hi;         /* 1 + the highest bin counted (0: none) */
    uint64_t outlier_below[LA_OUTLIER_BINS];
    uint64_t outlier_above[LA_OUTLIER_BINS];
    uint64_t sentinel_above[LA_SENTINELS]; /* la_sentinels[k] above range, beyond the bins */
    uint64_t ambiguous_headers; /* csv files whose guessed header may as well be a row
                                   (ambiguous-header): 1 for such a file, summed in a dataset */
    struct la_bad *bad;
    size_t n_bad, bad_alloc;
    uint64_t bad_total;
    uint64_t bad_samples;     /* distinct samples holding a bad entry */
    struct la_bad_values values; /* the distinct bad values, each counted exactly */
    /* the indices of the first valid labels 0: where labels look 1-based, a
     * few 0s are the odd ones out, which "subtract 1" turns into -1 */
    uint64_t zero_first[LA_BAD_VALUE_FIRST];
    int n_zero_first;
    struct la_bad_group *groups; /* the first bad_cap samples holding bad entries */
    size_t n_groups, groups_alloc;
    int has_last_bad;
    uint64_t first_bad_sample;
    uint64_t last_bad_sample;
};

/** la_stats_init() : zero the accumulator and allocate hist (bad[] and
 *  groups[] grow as entries come, so a clean file costs no room for them).
 *  @return 0, or -1 when out of memory. */
int la_stats_init(struct la_stats *s, uint64_t sample_stride, size_t bad_cap,
                  uint64_t hist_len, int64_t above_base);
void la_stats_free(struct la_stats *s);

/** la_stats_map_samples() : take the samples of bad entries from sample_of.
 *  ordered: a sample's entries are contiguous (yolo's files); else they may
 *  come in any order (coco's annotations), and the n_samples samples are
 *  counted in a bitmap, groups[] keeping the bad_cap smallest (ascending).
 *  @return 0, or -1 when out of memory. */
int la_stats_map_samples(struct la_stats *s, la_sample_of sample_of, void *ctx,
                         uint64_t n_samples, int ordered);

/** la_stats_add_bad() : count one bad entry (already counted in n_verdict),
 *  keep it if there is room, pass it to the sink. text is copied. */
void la_stats_add_bad(struct la_stats *s, uint64_t index, int verdict,
                      struct la_num value, const char *text);

/** la_stats_add_bad_placed() : as la_stats_add_bad, but the value's count
 *  comes later, by la_stats_count_value (the CPU scan's bins hold it). */
void la_stats_add_bad_placed(struct la_stats *s, uint64_t index, int verdict,
                             struct la_num value);

/** la_stats_count_value() : n bad entries of value whose places were noted
 *  (or need none: la_stats_value_settled). */
void la_stats_count_value(struct la_stats *s, int verdict, struct la_num value, uint64_t n);

/** la_stats_value_settled() : 1 when a bad entry of number value needs no
 *  place for the distinct values' list: its entries may be counted alone. */
int la_stats_value_settled(const struct la_stats *s, struct la_num value);

/** la_stats_add_unparsable() : fold one csv/text cell that is not a number. */
void la_stats_add_unparsable(struct la_stats *s, uint64_t index, const char *text);

/** la_stats_note_minmax() : widen min/max by one number. */
void la_stats_note_minmax(struct la_stats *s, struct la_num v);

/** la_stats_merge() : fold src (a later, adjacent part of the file) into dst.
 *  Both were initialised with the same parameters; src's hist is added to dst's. */
void la_stats_merge(struct la_stats *dst, const struct la_stats *src);

/* Bad entries counted without their positions, by the CPU scan's fast loops:
 * only where no sink must see them and bad[] needs no more entries (it is
 * full, or the caller keeps fewer, as the CPU backend's parts do). */

/** la_stats_keeps_group() : 1 when a bad entry in sample (at or after the
 *  last one folded) would start or extend a kept group. */
int la_stats_keeps_group(const struct la_stats *s, uint64_t sample);

/** la_stats_open_group() : the kept group a bad entry in sample would extend
 *  (the last bad sample's), or NULL. */
const struct la_bad_group *la_stats_open_group(const struct la_stats *s, uint64_t sample);

/** la_stats_add_bad_run() : count `count` bad entries (already counted in
 *  n_verdict) in `samples` distinct samples, first->sample to last_sample, in
 *  order after those folded so far. *first is the first entry and mixed says
 *  whether another one holds a different value; both matter only when its
 *  sample's group is kept, and then samples must be 1. */
void la_stats_add_bad_run(struct la_stats *s, const struct la_bad *first, uint64_t last_sample,
                          uint64_t samples, uint64_t count, int mixed);

/** la_stats_group_wants_values() : 1 when the last bad sample's group is kept
 *  and has room for another distinct value. */
int la_stats_group_wants_values(const struct la_stats *s);

/** la_stats_note_group_value() : add v (a bad value of the last bad sample,
 *  met in index order) to its group's distinct values. */
void la_stats_note_group_value(struct la_stats *s, struct la_num v);

/* One line of a finding's list of bad entries: a distinct value with its
 * first places (value), or one entry more (bad). */
struct la_shown {
    const struct la_bad_value *value;
    const struct la_bad *bad;
};

/** la_stats_shown() : the lines every output lists for the bad entries whose
 *  verdict is in mask (bit 1 << verdict), max at most: each distinct value
 *  first (in order of first appearance), so no rare value hides behind the first
 *  entries, then the entries bad[] kept, in index order, that no value's
 *  line names: a value's line names its first `named` places (1 for a CI
 *  note at one line, LA_BAD_VALUE_FIRST for a line listing them). out: room
 *  for max. @return the lines; *entries: the entries they name. */
size_t la_stats_shown(const struct la_stats *s, unsigned mask, size_t max, int named,
                      struct la_shown *out, uint64_t *entries);

/** la_stats_shown_places() : the entries n shown lines name, in order: a
 *  value's first places (LA_BAD_VALUE_FIRST at most), or the entry. places:
 *  room for n * LA_BAD_VALUE_FIRST. @return how many. */
size_t la_stats_shown_places(const struct la_shown *shown, size_t n, struct la_bad *places);

/** la_stats_values_of() : the distinct values kept whose verdict is in mask. */
size_t la_stats_values_of(const struct la_stats *s, unsigned mask);

/** la_stats_note_zero() : a valid label 0 at index (in index order). */
static inline void la_stats_note_zero(struct la_stats *s, uint64_t index)
{
    if (s->n_zero_first < LA_BAD_VALUE_FIRST)
        s->zero_first[s->n_zero_first++] = index;
}

/** la_stats_invalid() : the number of invalid entries (every category). */
uint64_t la_stats_invalid(const struct la_stats *s);

/** la_format_num() : the number as text, shortest form that reads back to the
 *  same value of its dtype ("nan", "inf", "-inf" for non-finite floats). */
void la_format_num(struct la_num v, int dtype, char *buf, size_t len);

#endif
