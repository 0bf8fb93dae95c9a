/* plan.h - the run's reports, as the command plans them: one per FILE (a
 * file, or a directory, which is a dataset), or one for them all (--concat, a
 * --merge of shard reports). Each is handed to the stage that yields its
 * sources (dataset.h, merge.h) or audited as one source (audit.h); a GPU that
 * fails mid-run gives way to the CPU here. */
#ifndef LA_PLAN_H
#define LA_PLAN_H

#include "file_report.h"
#include "indices_out.h"
#include "options.h"
#include "scan.h"

struct la_fix;

/** la_audit_files() : la_audit_file() for each of cfg->files into files[], with
 *  each unreadable file's reason on stderr. When --backend=auto's GPU fails
 *  mid-run, b becomes the CPU backend and the file is audited again.
 *  @return 0, or -1 when the scan failed for good (reason on stderr). */
int la_audit_files(const struct la_config *cfg, struct la_scan_backend *b,
                   struct la_indices_out *io, struct la_file_report *files);

/* Given each report as soon as it is final. The sink may take r over (its
 * contents, leaving r zeroed); what is left in r is freed after it.
 * @return 0, or -1 to stop. */
typedef int (*la_report_sink)(void *ctx, struct la_file_report *r);

/** la_audit_each() : la_audit_files() holding one report at a time: each is
 *  given to sink, then freed (unless sink took it), so memory does not grow
 *  with the number of FILEs. With fx (--fix, fix.h, or NULL), each report's
 *  corrected copy is written, and the copies' reports (r->fix set) follow the
 *  originals'. @return 0, -1 when the scan failed for good,
 *  -2 when sink failed. */
int la_audit_each(const struct la_config *cfg, struct la_scan_backend *b,
                  struct la_indices_out *io, struct la_fix *fx, la_report_sink sink, void *ctx);

/** la_report_count() : how many reports la_audit_files() fills: one per FILE,
 *  or one for them all with --concat. */
int la_report_count(const struct la_config *cfg);

/** la_plan_splits() : each FILE that is a `datasets` cache folder of splits
 *  (hf_splits.h) becomes one FILE per split, cfg->splits naming each (SPEC
 *  "Splits": a report and a batching simulation per split). Not with
 *  --concat or --merge. Part of main.c's configure(), the last step that
 *  writes cfg before it is frozen. @return 0, or -1 out of memory. */
int la_plan_splits(struct la_config *cfg);

#endif
