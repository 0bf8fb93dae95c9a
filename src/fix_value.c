/* fix_value.c - the per-value mapping all of --fix's writers share (fix_rules.h). */
#include "fix_rules.h"

#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* bsearch */

#include "util.h"   /* la_grow_n */

const char *la_fix_rule_name(enum la_fix_rule rule)
{
    static const char *const names[LA_FIXR_COUNT] = {
        [LA_FIXR_MAP] = "fix-map", [LA_FIXR_ONE_BASED] = "one-based",
        [LA_FIXR_IGNORE] = "ignore-like-value", [LA_FIXR_GAP] = "label-gap",
        [LA_FIXR_INT64] = "int-labels-dtype", [LA_FIXR_DROP] = "fix-drop",
    };
    return names[rule];
}

int la_fix_fits(int64_t v, enum la_dtype dtype)
{
    switch (dtype) {
    case LA_DT_INT8:   return v >= INT8_MIN && v <= INT8_MAX;
    case LA_DT_UINT8:  return v >= 0 && v <= UINT8_MAX;
    case LA_DT_INT16:  return v >= INT16_MIN && v <= INT16_MAX;
    case LA_DT_UINT16: return v >= 0 && v <= UINT16_MAX;
    case LA_DT_INT32:  return v >= INT32_MIN && v <= INT32_MAX;
    case LA_DT_UINT32: return v >= 0 && v <= UINT32_MAX;
    case LA_DT_UINT64: return v >= 0;
    case LA_DT_BOOL:   return v == 0 || v == 1;
    case LA_DT_FLOAT32: return v >= -(1LL << 24) && v <= (1LL << 24);   /* exactly */
    default:           return 1;   /* int64, float64 (labels of 2^53 and up are none) */
    }
}

static int by_from(const void *key, const void *elem)
{
    int64_t a = *(const int64_t *)key, b = ((const struct la_fix_pair *)elem)->from;
    return a < b ? -1 : a > b;
}

/* x under the value rules: the map, or the shift, the ignore value and the gap. */
static int64_t mapped(const struct la_fix_plan *p, int64_t x)
{
    if (p->has_ignore && x == p->ignore)
        return x;                       /* "no label" stays "no label" */
    if (p->rules & (1u << LA_FIXR_MAP)) {
        const struct la_fix_pair *m = bsearch(&x, p->map, p->n_map, sizeof *p->map, by_from);
        return m ? m->to : x;
    }
    if ((p->rules & (1u << LA_FIXR_IGNORE)) && x == p->ignore_from)
        return p->ignore_to;
    if (p->rules & (1u << LA_FIXR_ONE_BASED))
        return x - 1;
    if (p->rules & (1u << LA_FIXR_GAP))
        for (int i = 0; i < p->n_gap; i++)
            if (x == p->gap[i].from)
                return p->gap[i].to;
    return x;
}

enum la_fix_action la_fix_value(const struct la_fix_plan *p, const struct la_num *v,
                                int64_t *out)
{
    int drop = (p->rules & (1u << LA_FIXR_DROP)) != 0;
    int64_t x = 0;
    if (!v)
        return drop ? LA_FIX_DROP : LA_FIX_KEEP;
    if (v->kind == LA_NUM_F64 ? !la_f64_label(v->v.f, &x)
                              : v->kind == LA_NUM_U64 && v->v.u > (uint64_t)INT64_MAX)
        return drop ? LA_FIX_DROP : LA_FIX_KEEP;   /* NaN, 1.5, 2^64 - 1 */
    if (v->kind == LA_NUM_I64)
        x = v->v.i;
    else if (v->kind == LA_NUM_U64)
        x = (int64_t)v->v.u;
    int64_t y = mapped(p, x);
    if (drop) {
        int verdict = la_verdict_i64(y, &p->rule);
        if (verdict != LA_V_VALID && verdict != LA_V_IGNORED)
            return LA_FIX_DROP;
    }
    *out = la_fix_fits(y, p->out_dtype) ? y : x;   /* the plan checked: never the second */
    return LA_FIX_SET;
}

int la_fix_job_drop(struct la_fix_job *j, uint64_t sample)
{
    if (la_grow_n(&j->drops, &j->cap_drops, j->n_drops + 1, sizeof *j->drops, 1024) != 0) {
        snprintf(j->err, sizeof j->err, "out of memory");
        return -1;
    }
    j->drops[j->n_drops++] = sample;
    j->dropped++;
    return 0;
}
