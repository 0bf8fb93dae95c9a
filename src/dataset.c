/* dataset.c - see dataset.h.
 *
 * Sources are decoded on the -j threads (this one among them), one file per
 * thread at a time, each with its own one-thread CPU backend; the files'
 * readers get what the -j budget has left (scheduler.h). Their reports are folded
 * in file order, so the dataset's report is the same for every -j. At most WINDOW_PER_THREAD
 * files per thread are in flight, so memory holds a few files' reports, never
 * the dataset's. */
#include "class_count.h" /* la_class_count_folders */
#include "dataset.h"

#include <dirent.h>   /* opendir, readdir */
#include <errno.h>    /* errno */
#include <fnmatch.h>  /* fnmatch */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, qsort */
#include <string.h>   /* strcmp, strdup */
#include <sys/stat.h> /* stat */

#include "audit.h"
#include "msg.h"
#include "outputs.h"  /* la_output_of_run */
#include "scheduler.h"    /* the files are audited as tasks handed back in order */
#include "util.h"     /* la_grow */

#define WINDOW_PER_THREAD 2

// ---- the list of files ---------------------------------------------------------

struct path_list {
    char **v;
    size_t n, cap;
};

static int list_add(struct path_list *l, const char *path)
{
    if (la_grow_n(&l->v, &l->cap, l->n + 1, sizeof *l->v, 64) != 0)
        return -1;
    if (!(l->v[l->n] = strdup(path)))
        return -1;
    l->n++;
    return 0;
}

static void list_free(struct path_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

struct walk {
    const char *root;
    size_t root_len;
    const char *glob;
    struct la_dataset *d;
    uint64_t max_report;
    struct path_list files;     /* full paths of the sources */
    int oom;
};

/* A file this run writes, never one of its sources: in the report, but for
 * this run's own temporary file, which is gone when the run ends (-v names it). */
static void note_output(struct walk *w, const char *path, const char *why, int own)
{
    if (own)
        la_verbose(path, "skipped: %s", why);
    else
        la_dataset_note_skipped(w->d, path, why, w->max_report);
}

/* Every regular file below dir (a path under w->root), unsorted. Links to
 * files count; links to folders are not followed (they could loop). */
static void walk_dir(struct walk *w, const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        la_dataset_note_unreadable(w->d, dir, strerror(errno), w->max_report);
        return;
    }
    struct dirent *e;
    while (!w->oom && (e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (!path) {
            w->oom = 1;
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st, lst;
        const char *output;
        int own;
        if (lstat(path, &lst) != 0 || stat(path, &st) != 0)
            la_dataset_note_unreadable(w->d, path, strerror(errno), w->max_report);
        else if (S_ISREG(st.st_mode) &&
                 (output = la_output_of_run(path, e->d_name, st.st_ino, &own)))
            note_output(w, path, output, own);
        else if (S_ISDIR(st.st_mode) && !S_ISLNK(lst.st_mode))
            walk_dir(w, path);
        else if (S_ISDIR(st.st_mode))
            la_dataset_note_skipped(w->d, path, "a link to a folder (not followed)", w->max_report);
        else if (!S_ISREG(st.st_mode))
            la_dataset_note_skipped(w->d, path, "not a regular file", w->max_report);
        else if (list_add(&w->files, path) != 0)
            w->oom = 1;
        free(path);
    }
    closedir(dp);
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files below root, in byte-wise order of their relative paths (all share
 * the prefix "root/", so the full paths sort the same), matching glob. */
static int list_directory(const char *root, const char *glob, const struct la_report_ctx *ctx,
                          struct la_dataset *d, struct path_list *out)
{
    struct walk w = { root, strlen(root), glob, d, ctx->max_report, { 0 }, 0 };
    walk_dir(&w, root);
    if (w.oom) {
        list_free(&w.files);
        return -1;
    }
    if (w.files.n)              /* qsort of NULL is undefined, even of 0 elements */
        qsort(w.files.v, w.files.n, sizeof *w.files.v, by_bytes);
    for (size_t i = 0; i < w.files.n; i++) {
        const char *rel = w.files.v[i] + w.root_len + 1;
        if (glob && fnmatch(glob, rel, 0) != 0) {
            la_dataset_note_skipped(d, w.files.v[i], ctx->cfg->glob ? "does not match --glob"
                                    : "not a label file of the layout", w.max_report);
            free(w.files.v[i]);
        } else {
            w.files.v[out->n++] = w.files.v[i];     /* kept in place, in order */
        }
    }
    out->v = w.files.v;
    out->cap = w.files.cap;
    return 0;
}

// ---- folding one file's report into the dataset's ------------------------------

int la_dataset_add_source(struct la_file_report *r, const struct la_source_info *from)
{
    struct la_dataset *d = r->dataset;
    if (la_dataset_append(d, from) != 0)
        return -1;
    struct la_source_info *s = &d->src[d->n_src - 1];
    s->first_sample = r->samples;
    s->first_index = r->stats.count;
    if (d->n_src == 1)
        r->info.dtype = s->dtype;
    else if (s->dtype != r->info.dtype && !d->mixed_dtype) {
        d->mixed_dtype = 1;     /* diagnose with a non-int64 one: int-labels-dtype still shows */
        if (r->info.dtype == LA_DT_INT64)
            r->info.dtype = s->dtype;
    }
    return 0;
}

/* The file as a source: one image is one sample of its whole shape; an
 * array's samples lie along its first axis. */
static int record_source(struct la_file_report *r, const char *path, const struct la_file_report *f)
{
    uint64_t inner[LA_MAX_DIMS];
    struct la_source_info s = { .path = (char *)path, .format = f->info.format,
                                .dtype = f->info.dtype, .count = f->stats.count,
                                .bad = la_stats_invalid(&f->stats), .inner = inner };
    int skip = f->info.one_sample ? 0 : 1;
    s.ndim = f->info.ndim > skip ? f->info.ndim - skip : 0;
    for (int k = 0; k < s.ndim; k++)
        inner[k] = f->info.shape[k + skip];
    s.samples = f->info.one_sample ? 1 : f->samples;
    return la_dataset_add_source(r, &s);
}

/* Shift f's bad entries and groups to dataset positions, then merge. An
 * entry of no sample (a COCO annotation of an image the file does not list)
 * stays of none. */
static void fold_stats(struct la_stats *dst, struct la_stats *src, const struct la_source_info *s)
{
    for (size_t i = 0; i < src->n_bad; i++) {
        if (src->bad[i].sample != LA_NO_SAMPLE)
            src->bad[i].sample += s->first_sample;
        src->bad[i].index += s->first_index;
    }
    for (size_t i = 0; i < src->n_groups; i++) {
        src->groups[i].sample += s->first_sample;
        src->groups[i].first_index += s->first_index;
    }
    la_bad_values_shift(&src->values, s->first_index, s->first_sample);
    src->first_bad_sample += s->first_sample;
    src->last_bad_sample += s->first_sample;
    la_stats_merge(dst, src);
}

/* Whether the dataset kept a bad entry at index (its list is ascending). */
static int keeps_bad(void *ctx, uint64_t index)
{
    const struct la_stats *s = ctx;
    size_t lo = 0, hi = s->n_bad;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->bad[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_bad && s->bad[lo].index == index;
}

/* Whether a and b name their classes alike. */
static int same_names(const struct la_notes *a, const struct la_notes *b)
{
    if (a->n_class_names != b->n_class_names)
        return 0;
    for (size_t i = 0; i < a->n_class_names; i++)
        if (strcmp(a->class_names[i] ? a->class_names[i] : "",
                   b->class_names[i] ? b->class_names[i] : "") != 0)
            return 0;
    return 1;
}

/* A ClassLabel is the dataset's when every source states the same one (the
 * Hub's Parquet shards each carry their features): counted here, kept by
 * la_dataset_end only if all did. Source i is the i-th of the dataset. */
static int fold_class_label(struct la_notes *d, const struct la_notes *n, size_t i)
{
    if (!n->has_classes || !n->classes_from || !strstr(n->classes_from, "ClassLabel"))
        return 0;
    if (i == 0 && !d->has_classes) {
        d->has_classes = 1;
        d->classes = n->classes;
        d->classes_from = n->classes_from;
        d->classes_stated = 1;
        if (n->n_class_names && !(d->class_names = calloc(n->n_class_names, sizeof(char *))))
            return -1;
        for (size_t k = 0; k < n->n_class_names; k++, d->n_class_names++)
            if (!(d->class_names[k] = strdup(n->class_names[k] ? n->class_names[k] : "")))
                return -1;
    } else if (d->classes_stated == i && d->classes == n->classes && same_names(d, n)) {
        d->classes_stated++;
    }
    return 0;
}

/* The class count that -n is held to is the first source's, or the first
 * that disagrees with -n. */
int la_dataset_fold_notes(struct la_file_report *r, const char *path, const char *format,
                          const struct la_notes *n, const struct la_source_info *s,
                          const struct la_report_ctx *ctx)
{
    uint64_t max_report = ctx->max_report;
    if (!r->notes && !(r->notes = la_notes_new(max_report)))
        return -1;
    struct la_notes *d = r->notes;
    d->json_key = format;
    struct la_notes_shift shift = { s->first_index, s->first_sample,
                                    (size_t)(s - r->dataset->src), path, keeps_bad, &r->stats };
    if (la_notes_fold(d, n, &shift) != 0)
        return -1;
    int wrong = ctx->has_num_classes && n->classes != (uint64_t)ctx->num_classes;
    int kept_right = !ctx->has_num_classes || d->classes == (uint64_t)ctx->num_classes;
    /* ImageFolder's class folders only: the classes other readers state
     * (COCO's categories, a ClassLabel) are each file's own */
    if (n->has_classes && la_class_count_folders(n) && (!d->has_classes || (wrong && kept_right))) {
        d->has_classes = 1;
        d->classes = n->classes;
    }
    return fold_class_label(d, n, (size_t)(s - r->dataset->src));
}

static void fold_file(struct la_file_report *r, const char *path, struct la_file_report *f,
                      const struct la_report_ctx *ctx)
{
    struct la_dataset *d = r->dataset;
    if (!f->read_ok) {
        la_dataset_note_unreadable(d, path, f->error, ctx->max_report);
        return;
    }
    if (record_source(r, path, f) != 0) {
        la_dataset_note_unreadable(d, path, "out of memory", ctx->max_report);
        return;
    }
    const struct la_source_info *s = &d->src[d->n_src - 1];
    fold_stats(&r->stats, &f->stats, s);
    la_ignored_samples_add(&r->ignored_samples, &f->ignored_samples, s->first_sample);
    r->token_ids |= f->token_ids;   /* --vocab-size over ids: the embedding's wording */
    if (f->vocabulary > r->vocabulary)
        r->vocabulary = f->vocabulary;
    r->samples += s->samples;
    if (f->notes &&
        la_dataset_fold_notes(r, path, la_format_name(s->format), f->notes, s, ctx) != 0)
        la_dataset_note_unreadable(d, path, "out of memory", ctx->max_report);
}

// ---- audit: serial, or on -j threads ------------------------------------------

/* A file in flight: its report, until it is folded. */
struct pool_slot {
    struct la_file_report rep;
    int rc;
};

/* The files audited on the scheduler: worker 0 (this thread) audits on the
 * run's backend, each other worker on a one-thread backend of its own,
 * opened at its first file and closed when all are folded. */
struct par {
    char **paths;
    const struct la_report_ctx *ctx;
    size_t window;
    struct pool_slot *slots;
    struct la_file_report *r;
    struct la_scan_backend *run_backend; /* worker 0's */
    struct la_scan_backend *backends;    /* [w]: worker w's, w >= 1 */
    int *have_backend;                   /* [w]: 1 open, -1 it did not start, 0 not yet */
    int rc;
};

static void audit_one(void *ctx, int worker, size_t i)
{
    struct par *p = ctx;
    struct pool_slot *s = &p->slots[i % p->window];
    struct la_scan_backend *b = worker ? &p->backends[worker] : p->run_backend;
    if (!p->have_backend[worker])
        p->have_backend[worker] = la_scan_cpu_open(b, 1) == 0 ? 1 : -1;
    s->rc = p->have_backend[worker] > 0
        ? la_audit_file(p->paths[i], p->ctx, b, NULL, &s->rep) : -1;
    if (p->have_backend[worker] < 0)
        snprintf(s->rep.error, sizeof s->rep.error, "the CPU backend did not start");
}

static void fold_one(void *ctx, size_t i)
{
    struct par *p = ctx;
    struct pool_slot *s = &p->slots[i % p->window];
    if (s->rc != 0 && !p->rc) {
        la_err(p->paths[i], "scan failed: %s", s->rep.error);
        p->rc = -1;
    }
    fold_file(p->r, p->paths[i], &s->rep, p->ctx);
    la_file_report_free(&s->rep);
}

/* Fold each file as it is finished, in file order (la_sched_ordered). This
 * thread is one of the -j: it audits files on b (a one-thread backend) while
 * the next to fold is not done, and -j - 1 workers (fewer when there are
 * fewer files, or the budget is short) audit the others; what the budget
 * has left goes to the files' readers. At most WINDOW_PER_THREAD files per
 * thread are in flight. @return 0, or -1. */
static int audit_parallel(char **paths, size_t n, int threads, const struct la_report_ctx *ctx,
                          struct la_scan_backend *b, struct la_file_report *r)
{
    struct la_sched *sched = la_sched_open((size_t)threads < n ? threads : (int)n);
    struct par p = { paths, ctx, (size_t)threads * WINDOW_PER_THREAD, NULL, r, b, NULL, NULL, 0 };
    int workers = sched ? la_sched_threads(sched) : 0, rc = -1;
    p.slots = calloc(p.window, sizeof *p.slots);
    p.backends = calloc((size_t)workers + 1, sizeof *p.backends);
    p.have_backend = calloc((size_t)workers + 1, sizeof *p.have_backend);
    if (sched && p.slots && p.backends && p.have_backend) {
        p.have_backend[0] = 1;              /* worker 0 is this thread, on b */
        rc = la_sched_ordered(sched, n, p.window, audit_one, fold_one, &p) == 0 ? p.rc : -1;
    }
    la_sched_close(sched);
    for (int w = 1; p.have_backend && w < workers; w++)
        if (p.have_backend[w] > 0)
            la_scan_close(&p.backends[w]);
    free(p.have_backend);
    free(p.backends);
    free(p.slots);
    return rc;
}

/* The run's backend gives its scan threads back to the budget while the
 * files are audited on one-thread backends of their own, and takes them
 * again after. @return 0, or -1 when a backend could not be opened. */
static int audit_on_threads(char **paths, size_t n, int threads, const struct la_report_ctx *ctx,
                            struct la_scan_backend *b, struct la_file_report *r)
{
    la_scan_close(b);
    int rc = la_scan_cpu_open(b, 1) == 0 ? audit_parallel(paths, n, threads, ctx, b, r) : -1;
    la_scan_close(b);
    if (la_scan_cpu_open(b, threads) != 0)
        rc = -1;
    if (rc != 0)
        snprintf(r->error, sizeof r->error, "out of memory");
    return rc;
}

static int audit_serial(char **paths, size_t n, const struct la_report_ctx *ctx,
                        struct la_scan_backend *b, struct la_indices_out *io,
                        struct la_file_report *r)
{
    for (size_t i = 0; i < n; i++) {
        struct la_file_report f;
        la_scan_cpu_rest(b);    /* the file's reader may want the scan's idle threads */
        if (la_audit_file(paths[i], ctx, b, io, &f) != 0) {
            la_err(paths[i], "scan failed: %s", f.error);
            la_file_report_free(&f);
            return -1;
        }
        la_indices_out_flush(io);
        fold_file(r, paths[i], &f, ctx);
        la_file_report_free(&f);
    }
    return 0;
}

/* The dataset's own accumulator: as a file's, with no sample layout. */
static int init_dataset_stats(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    return la_stats_init_for(&r->stats, ctx, 1);
}

/* The dataset's shape: [samples] and the sources' sample shape when they share one. */
static void finish_shape(struct la_file_report *r)
{
    const struct la_dataset *d = r->dataset;
    r->info.ndim = 1;
    r->info.shape[0] = r->samples;
    r->info.shape_known = 1;
    if (!d->n_src || d->src[0].ndim + 1 > LA_MAX_DIMS)
        return;
    for (size_t i = 1; i < d->n_src; i++)
        if (d->src[i].ndim != d->src[0].ndim ||
            (d->src[0].ndim && memcmp(d->src[i].inner, d->src[0].inner,
                                      (size_t)d->src[0].ndim * sizeof(uint64_t))))
            return;
    for (int k = 0; k < d->src[0].ndim; k++)
        r->info.shape[1 + k] = d->src[0].inner[k];
    r->info.ndim = 1 + d->src[0].ndim;
}

/* "DIR", or "FIRST+" for --concat. */
static char *dataset_path(const char *first, int is_dir)
{
    size_t len = strlen(first) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s%s", first, is_dir ? "" : "+");
    return p;
}

int la_dataset_begin(struct la_file_report *r, const char *first, int is_dir,
                     const struct la_report_ctx *ctx)
{
    memset(r, 0, sizeof *r);
    struct la_dataset *d = calloc(1, sizeof *d);
    r->dataset = d;
    r->path = first;
    if (!d || !(d->path = dataset_path(first, is_dir)) || init_dataset_stats(r, ctx) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    r->path = d->path;
    r->ignored_samples.cap = ctx->max_report;   /* its sources' all-ignored samples */
    return 0;
}

/* The sources' ClassLabel, where every one stated the same, gives the
 * dataset's N (as a file's gives its own: audit.c) where nothing above did;
 * else the dataset has none. @return the context to diagnose with. */
static const struct la_report_ctx *dataset_class_label(struct la_file_report *r,
                                                       const struct la_report_ctx *ctx,
                                                       struct la_report_ctx *with)
{
    struct la_notes *n = r->notes;
    if (!n || !n->classes_stated)
        return ctx;
    if (n->classes_stated != r->dataset->n_src) {
        n->has_classes = 0;
        n->classes_from = NULL;
        return ctx;
    }
    return la_class_count_notes_ctx(n, ctx, with);
}

void la_dataset_end(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    finish_shape(r);
    la_notes_fold_end(r->notes);
    if (ctx->cfg->merge) {  /* shard reports: the ids' wording as --concat's files had it */
        r->token_ids = la_token_ids(ctx, &r->info);
        r->vocabulary = la_vocabulary_of(ctx, &r->info);
    }
    r->read_ok = 1;
    struct la_report_ctx with;
    la_diagnose(r, dataset_class_label(r, ctx, &with));
}

/* The dataset's files audited into r (begun), serially or on the threads. */
static int audit_list(char **list, size_t count, const struct la_report_ctx *ctx,
                      struct la_scan_backend *b, struct la_indices_out *io,
                      struct la_file_report *r)
{
    int threads = ctx->cfg->threads > 0 ? ctx->cfg->threads : 1;
    /* --indices-out writes each file's entries as the scan finds them, and the
     * GPU is one device: both keep to one file at a time */
    int serial = threads < 2 || count < 2 || io || !(b->ops->flags & LA_SCANF_CONCURRENT);
    la_verbose(r->path, "dataset of %zu files (%llu skipped), audited %s", count,
               (unsigned long long)r->dataset->skipped_total,
               !serial ? "several at once, on the threads"
               : io ? "one at a time (--indices-out)"
               : threads < 2 || count < 2 ? "one at a time" : "one at a time (the GPU is one device)");
    int rc = serial ? audit_serial(list, count, ctx, b, io, r)
                    : audit_on_threads(list, count, threads, ctx, b, r);
    la_dataset_end(r, ctx);
    return rc;
}

int la_audit_folder(const char *path, const char *walk, const char *glob,
                    const struct la_report_ctx *ctx, struct la_scan_backend *b,
                    struct la_indices_out *io, struct la_file_report *r)
{
    struct path_list files = { 0 };
    if (la_dataset_begin(r, path, 1, ctx) != 0)
        return 0;
    const char *match = ctx->cfg->glob ? ctx->cfg->glob : glob;
    if (list_directory(walk, match, ctx, r->dataset, &files) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return 0;
    }
    int rc = audit_list(files.v, files.n, ctx, b, io, r);
    list_free(&files);
    return rc;
}

int la_audit_dataset(char *const *paths, int n, int is_dir, const struct la_report_ctx *ctx,
                     struct la_scan_backend *b, struct la_indices_out *io,
                     struct la_file_report *r)
{
    if (is_dir)
        return la_audit_folder(paths[0], paths[0], NULL, ctx, b, io, r);
    if (la_dataset_begin(r, paths[0], 0, ctx) != 0)
        return 0;
    return audit_list((char **)paths, (size_t)n, ctx, b, io, r);
}
