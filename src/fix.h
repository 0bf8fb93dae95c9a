/* fix.h - --fix=DIR: corrected copies (SPEC "--fix=DIR: corrected copies").
 *
 * For a file whose findings have one mechanical fix, plan.c hands its report
 * here once it is final: the rules are chosen from its findings (fix_rules.h),
 * the copy is written under DIR by its format's writer (fix_csv.c, fix_array.c),
 * never in place and never over a file (atomic_file.h's new files), and is
 * then audited again by plan.c, whose report of it carries what was done
 * (file_report.h's struct la_fix_result). At the end DIR/fixes.json, and with
 * --fix-drop DIR/dropped.txt, say what changed. */
#ifndef LA_FIX_H
#define LA_FIX_H

#include <stddef.h> /* size_t */
#include "context.h"     /* struct la_report_ctx */
#include "file_report.h" /* struct la_file_report, struct la_fix_result */

struct la_fix;

/** la_fix_open() : the run's --fix state: DIR made if missing, --fix-map read.
 *  A DIR inside (or equal to) a directory FILE, or a map that cannot be read,
 *  is refused. @return NULL with the reason in err (a usage error). */
struct la_fix *la_fix_open(const struct la_config *cfg, char *err, size_t errlen);

/** la_fix_file() : write r's corrected copy when its findings have a rule that
 *  applies (each rule not applied said on standard error). @return 0 (a copy
 *  or none), or -1 when a copy could not be written (said; nothing is left). */
int la_fix_file(struct la_fix *fx, const struct la_report_ctx *ctx, const struct la_file_report *r);

/** la_fix_copies() : the copies written so far; la_fix_copy() the i-th's path
 *  and what made it, for its report. */
size_t la_fix_copies(const struct la_fix *fx);
const char *la_fix_copy(const struct la_fix *fx, size_t i, const struct la_fix_result **made);

/** la_fix_audited() : the copy's own report, for fixes.json's findings left. */
void la_fix_audited(struct la_fix *fx, size_t i, const struct la_file_report *copy);

/** la_fix_close() : write DIR/fixes.json (and DIR/dropped.txt), free fx.
 *  @return 0, or -1 when one could not be written (said on standard error). */
int la_fix_close(struct la_fix *fx);

#endif
