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

enum la_severity { LA_SEV_WARNING, LA_SEV_ERROR };

/* The SPEC's stable codes; la_finding_code_name() gives their spelling. */
enum la_code {
    LA_F_OUT_OF_RANGE, LA_F_NON_FINITE, LA_F_NON_INTEGER, LA_F_UNPARSABLE, LA_F_EMPTY,
    LA_F_FLOAT_LABELS, LA_F_ONE_BASED, LA_F_IGNORE_LIKE_VALUE, LA_F_MISSING_CLASSES,
    LA_F_TINY_LAST_BATCH, LA_F_NO_BATCHES, LA_F_INT_LABELS_DTYPE,
    /* segmentation masks that need a remap (issue 13) */
    LA_F_LABEL_GAP, LA_F_LABELIDS_NOT_TRAINIDS, LA_F_REDUCE_ZERO_LABEL,
    /* found by the imagefolder, coco and yolo readers (label_notes.h) */
    LA_F_HIDDEN_CLASS_FOLDER, LA_F_EMPTY_CLASS_FOLDER, LA_F_CLASS_COUNT, LA_F_UNKNOWN_CATEGORY,
    LA_F_DEGENERATE_BOX, LA_F_BOX_OUTSIDE_IMAGE, LA_F_DUPLICATE_LABEL,
    LA_F_MISSING_LABEL,          /* wds: a sample with no label member (issue 16) */
    LA_F_AMBIGUOUS_HEADER,       /* csv: pandas' default header, or a row of numbers? */
    LA_F_UNLOADABLE_IMAGE,       /* imagefolder: a sample its loader cannot open */
    LA_F_COUNT
};

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
};

/** la_finding_code_name() : "out-of-range", ... */
const char *la_finding_code_name(enum la_code code);
const char *la_severity_name(enum la_severity sev);

/** la_diagnose() : fill r->findings (and has_hist, hist_n, batching) from r->stats. */
void la_diagnose(struct la_file_report *r, const struct la_config *cfg);

/** la_report_exit_status() : errors and warnings over all files, and the exit status
 *  the SPEC gives them (0, 1, or 3 when a file could not be read). */
int la_report_exit_status(const struct la_file_report *files, int n, const struct la_config *cfg,
                          uint64_t *errors, uint64_t *warnings);

#endif
