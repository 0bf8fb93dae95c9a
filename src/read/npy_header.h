/* npy_header.h - the .npy header parser: a pure function over a buffer, so a
 * fuzzer can call it. The stream that reads the data after the header lives
 * in read_npy.c and is declared in read_npy.h. */
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

/* la_npy_header_size()'s answer when the bytes are not a .npy at all (an .npz
 * member that is some other file says so in its own words). */
#define LA_NPY_NOT_NPY (-2)

/** la_npy_header_size() : from the preamble in buf[0..len) (len >= 10, or 12
 *  for versions 2 and 3), the total header size, i.e. where the data starts.
 *  @return 0 and *total, or LA_NPY_NOT_NPY (bad magic) or -1, with a one-line
 *  "byte N: ..." message in err. */
int la_npy_header_size(const unsigned char *buf, size_t len, size_t *total,
                       char *err, size_t errlen);

/** la_npy_parse_header() : parse a whole .npy header in buf[0..len).
 *  @return the bytes consumed (out->data_offset), or -1 with "byte N: ..." in err. */
long la_npy_parse_header(const unsigned char *buf, size_t len, struct la_npy_header *out,
                         char *err, size_t errlen);

#endif
