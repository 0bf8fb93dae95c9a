/* npy_header.h - the .npy format: the header parser (a pure function over a
 * buffer, so a fuzzer can call it) and the "npy stream" that turns the bytes
 * after the header into C-order chunks. read_npy.c and read_npz.c share the
 * stream, so byte swapping, Fortran order and truncation are written once. */
#ifndef LA_NPY_HEADER_H
#define LA_NPY_HEADER_H

#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* ssize_t */
#include "dtype.h"
#include "reader.h"    /* struct la_chunk, struct la_array_info, LA_MAX_DIMS */

/* The fixed part before the dict: magic, version, header length (v1: 10 bytes). */
#define LA_NPY_PREAMBLE_MAX 12
/* A real header is under 1 KiB; anything near this limit is hostile input. */
#define LA_NPY_HEADER_MAX (1u << 20)

struct la_npy_header {
    int major, minor;           /* 1.0, 2.0 or 3.0 */
    char descr[32];             /* as written, e.g. "<i8" */
    enum la_dtype dtype;
    int swap;                   /* data byte order differs from the host's */
    int fortran_order;
    int ndim;                   /* 0 for a scalar */
    uint64_t shape[LA_MAX_DIMS];
    uint64_t count;             /* product of shape (1 for a scalar) */
    uint64_t nbytes;            /* count * element size */
    size_t data_offset;         /* preamble + dict: where the data starts */
};

/** la_npy_header_size() : from the preamble in buf[0..len) (len >= 10, or 12
 *  for versions 2 and 3), the total header size, i.e. where the data starts.
 *  @return 0 and *total, or -1 with a one-line "byte N: ..." message in err. */
int la_npy_header_size(const unsigned char *buf, size_t len, size_t *total,
                       char *err, size_t errlen);

/** la_npy_parse_header() : parse a whole .npy header in buf[0..len).
 *  @return the bytes consumed (out->data_offset), or -1 with "byte N: ..." in err. */
long la_npy_parse_header(const unsigned char *buf, size_t len, struct la_npy_header *out,
                         char *err, size_t errlen);

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
    void *map;                  /* mmap()ed region behind data, or NULL */
    size_t maplen;
    unsigned char *mem;         /* malloc()ed copy behind data, or NULL */
    uint64_t cidx[LA_MAX_DIMS]; /* gathering: the next C-order multi-index */
    int ended;
};

/** la_npy_stream_open() : read and parse the header, choose how to emit.
 *  @return 0, or -1 with a message in err. */
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
