/* diagnose.h - the findings: diagnose.c turns a report's folded stats and the
 * batching numbers into its findings (the report model: file_report.h). */
#ifndef LA_DIAGNOSE_H
#define LA_DIAGNOSE_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include "file_report.h" /* the report model diagnose fills */
#include "options.h"
#include "context.h" /* what the report is checked with */
#include "label_notes.h"

/** la_diagnose() : fill r->findings (and has_hist, hist_n, batching) from r->stats. */
void la_diagnose(struct la_file_report *r, const struct la_report_ctx *ctx);

/** la_report_exit_status() : errors and warnings over all files, and the exit status
 *  the SPEC gives them (0, 1, or 3 when a file could not be read). */
int la_report_exit_status(const struct la_file_report *files, int n, const struct la_config *cfg,
                          uint64_t *errors, uint64_t *warnings);

#endif
