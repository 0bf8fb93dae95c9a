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
#include "formats.h"
#include "input.h"

#define LA_ERR_LEN 512

/* An option that may be given as yes or no, or left to a guess. */
enum la_tristate { LA_AUTO = -1, LA_NO = 0, LA_YES = 1 };

/* What the command line says about reading, and nothing else: a reader sees
 * these, never the whole la_config (the report's context holds them,
 * context.h, from la_read_opts_of in options.h). A NULL r->opts means all defaults (unit tests, fuzzers). */
struct la_column_plan;

struct la_read_opts {
    char delimiter;            /* -d; 0: ',' or '\t' for tsv */
    const char *column;        /* -c NAME|NUMBER; NULL: the default label-column rule */
    int header;                /* --header/--no-header: LA_YES, LA_NO, LA_AUTO (guess) */
    uint64_t skip_rows;        /* --skip-rows: lines before a table's first row */
    int has_dtype;             /* --dtype given */
    enum la_dtype dtype;       /* --dtype, for raw */
    int big_endian;            /* --endian=big */
    int has_endian;            /* --endian given */
    const char *array;         /* --array: the array (npz, mat, hdf5, ...) to audit; NULL: the default rule */
    const char *key;           /* --key: the sample's key holding the label (webdataset); NULL: default */
    int64_t vocab_size;        /* --vocab-size V; 0: not given */
    int threads;               /* -j; 0: online CPUs */
    uint64_t seq_len;          /* --seq-len L: a flat stream's samples are L values; 0: none */
    const char *field;         /* --field: jsonl's document key holding the records; NULL: JSON Lines */
    const char *glob;          /* --glob: hf-dataset reads the shards whose names match; NULL: all */
    const char *split;         /* hf-dataset: the split of a cache folder to read (plan.c), or NULL */
    /* the columns beside the label column, each against its table (columns.h):
     * the run's, immutable; NULL or none: the label column alone */
    const struct la_column_plan *columns;
};

/* What a reader knows about the array it reads, filled by its open(). */
struct la_array_info {
    enum la_format format;     /* set by the caller before open() */
    enum la_dtype dtype;       /* csv/text: LA_DT_INT64, becomes FLOAT64 once a
                                  float cell is read (see la_chunk.dtype) */
    int ndim;                  /* 1 for csv/text/raw; from the header for npy */
    uint64_t shape[LA_MAX_DIMS];
    int shape_known;           /* 0 for streams whose length shows at the end */
    int fortran_order;         /* npy fortran_order: True */
    int one_sample;            /* the whole file is ONE sample (an image, a volume):
                                  shape is the sample's, e.g. [H, W]; else the
                                  first axis counts the samples */
    int no_ignore;             /* the values are not loss targets (a YOLO class
                                  column, COCO category ids): the ignore index
                                  means nothing there, and is out of range */
    int line_records;          /* each line holding more than whitespace is one
                                  sample, a record (JSON Lines): the reports name
                                  a bad entry's record and line (line_map.h) */
    int token_stream;          /* the values are a language model's token ids by the
                                  format's own say (LitData's TokensLoader), not labels */
    int row_samples;           /* csv with notes: a row is one sample (b->sample), of
                                  its label cell's items where that holds a list
                                  (--model's columns): entries name their row so */
    char column[256];          /* csv: the label column's header name, or "" */
    int has_column;            /* csv: 1 when column[] names a header cell */
    uint64_t column_index;     /* csv: the label cell's index in a data row, from 0 */
    int header_present;        /* csv: the first row was a header */
    int header_guessed;        /* csv: ... or not, guessed (no --header/--no-header) */
    const char *header_why;    /* csv: why the guess went that way (a static string),
                                  NULL when a header cell named the label column */
    /* csv: the guess took a first row of pandas' default column names (0 or
     * 0,1,...) for a header, in a file of numbers, where it may as well be
     * data (np.savetxt of labels whose first is 0): the row, cells joined by
     * the delimiter, for the ambiguous-header warning; "" when not so */
    char header_ambiguous_row[48];
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
    const struct la_read_opts *opts;   /* --column, --delimiter, --dtype, ...; NULL: defaults */
    struct la_array_info info;
    void *state;                       /* the format's own state */
    /* Set by open() when every value lies in one run of a regular file (see
     * la_file_run). It is an offer: the caller either scans the run and never
     * calls next(), or ignores it and pulls chunks as usual. */
    int has_run;
    struct la_file_run run;
    /* Set by open() when next() runs its own work on threads of the -j
     * budget (the CSV reader's helper and blocks): the caller then pulls
     * chunks on its own thread rather than on a reader thread, which would
     * take one of -j from that work and idle the caller (the scan of a
     * parsed chunk costs a twentieth of its parse). */
    int threads_itself;
    char err[LA_ERR_LEN];              /* "line 17: ..." / "byte 128: ..." */
    /* imagefolder, coco, yolo: src is NULL; the reader walks or reads path
     * itself, and leaves what it found beside the values in notes (owned by
     * the caller after open(), freed by la_notes_free). */
    const char *path;
    struct la_notes *notes;
};

/* The readers, one per src/read/read_X.c; formats.c's table names their formats. */
extern const struct la_reader_ops la_reader_csv;   /* csv and tsv */
extern const struct la_reader_ops la_reader_text;
extern const struct la_reader_ops la_reader_npy;
extern const struct la_reader_ops la_reader_npz;
extern const struct la_reader_ops la_reader_raw;
extern const struct la_reader_ops la_reader_imagefolder;
extern const struct la_reader_ops la_reader_yolo;
extern const struct la_reader_ops la_reader_coco;   /* its open() refuses when built without yajl */
extern const struct la_reader_ops la_reader_pt;
extern const struct la_reader_ops la_reader_safetensors;
extern const struct la_reader_ops la_reader_mat;    /* built with libmatio only */
extern const struct la_reader_ops la_reader_hdf5;   /* built with libhdf5 only */
extern const struct la_reader_ops la_reader_png;     /* when built with libspng */
extern const struct la_reader_ops la_reader_tiff;    /* ... libtiff */
extern const struct la_reader_ops la_reader_nifti;   /* ... libniftiio */
extern const struct la_reader_ops la_reader_wds;     /* ... libarchive */
extern const struct la_reader_ops la_reader_megatron; /* PREFIX.idx + PREFIX.bin */
extern const struct la_reader_ops la_reader_mds;     /* MosaicML streaming (shards.h) */
extern const struct la_reader_ops la_reader_litdata; /* LitData optimize() output (shards.h) */
extern const struct la_reader_ops la_reader_arrow;   /* Parquet and Arrow files: Apache Arrow (C++) */
extern const struct la_reader_ops la_reader_hf_dataset; /* ... a `datasets` folder of them */
extern const struct la_reader_ops la_reader_jsonl;   /* JSON Lines; its open() refuses when built without yajl */
/* Magic-bytes tests of formats.c's table that live with their readers. */
int la_pt_magic(const unsigned char *head, size_t len);
int la_safetensors_magic(const unsigned char *head, size_t len);
int la_megatron_magic(const unsigned char *head, size_t len);

/* Where rows start, by the csv and text readers' rules (read_csv.c): LF, CR
 * LF and a lone CR end a row, a line of spaces and tabs is none, and in csv a
 * newline inside quotes, as the reader reads quotes (Python's rules), does
 * not end it. For line_map.c, which numbers the lines of the rows reported. */
struct la_csv_rows {
    unsigned char delim;
    int quotes;                /* csv/tsv: quoted fields; 0: text, one row a line */
    int state;                 /* the reader's requote filter state */
    int content;               /* the row so far holds more than padding */
    uint64_t line;             /* 1 + LF bytes fed */
    uint64_t row_line;         /* the line the current row started on */
    uint64_t skip;             /* --skip-rows: the first lines are no rows */
};

/** la_csv_rows_init() : a walk from the first byte of a file (its byte order
 *  mark skipped), quotes read when quotes, the first skip lines dropped. */
void la_csv_rows_init(struct la_csv_rows *w, unsigned char delim, int quotes, uint64_t skip);

/** la_csv_rows_feed() : the next n bytes; row_ended(line, ctx) for each row
 *  that ends in them, line being the one it started on. */
void la_csv_rows_feed(struct la_csv_rows *w, const char *p, size_t n,
                      void (*row_ended)(uint64_t line, void *ctx), void *ctx);

/** la_csv_rows_end() : the end of the file: row_ended for a last row without a newline. */
void la_csv_rows_end(struct la_csv_rows *w, void (*row_ended)(uint64_t line, void *ctx),
                     void *ctx);

/** la_csv_quote_step() : the csv reader's quote state (0: between fields) after
 *  byte c, from state (0 at a row's start): a delimiter or newline that leaves
 *  it 0 ends a field (and a newline the row). For --fix's CSV writer. */
int la_csv_quote_step(unsigned char delim, int state, unsigned char c);

/** la_reader_for_format() : the ops of format f, or NULL (no format, or built without it). */
const struct la_reader_ops *la_reader_for_format(enum la_format f);

/** la_label_name_rank() : where name[0..len) stands among the default label
 *  column names (label, labels, target, targets, class, y, class_id, ...: the
 *  man page lists them), matched case-insensitively: 0 for the first, -1 for
 *  none. The csv, Arrow and jsonl readers pick their default label column by it. */
int la_label_name_rank(const char *name, size_t len);

/** la_read_opts_or_default() : opts, or all defaults when NULL. */
const struct la_read_opts *la_read_opts_or_default(const struct la_read_opts *opts);

/** la_one_line() : text made fit for a one-line message, in place: every
 *  control byte (a newline or an escape sequence in a file, column, member or
 *  tensor name) becomes '?'. @return text. */
char *la_one_line(char *text);

/** la_reader_set_error() : printf into r->err, made one line by la_one_line();
 *  @return -1 for `return la_reader_set_error(...)`. */
int la_reader_set_error(struct la_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
