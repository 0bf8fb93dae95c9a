/* ci_notes.h - the findings as the CI outputs list them (report_annotations.c
 * builds them; GitLab's Code Quality report, SARIF and JUnit write them).
 *
 * A note is one bad entry (at its physical line where the file has lines,
 * else its sample and index) or one finding of a file; a file that could not
 * be read is one note. Paths are as the CI names them (ci_path.h). */
#ifndef LA_CI_NOTES_H
#define LA_CI_NOTES_H

#include <stdint.h> /* uint64_t */
#include "diagnose.h"
#include "split_checks.h" /* la_splits: the findings between splits */

#define LA_CI_NOTE_LEN (2 * LA_MSG_LEN + 16)

struct la_ci_note {
    const char *severity;     /* "error" or "warning" */
    const char *title;        /* the finding's code, or "unreadable" */
    const char *path;         /* relative to the workspace */
    uint64_t line;            /* 0: the file as a whole, or no lines */
    uint64_t key;             /* what makes it unique within the file (a bad entry's index) */
    int is_entry;             /* one bad entry: index and sample say where */
    uint64_t index, sample;   /* sample LA_NO_SAMPLE: counted in none */
    int flat;                 /* one label per sample: the index is the sample's */
    const char *place;        /* a mask's bad sample: its first bad pixel ("x 44, y 1"), or NULL */
    const char *hint;         /* a finding's fix, or "" */
    const char *prevents;     /* a finding's PyTorch error, or NULL */
    const char *column;       /* a finding's column, where not the label column's; NULL or "" */
    char message[LA_CI_NOTE_LEN];
};

typedef int (*la_ci_sink)(void *ctx, const struct la_ci_note *n);

/** la_ci_notes() : every note of the files, in order: per file its first
 *  --max-report bad entries, then one note per finding. @return 0, or the
 *  sink's non-zero answer. */
int la_ci_notes(const struct la_file_report *files, int n, const struct la_config *cfg,
                la_ci_sink sink, void *ctx);

/** la_ci_split_path() : where dataset finding i of s lies for the CI: its
 *  first split's folder as the CI names it, else that split's name. */
const char *la_ci_split_path(const struct la_splits *s, size_t i, char *buf, size_t len);

/** la_ci_split_notes() : one note per finding between the splits of s (NULL:
 *  none), after the files'. @return 0, or the sink's non-zero answer. */
int la_ci_split_notes(const struct la_splits *s, la_ci_sink sink, void *ctx);

/** la_ci_entries() : finding code's first max bad entries, one per line
 *  ("row 17 (line 19): 10", "index 3: nan"), and "... K more" when it has
 *  more; for masks and volumes one line per bad sample, its file first
 *  ("voc/a.png: 80 invalid, value 255, the first at x 44, y 1"), into buf (each line starts with indent).
 *  *first_line: the physical line of the first, or 0. @return how many were listed. */
size_t la_ci_entries(const struct la_file_report *r, const struct la_config *cfg,
                     enum la_code code, uint64_t max, const char *indent, char *buf, size_t len,
                     uint64_t *first_line);

/** la_ci_finding_path() : where a CI system attaches finding code of r: for
 *  masks and volumes the file of its first bad sample (a folder's PNG), else
 *  r's own path; relative to the workspace (ci_path.h), in buf. @return buf. */
const char *la_ci_finding_path(const struct la_file_report *r, enum la_code code, char *buf,
                               size_t len);

#endif
