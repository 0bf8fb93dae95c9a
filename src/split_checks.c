/* split_checks.c - see split_checks.h. */
#include "split_checks.h"
#include "drift.h"          /* la_drift_of: label-drift's numbers */
#include "split_overlap.h"  /* la_split_overlap: split-overlap's files */
#include "util.h"           /* la_is_directory */

#include <stdarg.h>  /* va_list */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, realloc */
#include <string.h>  /* strcmp, strdup */

/* The p-value below which the chi-square test rejects equal distributions. */
#define DRIFT_P 0.001
/* Classes named in one class-unseen-in-train message. */
#define UNSEEN_LISTED 10

static struct la_split_sum *split_named(struct la_splits *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    struct la_split_sum *more = realloc(s->v, (s->n + 1) * sizeof *more);
    if (!more)
        return NULL;
    s->v = more;
    struct la_split_sum *v = &s->v[s->n];
    *v = (struct la_split_sum){ .name = strdup(name), .has_hist = 1 };
    if (!v->name)
        return NULL;
    s->n++;
    return v;
}

/* r's histogram added to v's, which grows to r's classes. */
static int add_hist(struct la_split_sum *v, const struct la_file_report *r)
{
    if (!r->read_ok || !r->has_hist) {
        v->has_hist = 0;
        return 0;
    }
    if (r->hist_n > v->hist_n) {
        uint64_t *more = realloc(v->hist, r->hist_n * sizeof *more);
        if (!more)
            return -1;
        memset(more + v->hist_n, 0, (r->hist_n - v->hist_n) * sizeof *more);
        v->hist = more;
        v->hist_n = r->hist_n;
    }
    for (uint64_t c = 0; c < r->hist_n && c < r->stats.hist_len; c++)
        v->hist[c] += r->stats.hist[c];
    return 0;
}

int la_splits_add(struct la_splits *s, const struct la_file_report *r)
{
    if (!r->split)
        return 0;
    struct la_split_sum *v = split_named(s, r->split);
    if (!v)
        return s->failed = 1, -1;
    v->files++;
    v->samples += r->read_ok ? r->samples : 0;
    if (!v->root && r->path && la_is_directory(r->path) && !(v->root = strdup(r->path)))
        return s->failed = 1, -1;
    return add_hist(v, r) != 0 ? (s->failed = 1, -1) : 0;
}

__attribute__((format(printf, 5, 6)))
static void add_finding(struct la_splits *s, enum la_code code, const char *a, const char *b,
                        const char *fmt, ...)
{
    if (s->n_findings >= LA_SPLIT_FINDINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    la_finding_vset(&s->findings[s->n_findings], code, fmt, ap);
    va_end(ap);
    s->between[s->n_findings][0] = a;
    s->between[s->n_findings][1] = b;
    s->n_findings++;
}

/* The split the others are held against: train, else none. */
static const struct la_split_sum *train_of(const struct la_splits *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, "train") == 0)
            return &s->v[i];
    return NULL;
}

static uint64_t bin(const struct la_split_sum *v, uint64_t c)
{
    return c < v->hist_n ? v->hist[c] : 0;
}

/* class-unseen-in-train: classes other has and train has not. */
static void check_unseen(struct la_splits *s, const struct la_split_sum *train,
                         const struct la_split_sum *other)
{
    char list[LA_MSG_LEN / 2] = "";
    size_t len = 0;
    uint64_t classes = 0, samples = 0;
    for (uint64_t c = 0; c < other->hist_n; c++) {
        if (!other->hist[c] || bin(train, c))
            continue;
        if (classes++ < UNSEEN_LISTED && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%llu", len ? ", " : "",
                                    (unsigned long long)c);
        samples += other->hist[c];
    }
    if (classes)
        add_finding(s, LA_F_CLASS_UNSEEN_IN_TRAIN, other->name, train->name,
                    "%llu %s (%s%s) in %s (%llu %s) never in %s: the model cannot learn %s",
                    (unsigned long long)classes, classes == 1 ? "class" : "classes", list,
                    classes > UNSEEN_LISTED ? ", ..." : "", other->name,
                    (unsigned long long)samples, samples == 1 ? "label" : "labels",
                    train->name, classes == 1 ? "it" : "them");
}

/* label-drift: other's class distribution against train's. */
static void check_drift(struct la_splits *s, const struct la_split_sum *train,
                        const struct la_split_sum *other, double threshold)
{
    uint64_t n = train->hist_n > other->hist_n ? train->hist_n : other->hist_n;
    uint64_t *a = calloc(n ? n : 1, sizeof *a), *b = calloc(n ? n : 1, sizeof *b);
    if (!a || !b) {
        free(a), free(b);
        s->failed = 1;
        return;
    }
    for (uint64_t c = 0; c < n; c++)
        a[c] = bin(train, c), b[c] = bin(other, c);
    struct la_drift d;
    la_drift_of(a, b, n, &d);
    free(a), free(b);
    if (d.tvd > threshold && d.dof && d.p < DRIFT_P)
        add_finding(s, LA_F_LABEL_DRIFT, other->name, train->name,
                    "the class distribution of %s differs from %s's: total variation "
                    "distance %.3f (above %g), chi-square %.1f with %llu degrees of freedom, "
                    "p = %.2g", other->name, train->name, d.tvd, threshold, d.chi2,
                    (unsigned long long)d.dof, d.p);
}

/* split-overlap between every two splits with folders of their own. */
static void check_overlap(struct la_splits *s, int by_content)
{
    struct la_split_keys *keys = calloc(s->n ? s->n : 1, sizeof *keys);
    if (!keys) {
        s->failed = 1;
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].root && !s->v[i].shared_root &&
            la_split_keys_of(s->v[i].root, by_content, &keys[i]) != 0)
            s->failed = 1;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++) {
            if (!keys[i].n || !keys[j].n)
                continue;
            struct la_overlap o;
            la_split_overlap(s->v[i].root, &keys[i], s->v[j].root, &keys[j], by_content, &o);
            if (!o.count)
                continue;
            char ex[3 * 520] = "";
            for (size_t k = 0, len = 0; k < o.n_examples && len < sizeof ex; k++)
                len += (size_t)snprintf(ex + len, sizeof ex - len, "%s%s", k ? ", " : "",
                                        o.examples[k]);
            add_finding(s, LA_F_SPLIT_OVERLAP, s->v[i].name, s->v[j].name,
                        "%llu %s of %s %s in %s too%s (%s%s): the model is evaluated on "
                        "samples it trained on", (unsigned long long)o.count,
                        o.count == 1 ? "file" : "files", s->v[i].name,
                        o.count == 1 ? "is" : "are", s->v[j].name,
                        by_content ? ", byte for byte" : "", ex,
                        o.count > o.n_examples ? ", ..." : "");
        }
    for (size_t i = 0; i < s->n; i++)
        la_split_keys_free(&keys[i]);
    free(keys);
}

/* Splits that read the same folder (a `datasets` cache's) have no folder of their own. */
static void mark_shared_roots(struct la_splits *s)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->n; j++)
            if (i != j && s->v[i].root && s->v[j].root && strcmp(s->v[i].root, s->v[j].root) == 0)
                s->v[i].shared_root = 1;
}

void la_splits_check(struct la_splits *s, const struct la_config *cfg)
{
    struct la_batch_params p = { cfg->batch_size, cfg->drop_last, cfg->world_size,
                                 cfg->sampler_drop_last, cfg->min_batch };
    for (size_t i = 0; i < s->n && cfg->has_batch_size; i++) {
        s->v[i].has_batching = 1;
        la_batching_compute(s->v[i].samples, &p, &s->v[i].batching);
    }
    if (s->n < 2)
        return;
    mark_shared_roots(s);
    check_overlap(s, cfg->overlap_by_content);
    const struct la_split_sum *train = train_of(s);
    for (size_t i = 0; train && i < s->n; i++) {
        const struct la_split_sum *v = &s->v[i];
        if (v == train || !v->has_hist || !train->has_hist)
            continue;
        check_unseen(s, train, v);
        check_drift(s, train, v, cfg->drift_threshold);
    }
}

void la_splits_count(const struct la_splits *s, uint64_t *errors, uint64_t *warnings)
{
    *errors = *warnings = 0;
    for (size_t i = 0; i < s->n_findings; i++)
        if (s->findings[i].severity != LA_SEV_NOTICE)
            ++*(s->findings[i].severity == LA_SEV_ERROR ? errors : warnings);
}

void la_splits_free(struct la_splits *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        free(s->v[i].root);
        free(s->v[i].hist);
    }
    free(s->v);
    *s = (struct la_splits){ 0 };
}
