/* weights.c - see weights.h. */
#include "weights.h"

#include <stdlib.h> /* calloc, free */

#include "options.h" /* struct la_config */
#include "stats.h"   /* LA_HIST_MAX */
#include "verdict.h" /* la_half_to_float */

int la_pos_counts_init(struct la_pos_counts *pc, uint64_t cols)
{
    *pc = (struct la_pos_counts){ 0 };
    pc->pos = calloc((size_t)cols, sizeof *pc->pos);
    pc->neg = calloc((size_t)cols, sizeof *pc->neg);
    if (!pc->pos || !pc->neg) {
        la_pos_counts_free(pc);
        return -1;
    }
    pc->cols = cols;
    pc->binary = 1;
    return 0;
}

int la_pos_counts_start(struct la_pos_counts *pc, const struct la_config *cfg,
                        const struct la_array_info *info)
{
    *pc = (struct la_pos_counts){ 0 };
    if (cfg->loss != LA_LOSS_BCE || !(cfg->json || cfg->histogram) || info->ndim != 2 ||
        !info->shape_known || info->shape[1] == 0 || info->shape[1] > LA_HIST_MAX)
        return 0;
    return la_pos_counts_init(pc, info->shape[1]);
}

void la_pos_counts_free(struct la_pos_counts *pc)
{
    free(pc->pos);
    free(pc->neg);
    *pc = (struct la_pos_counts){ 0 };
}

/* Element i of a chunk as a double: exact for 0 and 1 in every dtype. */
static double value_at(const struct la_chunk *c, size_t i)
{
    switch (c->dtype) {
    case LA_DT_BOOL: case LA_DT_UINT8: return ((const uint8_t *)c->values)[i];
    case LA_DT_INT8:    return ((const int8_t *)c->values)[i];
    case LA_DT_INT16:   return ((const int16_t *)c->values)[i];
    case LA_DT_UINT16:  return ((const uint16_t *)c->values)[i];
    case LA_DT_INT32:   return ((const int32_t *)c->values)[i];
    case LA_DT_UINT32:  return ((const uint32_t *)c->values)[i];
    case LA_DT_INT64:   return (double)((const int64_t *)c->values)[i];
    case LA_DT_UINT64:  return (double)((const uint64_t *)c->values)[i];
    case LA_DT_FLOAT16: return la_half_to_float(((const uint16_t *)c->values)[i]);
    case LA_DT_FLOAT32: return ((const float *)c->values)[i];
    default:            return ((const double *)c->values)[i];
    }
}

void la_pos_counts_fold(struct la_pos_counts *pc, const struct la_chunk *c)
{
    if (!pc->cols || !pc->binary)
        return;
    if (c->unparsable) {
        pc->binary = 0;
        return;
    }
    uint64_t col = c->first_index % pc->cols;
    for (size_t i = 0; i < c->count; i++) {
        double v = value_at(c, i);
        if (v == 1.0) {
            pc->pos[col]++;
        } else if (v == 0.0) {
            pc->neg[col]++;
        } else {            /* soft labels, or invalid ones: no pos_weight */
            pc->binary = 0;
            return;
        }
        if (++col == pc->cols)
            col = 0;
    }
}

int la_pos_counts_ok(const struct la_pos_counts *pc)
{
    return pc->cols > 0 && pc->binary;
}

int la_pos_weight(const struct la_pos_counts *pc, uint64_t c, double *out)
{
    if (pc->pos[c] == 0)
        return -1;
    *out = (double)pc->neg[c] / (double)pc->pos[c];
    return 0;
}

void la_hist_totals(const uint64_t *hist, uint64_t hist_len, uint64_t n, uint64_t *total,
                    uint64_t *present)
{
    *total = *present = 0;
    for (uint64_t c = 0; c < n && c < hist_len; c++) {
        *total += hist[c];
        *present += hist[c] != 0;
    }
}

double la_class_weight(const uint64_t *hist, uint64_t hist_len, uint64_t n, uint64_t c,
                       uint64_t total, uint64_t present)
{
    uint64_t count = c < n && c < hist_len ? hist[c] : 0;
    if (count == 0)
        return 0.0;
    return (double)total / ((double)present * (double)count);
}
