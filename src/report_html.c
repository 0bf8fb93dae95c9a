/* report_html.c - --html=FILE: the audit as one page a person reads in a
 * browser, in the manner of Great Expectations' Data Docs: the summary, each
 * file's findings with the PyTorch error each prevents and its fix, the class
 * histogram as a bar chart, the batching of the last batch, and for masks
 * the worst images as pictures with their bad pixels marked, so that one sees
 * whether the bad value (VOC's 255) traces object boundaries or fills regions.
 *
 * The page is self-contained: the chart is inline SVG, the pictures are PNGs
 * in data: URIs, the style is inline, there is no script, and its content
 * security policy forbids loading anything. Every string from the input (a
 * path, a column name, a message quoting a cell) is escaped as XML text. The
 * page is built in memory and written atomically, as every output is. */
#include "report.h"

#include <stdlib.h> /* free */
#include <string.h> /* strlen */

#include "atomic_file.h"
#include "dataset.h"
#include "mask_image.h"
#include "msg.h"
#include "utf8.h"

#define CHART_W 720.0         /* the histogram's drawing width, in SVG units */
#define CHART_H 180.0
#define CHART_MAX_CLASSES 4096 /* more classes than this are not drawn one bar each */
#define CHART_MAX_OUTLIERS 16 /* out-of-range values drawn beside the classes */
#define THUMB_MAX 192         /* a thumbnail's longer side, in pixels */
#define THUMB_MIN_SHOWN 128   /* a smaller mask is shown enlarged, pixel for pixel */

static void put_text(FILE *out, const char *s)
{
    la_fputs_escape(s, out, LA_ESC_XML);
}

static const char g_style[] =
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:60em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse}td,th{padding:.2em .6em;border:1px solid #ddd;"
    "text-align:left}.error .sev{color:#b00}.warning .sev{color:#a60}.ok{color:#070}"
    ".fix,.prevents{margin-left:1.5em;font-size:.95em}.prevents{color:#555}"
    "code{background:#f4f4f4;padding:0 .2em}.masks{display:flex;flex-wrap:wrap;gap:1em}"
    "figure{margin:0}.mask img{image-rendering:pixelated;border:1px solid #999}"
    ".mask figcaption{font-size:.85em;max-width:16em;word-break:break-all}"
    ".key span{display:inline-block;width:.9em;height:.9em;border:1px solid #999;"
    "vertical-align:middle;margin:0 .3em 0 .8em}";

// ---- pieces of text -------------------------------------------------------------

static void put_base64(FILE *out, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        char q[4] = { abc[v >> 18 & 63], abc[v >> 12 & 63],
                      i + 1 < n ? abc[v >> 6 & 63] : '=', i + 2 < n ? abc[v & 63] : '=' };
        fwrite(q, 1, 4, out);
    }
}

static void count_severities(const struct la_file_report *r, unsigned *errors, unsigned *warnings)
{
    *errors = *warnings = 0;
    for (size_t i = 0; i < r->n_findings; i++)
        r->findings[i].severity == LA_SEV_ERROR ? ++*errors : ++*warnings;
}

static void put_summary(FILE *out, const struct la_file_report *files, int n,
                        const struct la_summary *sum)
{
    fprintf(out, "<section id=\"summary\"><p class=\"summary\">%d %s, %llu %s, %llu %s "
                 "(%s backend); exit status %d</p>\n<table><tr><th>file</th><th>format</th>"
                 "<th>samples</th><th>errors</th><th>warnings</th></tr>\n",
            sum->files, sum->files == 1 ? "file" : "files", (unsigned long long)sum->errors,
            sum->errors == 1 ? "error" : "errors", (unsigned long long)sum->warnings,
            sum->warnings == 1 ? "warning" : "warnings", sum->backend, sum->exit_status);
    for (int i = 0; i < n; i++) {
        const struct la_file_report *r = &files[i];
        unsigned e, w;
        count_severities(r, &e, &w);
        fprintf(out, "<tr><td><a href=\"#file-%d\">", i + 1);
        put_text(out, r->path);
        if (!r->read_ok)
            fputs("</a></td><td colspan=\"4\" class=\"error\"><span class=\"sev\">not read"
                  "</span></td></tr>\n", out);
        else
            fprintf(out, "</a></td><td>%s</td><td>%llu</td><td>%u</td><td>%u</td></tr>\n",
                    r->dataset ? "dataset" : la_format_name(r->info.format),
                    (unsigned long long)r->samples, e, w);
    }
    fputs("</table></section>\n", out);
}

static void put_layout(FILE *out, const struct la_file_report *r)
{
    fputs("<p class=\"layout\">", out);
    if (r->dataset)
        fprintf(out, "dataset of %zu %s", r->dataset->n_src,
                r->dataset->n_src == 1 ? "file" : "files");
    else
        fputs(la_format_name(r->info.format), out);
    if (r->info.has_column) {
        fputs(", column <code>", out);
        put_text(out, r->info.column);
        fputs("</code>", out);
    }
    fprintf(out, ", %s", r->dataset && r->dataset->mixed_dtype ? "mixed dtypes"
                                                              : la_dtype_info(r->info.dtype)->name);
    if (r->info.ndim >= 2) {
        fputs(", shape (", out);
        for (int k = 0; k < r->info.ndim; k++)
            fprintf(out, "%s%llu", k ? ", " : "", (unsigned long long)r->info.shape[k]);
        fputc(')', out);
    }
    fprintf(out, ", %llu labels, %llu samples", (unsigned long long)r->stats.count,
            (unsigned long long)r->samples);
    if (r->stats.bad_samples)
        fprintf(out, ", %llu of them holding invalid entries",
                (unsigned long long)r->stats.bad_samples);
    fputs("</p>\n", out);
}

static void put_findings(FILE *out, const struct la_file_report *r)
{
    if (r->n_findings == 0) {
        fputs("<p class=\"ok\">ok: no findings</p>\n", out);
        return;
    }
    fputs("<ul class=\"findings\">\n", out);
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct la_finding *f = &r->findings[i];
        const char *sev = la_severity_name(f->severity);
        fprintf(out, "<li class=\"finding %s\" data-code=\"%s\"><span class=\"sev\">%s</span> "
                     "<code>%s</code>: ", sev, la_finding_code_name(f->code), sev,
                la_finding_code_name(f->code));
        put_text(out, f->message);
        if (f->hint[0]) {
            fputs("<div class=\"fix\">fix: ", out);
            put_text(out, f->hint);
            fputs("</div>", out);
        }
        if (f->prevents) {
            fputs("<div class=\"prevents\">prevents: ", out);
            put_text(out, f->prevents);
            fputs("</div>", out);
        }
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

// ---- the histogram --------------------------------------------------------------

/* The out-of-range values worth a bar of their own: those the stats counted
 * exactly (outlier bins), the most frequent first, at most CHART_MAX_OUTLIERS. */
struct outlier {
    long long value;
    uint64_t count;
};

static int by_count(const void *a, const void *b)
{
    const struct outlier *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count ? 1 : -1)
                                : (x->value > y->value) - (x->value < y->value);
}

static int by_value(const void *a, const void *b)
{
    const struct outlier *x = a, *y = b;
    return (x->value > y->value) - (x->value < y->value);
}

/* Into o[2 * LA_OUTLIER_BINS]; @return how many are drawn (the first ones). */
static size_t outliers_of(const struct la_stats *s, struct outlier *o)
{
    size_t n = 0;
    for (int k = 0; k < LA_OUTLIER_BINS; k++) {
        if (s->outlier_below[k])
            o[n++] = (struct outlier){ -1 - k, s->outlier_below[k] };
        if (s->outlier_above[k])
            o[n++] = (struct outlier){ (long long)s->above_base + k, s->outlier_above[k] };
    }
    qsort(o, n, sizeof *o, by_count);
    n = n < CHART_MAX_OUTLIERS ? n : CHART_MAX_OUTLIERS;
    qsort(o, n, sizeof *o, by_value);
    return n;
}

static double bar_height(uint64_t count, uint64_t largest)
{
    double h = largest ? CHART_H * (double)count / (double)largest : 0;
    return count && h < 1 ? 1 : h;               /* a rare class still shows */
}

static void put_bar(FILE *out, const char *cls, double x, double w, uint64_t count,
                    uint64_t largest, const char *what, long long value)
{
    double h = bar_height(count, largest);
    if (count == 0)            /* missing: a red stub below the axis, so it is seen */
        fprintf(out, "<rect class=\"%s missing\" data-class=\"%lld\" x=\"%.2f\" y=\"%.2f\" "
                     "width=\"%.2f\" height=\"6\" fill=\"#d00\"><title>%s %lld: none "
                     "(missing)</title></rect>\n", cls, value, x, CHART_H + 1, w, what, value);
    else
        fprintf(out, "<rect class=\"%s\" data-%s=\"%lld\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                     "height=\"%.2f\" fill=\"%s\"><title>%s %lld: %llu</title></rect>\n",
                cls, strcmp(cls, "bar") == 0 ? "class" : "value", value, x, CHART_H - h, w, h,
                strcmp(cls, "bar") == 0 ? "#3a7" : "#d0d", what, value,
                (unsigned long long)count);
}

static void put_histogram(FILE *out, const struct la_file_report *r)
{
    const struct la_stats *s = &r->stats;
    if (!r->has_hist || r->hist_n == 0)
        return;
    if (r->hist_n > CHART_MAX_CLASSES) {
        fprintf(out, "<p class=\"histogram\">%llu classes: too many to draw one bar each "
                     "(see histogram in --json)</p>\n", (unsigned long long)r->hist_n);
        return;
    }
    struct outlier o[2 * LA_OUTLIER_BINS];
    size_t n_o = outliers_of(s, o);
    uint64_t largest = 0, missing = 0;
    for (uint64_t c = 0; c < r->hist_n; c++) {
        uint64_t k = c < s->hist_len ? s->hist[c] : 0;
        largest = k > largest ? k : largest;
        missing += k == 0;
    }
    for (size_t i = 0; i < n_o; i++)
        largest = o[i].count > largest ? o[i].count : largest;
    double slots = (double)r->hist_n + (n_o ? (double)n_o + 1 : 0), w = CHART_W / slots;
    fprintf(out, "<figure class=\"histogram\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
                 "viewBox=\"0 -4 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">\n"
                 "<line x1=\"0\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>\n",
            CHART_W, CHART_H + 24, CHART_W, CHART_H + 24, CHART_H, CHART_W, CHART_H);
    for (uint64_t c = 0; c < r->hist_n; c++)
        put_bar(out, "bar", (double)c * w, w > 2 ? w * 0.85 : w,
                c < s->hist_len ? s->hist[c] : 0, largest, "class", (long long)c);
    for (size_t i = 0; i < n_o; i++)
        put_bar(out, "out-of-range", ((double)r->hist_n + 1 + (double)i) * w, w > 2 ? w * 0.85 : w,
                o[i].count, largest, "out-of-range value", o[i].value);
    uint64_t step = r->hist_n <= 32 ? 1 : (r->hist_n + 15) / 16;
    for (uint64_t c = 0; c < r->hist_n; c += step)
        fprintf(out, "<text x=\"%.2f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\">%llu"
                     "</text>\n", ((double)c + 0.42) * w, CHART_H + 18, (unsigned long long)c);
    for (size_t i = 0; i < n_o && n_o <= 8; i++)
        fprintf(out, "<text x=\"%.2f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\" "
                     "fill=\"#a0a\">%lld</text>\n", ((double)r->hist_n + 1.42 + (double)i) * w,
                CHART_H + 18, o[i].value);
    fprintf(out, "</svg><figcaption>histogram: %llu classes, %llu missing (red, below the "
                 "axis)%s</figcaption></figure>\n", (unsigned long long)r->hist_n,
            (unsigned long long)missing,
            n_o ? "; out-of-range values in magenta, right of the classes" : "");
}

// ---- the batching -------------------------------------------------------------------

static void put_batching(FILE *out, const struct la_file_report *r)
{
    if (!r->has_batching)
        return;
    const struct la_batching *b = &r->batching;
    char text[1024];
    la_batching_describe(b, text, sizeof text);
    uint64_t bs = b->p.batch_size ? b->p.batch_size : 1;
    double full = b->last_batch >= bs ? CHART_W / 2 : CHART_W / 2 * (double)b->last_batch / (double)bs;
    fprintf(out, "<div class=\"batching\"><h3>batching</h3><figure class=\"last-batch\">"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f 20\" "
                 "width=\"%.0f\" height=\"20\" role=\"img\"><rect x=\"0\" y=\"0\" width=\"%.0f\" "
                 "height=\"20\" fill=\"#eee\" stroke=\"#888\"/><rect class=\"last-batch-fill\" "
                 "x=\"0\" y=\"0\" width=\"%.2f\" height=\"20\" fill=\"%s\"/></svg><figcaption>"
                 "last batch: %llu of %llu samples per rank, %llu %s per rank</figcaption>"
                 "</figure>\n<p>", CHART_W / 2, CHART_W / 2, CHART_W / 2, full,
            b->tiny_last_batch || b->no_batches ? "#d00" : "#3a7",
            (unsigned long long)b->last_batch, (unsigned long long)b->p.batch_size,
            (unsigned long long)b->batches_per_rank, b->batches_per_rank == 1 ? "batch" : "batches");
    put_text(out, text);
    fputs("</p></div>\n", out);
}

// ---- the worst masks -------------------------------------------------------------------

static void put_mask(FILE *out, const struct la_mask_pick *p, const struct la_config *cfg)
{
    char err[LA_ERR_LEN];
    struct la_mask_image img, thumb = { 0 };
    unsigned char *png = NULL;
    size_t len = 0;
    int loaded = la_mask_load(p, cfg, &img, err, sizeof err) == 0;
    if (loaded && la_mask_thumbnail(&img, THUMB_MAX, &thumb) != 0)
        snprintf(err, sizeof err, "out of memory");
    else if (loaded)
        png = la_mask_png(&thumb, &len, err, sizeof err);
    fputs("<figure class=\"mask\" data-path=\"", out);
    put_text(out, p->path);
    fprintf(out, "\" data-bad=\"%llu\">", (unsigned long long)p->bad);
    if (png) {
        uint32_t longer = thumb.width > thumb.height ? thumb.width : thumb.height;
        uint32_t k = longer < THUMB_MIN_SHOWN ? (THUMB_MIN_SHOWN + longer - 1) / longer : 1;
        fprintf(out, "<img class=\"thumbnail\" width=\"%u\" height=\"%u\" alt=\"mask with bad "
                     "pixels in magenta\" src=\"data:image/png;base64,", thumb.width * k,
                thumb.height * k);
        put_base64(out, png, len);
        fputs("\">", out);
    }
    fputs("<figcaption>", out);
    put_text(out, p->path);
    if (p->in_file)
        fprintf(out, ", sample %llu", (unsigned long long)p->sample);
    fprintf(out, ": %llu bad %s", (unsigned long long)p->bad, p->bad == 1 ? "value" : "values");
    if (loaded)
        fprintf(out, " (%u x %u", img.width, img.height);
    if (loaded && img.planes > 1)
        fprintf(out, "; plane %llu of %llu shown, the one with the most: %llu",
                (unsigned long long)img.plane, (unsigned long long)img.planes,
                (unsigned long long)img.bad);
    if (loaded)
        fputc(')', out);
    if (!png) {
        fputs("; not drawn: ", out);
        put_text(out, err);
    }
    fputs("</figcaption></figure>\n", out);
    free(png);
    la_mask_image_free(&thumb);
    if (loaded)
        la_mask_image_free(&img);
}

static void put_masks(FILE *out, const struct la_file_report *r, const struct la_config *cfg)
{
    struct la_mask_pick *picks;
    long n = la_mask_worst(r, cfg, &picks);
    int ndim = r->info.ndim - (r->info.one_sample ? 0 : 1);
    if (strcmp(r->path, "-") == 0 && ndim >= 2 && r->stats.bad_samples)
        fputs("<p class=\"masks\">the worst masks: not drawn (standard input is read once)"
              "</p>\n", out);
    if (n < 0)
        fputs("<p class=\"masks\">the worst masks: not drawn (out of memory)</p>\n", out);
    if (n > 0) {
        fprintf(out, "<div class=\"worst-masks\"><h3>the %ld worst %s</h3><p class=\"key\">"
                     "<span style=\"background:#f0f\"></span>bad pixel<span "
                     "style=\"background:#fff\"></span>ignored (--ignore-index)<span "
                     "style=\"background:#606060\"></span>class 253 or above; the other "
                     "colours are the classes (PASCAL VOC's colour map), 0 black</p>"
                     "<div class=\"masks\">\n", n, n == 1 ? "mask" : "masks");
        for (long i = 0; i < n; i++)
            put_mask(out, &picks[i], cfg);
        fputs("</div></div>\n", out);
    }
    free(picks);
}

static void put_file(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                     int index)
{
    fprintf(out, "<section class=\"file\" id=\"file-%d\"><h2>", index + 1);
    put_text(out, r->path);
    fputs("</h2>\n", out);
    if (!r->read_ok) {
        fputs("<p class=\"error\"><span class=\"sev\">not read</span>: ", out);
        put_text(out, r->error);
        fputs("</p></section>\n", out);
        return;
    }
    put_layout(out, r);
    put_findings(out, r);
    put_histogram(out, r);
    put_batching(out, r);
    put_masks(out, r, cfg);
    fputs("</section>\n", out);
}

int la_report_html(const struct la_file_report *files, int n, const struct la_config *cfg,
                   const struct la_summary *sum)
{
    char *doc = NULL, err[LA_ERR_LEN];
    size_t len = 0;
    FILE *out = open_memstream(&doc, &len);
    if (!out) {
        la_err(cfg->html, "out of memory");
        return -1;
    }
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                 "img-src data:; style-src 'unsafe-inline'\">\n<title>labelaudit report</title>"
                 "\n<style>%s</style></head><body>\n<h1>labelaudit report</h1>\n", g_style);
    put_summary(out, files, n, sum);
    for (int i = 0; i < n; i++)
        put_file(out, &files[i], cfg, i);
    fputs("</body></html>\n", out);
    int rc = -1;
    if (fclose(out) != 0)
        la_err(cfg->html, "out of memory");
    else if ((rc = la_atomic_write(cfg->html, doc, len, err, sizeof err)) != 0)
        la_err(cfg->html, "%s", err);
    free(doc);
    return rc;
}
