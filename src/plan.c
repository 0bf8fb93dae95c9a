/* plan.c - see plan.h. */
#include "plan.h"

#include "audit.h"   /* la_audit_file: one source */
#include "dataset.h" /* la_audit_dataset, la_is_directory: a directory, --concat */
#include "layouts.h" /* la_layout_of: what a folder is without --format */
#include "merge.h"   /* la_merge_reports: --merge */
#include "pairs.h"   /* la_pair_images: a folder's labels against their images */
#include "msg.h"     /* la_err */
#include "class_count.h" /* N from the model, the metadata, the reader */
#include "class_findings.h" /* la_class_count_finish */
#include "context.h" /* one per report */
#include "fix.h"     /* --fix: the copies, audited after the originals */

#include "read/hf_splits.h" /* la_hf_cache_splits: a cache folder's splits */
#include "read/walk.h"    /* la_path_join */
#include "split_folders.h" /* la_split_folders: a DatasetDict's, train/ val/ test/ */
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

/* The run's reports as planned: a FILE each, its split (or NULL) and why
 * it cannot be read (or NULL). What they point to is kept for the run. */
struct plan {
    char **files, **splits, **unplanned;
    enum la_format *formats;    /* a layout's split files' format (COCO's), else LA_FMT_AUTO */
    size_t n, cap;
};

static int plan_push_as(struct plan *p, char *file, char *split, char *why, enum la_format f);

static int plan_push(struct plan *p, char *file, char *split, char *why)
{
    return plan_push_as(p, file, split, why, LA_FMT_AUTO);
}

static int plan_push_as(struct plan *p, char *file, char *split, char *why, enum la_format fmt)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        char **f = realloc(p->files, cap * sizeof *f);
        p->files = f ? f : p->files;
        char **sp = f ? realloc(p->splits, cap * sizeof *sp) : NULL;
        p->splits = sp ? sp : p->splits;
        char **u = sp ? realloc(p->unplanned, cap * sizeof *u) : NULL;
        p->unplanned = u ? u : p->unplanned;
        enum la_format *fm = u ? realloc(p->formats, cap * sizeof *fm) : NULL;
        p->formats = fm ? fm : p->formats;
        if (!fm)
            return -1;
        p->cap = cap;
    }
    p->formats[p->n] = fmt;
    p->files[p->n] = file;
    p->splits[p->n] = split;
    p->unplanned[p->n++] = why;
    return 0;
}

/* The splits of layout l at path (their names and labels taken over). */
static int plan_layout_splits(const struct la_layout *l, char *path, struct plan *p, int *k)
{
    char **names, **files;
    *k = la_layout_splits(path, l, &names, &files);
    int rc = *k < 0 ? -1 : 0;
    for (int j = 0; j < *k; j++)
        if (rc != 0 || (rc = plan_push_as(p, files[j], names[j], NULL,
                                          l->format == LA_FMT_COCO ? LA_FMT_COCO
                                                                   : LA_FMT_AUTO)) != 0) {
            free(names[j]);
            free(files[j]);
        }
    if (*k > 0) {
        free(names);
        free(files);
    }
    return rc;
}

/* FILE path's reports: one per split of a `datasets` cache folder (each
 * path), of a layout that keeps splits (YOLO, nnU-Net, COCO: each its
 * labels), of a DatasetDict or of split folders (each path/NAME; only where
 * no --format and no layout says what the folder is), else path alone. */
static int plan_file(const struct la_config *cfg, char *path, struct plan *p)
{
    char **names = NULL, why[LA_ERR_LEN];
    int dir = la_is_directory(path), k = 0, sub = 0;
    /* the folder's layout, looked for once: its reader, and the splits it keeps */
    const struct la_layout *l = dir && cfg->format == LA_FMT_AUTO ? la_layout_of(path) : NULL;
    enum la_format f = l ? l->format : cfg->format;
    if (dir && f == LA_FMT_HF_DATASET)     /* a `datasets` cache folder's splits */
        k = la_hf_cache_splits(path, cfg->glob, &names);
    else if (l) {
        int rc = plan_layout_splits(l, path, p, &k);
        if (rc != 0 || k > 0)
            return rc;
    }
    if (k == 0 && cfg->format == LA_FMT_AUTO && !l) {
        k = la_split_folders(path, &names, why, sizeof why);
        sub = 1;
    }
    if (k == -2) {
        char *w = strdup(why);
        return w ? plan_push(p, path, NULL, w) : -1;
    }
    if (k <= 0)
        return k < 0 ? -1 : plan_push(p, path, NULL, NULL);
    int rc = 0;
    for (int j = 0; j < k; j++) {
        char *file = sub ? la_path_join(path, names[j]) : path;
        if (rc == 0 && (!file || plan_push(p, file, names[j], NULL) != 0))
            rc = -1;
        if (rc != 0) {          /* the name (and path) not taken: freed here */
            free(names[j]);
            if (sub)
                free(file);
        }
    }
    free(names);
    return rc;
}

/* --split NAME=PATH: PATH as split NAME. */
static int plan_split_arg(const char *arg, struct plan *p)
{
    const char *eq = strchr(arg, '=');
    char *name = strndup(arg, (size_t)(eq - arg));
    if (!name || plan_push(p, (char *)eq + 1, name, NULL) != 0) {
        free(name);
        return -1;
    }
    return 0;
}

/* The run's plan, once made: cfg points into it, and LeakSanitizer, which
 * looks after main has returned, finds it here (read below, so that no
 * compiler drops it as never read). */
static struct plan g_run_plan;

int la_plan_splits(struct la_config *cfg)
{
    if (g_run_plan.n)           /* planned already: a run plans once */
        return 0;
    if (cfg->concat || cfg->merge || (cfg->nfiles <= 0 && !cfg->n_split_args))
        return 0;
    struct plan p = { 0 };
    int rc = 0;
    for (int i = 0; rc == 0 && i < cfg->nfiles; i++)
        rc = plan_file(cfg, cfg->files[i], &p);
    for (int i = 0; rc == 0 && i < cfg->n_split_args; i++)
        rc = plan_split_arg(cfg->split_args[i], &p);
    int any = 0;
    for (size_t i = 0; i < p.n; i++)
        any |= p.splits[i] || p.unplanned[i];
    if (rc != 0 || !any) {      /* none: the FILEs as given (out of memory: the run ends) */
        free(p.files);
        free(p.splits);
        free(p.unplanned);
        free(p.formats);
        return rc;
    }
    g_run_plan = p;             /* reachable until the run ends, its exit included */
    cfg->files = p.files;
    cfg->splits = p.splits;
    cfg->unplanned = p.unplanned;
    cfg->planned_formats = p.formats;
    cfg->nfiles = (int)p.n;
    return 0;
}

int la_report_count(const struct la_config *cfg)
{
    if (cfg->merge && cfg->n_merge_splits)
        return cfg->n_merge_splits;     /* shard reports of splits: a merged report each */
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
    if (!la_format_has(l->format, LA_FMTF_PATH) || l->glob) {
        int rc = la_audit_folder(root, labels, l->glob, ctx, b, io, r);
        la_pair_images(ctx, labels, r);
        return rc;
    }
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
    la_pair_images(ctx, path, r);   /* a YOLO folder's label files */
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
    if (la_is_directory(cfg->files[i]) && !la_format_has(ctx->format, LA_FMTF_PATH)) {
        int rc = la_audit_dataset(&cfg->files[i], 1, 1, ctx, b, io, r);
        la_pair_images(ctx, cfg->files[i], r);
        return rc;
    }
    la_scan_cpu_rest(b);        /* the file's reader may want the scan's idle threads */
    if (la_audit_file(cfg->files[i], ctx, b, io, r) != 0 &&
        fall_back_to_cpu(ctx, b, io, r) != 0) {
        la_err(cfg->files[i], "scan failed: %s", r->error);
        return -1;
    }
    la_indices_out_flush(io);   /* the file's entries before any message about it */
    if (!r->read_ok)
        la_err(cfg->files[i], "%s", r->error);
    /* a folder one reader read (YOLO's), a COCO JSON's image entries */
    la_pair_images(ctx, cfg->files[i], r);
    return 0;
}

/* --merge's one report: N as the shards found it (their config has no -n
 * when a model or the metadata gave it), so that the merged report judges
 * the labels as they did. */
static void merge_report(const struct la_config *cfg, int i, struct la_file_report *r)
{
    struct la_report_ctx ctx;
    la_report_ctx_init(&ctx, cfg, cfg->n_merge_splits ? cfg->splits[i] : NULL);
    struct la_class_count *cc = cfg->has_num_classes ? NULL : la_merge_class_count(cfg);
    la_class_count_apply(cc, &ctx);
    la_merge_reports(&ctx, r);
    r->split = ctx.split;
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
                        struct la_indices_out *io, struct la_fix *fx, int i,
                        struct la_file_report *r)
{
    if (cfg->merge) {           /* shard reports: nothing to scan */
        merge_report(cfg, i, r);
        return 0;
    }
    const char *path = cfg->files[cfg->concat ? 0 : i];
    if (cfg->unplanned && cfg->unplanned[i])    /* a DatasetDict's list unreadable */
        return refuse(path, cfg->unplanned[i], r);
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
    if (cfg->planned_formats && cfg->planned_formats[i] != LA_FMT_AUTO)
        ctx.format = cfg->planned_formats[i];   /* a layout's split file: COCO's instances */
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
    if (rc == 0 && fx)          /* the corrected copy, while the context is at hand */
        la_fix_file(fx, &ctx, r);
    return rc;
}

/* --fix's copy at path, audited as a FILE of its own with the same options
 * (no --indices-out: its entries are the original's, already written). */
static int audit_copy(const struct la_config *cfg, struct la_scan_backend *b, const char *path,
                      struct la_file_report *r)
{
    struct la_report_ctx ctx;
    la_report_ctx_init(&ctx, cfg, NULL);
    char err[LA_ERR_LEN];
    struct la_class_count *cc = la_class_count_new(&ctx, path, err, sizeof err);
    if (!cc)
        return refuse(path, err, r);
    la_class_count_apply(cc, &ctx);
    la_scan_cpu_rest(b);
    if (la_audit_file(path, &ctx, b, NULL, r) != 0 && fall_back_to_cpu(&ctx, b, NULL, r) != 0) {
        la_err(path, "scan failed: %s", r->error);
        la_class_count_finish(cc, r);
        return -1;
    }
    if (!r->read_ok)
        la_err(path, "%s", r->error);
    la_class_count_finish(cc, r);
    return 0;
}

int la_audit_files(const struct la_config *cfg, struct la_scan_backend *b,
                   struct la_indices_out *io, struct la_file_report *files)
{
    for (int i = 0; i < la_report_count(cfg); i++)
        if (audit_report(cfg, b, io, NULL, i, &files[i]) != 0)
            return -1;
    return 0;
}

int la_audit_each(const struct la_config *cfg, struct la_scan_backend *b,
                  struct la_indices_out *io, struct la_fix *fx, la_report_sink sink, void *ctx)
{
    for (int i = 0; i < la_report_count(cfg); i++) {
        struct la_file_report r;
        int rc = audit_report(cfg, b, io, fx, i, &r);   /* the sink may take r over */
        if (rc == 0 && sink(ctx, &r) != 0)
            rc = -2;
        la_file_report_free(&r);
        if (rc != 0)
            return rc;
    }
    /* the copies after the originals, each report saying how it was made */
    for (size_t k = 0; k < la_fix_copies(fx); k++) {
        struct la_file_report r;
        const struct la_fix_result *made;
        int rc = audit_copy(cfg, b, la_fix_copy(fx, k, &made), &r);
        r.fix = made;
        la_fix_audited(fx, k, &r);
        if (rc == 0 && sink(ctx, &r) != 0)
            rc = -2;
        la_file_report_free(&r);
        if (rc != 0)
            return rc;
    }
    return 0;
}
