/* report_json.c - the JSON report, schema 1, through cJSON.
 *
 * Key order is fixed (the SPEC's), so reports compare byte for byte. Integers
 * are written as raw text: cJSON keeps numbers as doubles, which would round
 * int64 labels above 2^53. */
#include "context.h"  /* la_config_max_report */
#include "class_report.h" /* la_class_count_json */
#include "report.h"
#include "pair_list.h" /* la_pairs: a folder's labels against their images */

#include <cjson/cJSON.h> /* cJSON_* */
#include <stdlib.h>      /* free */
#include <string.h>      /* strlen */

#include "config.h"      /* PACKAGE_VERSION */
#include "file_report.h" /* sources, source, at */
#include "utf8.h"        /* la_utf8_clean, la_escape_dup */
#include "util.h"        /* la_grow */

static cJSON *json_u64(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return cJSON_CreateRaw(buf);
}

static cJSON *json_i64(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return cJSON_CreateRaw(buf);
}

/* A label value: a JSON number, or a string for NaN and infinities. */
static cJSON *json_num(struct la_num v, int dtype)
{
    char buf[64];
    la_format_num(v, dtype, buf, sizeof buf);
    if (buf[0] == 'n' || buf[0] == 'i' || (buf[0] == '-' && buf[1] == 'i'))
        return cJSON_CreateString(buf);
    return cJSON_CreateRaw(buf);
}

/* Text from the input (a cell, a column name, a path, an error naming a zip
 * member) as a JSON string. JSON is UTF-8, and a strict parser rejects the
 * whole document over one bad byte, so invalid bytes become U+FFFD. */
static cJSON *json_text(const char *s)
{
    char *clean = la_utf8_clean(s);
    cJSON *item = cJSON_CreateString(clean ? clean : "");
    free(clean);
    return item;
}

/* cJSON's text of item, with DEL, which cJSON leaves raw, as \u007f (as it
 * writes the other controls), so that no control byte reaches a terminal that
 * shows the report. NULL when out of memory. */
static char *print_json(const cJSON *item, int formatted)
{
    char *text = formatted ? cJSON_Print(item) : cJSON_PrintUnformatted(item);
    char *escaped = text ? la_escape_dup(text, LA_ESC_JSON) : NULL;
    free(text);
    return escaped;
}

static cJSON *json_bool(int b) { return cJSON_CreateBool(b != 0); }

static cJSON *config_object(const struct la_config *cfg)
{
    static const char *const losses[] = { "ce", "nll", "bce" };
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "loss", losses[cfg->loss]);
    cJSON_AddItemToObject(c, "num_classes",
                          cfg->has_num_classes ? json_i64(cfg->num_classes) : cJSON_CreateNull());
    cJSON_AddItemToObject(c, "ignore_index", cfg->has_ignore_index ? json_i64(cfg->ignore_index)
                                                                   : cJSON_CreateNull());
    if (cfg->has_vocab_size)    /* --vocab-size (num_classes holds it too) */
        cJSON_AddItemToObject(c, "vocab_size", json_i64(cfg->vocab_size));
    if (cfg->seq_len)
        cJSON_AddItemToObject(c, "seq_len", json_u64(cfg->seq_len));
    cJSON_AddItemToObject(c, "batch_size",
                          cfg->has_batch_size ? json_u64(cfg->batch_size) : cJSON_CreateNull());
    cJSON_AddItemToObject(c, "drop_last", json_bool(cfg->drop_last));
    cJSON_AddItemToObject(c, "world_size", json_u64(cfg->world_size));
    cJSON_AddItemToObject(c, "sampler_drop_last", json_bool(cfg->sampler_drop_last));
    cJSON_AddItemToObject(c, "min_batch", json_u64(cfg->min_batch));
    if (cfg->config_file) {     /* .labelaudit.yaml gave options: which file */
        char *clean = la_utf8_clean(cfg->config_file);
        cJSON_AddStringToObject(c, "config_file", clean ? clean : "");
        free(clean);
    }
    return c;
}

static cJSON *invalid_object(const struct la_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "count", json_u64(la_stats_invalid(s)));
    cJSON_AddItemToObject(o, "below", json_u64(s->n_verdict[LA_V_BELOW]));
    cJSON_AddItemToObject(o, "above", json_u64(s->n_verdict[LA_V_ABOVE]));
    cJSON_AddItemToObject(o, "non_finite", json_u64(s->n_verdict[LA_V_NON_FINITE]));
    cJSON_AddItemToObject(o, "non_integer", json_u64(s->n_verdict[LA_V_NON_INTEGER]));
    cJSON_AddItemToObject(o, "unparsable", json_u64(s->n_verdict[LA_V_UNPARSABLE]));
    return o;
}

// ---- datasets (file_report.h) and the bad samples of N-dimensional inputs ----------

/* The position of a flat index inside its sample: [y, x] for a mask pixel. */
static cJSON *at_array(const struct la_source_info *src, uint64_t index)
{
    uint64_t at[LA_MAX_DIMS];
    int n;
    la_dataset_at(src, index, at, &n);
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < n; k++)
        cJSON_AddItemToArray(a, json_u64(at[k]));
    return a;
}

/* A plain file described as a dataset's one source, to share the helpers. */
static struct la_source_info file_as_source(const struct la_file_report *r, uint64_t *inner)
{
    struct la_source_info s = { 0 };
    int skip = r->info.one_sample ? 0 : 1;
    s.ndim = r->info.ndim > skip ? r->info.ndim - skip : 0;
    for (int k = 0; k < s.ndim; k++)
        inner[k] = r->info.shape[k + skip];
    s.inner = inner;
    s.dtype = r->info.dtype;
    s.samples = r->samples;
    return s;
}

/* The sources a file entry lists (file_report.h). */
#define sources_of la_report_sources

/* A dataset's sources are written to the output one by one, as cJSON would
 * lay them out inside a file entry: 100,000 files as cJSON items, then as one
 * printed document, took over 100 MB. */
#define SOURCES_MARK "@SOURCES@"
#define FILES_MARK "@FILES@"

static int put_source(FILE *out, const struct la_source_info *s)
{
    cJSON *path = json_text(s->path);
    char *quoted = print_json(path, 0);
    cJSON_Delete(path);
    if (!quoted)
        return -1;
    const char *ind = "\n\t\t\t\t\t";
    /* count: --merge needs it where a sample's values are not its shape's
     * (a YOLO file's lines, a COCO image's annotations) */
    int rc = fprintf(out, "%s\"path\":\t%s,%s\"format\":\t\"%s\",%s\"dtype\":\t\"%s\","
                          "%s\"samples\":\t%llu,%s\"first_sample\":\t%llu,%s\"count\":\t%llu,"
                          "%s\"sample_shape\":\t[",
                     ind, quoted, ind, la_format_name(s->format), ind,
                     la_dtype_info(s->dtype)->name, ind, (unsigned long long)s->samples, ind,
                     (unsigned long long)s->first_sample, ind, (unsigned long long)s->count, ind);
    free(quoted);
    for (int k = 0; k < s->ndim && rc >= 0; k++)     /* --merge needs it for `at` */
        rc = fprintf(out, "%s%llu", k ? ", " : "", (unsigned long long)s->inner[k]);
    return rc >= 0 && fputs("]\n\t\t\t\t}", out) >= 0 ? 0 : -1;
}

static int put_sources(FILE *out, const struct la_dataset *d)
{
    if (!d->n_src)
        return fputs("[]", out) < 0 ? -1 : 0;
    int rc = fputs("[{", out) < 0 ? -1 : 0;
    for (size_t i = 0; i < d->n_src && rc == 0; i++)
        rc = (i && fputs(", {", out) < 0) || put_source(out, &d->src[i]) != 0 ? -1 : 0;
    return rc == 0 && fputs("]", out) >= 0 ? 0 : -1;
}

/* text[0..len) with `tabs` tabs after each newline: an object printed on its
 * own, laid out at the depth it has inside the document. */
static int put_indented(FILE *out, const char *text, size_t len, const char *tabs)
{
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (fwrite(p, 1, n, out) != n || (nl && fputs(tabs, out) < 0))
            return -1;
        p += n;
    }
    return 0;
}

/* One entry of "files", at its depth: the object's own text without its
 * braces, its sources spliced in where the mark is. */
static int write_file(FILE *out, cJSON *o, const struct la_file_report *r)
{
    char *text = print_json(o, 1);
    if (!text)
        return -1;
    size_t len = strlen(text);
    const char *mark = sources_of(r) ? strstr(text, "\n\t\"sources\":\t" SOURCES_MARK) : NULL;
    size_t head = mark ? (size_t)(mark - text) + strlen("\n\t\"sources\":\t") : len - 1;
    int rc = put_indented(out, text + 1, head - 1, "\t\t");
    if (rc == 0 && mark) {
        const char *tail = mark + strlen("\n\t\"sources\":\t" SOURCES_MARK);
        rc = put_sources(out, sources_of(r)) != 0 ||
             put_indented(out, tail, (size_t)(text + len - 1 - tail), "\t\t") != 0 ? -1 : 0;
    }
    free(text);
    return rc == 0 && fputs("}", out) >= 0 ? 0 : -1;
}

/* --seq-len's blocks, and the all-ignored samples: only where they apply, so
 * that the reports of other inputs stay as they were. */
static void add_token_layout(cJSON *o, const struct la_file_report *r, uint64_t max_report)
{
    if (r->seq_len) {
        uint64_t tail = r->info.shape[0] % r->seq_len;
        cJSON_AddItemToObject(o, "seq_len", json_u64(r->seq_len));
        cJSON_AddItemToObject(o, "last_block", json_u64(tail ? tail : r->seq_len));
    }
    const struct la_ignored_samples *t = &r->ignored_samples;
    if (!t->count)
        return;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddItemToObject(a, "count", json_u64(t->count));
    cJSON *list = cJSON_AddArrayToObject(a, "samples");
    for (size_t i = 0; i < t->n_list && i < max_report; i++)
        cJSON_AddItemToArray(list, json_u64(t->list[i]));
    cJSON_AddItemToObject(a, "truncated", json_bool(t->count > (t->n_list < max_report
                                                                   ? t->n_list : max_report)));
    cJSON_AddItemToObject(o, "all_ignored", a);
}

static cJSON *file_object(const struct la_file_report *r, uint64_t max_report);

int la_report_json_file(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                        int index)
{
    cJSON *o = file_object(r, la_config_max_report(cfg));
    int rc = fputs(index ? ", {" : "[{", out) < 0 || write_file(out, o, r) != 0 ? -1 : 0;
    cJSON_Delete(o);
    return rc;
}

/* Files below a directory that are not sources: --glob left them out, or
 * they could not be read (those also made the exit status 3). */
static cJSON *skipped_array(const struct la_dataset *d)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < d->n_skipped; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "path", json_text(d->skipped[i].path));
        cJSON_AddItemToObject(e, "why", json_text(d->skipped[i].why));
        cJSON_AddItemToArray(a, e);
    }
    return a;
}

/* Whether the input has samples of more than one element: masks, volumes. */
static int has_sample_shape(const struct la_file_report *r)
{
    if (!r->dataset)   /* yolo, coco: a file of lines, an image of annotations */
        return r->info.ndim >= 2 || (r->info.one_sample && r->info.ndim >= 1) ||
               r->stats.sample_of;
    for (size_t i = 0; i < r->dataset->n_src; i++)
        if (r->dataset->src[i].ndim > 0)
            return 1;
    return 0;
}

/* One sample's shape, as a dataset's sources give theirs: --merge cannot tell
 * it from "shape" where the file is one sample (an image, a volume) whose
 * first axis has length 1, as a (1, H, W) array's has. */
static cJSON *sample_shape_array(const struct la_file_report *r)
{
    uint64_t inner[LA_MAX_DIMS];
    struct la_source_info whole = file_as_source(r, inner);
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < whole.ndim; k++)
        cJSON_AddItemToArray(a, json_u64(inner[k]));
    return a;
}

static cJSON *bad_sample_list(const struct la_file_report *r, uint64_t max_report)
{
    cJSON *a = cJSON_CreateArray();
    uint64_t inner[LA_MAX_DIMS];
    struct la_source_info whole = file_as_source(r, inner);
    const struct la_dataset *d = sources_of(r);
    for (size_t i = 0; i < r->stats.n_groups && i < max_report; i++) {
        const struct la_bad_group *g = &r->stats.groups[i];
        const struct la_source_info *src = d ? la_dataset_source_of(d, g->sample) : &whole;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "sample", json_u64(g->sample));
        if (d)
            cJSON_AddItemToObject(e, "source", json_u64((uint64_t)(src - d->src)));
        cJSON_AddItemToObject(e, "count", json_u64(g->count));
        cJSON_AddItemToObject(e, "first_at", at_array(src, g->first_index));
        cJSON *values = cJSON_AddArrayToObject(e, "values");
        for (int k = 0; k < g->n_values; k++)    /* as bad[].value writes them */
            cJSON_AddItemToArray(values, g->texts[k] ? json_text(g->texts[k])
                                                     : json_num(g->values[k], src->dtype));
        cJSON_AddItemToArray(a, e);
    }
    return a;
}

static cJSON *bad_array(const struct la_file_report *r, uint64_t max_report)
{
    cJSON *a = cJSON_CreateArray();
    const struct la_dataset *d = sources_of(r);
    for (size_t i = 0; i < r->stats.n_bad && i < max_report; i++) {
        const struct la_bad *b = &r->stats.bad[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "index", json_u64(b->index));
        cJSON_AddItemToObject(e, "sample", b->sample == LA_NO_SAMPLE ? cJSON_CreateNull()
                                                                       : json_u64(b->sample));
        const struct la_source_info *src = d ? la_dataset_source_of_index(d, b->index) : NULL;
        cJSON_AddItemToObject(e, "value", b->text ? json_text(b->text)
                                                  : json_num(b->value, src ? src->dtype
                                                                           : r->info.dtype));
        if (src) {
            cJSON_AddItemToObject(e, "source", json_u64((uint64_t)(src - d->src)));
            cJSON_AddItemToObject(e, "at", at_array(src, b->index));
        }
        la_notes_json_bad(r->notes, b->index, e);   /* yolo: file, line; coco: id, image_id */
        cJSON_AddItemToArray(a, e);
    }
    return a;
}

/* The dtype a bad value is written in: its first place's source's in a dataset. */
static int value_dtype(const struct la_file_report *r, const struct la_bad_value *x)
{
    const struct la_dataset *d = sources_of(r);
    const struct la_source_info *src = d && x->n_first
                                       ? la_dataset_source_of_index(d, x->first_index[0]) : NULL;
    return src ? src->dtype : r->info.dtype;
}

/* Every distinct bad value kept (bad_values.h: the LA_BAD_VALUES smallest),
 * whatever --max-report, in order of first appearance: its count and its
 * first samples. */
static cJSON *bad_values_array(const struct la_file_report *r)
{
    cJSON *a = cJSON_CreateArray();
    const struct la_bad_value *order[LA_BAD_VALUES];
    size_t n = la_bad_values_in_order(&r->stats.values, order);
    for (size_t i = 0; i < n; i++) {
        const struct la_bad_value *x = order[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "value", x->text ? json_text(x->text)
                                                  : json_num(x->value, value_dtype(r, x)));
        cJSON_AddItemToObject(e, "count", json_u64(x->count));
        cJSON *first = cJSON_AddArrayToObject(e, "first");
        for (int k = 0; k < x->n_first; k++)
            cJSON_AddItemToArray(first, x->first_sample[k] == LA_NO_SAMPLE
                                        ? cJSON_CreateNull() : json_u64(x->first_sample[k]));
        /* the index of the value's first entry in each: where a sample holds
         * several (a mask, a YOLO file), and what --merge reads back */
        cJSON *at = cJSON_AddArrayToObject(e, "first_index");
        for (int k = 0; k < x->n_first; k++)
            cJSON_AddItemToArray(at, json_u64(x->first_index[k]));
        cJSON_AddItemToArray(a, e);
    }
    return a;
}

/* The bad entries whose values bad_values leaves out (past LA_BAD_VALUES). */
static uint64_t bad_values_other(const struct la_stats *s)
{
    uint64_t all = la_stats_invalid(s), listed = la_bad_values_listed(&s->values);
    return all > listed ? all - listed : 0;
}

/* A list of integers as one raw JSON array, spelled as cJSON prints arrays
 * ("[3, 0, 7]"). A cJSON item per element costs about 100 bytes: a histogram
 * of 2^20 classes and its missing_classes took 240 MB; the text
 * alone takes what the output does. */
struct raw_list {
    char *buf;
    size_t len, cap;
    int failed;             /* out of memory: the list becomes null */
};

static void raw_put(struct raw_list *l, const char *text)
{
    size_t n = strlen(text);
    if (l->failed || la_grow(&l->buf, &l->cap, l->len + n + 1, 4096) != 0) {
        l->failed = 1;
        return;
    }
    memcpy(l->buf + l->len, text, n + 1);
    l->len += n;
}

/* One element: a JSON number as text. */
static void raw_put_item(struct raw_list *l, const char *num)
{
    raw_put(l, l->len > 1 ? ", " : "");  /* after "[" and a first number */
    raw_put(l, num);
}

static void raw_put_u64(struct raw_list *l, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    raw_put_item(l, num);
}

/* The list closed and handed to cJSON (which copies it); null when out of memory. */
static cJSON *raw_list_close(struct raw_list *l)
{
    raw_put(l, "]");
    cJSON *item = l->failed ? cJSON_CreateNull() : cJSON_CreateRaw(l->buf);
    free(l->buf);
    return item;
}

static cJSON *histogram_array(const struct la_file_report *r, int zeros_only)
{
    struct raw_list l = { 0 };
    raw_put(&l, "[");
    for (uint64_t c = 0; c < r->hist_n; c++) {
        uint64_t n = r->stats.hist && c < r->stats.hist_len ? r->stats.hist[c] : 0;
        if (!zeros_only)
            raw_put_u64(&l, n);
        else if (n == 0)
            raw_put_u64(&l, c);
    }
    return raw_list_close(&l);
}

/* A weight: a JSON number that reads back to the same double. */
static cJSON *json_f64(double w)
{
    return json_num((struct la_num){ .kind = LA_NUM_F64, .v.f = w }, LA_DT_FLOAT64);
}

/* class_weights (SPEC): total / (N_present * count[c]) per class, 0 for an absent one. */
static cJSON *class_weights_array(const struct la_file_report *r)
{
    uint64_t total, present;
    la_hist_totals(r->stats.hist, r->stats.hist_len, r->hist_n, &total, &present);
    struct raw_list l = { 0 };
    raw_put(&l, "[");
    for (uint64_t c = 0; c < r->hist_n; c++) {
        /* a weight is finite: a JSON number, never the string "nan" */
        double w = la_class_weight(r->stats.hist, r->stats.hist_len, r->hist_n, c, total, present);
        char num[64];
        la_format_num((struct la_num){ .kind = LA_NUM_F64, .v.f = w }, LA_DT_FLOAT64, num,
                      sizeof num);
        raw_put_item(&l, num);
    }
    return raw_list_close(&l);
}

/* pos_weight (SPEC): negatives / positives per column, null for a column with no positive. */
static cJSON *pos_weight_array(const struct la_pos_counts *pc)
{
    cJSON *a = cJSON_CreateArray();
    for (uint64_t c = 0; c < pc->cols; c++) {
        double w;
        cJSON_AddItemToArray(a, la_pos_weight(pc, c, &w) == 0 ? json_f64(w) : cJSON_CreateNull());
    }
    return a;
}

static cJSON *batching_object(const struct la_batching *b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "samples", json_u64(b->samples));
    cJSON_AddItemToObject(o, "batch_size", json_u64(b->p.batch_size));
    cJSON_AddItemToObject(o, "drop_last", json_bool(b->p.drop_last));
    cJSON_AddItemToObject(o, "world_size", json_u64(b->p.world_size));
    cJSON_AddItemToObject(o, "sampler_drop_last", json_bool(b->p.sampler_drop_last));
    cJSON_AddItemToObject(o, "samples_per_rank", json_u64(b->samples_per_rank));
    cJSON_AddItemToObject(o, "padded", json_u64(b->padded));
    cJSON_AddItemToObject(o, "dropped_by_sampler", json_u64(b->dropped_by_sampler));
    cJSON_AddItemToObject(o, "batches_per_rank", json_u64(b->batches_per_rank));
    cJSON_AddItemToObject(o, "last_batch", json_u64(b->last_batch));
    cJSON_AddItemToObject(o, "dropped_by_loader", json_u64(b->dropped_by_loader));
    cJSON *sugg = cJSON_AddArrayToObject(o, "suggestions");
    for (size_t i = 0; i < b->n_suggestions; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "batch_size", json_u64(b->suggestions[i].batch_size));
        cJSON_AddItemToObject(e, "last_batch", json_u64(b->suggestions[i].last_batch));
        cJSON_AddItemToArray(sugg, e);
    }
    return o;
}

/* A [width, height], or null where it is not known. */
static cJSON *size_array(uint64_t w, uint64_t h)
{
    if (!w || !h)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, json_u64(w));
    cJSON_AddItemToArray(a, json_u64(h));
    return a;
}

/* SPEC "A label and what it labels": the labels against their images. */
static cJSON *pairs_object(const struct la_pairs *p)
{
    static const char *const kinds[] = { "size-mismatch", "no-image", "no-label", "unreadable",
                                         "geometry-mismatch" };
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "images_dir", json_text(p->images_dir));
    cJSON_AddItemToObject(o, "images", json_u64(p->images));
    cJSON_AddItemToObject(o, "paired", json_u64(p->paired));
    cJSON_AddItemToObject(o, "unlabeled", json_u64(p->unlabeled));
    cJSON_AddItemToObject(o, "orphans", json_u64(p->orphans));
    cJSON_AddItemToObject(o, "size_mismatch", json_u64(p->size_mismatch));
    cJSON_AddItemToObject(o, "geometry_mismatch", json_u64(p->geometry_mismatch));
    cJSON_AddItemToObject(o, "unreadable", json_u64(p->unreadable));
    cJSON *bad = cJSON_AddArrayToObject(o, "bad");
    for (size_t i = 0; i < p->n_bad; i++) {
        const struct la_pair_bad *b = &p->bad[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "kind", kinds[b->kind]);
        cJSON_AddItemToObject(e, "file", b->file ? json_text(b->file) : cJSON_CreateNull());
        cJSON_AddItemToObject(e, "image", b->image ? json_text(b->image) : cJSON_CreateNull());
        cJSON_AddItemToObject(e, "label_size", size_array(b->label_w, b->label_h));
        cJSON_AddItemToObject(e, "image_size", size_array(b->image_w, b->image_h));
        if (b->kind == LA_PAIR_GEOMETRY) {
            cJSON_AddItemToObject(e, "geometry", json_text(b->why ? b->why : ""));
            cJSON_AddBoolToObject(e, "refused", b->refused);
        }
        cJSON_AddItemToArray(bad, e);
    }
    cJSON_AddBoolToObject(o, "bad_truncated", p->n_bad < p->size_mismatch + p->orphans +
                                                  p->geometry_mismatch +
                                                  p->unreadable +
                                                  (p->segmentation ? p->unlabeled : 0));
    return o;
}

/* One finding: its severity, code, message (with its fix) and the error it prevents. */
static cJSON *finding_object(const struct la_finding *f)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "severity", la_severity_name(f->severity));
    cJSON_AddStringToObject(e, "code", la_finding_code_name(f->code));
    char message[2 * LA_MSG_LEN + 8];
    snprintf(message, sizeof message, "%s%s%s", f->message, f->hint[0] ? "; " : "", f->hint);
    cJSON_AddStringToObject(e, "message", message);
    cJSON_AddItemToObject(e, "prevents",
                          f->prevents ? cJSON_CreateString(f->prevents) : cJSON_CreateNull());
    if (f->has_suggested_ignore)
        cJSON_AddItemToObject(e, "ignore_index", json_i64(f->suggested_ignore));
    if (f->column[0])
        cJSON_AddItemToObject(e, "column", json_text(f->column));
    return e;
}

static cJSON *findings_array(const struct la_file_report *r)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < r->n_findings; i++)
        cJSON_AddItemToArray(a, finding_object(&r->findings[i]));
    return a;
}

/* What --merge needs beyond the fields above to find what --concat finds:
 * the counts of out-of-range integers near the range (ignore-like-value,
 * one-based), of valid labels beyond the histogram's cap and of files whose
 * header is ambiguous (ambiguous-header). Present only when one of them is
 * not zero. */
static int has_tally(const struct la_stats *s)
{
    if (s->ambiguous_headers)
        return 1;
    for (int k = 0; k < LA_OUTLIER_BINS; k++)
        if (s->outlier_below[k] || s->outlier_above[k])
            return 1;
    for (int k = 0; k < LA_SENTINELS; k++)
        if (s->sentinel_above[k])
            return 1;
    return s->hist_len && s->hist_beyond;   /* without a histogram, nothing is beyond it */
}

/* [[k, count], ...] for the non-zero bins. */
static cJSON *outlier_pairs(const uint64_t *bins)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < LA_OUTLIER_BINS; k++) {
        if (!bins[k])
            continue;
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, json_u64((uint64_t)k));
        cJSON_AddItemToArray(pair, json_u64(bins[k]));
        cJSON_AddItemToArray(a, pair);
    }
    return a;
}

static cJSON *tally_object(const struct la_stats *s)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddItemToObject(t, "hist_beyond", json_u64(s->hist_len ? s->hist_beyond : 0));
    cJSON_AddItemToObject(t, "outliers_below", outlier_pairs(s->outlier_below));
    cJSON_AddItemToObject(t, "outliers_above", outlier_pairs(s->outlier_above));
    cJSON *sentinels = NULL;                 /* [value, count] of 65535 ... beyond the bins */
    for (int k = 0; k < LA_SENTINELS; k++) {
        if (!s->sentinel_above[k])
            continue;
        if (!sentinels)
            sentinels = cJSON_AddArrayToObject(t, "sentinels_above");
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, json_u64((uint64_t)la_sentinels[k]));
        cJSON_AddItemToArray(pair, json_u64(s->sentinel_above[k]));
        cJSON_AddItemToArray(sentinels, pair);
    }
    if (s->ambiguous_headers)
        cJSON_AddItemToObject(t, "ambiguous_headers", json_u64(s->ambiguous_headers));
    return t;
}

static cJSON *null_or(int present, cJSON *item)
{
    if (present)
        return item;
    cJSON_Delete(item);
    return cJSON_CreateNull();
}

/* CSV/TSV: whether the first row was a header, whether that was guessed, and
 * why ("why" is null when a header cell named the label column). */
static cJSON *header_object(const struct la_array_info *info)
{
    cJSON *h = cJSON_CreateObject();
    cJSON_AddItemToObject(h, "present", cJSON_CreateBool(info->header_present));
    cJSON_AddItemToObject(h, "guessed", cJSON_CreateBool(info->header_guessed));
    cJSON_AddItemToObject(h, "why", info->header_guessed && info->header_why
                                    ? cJSON_CreateString(info->header_why) : cJSON_CreateNull());
    return h;
}

/* The fields that describe what was read; null where the file could not be read. */
static void add_layout(cJSON *o, const struct la_file_report *r)
{
    int ok = r->read_ok;
    cJSON_AddItemToObject(o, "format", r->dataset ? cJSON_CreateString("dataset")
                                       : r->info.format != LA_FMT_NONE
                                           ? cJSON_CreateString(la_format_name(r->info.format))
                                           : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "dtype", null_or(ok, cJSON_CreateString(
                                                      r->dataset && r->dataset->mixed_dtype
                                                      ? "mixed"
                                                      : la_dtype_info(r->info.dtype)->name)));
    cJSON_AddItemToObject(o, "column", null_or(ok && r->info.has_column,
                                               json_text(r->info.column)));
    if (ok && la_format_has(r->info.format, LA_FMTF_TABLE))
        cJSON_AddItemToObject(o, "header", header_object(&r->info));
    cJSON *shape = cJSON_CreateArray();
    for (int d = 0; d < r->info.ndim; d++)
        cJSON_AddItemToArray(shape, json_u64(r->info.shape[d]));
    cJSON_AddItemToObject(o, "shape", null_or(ok, shape));
    if (ok && !r->dataset && has_sample_shape(r))
        cJSON_AddItemToObject(o, "sample_shape", sample_shape_array(r));
    cJSON_AddItemToObject(o, "samples", null_or(ok, json_u64(r->samples)));
    cJSON_AddItemToObject(o, "count", null_or(ok, json_u64(r->stats.count)));
}

/* The codes of a copy's findings in state st (--fix). */
static cJSON *fix_codes(const struct la_file_report *r, enum la_fix_state st)
{
    cJSON *a = cJSON_CreateArray();
    for (int c = 0; c < LA_F_COUNT; c++)
        if (la_fix_state_of(r, (enum la_code)c) == st)
            cJSON_AddItemToArray(a, cJSON_CreateString(la_finding_code_name((enum la_code)c)));
    return a;
}

/* A corrected copy's "fix": what it was made of and with, and what the fix
 * removed, left and brought (null where the copy could not be read). */
static cJSON *fix_object(const struct la_file_report *r)
{
    const struct la_fix_result *f = r->fix;
    cJSON *o = cJSON_CreateObject(), *rules = cJSON_CreateArray();
    cJSON_AddItemToObject(o, "of", json_text(f->of));
    for (const char *p = f->rules; *p;) {       /* "one-based, label-gap" */
        const char *end = strstr(p, ", ");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        cJSON_AddItemToArray(rules, cJSON_CreateString(name));
        p += n + (end ? 2 : 0);
    }
    cJSON_AddItemToObject(o, "rules", rules);
    cJSON_AddItemToObject(o, "changed", json_u64(f->changed));
    cJSON_AddItemToObject(o, "dropped", json_u64(f->dropped));
    cJSON_AddItemToObject(o, "removed", null_or(r->read_ok, fix_codes(r, LA_FIXS_REMOVED)));
    cJSON_AddItemToObject(o, "remaining", null_or(r->read_ok, fix_codes(r, LA_FIXS_REMAINING)));
    cJSON_AddItemToObject(o, "new", null_or(r->read_ok, fix_codes(r, LA_FIXS_NEW)));
    return o;
}

static cJSON *file_object(const struct la_file_report *r, uint64_t max_report)
{
    const struct la_stats *s = &r->stats;
    int ok = r->read_ok;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "path", json_text(r->path));
    if (r->split)           /* SPEC "Splits": a `datasets` cache folder's split */
        cJSON_AddItemToObject(o, "split", json_text(r->split));
    add_layout(o, r);
    if (sources_of(r))      /* written straight to the output: see write_file */
        cJSON_AddItemToObject(o, "sources", cJSON_CreateRaw(SOURCES_MARK));
    if (r->dataset) {
        cJSON_AddItemToObject(o, "skipped", skipped_array(r->dataset));
        cJSON_AddItemToObject(o, "skipped_count", json_u64(r->dataset->skipped_total));
    }
    cJSON_AddItemToObject(o, "min", null_or(ok && s->has_minmax, json_num(s->min, r->info.dtype)));
    cJSON_AddItemToObject(o, "max", null_or(ok && s->has_minmax, json_num(s->max, r->info.dtype)));
    cJSON_AddItemToObject(o, "ignored", null_or(ok, json_u64(s->n_verdict[LA_V_IGNORED])));
    cJSON_AddItemToObject(o, "invalid", null_or(ok, invalid_object(s)));
    cJSON_AddItemToObject(o, "bad", null_or(ok, bad_array(r, max_report)));
    uint64_t listed = s->n_bad < max_report ? s->n_bad : max_report;
    cJSON_AddItemToObject(o, "bad_truncated", null_or(ok, json_bool(s->bad_total > listed)));
    cJSON_AddItemToObject(o, "bad_samples", null_or(ok, json_u64(s->bad_samples)));
    if (ok && has_sample_shape(r))
        cJSON_AddItemToObject(o, "bad_sample_list", bad_sample_list(r, max_report));
    cJSON_AddItemToObject(o, "bad_values", null_or(ok, bad_values_array(r)));
    cJSON_AddItemToObject(o, "bad_values_other", null_or(ok, json_u64(bad_values_other(s))));
    cJSON_AddItemToObject(o, "histogram", null_or(ok && r->has_hist, histogram_array(r, 0)));
    cJSON_AddItemToObject(o, "missing_classes",
                          null_or(ok && r->has_hist, histogram_array(r, 1)));
    cJSON_AddItemToObject(o, "class_weights",
                          null_or(ok && r->has_hist, class_weights_array(r)));
    cJSON_AddItemToObject(o, "pos_weight",
                          null_or(ok && la_pos_counts_ok(&r->pos), pos_weight_array(&r->pos)));
    cJSON_AddItemToObject(o, "batching",
                          null_or(ok && r->has_batching, batching_object(&r->batching)));
    if (ok && has_tally(s))
        cJSON_AddItemToObject(o, "tally", tally_object(s));
    if (ok)
        add_token_layout(o, r, max_report);
    la_class_count_json(r, o);      /* num_classes_from, class_names: a source beyond -n */
    cJSON_AddItemToObject(o, "findings", findings_array(r));
    if (ok)
        la_notes_json_add(r->notes, la_format_name(r->info.format), o);
    if (ok && r->notes && r->notes->columns_json)     /* SPEC "Every column the model indexes" */
        cJSON_AddItemToObject(o, "columns", cJSON_Duplicate(r->notes->columns_json, 1));
    if (ok && r->notes && r->notes->lengths_json)
        cJSON_AddItemToObject(o, "lengths", cJSON_Duplicate(r->notes->lengths_json, 1));
    if (ok && r->pairs)
        cJSON_AddItemToObject(o, "pairs", pairs_object(r->pairs));
    cJSON_AddItemToObject(o, "error", ok ? cJSON_CreateNull() : json_text(r->error));
    if (r->fix)             /* --fix's copy: how it was made */
        cJSON_AddItemToObject(o, "fix", fix_object(r));
    return o;
}

/* SPEC "Splits": each split's sums, and the findings between them, each
 * naming its two splits. */
static void add_splits(cJSON *root, const struct la_splits *sp)
{
    cJSON *a = cJSON_AddArrayToObject(root, "splits");
    for (size_t i = 0; i < sp->n; i++) {
        const struct la_split_sum *v = &sp->v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "name", json_text(v->name));
        cJSON_AddItemToObject(o, "files", json_u64((uint64_t)v->files));
        cJSON_AddItemToObject(o, "samples", json_u64(v->samples));
        cJSON *h = v->has_hist ? cJSON_CreateArray() : cJSON_CreateNull();
        for (uint64_t c = 0; v->has_hist && c < v->hist_n; c++)
            cJSON_AddItemToArray(h, json_u64(v->hist[c]));
        cJSON_AddItemToObject(o, "histogram", h);
        cJSON_AddItemToObject(o, "batching",
                              null_or(v->has_batching, batching_object(&v->batching)));
        cJSON_AddItemToArray(a, o);
    }
    cJSON *f = cJSON_AddArrayToObject(root, "dataset_findings");
    for (size_t i = 0; i < sp->n_findings; i++) {
        cJSON *e = finding_object(&sp->findings[i]);
        cJSON *between = cJSON_AddArrayToObject(e, "splits");
        cJSON_AddItemToArray(between, json_text(sp->between[i][0]));
        cJSON_AddItemToArray(between, json_text(sp->between[i][1]));
        cJSON_AddItemToArray(f, e);
    }
}

/* The document with FILES_MARK for "files", and where the mark is; NULL
 * when out of memory. The entries are written in between, one at a time. */
static char *print_root(const struct la_config *cfg, const struct la_summary *sum,
                        const char **mark)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "tool", "labelaudit");
    cJSON_AddStringToObject(root, "version", PACKAGE_VERSION);
    cJSON_AddItemToObject(root, "schema", json_u64(1));
    cJSON_AddStringToObject(root, "backend", sum->backend);
    cJSON_AddItemToObject(root, "config", config_object(cfg));
    cJSON_AddItemToObject(root, "files", cJSON_CreateRaw(FILES_MARK));
    if (sum->splits && sum->splits->n)
        add_splits(root, sum->splits);
    cJSON *summary = cJSON_AddObjectToObject(root, "summary");
    cJSON_AddItemToObject(summary, "files", json_u64((uint64_t)sum->files));
    cJSON_AddItemToObject(summary, "errors", json_u64(sum->errors));
    cJSON_AddItemToObject(summary, "warnings", json_u64(sum->warnings));
    cJSON_AddItemToObject(summary, "exit_status", json_u64((uint64_t)sum->exit_status));
    char *text = print_json(root, 1);
    cJSON_Delete(root);
    if (text && !(*mark = strstr(text, "\n\t\"files\":\t" FILES_MARK))) {
        free(text);
        text = NULL;
    }
    return text;
}

int la_report_json_begin(FILE *out, const struct la_config *cfg, const char *backend)
{
    struct la_summary sum = { .backend = backend };  /* the summary is not written yet */
    const char *mark;
    char *text = print_root(cfg, &sum, &mark);
    if (!text)
        return -1;
    size_t head = (size_t)(mark - text) + strlen("\n\t\"files\":\t");
    int rc = fwrite(text, 1, head, out) == head ? 0 : -1;
    free(text);
    return rc;
}

int la_report_json_end(FILE *out, const struct la_config *cfg, const struct la_summary *sum)
{
    const char *mark;
    char *text = print_root(cfg, sum, &mark);
    if (!text)
        return -1;
    const char *tail = mark + strlen("\n\t\"files\":\t" FILES_MARK);
    int rc = fputs(sum->files ? "]" : "[]", out) >= 0 && fputs(tail, out) >= 0 &&
             fputc('\n', out) != EOF ? 0 : -1;
    free(text);
    return rc;
}

int la_report_json(FILE *out, const struct la_file_report *files, int n,
                   const struct la_config *cfg, const struct la_summary *sum)
{
    int rc = la_report_json_begin(out, cfg, sum->backend);
    for (int i = 0; i < n && rc == 0; i++)
        rc = la_report_json_file(out, &files[i], cfg, i);
    return rc == 0 ? la_report_json_end(out, cfg, sum) : -1;
}
