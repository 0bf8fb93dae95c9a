/* merge.h - --merge REPORT.json...: the report --concat would have printed
 * over the shards that `labelaudit --json` reported on one by one (SPEC
 * "Scale past one machine"). Each shard report is read, folded into one
 * dataset (dataset.h) and released before the next. */
#ifndef LA_MERGE_H
#define LA_MERGE_H

#include "diagnose.h"

struct la_class_count;

/** la_merge_adopt_config() : take the checks (--loss, --num-classes,
 *  --ignore-index) from the shard reports, and their batching options when
 *  the merge run gave no -b. Shard reports made with different checks, or a
 *  check given to the merge run that differs from theirs, are refused.
 *  Part of main.c's configure(), before cfg is frozen.
 *  @return 0, 2 (usage: refused, said on stderr) or 3 (a report could not
 *  be read, said on stderr). */
int la_merge_adopt_config(struct la_config *cfg);

/** la_merge_class_count() : the class count of the first shard report that
 *  names one (N from a model or the dataset's metadata: its config has no
 *  -n), for the merged report's context; or NULL. */
struct la_class_count *la_merge_class_count(const struct la_config *cfg);

/** la_merge_reports() : fold ctx->cfg->files (JSON reports) into r, one
 *  dataset, judged with ctx (plan.c's: N as the shards found it). A report
 *  that cannot be read is named on standard error and in r's skipped list
 *  (exit 3); the others are still merged. */
void la_merge_reports(const struct la_report_ctx *ctx, struct la_file_report *r);

#endif
