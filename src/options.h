/* options.h - the command line: struct la_config, filled by options.c only.
 *
 * Everything the SPEC's options say lives here; the other modules read it and
 * never parse argv themselves. It is the run's, not a report's: main.c
 * completes it (la_options_parse, then the run's setup: the split FILEs,
 * --merge's checks, -j 0's CPUs, --model read) and from then on every
 * module gets it as const. What differs per report (its format, N and its
 * sources, the split) is the report's context (context.h), which plan.c
 * builds. */
#ifndef LA_OPTIONS_H
#define LA_OPTIONS_H

#include <stdint.h>  /* int64_t */
#include <stdbool.h> /* bool */
#include "reader.h"  /* enum la_format, la_tristate, struct la_read_opts */

struct la_model;
struct la_column_plan;

enum la_loss { LA_LOSS_CE, LA_LOSS_NLL, LA_LOSS_BCE };
enum la_fail_on { LA_FAIL_ERROR, LA_FAIL_WARNING, LA_FAIL_NEVER };
enum la_backend_choice { LA_BACKEND_AUTO, LA_BACKEND_CPU, LA_BACKEND_GPU };
/* --annotations: a set, both may be given */
enum la_annotations { LA_ANNOT_NONE = 0, LA_ANNOT_GITHUB = 1, LA_ANNOT_GITLAB = 2 };

struct la_config {
    /* what is checked */
    enum la_loss loss;
    bool has_num_classes;
    int64_t num_classes;
    bool has_ignore_index;         /* false with --ignore-index=none and for bce */
    int64_t ignore_index;          /* default -100 */
    bool has_vocab_size;
    int64_t vocab_size;

    /* reading input */
    enum la_format format;         /* LA_FMT_AUTO: detect each file */
    /* what readers read (-c, --header, -d, --dtype, --array, --key, ...):
     * set from reader_options.c's table; .threads, .vocab_size and .seq_len
     * are filled by la_read_opts_of (context.h) from the fields below */
    struct la_read_opts read;

    /* language-model tokens: --vocab-size also sets has_num_classes/num_classes
     * to V (it is -n V, worded for the embedding); --seq-len cuts a flat
     * stream into samples of seq_len ids */
    uint64_t seq_len;              /* 0: not given */
    bool ignore_index_given;       /* --ignore-index was on the command line */
    /* where the class count is written (class_count.h) */
    const char *model;             /* --model=PATH: a model folder or its config.json, or NULL */
    const char *data_yaml;         /* --data-yaml=FILE, or NULL: found beside a yolo folder */
    const struct la_model *model_info;   /* --model as read by main before the audit, or NULL */
    const char *columns;           /* --columns=a,b,NAME=ROLE, or NULL */
    /* the columns beside the labels checked against their tables, built by
     * main once --model is read (columns.h); NULL: none */
    const struct la_column_plan *column_plan;

    /* batching */
    bool has_batch_size;
    uint64_t batch_size;
    bool drop_last;
    uint64_t world_size;           /* 1: no DistributedSampler */
    bool sampler_drop_last;
    uint64_t min_batch;            /* default 2 */

    /* performance */
    enum la_backend_choice backend;
    int threads;                   /* 0: online CPUs */
    int progress;                  /* LA_AUTO, LA_NO, LA_YES */

    /* output */
    bool json;
    bool concise;                  /* --concise: one line per finding (report_concise.c) */
    bool has_max_report;
    uint64_t max_report;           /* default 10 text, 1000 json */
    const char *indices_out;
    enum la_fail_on fail_on;
    bool quiet;
    bool verbose;                  /* -v: how each file is read, on stderr (msg.h) */
    int color;                     /* LA_AUTO, LA_NO, LA_YES */

    /* for CI systems and for people */
    bool histogram;                /* --histogram: bars and class weights in the text report */
    const char *junit;             /* --junit=FILE, or NULL */
    int annotations;               /* enum la_annotations, or-ed */
    const char *annotations_file;  /* --annotations=gitlab:FILE */
    const char *html;              /* --html=FILE, or NULL */
    const char *overlays;          /* --overlays=DIR, or NULL */
    const char *sarif;             /* --sarif=FILE, or NULL */

    /* corrected copies (fix.h) */
    const char *fix_dir;           /* --fix=DIR, or NULL */
    bool fix_drop;                 /* --fix-drop: samples no rule fixes are left out */
    const char *fix_map;           /* --fix-map=FILE: old -> new labels, or NULL */
    bool has_fix_ignore;           /* --fix-ignore=V: what ignore-like values become */
    int64_t fix_ignore;

    /* datasets of many files (dataset.h) */
    bool concat;                   /* --concat: all FILEs are one dataset */
    const char *glob;              /* --glob=PATTERN for directory FILEs, or NULL */
    bool merge;                    /* --merge: FILEs are shard reports (merge.h) */
    /* per FILE once la_plan_splits() ran: the split of a `datasets` cache
     * folder it reads (that folder is as many FILEs as it has splits), or
     * NULL; a report's own is its context's (context.h) */
    char **splits;
    /* --split NAME=PATH, as given: la_plan_splits() makes each a FILE */
#define LA_MAX_SPLIT_ARGS 64
    const char *split_args[LA_MAX_SPLIT_ARGS];
    int n_split_args;
    int n_merge_splits;            /* --merge: the splits its shards name (cfg->splits) */
    double drift_threshold;        /* --drift-threshold: label-drift's TVD (default 0.1) */
    bool overlap_by_content;       /* --overlap=hash: split-overlap by the files' bytes */
    const char *images;            /* --images=DIR: the labels' images (pairs.h), or NULL */
    /* per FILE once la_plan_splits() ran: why it cannot be planned (a
     * DatasetDict whose dataset_dict.json cannot be read), or NULL */
    char **unplanned;
    enum la_format *planned_formats;   /* per FILE then: its layout's format (COCO's
                                          split files), or LA_FMT_AUTO */

    char **files;
    int nfiles;
    /* the .labelaudit.yaml whose options were taken, as found from the
     * current directory ("../.labelaudit.yaml"), or NULL (--no-config, none) */
    const char *config_file;
};

/* The exit statuses (SPEC), the one list main.c and diagnose.c both use. */
enum la_exit {
    LA_EXIT_CLEAN = 0,      /* no finding at or above --fail-on */
    LA_EXIT_FINDINGS = 1,   /* findings at or above --fail-on */
    LA_EXIT_USAGE = 2,      /* a usage error, or an output file that is an input */
    LA_EXIT_UNREADABLE = 3, /* an input could not be read, or an output not written */
};

enum la_opterr { LA_OPT_OK, LA_OPT_EXIT_OK, LA_OPT_USAGE };

/** la_options_parse() : fill cfg from argv. Prints --help/--version itself
 *  (LA_OPT_EXIT_OK) and a GNU-style message for a usage error (LA_OPT_USAGE). */
enum la_opterr la_options_parse(int argc, char **argv, struct la_config *cfg);



#endif
