/* report_concise.c - --concise: one line per finding, as gcc and ruff's
 * "concise" output write them, for editors' error lists and grep:
 *
 *     train.csv:19: error: [out-of-range] 3 labels outside [0, 10) ...
 *     labels.npy:sample 17: error: [out-of-range] ...
 *     train.csv: warning: [missing-classes] 1 of 10 classes never occur ...
 *
 * The place is the finding's first entry: its file line where one is known
 * (CSV, TSV, text, JSON Lines, YOLO label files), else its sample or row,
 * else none (a finding of the whole file). A line names a file, so a YOLO
 * entry names its label file, a dataset's its source. Nothing else is
 * printed: the exit status says the rest. */
#include "report.h"

#include <stdio.h>  /* fprintf */
#include <string.h> /* strcmp, strlen, strspn */

#include "file_report.h" /* a dataset's sources: la_dataset_source_of_index */
#include "line_map.h"
#include "msg.h"         /* la_fputs_escaped */

/* The first bad entry a finding of code covers, or NULL. */
static const struct la_bad *first_entry(const struct la_file_report *r, enum la_code code)
{
    for (size_t i = 0; i < r->stats.n_bad; i++)
        if (la_bad_belongs(code, r->stats.bad[i].verdict))
            return &r->stats.bad[i];
    return NULL;
}

/* "FILE line N" (YOLO's notes): FILE and N; @return 1 when where is so. */
static int split_line(const char *where, char *file, size_t cap, unsigned long long *line)
{
    const char *at = strstr(where, " line ");
    if (!at || at[6] < '0' || at[6] > '9' || at[6 + strspn(at + 6, "0123456789")] ||
        (size_t)(at - where) >= cap)
        return 0;
    snprintf(file, cap, "%.*s", (int)(at - where), where);
    sscanf(at + 6, "%llu", line);
    return 1;
}

/* The place of finding code in r, the "path:line" or "path:sample N" part
 * (escaped for the terminal), printed without its closing ": ". */
static void print_place(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                        enum la_code code)
{
    const struct la_bad *b = first_entry(r, code);
    const struct la_note *p = NULL;
    for (size_t i = 0; !b && r->notes && i < r->notes->n_problems; i++)
        if (r->notes->problems[i].code == code)
            p = &r->notes->problems[i];   /* a reader's problem: its own place */
    const char *where = b ? la_notes_where(r->notes, b->index) : p ? p->where : NULL;
    char file[LA_NOTE_LEN];
    unsigned long long line = 0;
    if (where && split_line(where, file, sizeof file, &line)) {
        la_fputs_escaped(file, out);
        fprintf(out, ":%llu", line);
        return;
    }
    const struct la_source_info *src = b && r->dataset
                                           ? la_dataset_source_of_index(r->dataset, b->index)
                                           : NULL;
    if (src) {   /* a dataset's entry: its own file, and the place there */
        la_fputs_escaped(src->path, out);
        if (src->ndim == 0)
            fprintf(out, ":%s %llu", la_format_has(src->format, LA_FMTF_TEXT) ? "row" : "index",
                    (unsigned long long)(b->index - src->first_index));
        else if (src->samples > 1)
            fprintf(out, ":sample %llu", (unsigned long long)(b->sample - src->first_sample));
        return;
    }
    la_fputs_escaped(r->path, out);
    if (where) {
        fputc(':', out);
        la_fputs_escaped(where, out);
        return;
    }
    if (!b)
        return;
    uint64_t row = la_line_row(r, b), lines[1] = { 0 };
    int has_lines = !r->dataset && (r->info.line_records ||
                                    la_format_has(r->info.format, LA_FMTF_TEXT));
    if (has_lines && la_line_map(r, cfg, &row, 1, lines) == 0 && lines[0])
        fprintf(out, ":%llu", (unsigned long long)lines[0]);
    else if (la_format_has(r->info.format, LA_FMTF_TEXT))
        fprintf(out, ":row %llu", (unsigned long long)row);
    else if (b->sample != LA_NO_SAMPLE)
        fprintf(out, ":sample %llu", (unsigned long long)b->sample);
    else
        fprintf(out, ":index %llu", (unsigned long long)b->index);
}

void la_report_concise_file(FILE *out, const struct la_file_report *r,
                            const struct la_config *cfg)
{
    if (!r->read_ok) {
        la_fputs_escaped(r->path, out);
        fputs(": error: ", out);
        la_fputs_escaped(r->error, out);
        fputc('\n', out);
        return;
    }
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct la_finding *f = &r->findings[i];
        print_place(out, r, cfg, f->code);
        fprintf(out, ": %s: [%s] ", la_severity_name(f->severity),
                la_finding_code_name(f->code));
        la_fputs_escaped(f->message, out);
        if (f->hint[0]) {
            fputs("; fix: ", out);
            la_fputs_escaped(f->hint, out);
        }
        fputc('\n', out);
    }
}

int la_report_concise(FILE *out, const struct la_file_report *files, int n,
                      const struct la_config *cfg)
{
    for (int i = 0; i < n; i++)
        la_report_concise_file(out, &files[i], cfg);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
