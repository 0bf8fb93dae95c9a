/* plan.c - see plan.h. */
#include "plan.h"

#include "audit.h"   /* la_audit_file: one source */
#include "dataset.h" /* la_audit_dataset, la_is_directory: a directory, --concat */
#include "layouts.h" /* la_layout_of: what a folder is without --format */
#include "merge.h"   /* la_merge_reports: --merge */
#include "msg.h"     /* la_err */
#include "class_count.h" /* N from the model, the metadata, the reader */
#include "class_findings.h" /* la_class_count_finish */
#include "context.h" /* one per report */

#include "read/hf_splits.h" /* la_hf_cache_splits: a cache folder's splits */
#include "util.h"     /* la_is_directory, la_is_regular_file */

#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* memset, strcmp, strdup */

/* --backend=auto chose the GPU and it failed mid-run: the CPU takes over, and
 * the file is audited again from its start (the GPU is only chosen when every
 * input is a regular file, so it can be read again). Not with --indices-out,
 * whose temporary file already holds part of the file's entries. */
static int fall_back_to_cpu(const struct la_report_ctx *ctx, struct la_scan_backend *b,
                            struct la_indices_out *io, struct la_file_report *r)
{
    const struct la_config *cfg = ctx->cfg;
    if (cfg->backend != LA_BACKEND_AUTO || io || !(b->ops->flags & LA_SCANF_FALLIBLE))
        return -1;
    la_err(r->path, "GPU scan failed (%s); going on with the CPU", r->error);
    la_scan_close(b);
    la_scan_cpu_open(b, cfg->threads);
    la_file_report_free(r);
    return la_audit_file(r->path, ctx, b, io, r);
}

/* The splits of FILE path when it is a `datasets` cache folder; 0: none, -1: out of memory. */
static int splits_of(const struct la_config *cfg, const char *path, char ***names)
{
    *names = NULL;
    if (!la_is_directory(path))
        return 0;
    const struct la_layout *l = cfg->format == LA_FMT_AUTO ? la_layout_of(path) : NULL;
    enum la_format f = l ? l->format : cfg->format;
    return f == LA_FMT_HF_DATASET ? la_hf_cache_splits(path, cfg->glob, names) : 0;
}

int la_plan_splits(struct la_config *cfg)
{
    if (cfg->concat || cfg->merge || cfg->nfiles <= 0)
        return 0;
    char **files = NULL, **splits = NULL;
    size_t n = 0;
    for (int i = 0; i < cfg->nfiles; i++) {
        char **names;
        int k = splits_of(cfg, cfg->files[i], &names);
        size_t grow = k > 0 ? (size_t)k : 1;
        char **f = k < 0 ? NULL : realloc(files, (n + grow) * sizeof *files);
        files = f ? f : files;
        char **sp = f ? realloc(splits, (n + grow) * sizeof *splits) : NULL;
        splits = sp ? sp : splits;
        if (!f || !sp) {
            la_hf_splits_free(names, k);
            free(files);
            free(splits);       /* the names of the FILEs before: lost with the run */
            return -1;
        }
        for (size_t j = 0; j < grow; j++, n++) {
            files[n] = cfg->files[i];
            splits[n] = k > 0 ? names[j] : NULL;    /* kept for the run */
        }
        free(names);
    }
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= splits[i] != NULL;
    if (!any) {                 /* no cache folder of splits: the FILEs as given */
        free(files);
        free(splits);
        return 0;
    }
    static char **run_files, **run_splits;   /* the run's: reachable until it ends */
    cfg->files = run_files = files;
    cfg->splits = run_splits = splits;
    cfg->nfiles = (int)n;
    return 0;
}

int la_report_count(const struct la_config *cfg)
{
    return (cfg->concat || cfg->merge) && cfg->nfiles > 0 ? 1 : cfg->nfiles;
}

/* FILE path unread: r says why (on stderr too), as an unreadable file. */
static int refuse(const char *path, const char *why, struct la_file_report *r)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    snprintf(r->error, sizeof r->error, "%s", why);
    la_err(path, "%s", r->error);
    return 0;
}

/* The labels folders of layouts, read by a folder reader: kept for the run,
 * as the reports (and what their readers kept) point into them. */
static const char *held_path(const char *labels)
{
    static char **held;
    static size_t n;
    char **more = realloc(held, (n + 1) * sizeof *held);
    held = more ? more : held;
    char *p = more ? strdup(labels) : NULL;
    return p ? (held[n++] = p) : NULL;
}

/* FILE i is layout l: its labels folder read by l's folder reader, or its
 * label files by their format, as one report named after FILE. */
static int audit_layout(const struct la_report_ctx *ctx, const struct la_layout *l,
                        struct la_scan_backend *b, struct la_indices_out *io, int i,
                        struct la_file_report *r)
{
    char buf[4096];
    const char *root = ctx->cfg->files[i];
    const char *labels = la_layout_labels(l, root, buf, sizeof buf);
    la_verbose(root, "%s (%s): its labels in %s, read as %s", l->name, l->shape, labels,
               l->format == LA_FMT_AUTO ? "each file's format" : la_format_name(l->format));
    if (!la_format_has(l->format, LA_FMTF_PATH) || l->glob)
        return la_audit_folder(root, labels, l->glob, ctx, b, io, r);
    const char *path = strcmp(labels, root) == 0 ? root : held_path(labels);
    if (!path)
        return refuse(root, "out of memory", r);
    la_scan_cpu_rest(b);
    if (la_audit_file(path, ctx, b, io, r) != 0) {
        la_err(root, "scan failed: %s", r->error);
        return -1;
    }
    la_indices_out_flush(io);
    r->path = root;
    if (!r->read_ok)
        la_err(root, "%s", r->error);
    return 0;
}

/* Report i of la_report_count() with its context: a --concat, a layout, a
 * directory or a file. @return 0, or -1 when the scan failed for good (said
 * on stderr). */
static int audit_report_with(const struct la_report_ctx *ctx, const struct la_layout *l,
                             struct la_scan_backend *b, struct la_indices_out *io, int i,
                             struct la_file_report *r)
{
    const struct la_config *cfg = ctx->cfg;
    if (cfg->concat)            /* one dataset: unreadable files are named as it goes */
        return la_audit_dataset(cfg->files, cfg->nfiles, 0, ctx, b, io, r);
    if (l)
        return audit_layout(ctx, l, b, io, i, r);
    char why[LA_ERR_LEN];
    if (ctx->format == LA_FMT_AUTO && la_layout_unclaimed(cfg->files[i], why, sizeof why))
        return refuse(cfg->files[i], why, r);
    if (la_is_directory(cfg->files[i]) && !la_format_has(ctx->format, LA_FMTF_PATH))
        return la_audit_dataset(&cfg->files[i], 1, 1, ctx, b, io, r);
    la_scan_cpu_rest(b);        /* the file's reader may want the scan's idle threads */
    if (la_audit_file(cfg->files[i], ctx, b, io, r) != 0 &&
        fall_back_to_cpu(ctx, b, io, r) != 0) {
        la_err(cfg->files[i], "scan failed: %s", r->error);
        return -1;
    }
    la_indices_out_flush(io);   /* the file's entries before any message about it */
    if (!r->read_ok)
        la_err(cfg->files[i], "%s", r->error);
    return 0;
}

/* --merge's one report: N as the shards found it (their config has no -n
 * when a model or the metadata gave it), so that the merged report judges
 * the labels as they did. */
static void merge_report(const struct la_config *cfg, struct la_file_report *r)
{
    struct la_report_ctx ctx;
    la_report_ctx_init(&ctx, cfg, NULL);
    struct la_class_count *cc = cfg->has_num_classes ? NULL : la_merge_class_count(cfg);
    la_class_count_apply(cc, &ctx);
    la_merge_reports(&ctx, r);
    la_class_count_give(cc, r);
}

/* Report i of la_report_count(): a merge, a --concat, a directory or a file.
 * plan.c builds its context (context.h): the class count from where it
 * is written (class_count.h), found before the labels are read and judged
 * against what the reader found once they are; then the format of a folder
 * one reader reads whole. A metadata file beside the labels that cannot be
 * read makes the report unreadable.
 * @return 0, or -1 when the scan failed for good (said on stderr). */
static int audit_report(const struct la_config *cfg, struct la_scan_backend *b,
                        struct la_indices_out *io, int i, struct la_file_report *r)
{
    if (cfg->merge) {           /* shard reports: nothing to scan */
        merge_report(cfg, r);
        return 0;
    }
    const char *path = cfg->files[cfg->concat ? 0 : i];
    struct la_report_ctx ctx;
    la_report_ctx_init(&ctx, cfg, cfg->splits && !cfg->concat ? cfg->splits[i] : NULL);
    char err[LA_ERR_LEN];
    /* a layout's format (a `datasets`, MDS or LitData folder, a YOLO tree) is
     * the report's, and its class count is found as its reader's would be
     * (a YOLO data.yaml) */
    const struct la_layout *l = !cfg->concat && cfg->format == LA_FMT_AUTO ? la_layout_of(path)
                                                                           : NULL;
    if (l && l->format != LA_FMT_AUTO)
        ctx.format = l->format;
    struct la_class_count *cc = la_class_count_new(&ctx, path, err, sizeof err);
    if (!cc) {
        memset(r, 0, sizeof *r);
        r->path = path;
        snprintf(r->error, sizeof r->error, "%s", err);
        la_err(path, "%s", r->error);
        return 0;
    }
    la_class_count_apply(cc, &ctx);
    int rc = audit_report_with(&ctx, l, b, io, i, r);
    r->split = ctx.split;
    la_class_count_finish(cc, r);
    return rc;
}

int la_audit_files(const struct la_config *cfg, struct la_scan_backend *b,
                   struct la_indices_out *io, struct la_file_report *files)
{
    for (int i = 0; i < la_report_count(cfg); i++)
        if (audit_report(cfg, b, io, i, &files[i]) != 0)
            return -1;
    return 0;
}

int la_audit_each(const struct la_config *cfg, struct la_scan_backend *b,
                  struct la_indices_out *io, la_report_sink sink, void *ctx)
{
    for (int i = 0; i < la_report_count(cfg); i++) {
        struct la_file_report r;
        int rc = audit_report(cfg, b, io, i, &r);   /* the sink may take r over */
        if (rc == 0 && sink(ctx, &r) != 0)
            rc = -2;
        la_file_report_free(&r);
        if (rc != 0)
            return rc;
    }
    return 0;
}
