/* merge.c - see merge.h.
 *
 * A shard report holds what --concat needs: counts, categories, min/max, the
 * histogram, the first --max-report bad entries and bad samples with their
 * values, `sources` with each one's sample shape, and `tally` (the counts
 * near the range that ignore-like-value and one-based read). Each entry of a
 * report's "files" becomes the next source(s) of one dataset, its stats
 * rebuilt with dataset indices and folded as a file's are. cJSON keeps a
 * number as a double, exact up to 2^53: the integers beyond it (a label of
 * 9223372036854775807) are read again from the report's text, exactly. */
#include "merge.h"
#include "read/hf_splits.h" /* la_split_order: the splits of the shards */

#include <cjson/cJSON.h> /* cJSON_Parse */
#include <errno.h>       /* errno */
#include <math.h>        /* NAN, INFINITY */
#include <stdio.h>       /* fopen */
#include <stdint.h>      /* INT64_MAX */
#include <stdlib.h>      /* malloc, calloc, strtoull, qsort, bsearch */
#include <string.h>      /* strcmp */

#include "audit.h"       /* la_token_ids */
#include "class_count.h" /* a shard report's class sources, read back */
#include "dataset.h"
#include "msg.h"
#include "util.h"        /* la_grow */

// ---- integers beyond a double's 2^53, exactly ---------------------------------------

/* A number item of a report whose text is an integer a double cannot hold:
 * its magnitude and sign as written. */
struct exact {
    const cJSON *item;
    const cJSON *root;       /* the report's, to forget it with the report */
    uint64_t ordinal;        /* the number's place among the report's numbers */
    uint64_t mag;
    int neg;
};

static struct exact *g_exact;   /* sorted by item while no report is being read */
static size_t g_n_exact, g_cap_exact;

/* The integer number tokens of text[0, len) beyond 2^53, with their ordinal
 * among all the number tokens: the document order cJSON's tree keeps. */
static int scan_numbers(const char *text, size_t len, const cJSON *root)
{
    uint64_t ordinal = 0;
    for (size_t i = 0; i < len;) {
        if (text[i] == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                i += text[i] == '\\';
            i++;
            continue;
        }
        if (text[i] != '-' && (text[i] < '0' || text[i] > '9')) {
            i++;
            continue;
        }
        size_t start = i, digits = 0;
        int integer = 1;
        for (i += text[i] == '-'; i < len && text[i] && strchr("0123456789.eE+-", text[i]); i++) {
            integer &= text[i] >= '0' && text[i] <= '9';
            digits++;
        }
        errno = 0;
        uint64_t mag = integer && digits >= 16 ? strtoull(text + start + (text[start] == '-'), NULL, 10)
                                               : 0;
        if (mag > (1ull << 53) && errno == 0) {
            if (la_grow_n(&g_exact, &g_cap_exact, g_n_exact + 1, sizeof *g_exact, 16) != 0)
                return -1;
            g_exact[g_n_exact++] = (struct exact){ NULL, root, ordinal, mag, text[start] == '-' };
        }
        ordinal++;
    }
    return 0;
}

/* The number items of the tree in document order, paired with the tokens
 * scan_numbers kept from first on. */
static void pair_numbers(const cJSON *item, uint64_t *ordinal, size_t *next)
{
    for (; item && *next < g_n_exact; item = item->next) {
        if (cJSON_IsNumber(item) && g_exact[*next].ordinal == (*ordinal)++)
            g_exact[(*next)++].item = item;
        if (cJSON_IsArray(item) || cJSON_IsObject(item))
            pair_numbers(item->child, ordinal, next);
    }
}

static int by_item(const void *a, const void *b)
{
    const cJSON *x = ((const struct exact *)a)->item, *y = ((const struct exact *)b)->item;
    return x < y ? -1 : x > y;
}

/* Remember root's large integers from its text. @return 0, or -1 out of memory. */
static int keep_exact(const cJSON *root, const char *text, size_t len)
{
    size_t first = g_n_exact;
    if (scan_numbers(text, len, root) != 0)
        return -1;
    uint64_t ordinal = 0;
    size_t next = first;
    pair_numbers(root, &ordinal, &next);
    if (g_n_exact)   /* (qsort of no array is undefined: g_exact is NULL then) */
        qsort(g_exact, g_n_exact, sizeof *g_exact, by_item);   /* unpaired ones (NULL) first */
    return 0;
}

static void free_report(cJSON *root)
{
    size_t k = 0;
    for (size_t i = 0; i < g_n_exact; i++)
        if (g_exact[i].root != root && g_exact[i].item)
            g_exact[k++] = g_exact[i];
    g_n_exact = k;
    if (!k) {
        free(g_exact);
        g_exact = NULL;
        g_cap_exact = 0;
    }
    cJSON_Delete(root);
}

static const struct exact *exact_of(const cJSON *v)
{
    struct exact key = { .item = v };
    return v && g_n_exact ? bsearch(&key, g_exact, g_n_exact, sizeof key, by_item) : NULL;
}

/* A number as a uint64: exact where its text was a large integer; 0 for a
 * negative one or none. */
static uint64_t num_u64(const cJSON *v)
{
    const struct exact *x = exact_of(v);
    if (x)
        return x->neg ? 0 : x->mag;
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

/* A number as an int64, exactly where it is an integer int64 holds. */
static int64_t num_i64(const cJSON *v)
{
    const struct exact *x = exact_of(v);
    if (x && x->mag <= (uint64_t)INT64_MAX)
        return x->neg ? -(int64_t)x->mag : (int64_t)x->mag;
    if (x && x->neg && x->mag == (uint64_t)INT64_MAX + 1)
        return INT64_MIN;
    double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
    return d >= 9223372036854775807.0 ? INT64_MAX : d <= -9223372036854775808.0 ? INT64_MIN
                                                                               : (int64_t)d;
}

// ---- the reports ---------------------------------------------------------------------

/* The whole report as one document; NULL with err set. */
static cJSON *read_report(const char *path, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (la_grow(&buf, &cap, len + 65536 + 1, 65536) != 0) {
            snprintf(err, errlen, "out of memory");
            break;
        }
        got = fread(buf + len, 1, 65536, f);
        len += got;
    } while (got > 0);
    int bad = ferror(f) || !buf || len + 1 > cap;
    if (f != stdin)
        fclose(f);
    if (bad) {
        if (!err[0])
            snprintf(err, errlen, "read error");
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(buf, &end, 0);
    if (root && keep_exact(root, buf, (size_t)(end - buf)) != 0) {
        snprintf(err, errlen, "out of memory");
        free_report(root);
        free(buf);
        return NULL;
    }
    free(buf);
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(root, "tool");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!root || !cJSON_IsString(tool) || strcmp(tool->valuestring, "labelaudit") != 0 ||
        !cJSON_IsNumber(schema) || schema->valuedouble != 1 ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "files")) ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "config"))) {
        snprintf(err, errlen, "not a labelaudit --json report (schema 1)");
        free_report(root);
        return NULL;
    }
    return root;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static uint64_t get_u64(const cJSON *o, const char *key)
{
    return num_u64(get(o, key));
}

// ---- the checks and the batching: from the shard reports ---------------------------

static const char *const checks[] = { "loss", "num_classes", "ignore_index" };
#define N_CHECKS (sizeof checks / sizeof *checks)

static void adopt_checks(struct la_config *cfg, const cJSON *c)
{
    const cJSON *loss = get(c, "loss"), *n = get(c, "num_classes"), *ig = get(c, "ignore_index");
    cfg->loss = !cJSON_IsString(loss) ? LA_LOSS_CE
              : !strcmp(loss->valuestring, "bce") ? LA_LOSS_BCE
              : !strcmp(loss->valuestring, "nll") ? LA_LOSS_NLL : LA_LOSS_CE;
    cfg->has_num_classes = cJSON_IsNumber(n);
    cfg->num_classes = cfg->has_num_classes ? num_i64(n) : 0;
    cfg->has_ignore_index = cJSON_IsNumber(ig);
    cfg->ignore_index = cfg->has_ignore_index ? num_i64(ig) : 0;
    const cJSON *v = get(c, "vocab_size");   /* --vocab-size: num_classes holds it too */
    cfg->has_vocab_size = cJSON_IsNumber(v);
    cfg->vocab_size = cfg->has_vocab_size ? num_i64(v) : 0;
}

static void adopt_batching(struct la_config *cfg, const cJSON *c)
{
    const cJSON *b = get(c, "batch_size");
    cfg->has_batch_size = cJSON_IsNumber(b);
    cfg->batch_size = cfg->has_batch_size ? num_u64(b) : 0;
    cfg->drop_last = cJSON_IsTrue(get(c, "drop_last"));
    cfg->world_size = get_u64(c, "world_size") ? get_u64(c, "world_size") : 1;
    cfg->sampler_drop_last = cJSON_IsTrue(get(c, "sampler_drop_last"));
    cfg->min_batch = get_u64(c, "min_batch") ? get_u64(c, "min_batch") : 2;
}

/* Whether two reports' first entries found the same N where both say one
 * (from a model or the metadata; -n is the config's, checked with it). */
static int same_class_count(const cJSON *a, const cJSON *b)
{
    const cJSON *na = get(cJSON_GetArrayItem(get(a, "files"), 0), "num_classes");
    const cJSON *nb = get(cJSON_GetArrayItem(get(b, "files"), 0), "num_classes");
    return !cJSON_IsNumber(na) || !cJSON_IsNumber(nb) || num_i64(na) == num_i64(nb);
}

/* The splits the shard reports' entries name ("split"), each once, in
 * la_split_order's order, into cfg->splits: a merged report per split.
 * @return 0, or -1 out of memory. */
static int adopt_splits(struct la_config *cfg)
{
    static char **run_splits;   /* reachable until the run ends, its exit included */
    if (run_splits)
        return 0;               /* adopted already: a run merges once */
    char **names = NULL;
    int n = 0;
    for (int i = 0; i < cfg->nfiles; i++) {
        char err[LA_ERR_LEN];
        cJSON *root = read_report(cfg->files[i], err, sizeof err);
        const cJSON *e;
        cJSON_ArrayForEach(e, get(root, "files")) {
            const cJSON *s = get(e, "split");
            int seen = !cJSON_IsString(s);
            for (int k = 0; !seen && k < n; k++)
                seen = strcmp(names[k], s->valuestring) == 0;
            if (seen)
                continue;
            char **more = realloc(names, (size_t)(n + 1) * sizeof *names);
            if (!more || !(more[n] = strdup(s->valuestring))) {
                free_report(root);
                la_hf_splits_free(more ? more : names, n);
                return -1;
            }
            names = more;
            n++;
        }
        free_report(root);
    }
    if (n)
        qsort(names, (size_t)n, sizeof *names, la_split_order);
    cfg->splits = run_splits = names;
    cfg->n_merge_splits = n;
    return 0;
}

int la_merge_adopt_config(struct la_config *cfg)
{
    if (adopt_splits(cfg) != 0) {
        la_err(NULL, "out of memory");
        return 3;
    }
    cJSON *first = NULL;
    int given_n = cfg->has_num_classes;
    int64_t n = cfg->num_classes;
    for (int i = 0; i < cfg->nfiles; i++) {
        char err[LA_ERR_LEN] = "";
        cJSON *root = read_report(cfg->files[i], err, sizeof err);
        if (!root)
            continue;           /* said when merging: the others still count */
        const cJSON *c = get(root, "config");
        if (!first) {
            first = root;
            continue;
        }
        if (!same_class_count(root, first)) {
            la_err(cfg->files[i], "--merge: made with another class count (num_classes) than %s",
                   cfg->files[0]);
            free_report(root);
            free_report(first);
            return 2;
        }
        for (size_t k = 0; k < N_CHECKS; k++) {
            if (!cJSON_Compare(get(c, checks[k]), get(get(first, "config"), checks[k]), 1)) {
                la_err(cfg->files[i], "--merge: made with another %s than %s", checks[k],
                       cfg->files[0]);
                free_report(root);
                free_report(first);
                return 2;
            }
        }
        free_report(root);
    }
    if (!first)
        return 0;
    adopt_checks(cfg, get(first, "config"));
    if (given_n && (!cfg->has_num_classes || cfg->num_classes != n)) {
        la_err(NULL, "--merge: --num-classes=%lld differs from the shard reports' num_classes",
               (long long)n);
        free_report(first);
        return 2;
    }
    if (!cfg->has_batch_size)
        adopt_batching(cfg, get(first, "config"));
    free_report(first);
    return 0;
}

// ---- one entry of "files": its sources and its stats -------------------------------

/* A value as the report wrote it: a number, or "nan"/"inf"/"-inf", or the
 * text of an unparsable cell (*text set). */
static struct la_num json_value(const cJSON *v, const char **text)
{
    *text = NULL;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        if (!strcmp(s, "nan") || !strcmp(s, "inf") || !strcmp(s, "-inf"))
            return (struct la_num){ LA_NUM_F64, { .f = s[0] == 'n' ? NAN
                                                      : s[0] == '-' ? -INFINITY : INFINITY } };
        *text = s;
        return (struct la_num){ LA_NUM_I64, { 0 } };
    }
    const struct exact *x = exact_of(v);
    if (x && (x->neg ? x->mag <= (uint64_t)INT64_MAX + 1 : x->mag <= (uint64_t)INT64_MAX))
        return (struct la_num){ LA_NUM_I64, { .i = num_i64(v) } };
    if (x && !x->neg)
        return (struct la_num){ LA_NUM_U64, { .u = x->mag } };
    double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(int64_t)d)
        return (struct la_num){ LA_NUM_I64, { .i = (int64_t)d } };
    if (d >= 0 && d < 18446744073709551616.0 && d == (double)(uint64_t)d)
        return (struct la_num){ LA_NUM_U64, { .u = (uint64_t)d } };
    return (struct la_num){ LA_NUM_F64, { .f = d } };
}

static int verdict_of(struct la_num v, const char *text, const struct la_rule *rule)
{
    if (text)
        return LA_V_UNPARSABLE;
    return v.kind == LA_NUM_F64 ? la_verdict_f64(v.v.f, rule)
         : v.kind == LA_NUM_U64 ? la_verdict_u64(v.v.u, rule) : la_verdict_i64(v.v.i, rule);
}

/* One source from its report fields; shape is the sample's (a source of a
 * dataset) or the file's (a plain entry, whose first axis counts samples
 * unless the file is one sample: an image). */
static int add_source(struct la_file_report *r, const cJSON *o, const cJSON *shape,
                      int file_shape)
{
    uint64_t inner[LA_MAX_DIMS], dims[LA_MAX_DIMS + 1];
    int nd = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, shape) {
        if (nd <= LA_MAX_DIMS)
            dims[nd++] = cJSON_IsNumber(x) ? (uint64_t)x->valuedouble : 0;
    }
    const cJSON *fmt = get(o, "format"), *dt = get(o, "dtype");
    struct la_source_info s = { .path = get(o, "path") && cJSON_IsString(get(o, "path"))
                                        ? get(o, "path")->valuestring : "?",
                                .samples = get_u64(o, "samples"), .inner = inner };
    s.format = cJSON_IsString(fmt) ? la_format_by_name(fmt->valuestring) : LA_FMT_NONE;
    s.dtype = LA_DT_INT64;
    if (cJSON_IsString(dt))
        la_dtype_from_name(dt->valuestring, &s.dtype);
    int skip = file_shape && nd >= 1 && dims[0] == s.samples ? 1 : 0;
    for (int k = skip; k < nd && k - skip < LA_MAX_DIMS; k++)
        inner[s.ndim++] = dims[k];
    /* a YOLO file's lines, a COCO image's annotations: not the samples' shape */
    const cJSON *count = get(o, "count");
    s.count = s.samples;
    for (int k = 0; k < s.ndim; k++)
        s.count *= inner[k];
    if (cJSON_IsNumber(count))
        s.count = get_u64(o, "count");
    return la_dataset_add_source(r, &s);
}

/* The bad samples: bad_sample_list where the report has one, else each bad
 * entry is its own sample (1-D labels). Indices are the dataset's. */
static int rebuild_groups(struct la_stats *t, const cJSON *e, const struct la_dataset *d,
                          uint64_t base_sample, const struct la_rule *rule)
{
    const cJSON *list = get(e, "bad_sample_list"), *g;
    if (!cJSON_IsArray(list)) {
        if (!(t->groups = calloc(t->n_bad ? t->n_bad : 1, sizeof *t->groups)))
            return -1;
        for (size_t i = 0; i < t->n_bad; i++) {
            const struct la_bad *b = &t->bad[i];
            t->groups[i] = (struct la_bad_group){ b->sample, 1, b->index, b->value, b->verdict,
                                                  0, 1, { b->value }, { NULL } };
            if (b->text && !(t->groups[i].texts[0] = strdup(b->text)))
                return -1;
        }
        t->n_groups = t->groups_alloc = t->n_bad;
        return 0;
    }
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (!(t->groups = calloc(n ? n : 1, sizeof *t->groups)))
        return -1;
    cJSON_ArrayForEach(g, list) {
        struct la_bad_group *h = &t->groups[t->n_groups++];
        h->sample = base_sample + get_u64(g, "sample");
        h->count = get_u64(g, "count");
        const struct la_source_info *src = la_dataset_source_of(d, h->sample);
        uint64_t flat = 0;
        const cJSON *a;
        int k = 0;
        cJSON_ArrayForEach(a, get(g, "first_at")) {
            uint64_t dim = src && k < src->ndim ? src->inner[k] : 1;
            flat = flat * dim + num_u64(a);
            k++;
        }
        uint64_t stride = src ? src->count / (src->samples ? src->samples : 1) : 1;
        h->first_index = src ? src->first_index + (h->sample - src->first_sample) * stride + flat
                             : 0;
        cJSON_ArrayForEach(a, get(g, "values")) {
            const char *text;
            if (h->n_values >= LA_GROUP_VALUES)
                break;
            h->values[h->n_values] = json_value(a, &text);
            if (text && !(h->texts[h->n_values] = strdup(text)))
                return -1;
            h->n_values++;
        }
        h->first_value = h->values[0];
        h->first_verdict = verdict_of(h->first_value, h->texts[0], rule);
        h->mixed = h->n_values > 1;
    }
    t->groups_alloc = n;
    return 0;
}

static int rebuild_bad(struct la_stats *t, const cJSON *e, uint64_t base_index,
                       uint64_t base_sample, const struct la_rule *rule)
{
    const cJSON *list = get(e, "bad"), *b;
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (!(t->bad = calloc(n ? n : 1, sizeof *t->bad)))
        return -1;
    cJSON_ArrayForEach(b, list) {
        const char *text;
        struct la_bad *x = &t->bad[t->n_bad];
        x->index = base_index + get_u64(b, "index");
        x->sample = cJSON_IsNull(get(b, "sample")) ? LA_NO_SAMPLE   /* COCO: of no listed image */
                                                    : base_sample + get_u64(b, "sample");
        x->value = json_value(get(b, "value"), &text);
        x->verdict = verdict_of(x->value, text, rule);
        if (text && !(x->text = strdup(text)))
            return -1;
        t->n_bad++;
    }
    t->bad_alloc = n;
    return 0;
}

/* The distinct bad values (bad_values), their counts and first samples, at
 * dataset places. A report without them counts its entries as of values
 * left out. */
static int rebuild_values(struct la_stats *t, const cJSON *e, uint64_t base_index,
                          uint64_t base_sample, const struct la_rule *rule)
{
    const cJSON *v, *f;
    cJSON_ArrayForEach(v, get(e, "bad_values")) {
        const char *text;
        struct la_num value = json_value(get(v, "value"), &text);
        struct la_bad_value *x = la_bad_values_find(&t->values, value, text,
                                                    verdict_of(value, text, rule));
        if (!x)
            return text ? -1 : 0;   /* out of memory: more than kept cannot be */
        x->count = get_u64(v, "count");
        const cJSON *at = get(v, "first_index");
        int k = 0;
        cJSON_ArrayForEach(f, get(v, "first")) {
            uint64_t sample = cJSON_IsNull(f) ? LA_NO_SAMPLE : base_sample + num_u64(f);
            la_bad_value_place(x, base_index + num_u64(cJSON_GetArrayItem(at, k++)), sample);
        }
    }
    return 0;
}

static void rebuild_counts(struct la_stats *t, const cJSON *e, int is_float)
{
    const cJSON *inv = get(e, "invalid");
    t->count = get_u64(e, "count");
    t->n_verdict[LA_V_IGNORED] = get_u64(e, "ignored");
    t->n_verdict[LA_V_BELOW] = get_u64(inv, "below");
    t->n_verdict[LA_V_ABOVE] = get_u64(inv, "above");
    t->n_verdict[LA_V_NON_FINITE] = get_u64(inv, "non_finite");
    t->n_verdict[LA_V_NON_INTEGER] = get_u64(inv, "non_integer");
    t->n_verdict[LA_V_UNPARSABLE] = get_u64(inv, "unparsable");
    uint64_t other = t->n_verdict[LA_V_IGNORED] + la_stats_invalid(t);
    t->n_verdict[LA_V_VALID] = t->count > other ? t->count - other : 0;
    t->bad_total = la_stats_invalid(t);
    t->bad_samples = get_u64(e, "bad_samples");
    t->saw_float = is_float;
    const char *text;
    if (cJSON_IsNumber(get(e, "min")) || cJSON_IsString(get(e, "min"))) {
        t->has_minmax = 1;
        t->min = json_value(get(e, "min"), &text);
        t->max = json_value(get(e, "max"), &text);
    }
    const cJSON *tally = get(e, "tally"), *pair;
    t->hist_beyond = get_u64(tally, "hist_beyond");
    t->ambiguous_headers = get_u64(tally, "ambiguous_headers");
    for (int side = 0; side < 2; side++)
        cJSON_ArrayForEach(pair, get(tally, side ? "outliers_above" : "outliers_below")) {
            uint64_t k = cJSON_IsNumber(cJSON_GetArrayItem(pair, 0))
                         ? (uint64_t)cJSON_GetArrayItem(pair, 0)->valuedouble : LA_OUTLIER_BINS;
            const cJSON *c = cJSON_GetArrayItem(pair, 1);
            if (k < LA_OUTLIER_BINS && cJSON_IsNumber(c))
                (side ? t->outlier_above : t->outlier_below)[k] = num_u64(c);
        }
    cJSON_ArrayForEach(pair, get(tally, "sentinels_above")) {
        const cJSON *v = cJSON_GetArrayItem(pair, 0), *c = cJSON_GetArrayItem(pair, 1);
        for (int k = 0; k < LA_SENTINELS && cJSON_IsNumber(v) && cJSON_IsNumber(c); k++)
            if (v->valuedouble == (double)la_sentinels[k])
                t->sentinel_above[k] = (uint64_t)c->valuedouble;
    }
}

static int rebuild_hist(struct la_stats *t, const cJSON *e)
{
    const cJSON *h = get(e, "histogram"), *c;
    if (!cJSON_IsArray(h) || cJSON_GetArraySize(h) == 0)
        return 0;
    t->hist_len = (uint64_t)cJSON_GetArraySize(h);
    if (!(t->hist = calloc(t->hist_len, sizeof *t->hist)))
        return -1;
    uint64_t i = 0;
    cJSON_ArrayForEach(c, h) {
        t->hist[i] = num_u64(c);
        if (t->hist[i])
            t->hist_hi = i + 1;
        i++;
    }
    return 0;
}

/* Reasons a dataset gives for a file it did not audit that are no error. */
static int skipped_is_error(const char *why)
{
    return strcmp(why, "does not match --glob") != 0 && strcmp(why, "not a regular file") != 0 &&
           strcmp(why, "a link to a folder (not followed)") != 0;
}

static void carry_skipped(struct la_dataset *d, const cJSON *e, uint64_t max_report)
{
    const cJSON *s;
    uint64_t listed = 0;
    cJSON_ArrayForEach(s, get(e, "skipped")) {
        const cJSON *p = get(s, "path"), *w = get(s, "why");
        if (!cJSON_IsString(p) || !cJSON_IsString(w))
            continue;
        la_dataset_note_skipped(d, p->valuestring, w->valuestring, max_report);
        d->unreadable += skipped_is_error(w->valuestring);
        listed++;
    }
    uint64_t total = get_u64(e, "skipped_count");
    d->skipped_total += total > listed ? total - listed : 0;
}

// ---- what the readers found: a WebDataset's missing labels, COCO's categories -----

/* A problem's code by its spelling, or LA_F_COUNT when it is no finding's. */
static enum la_code code_named(const char *name)
{
    enum la_code c = name ? la_finding_code_by_name(name) : LA_F_COUNT;
    return c != LA_F_CLASS_COUNT ? c : LA_F_COUNT;
}

static enum la_code problem_code(const cJSON *code)
{
    return code_named(cJSON_IsString(code) ? code->valuestring : NULL);
}

/* A finding's code when it is one of the readers' (those diagnose.c makes
 * from the values come back by themselves), else LA_F_COUNT. */
static enum la_code reader_finding_code(const cJSON *code)
{
    enum la_code c = cJSON_IsString(code) ? la_finding_code_by_name(code->valuestring)
                                          : LA_F_COUNT;
    return c >= LA_F_HIDDEN_CLASS_FOLDER && c != LA_F_CLASS_COUNT ? c : LA_F_COUNT;
}

static const char *text_of(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The words the text report gives a place, as its reader wrote them
 * (read_yolo.c, read_coco.c), from the place's JSON fields; "" for another. */
static void place_words(const cJSON *b, int problem, char *out, size_t cap)
{
    const cJSON *file = get(b, "file"), *line = get(b, "line"), *where = get(b, "where");
    const cJSON *id = get(b, "id"), *image_id = get(b, "image_id");
    long long ann = cJSON_IsNumber(id) ? (long long)id->valuedouble : 0LL;
    long long img = cJSON_IsNumber(image_id) ? (long long)image_id->valuedouble : 0LL;
    *out = '\0';
    if (cJSON_IsString(where))
        snprintf(out, cap, "%s", where->valuestring);
    else if (cJSON_IsString(file) && cJSON_IsNumber(line))
        snprintf(out, cap, "%s line %llu", file->valuestring, (unsigned long long)get_u64(b, "line"));
    else if (id && image_id && problem)
        snprintf(out, cap, "annotation %llu (id %lld, image_id %lld)",
                 (unsigned long long)get_u64(b, "index"), ann, img);
    else if (id && image_id)
        snprintf(out, cap, "annotation id %lld, image_id %lld", ann, img);
}

/* A problem of a dataset report is at its dataset index, and its source says
 * which file: the text names that file and the problem's place inside it, as
 * the dataset's own run printed it. */
static void in_its_source(const cJSON *e, const cJSON *p, cJSON *local, char *path, size_t cap)
{
    const cJSON *source = get(p, "source"), *sources = get(e, "sources");
    *path = '\0';
    if (!cJSON_IsNumber(source) || !cJSON_IsArray(sources))
        return;
    uint64_t first = 0, k = 0, want = get_u64(p, "source");
    const cJSON *s;
    cJSON_ArrayForEach(s, sources) {
        if (k++ == want) {
            snprintf(path, cap, "%s ", text_of(s, "path"));
            break;
        }
        first += get_u64(s, "count");
    }
    cJSON *index = cJSON_GetObjectItemCaseSensitive(local, "index");
    if (cJSON_IsNumber(index))
        cJSON_SetNumberValue(index, (double)(get_u64(p, "index") - first));
}

/* The problems of a report's format object, as its reader kept them. */
static int rebuild_problems(struct la_notes *n, const cJSON *e, const cJSON *obj)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, get(obj, "problems")) {
        enum la_code code = problem_code(get(p, "code"));
        if (code == LA_F_COUNT)
            continue;
        cJSON *json = cJSON_Duplicate(p, 1);
        if (!json)
            return -1;
        cJSON_DeleteItemFromObjectCaseSensitive(json, "code");
        cJSON_DeleteItemFromObjectCaseSensitive(json, "what");
        uint64_t sample = cJSON_IsNumber(get(p, "sample")) ? get_u64(p, "sample") : LA_NO_SAMPLE;
        char where[LA_NOTE_LEN], path[LA_NOTE_LEN / 2];
        cJSON *local = cJSON_Duplicate(p, 1);
        if (!local) {
            cJSON_Delete(json);
            return -1;
        }
        in_its_source(e, p, local, path, sizeof path);
        size_t at = strlen(path);
        place_words(local, 1, where + at, sizeof where - at);
        memcpy(where, path, at);
        cJSON_Delete(local);
        if (la_notes_problem(n, code, get_u64(p, "index"), sample, where,
                             text_of(p, "what"), json) != 0)
            return -1;
    }
    /* those left out of the list: by their code, as the shard's run counted
     * them (a report without problems_by_code: in the total only) */
    const cJSON *by_code = get(obj, "problems_by_code"), *c;
    if (!cJSON_IsObject(by_code))
        by_code = NULL;
    cJSON_ArrayForEach(c, by_code) {
        enum la_code code = code_named(c->string);
        uint64_t count = num_u64(c);
        uint64_t listed = code != LA_F_COUNT ? la_notes_count(n, code) : 0;
        if (code != LA_F_COUNT && count > listed)
            la_notes_count_more(n, code, count - listed);
    }
    uint64_t total = get_u64(obj, "problems_total");
    if (total > n->problems_total)
        n->problems_total = total;
    return 0;
}

/* The places the reader gave the bad entries (COCO's id and image_id, YOLO's
 * file and line): the fields of each entry that are not the scan's. */
static int rebuild_places(struct la_notes *n, const cJSON *e)
{
    static const char *const scans[] = { "index", "value", "at" };
    const cJSON *b;
    cJSON_ArrayForEach(b, get(e, "bad")) {
        cJSON *json = cJSON_Duplicate(b, 1);
        if (!json)
            return -1;
        for (size_t k = 0; k < sizeof scans / sizeof *scans; k++)
            cJSON_DeleteItemFromObjectCaseSensitive(json, scans[k]);
        uint64_t sample = cJSON_IsNumber(get(b, "sample")) ? get_u64(b, "sample") : LA_NO_SAMPLE;
        int own = cJSON_GetArraySize(json) - !!get(json, "sample") - !!get(json, "source");
        if (own == 0) {   /* the sample and source are the scan's: no place */
            cJSON_Delete(json);
            continue;
        }
        char where[LA_NOTE_LEN];
        place_words(b, 0, where, sizeof where);
        if (la_notes_problem(n, LA_P_AT, get_u64(b, "index"), sample, where, "", json) != 0)
            return -1;
    }
    return 0;
}

/* The readers' findings. The report joined message and hint with "; ": the
 * hint is what follows the first "; " (a reader's message has none). */
static void rebuild_findings(struct la_notes *n, const cJSON *e)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, get(e, "findings")) {
        enum la_code code = reader_finding_code(get(f, "code"));
        if (code == LA_F_COUNT)
            continue;
        const char *message = text_of(f, "message"), *hint = strstr(message, "; ");
        const cJSON *prevents = get(f, "prevents");
        struct la_finding *g = la_notes_finding(
            n, code,
            cJSON_IsString(prevents) ? la_notes_keep(n, prevents->valuestring) : NULL, "%.*s",
            hint ? (int)(hint - message) : (int)strlen(message), message);
        if (hint)
            snprintf(g->hint, sizeof g->hint, "%s", hint + 2);
        la_notes_unfold_message(g);   /* a dataset's: found in several sources */
    }
}

/* The format object of entry e ("wds": {...}), if its sources' reader left one. */
static const char *notes_key(const cJSON *e, const struct la_dataset *d, size_t first_src)
{
    for (size_t i = first_src; i < d->n_src; i++) {
        const char *name = la_format_name(d->src[i].format);
        if (name && cJSON_IsObject(get(e, name)))
            return name;
    }
    return NULL;
}

/* What the entry's readers found, folded as --concat folds a source's. */
static int fold_reader_notes(struct la_file_report *r, const cJSON *e, size_t first_src,
                             const struct la_report_ctx *ctx)
{
    struct la_dataset *d = r->dataset;
    const char *key = d->n_src > first_src ? notes_key(e, d, first_src) : NULL;
    if (!key)
        return 0;
    const cJSON *obj = get(e, key), *fmt = get(e, "format");
    int is_dataset = cJSON_IsString(fmt) && strcmp(fmt->valuestring, "dataset") == 0;
    struct la_notes *n = la_notes_new(ctx->max_report);
    int rc = n && (n->json = cJSON_Duplicate(obj, 1)) ? 0 : -1;
    if (rc == 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(n->json, "problems");
        cJSON_DeleteItemFromObjectCaseSensitive(n->json, "problems_total");
        cJSON_DeleteItemFromObjectCaseSensitive(n->json, "problems_by_code");
        cJSON_DeleteItemFromObjectCaseSensitive(n->json, "problems_truncated");
        const cJSON *classes = get(obj, "class_to_idx");   /* imagefolder: against -n */
        n->has_classes = cJSON_IsObject(classes);
        n->classes = n->has_classes ? (uint64_t)cJSON_GetArraySize(classes) : 0;
        rc = rebuild_problems(n, e, obj) == 0 && rebuild_places(n, e) == 0 ? 0 : -1;
    }
    if (rc == 0) {
        rebuild_findings(n, e);
        rc = la_dataset_fold_notes(r, is_dataset ? NULL : text_of(e, "path"), key, n,
                                   &d->src[first_src], ctx);
    }
    la_notes_free(n);
    return rc;
}

static int fold_entry(struct la_file_report *r, const cJSON *e, const struct la_report_ctx *ctx,
                      const struct la_rule *rule)
{
    struct la_dataset *d = r->dataset;
    uint64_t max_report = ctx->max_report;
    const cJSON *path = get(e, "path"), *error = get(e, "error"), *fmt = get(e, "format");
    const char *name = cJSON_IsString(path) ? path->valuestring : "?";
    if (cJSON_IsString(error)) {
        la_dataset_note_unreadable(d, name, error->valuestring, max_report);
        return 0;
    }
    uint64_t base_index = r->stats.count, base_sample = r->samples, samples = 0;
    size_t first_src = d->n_src;
    if (cJSON_IsString(fmt) && !strcmp(fmt->valuestring, "dataset")) {
        const cJSON *s;
        cJSON_ArrayForEach(s, get(e, "sources")) {
            if (add_source(r, s, get(s, "sample_shape"), 0) != 0)
                return -1;
            r->stats.count += d->src[d->n_src - 1].count;   /* the next one's first_index */
            r->samples += d->src[d->n_src - 1].samples;
        }
        carry_skipped(d, e, max_report);
    } else {
        const cJSON *sample_shape = get(e, "sample_shape");   /* N-D inputs */
        if (add_source(r, e, sample_shape ? sample_shape : get(e, "shape"), !sample_shape) != 0)
            return -1;
    }
    r->stats.count = base_index;
    r->samples = base_sample;
    int is_float = 0;
    for (size_t i = first_src; i < d->n_src; i++) {
        samples += d->src[i].samples;
        is_float |= la_dtype_is_float(d->src[i].dtype);
    }
    struct la_stats t = { .sample_stride = 1 };
    rebuild_counts(&t, e, is_float);
    int rc = rebuild_hist(&t, e) == 0 && rebuild_bad(&t, e, base_index, base_sample, rule) == 0 &&
             rebuild_groups(&t, e, d, base_sample, rule) == 0 &&
             rebuild_values(&t, e, base_index, base_sample, rule) == 0 ? 0 : -1;
    /* An entry's samples are its own: its first bad sample never continues the
     * last one before it, also where it lists none (--max-report=0). */
    if (rc == 0 && t.bad_samples) {
        t.has_last_bad = 1;
        t.first_bad_sample = t.n_groups ? t.groups[0].sample : base_sample;
        t.last_bad_sample = t.n_groups ? t.groups[t.n_groups - 1].sample
                                       : base_sample + (samples ? samples - 1 : 0);
    }
    if (rc == 0)
        la_stats_merge(&r->stats, &t);
    la_stats_free(&t);
    r->samples += samples;
    if (rc == 0)
        rc = fold_reader_notes(r, e, first_src, ctx);
    return rc;
}

// ---- the shards' class count ---------------------------------------------------------

/* A report's class_names (strings, null where a class has none) into cc.
 * @return 0, or -1 out of memory. */
static int take_report_names(struct la_class_count *cc, const cJSON *names)
{
    int n = cJSON_IsArray(names) ? cJSON_GetArraySize(names) : 0;
    if (n <= 0)
        return 0;
    cc->report_names = calloc((size_t)n, sizeof *cc->report_names);
    if (!cc->report_names)
        return -1;
    cc->n_report_names = (size_t)n;
    const cJSON *x;
    size_t i = 0;
    cJSON_ArrayForEach(x, names) {
        if (cJSON_IsString(x) && !(cc->report_names[i] = strdup(x->valuestring)))
            return -1;
        i++;
    }
    return 0;
}

/* The class count a --json report's file entry gives (its class_sources and
 * num_classes_from: what la_class_count_json wrote); NULL where it names
 * none (or out of memory). The names are not carried. */
static struct la_class_count *class_count_of_report(const cJSON *file)
{
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(file, "class_sources");
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(file, "num_classes_from"), *o;
    struct la_class_count *cc = cJSON_IsArray(sources) ? calloc(1, sizeof *cc) : NULL;
    if (!cc)
        return NULL;
    cc->chosen = -1;
    cJSON_ArrayForEach(o, sources) {
        const cJSON *words = cJSON_GetObjectItemCaseSensitive(o, "from");
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "num_classes");
        if (!cJSON_IsString(words) || !cJSON_IsNumber(n) || n->valuedouble < 1)
            continue;
        struct la_class_source *s = la_class_count_add_source(
            cc, la_class_count_rank_of(words->valuestring), (uint64_t)n->valuedouble,
            cJSON_IsString(path) ? path->valuestring : NULL, words->valuestring, "");
        if (s && cJSON_IsString(from) && cc->chosen < 0 && strcmp(s->from, from->valuestring) == 0)
            cc->chosen = (int)(cc->n_src - 1);
    }
    if (take_report_names(cc, cJSON_GetObjectItemCaseSensitive(file, "class_names")) != 0) {
        la_class_count_free(cc);
        return NULL;
    }
    /* a model's embedding (vocab_size, the tokenizer's) counts token ids */
    cc->vocab = cc->chosen >= 0 && cc->src[cc->chosen].rank == 1 &&
                (strstr(cc->src[cc->chosen].from, "vocab_size") ||
                 strstr(cc->src[cc->chosen].from, "tokenizer"));
    return cc;
}

/* The class count of the first shard report that names one (N from a model
 * or the dataset's metadata: its config has no -n), or NULL. */
struct la_class_count *la_merge_class_count(const struct la_config *cfg)
{
    struct la_class_count *cc = NULL;
    for (int i = 0; !cc && i < cfg->nfiles; i++) {
        char err[LA_ERR_LEN];
        cJSON *root = read_report(cfg->files[i], err, sizeof err);
        cc = root ? class_count_of_report(cJSON_GetArrayItem(get(root, "files"), 0)) : NULL;
        free_report(root);
    }
    return cc;
}

void la_merge_reports(const struct la_report_ctx *ctx, struct la_file_report *r)
{
    const struct la_config *cfg = ctx->cfg;
    if (la_dataset_begin(r, cfg->files[0], 0, ctx) != 0)
        return;
    uint64_t max_report = ctx->max_report;
    for (int i = 0; i < cfg->nfiles; i++) {
        char err[LA_ERR_LEN] = "";
        cJSON *root = read_report(cfg->files[i], err, sizeof err);
        if (!root) {
            la_dataset_note_unreadable(r->dataset, cfg->files[i], err, max_report);
            continue;
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, get(root, "files")) {
            const cJSON *split = get(e, "split");
            if (ctx->split && (!cJSON_IsString(split) || strcmp(split->valuestring, ctx->split)))
                continue;       /* another split's shard: its own merged report */
            if (fold_entry(r, e, ctx, &ctx->rule) != 0)
                la_dataset_note_unreadable(r->dataset, cfg->files[i], "out of memory",
                                           max_report);
        }
        free_report(root);
    }
    la_dataset_end(r, ctx);
}
