/* source_list.h - a dataset's sources and the files it skipped, as its report
 * keeps them (file_report.h's r->dataset): the directory's files, the
 * --concat list, a --merge's shards, a YOLO folder's label files. Sample and
 * flat indices run on across the sources; each source records where its own
 * begin, and these functions find the source of a dataset position. */
#ifndef LA_SOURCE_LIST_H
#define LA_SOURCE_LIST_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include "dtype.h"   /* la_dtype */
#include "formats.h" /* la_format */

/* One file of a dataset, as the report describes it. */
struct la_source_info {
    char *path;                 /* the argument, or DIR/relative path */
    enum la_format format;
    enum la_dtype dtype;
    uint64_t samples;           /* its first-axis length (1 for an image) */
    uint64_t first_sample;      /* its first sample's index in the dataset */
    uint64_t first_index;       /* its first value's flat index in the dataset */
    uint64_t count;             /* values read */
    uint64_t bad;               /* its invalid values (0 where unknown: --merge), for
                                   the pictures of the worst masks (mask_image.h) */
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
