/* diagnose.h - the report model: a file's findings and everything the text and
 * JSON reports print about it. diagnose.c fills it from the scan's stats and
 * the batching numbers; report_text.c and report_json.c only read it. */
#ifndef LA_DIAGNOSE_H
#define LA_DIAGNOSE_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include "batching.h"
#include "options.h"
#include "reader.h"
#include "stats.h"
#include "weights.h"
#include "label_notes.h"
#include "findings.h"  /* enum la_code, la_finding_code_name */

#define LA_MSG_LEN 512

struct la_finding {
    enum la_severity severity;
    enum la_code code;
    char message[LA_MSG_LEN];     /* one line, for people */
    const char *prevents;         /* the PyTorch error in users' words, or NULL */
    char hint[LA_MSG_LEN];        /* the fix, or "" ("labels look 1-based: subtract 1") */
    /* ignore-like-value: the value to pass as --ignore-index */
    int has_suggested_ignore;
    int64_t suggested_ignore;
};

struct la_dataset;

/* Everything known about one audited file. */
struct la_file_report {
    const char *path;             /* as given */
    char error[LA_ERR_LEN];       /* "" when the file was read; else why not (exit 3) */
    int read_ok;
    struct la_array_info info;    /* format, dtype, shape, column */
    uint64_t samples;             /* first-axis length */
    struct la_stats stats;
    int has_hist;                 /* histogram is printed (N known, <= LA_HIST_MAX) */
    uint64_t hist_n;              /* N of the histogram */
    int hist_skipped;             /* -n above LA_HIST_MAX: no histogram, missing classes unchecked */
    int has_batching;
    struct la_batching batching;
    struct la_pos_counts pos;     /* bce matrices (S, C): the counts of pos_weight */
    struct la_notes *notes;       /* imagefolder, coco, yolo: what the reader found, or NULL */
    struct la_finding findings[LA_F_COUNT];
    size_t n_findings;
    struct la_dataset *dataset;   /* a directory or --concat (dataset.h), or NULL */
    struct la_class_count *classes;   /* where N came from (class_count.h), or NULL; owned */
};

/** la_diagnose() : fill r->findings (and has_hist, hist_n, batching) from r->stats. */
void la_diagnose(struct la_file_report *r, const struct la_config *cfg);

/** la_report_add_finding() : a finding of code with its table row's
 *  severity, prevents and fix, and the message from fmt; NULL when the
 *  report holds as many as it can. For the diagnoses outside this file
 *  (class_count.c). */
struct la_finding *la_report_add_finding(struct la_file_report *r, enum la_code code,
                                         const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** la_report_exit_status() : errors and warnings over all files, and the exit status
 *  the SPEC gives them (0, 1, or 3 when a file could not be read). */
int la_report_exit_status(const struct la_file_report *files, int n, const struct la_config *cfg,
                          uint64_t *errors, uint64_t *warnings);

#endif
