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
#include "context.h"  /* la_config_max_report */
#include "report.h"

#include <math.h>   /* log10, pow, floor */
#include <stdlib.h> /* free */
#include <string.h> /* strlen, strchr */

#include "atomic_file.h"
#include "ci_notes.h"   /* la_ci_entries: a finding's first rows, files, lines */
#include "class_count.h" /* la_class_count_name */
#include "label_notes.h" /* la_notes_print_problems */
#include "dataset.h"
#include "mask_image.h"
#include "msg.h"
#include "utf8.h"

#define CHART_W 1160.0        /* the histogram's drawing width, in SVG units (and px at 1280) */
#define CHART_H 220.0         /* the plot's height */
#define CHART_L 64.0          /* left of the plot: the count axis and its labels */
#define CHART_T 18.0          /* above the plot: the counts printed over the bars */
#define CHART_B 40.0          /* below: the missing classes' stubs and the class labels */
#define CHART_OUTLIER_W 24.0  /* an out-of-range value's slot, at least */
#define CHART_PRINTED 48      /* with at most this many bars, each has its count printed */
#define CHART_LOG_RATIO 20    /* largest / smallest count past which the scale is logarithmic */
#define TABLE_MAX_CLASSES 64  /* a table of the classes, names and counts, up to this many */
#define ENTRY_LINES 10        /* a finding's first entries listed under it */
#define CHART_MAX_CLASSES 4096 /* more classes than this are not drawn one bar each */
#define CHART_MAX_OUTLIERS 16 /* out-of-range values drawn beside the classes */
#define THUMB_MAX 192         /* a thumbnail's longer side, in pixels */
#define THUMB_MIN_SHOWN 128   /* a smaller mask is shown enlarged, pixel for pixel */

static void put_text(FILE *out, const char *s)
{
    la_fputs_escape(s, out, LA_ESC_XML);
}

/* The page fills a window up to 1280 px (the chart scales with it, its
 * viewBox kept); a caption breaks between words, and a long path anywhere. */
static const char g_style[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em 2em;max-width:1400px;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse}td,th{padding:.2em .6em;border:1px solid #ddd;"
    "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".error .sev{color:#b00}.warning .sev{color:#a60}.ok{color:#070}"
    ".fix,.prevents{margin-left:1.5em;font-size:.95em}.prevents{color:#555}"
    "ul.entries{margin:.2em 0 .2em 1.5em;padding-left:1em;font-family:ui-monospace,monospace;"
    "font-size:.9em}ul.entries .more{font-family:system-ui,sans-serif;color:#555}"
    "code{background:#f4f4f4;padding:0 .2em}.masks{display:flex;flex-wrap:wrap;gap:1em}"
    "figure{margin:0}figure.histogram svg{width:100%;height:auto;max-width:1400px}"
    ".mask img{image-rendering:pixelated;border:1px solid #999}"
    ".mask figcaption{font-size:.85em;max-width:16em;overflow-wrap:break-word}"
    ".path{overflow-wrap:anywhere}"
    ".key span{display:inline-block;width:.9em;height:.9em;border:1px solid #999;"
    "vertical-align:middle;margin:0 .3em 0 .8em}table.classes{margin:.5em 0;font-size:.9em}";

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
        if (r->findings[i].severity != LA_SEV_NOTICE)
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

/* Lines of text as the items of a list; "... K more" lines set apart. */
static void put_lines(FILE *out, char *text, const char *skip_indent)
{
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        if ((nl = strchr(line, '\n')))
            *nl = '\0';
        line += strspn(line, skip_indent);
        if (!*line)
            continue;
        fprintf(out, "<li%s>", strncmp(line, "... ", 4) == 0 ? " class=\"more\"" : "");
        put_text(out, line);
        fputs("</li>\n", out);
    }
}

/* A finding's first entries, as the text report lists them: the rows and
 * their lines (CSV), the files and lines (YOLO, a folder), the records
 * (COCO), a mask's file and first bad pixel (ci_notes.h words them), and the
 * reader's own list of what it found (label_notes.h). */
static void put_entries(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                        const struct la_finding *f)
{
    char entries[8192];
    uint64_t first_line, max = la_config_max_report(cfg);
    la_ci_entries(r, cfg, f->code, max < ENTRY_LINES ? max : ENTRY_LINES, "", entries,
                  sizeof entries, &first_line);
    char *problems = NULL;
    size_t len = 0;
    FILE *mem = f->code >= LA_F_HIDDEN_CLASS_FOLDER ? open_memstream(&problems, &len) : NULL;
    if (mem) {   /* found by the reader: its own list, as the text report prints it */
        la_notes_print_problems(mem, r->notes, f->code,
                                max < ENTRY_LINES ? max : ENTRY_LINES);
        fclose(mem);
    }
    if (entries[0] || (problems && problems[0])) {
        fputs("<ul class=\"entries\">\n", out);
        put_lines(out, entries, " ");
        if (problems)
            put_lines(out, problems, " ");
        fputs("</ul>", out);
    }
    free(problems);
}

/* One finding as a list item: its entries where r (a file's report) has them. */
static void put_finding(FILE *out, const struct la_finding *f, const struct la_file_report *r,
                        const struct la_config *cfg)
{
    const char *sev = la_severity_name(f->severity);
    fprintf(out, "<li class=\"finding %s\" data-code=\"%s\"><span class=\"sev\">%s</span> "
                 "<code>%s</code>: ", sev, la_finding_code_name(f->code), sev,
            la_finding_code_name(f->code));
    put_text(out, f->message);
    if (r)
        put_entries(out, r, cfg, f);
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

static void put_findings(FILE *out, const struct la_file_report *r, const struct la_config *cfg)
{
    if (r->n_findings == 0) {
        fputs("<p class=\"ok\">ok: no findings</p>\n", out);
        return;
    }
    fputs("<ul class=\"findings\">\n", out);
    for (size_t i = 0; i < r->n_findings; i++)
        put_finding(out, &r->findings[i], r, cfg);
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

/* How counts map to heights: linear, or logarithmic where the largest count
 * dwarfs the smallest (a minority class, a stray value: a hairline on a
 * linear axis), so that every bar shows and the axis says which it is. */
struct scale {
    int log;
    uint64_t largest;
};

static double bar_height(const struct scale *sc, uint64_t count)
{
    if (count == 0 || sc->largest == 0)
        return 0;
    double h = sc->log ? CHART_H * log10((double)count + 1) / log10((double)sc->largest + 1)
                       : CHART_H * (double)count / (double)sc->largest;
    return h < 3 ? 3 : h;                        /* a rare class still shows */
}

/* A bar's label: the class's name where a source gives one ("3 cat"). */
static void put_bar_title(FILE *out, const struct la_file_report *r, const char *what,
                          long long value, uint64_t count)
{
    const char *name = strcmp(what, "class") == 0 && value >= 0
                           ? la_class_count_name(r->classes, r->notes, (uint64_t)value) : NULL;
    fprintf(out, "<title>%s %lld", what, value);
    if (name) {
        fputs(" (", out);
        put_text(out, name);
        fputc(')', out);
    }
    if (count)
        fprintf(out, ": %llu</title>", (unsigned long long)count);
    else
        fputs(": none (missing)</title>", out);
}

static void put_bar(FILE *out, const struct la_file_report *r, const struct scale *sc,
                    const char *cls, double x, double w, uint64_t count, const char *what,
                    long long value, int printed)
{
    double h = bar_height(sc, count), base = CHART_T + CHART_H;
    int is_class = strcmp(cls, "bar") == 0;
    if (count == 0) {          /* missing: a red stub below the axis, so it is seen */
        fprintf(out, "<rect class=\"%s missing\" data-class=\"%lld\" data-count=\"0\" x=\"%.2f\" "
                     "y=\"%.2f\" width=\"%.2f\" height=\"6\" fill=\"#d00\">", cls, value, x,
                base + 1, w);
        put_bar_title(out, r, what, value, 0);
        fputs("</rect>\n", out);
        return;
    }
    fprintf(out, "<rect class=\"%s\" data-%s=\"%lld\" data-count=\"%llu\" x=\"%.2f\" y=\"%.2f\" "
                 "width=\"%.2f\" height=\"%.2f\" fill=\"%s\">", cls, is_class ? "class" : "value",
            value, (unsigned long long)count, x, base - h, w, h, is_class ? "#3a7" : "#d0d");
    put_bar_title(out, r, what, value, count);
    fputs("</rect>\n", out);
    if (printed)               /* the count over the bar, as people read a chart */
        fprintf(out, "<text class=\"count\" x=\"%.2f\" y=\"%.2f\" font-size=\"11\" "
                     "text-anchor=\"middle\">%llu</text>\n", x + w / 2, base - h - 3,
                (unsigned long long)count);
}

/* 1, 2, 5 times a power of ten: a linear axis's step for about 4 ticks. */
static double nice_step(uint64_t largest)
{
    double raw = (double)largest / 4, p = pow(10, floor(log10(raw > 1 ? raw : 1)));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

/* The count axis: its ticks, their numbers and grid lines. */
static void put_axis(FILE *out, const struct scale *sc)
{
    double base = CHART_T + CHART_H;
    fprintf(out, "<g class=\"axis\"><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
                 "stroke=\"#888\"/>\n", CHART_L - 4, CHART_T, CHART_L - 4, base);
    for (double v = sc->log ? 1 : 0; v <= (double)sc->largest;
         v = sc->log ? v * 10 : v + nice_step(sc->largest)) {
        double y = base - (v == 0 ? 0 : bar_height(sc, (uint64_t)v));
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\" stroke=\"#ddd\"/>"
                     "<text class=\"tick\" x=\"%.0f\" y=\"%.2f\" font-size=\"11\" "
                     "text-anchor=\"end\">%.0f</text>\n", CHART_L - 4, y, CHART_L + CHART_W, y,
                CHART_L - 8, y + 4, v);
    }
    fputs("</g>\n", out);
}

/* Whether the smallest count is so far below the largest that a linear
 * axis would draw it as a hairline. */
static int wants_log(const struct la_file_report *r, const struct outlier *o, size_t n_o,
                     uint64_t largest)
{
    uint64_t smallest = largest;
    for (uint64_t c = 0; c < r->hist_n && c < r->stats.hist_len; c++)
        if (r->stats.hist[c] && r->stats.hist[c] < smallest)
            smallest = r->stats.hist[c];
    for (size_t i = 0; i < n_o; i++)
        smallest = o[i].count < smallest ? o[i].count : smallest;
    return smallest && largest / smallest > CHART_LOG_RATIO;
}

/* The class labels under the bars, as many as fit side by side. */
static void put_class_labels(FILE *out, const struct la_file_report *r, double w)
{
    char widest[32];
    int digits = snprintf(widest, sizeof widest, "%llu", (unsigned long long)(r->hist_n - 1));
    double room = 7.0 * digits + 8;              /* one label's width, 11 px digits */
    uint64_t step = w >= room ? 1 : (uint64_t)ceil(room / w);
    for (uint64_t c = 0; c < r->hist_n; c += step)
        fprintf(out, "<text class=\"label\" x=\"%.2f\" y=\"%.0f\" font-size=\"11\" "
                     "text-anchor=\"middle\">%llu</text>\n", CHART_L + ((double)c + 0.5) * w,
                CHART_T + CHART_H + 22, (unsigned long long)c);
}

/* Up to TABLE_MAX_CLASSES classes: their names (where a source gives them)
 * and counts, as numbers to read rather than bars to estimate. */
static void put_class_table(FILE *out, const struct la_file_report *r)
{
    const struct la_stats *s = &r->stats;
    int named = 0;
    uint64_t rows = 0;        /* past TABLE_MAX_CLASSES: the classes that occur or are named */
    for (uint64_t c = 0; c < r->hist_n; c++) {
        int has_name = la_class_count_name(r->classes, r->notes, c) != NULL;
        named |= has_name;
        rows += has_name || (c < s->hist_len && s->hist[c]);
    }
    int all = r->hist_n <= TABLE_MAX_CLASSES;
    if (!all && rows > TABLE_MAX_CLASSES)
        return;
    fprintf(out, "<table class=\"classes\"><tr><th>class</th>%s<th>count</th></tr>\n",
            named ? "<th>name</th>" : "");
    for (uint64_t c = 0; c < r->hist_n; c++) {
        uint64_t k = c < s->hist_len ? s->hist[c] : 0;
        if (!all && !k && !la_class_count_name(r->classes, r->notes, c))
            continue;
        fprintf(out, "<tr%s><td class=\"n\">%llu</td>", k ? "" : " class=\"error\"",
                (unsigned long long)c);
        if (named) {
            const char *name = la_class_count_name(r->classes, r->notes, c);
            fputs("<td>", out);
            put_text(out, name ? name : "");
            fputs("</td>", out);
        }
        fprintf(out, "<td class=\"n\">%llu%s</td></tr>\n", (unsigned long long)k,
                k ? "" : " <span class=\"sev\">(missing)</span>");
    }
    fputs("</table>\n", out);
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
    struct scale sc = { wants_log(r, o, n_o, largest), largest };
    double slots = (double)r->hist_n + (n_o ? (double)n_o + 1 : 0), w = CHART_W / slots;
    double wo = w;     /* an out-of-range value's slot: wide enough to see and to label */
    if (n_o && w < CHART_OUTLIER_W) {
        wo = CHART_OUTLIER_W;
        w = (CHART_W - ((double)n_o + 1) * wo) / (double)r->hist_n;
    }
    int printed = slots <= CHART_PRINTED;
    double bar_w = w > 2 ? w * 0.85 : w, out_x = CHART_L + (double)r->hist_n * w + wo;
    fprintf(out, "<figure class=\"histogram\" data-scale=\"%s\"><svg "
                 "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
                 "height=\"%.0f\" role=\"img\">\n", sc.log ? "log" : "linear",
            CHART_L + CHART_W + 8, CHART_T + CHART_H + CHART_B, CHART_L + CHART_W + 8,
            CHART_T + CHART_H + CHART_B);
    put_axis(out, &sc);
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>\n",
            CHART_L - 4, CHART_T + CHART_H, CHART_L + CHART_W, CHART_T + CHART_H);
    for (uint64_t c = 0; c < r->hist_n; c++)
        put_bar(out, r, &sc, "bar", CHART_L + (double)c * w + (w - bar_w) / 2, bar_w,
                c < s->hist_len ? s->hist[c] : 0, "class", (long long)c, printed);
    for (size_t i = 0; i < n_o; i++)
        put_bar(out, r, &sc, "out-of-range", out_x + (double)i * wo + wo * 0.075, wo * 0.85,
                o[i].count, "out-of-range value", o[i].value, printed);
    put_class_labels(out, r, w);
    for (size_t i = 0; i < n_o && (n_o <= 8 || printed); i++)   /* lower: apart from the classes' */
        fprintf(out, "<text class=\"label\" x=\"%.2f\" y=\"%.0f\" font-size=\"11\" "
                     "text-anchor=\"middle\" fill=\"#a0a\">%lld</text>\n",
                out_x + ((double)i + 0.5) * wo, CHART_T + CHART_H + (printed ? 22 : 34),
                o[i].value);
    fprintf(out, "</svg><figcaption>histogram: %llu classes, %llu missing (red, below the "
                 "axis)%s; %s scale%s</figcaption></figure>\n", (unsigned long long)r->hist_n,
            (unsigned long long)missing,
            n_o ? "; out-of-range values in magenta, right of the classes" : "",
            sc.log ? "logarithmic" : "linear",
            sc.log ? " (the largest count is more than 20 times the smallest: on a linear "
                     "scale the small bars would be hairlines)" : "");
    put_class_table(out, r);
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
    fputs("<figcaption><span class=\"path\">", out);
    put_text(out, p->path);
    fputs("</span>", out);
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

// ---- the splits -------------------------------------------------------------------

/* The splits' class distributions side by side: per class a bar per split,
 * its share of the split's labels, so that splits of unequal sizes compare. */
static void put_split_chart(FILE *out, const struct la_splits *sp)
{
    static const char *const colours[] = { "#4477aa", "#ee6677", "#228833", "#ccbb44",
                                           "#66ccee", "#aa3377" };
    uint64_t classes = 0;
    double top = 0;
    for (size_t i = 0; i < sp->n; i++) {
        if (!sp->v[i].has_hist)
            return;
        classes = sp->v[i].hist_n > classes ? sp->v[i].hist_n : classes;
    }
    if (!classes || classes > CHART_MAX_CLASSES)
        return;
    double *share = calloc(sp->n * classes, sizeof *share);
    for (size_t i = 0; share && i < sp->n; i++) {
        double total = 0;
        for (uint64_t c = 0; c < sp->v[i].hist_n; c++)
            total += (double)sp->v[i].hist[c];
        for (uint64_t c = 0; total > 0 && c < sp->v[i].hist_n; c++) {
            share[i * classes + c] = (double)sp->v[i].hist[c] / total;
            top = share[i * classes + c] > top ? share[i * classes + c] : top;
        }
    }
    if (!share || top <= 0) {
        free(share);
        return;
    }
    double w = CHART_W / (double)classes, bar = w * 0.85 / (double)sp->n;
    fprintf(out, "<figure class=\"histogram splits\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
                 "viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", CHART_L + CHART_W + 8,
            CHART_T + CHART_H + CHART_B);
    for (uint64_t c = 0; c < classes; c++)
        for (size_t i = 0; i < sp->n; i++) {
            double h = share[i * classes + c] / top * CHART_H;
            fprintf(out, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                         "height=\"%.2f\" fill=\"%s\"><title>", CHART_L + (double)c * w +
                         w * 0.075 + (double)i * bar, CHART_T + CHART_H - h, bar, h,
                    colours[i % (sizeof colours / sizeof *colours)]);
            put_text(out, sp->v[i].name);
            fprintf(out, ", class %llu: %.1f%% of its labels</title></rect>\n",
                    (unsigned long long)c, 100 * share[i * classes + c]);
        }
    free(share);
    for (uint64_t c = 0; classes <= CHART_PRINTED && c < classes; c++)
        fprintf(out, "<text class=\"label\" x=\"%.2f\" y=\"%.0f\" font-size=\"11\" "
                     "text-anchor=\"middle\">%llu</text>\n", CHART_L + ((double)c + 0.5) * w,
                CHART_T + CHART_H + 14, (unsigned long long)c);
    fputs("</svg><figcaption class=\"key\">each class's share of a split's labels:", out);
    for (size_t i = 0; i < sp->n; i++) {
        fprintf(out, "<span style=\"background:%s\"></span>",
                colours[i % (sizeof colours / sizeof *colours)]);
        put_text(out, sp->v[i].name);
    }
    fputs("</figcaption></figure>\n", out);
}

static void put_splits(FILE *out, const struct la_splits *sp, const struct la_config *cfg)
{
    if (!sp || !sp->n)
        return;
    fputs("<section class=\"splits\"><h2>splits</h2>\n<table><tr><th>split</th>"
          "<th>files</th><th>samples</th></tr>\n", out);
    for (size_t i = 0; i < sp->n; i++) {
        fputs("<tr><td>", out);
        put_text(out, sp->v[i].name);
        fprintf(out, "</td><td class=\"n\">%d</td><td class=\"n\">%llu</td></tr>\n",
                sp->v[i].files, (unsigned long long)sp->v[i].samples);
    }
    fputs("</table>\n", out);
    if (sp->n_findings) {
        fputs("<ul class=\"findings\">\n", out);
        for (size_t i = 0; i < sp->n_findings; i++)
            put_finding(out, &sp->findings[i], NULL, cfg);
        fputs("</ul>\n", out);
    }
    put_split_chart(out, sp);
    fputs("</section>\n", out);
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
    put_findings(out, r, cfg);
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
    put_splits(out, sum->splits, cfg);
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
