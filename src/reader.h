/* reader.h - the one interface every input format implements.
 *
 * A reader turns a byte source (input.h) into a stream of chunks of typed
 * values in host byte order, numbered by their flat index in the file. The
 * audit loop (audit.c) pulls chunks and hands them to a scan backend; it never
 * knows which format produced them. Memory stays bounded: a reader owns one
 * chunk buffer at a time and reuses it. */
#ifndef LA_READER_H
#define LA_READER_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */
#include "dtype.h"
#include "input.h"
#include "options.h"

#define LA_MAX_DIMS 32
#define LA_ERR_LEN 512

/* What a reader knows about the array it reads, filled by its open(). */
struct la_array_info {
    const char *format;        /* "csv", "tsv", "text", "npy", "npz", "raw" */
    enum la_dtype dtype;       /* csv/text: LA_DT_INT64, becomes FLOAT64 once a
                                  float cell is read (see la_chunk.dtype) */
    int ndim;                  /* 1 for csv/text/raw; from the header for npy */
    uint64_t shape[LA_MAX_DIMS];
    int shape_known;           /* 0 for streams whose length shows at the end */
    int fortran_order;         /* npy fortran_order: True */
    char column[256];          /* csv: the label column's header name, or "" */
    int has_column;            /* csv: 1 when column[] names a header cell */
    int header_present;        /* csv: the first row was a header */
    int header_guessed;        /* csv: ... or not, guessed (no --header/--no-header) */
    const char *header_why;    /* csv: why the guess went that way (a static string),
                                  NULL when a header cell named the label column */
};

/* One run of consecutive values, or one cell that is not a number. */
struct la_chunk {
    enum la_dtype dtype;      /* of values[]; csv/text chunks are INT64 or FLOAT64 */
    const void *values;       /* count elements, host byte order, owned by the reader */
    size_t count;
    uint64_t first_index;     /* flat index (file order) of values[0] */
    /* Non-NULL: this chunk is a single unparsable cell at first_index whose
     * text is this string (count is 1, values unused). Readers flush the
     * values before it first, so chunks always arrive in index order. */
    const char *unparsable;
};

/* Where a reader's values lie as one contiguous run of native-order elements
 * in a regular file (plain .npy, raw): audit.c may then map the run in
 * windows and scan it in place, instead of pulling copies through next(). */
struct la_file_run {
    int fd;                   /* open on the file; owned by the reader */
    uint64_t offset;          /* byte offset of the first value, a multiple of its size */
    uint64_t count;           /* values */
    enum la_dtype dtype;      /* host byte order; never bool (bytes 2..255 need fixing) */
};

struct la_reader;

struct la_reader_ops {
    const char *format;
    /** open() : read the header, fill r->info. @return 0, or -1 with r->err set. */
    int (*open)(struct la_reader *r);
    /** next() : @return 1 with *out filled, 0 at the end, -1 with r->err set.
     *  out stays valid until the next call. */
    int (*next)(struct la_reader *r, struct la_chunk *out);
    void (*close)(struct la_reader *r);
};

struct la_reader {
    const struct la_reader_ops *ops;
    struct la_source *src;             /* the decompressed bytes */
    const struct la_config *cfg;       /* --column, --delimiter, --dtype, ... */
    struct la_array_info info;
    void *state;                       /* the format's own state */
    /* Set by open() when every value lies in one run of a regular file (see
     * la_file_run). It is an offer: the caller either scans the run and never
     * calls next(), or ignores it and pulls chunks as usual. */
    int has_run;
    struct la_file_run run;
    char err[LA_ERR_LEN];              /* "line 17: ..." / "byte 128: ..." */
};

/* The formats. npz is given the path, since it needs random access. */
extern const struct la_reader_ops la_reader_csv;   /* csv and tsv */
extern const struct la_reader_ops la_reader_text;
extern const struct la_reader_ops la_reader_npy;
extern const struct la_reader_ops la_reader_npz;
extern const struct la_reader_ops la_reader_raw;

/** la_reader_for_format() : the ops for a format name, or NULL. */
const struct la_reader_ops *la_reader_for_format(const char *format);

/** la_reader_set_error() : printf into r->err; @return -1 for `return la_reader_set_error(...)`. */
int la_reader_set_error(struct la_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
