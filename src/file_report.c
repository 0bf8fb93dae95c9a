/* file_report.c - see file_report.h: releasing a report. */
#include "file_report.h"

#include "label_notes.h" /* la_notes_free */

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
