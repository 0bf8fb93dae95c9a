/* file_report.c - see file_report.h: a report's findings, and releasing it. */
#include "file_report.h"

#include <stdio.h>  /* snprintf, vsnprintf */

#include "label_notes.h" /* la_notes_free */

struct la_finding *la_report_vadd_finding(struct la_file_report *r, enum la_code code,
                                          const char *fmt, va_list ap)
{
    if (r->n_findings >= LA_F_COUNT)
        return NULL;
    const struct la_code_def *def = la_finding_def(code);
    struct la_finding *f = &r->findings[r->n_findings++];
    *f = (struct la_finding){ .severity = def->severity, .code = code,
                              .prevents = def->prevents };
    if (def->fix)
        snprintf(f->hint, sizeof f->hint, "%s", def->fix);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    return f;
}

struct la_finding *la_report_add_finding(struct la_file_report *r, enum la_code code,
                                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct la_finding *f = la_report_vadd_finding(r, code, fmt, ap);
    va_end(ap);
    return f;
}

void la_file_report_free(struct la_file_report *r)
{
    la_dataset_free(r->dataset);
    r->dataset = NULL;
    la_stats_free(&r->stats);
    la_pos_counts_free(&r->pos);
    la_ignored_samples_free(&r->ignored_samples);
    la_notes_free(r->notes);
    r->notes = NULL;
    if (r->classes && r->classes_free)
        r->classes_free(r->classes);
    r->classes = NULL;
}

int la_report_by_sample(const struct la_file_report *r)
{
    if (!r->dataset)
        return r->info.ndim >= 2;
    for (size_t i = 0; i < r->dataset->n_src; i++)
        if (r->dataset->src[i].ndim > 0)
            return 1;
    return 0;
}
