/* report_text.c - the report a person reads in a terminal.
 *
 * Per file: what was read, the range, each finding with its first bad
 * entries and the fix, the batching block; then a one-line summary. */
#include "context.h"  /* la_config_max_report */
#include "class_count.h" /* la_class_count_from_file */
#include "class_report.h" /* la_class_count_text */
#include "report.h"
#include "pair_list.h" /* la_pair_describe: a bad pair */

#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* strcmp */

#include "file_report.h" /* a dataset's sources */
#include "line_map.h" /* a row's line in the file */

/* The most rows of one finding whose file lines are looked up (--max-report
 * may ask for more: those are shown as rows alone). */
#define LA_TEXT_LINES 1000
#include "msg.h"

static int is_table(const struct la_file_report *r)
{
    return la_format_has(r->info.format, LA_FMTF_TEXT);   /* entries have line numbers */
}

/* "(row, col)": the position of a flat index inside its sample, as NumPy indexes it. */
static void format_inner(const struct la_file_report *r, uint64_t index, char *buf, size_t len)
{
    uint64_t rest = index % r->stats.sample_stride;
    char inner[256] = "";
    size_t used = 0;
    /* a file that is one sample (an image, a volume) has no sample axis */
    for (int d = r->info.ndim - 1; d >= (r->info.one_sample ? 0 : 1); d--) {
        uint64_t dim = r->info.shape[d] ? r->info.shape[d] : 1;
        char part[32];
        snprintf(part, sizeof part, "%llu", (unsigned long long)(rest % dim));
        rest /= dim;
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s%s%s", part, used ? ", " : "", inner);
        snprintf(inner, sizeof inner, "%s", tmp);
        used = 1;
    }
    snprintf(buf, len, "(%s)", inner);
}

/* "(y, x)" from la_dataset_at(). */
static void format_at(const struct la_source_info *src, uint64_t index, char *buf, size_t len)
{
    uint64_t at[LA_MAX_DIMS];
    int n;
    la_dataset_at(src, index, at, &n);
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int k = 0; k < n && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%llu", k ? ", " : "",
                                 (unsigned long long)at[k]);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/* A dataset's entry: its file and the position there ("a.csv index 3",
 * "masks/7.png at (4, 5)"); the path is escaped for the terminal. */
static void print_dataset_place(FILE *out, const struct la_file_report *r, const struct la_bad *b)
{
    const struct la_source_info *src = la_dataset_source_of_index(r->dataset, b->index);
    la_fputs_escaped(src->path, out);
    uint64_t local = b->index - src->first_index;
    char at[256];
    format_at(src, b->index, at, sizeof at);
    if (src->ndim == 0)
        fprintf(out, " %s %llu", la_format_has(src->format, LA_FMTF_TEXT) ? "row" : "index",
                (unsigned long long)local);
    else if (src->samples == 1)
        fprintf(out, " at %s", at);
    else
        fprintf(out, " sample %llu at %s", (unsigned long long)(b->sample - src->first_sample), at);
    const char *where = la_notes_where(r->notes, b->index);   /* yolo, coco: a line, an id */
    if (where && where[0]) {   /* a merged report's places have no text */
        fputs(", ", out);
        la_fputs_escaped(where, out);
    } else if (src->ndim == 0 && b->sample != LA_NO_SAMPLE &&
               b->sample - src->first_sample != local) {   /* wds: a label's sample */
        fprintf(out, " (sample %llu)", (unsigned long long)(b->sample - src->first_sample));
    }
}

static void print_dataset_position(FILE *out, const struct la_file_report *r,
                                   const struct la_bad *b)
{
    fputs("      ", out);
    print_dataset_place(out, r, b);
}

/* "row 17 (line 19)" (a data row and the file's line, where it is known),
 * "record 17 (line 19)" (a JSON Lines record), "index 17", or "sample 3 at (4, 5)" for N-D arrays. */
static void format_position(const struct la_file_report *r, const struct la_bad *b,
                            uint64_t line, char *buf, size_t len)
{
    const char *where = la_notes_where(r->notes, b->index);   /* yolo, coco: a line, an id */
    if (where) {
        char escaped[300];
        la_escape_ctl(escaped, sizeof escaped, where);
        snprintf(buf, len, "index %llu, %s", (unsigned long long)b->index, escaped);
    } else if (r->info.line_records && line) {
        la_line_record(b, line, buf, len);
    } else if (is_table(r) && la_line_row(r, b) != b->index && line) {   /* a list cell's item */
        snprintf(buf, len, "index %llu (row %llu, line %llu)", (unsigned long long)b->index,
                 (unsigned long long)la_line_row(r, b), (unsigned long long)line);
    } else if (is_table(r) && la_line_row(r, b) != b->index) {
        snprintf(buf, len, "index %llu (row %llu)", (unsigned long long)b->index,
                 (unsigned long long)la_line_row(r, b));
    } else if (is_table(r) && line) {
        snprintf(buf, len, "row %llu (line %llu)", (unsigned long long)b->index,
                 (unsigned long long)line);
    } else if (is_table(r)) {
        snprintf(buf, len, "row %llu", (unsigned long long)b->index);
    } else if (r->info.ndim < 2 && b->sample != b->index && b->sample != LA_NO_SAMPLE) {
        /* wds: the labels of samples without one are not counted */
        snprintf(buf, len, "index %llu (sample %llu)", (unsigned long long)b->index,
                 (unsigned long long)b->sample);
    } else if (r->info.ndim < 2) {
        snprintf(buf, len, "index %llu", (unsigned long long)b->index);
    } else {
        char inner[256];
        format_inner(r, b->index, inner, sizeof inner);
        snprintf(buf, len, "sample %llu at %s", (unsigned long long)b->sample, inner);
    }
}

/* A cell from the input, quoted for a terminal: its control bytes (an escape
 * sequence, a carriage return) would otherwise act on the terminal or break
 * the line, so they are shown as \xNN. Cut to fit cap. */
static void quote_cell(char *dst, size_t cap, const char *text)
{
    size_t n = 0;
    dst[n++] = '"';
    n += la_escape_ctl(dst + n, cap - n - 1, text);
    dst[n++] = '"';
    dst[n] = '\0';
}

/* A bad value as the report shows it: an unparsable cell quoted, else the number. */
static void format_value(struct la_num v, const char *text, int dtype, char *buf, size_t len)
{
    if (text)
        quote_cell(buf, len, text);
    else
        la_format_num(v, dtype, buf, len);
}

/* A dataset's bad samples: the file (an image), how many bad entries, the
 * first one's position and the distinct bad values. */
static void print_group_values(FILE *out, const struct la_file_report *r,
                               const struct la_config *cfg, uint64_t max_report);

static void print_dataset_groups(FILE *out, const struct la_file_report *r,
                                 const struct la_config *cfg, uint64_t max_report)
{
    const struct la_stats *s = &r->stats;
    fprintf(out, "  %llu of %llu samples hold invalid entries\n",
            (unsigned long long)s->bad_samples, (unsigned long long)r->samples);
    print_group_values(out, r, cfg, max_report);
    for (size_t i = 0; i < s->n_groups && i < max_report; i++) {
        const struct la_bad_group *g = &s->groups[i];
        const struct la_source_info *src = la_dataset_source_of(r->dataset, g->sample);
        struct la_bad first = { g->first_index, g->sample, g->first_verdict, g->first_value, NULL };
        print_dataset_position(out, r, &first);
        fprintf(out, ": %llu invalid, values ", (unsigned long long)g->count);
        for (int k = 0; k < g->n_values; k++) {
            char val[64];
            format_value(g->values[k], g->texts[k], src->dtype, val, sizeof val);
            fprintf(out, "%s%s", k ? ", " : "", val);
        }
        fprintf(out, "%s\n", g->mixed && g->n_values < 2 ? ", ..." : "");
    }
    if (s->bad_samples > s->n_groups || s->n_groups > max_report)
        fprintf(out, "      ... (--max-report, --indices-out or --json list more)\n");
}

/* N-D arrays (masks): one line per bad sample rather than one per entry. */
static void print_groups(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                         uint64_t max_report)
{
    const struct la_stats *s = &r->stats;
    if (r->dataset) {
        print_dataset_groups(out, r, cfg, max_report);
        return;
    }
    fprintf(out, "  %llu of %llu samples hold invalid entries\n",
            (unsigned long long)s->bad_samples, (unsigned long long)r->samples);
    print_group_values(out, r, cfg, max_report);
    for (size_t i = 0; i < s->n_groups && i < max_report; i++) {
        const struct la_bad_group *g = &s->groups[i];
        char at[256], val[64];
        format_inner(r, g->first_index, at, sizeof at);
        format_value(g->first_value, g->n_values ? g->texts[0] : NULL, r->info.dtype, val,
                     sizeof val);
        if (g->mixed)
            fprintf(out, "      sample %llu: %llu invalid, the first at %s: %s\n",
                    (unsigned long long)g->sample, (unsigned long long)g->count, at, val);
        else
            fprintf(out, "      sample %llu: %llu invalid, all = %s, the first at %s\n",
                    (unsigned long long)g->sample, (unsigned long long)g->count, val, at);
    }
    if (s->bad_samples > s->n_groups || s->n_groups > max_report)
        fprintf(out, "      ... (--max-report, --indices-out or --json list more)\n");
}

/* The report's path, and its split: "cache (split train)". */
static void print_path(FILE *out, const struct la_file_report *r)
{
    la_fputs_escaped(r->path, out);         /* a file name is bytes: keep them off the terminal */
    if (r->split) {
        fputs(" (split ", out);
        la_fputs_escaped(r->split, out);
        fputc(')', out);
    }
}

static void print_header(FILE *out, const struct la_file_report *r)
{
    const struct la_stats *s = &r->stats;
    fputs(la_c_bold(), out);
    print_path(out, r);
    if (r->dataset)
        fprintf(out, "%s: dataset of %zu %s", la_c_off(), r->dataset->n_src,
                r->dataset->n_src == 1 ? "file" : "files");
    else
        fprintf(out, "%s: %s", la_c_off(), la_format_name(r->info.format));
    if (r->info.has_column) {             /* a header's name is the input's bytes too */
        fputs(", column \"", out);
        la_fputs_escaped(r->info.column, out);
        fputc('"', out);
    }
    fprintf(out, ", %s", r->dataset && r->dataset->mixed_dtype ? "mixed dtypes"
                                                                : la_dtype_info(r->info.dtype)->name);
    if (r->info.ndim >= 2) {
        fprintf(out, ", shape (");
        for (int d = 0; d < r->info.ndim; d++)
            fprintf(out, "%s%llu", d ? ", " : "", (unsigned long long)r->info.shape[d]);
        fprintf(out, ")");
    }
    if (r->vocabulary == LA_VOCAB_IDS)
        fprintf(out, ", %llu %s", (unsigned long long)s->count, s->count == 1 ? "token id" : "token ids");
    else
        fprintf(out, ", %llu %s", (unsigned long long)s->count, s->count == 1 ? "label" : "labels");
    if (r->seq_len) {                     /* --seq-len: the blocks are the samples */
        uint64_t tail = r->info.shape[0] % r->seq_len;
        fprintf(out, " in %llu %s of %llu", (unsigned long long)r->samples,
                r->samples == 1 ? "block" : "blocks", (unsigned long long)r->seq_len);
        if (tail)
            fprintf(out, " (the last of %llu)", (unsigned long long)tail);
    }
    if (s->has_minmax) {
        char lo[64], hi[64];
        la_format_num(s->min, r->info.dtype, lo, sizeof lo);
        la_format_num(s->max, r->info.dtype, hi, sizeof hi);
        fprintf(out, ", range %s..%s", lo, hi);
    }
    if (s->n_verdict[LA_V_IGNORED])
        fprintf(out, ", %llu ignored", (unsigned long long)s->n_verdict[LA_V_IGNORED]);
    fputc('\n', out);
}

/* The file lines of the places print_entries() shows, in lines[] (0 where
 * unknown: not a table, standard input, a dataset's), the first
 * LA_TEXT_LINES of them looked up. */
static void place_lines(const struct la_file_report *r, const struct la_config *cfg,
                        const struct la_bad *places, size_t n, uint64_t *lines)
{
    if (r->dataset || !(r->info.line_records || (is_table(r) && (!r->notes || r->info.row_samples))))
        return;
    n = n < LA_TEXT_LINES ? n : LA_TEXT_LINES;
    uint64_t rows[LA_TEXT_LINES];
    for (size_t i = 0; i < n; i++)
        rows[i] = la_line_row(r, &places[i]);
    if (n)
        la_line_map_any(r, cfg, rows, n, lines);
}

/* One entry's place: "row 17 (line 19)", or a dataset's "a.csv row 3". */
static void print_place(FILE *out, const struct la_file_report *r, const struct la_bad *b,
                        uint64_t line)
{
    char pos[320];
    if (r->dataset) {
        print_dataset_place(out, r, b);
        return;
    }
    format_position(r, b, line, pos, sizeof pos);
    fputs(pos, out);
}

static int value_dtype(const struct la_file_report *r, const struct la_bad *b)
{
    return r->dataset ? la_dataset_source_of_index(r->dataset, b->index)->dtype : r->info.dtype;
}

/* "value 6, once: row 137 (line 139)", "value 5, 40 times: row 4 (line 6), ...". */
static void print_value_line(FILE *out, const struct la_file_report *r,
                             const struct la_bad_value *x, const struct la_bad *places,
                             const uint64_t *lines)
{
    char val[64];
    format_value(x->value, x->text, x->n_first ? value_dtype(r, places) : (int)r->info.dtype, val,
                 sizeof val);
    if (x->count == 1)
        fprintf(out, "      value %s, once: ", val);
    else
        fprintf(out, "      value %s, %llu times: ", val, (unsigned long long)x->count);
    for (int k = 0; k < x->n_first; k++) {
        fputs(k ? ", " : "", out);
        print_place(out, r, &places[k], lines[k]);
    }
    fputs(x->count > (uint64_t)x->n_first ? ", ...\n" : "\n", out);
}

/* "... 29 more": the entries no line names, and the distinct values among them. */
static void print_more(FILE *out, const struct la_stats *s, enum la_code code,
                       size_t value_lines, uint64_t entries)
{
    unsigned mask = la_code_verdicts(code);
    size_t values = la_stats_values_of(s, mask);
    uint64_t total = la_finding_entries(s, code), counted = 0;
    for (size_t i = 0; i < s->values.n; i++)
        counted += (mask >> s->values.v[i].verdict) & 1u ? s->values.v[i].count : 0;
    if (total <= entries)
        return;
    fprintf(out, "      ... %llu more", (unsigned long long)(total - entries));
    if (counted < total)      /* past the values the stats keep: more than named */
        fprintf(out, ", with more than %zu other distinct values", values - value_lines);
    else if (values > value_lines)
        fprintf(out, ", with %zu other distinct %s", values - value_lines,
                values - value_lines == 1 ? "value" : "values");
    fputs(" (--max-report, --indices-out or --json list them)\n", out);
}

/* The bad entries of the verdicts in mask, as many lines as max allows: each
 * distinct value first, with its count and first rows, then (unless
 * values_only) the others. @return the lines' entries; *shown_lines their
 * lines, *value_lines the values'. */
static uint64_t print_listed(FILE *out, const struct la_file_report *r,
                             const struct la_config *cfg, unsigned mask, uint64_t max_report,
                             int values_only, size_t *value_lines)
{
    const struct la_stats *s = &r->stats;
    size_t cap = values_only ? s->values.n : s->values.n + s->n_bad;
    cap = cap < max_report ? cap : (size_t)max_report;
    struct la_shown *shown = calloc(cap ? cap : 1, sizeof *shown);
    struct la_bad *places = calloc(cap ? cap * LA_BAD_VALUE_FIRST : 1, sizeof *places);
    uint64_t *lines = calloc(cap ? cap * LA_BAD_VALUE_FIRST : 1, sizeof *lines);
    uint64_t entries = 0;
    size_t n = 0;
    if (shown && places && lines) {
        n = la_stats_shown(s, mask, cap, LA_BAD_VALUE_FIRST, shown, &entries);
        place_lines(r, cfg, places, la_stats_shown_places(shown, n, places), lines);
    }
    *value_lines = 0;
    for (size_t i = 0, p = 0; i < n; i++) {
        if (shown[i].value) {
            print_value_line(out, r, shown[i].value, places + p, lines + p);
            p += (size_t)shown[i].value->n_first;
            (*value_lines)++;
            continue;
        }
        if (values_only)
            break;
        char val[64];
        format_value(places[p].value, places[p].text, value_dtype(r, &places[p]), val,
                     sizeof val);
        fputs("      ", out);
        print_place(out, r, &places[p], lines[p]);
        fprintf(out, ": %s\n", val);
        p++;
    }
    free(shown);
    free(places);
    free(lines);
    return entries;
}

/* The finding's own bad entries: each distinct value first, then the others,
 * then how many more. */
static void print_entries(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                          enum la_code code, uint64_t max_report)
{
    size_t value_lines;
    uint64_t entries = print_listed(out, r, cfg, la_code_verdicts(code), max_report, 0,
                                    &value_lines);
    print_more(out, &r->stats, code, value_lines, entries);
}

/* Masks and volumes, before their bad samples: each distinct bad value,
 * its count and first samples (a stray class among thousands of 255s). */
static void print_group_values(FILE *out, const struct la_file_report *r,
                               const struct la_config *cfg, uint64_t max_report)
{
    size_t value_lines;
    print_listed(out, r, cfg, la_bad_verdicts(), max_report, 1, &value_lines);
    if (r->stats.values.n > value_lines)
        fprintf(out, "      ... %zu more distinct values (--max-report or --json list them)\n",
                r->stats.values.n - value_lines);
}

/* Files of a directory that were not audited, named: never skipped silently. */
static void print_skipped(FILE *out, const struct la_dataset *d)
{
    if (!d->skipped_total)
        return;
    fprintf(out, "  skipped: %llu %s\n", (unsigned long long)d->skipped_total,
            d->skipped_total == 1 ? "file" : "files");
    for (size_t i = 0; i < d->n_skipped; i++) {
        fputs("      ", out);
        la_fputs_escaped(d->skipped[i].path, out);
        fputs(": ", out);
        la_fputs_escaped(d->skipped[i].why, out);
        fputc('\n', out);
    }
    if (d->skipped_total > d->n_skipped)
        fprintf(out, "      ... (--max-report lists more)\n");
}

/* Say each PyTorch error once per file: several findings prevent the same one. */
static int prevents_said_before(const struct la_file_report *r, const struct la_finding *f)
{
    for (const struct la_finding *e = r->findings; e < f; e++)
        if (e->prevents && strcmp(e->prevents, f->prevents) == 0)
            return 1;
    return 0;
}

/* The bad pairs of a finding of pairs.c, one a line (as many as were kept:
 * --max-report, the JSON's pairs.bad). */
static void print_pair_entries(FILE *out, const struct la_pairs *p, enum la_code code)
{
    for (size_t i = 0; p && i < p->n_bad; i++)
        if (la_pair_code(p->bad[i].kind) == code) {
            char what[3 * 4096];
            la_pair_describe(&p->bad[i], what, sizeof what);
            fputs("      ", out);
            la_fputs_escaped(what, out);
            fputc('\n', out);
        }
}

/* "  error [code]: message", a finding's first line. */
static void print_finding_line(FILE *out, const struct la_finding *f)
{
    int err = f->severity == LA_SEV_ERROR;
    fprintf(out, "  %s%s%s [%s]: ", err ? la_c_err() : la_c_warn(),
            la_severity_name(f->severity), la_c_off(), la_finding_code_name(f->code));
    la_fputs_escaped(f->message, out);    /* it may quote a name from the input */
    fputc('\n', out);
}

static void print_hint(FILE *out, const struct la_finding *f)
{
    if (f->hint[0]) {
        fputs("    fix: ", out);
        la_fputs_escaped(f->hint, out);
        fputc('\n', out);
    }
}

static void print_finding(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                          const struct la_finding *f, uint64_t max_report)
{
    print_finding_line(out, f);
    if (!la_report_by_sample(r) && !f->column[0])   /* a column's finding names its own rows */
        print_entries(out, r, cfg, f->code, max_report);
    print_pair_entries(out, r->pairs, f->code);
    if (f->code >= LA_F_HIDDEN_CLASS_FOLDER)   /* found by the reader: its own list */
        la_notes_print_problems(out, r->notes, f->code, max_report);
    print_hint(out, f);
    if (f->prevents && !prevents_said_before(r, f))
        fprintf(out, "    prevents: %s\n", f->prevents);
}

static int has_finding(const struct la_file_report *r, enum la_code code)
{
    for (size_t i = 0; i < r->n_findings; i++)
        if (r->findings[i].code == code)
            return 1;
    return 0;
}

/* Without -n, the N to check with: max + 1, or max for labels that look
 * 1-based (diagnose.c found them), where max + 1 would hide the shift. */
static void print_classes_hint(FILE *out, const struct la_file_report *r)
{
    unsigned long long top = (unsigned long long)r->hist_n - 1;
    if (has_finding(r, LA_F_ONE_BASED))
        fprintf(out, "  classes: labels span 1..%llu and look 1-based; subtract 1, then pass "
                "-n %llu (or the model's class count) to check them\n", top, top);
    else
        fprintf(out, "  classes: labels span 0..%llu; pass -n %llu (or the model's class "
                "count) to check them\n", top, top + 1);
}

static void print_file(FILE *out, const struct la_file_report *r, const struct la_config *cfg)
{
    if (!r->read_ok) {
        fputs(la_c_bold(), out);
        print_path(out, r);
        fprintf(out, "%s: %serror%s: ", la_c_off(), la_c_err(), la_c_off());
        la_fputs_escaped(r->error, out);
        fputc('\n', out);
        return;
    }
    print_header(out, r);
    if (r->info.header_guessed && r->info.header_why)   /* csv: the header was a guess */
        fprintf(out, "  header: guessed %s (%s)\n", r->info.header_present ? "yes" : "no",
                r->info.header_why);
    if (r->dataset)
        print_skipped(out, r->dataset);
    la_notes_print_lines(out, r->notes);
    if (r->stats.bad_samples && la_report_by_sample(r))
        print_groups(out, r, cfg, la_config_max_report(cfg));
    else if (r->stats.bad_samples && r->stats.sample_of)   /* yolo, coco: files, images */
        fprintf(out, "  %llu of %llu samples hold invalid entries\n",
                (unsigned long long)r->stats.bad_samples, (unsigned long long)r->samples);
    for (size_t i = 0; i < r->n_findings; i++)
        print_finding(out, r, cfg, &r->findings[i], la_config_max_report(cfg));
    la_class_count_text(out, r);      /* where N came from, and the classes past it */
    /* an N from the data (ClassLabel, COCO's categories, a config file) is
     * already checked against and said above: no "pass -n" beside it */
    if (!cfg->has_num_classes && r->has_hist && cfg->loss != LA_LOSS_BCE &&
        !la_class_count_from_source(r->classes) && r->vocabulary == LA_VOCAB_NONE)
        print_classes_hint(out, r);
    else if (r->vocabulary != LA_VOCAB_NONE && !cfg->has_vocab_size && !cfg->has_num_classes &&
             !la_class_count_from_source(r->classes) && cfg->loss != LA_LOSS_BCE)
        fprintf(out, "  vocabulary: unknown; pass --vocab-size (the model's vocab_size) or "
                "--model to check the ids against it\n");
    if (r->hist_skipped)
        fprintf(out, "  classes: -n %lld is above %lu: no histogram, and missing classes "
                "were not checked\n", (long long)cfg->num_classes, (unsigned long)LA_HIST_MAX);
    if (cfg->histogram)
        la_report_histogram(out, r, cfg);
    if (r->has_batching) {
        char text[1024];
        la_batching_describe(&r->batching, text, sizeof text);
        fprintf(out, "  batching: %s\n", text);
    }
    if (r->n_findings == 0)
        fprintf(out, "  %sok%s\n", la_c_ok(), la_c_off());
}

/* The codes of r's findings in state st, ", "-separated ("none" for none). */
static void fix_codes(FILE *out, const struct la_file_report *r, enum la_fix_state st)
{
    int n = 0;
    for (int c = 0; c < LA_F_COUNT; c++)
        if (la_fix_state_of(r, (enum la_code)c) == st)
            fprintf(out, "%s%s", n++ ? ", " : "", la_finding_code_name((enum la_code)c));
    if (!n)
        fputs("none", out);
}

/* A corrected copy (--fix): what made it, and what the fix removed and left. */
static void print_fix(FILE *out, const struct la_file_report *r)
{
    const struct la_fix_result *f = r->fix;
    fputs("  fix: the corrected copy of ", out);
    la_fputs_escaped(f->of, out);
    fprintf(out, " (%s: %llu %s changed, %llu %s dropped)\n", f->rules,
            (unsigned long long)f->changed, f->changed == 1 ? "value" : "values",
            (unsigned long long)f->dropped, f->dropped == 1 ? "sample" : "samples");
    if (!r->read_ok)
        return;
    fputs("  fix: removed ", out);
    fix_codes(out, r, LA_FIXS_REMOVED);
    fputs("; remaining ", out);
    fix_codes(out, r, LA_FIXS_REMAINING);
    int fresh = 0;
    for (int c = 0; c < LA_F_COUNT; c++)
        fresh |= la_fix_state_of(r, (enum la_code)c) == LA_FIXS_NEW;
    if (fresh) {
        fputs("; new ", out);
        fix_codes(out, r, LA_FIXS_NEW);
    }
    fputc('\n', out);
}

void la_report_text_file(FILE *out, const struct la_file_report *r, const struct la_config *cfg)
{
    print_file(out, r, cfg);
    if (r->fix)
        print_fix(out, r);
}

/* SPEC "Splits": the splits in a line, then the findings between them. */
static void print_splits(FILE *out, const struct la_splits *sp)
{
    fputs("splits:", out);
    for (size_t i = 0; i < sp->n; i++) {
        fprintf(out, "%s ", i ? "," : "");
        la_fputs_escaped(sp->v[i].name, out);
        fprintf(out, " (%llu %s)", (unsigned long long)sp->v[i].samples,
                sp->v[i].samples == 1 ? "sample" : "samples");
    }
    fputc('\n', out);
    for (size_t i = 0; i < sp->n_findings; i++) {
        print_finding_line(out, &sp->findings[i]);
        print_hint(out, &sp->findings[i]);
    }
}

int la_report_text_summary(FILE *out, const struct la_summary *sum)
{
    if (sum->splits && sum->splits->n)
        print_splits(out, sum->splits);
    fprintf(out, "summary: %d %s, %llu %s, %llu %s (%s backend)\n", sum->files,
            sum->files == 1 ? "file" : "files", (unsigned long long)sum->errors,
            sum->errors == 1 ? "error" : "errors", (unsigned long long)sum->warnings,
            sum->warnings == 1 ? "warning" : "warnings", sum->backend);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

int la_report_text(FILE *out, const struct la_file_report *files, int n,
                   const struct la_config *cfg, const struct la_summary *sum)
{
    for (int i = 0; i < n; i++)
        la_report_text_file(out, &files[i], cfg);
    return la_report_text_summary(out, sum);
}
