/* diagnose.c - from a file's scan stats and batching numbers to its findings.
 *
 * The only place that decides what is an error, what is a warning and what
 * the fix is; the text and JSON reports just print what it leaves. */
#include "diagnose.h"

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf */
#include <string.h> /* strcmp */

#include "file_report.h" /* la_dataset_unreadable */
#include "formats.h" /* la_format_has */
#include "class_count.h" /* la_class_count_folders, la_class_count_name */

/* Ultralytics checks each label file when it caches the dataset
 * (verify_image_label) and leaves out the image whose file fails: no error,
 * one line in the cache log, and every box of that image is lost. */
#define PREVENTS_YOLO_CLASS "nothing raises: Ultralytics drops the image (\"ignoring corrupt " \
                            "image/label: Label class K exceeds dataset class count N\"), " \
                            "so its labels never train"

/* A finding of code with its row's severity, prevents and fix, and the
 * message from fmt: this file's diagnoses find one a code at most, so the
 * report has room (a full one, which cannot happen, gets a scratch finding). */
static struct la_finding *add(struct la_file_report *r, enum la_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static struct la_finding *add(struct la_file_report *r, enum la_code code, const char *fmt, ...)
{
    static struct la_finding dropped;   /* written to, never read */
    va_list ap;
    va_start(ap, fmt);
    struct la_finding *f = la_report_vadd_finding(r, code, fmt, ap);
    va_end(ap);
    return f ? f : &dropped;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static int is_class_loss(const struct la_report_ctx *ctx) { return ctx->cfg->loss != LA_LOSS_BCE; }

/* Token ids against a vocabulary: --vocab-size, or a format that stores
 * tokens (megatron): no per-class findings (a histogram, missing classes,
 * one-based, a dtype the collate keeps) over tens of thousands of ids. */
static int over_vocabulary(const struct la_file_report *r, const struct la_report_ctx *ctx)
{
    return ctx->has_vocab_size || r->vocabulary != LA_VOCAB_NONE;
}

/* The N the histogram covers: --num-classes, or max+1 of the valid labels. */
static void decide_histogram(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    const struct la_stats *s = &r->stats;
    r->has_hist = 0;
    r->hist_skipped = 0;
    if (!is_class_loss(ctx) || (over_vocabulary(r, ctx) && !ctx->cfg->histogram))
        return;
    if (!s->hist) {
        /* audit.c allocates no histogram above the cap: say that the classes
         * went unchecked rather than report none missing */
        r->hist_skipped = ctx->has_num_classes && (uint64_t)ctx->num_classes > LA_HIST_MAX;
        return;
    }
    if (ctx->has_num_classes) {
        r->has_hist = (uint64_t)ctx->num_classes <= LA_HIST_MAX;
        r->hist_n = (uint64_t)ctx->num_classes;
    } else if (s->hist_beyond == 0 && s->n_verdict[LA_V_VALID] > 0) {
        r->has_hist = 1;
        r->hist_n = s->hist_hi;
    }
}

static const char *prevents_range(const struct la_report_ctx *ctx)
{
    return is_class_loss(ctx) ? PREVENTS_NLL : PREVENTS_BCE;
}

static int one_based(const struct la_file_report *r, const struct la_report_ctx *ctx);
static int64_t num_as_int(struct la_num v, int *ok);
static int stray_zeros(const struct la_file_report *r, uint64_t classes);
static void fix_stray_zeros(const struct la_file_report *r, char *buf, size_t len);

/* Ids that rightly start at 1 (the format table says which: COCO's), where
 * N = max + 1 and subtracting 1 would be wrong. */
static int ids_start_by_convention(const struct la_file_report *r)
{
    if (!r->dataset)
        return la_format_has(r->info.format, LA_FMTF_IDS_FROM_ONE);
    for (size_t i = 0; i < r->dataset->n_src; i++)    /* a dataset: when all its sources' do */
        if (!la_format_has(r->dataset->src[i].format, LA_FMTF_IDS_FROM_ONE))
            return 0;
    return r->dataset->n_src > 0;
}

/* The first class a dataset's labels can name: 1 for COCO, whose class 0 is
 * torchvision's background (no annotation names it: never a missing class,
 * never a remap's target), else 0. */
static uint64_t first_class(const struct la_file_report *r)
{
    return ids_start_by_convention(r) ? 1 : 0;
}

/* COCO ids up to N itself: torchvision's num_classes counts the background
 * as well, so -n is one short (the usual mistake: the number of categories). */
static void hint_background_class(struct la_file_report *r, const struct la_report_ctx *ctx,
                                  struct la_finding *f)
{
    int ok;
    int64_t top = num_as_int(r->stats.max, &ok);
    if (!ok || r->stats.outlier_above[0] == 0 || top < ctx->num_classes)
        return;
    snprintf(f->hint, sizeof f->hint,
             "torchvision's detection models count the background (class 0) in num_classes: "
             "with category ids 1..%lld, num_classes is %lld (pass -n %lld), unless the ids "
             "past %lld are strays", (long long)top, (long long)top + 1, (long long)top + 1,
             (long long)ctx->num_classes - 1);
}

/* Labels exported 1..N with a few strays: N itself is as common as a class. */
static void hint_shifted_labels(struct la_file_report *r, const struct la_report_ctx *ctx,
                                struct la_finding *f)
{
    const struct la_stats *s = &r->stats;
    uint64_t at_n = s->outlier_above[0], out = s->n_verdict[LA_V_BELOW] + s->n_verdict[LA_V_ABOVE];
    if (ids_start_by_convention(r)) {
        hint_background_class(r, ctx, f);
        return;
    }
    if (one_based(r, ctx) || at_n * 2 <= out ||
        at_n * (uint64_t)ctx->num_classes * 2 < s->count)
        return;
    char zeros[300] = "";
    if (stray_zeros(r, (uint64_t)ctx->num_classes))
        fix_stray_zeros(r, zeros, sizeof zeros);
    snprintf(f->hint, sizeof f->hint,
             "%llu of them equal %lld = N, as often as a class: if the labels run 1..N, "
             "subtract 1, then look at the rest%s", (unsigned long long)at_n,
             (long long)ctx->num_classes, zeros);
}

/* --vocab-size: ids against the embedding's rows (or, in labels, the
 * logits': cross_entropy over the vocabulary). */
static void diagnose_out_of_vocab(struct la_file_report *r, const struct la_report_ctx *ctx,
                                  uint64_t below, uint64_t above)
{
    uint64_t n = below + above;
    const char *what = r->token_ids ? "token id" : "label";
    char whats[16];
    snprintf(whats, sizeof whats, "%ss", what);
    struct la_finding *f = add(r, LA_F_OUT_OF_RANGE,
        "%llu %s outside the vocabulary [0, %lld) (%llu below 0, %llu at or above %lld)",
        (unsigned long long)n, plural(n, what, whats), (long long)ctx->vocab_size,
        (unsigned long long)below, (unsigned long long)above, (long long)ctx->vocab_size);
    f->prevents = r->token_ids ? PREVENTS_EMBEDDING : PREVENTS_NLL;
    if (above)
        snprintf(f->hint, sizeof f->hint, "ids past the model's vocab_size: tokenized with a "
                 "larger tokenizer, or added tokens without rows "
                 "(model.resize_token_embeddings(len(tokenizer)))");
}

/* The integers a dtype holds, [lo, hi]; 0 for floats and bool (no such cut). */
static int dtype_span(int dtype, int64_t *lo, uint64_t *hi)
{
    switch (dtype) {
    case LA_DT_INT8:   *lo = INT8_MIN; *hi = INT8_MAX; return 1;
    case LA_DT_UINT8:  *lo = 0; *hi = UINT8_MAX; return 1;
    case LA_DT_INT16:  *lo = INT16_MIN; *hi = INT16_MAX; return 1;
    case LA_DT_UINT16: *lo = 0; *hi = UINT16_MAX; return 1;
    case LA_DT_INT32:  *lo = INT32_MIN; *hi = INT32_MAX; return 1;
    case LA_DT_UINT32: *lo = 0; *hi = UINT32_MAX; return 1;
    default:           return 0;
    }
}

/* The vocabulary (or N) has more ids than the stored dtype can hold: the ids
 * past it were cut when the data was written (a uint16 cast of a 128k
 * vocabulary wraps ids 65536 and up onto others), which no range check sees. */
static void diagnose_dtype_width(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    int64_t lo;
    uint64_t hi;
    if (!is_class_loss(ctx) || !ctx->has_num_classes || !dtype_span(r->info.dtype, &lo, &hi) ||
        (uint64_t)ctx->num_classes <= hi + 1)
        return;
    const char *name = la_dtype_info(r->info.dtype)->name;
    struct la_finding *f = add(r, LA_F_DTYPE_TOO_NARROW,
        "%s holds ids up to %llu, but %s %lld %s: ids at or above %llu were cut when the data "
        "was written", name, (unsigned long long)hi,
        ctx->has_vocab_size ? "the vocabulary has" : "-n says", (long long)ctx->num_classes,
        ctx->has_vocab_size ? "ids" : "classes", (unsigned long long)hi + 1);
    f->prevents = ctx->has_vocab_size ? PREVENTS_EMBEDDING : PREVENTS_NLL;
    snprintf(f->hint, sizeof f->hint, "tokenize again and store the ids as %s (nanoGPT's "
             "prepare.py: np.uint32 in place of np.uint16; Megatron's preprocess_data.py picks "
             "int32 past 65500 ids)", lo < 0 ? "int32" : "uint32");
}

/* Samples of several targets, each one the ignore index: the first few are
 * named in the message; the JSON's all_ignored lists up to --max-report. */
static void diagnose_all_ignored(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    const struct la_ignored_samples *t = &r->ignored_samples;
    if (!t->count)
        return;
    char list[160] = "";
    size_t len = 0;
    for (size_t i = 0; i < t->n_list && i < 8 && len + 24 < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%llu", i ? ", " : "",
                                (unsigned long long)t->list[i]);
    const char *unit = r->seq_len ? "block" : "sample";
    add(r, LA_F_ALL_IGNORED, "%llu %s%s of %llu hold%s only the ignore index %lld: no target "
        "to train on (%s%s%s)", (unsigned long long)t->count, unit, t->count == 1 ? "" : "s",
        (unsigned long long)r->samples, t->count == 1 ? "s" : "", (long long)t->ignore,
        t->count == 1 ? unit : "first: ", t->count == 1 ? " " : "", list);
    (void)ctx;
}

static void diagnose_out_of_range(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    const struct la_stats *s = &r->stats;
    uint64_t below = s->n_verdict[LA_V_BELOW], above = s->n_verdict[LA_V_ABOVE];
    uint64_t n = below + above;
    if (n == 0)
        return;
    if (!is_class_loss(ctx)) {
        add(r, LA_F_OUT_OF_RANGE, "%llu %s outside [0, 1] (%llu below 0, %llu above 1)",
            (unsigned long long)n, plural(n, "target", "targets"), (unsigned long long)below,
            (unsigned long long)above)->prevents = PREVENTS_BCE;
        return;
    }
    if (ctx->has_vocab_size) {
        diagnose_out_of_vocab(r, ctx, below, above);
        return;
    }
    if (ctx->has_num_classes) {
        struct la_finding *f = add(r, LA_F_OUT_OF_RANGE,
            "%llu %s outside [0, %lld) (%llu below 0, %llu at or above %lld)",
            (unsigned long long)n, plural(n, "label", "labels"), (long long)ctx->num_classes,
            (unsigned long long)below, (unsigned long long)above, (long long)ctx->num_classes);
        hint_shifted_labels(r, ctx, f);
        if (r->info.format == LA_FMT_YOLO)   /* no loss sees them: the image is left out */
            f->prevents = PREVENTS_YOLO_CLASS;
    } else if (above)     /* a dataset of no N whose sources had their own (a ClassLabel each) */
        add(r, LA_F_OUT_OF_RANGE, "%llu %s out of range (%llu below 0, %llu at or above "
            "their own file's class count)", (unsigned long long)n, plural(n, "label", "labels"),
            (unsigned long long)below, (unsigned long long)above);
    else if (r->vocabulary == LA_VOCAB_IDS)  /* no --vocab-size: a negative id is past any */
        add(r, LA_F_OUT_OF_RANGE, "%llu negative %s", (unsigned long long)n,
            plural(n, "token id", "token ids"))->prevents = PREVENTS_EMBEDDING;
    else
        add(r, LA_F_OUT_OF_RANGE, "%llu negative %s",
            (unsigned long long)n, plural(n, "label", "labels"));
}

/* The error of float class targets, by the dtype the labels reach the loss
 * in (checked with Debian's PyTorch 1.13: "found Double" for float64; PyTorch
 * 2's wording as int-labels-dtype gives it). Text read as numbers, a float
 * column of an integer file, is float64 as pandas and np.loadtxt make it. */
static const char *float_dtype_error(int dtype)
{
    switch (dtype) {
    case LA_DT_FLOAT16: return PREVENTS_INT_DTYPE("Half");
    case LA_DT_FLOAT32: return PREVENTS_INT_DTYPE("Float");
    default:            return PREVENTS_INT_DTYPE("Double");
    }
}

static void diagnose_values(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    const struct la_stats *s = &r->stats;
    uint64_t n;
    if ((n = s->n_verdict[LA_V_UNPARSABLE]))
        add(r, LA_F_UNPARSABLE, "%llu %s not a number",
            (unsigned long long)n, plural(n, "cell is", "cells are"));
    if ((n = s->n_verdict[LA_V_NON_FINITE]))
        add(r, LA_F_NON_FINITE, "%llu %s NaN or infinite", (unsigned long long)n,
            plural(n, "label is", "labels are"))->prevents = prevents_range(ctx);
    if ((n = s->n_verdict[LA_V_NON_INTEGER]))
        add(r, LA_F_NON_INTEGER,
            "%llu %s a fractional part (class targets must be integers)",
            (unsigned long long)n, plural(n, "label has", "labels have"))->prevents =
            float_dtype_error(r->info.dtype);
    diagnose_out_of_range(r, ctx);
}

static int64_t num_as_int(struct la_num v, int *ok)
{
    *ok = 1;
    if (v.kind == LA_NUM_I64)
        return v.v.i;
    if (v.kind == LA_NUM_U64 && v.v.u <= (uint64_t)INT64_MAX)
        return (int64_t)v.v.u;
    if (v.kind == LA_NUM_F64 && v.v.f >= -LA_TWO_63 && v.v.f < LA_TWO_63 &&
        (double)(int64_t)v.v.f == v.v.f)
        return (int64_t)v.v.f;
    *ok = 0;
    return 0;
}

/* Integer labels that run from 1. With -n: up to N itself, the one class id
 * out of range. Without it: up to any max of 2 or more, and class 0 never
 * occurs (min == 1 covers every finite label read), so the N that max + 1
 * would suggest is one too many and the suggestion would hide the shift. A
 * single value (all labels 1) says nothing about where counting starts. */
static int one_based(const struct la_file_report *r, const struct la_report_ctx *ctx)
{
    int ok_min, ok_max;
    if (!is_class_loss(ctx) || !r->stats.has_minmax || ids_start_by_convention(r))
        return 0;
    int64_t lo = num_as_int(r->stats.min, &ok_min), hi = num_as_int(r->stats.max, &ok_max);
    if (!ok_min || !ok_max || hi < 2)
        return 0;
    /* a few 0s among labels 1..N are strays, not a class */
    if (lo == 0 && !(r->stats.hist && r->stats.hist_len > 1 && r->stats.hist[1] &&
                     stray_zeros(r, (uint64_t)hi)))
        return 0;
    if (lo != 0 && lo != 1)
        return 0;
    return ctx->has_num_classes ? hi == ctx->num_classes : 1;
}

/* A few valid labels 0 (their places known) among `classes` classes: under
 * a tenth of an average class's share. Where the rest look 1-based, they are
 * the odd ones out: "subtract 1" turns them into -1, which cross_entropy
 * rejects, so the report names them. */
static int stray_zeros(const struct la_file_report *r, uint64_t classes)
{
    const struct la_stats *s = &r->stats;
    uint64_t valid = s->n_verdict[LA_V_VALID];
    return s->hist && s->hist_len && s->hist[0] && s->n_zero_first && classes >= 2 &&
           s->hist[0] * classes * 10 <= valid;
}

/* "the 2 stray 0s at rows 12, 80", "the stray 0 at row 42". */
static void say_stray_zeros(const struct la_file_report *r, char *buf, size_t len)
{
    const struct la_stats *s = &r->stats;
    int rows = la_format_has(r->info.format, LA_FMTF_TEXT) && !r->dataset, one = s->hist[0] == 1;
    char at[96] = "";
    size_t used = 0;
    for (int k = 0; k < s->n_zero_first && used < sizeof at; k++)
        used += (size_t)snprintf(at + used, sizeof at - used, "%s%llu", k ? ", " : "",
                                 (unsigned long long)s->zero_first[k]);
    char count[32] = "";
    if (!one)
        snprintf(count, sizeof count, "%llu ", (unsigned long long)s->hist[0]);
    snprintf(buf, len, "the %sstray %s at %s %s%s", count, one ? "0" : "0s",
             one ? (rows ? "row" : "index") : (rows ? "rows" : "indices"), at,
             s->hist[0] > (uint64_t)s->n_zero_first ? ", ..." : "");
}

/* What "subtract 1" does to them, for a fix. */
static void fix_stray_zeros(const struct la_file_report *r, char *buf, size_t len)
{
    char which[160];
    say_stray_zeros(r, which, sizeof which);
    snprintf(buf, len, "; first fix or drop %s: subtracting 1 makes %s -1, which cross_entropy "
             "rejects", which, r->stats.hist[0] == 1 ? "it" : "them");
}

/* The N of 1-based labels once shifted: -n, or else their max. */
static int64_t one_based_n(const struct la_file_report *r, const struct la_report_ctx *ctx)
{
    int ok;
    return ctx->has_num_classes ? ctx->num_classes : num_as_int(r->stats.max, &ok);
}

static void diagnose_one_based(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    int64_t n = one_based_n(r, ctx);
    int zeros = r->stats.hist && r->stats.hist_len && r->stats.hist[0];
    char strays[200] = "", which[160];
    if (zeros) {
        say_stray_zeros(r, which, sizeof which);
        snprintf(strays, sizeof strays, " but for %s", which);
    }
    struct la_finding *f = add(r, LA_F_ONE_BASED,
                               "labels run from 1 to %lld%s: they look 1-based", (long long)n,
                               zeros ? strays
                               : ctx->has_num_classes ? "" : " and class 0 never occurs");
    /* without -n, say which N goes with the shifted labels: max + 1 would not */
    char then_n[96] = "";
    if (!ctx->has_num_classes)
        snprintf(then_n, sizeof then_n, ", then -n %lld (not %lld)", (long long)n,
                 (long long)n + 1);
    snprintf(f->hint, sizeof f->hint, "labels look 1-based: subtract 1%s", then_n);
    if (la_format_has(r->info.format, LA_FMTF_ONE_BASED_ORIGIN))
        snprintf(f->hint, sizeof f->hint, "MATLAB counts from 1: use y - 1%s%s", then_n,
                 n == 10 ? "; if they are digits, as in SVHN, 10 may mean 0: "
                           "then use y % 10" : "");
    if (zeros) {
        size_t used = strlen(f->hint);
        fix_stray_zeros(r, f->hint + used, sizeof f->hint - used);
    }
}

/* Values that datasets use to mean "no label". */
static int looks_like_ignore_value(int64_t v)
{
    return v < 0 || v == 127 || v == 255 || v == 32767 || v == 65535;
}

/* The out-of-range value holding more than half of all out-of-range entries. */
static int dominant_outlier(const struct la_stats *s, int64_t *value, uint64_t *count)
{
    uint64_t total = s->n_verdict[LA_V_BELOW] + s->n_verdict[LA_V_ABOVE], best = 0;
    for (int k = 0; k < LA_OUTLIER_BINS; k++) {
        if (s->outlier_below[k] > best)
            best = s->outlier_below[k], *value = -1 - k;
        if (s->outlier_above[k] > best)
            best = s->outlier_above[k], *value = s->above_base + k;
    }
    for (int k = 0; k < LA_SENTINELS; k++)   /* 65535 far above N (uint16 tokens) */
        if (s->sentinel_above[k] > best)
            best = s->sentinel_above[k], *value = la_sentinels[k];
    *count = best;
    return total > 0 && best * 2 > total;
}

/* For the integer dtypes that DataLoader's default collate keeps (a tensor of
 * the same dtype) and cross_entropy/nll_loss refuse, the error they give
 * (checked with PyTorch 2.15); NULL for the others. int64 is what the losses
 * want. uint8 is left out, as the SPEC does: nll_loss takes Byte class targets
 * of one dimension, and uint8 is how segmentation masks are stored (PNG), which
 * their pipelines turn into int64 (.long()); a warning on every mask dataset
 * would teach users to ignore it. */
static const char *int_dtype_kept_by_collate(int dtype)
{
    switch (dtype) {
    case LA_DT_BOOL:   return PREVENTS_INT_DTYPE("Bool");
    case LA_DT_INT8:   return PREVENTS_INT_DTYPE("Char");
    case LA_DT_INT16:  return PREVENTS_INT_DTYPE("Short");
    case LA_DT_UINT16: return PREVENTS_INT_DTYPE("UInt16");
    case LA_DT_INT32:  return PREVENTS_INT_DTYPE("Int");
    case LA_DT_UINT32: return PREVENTS_INT_DTYPE("UInt32");
    case LA_DT_UINT64: return PREVENTS_INT_DTYPE("UInt64");
    default:           return NULL;
    }
}

/* Whether the labels reach the loss in the dtype the file stores: np.load,
 * np.fromfile, safetensors, torch.load, h5py, scipy.io and pyarrow hand over
 * arrays of that dtype, and PyTorch 2's cross_entropy raises on the narrow
 * ones (tests/data/int-dtype/verdicts.txt), so int-labels-dtype is an error
 * there. Masks and volumes (PNG, TIFF, NIfTI) go through a pipeline that
 * converts them, and text is parsed to int64: a warning at most. A dataset
 * goes by its first source. */
static int labels_reach_loss_as_stored(const struct la_file_report *r)
{
    enum la_format fmt = r->dataset && r->dataset->n_src ? r->dataset->src[0].format
                                                          : r->info.format;
    switch (fmt) {
    case LA_FMT_NPY: case LA_FMT_NPZ: case LA_FMT_RAW: case LA_FMT_MAT: case LA_FMT_HDF5:
    case LA_FMT_PT: case LA_FMT_SAFETENSORS: case LA_FMT_PARQUET: case LA_FMT_ARROW:
    case LA_FMT_HF_DATASET:
        return 1;
    default:
        return 0;
    }
}

static void diagnose_hints(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    const struct la_stats *s = &r->stats;
    if (!is_class_loss(ctx))
        return;
    if (s->saw_float || la_dtype_is_float(r->info.dtype))
        add(r, LA_F_FLOAT_LABELS,
            "class labels are stored as %s; CrossEntropyLoss wants int64 class indices "
            "(recent PyTorch reads float targets as class probabilities)",
            la_dtype_info(r->info.dtype)->name)->prevents = float_dtype_error(r->info.dtype);
    /* token ids: a stored dtype is the loader's business (nanoGPT casts to
     * int64, Megatron's loader too), and where counting starts says nothing */
    const char *int_dtype_error = over_vocabulary(r, ctx) ? NULL
                                                          : int_dtype_kept_by_collate(r->info.dtype);
    if (int_dtype_error) {
        int stored = labels_reach_loss_as_stored(r);
        struct la_finding *f = add(r, LA_F_INT_LABELS_DTYPE, "class labels are stored as %s; "
            "the default collate keeps that dtype and CrossEntropyLoss wants int64 class "
            "indices%s", la_dtype_info(r->info.dtype)->name,
            stored ? " (PyTorch 2 raises on them as this file is loaded)" : "");
        f->prevents = int_dtype_error;
        if (stored)
            f->severity = LA_SEV_ERROR;
    }
    if (!over_vocabulary(r, ctx) && one_based(r, ctx))
        diagnose_one_based(r, ctx);
    int64_t v = 0;
    uint64_t n = 0;
    /* the ignore index itself is out of range only in ids fed to the embedding;
     * values that are no loss targets (YOLO classes) take no ignore index */
    if (!r->info.no_ignore && dominant_outlier(s, &v, &n) && looks_like_ignore_value(v) &&
        !(ctx->cfg->has_ignore_index && v == ctx->cfg->ignore_index && !r->ignore_off)) {
        uint64_t total = s->n_verdict[LA_V_BELOW] + s->n_verdict[LA_V_ABOVE];
        struct la_finding *f = add(r, LA_F_IGNORE_LIKE_VALUE,
                                   "%llu of the %llu out-of-range %s are %lld",
                                   (unsigned long long)n, (unsigned long long)total,
                                   plural(total, "value", "values"), (long long)v);
        f->has_suggested_ignore = 1;
        f->suggested_ignore = v;
        snprintf(f->hint, sizeof f->hint,
                 "if %lld marks \"no label\", pass --ignore-index %lld "
                 "(and ignore_index=%lld to the loss)", (long long)v, (long long)v, (long long)v);
        int ids = r->token_ids || r->vocabulary == LA_VOCAB_IDS;
        if (ids)            /* an embedding skips no id: a pad sentinel must become one */
            f->prevents = PREVENTS_EMBEDDING;
        if (r->token_ids && ctx->cfg->has_ignore_index && v == ctx->cfg->ignore_index)
            snprintf(f->hint, sizeof f->hint,
                     "%lld is the loss's ignore index, which the embedding does not skip: if "
                     "these are labels (targets), pass --ignore-index %lld; ids fed to the model "
                     "must be real ids (the tokenizer's pad_token_id)", (long long)v, (long long)v);
        else if (ids)
            snprintf(f->hint, sizeof f->hint,
                     "%lld looks like a pad sentinel: the embedding skips no id, so write the "
                     "tokenizer's pad_token_id there (mask it in the labels with -100); "
                     "if this is a labels column, pass --ignore-index %lld",
                     (long long)v, (long long)v);
    }
}

static void diagnose_missing(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    if (!r->has_hist)
        return;
    uint64_t missing = 0, first = 0;
    for (uint64_t c = first_class(r); c < r->hist_n; c++)
        if (r->stats.hist[c] == 0 && missing++ == 0)
            first = c;
    /* the name a model or the metadata gives it, where one does */
    const char *name = ctx->classes ? la_class_count_name(ctx->classes, r->notes, first) : NULL;
    if (missing)
        add(r, LA_F_MISSING_CLASSES,
            "%llu of %llu classes never occur (first: %llu%s%.200s%s)",
            (unsigned long long)missing, (unsigned long long)(r->hist_n - first_class(r)),
            (unsigned long long)first, name ? " \"" : "", name ? name : "", name ? "\"" : "");
}

// ---- segmentation masks: labels that need a remap, not a fix ----------

/* The out-of-range values, ascending, when they are at most max distinct ones
 * and all lie in the outlier bins (so none went uncounted). @return how many, or -1. */
static int few_outliers(const struct la_stats *s, int64_t *values, int max)
{
    uint64_t binned = 0;
    int n = 0;
    for (int k = LA_OUTLIER_BINS - 1; k >= 0; k--)
        if (s->outlier_below[k] && (binned += s->outlier_below[k], n < max))
            values[n++] = -1 - k;
        else if (s->outlier_below[k])
            return -1;
    for (int k = 0; k < LA_OUTLIER_BINS; k++)
        if (s->outlier_above[k] && (binned += s->outlier_above[k], n < max))
            values[n++] = s->above_base + k;
        else if (s->outlier_above[k])
            return -1;
    return binned == s->n_verdict[LA_V_BELOW] + s->n_verdict[LA_V_ABOVE] ? n : -1;
}

/* ADE20K: every value of 0..N occurs, where 0 is "other" and the classes are
 * 1..N; 0 holds at least as many labels as an average class. (With a class
 * missing instead, N is more likely a gap's stray: BraTS's 0, 1, 2, 4.) */
static int zero_means_other(const struct la_file_report *r, const struct la_report_ctx *ctx,
                            const int64_t *out, int n_out)
{
    const struct la_stats *s = &r->stats;
    for (uint64_t c = 0; c < r->hist_n; c++)
        if (s->hist[c] == 0)
            return 0;
    return n_out == 1 && out[0] == ctx->num_classes &&
           s->hist[0] * (uint64_t)ctx->num_classes >= s->n_verdict[LA_V_VALID];
}

/* Cityscapes labelIds (0..33, and 255 for none) audited against its 19
 * trainIds. @return the highest labelId seen above 18, or 0 when it is not that. */
static int64_t cityscapes_label_ids(const struct la_report_ctx *ctx, const int64_t *out, int n_out)
{
    int64_t top = 0;
    for (int i = 0; i < n_out; i++) {
        if (out[i] >= 19 && out[i] <= 33)
            top = out[i];
        else if (out[i] != 255)
            return 0;
    }
    return ctx->num_classes == 19 ? top : 0;
}

/* The most out-of-range values the mask hints look at: Cityscapes' labelIds
 * 19..33 and 255; a gap remap names at most LA_GAP_MAX of them. */
#define LA_FEW_OUTLIERS 16
#define LA_GAP_MAX 8

static void hint_label_gap(struct la_file_report *r, const int64_t *out, int n_out)
{
    uint64_t missing[LA_GAP_MAX];
    int n_missing = 0;
    if (n_out > LA_GAP_MAX)
        return;
    for (uint64_t c = first_class(r); c < r->hist_n && n_missing <= n_out; c++)
        if (r->stats.hist[c] == 0) {
            if (n_missing == n_out)
                return;     /* more classes missing than values to move there */
            missing[n_missing++] = c;
        }
    if (n_missing != n_out)
        return;
    char from[192] = "", to[192] = "", remap[400] = "";   /* 8 values of 20 digits fit */
    size_t fl = 0, tl = 0, rl = 0;
    for (int i = 0; i < n_out; i++) {
        const char *sep = i ? ", " : "";
        fl += (size_t)snprintf(from + fl, sizeof from - fl, "%s%lld", sep, (long long)out[i]);
        tl += (size_t)snprintf(to + tl, sizeof to - tl, "%s%llu", sep,
                               (unsigned long long)missing[i]);
        rl += (size_t)snprintf(remap + rl, sizeof remap - rl, "%s%lld -> %llu", sep,
                               (long long)out[i], (unsigned long long)missing[i]);
    }
    struct la_finding *f = add(r, LA_F_LABEL_GAP,
                               "out of range: %s; never occurring: %s %s: the labels skip "
                               "%s (as BraTS's 0, 1, 2, 4 with -n 4)", from,
                               plural((uint64_t)n_out, "class", "classes"), to,
                               plural((uint64_t)n_out, "a class", "classes"));
    _Static_assert(LA_GAP_MAX <= LA_REMAP_MAX, "the finding holds the remap");
    f->n_remap = n_out;
    for (int i = 0; i < n_out; i++) {
        f->remap_from[i] = out[i];
        f->remap_to[i] = (int64_t)missing[i];
    }
    snprintf(f->hint, sizeof f->hint, "remap %s (e.g. y[y == %lld] = %llu)", remap,
             (long long)out[0], (unsigned long long)missing[0]);
}

/* The dims of one sample: 2 for (S, H, W) masks, a PNG image or a folder of
 * them, 3 for volumes; 0 for one label per sample (text, CSV, YOLO class ids),
 * 1 for (S, C) rows. A dataset counts its flattest source. */
static int sample_dims(const struct la_file_report *r)
{
    const struct la_dataset *d = r->dataset;
    if (!d)
        return r->info.one_sample ? r->info.ndim : r->info.ndim - 1;
    int dims = d->n_src ? d->src[0].ndim : 0;
    for (size_t i = 1; i < d->n_src; i++)
        if (d->src[i].ndim < dims)
            dims = d->src[i].ndim;
    return dims;
}

/* How many labels equal v, an out-of-range value few_outliers() returned. */
static uint64_t outlier_count(const struct la_stats *s, int64_t v)
{
    return v < 0 ? s->outlier_below[-1 - v] : s->outlier_above[v - s->above_base];
}

/* One label per sample (classification, YOLO boxes): a value past N is a gap's
 * class only when each such value is as common as a class (half an average
 * class's share, the test hint_shifted_labels makes); a few strays are typos,
 * and "remap 4 -> 3" would hide them in a class that merely went unsampled.
 * Masks need no such test: a gap class may hold few pixels (BraTS's 4). */
static int outliers_are_classes(const struct la_file_report *r, const struct la_report_ctx *ctx,
                                const int64_t *out, int n_out)
{
    for (int i = 0; i < n_out; i++)
        if (outlier_count(&r->stats, out[i]) * (uint64_t)ctx->num_classes * 2 < r->stats.count)
            return 0;
    return 1;
}

/* How the message names N: "-n " when the command line gave it, "N = "
 * when a model or the metadata did (num_classes_from says which). */
static const char *n_is(const struct la_report_ctx *ctx)
{
    return ctx->num_classes_from ? "N = " : "-n ";
}

/* The dataset-level remaps of masks; they return 1 when they found theirs. */
static int hint_label_ids(struct la_file_report *r, const struct la_report_ctx *ctx,
                          const int64_t *out, int n_out)
{
    int64_t label_id = cityscapes_label_ids(ctx, out, n_out);
    if (!label_id)
        return 0;
    add(r, LA_F_LABELIDS_NOT_TRAINIDS, "values up to %lld with %s19: these look like "
        "Cityscapes labelIds (0..33), not trainIds (0..18)", (long long)label_id, n_is(ctx));
    return 1;
}

static int hint_reduce_zero(struct la_file_report *r, const struct la_report_ctx *ctx,
                            const int64_t *out, int n_out)
{
    if (!zero_means_other(r, ctx, out, n_out))
        return 0;
    add(r, LA_F_REDUCE_ZERO_LABEL, "values run 0..%lld with %s%lld and 0 is frequent (%llu "
        "of %llu labels): 0 looks like \"other\", as in ADE20K", (long long)ctx->num_classes,
        n_is(ctx), (long long)ctx->num_classes, (unsigned long long)r->stats.hist[0],
        (unsigned long long)r->stats.count);
    return 1;
}

static void diagnose_mask_hints(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    int64_t out[LA_FEW_OUTLIERS];
    int n_out = few_outliers(&r->stats, out, LA_FEW_OUTLIERS);
    if (!is_class_loss(ctx) || !ctx->has_num_classes || !r->has_hist || n_out <= 0 ||
        one_based(r, ctx))
        return;
    /* labelIds and reduce_zero_label are how mask datasets are stored: in one label per sample, 0..33 or 0..N mean a wrong -n or bad labels */
    int masks = sample_dims(r) >= 2;
    if (masks && (hint_label_ids(r, ctx, out, n_out) || hint_reduce_zero(r, ctx, out, n_out)))
        return;
    for (int i = 0; i < n_out; i++)
        if (looks_like_ignore_value(out[i]))
            return;     /* a "no label" value is ignore-like-value's business */
    if (masks || outliers_are_classes(r, ctx, out, n_out))
        hint_label_gap(r, out, n_out);
}

static void diagnose_batching(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    r->has_batching = ctx->cfg->has_batch_size;
    if (!r->has_batching)
        return;
    struct la_batch_params p = { ctx->cfg->batch_size, ctx->cfg->drop_last, ctx->cfg->world_size,
                                 ctx->cfg->sampler_drop_last, ctx->cfg->min_batch };
    la_batching_compute(r->samples, &p, &r->batching);
    const struct la_batching *b = &r->batching;
    if (b->no_batches)
        add(r, LA_F_NO_BATCHES,
            "%llu samples per rank, batch %llu: no batches at all; the epoch trains on nothing",
            (unsigned long long)b->samples_per_rank, (unsigned long long)b->p.batch_size);
    else if (b->tiny_last_batch)
        add(r, LA_F_TINY_LAST_BATCH,
            "the last batch %sholds %llu %s (batch %llu, %llu samples%s)",
            b->p.world_size > 1 ? "of each rank " : "", (unsigned long long)b->last_batch,
            plural(b->last_batch, "sample", "samples"), (unsigned long long)b->p.batch_size,
            (unsigned long long)b->samples_per_rank, b->p.world_size > 1 ? " per rank" : "");
}

/* What the imagefolder, coco and yolo readers found (label_notes.h), and
 * ImageFolder's class count against -n. */
static void diagnose_notes(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    const struct la_notes *n = r->notes;
    if (!n)
        return;
    /* against -n only: a number from a model or metadata is class_count.c's */
    if (n->has_classes && ctx->has_num_classes && !ctx->num_classes_from &&
        la_class_count_folders(n) && n->classes != (uint64_t)ctx->num_classes)
        add(r, LA_F_CLASS_COUNT, "%llu class folders, but -n says %lld classes",
            (unsigned long long)n->classes, (long long)ctx->num_classes);
    /* the readers word their findings' prevents and hints themselves */
    for (size_t i = 0; i < n->n_findings && r->n_findings < LA_F_COUNT; i++) {
        const struct la_finding *f = &n->findings[i];
        struct la_finding *g = add(r, f->code, "%s", f->message);
        g->prevents = f->prevents;
        snprintf(g->hint, sizeof g->hint, "%s", f->hint);
        memcpy(g->column, f->column, sizeof g->column);
        g->line = f->line;
        g->severity = f->severity;   /* a reader may soften its code (seq-too-long past rotary) */
    }
}

/* A guessed header of pandas' default names over rows of numbers: a
 * headerless file (np.savetxt of labels sorted by class, its first a 0) reads
 * the same, one sample more. The guess stands; the user decides. */
static void diagnose_header(struct la_file_report *r)
{
    uint64_t n = r->stats.ambiguous_headers;
    unsigned long long samples = r->samples;
    if (!n)
        return;
    if (!r->dataset)
        add(r, LA_F_AMBIGUOUS_HEADER, "the first row \"%s\" was "
                "taken for pandas' default header, but it may as well be data: %llu %s with it "
                "a header, %llu with it a row", r->info.header_ambiguous_row, samples,
                plural(r->samples, "sample", "samples"), samples + 1);
    else
        add(r, LA_F_AMBIGUOUS_HEADER, "in %llu %s the first row (0, "
                "or 0,1,...) was taken for pandas' default header, but it may as well be data: "
                "%llu %s with %s, %llu with %s", (unsigned long long)n,
                plural(n, "file", "files"), samples, plural(r->samples, "sample", "samples"),
                plural(n, "it a header", "them headers"), samples + (unsigned long long)n,
                plural(n, "it a row", "them rows"));
}

void la_diagnose(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    r->n_findings = 0;
    decide_histogram(r, ctx);
    if (r->stats.count == 0) {
        add(r, LA_F_EMPTY, "no labels at all");
    } else {
        diagnose_values(r, ctx);
        diagnose_hints(r, ctx);
        if (!over_vocabulary(r, ctx)) {   /* no per-class findings over a vocabulary */
            diagnose_missing(r, ctx);
            diagnose_mask_hints(r, ctx);
        }
    }
    diagnose_dtype_width(r, ctx);
    diagnose_all_ignored(r, ctx);
    diagnose_header(r);
    diagnose_notes(r, ctx);
    diagnose_batching(r, ctx);
}

int la_report_exit_status(const struct la_file_report *files, int n, const struct la_config *cfg,
                          uint64_t *errors, uint64_t *warnings)
{
    int unreadable = 0;
    *errors = *warnings = 0;
    for (int i = 0; i < n; i++) {
        if (la_dataset_unreadable(files[i].dataset))
            unreadable = 1;         /* a dataset's file could not be read; the others were */
        if (!files[i].read_ok) {
            unreadable = 1;
            (*errors)++;
            continue;
        }
        for (size_t k = 0; k < files[i].n_findings; k++)
            if (files[i].findings[k].severity == LA_SEV_ERROR)
                (*errors)++;
            else if (files[i].findings[k].severity == LA_SEV_WARNING)
                (*warnings)++;      /* a notice is neither */
    }
    if (unreadable)
        return LA_EXIT_UNREADABLE;
    if (cfg->fail_on == LA_FAIL_ERROR && *errors)
        return LA_EXIT_FINDINGS;
    if (cfg->fail_on == LA_FAIL_WARNING && *errors + *warnings)
        return LA_EXIT_FINDINGS;
    return LA_EXIT_CLEAN;
}
