/* weights.h - the loss weights a report hands out for imbalanced labels (SPEC,
 * "For CI systems and for people"):
 *   - class_weights for ce/nll: total / (N_present * count[c]), 0 for an
 *     absent class, as CrossEntropyLoss(weight=...) takes them;
 *   - pos_weight for bce on a 2-D 0/1 matrix (S, C): negatives / positives per
 *     column, as BCEWithLogitsLoss(pos_weight=...) takes them.
 * The scan backends count classes already (the histogram); the per-column
 * counts of pos_weight are folded here, from the chunks audit.c scans. */
#ifndef LA_WEIGHTS_H
#define LA_WEIGHTS_H

#include <stdint.h> /* uint64_t */
#include "reader.h" /* struct la_chunk */

/* Per-column counts of a bce matrix (S, C). Off (cols == 0) for anything else. */
struct la_pos_counts {
    uint64_t cols;            /* C; 0: not counted */
    uint64_t *pos, *neg;      /* ones and zeros per column */
    int binary;               /* every value read so far is exactly 0 or 1 */
};

/** la_pos_counts_init() : count a matrix of cols columns. @return 0, -1 out of memory. */
int la_pos_counts_init(struct la_pos_counts *pc, uint64_t cols);

struct la_config;

/** la_pos_counts_start() : start counting when the JSON or --histogram will
 *  print pos_weight: bce labels in a 2-D array (S, C). Otherwise pc stays off.
 *  @return 0, or -1 when out of memory. */
int la_pos_counts_start(struct la_pos_counts *pc, const struct la_config *cfg,
                        const struct la_array_info *info);

/** la_pos_counts_fold() : add a chunk's values (in index order, C order). */
void la_pos_counts_fold(struct la_pos_counts *pc, const struct la_chunk *c);

/** la_pos_counts_ok() : whether pos_weight is defined: a counted 0/1 matrix. */
int la_pos_counts_ok(const struct la_pos_counts *pc);

/** la_pos_weight() : negatives / positives of column c; @return 0, or -1 when the
 *  column has no positive (pos_weight is then undefined: null in the JSON). */
int la_pos_weight(const struct la_pos_counts *pc, uint64_t c, double *out);

void la_pos_counts_free(struct la_pos_counts *pc);

/** la_class_weight() : total / (present * count[c]), 0 when count[c] is 0, where
 *  total is the sum of hist[0..n) and present the number of non-zero bins.
 *  hist holds hist_len bins; classes at or past hist_len count 0. */
double la_class_weight(const uint64_t *hist, uint64_t hist_len, uint64_t n, uint64_t c,
                       uint64_t total, uint64_t present);

/** la_hist_totals() : total and present of la_class_weight() for classes [0, n). */
void la_hist_totals(const uint64_t *hist, uint64_t hist_len, uint64_t n, uint64_t *total,
                    uint64_t *present);

#endif
