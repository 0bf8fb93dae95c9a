/* layouts.h - the folder layouts a FILE is recognised by without --format:
 * one table (layouts.c), one row per layout, tried in its order.
 *
 * A row says what identifies the layout (entries of the folder, or a look
 * inside where names do not tell), which format reads it, and where its
 * labels lie below it. A folder no row claims is a dataset of its files
 * (dataset.c), each read by its own detected format; la_layout_unclaimed()
 * says what such a folder looks like when none of its files would be read.
 * This is the table the pairing of labels with their images extends (a
 * column of where each row keeps its images). */
#ifndef LA_LAYOUTS_H
#define LA_LAYOUTS_H

#include <stddef.h> /* size_t */

#include "formats.h" /* enum la_format */

struct la_layout {
    const char *name;  /* "nnU-Net", in -v and the man page */
    const char *shape; /* what identifies it, as people say it: "dataset.json + labelsTr/" */
    /* Space-separated fnmatch patterns on the folder's entries: every one of
     * `all` matched, one of `any` (when given), none of `none`. "x/" is a
     * folder x, "a/p" an entry p inside the folder a, "p" a file. */
    const char *all, *any, *none;
    /* Or, where the names do not tell, a look at path: 1 when it is this
     * layout. Tried when the names do not match (or there are none). */
    int (*test)(const char *path);
    /* The reader: a folder reader (LA_FMTF_PATH, given the labels folder),
     * or the format each label file is read as, LA_FMT_AUTO for each its own. */
    enum la_format format;
    const char *labels; /* the folder below path that holds the labels, when there is
                           one; NULL: path itself */
    const char *glob;   /* the label files among the files below it (fnmatch on the path
                           below the labels folder), when --glob gives none; NULL: all */
};

/** la_layout_of() : the row of the first layout that path (a folder, or a
 *  Megatron prefix that names no file) is, or NULL. */
const struct la_layout *la_layout_of(const char *path);

/** la_layout_labels() : where l's labels lie below path (path/LABELS when
 *  that folder exists, else path), into buf. @return buf. */
char *la_layout_labels(const struct la_layout *l, const char *path, char *buf, size_t len);

/** la_layout_unclaimed() : for a folder no layout claims whose files no
 *  format reads (images that cannot be masks), what it looks like and which
 *  --format would read what it holds, into buf; NULL when its files may be
 *  labels (it is then a dataset of files). */
const char *la_layout_unclaimed(const char *path, char *buf, size_t len);

/** la_layouts() : the table, *n its rows (for the tests and the docs). */
const struct la_layout *la_layouts(size_t *n);

#endif
