/* drift.h - how far two class histograms lie apart (label-drift, SPEC
 * "Splits"): the total variation distance of their distributions and
 * Pearson's chi-square test of their 2 x K contingency table, as
 * scipy.stats.chi2_contingency computes it (Yates' correction at one degree
 * of freedom). Pure arithmetic, no I/O. */
#ifndef LA_DRIFT_H
#define LA_DRIFT_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */

struct la_drift {
    double tvd;          /* 0.5 * sum |p_c - q_c|, in [0, 1] */
    double chi2;         /* the statistic */
    uint64_t dof;        /* (2 - 1) * (classes either has - 1); 0: no test */
    double p;            /* P(X >= chi2) for X ~ chi-square(dof); 1 when dof is 0 */
};

/** la_drift_of() : the drift between histograms a and b of n bins each (a
 *  bin both leave empty takes no part in the test). Either empty: tvd 0, no
 *  test. */
void la_drift_of(const uint64_t *a, const uint64_t *b, size_t n, struct la_drift *d);

/** la_chi2_sf() : P(X >= x) for X ~ chi-square(k), k >= 1: the regularized
 *  upper incomplete gamma function Q(k/2, x/2). */
double la_chi2_sf(double x, double k);

#endif
