/* drift.c - see drift.h. */
#include "drift.h"

#include <math.h> /* exp, fabs, lgamma, log */

/* Q(a, x) = Gamma(a, x) / Gamma(a): the series for P below x < a + 1, else
 * the continued fraction for Q (Lentz's method), as Numerical Recipes'
 * gammp/gammq and Cephes' igamc split it. Both converge to 1e-15 in at
 * most a few hundred terms for the a and x of a histogram's test. */
static double gamma_q(double a, double x)
{
    if (x <= 0)
        return 1.0;
    double lead = exp(-x + a * log(x) - lgamma(a));
    if (x < a + 1) {                          /* P(a, x) by its series */
        double term = 1.0 / a, sum = term;
        for (int n = 1; n < 10000 && fabs(term) > fabs(sum) * 1e-16; n++) {
            term *= x / (a + n);
            sum += term;
        }
        return 1.0 - sum * lead;
    }
    const double tiny = 1e-300;               /* Q(a, x) by its continued fraction */
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = fabs(d) < tiny ? tiny : d;
        c = b + an / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1) < 1e-16)
            break;
    }
    return lead * h;
}

double la_chi2_sf(double x, double k)
{
    return gamma_q(k / 2, x / 2);
}

/* scipy's Yates correction: each observed count moves half a unit toward
 * its expected one, never past it. */
static double yates(double observed, double expected)
{
    double diff = expected - observed, step = fabs(diff) < 0.5 ? fabs(diff) : 0.5;
    return observed + (diff < 0 ? -step : step);
}

void la_drift_of(const uint64_t *a, const uint64_t *b, size_t n, struct la_drift *d)
{
    double ta = 0, tb = 0;
    size_t classes = 0;
    for (size_t c = 0; c < n; c++) {
        ta += (double)a[c];
        tb += (double)b[c];
        classes += a[c] + b[c] > 0;
    }
    *d = (struct la_drift){ .p = 1.0 };
    if (ta == 0 || tb == 0)
        return;
    for (size_t c = 0; c < n; c++)
        d->tvd += 0.5 * fabs((double)a[c] / ta - (double)b[c] / tb);
    if (classes < 2)
        return;
    d->dof = classes - 1;
    double total = ta + tb;
    for (size_t c = 0; c < n; c++) {
        double col = (double)a[c] + (double)b[c];
        if (col == 0)
            continue;
        double ea = ta * col / total, eb = tb * col / total;
        double oa = d->dof == 1 ? yates((double)a[c], ea) : (double)a[c];
        double ob = d->dof == 1 ? yates((double)b[c], eb) : (double)b[c];
        d->chi2 += (oa - ea) * (oa - ea) / ea + (ob - eb) * (ob - eb) / eb;
    }
    d->p = la_chi2_sf(d->chi2, (double)d->dof);
}
