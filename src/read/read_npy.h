/* read_npy.h - the "npy stream" of read_npy.c: it turns the bytes after a
 * .npy header into C-order chunks. read_npy.c and read_npz.c share it, so
 * byte swapping, Fortran order and truncation are written once. */
#ifndef LA_READ_NPY_H
#define LA_READ_NPY_H

#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* ssize_t */
#include "fatal.h"     /* struct la_mapping */
#include "npy_header.h"
#include "reader.h"    /* struct la_chunk, struct la_array_info, struct la_file_run */

/* ---- the npy stream (read_npy.c) ----------------------------------------- */

/* Pull callback: read up to n bytes; fewer only at the end of the stream.
 * @return bytes read, or -1 with a message in err. */
typedef ssize_t (*la_npy_pull)(void *ctx, void *buf, size_t n, char *err, size_t errlen);

struct la_npy_stream {
    /* --- set by the caller before la_npy_stream_open() --- */
    la_npy_pull pull;
    void *ctx;
    const char *what;           /* "file" or "member", for messages */
    const char *too_big_hint;   /* the end of the "too large to reorder" message */
    int fd;                     /* >= 0: the same bytes lie in this file, for mmap */
    uint64_t fd_offset;         /* file offset of the stream's byte 0 */
    uint64_t fd_length;         /* the stream's length in that file */
    /* --- private --- */
    struct la_npy_header hdr;
    uint64_t pos;               /* stream bytes consumed */
    uint64_t done;              /* values emitted */
    unsigned char *buf;         /* one chunk, reused */
    size_t bufcap;
    const unsigned char *data;  /* gathering: the whole array in F order */
    struct la_mapping map;      /* the guarded mapping behind data, if any */
    unsigned char *mem;         /* malloc()ed copy behind data, or NULL */
    uint64_t cidx[LA_MAX_DIMS]; /* gathering: the next C-order multi-index */
    int ended;
};

/** la_npy_stream_open() : read and parse the header, choose how to emit.
 *  @return 0, or LA_NPY_NOT_NPY (bad magic) or -1, with a message in err. */
int la_npy_stream_open(struct la_npy_stream *s, char *err, size_t errlen);

/** la_npy_stream_next() : the next chunk in C order.
 *  @return 1 with *out filled, 0 at the end, -1 with a message in err. */
int la_npy_stream_next(struct la_npy_stream *s, struct la_chunk *out, char *err, size_t errlen);

/** la_npy_stream_gathers() : 1 when the data is read through fd, not pull. */
int la_npy_stream_gathers(const struct la_npy_stream *s);

/** la_npy_stream_run() : when nothing has been emitted yet and the data is
 *  exactly the rest of fd, native-order, C-contiguous and not bool, describe
 *  it as a file run (reader.h) and @return 1; else 0 (pull chunks instead,
 *  which also reports a truncated or overlong file). */
int la_npy_stream_run(const struct la_npy_stream *s, struct la_file_run *run);

/** la_npy_stream_info() : fill info from the header (format is left alone). */
void la_npy_stream_info(const struct la_npy_stream *s, struct la_array_info *info);

void la_npy_stream_close(struct la_npy_stream *s);

#endif
