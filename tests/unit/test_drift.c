/* test_drift.c - TAP: src/drift.c against scipy.stats.chi2_contingency and
 * numpy, on the random 2 x K tables of tests/data/splits/drift-table.txt
 * (tests/gen/gen_splits.py): per line, one point: the total variation
 * distance, the statistic (Yates' correction at one degree of freedom, as
 * scipy applies it), the degrees of freedom and the p-value all scipy's.
 *
 * Reads $srcdir/tests/data/splits/drift-table.txt, or the path in argv[1]. */
#include <math.h>   /* fabs */
#include <stdio.h>  /* fopen, fgets */
#include <stdlib.h> /* getenv, strtod, strtoull */

#include "drift.h"
#include "tap.h"

#define MAX_K 16

/* x and y agree to 1e-9 of their size (and p-values below 1e-300 as 0). */
static int close_to(double x, double y)
{
    return fabs(x - y) <= 1e-9 * (fabs(y) > 1 ? fabs(y) : 1) + 1e-300 ||
           fabs(x - y) <= 1e-9 * fabs(y);
}

static void check_line(char *line)
{
    char *p = line, *end;
    size_t k = strtoull(p, &end, 10);
    uint64_t a[MAX_K], b[MAX_K];
    if (end == p || k == 0 || k > MAX_K) {
        tap_ok(0, "malformed line: %s", line);
        return;
    }
    for (size_t i = 0; i < 2 * k; i++)
        (i < k ? a : b)[i % k] = strtoull(p = end, &end, 10);
    double tvd = strtod(p = end, &end), chi2 = strtod(p = end, &end);
    uint64_t dof = strtoull(p = end, &end, 10);
    double pv = strtod(p = end, &end);
    struct la_drift d;
    la_drift_of(a, b, k, &d);
    tap_ok(close_to(d.tvd, tvd) && close_to(d.chi2, chi2) && d.dof == dof && close_to(d.p, pv),
           "K=%zu: tvd %.17g chi2 %.17g dof %llu p %.17g (scipy: %.17g %.17g %llu %.17g)", k,
           d.tvd, d.chi2, (unsigned long long)d.dof, d.p, tvd, chi2, (unsigned long long)dof, pv);
}

int main(int argc, char **argv)
{
    char path[4096];
    const char *srcdir = getenv("srcdir");
    snprintf(path, sizeof path, "%s/tests/data/splits/drift-table.txt", srcdir ? srcdir : ".");
    FILE *f = fopen(argc > 1 ? argv[1] : path, "r");
    TAP_OK(f != NULL, "open %s", argc > 1 ? argv[1] : path);
    char line[4096];
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '#')
            check_line(line);
    if (f)
        fclose(f);
    /* the tail of the distribution where the series and the fraction meet */
    TAP_OK(fabs(la_chi2_sf(3.0, 1) - 0.08326451666355042) < 1e-13, "Q(0.5, 1.5)");
    TAP_OK(fabs(la_chi2_sf(10.0, 10) - 0.44049328506521257) < 1e-13, "Q(5, 5)");
    return tap_done();
}
