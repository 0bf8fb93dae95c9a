/* fix_rules.h - --fix's parts (fix.c, fix_value.c, fix_csv.c, fix_array.c), not
 * for other modules: the rules a copy is made with, the one per-value function
 * every writer calls, and a writer's job. */
#ifndef LA_FIX_RULES_H
#define LA_FIX_RULES_H

#include <stddef.h>      /* size_t */
#include <stdint.h>      /* int64_t, uint64_t */
#include "atomic_file.h" /* struct la_new_file */
#include "dtype.h"       /* enum la_dtype, struct la_num */
#include "file_report.h" /* struct la_file_report */
#include "verdict.h"     /* struct la_rule */

/* The SPEC's rules, in the order fixes.json lists them. */
enum la_fix_rule {
    LA_FIXR_MAP,        /* --fix-map: old -> new, instead of the three below */
    LA_FIXR_ONE_BASED,  /* one-based: subtract 1 */
    LA_FIXR_IGNORE,     /* ignore-like-value: that value becomes the ignore index */
    LA_FIXR_GAP,        /* label-gap: the remap it suggests */
    LA_FIXR_INT64,      /* int-labels-dtype: stored as int64 */
    LA_FIXR_DROP,       /* --fix-drop: samples still invalid are left out */
    LA_FIXR_COUNT
};

/** la_fix_rule_name() : "one-based", ... as fixes.json and the reports name it. */
const char *la_fix_rule_name(enum la_fix_rule rule);

struct la_fix_pair {
    int64_t from, to;
};

struct la_fix_plan {
    unsigned rules;               /* 1u << enum la_fix_rule, for each applied */
    int has_ignore;               /* the ignore index, which the value rules keep */
    int64_t ignore;
    int64_t ignore_from, ignore_to;   /* LA_FIXR_IGNORE */
    int n_gap;                        /* LA_FIXR_GAP */
    struct la_fix_pair gap[LA_REMAP_MAX];
    const struct la_fix_pair *map;    /* LA_FIXR_MAP: sorted by from */
    size_t n_map;
    struct la_rule rule;          /* LA_FIXR_DROP: what a value is held to once mapped */
    enum la_dtype in_dtype, out_dtype;   /* npy, raw: stored as, and written as */
};

enum la_fix_action {
    LA_FIX_KEEP,    /* not a number the rules read: left as it is */
    LA_FIX_SET,     /* *out is the value to write (maybe the same) */
    LA_FIX_DROP     /* --fix-drop: the sample goes */
};

/** la_fix_value() : the one mapping of a value every writer applies: v (NULL
 *  for a cell that is not a number) under plan p. */
enum la_fix_action la_fix_value(const struct la_fix_plan *p, const struct la_num *v,
                                int64_t *out);

/** la_fix_fits() : whether v is a value of dtype (an integer one). */
int la_fix_fits(int64_t v, enum la_dtype dtype);

/* One copy being written. */
struct la_fix_job {
    const struct la_fix_plan *plan;
    const struct la_file_report *r;   /* the original's report */
    const struct la_read_opts *read;  /* how it was read (-d, --skip-rows, --dtype) */
    const char *in;                   /* the original's path */
    struct la_new_file *out;
    uint64_t changed, dropped;        /* values changed, samples left out */
    uint64_t *drops;                  /* the samples left out, ascending */
    size_t n_drops, cap_drops;
    char err[LA_ERR_LEN];
};

/** la_fix_job_drop() : sample left out. @return 0, or -1 (out of memory, in err). */
int la_fix_job_drop(struct la_fix_job *j, uint64_t sample);

/** la_fix_write_csv() : CSV, TSV and text: the original streamed, only the
 *  label cells' numbers rewritten. @return 0, or -1 with j->err set. */
int la_fix_write_csv(struct la_fix_job *j);

/** la_fix_write_array() : npy (its header kept, re-padded when the dtype or
 *  the shape changes) and raw. @return 0, or -1 with j->err set. */
int la_fix_write_array(struct la_fix_job *j);

#endif
