/* histogram.c - --histogram: the class histogram drawn as bars in the text
 * report, so a person sees imbalance and missing classes at a glance, and the
 * loss weights that answer it, ready to paste into the training script.
 *
 * One line per class up to HIST_ALL classes, else the HIST_EDGE largest and
 * the HIST_EDGE smallest. Bars are Unicode blocks in eighths of a cell where
 * the locale's character set is UTF-8, '#' otherwise, so a log read through
 * an ASCII-only pipe stays legible. */
#include "class_count.h" /* la_class_count_name */
#include "report.h"

#include <stdlib.h>  /* getenv, malloc, qsort */
#include <string.h>  /* strstr */
#include <strings.h> /* strncasecmp */

#include "msg.h"

#define HIST_ALL 64           /* classes drawn one by one up to this many */
#define HIST_EDGE 10          /* else the largest and the smallest, this many each */
#define BAR_CELLS 40          /* the longest bar, in character cells */
#define PASTE_MAX 1024        /* classes or columns listed in the ready-to-paste line */

/* Whether the locale (LC_ALL, else LC_CTYPE, else LANG, as setlocale reads
 * them) names UTF-8. Read from the environment so that the report never
 * depends on which locales happen to be installed. */
int la_locale_is_utf8(void)
{
    static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        for (const char *p = v; *p; p++)
            if (strncasecmp(p, "utf-8", 5) == 0 || strncasecmp(p, "utf8", 4) == 0)
                return 1;
        return 0;
    }
    return 0;
}

static int digits(uint64_t n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

static uint64_t count_of(const struct la_file_report *r, uint64_t c)
{
    return c < r->stats.hist_len ? r->stats.hist[c] : 0;
}

/* A bar of count against the largest count, padded to BAR_CELLS cells. A
 * non-zero count always shows at least the thinnest bar: a rare class is
 * still there, unlike a missing one. */
static void put_bar(FILE *out, uint64_t count, uint64_t largest, int utf8)
{
    static const char *const eighths[8] = { "", "\u258f", "\u258e", "\u258d",
                                            "\u258c", "\u258b", "\u258a", "\u2589" };
    int steps = utf8 ? 8 : 1;
    uint64_t units = largest ? (uint64_t)((long double)count * BAR_CELLS * steps / largest + 0.5L)
                             : 0;
    if (count > 0 && units == 0)
        units = 1;
    uint64_t full = units / (uint64_t)steps, part = units % (uint64_t)steps;
    fputs(la_c_ok(), out);
    for (uint64_t i = 0; i < full; i++)
        fputs(utf8 ? "\u2588" : "#", out);
    fputs(eighths[part], out);
    fputs(la_c_off(), out);
    for (uint64_t i = full + (part > 0); i < BAR_CELLS; i++)
        fputc(' ', out);
}

struct layout {
    int class_w, count_w, utf8;
    uint64_t total, largest;
};

static void put_class(FILE *out, const struct la_file_report *r, uint64_t c,
                      const struct layout *l)
{
    uint64_t n = count_of(r, c);
    fprintf(out, "    %*llu ", l->class_w, (unsigned long long)c);
    put_bar(out, n, l->largest, l->utf8);
    fprintf(out, " %*llu %5.1f%%", l->count_w, (unsigned long long)n,
            l->total ? 100.0 * (double)n / (double)l->total : 0.0);
    const char *name = la_class_count_name(r->classes, r->notes, c);
    if (name) {     /* the model's, the metadata's or the reader's name of it */
        fputs("  ", out);
        la_fputs_escaped(name, out);
    }
    if (n == 0)
        fprintf(out, "  %smissing%s", la_c_warn(), la_c_off());
    fputc('\n', out);
}

/* qsort's view of the classes: the largest count first, then the lower class. */
static const struct la_file_report *g_sort_report;

static int by_count_desc(const void *a, const void *b)
{
    uint64_t ca = *(const uint64_t *)a, cb = *(const uint64_t *)b;
    uint64_t na = count_of(g_sort_report, ca), nb = count_of(g_sort_report, cb);
    if (na != nb)
        return na > nb ? -1 : 1;
    return ca < cb ? -1 : ca > cb;
}

/* More than HIST_ALL classes: the HIST_EDGE largest, then the HIST_EDGE smallest. */
static void put_edges(FILE *out, const struct la_file_report *r, const struct layout *l)
{
    uint64_t n = r->hist_n, *order = malloc((size_t)n * sizeof *order);
    if (!order) {
        fprintf(out, "    (out of memory drawing %llu classes)\n", (unsigned long long)n);
        return;
    }
    for (uint64_t c = 0; c < n; c++)
        order[c] = c;
    g_sort_report = r;
    qsort(order, (size_t)n, sizeof *order, by_count_desc);
    for (uint64_t i = 0; i < HIST_EDGE; i++)
        put_class(out, r, order[i], l);
    fprintf(out, "    %*s %llu classes between\n", l->class_w, "...",
            (unsigned long long)(n - 2 * HIST_EDGE));
    for (uint64_t i = n - HIST_EDGE; i < n; i++)
        put_class(out, r, order[i], l);
    free(order);
}

/* A weight as Python reads it back exactly, always with a decimal point, so
 * that torch.tensor([...]) makes a float tensor (a list of integers would
 * make an int64 one, which the loss refuses). */
static void put_weight(FILE *out, double w, int first)
{
    char buf[64];
    la_format_num((struct la_num){ .kind = LA_NUM_F64, .v.f = w }, LA_DT_FLOAT64, buf, sizeof buf);
    fprintf(out, "%s%s%s", first ? "" : ", ", buf, strpbrk(buf, ".e") ? "" : ".0");
}

static void put_class_weights(FILE *out, const struct la_file_report *r,
                              const struct la_config *cfg)
{
    uint64_t total, present;
    la_hist_totals(r->stats.hist, r->stats.hist_len, r->hist_n, &total, &present);
    if (total == 0)
        return;
    if (r->hist_n > PASTE_MAX) {
        fprintf(out, "  class weights: %llu of them: see class_weights in --json\n",
                (unsigned long long)r->hist_n);
        return;
    }
    fprintf(out, "  class weights: torch.nn.%s(weight=torch.tensor([",
            cfg->loss == LA_LOSS_NLL ? "NLLLoss" : "CrossEntropyLoss");
    for (uint64_t c = 0; c < r->hist_n; c++)
        put_weight(out, la_class_weight(r->stats.hist, r->stats.hist_len, r->hist_n, c, total,
                                        present), c == 0);
    fputs("]))\n", out);
}

static void put_pos_weight(FILE *out, const struct la_pos_counts *pc)
{
    if (pc->cols > PASTE_MAX) {
        fprintf(out, "  pos_weight: %llu columns: see pos_weight in --json\n",
                (unsigned long long)pc->cols);
        return;
    }
    uint64_t undefined = 0;
    fputs("  pos_weight: torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([", out);
    for (uint64_t c = 0; c < pc->cols; c++) {
        double w;
        if (la_pos_weight(pc, c, &w) != 0) {
            w = 1.0;            /* no positive: undefined, and 1.0 leaves the column as it is */
            undefined++;
        }
        put_weight(out, w, c == 0);
    }
    fputs("]))\n", out);
    if (undefined)
        fprintf(out, "    %llu %s no positive: 1.0 there (pos_weight is undefined)\n",
                (unsigned long long)undefined, undefined == 1 ? "column has" : "columns have");
}

void la_report_histogram(FILE *out, const struct la_file_report *r, const struct la_config *cfg)
{
    if (la_pos_counts_ok(&r->pos))
        put_pos_weight(out, &r->pos);
    if (!r->has_hist || r->hist_n == 0)
        return;
    struct layout l = { digits(r->hist_n - 1), 1, la_locale_is_utf8(), 0, 0 };
    uint64_t present;
    la_hist_totals(r->stats.hist, r->stats.hist_len, r->hist_n, &l.total, &present);
    for (uint64_t c = 0; c < r->hist_n; c++)
        l.largest = count_of(r, c) > l.largest ? count_of(r, c) : l.largest;
    l.count_w = digits(l.largest);
    fprintf(out, "  histogram: %llu %s, %llu valid %s", (unsigned long long)r->hist_n,
            r->hist_n == 1 ? "class" : "classes", (unsigned long long)l.total,
            l.total == 1 ? "label" : "labels");
    if (r->hist_n > HIST_ALL)
        fprintf(out, "; the %d largest and the %d smallest", HIST_EDGE, HIST_EDGE);
    fputc('\n', out);
    if (r->hist_n > HIST_ALL) {
        put_edges(out, r, &l);
    } else {
        for (uint64_t c = 0; c < r->hist_n; c++)
            put_class(out, r, c, &l);
    }
    put_class_weights(out, r, cfg);
}
