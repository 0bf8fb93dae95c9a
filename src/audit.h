/* audit.h - audit one source: open, detect, read chunk by chunk, scan,
 * diagnose. It knows no format, and nothing above one source: the plan
 * (plan.h) and the datasets (dataset.h, merge.h) call it. */
#ifndef LA_AUDIT_H
#define LA_AUDIT_H

#include "diagnose.h"
#include "indices_out.h"
#include "scan.h"
#include "context.h"

/** la_token_ids() : with --vocab-size, whether the file holds the ids fed to
 *  the embedding (anything but a labels column or --array: a name holding
 *  "label" or "target", or y), whose bad ids crash the embedding, not the loss. */
int la_token_ids(const struct la_report_ctx *ctx, const struct la_array_info *info);

/** la_vocabulary_of() : whether the file is token data, as the report words
 *  it: its N is a vocabulary (--vocab-size, the model's vocab_size), or its
 *  format holds token ids (Megatron, LitData's TokensLoader). */
enum la_vocabulary la_vocabulary_of(const struct la_report_ctx *ctx,
                                    const struct la_array_info *info);

/** la_ignore_is_an_id() : with --vocab-size, whether the ignore index is an
 *  id like any other in this file (ids fed to the embedding: raw streams,
 *  Megatron tokens, an input_ids column), not skipped: it is skipped in a
 *  labels column (a name holding "label" or "target", or y) and wherever
 *  --ignore-index was given. */
int la_ignore_is_an_id(const struct la_report_ctx *ctx, const struct la_array_info *info);

/** la_rule_for_file() : ctx->rule, the ignore index dropped where
 *  la_ignore_is_an_id() says so or the reader's values are no loss targets
 *  (info->no_ignore). */
struct la_rule la_rule_for_file(const struct la_report_ctx *ctx, const struct la_array_info *info);

/** la_audit_file() : fill r for path. A file that cannot be read or parsed gets
 *  read_ok = 0 and a one-line reason in r->error; the function itself only
 *  fails (-1) when the scan backend does. io may be NULL. */
int la_audit_file(const char *path, const struct la_report_ctx *ctx, struct la_scan_backend *b,
                  struct la_indices_out *io, struct la_file_report *r);

/** la_stats_init_for() : s set up for the checks in ctx (histogram length,
 *  "above" base, bad-entry room), for samples of sample_stride values. */
int la_stats_init_for(struct la_stats *s, const struct la_report_ctx *ctx, uint64_t sample_stride);

/** la_auto_hint_of() : what --backend=auto decides from (scan.h), for cfg's
 *  files: each regular file is opened as the audit will open it, and what its
 *  reader's open() offers (a run read in place, its dtype) is counted. Opens
 *  nothing when cfg->backend is not auto, or when all the files together are
 *  under LA_GPU_MIN_BYTES. */
void la_auto_hint_of(const struct la_config *cfg, struct la_auto_hint *h);

#endif
