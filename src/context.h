/* context.h - struct la_report_ctx: what one report is checked with.
 *
 * The command line (struct la_config, options.h) is the run's: main.c
 * completes it and from then on passes it as const. What differs from one
 * report to the next lives here instead: plan.c builds one context per
 * report (la_report_ctx_init from the options, then the class count
 * resolved from where it is written, class_count.h, and a folder's own
 * format) and hands it down as const to the dataset, the source and the
 * diagnosis. No stage below the plan changes it; a source whose reader
 * found its own classes (ImageFolder's folders, COCO's categories) is
 * audited with a context derived from its report's (la_class_count_notes_ctx).
 *
 * The next features add their state here, one member each, set by plan.c:
 * several columns per sample (the columns to check, beside read.column),
 * mask/image pairs (the pair's image source), splits (split, below, with
 * the split's own sources), --fix (where the fixed labels go). */
#ifndef LA_CONTEXT_H
#define LA_CONTEXT_H

#include <stdbool.h> /* bool */
#include <stdint.h>  /* int64_t, uint64_t */
#include "options.h" /* struct la_config */
#include "reader.h"  /* enum la_format, struct la_read_opts */
#include "verdict.h" /* struct la_rule */

struct la_class_count;

struct la_report_ctx {
    const struct la_config *cfg;   /* the run's options: loss, batching, outputs */
    enum la_format format;         /* --format, or the folder's own (a `datasets`, MDS or
                                      LitData folder); LA_FMT_AUTO: detect each source */
    /* the class count N the labels are checked against: -n (or --vocab-size),
     * else the first source that states one (class_count.h) */
    bool has_num_classes;
    int64_t num_classes;
    bool has_vocab_size;           /* N is an embedding's: --vocab-size's wording and rules */
    int64_t vocab_size;
    const char *num_classes_from;  /* the source that gave N when -n did not, or NULL */
    const struct la_class_count *classes;  /* every source and the model's tables
                                              (names, tokenizer), or NULL */
    struct la_rule rule;           /* the values each element is held to, from the above */
    uint64_t max_report;           /* --max-report, or the output kind's default */
    /* what readers read: the columns to check (-c, --array, --key, --field)
     * and the options of la_read_opts, with this report's vocab_size and split */
    struct la_read_opts read;
    const char *split;             /* the split of a `datasets` cache folder, or NULL */
};

/** la_report_ctx_init() : the context the options alone give (N from -n or
 *  --vocab-size, cfg->format), for split (or NULL). */
void la_report_ctx_init(struct la_report_ctx *ctx, const struct la_config *cfg,
                        const char *split);

/** la_report_ctx_set_classes() : N is n, from the source `from` (static, or
 *  living as long as the report), an embedding's when vocab; the rule and
 *  what readers see follow. */
void la_report_ctx_set_classes(struct la_report_ctx *ctx, uint64_t n, const char *from,
                               bool vocab);

/** la_read_opts_of() : the part of cfg readers see. */
void la_read_opts_of(const struct la_config *cfg, struct la_read_opts *opts);
/** la_config_max_report() : --max-report, or the default for the output kind. */
uint64_t la_config_max_report(const struct la_config *cfg);

#endif
