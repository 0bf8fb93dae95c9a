/* ignored_samples.h - the all-ignored finding's counts: samples of several
 * targets (a token row, a mask, a --seq-len block, a Megatron sequence) whose
 * every target is the ignore index. Such a sample trains on nothing, and a
 * batch of only such samples gives a NaN loss (a mean over zero targets).
 *
 * The scan backends count values, not samples; audit.c folds each chunk here
 * too, in index order, as it does the pos_weight counts. */
#ifndef LA_IGNORED_SAMPLES_H
#define LA_IGNORED_SAMPLES_H

#include <stdint.h> /* uint64_t, int64_t */
#include <stddef.h> /* size_t */
#include "reader.h" /* struct la_chunk */
#include "stats.h"  /* la_sample_of */

struct la_ignored_samples {
    int active;               /* 0: nothing to count (no ignore index, one value a
                                 sample, or a dtype that cannot hold the index) */
    int64_t ignore;
    uint64_t stride;          /* elements per sample; 0: by sample_of (and sample_end) */
    la_sample_of sample_of;
    la_sample_end sample_end; /* NULL: a sample ends where sample_of changes */
    void *ctx;
    int open;                 /* a sample is being read */
    uint64_t cur, cur_end;    /* its number, one past its last element */
    uint64_t cur_n;           /* its elements so far (by sample_of alone) */
    uint64_t last_len, prev_len; /* the last two samples' (twice one: the next's, likely) */
    int cur_target;           /* it holds a target (a value that is not ignored) */
    uint64_t count;           /* samples all ignored */
    uint64_t *list;           /* the first cap of them, ascending */
    size_t n_list, cap;
    /* by sample_of alone, samples of one element are held apart: a reader's
     * samples are lists (a token row) only when some sample has more (else
     * they are scalar labels, one value a sample, as stride 1 is) */
    int seen_multi;
    struct la_ignored_samples *singles;
};

/** la_ignored_samples_start() : count for values of dtype, samples of stride
 *  elements (or, with stride 0, those sample_of gives, contiguous: ending
 *  where sample_end says, or without it where sample_of changes), keeping
 *  the first cap. It stays off when has_ignore is 0, when a sample is one
 *  element, or when dtype cannot hold ignore (uint16 ids and -100). */
void la_ignored_samples_start(struct la_ignored_samples *t, int has_ignore, int64_t ignore,
                              int dtype, uint64_t stride, la_sample_of sample_of,
                              la_sample_end sample_end, void *ctx, size_t cap);

/** la_ignored_samples_fold() : the chunk's values (in index order). */
void la_ignored_samples_fold(struct la_ignored_samples *t, const struct la_chunk *c);

/** la_ignored_samples_end() : after the last chunk: the last sample is counted. */
void la_ignored_samples_end(struct la_ignored_samples *t);

/** la_ignored_samples_add() : a later file's counts (from) into a dataset's
 *  (into, whose cap was set), its samples shifted by first_sample. */
void la_ignored_samples_add(struct la_ignored_samples *into, const struct la_ignored_samples *from,
                            uint64_t first_sample);

void la_ignored_samples_free(struct la_ignored_samples *t);

#endif
