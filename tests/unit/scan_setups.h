/* scan_setups.h - the rules the backend comparisons run under, shared by
 * tests/unit/test_scan_backends.c and bench/gpu_bench.cu so that the GPU is
 * validated and timed on the same cases. Plain C, also compiled by nvcc. */
#ifndef LA_SCAN_SETUPS_H
#define LA_SCAN_SETUPS_H

#include "stats.h"   /* LA_HIST_MAX */
#include "verdict.h" /* struct la_rule */

struct setup {
    const char *name;
    struct la_rule rule;
    int64_t n_classes;   /* range the generator draws valid labels from */
    uint64_t hist_len;
    int64_t above_base;
};

static const struct setup setups[] = {
    /* ce, 10 classes, ignore -100: shared-memory histogram */
    { "ce N=10", { 0, 1, -100, 1, 10 }, 10, 10, 10 },
    /* ce, 20000 classes: histogram in global memory */
    { "ce N=20000", { 0, 1, -100, 1, 20000 }, 20000, 20000, 20000 },
    /* no --num-classes, no ignore index: the histogram at its cap */
    { "ce no N", { 0, 0, 0, 0, 0 }, 300, LA_HIST_MAX, 1 },
    /* token ids, --vocab-size 50304: no histogram, a block settled by its range */
    { "ce vocab V=50304", { 0, 1, -100, 1, 50304 }, 50304, 0, 50304 },
    /* bce: no histogram, fractions valid */
    { "bce", { 1, 0, 0, 0, 0 }, 2, 0, 1 },
};

#endif
