/* dataset.h - a dataset of many files: a directory argument, or --concat.
 *
 * A dataset is an ordered list of sources, audited as one, the way
 * torch.utils.data.ConcatDataset sees them: sample indices run on across the
 * sources, and the batching simulation runs on the total (SPEC "Datasets of
 * many files"). Each source is audited on its own (la_audit_file) and folded
 * into the dataset's report with its indices shifted; only the dataset's
 * accumulator and one small record per source stay in memory (the list of
 * sources itself is part of the report model: source_list.h). */
#ifndef LA_DATASET_H
#define LA_DATASET_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include "diagnose.h"
#include "indices_out.h"
#include "scan.h"


/** la_audit_dataset() : audit paths (one directory, or the --concat list) as
 *  one dataset into r. Each unreadable file is named on standard error and
 *  kept in r->dataset's skipped list; the others are still audited.
 *  @return 0, or -1 when the scan backend failed for good. */
int la_audit_dataset(char *const *paths, int n, int is_dir, const struct la_report_ctx *ctx,
                     struct la_scan_backend *b, struct la_indices_out *io,
                     struct la_file_report *r);

/** la_audit_folder() : audit the folder path as la_audit_dataset() does, its
 *  files those below walk (path or a folder in it: a layout's labels,
 *  layouts.h) that match --glob, else glob (NULL: all). */
int la_audit_folder(const char *path, const char *walk, const char *glob,
                    const struct la_report_ctx *ctx, struct la_scan_backend *b,
                    struct la_indices_out *io, struct la_file_report *r);

/* The steps of la_audit_dataset(), for another way of filling a dataset
 * (--merge: merge.h). */

/** la_dataset_begin() : an empty dataset report named after first (a
 *  directory, or first+). @return 0, or -1 with r->error (out of memory). */
int la_dataset_begin(struct la_file_report *r, const char *first, int is_dir,
                     const struct la_report_ctx *ctx);

/** la_dataset_add_source() : append a source (s->path and s->inner are
 *  copied) starting at the dataset's current sample and value counts; the
 *  caller then folds its stats into r->stats and adds its samples to
 *  r->samples. @return 0, or -1 when out of memory. */
int la_dataset_add_source(struct la_file_report *r, const struct la_source_info *s);

/** la_dataset_fold_notes() : what source s's reader found beyond its values
 *  (n: a WebDataset sample without a label, COCO's unknown categories, an
 *  ImageFolder's hidden class folder) into r's notes, at dataset positions;
 *  format is the key of their JSON object; path names s in the places of the
 *  text (NULL: they name it already). @return 0, or -1 when out of memory. */
int la_dataset_fold_notes(struct la_file_report *r, const char *path, const char *format,
                          const struct la_notes *n, const struct la_source_info *s,
                          const struct la_report_ctx *ctx);

/** la_dataset_end() : the dataset's shape, findings and batching. */
void la_dataset_end(struct la_file_report *r, const struct la_report_ctx *ctx);

#endif
