/* file_source.h - a stand-in for input.c in the npy/npz reader tests.
 *
 * A la_source over a FILE*: path is what la_source_path() answers, so "-" makes
 * a reader treat the file as a stream (stdin), and gzip = 1 makes it spool the
 * bytes as for gzip input. */
#ifndef LA_FILE_SOURCE_H
#define LA_FILE_SOURCE_H

#include <stdint.h> /* uint64_t */
#include <stdio.h>  /* FILE */

#include "reader.h"

struct la_source {
    FILE *f;
    const char *path;
    int gzip;
    uint64_t off;
};

/* Everything a reader produced from one file. */
struct got {
    int rc;                    /* 0 ok, 1 open failed, 2 next failed, 3 order broken */
    char err[LA_ERR_LEN];
    struct la_array_info info;
    enum la_dtype dtype;
    unsigned char *v;          /* the values, concatenated (free it) */
    uint64_t n;
    int chunks;
};

/** fs_read_all() : run the reader ops over the file at path, answering as for
 *  la_source_path() and gzip for la_source_plain_fd(), and collect it all in *g. */
void fs_read_all(const struct la_reader_ops *ops, const char *path, const char *as, int gzip,
                 const struct la_read_opts *cfg, struct got *g);

/** fs_read_swapped() : fs_read_all, with the file at other renamed over path
 *  between opening the source and opening the reader (other NULL: no swap). */
void fs_read_swapped(const struct la_reader_ops *ops, const char *path, const char *as, int gzip,
                     const struct la_read_opts *cfg, const char *other, struct got *g);

/** fs_make_dir() : a fresh folder NAME.XXXXXX under $TMPDIR (or /tmp) in dir.
 *  @return 0, or -1. */
int fs_make_dir(const char *name, char *dir, size_t len);

/** fs_remove_dir() : remove it and its files, unless KEEP_FIXTURES is set. */
void fs_remove_dir(const char *dir);

#endif
