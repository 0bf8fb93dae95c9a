/* label_notes.h - what the folder- and document-shaped readers (imagefolder,
 * coco, yolo) learn beyond the label values: their own findings (a hidden
 * class folder, a degenerate box), the problems behind them with their place
 * (file and line, annotation id and image_id), and a format-specific JSON
 * object and text lines (class_to_idx, the category-id histogram).
 *
 * The reader fills one while it reads; audit.c hands it to the file's report,
 * which outlives the reader; diagnose.c copies its findings, report_text.c
 * and report_json.c print the rest. Memory stays bounded: at most `cap`
 * problems are kept, the others only counted. */
#ifndef LA_LABEL_NOTES_H
#define LA_LABEL_NOTES_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include <stdio.h>  /* FILE */
#include <cjson/cJSON.h>
#include "stats.h"   /* la_sample_of */
#include "findings.h" /* enum la_code */

struct la_dataset;

/* The classes_from of ImageFolder's class folders, which class_count.c knows
 * them by (their count against -n stays the class-count finding). */
#define LA_CLASSES_FROM_FOLDERS "ImageFolder class folders"

#define LA_NOTES_MAX_FINDINGS 8
#define LA_NOTE_LEN 256

/* One problem a reader found, where it lies. */
struct la_note {
    enum la_code code;         /* the finding's code (LA_F_DEGENERATE_BOX, ...), or LA_P_AT:
                                  the place of one of the scan's bad entries */
    uint64_t index;            /* element index (annotation or line ordinal) */
    uint64_t sample;           /* its sample (file, image) */
    char where[LA_NOTE_LEN];   /* "labels/a.txt line 3", "annotation id 17 (image_id 4)" */
    char what[LA_NOTE_LEN];    /* "width 0", "class 80 >= nc 80" */
    cJSON *json;               /* the entry as printed in the JSON's "problems" */
};

struct la_notes {
    size_t cap;                        /* keep at most this many problems */
    struct la_note *problems;
    size_t n_problems, cap_problems;
    size_t n_own;                      /* kept problems other than LA_P_AT places */
    uint64_t problems_total;
    struct { enum la_code code; uint64_t count; } tally[LA_NOTES_MAX_FINDINGS];
    size_t n_tally;                    /* problems per code, kept or not */
    struct la_finding findings[LA_NOTES_MAX_FINDINGS];
    size_t n_findings;
    cJSON *json;                       /* the format's object ("imagefolder": {...}) */
    const char *json_key;              /* a dataset's: that object's key, its sources' format */
    size_t folded;                     /* a dataset's: the sources folded in (la_notes_fold) */
    char **owned;                      /* texts kept by la_notes_keep */
    size_t n_owned;
    char **lines;                      /* the text report's extra lines */
    size_t n_lines;
    /* imagefolder: how many classes torchvision finds (class-count, with -n);
     * coco: its categories' highest id + 1; a ClassLabel's num_classes */
    int has_classes;
    uint64_t classes;
    const char *classes_from;       /* where classes came from, e.g. "dataset_info.json ClassLabel"; static */
    char **class_names; size_t n_class_names; /* the classes' names, or NULL; owned, freed by la_notes_free */
    size_t classes_stated;          /* a dataset's: its first sources that stated these classes alike (a ClassLabel) */
    /* wds: the samples, counted while reading (the keys; the labels are the
     * elements, and a sample may have none), for audit.c's layout */
    int has_samples;
    uint64_t samples;
    /* Optional, set by the reader: name the place of each of the scan's bad
     * entries (ascending), as problems with code LA_P_AT; audit.c calls it once
     * after the scan. ctx is the reader's, freed by free_ctx with the notes. */
    int (*locate)(struct la_notes *n, const uint64_t *index, size_t count);
    void *ctx;
    void (*free_ctx)(void *ctx);
    /* Optional, set by the reader where a sample is not one element (yolo's
     * file of lines, coco's image of annotations): the sample of an element,
     * which audit.c hands to the scan's stats (la_stats_map_samples).
     * sample_ctx is the reader's, used during the scan only;
     * samples_ordered: a sample's elements are contiguous. */
    la_sample_of sample_of;
    void *sample_ctx;
    int samples_ordered;
    /* Optional, with samples_ordered: one past a sample's last element (the
     * all-ignored count walks samples of different lengths with it). */
    la_sample_end sample_end;
    /* Optional, with sample_of: the scan has folded every element before end
     * (called after each chunk, on the scan's thread), so a map that the
     * reader's thread fills (sample_map.h) may free what lies before it. */
    void (*sample_passed)(void *sample_ctx, uint64_t end);
    /* Optional, set by a reader of a folder of files (yolo): its files as a
     * dataset's sources, which the JSON lists as it lists any dataset's, each
     * bad entry with its "source" and "at". Freed with the notes. */
    struct la_dataset *sources;
    /* Optional, set by a reader of several columns (columns.h): the JSON's
     * "columns" (the other columns checked) and "lengths"; owned */
    cJSON *columns_json, *lengths_json;
    /* Optional, set by a reader whose entries name image files (COCO's
     * images): each file_name with the width and height it states (0: not
     * stated), for pairs.c to hold the files to. Owned. */
    struct la_image_entry *image_entries;
    size_t n_image_entries;
    /* set by a reader that cut --seq-len's blocks itself (LitData) and held
     * them to the position table as its loader feeds them: audit.c leaves
     * them be */
    int blocks_checked;
};

struct la_image_entry { char *file; double width, height; };

/** la_notes_add_image_entry() : one image file an entry names, and the size
 *  it states. @return 0, or -1 out of memory. */
int la_notes_add_image_entry(struct la_notes *n, const char *file, double width, double height);

/** la_notes_count_more() : count problems of code that are
 *  not kept: a merged report's beyond its list. */
void la_notes_count_more(struct la_notes *n, enum la_code code, uint64_t count);

/** la_notes_new() : an empty notes object keeping up to cap problems, or NULL. */
struct la_notes *la_notes_new(size_t cap);
void la_notes_free(struct la_notes *n);

/** la_notes_problem() : count a problem, and keep it while fewer than cap are kept.
 *  json (owned from now on) may be NULL: then an entry is built from the fields.
 *  @return 0, or -1 out of memory. */
int la_notes_problem(struct la_notes *n, enum la_code code, uint64_t index, uint64_t sample,
                     const char *where, const char *what, cJSON *json);

/** la_notes_finding() : add a finding (at most LA_NOTES_MAX_FINDINGS; extra ones are dropped). */
struct la_finding *la_notes_finding(struct la_notes *n, enum la_code code,
                                    const char *prevents, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** la_notes_keep() : a copy of text that lives as long as n (a finding's
 *  prevents read from a report), or NULL out of memory. */
const char *la_notes_keep(struct la_notes *n, const char *text);

/** la_notes_line() : add a line to the text report. @return 0, or -1 out of memory. */
int la_notes_line(struct la_notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** la_notes_find() : the kept problem at element index with code, or NULL. */
const struct la_note *la_notes_find(const struct la_notes *n, uint64_t index, enum la_code code);

/** la_notes_count() : how many problems of code were counted (kept or not). */
uint64_t la_notes_count(const struct la_notes *n, enum la_code code);

/* A dataset of many files (dataset.c) keeps its sources' notes as one. */
struct la_notes_shift {
    uint64_t first_index, first_sample;   /* the source's, in the dataset */
    size_t source;                        /* its index in the dataset's sources */
    const char *path;                     /* its path, which names the place in the text;
                                             NULL: the places name it already */
    /* whether the dataset kept its bad entry at (dataset) index: only then is
     * that entry's place ("at") worth keeping */
    int (*keeps_bad)(void *ctx, uint64_t index);
    void *ctx;
};

/** la_notes_fold() : add a source's notes to a dataset's: its problems at
 *  dataset positions, with "source" in their JSON; its findings (one per
 *  code, la_notes_fold_end words those of several sources); its counts; and
 *  the numbers of its format's object, summed. @return 0, or -1 out of memory. */
int la_notes_fold(struct la_notes *into, const struct la_notes *from,
                  const struct la_notes_shift *shift);

/** la_notes_unfold_message() : a finding's message read back from a
 *  dataset's report: the ", and N more in M other files" of
 *  la_notes_fold_end cut off, its numbers in f->more and f->sources.
 *  @return 1 when the message had it, else 0 (f unchanged). */
int la_notes_unfold_message(struct la_finding *f);

/** la_notes_fold_end() : after the last source: a finding met in several
 *  sources says how many more problems they hold; the sources' own summary
 *  lines and the parts of their format's object that are not counts describe
 *  one file each, so with several sources they are left out. */
void la_notes_fold_end(struct la_notes *n);

/* For the reports (report_text.c, report_json.c). */
/** la_notes_where() : where the scan's bad entry at index lies ("a.txt line 3"), or NULL. */
const char *la_notes_where(const struct la_notes *n, uint64_t index);
/** la_notes_print_lines() : the reader's summary lines, escaped. */
void la_notes_print_lines(FILE *out, const struct la_notes *n);
/** la_notes_print_problems() : the kept problems of code, "where: what", up to max_report. */
void la_notes_print_problems(FILE *out, const struct la_notes *n, enum la_code code,
                             uint64_t max_report);
/** la_notes_json_bad() : the place of the bad entry at index into its JSON entry. */
void la_notes_json_bad(const struct la_notes *n, uint64_t index, cJSON *entry);
/** la_notes_json_add() : the format's object, with its "problems", into the file's JSON. */
void la_notes_json_add(const struct la_notes *n, const char *format, cJSON *file);

#endif
