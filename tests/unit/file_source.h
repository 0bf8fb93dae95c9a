/* file_source.h - a stand-in for input.c in the npy/npz reader tests.
 *
 * A la_source over a FILE*: path is what la_source_path() answers, so "-" makes
 * a reader treat the file as a stream (stdin), and gzip = 1 makes it spool the
 * bytes as for gzip input. file_source.c also defines la_reader_set_error, so a
 * reader links without reader.c's format table. */
#ifndef LA_FILE_SOURCE_H
#define LA_FILE_SOURCE_H

#include <stdint.h> /* uint64_t */
#include <stdio.h>  /* FILE */

struct la_source {
    FILE *f;
    const char *path;
    int gzip;
    uint64_t off;
};

#endif
