/* split_checks.h - a dataset's splits against each other (SPEC "Splits"):
 * each split's reports are summed as they are final (la_splits_add: a few
 * numbers and the histogram, nothing of the labels), then the splits are
 * compared (la_splits_check): class-unseen-in-train, label-drift and
 * split-overlap, the dataset's own findings beside those of its files. */
#ifndef LA_SPLIT_CHECKS_H
#define LA_SPLIT_CHECKS_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include "batching.h"    /* la_batching */
#include "file_report.h" /* la_file_report, la_finding */
#include "options.h"     /* la_config */

/* One split: the reports planned with its name. */
struct la_split_sum {
    char *name;
    char *root;               /* its folder (a report's path that is one), or NULL */
    int shared_root;          /* another split reads the same folder (a cache's) */
    int files;                /* its reports */
    uint64_t samples;
    int has_hist;             /* every report of it had a histogram */
    uint64_t hist_n;
    uint64_t *hist;
    int has_batching;         /* -b: the DataLoader over the split's samples */
    struct la_batching batching;
};

#define LA_SPLIT_FINDINGS 32

struct la_splits {
    struct la_split_sum *v;
    size_t n;
    struct la_finding findings[LA_SPLIT_FINDINGS];
    const char *between[LA_SPLIT_FINDINGS][2];  /* the two splits of each finding */
    size_t n_findings;
    int failed;               /* out of memory, or a split's files could not be walked */
};

/** la_splits_add() : report r, final, into its split's sums (a report of no
 *  split is left out). @return 0, or -1 when out of memory. */
int la_splits_add(struct la_splits *s, const struct la_file_report *r);

/** la_splits_check() : the findings between the splits, with cfg's
 *  --drift-threshold, --overlap and batching. Fewer than two splits: none. */
void la_splits_check(struct la_splits *s, const struct la_config *cfg);

/** la_splits_count() : the findings' errors and warnings. */
void la_splits_count(const struct la_splits *s, uint64_t *errors, uint64_t *warnings);

void la_splits_free(struct la_splits *s);

#endif
