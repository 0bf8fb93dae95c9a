/* dataset.h - a dataset of many files: a directory argument, or --concat.
 *
 * A dataset is an ordered list of sources, audited as one, the way
 * torch.utils.data.ConcatDataset sees them: sample indices run on across the
 * sources, and the batching simulation runs on the total (SPEC "Datasets of
 * many files"). Each source is audited on its own (la_audit_file) and folded
 * into the dataset's report with its indices shifted; only the dataset's
 * accumulator and one small record per source stay in memory. */
#ifndef LA_DATASET_H
#define LA_DATASET_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include "diagnose.h"
#include "indices_out.h"
#include "scan.h"

/* One file of a dataset, as the report describes it. */
struct la_source_info {
    char *path;                 /* the argument, or DIR/relative path */
    enum la_format format;
    enum la_dtype dtype;
    uint64_t samples;           /* its first-axis length (1 for an image) */
    uint64_t first_sample;      /* its first sample's index in the dataset */
    uint64_t first_index;       /* its first value's flat index in the dataset */
    uint64_t count;             /* values read */
    int ndim;                   /* dims of one sample: 0 for a scalar label */
    uint64_t *inner;            /* the ndim dims of one sample (C order) */
};

/* A file below a directory that is not one of its sources, and why. */
struct la_skipped {
    char *path;
    char *why;                  /* "does not match --glob", or the read error */
};

struct la_dataset {
    struct la_source_info *src;
    size_t n_src, cap_src;
    struct la_skipped *skipped; /* the first --max-report of them */
    size_t n_skipped, cap_skipped;
    uint64_t skipped_total;
    uint64_t unreadable;        /* files that could not be read (exit 3) */
    int mixed_dtype;            /* the sources' dtypes differ: "dtype": "mixed" */
    char *path;                 /* the report's path: DIR, or FIRST+ for --concat */
};

/** la_is_hf_dataset_dir() : whether the folder path is one Hugging Face
 *  `datasets` wrote: save_to_disk's (dataset_info.json and state.json) or a
 *  cache folder (dataset_info.json beside .arrow shards). */
int la_is_hf_dataset_dir(const char *path);

/** la_is_directory() : whether path names a directory (following links). */
int la_is_directory(const char *path);

/** la_audit_dataset() : audit paths (one directory, or the --concat list) as
 *  one dataset into r. Each unreadable file is named on standard error and
 *  kept in r->dataset's skipped list; the others are still audited.
 *  @return 0, or -1 when the scan backend failed for good. */
int la_audit_dataset(char *const *paths, int n, int is_dir, const struct la_config *cfg,
                     struct la_scan_backend *b, struct la_indices_out *io,
                     struct la_file_report *r);

/* The steps of la_audit_dataset(), for another way of filling a dataset
 * (--merge: merge.h). */

/** la_dataset_begin() : an empty dataset report named after first (a
 *  directory, or first+). @return 0, or -1 with r->error (out of memory). */
int la_dataset_begin(struct la_file_report *r, const char *first, int is_dir,
                     const struct la_config *cfg);

/** la_dataset_add_source() : append a source (s->path and s->inner are
 *  copied) starting at the dataset's current sample and value counts; the
 *  caller then folds its stats into r->stats and adds its samples to
 *  r->samples. @return 0, or -1 when out of memory. */
int la_dataset_add_source(struct la_file_report *r, const struct la_source_info *s);

/** la_dataset_append() : append a source as it is (s->path and s->inner are
 *  copied; its first_sample and first_index as given): the YOLO reader's
 *  label files. @return 0, or -1 when out of memory. */
int la_dataset_append(struct la_dataset *d, const struct la_source_info *s);

/** la_dataset_note_skipped() / la_dataset_note_unreadable() : a file that is
 *  not a source, and why; an unreadable one is also said on standard error
 *  and makes the exit status 3. */
void la_dataset_note_skipped(struct la_dataset *d, const char *path, const char *why,
                             uint64_t max_report);
void la_dataset_note_unreadable(struct la_dataset *d, const char *path, const char *why,
                                uint64_t max_report);

/** la_dataset_fold_notes() : what source s's reader found beyond its values
 *  (n: a WebDataset sample without a label, COCO's unknown categories, an
 *  ImageFolder's hidden class folder) into r's notes, at dataset positions;
 *  format is the key of their JSON object; path names s in the places of the
 *  text (NULL: they name it already). @return 0, or -1 when out of memory. */
int la_dataset_fold_notes(struct la_file_report *r, const char *path, const char *format,
                          const struct la_notes *n, const struct la_source_info *s,
                          const struct la_config *cfg);

/** la_dataset_end() : the dataset's shape, findings and batching. */
void la_dataset_end(struct la_file_report *r, const struct la_config *cfg);

/** la_dataset_source_of() : the source holding dataset sample `sample`. */
const struct la_source_info *la_dataset_source_of(const struct la_dataset *d, uint64_t sample);

/** la_dataset_source_of_index() : the source holding dataset flat index
 *  `index` (a bad entry's source, also where it belongs to no sample). */
const struct la_source_info *la_dataset_source_of_index(const struct la_dataset *d,
                                                        uint64_t index);

/** la_dataset_at() : the position of dataset flat index `index` inside its
 *  sample, as at[0..*n) (C order); *n is 0 for a scalar label. */
void la_dataset_at(const struct la_source_info *s, uint64_t index, uint64_t *at, int *n);

/** la_dataset_unreadable() : how many of d's files could not be read (0 for NULL). */
static inline uint64_t la_dataset_unreadable(const struct la_dataset *d)
{
    return d ? d->unreadable : 0;
}

/** la_dataset_free() : release d and what it holds (NULL is fine). */
void la_dataset_free(struct la_dataset *d);

#endif
