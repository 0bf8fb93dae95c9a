/* audit.h - audit one file: open, detect, read chunk by chunk, scan, diagnose.
 * The only module that knows the whole pipeline; it knows no format. */
#ifndef LA_AUDIT_H
#define LA_AUDIT_H

#include "diagnose.h"
#include "indices_out.h"
#include "scan.h"

/** la_rule_from_config() : the per-element rule the scan backends apply. */
struct la_rule la_rule_from_config(const struct la_config *cfg);

/** la_audit_file() : fill r for path. A file that cannot be read or parsed gets
 *  read_ok = 0 and a one-line reason in r->error; the function itself only
 *  fails (-1) when the scan backend does. io may be NULL. */
int la_audit_file(const char *path, const struct la_config *cfg, struct la_scan_backend *b,
                  struct la_indices_out *io, struct la_file_report *r);

/** la_audit_files() : la_audit_file() for each of cfg->files into files[], with
 *  each unreadable file's reason on stderr. When --backend=auto's GPU fails
 *  mid-run, b becomes the CPU backend and the file is audited again.
 *  @return 0, or -1 when the scan failed for good (reason on stderr). */
int la_audit_files(const struct la_config *cfg, struct la_scan_backend *b,
                   struct la_indices_out *io, struct la_file_report *files);

/* Given each report as soon as it is final; @return 0, or -1 to stop. */
typedef int (*la_report_sink)(void *ctx, const struct la_file_report *r);

/** la_audit_each() : la_audit_files() holding one report at a time: each is
 *  given to sink, then freed, so memory does not grow with the number of
 *  FILEs. @return 0, -1 when the scan failed for good, -2 when sink failed. */
int la_audit_each(const struct la_config *cfg, struct la_scan_backend *b,
                  struct la_indices_out *io, la_report_sink sink, void *ctx);

/** la_report_count() : how many reports la_audit_files() fills: one per FILE,
 *  or one for them all with --concat. */
int la_report_count(const struct la_config *cfg);

/** la_stats_init_for() : s set up for the checks in cfg (histogram length,
 *  "above" base, bad-entry room), for samples of sample_stride values. */
int la_stats_init_for(struct la_stats *s, const struct la_config *cfg, uint64_t sample_stride);

/** la_auto_hint_of() : what --backend=auto decides from (scan.h), for cfg's
 *  files: each regular file is opened as the audit will open it, and what its
 *  reader's open() offers (a run read in place, its dtype) is counted. Opens
 *  nothing when cfg->backend is not auto, or when all the files together are
 *  under LA_GPU_MIN_BYTES. */
void la_auto_hint_of(const struct la_config *cfg, struct la_auto_hint *h);

/** la_file_report_free() : release what la_audit_file() allocated. */
void la_file_report_free(struct la_file_report *r);

#endif
