/* file_report.h - the report model: what is known about one audited file or
 * dataset, which every stage below the command fills or reads. The reader
 * and the scan fill its info and stats (audit.c), a dataset adds its sources
 * (dataset.c, merge.c), diagnose.c adds the findings, and the renderers
 * (report_*.c) only read it. It depends on no stage, so each can see it
 * without seeing the others. */
#ifndef LA_FILE_REPORT_H
#define LA_FILE_REPORT_H

#include <stdint.h> /* uint64_t */
#include <stdarg.h> /* va_list */
#include <stddef.h> /* size_t */
#include "batching.h"  /* la_batching */
#include "findings.h"  /* enum la_code, la_severity, LA_F_COUNT */
#include "ignored_samples.h" /* la_ignored_samples */
#include "reader.h"    /* la_array_info, LA_ERR_LEN */
#include "source_list.h" /* la_dataset: a dataset's sources */
#include "stats.h"     /* la_stats */
#include "weights.h"   /* la_pos_counts */

struct la_notes;        /* label_notes.h */
struct la_pairs;        /* pair_list.h */
struct la_class_count;  /* class_count.h */

/* --fix: what a report of a corrected copy says of its making (fix.c owns it). */
struct la_fix_result {
    const char *of;               /* the original's path, as given */
    const char *rules;            /* the rules applied, ", "-separated: "one-based, label-gap" */
    uint64_t changed;             /* values the rules changed */
    uint64_t dropped;             /* samples --fix-drop left out */
    unsigned char had[LA_F_COUNT];    /* the original's findings, by code */
};

/* Everything known about one audited file. */
/* Whether a report is of token data, and how: its N a vocabulary's, its values
 * labels over it (a causal LM's labels column), or the ids themselves. */
enum la_vocabulary {
    LA_VOCAB_NONE,     /* class labels */
    LA_VOCAB_LABELS,   /* labels whose N is the vocabulary (the model's vocab_size) */
    LA_VOCAB_IDS,      /* the ids fed to the embedding (a token format, an input_ids column) */
};

struct la_file_report {
    const char *path;             /* as given */
    const char *split;            /* the split of a `datasets` cache folder it is, or NULL (the config's) */
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
    struct la_dataset *dataset;   /* a directory, --concat or --merge (below), or NULL */
    struct la_pairs *pairs;       /* its labels against their images (pairs.h), or NULL */
    uint64_t seq_len;             /* --seq-len cut this stream into blocks of as many ids; 0: not */
    int token_ids;                /* --vocab-size over the ids fed to the embedding (audit.h) */
    enum la_vocabulary vocabulary; /* token data: the report says token ids, vocabulary and
                                     --vocab-size, never classes and -n (audit.h) */
    struct la_ignored_samples ignored_samples; /* all-ignored: samples with no target */
    int ignore_off;               /* --vocab-size over ids: the ignore index was not skipped */
    struct la_class_count *classes;   /* where N came from (class_count.h), or NULL; owned, */
    void (*classes_free)(struct la_class_count *);   /* and freed by this (the model
                                                        does not see class_count.c) */
    const struct la_fix_result *fix;  /* a corrected copy's report (--fix): how it was
                                         made; NULL for every input's */
};

/** la_report_add_finding() : a finding of code with its table row's
 *  severity, prevents and fix (findings.h), and the message from fmt; NULL
 *  when the report holds as many as it can. The diagnoses (diagnose.c,
 *  class_findings.c) add theirs with it. */
struct la_finding *la_report_add_finding(struct la_file_report *r, enum la_code code,
                                         const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** la_report_vadd_finding() : la_report_add_finding() with a va_list. */
struct la_finding *la_report_vadd_finding(struct la_file_report *r, enum la_code code,
                                          const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* What became of a finding of the original in its corrected copy (--fix). */
enum la_fix_state { LA_FIXS_NONE, LA_FIXS_REMOVED, LA_FIXS_REMAINING, LA_FIXS_NEW };

/** la_fix_state_of() : for a copy's report r (r->fix set), what became of code:
 *  the original had it and r has not (removed), both have it (remaining), only
 *  r has it (new), or neither. */
enum la_fix_state la_fix_state_of(const struct la_file_report *r, enum la_code code);

/** la_file_report_free() : release what the audit, a dataset or a merge
 *  allocated in r (not r itself). */
void la_file_report_free(struct la_file_report *r);

/** la_report_sources() : the files of r: a dataset's sources, or the files
 *  of a folder that one reader reads (yolo), listed the same way; or NULL. */
const struct la_dataset *la_report_sources(const struct la_file_report *r);

/** la_report_by_sample() : whether r's bad entries are told by sample (masks,
 *  volumes: a folder of PNGs names each bad PNG) rather than one by one, as
 *  the text report and the CI outputs both tell them. */
int la_report_by_sample(const struct la_file_report *r);

#endif
