/* read_csv.h - the CSV reader's parts (read_csv.c and csv_*.c), not for other
 * modules: the reader's state and the calls between its parts.
 *
 *   read_csv.c       the reader: input (mapped, or read a block at a time),
 *                    pending values, the row handlers, the fast path, next()
 *   csv_header.c     the first rows kept: the header guess and the column choice
 *   csv_requote.c    libcsv behind the requote filter, which makes it read
 *                    quotes as Python does; the row rule of line_map.c
 *   csv_parallel.c   the parse on other threads: the fast path's two halves,
 *                    and libcsv in blocks of rows, each a task on the scheduler
 *   csv_columns.c    the other columns the model indexes (--model, --vocab-size)
 *
 * Only csv_parallel.c knows that there are threads, and it sees none itself
 * (scheduler.h). See read_csv.c for the rules the parsers share. */
#ifndef LA_READ_CSV_H
#define LA_READ_CSV_H

#include "fatal.h"   /* struct la_mapping */
#include "reader.h"

#include <csv.h>     /* struct csv_parser: libcsv */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t, int64_t */
#include <string.h>  /* memchr */

struct blocks;       /* csv_parallel.c's */
struct la_csv_cols;  /* csv_columns.c's */
struct helper;

#define READ_BYTES ((size_t)1 << 20) /* bytes asked of the source per read */
#define PIECE 4096                     /* bytes per csv_parse call: bounds rows per call */
#define CHUNK 65536                    /* values per chunk */
#define PENDING (2 * CHUNK + PIECE)    /* a csv_parse call adds <= PIECE/2 + 2 rows past CHUNK;
                                          a split block adds <= CHUNK (see la_csv_split_parse,
                                          la_csv_blocks_parse) */
#define SPLIT_MIN ((size_t)64 << 10)   /* fewer bytes of complete lines: not worth a helper */
#define SAMPLE_BYTES ((size_t)64 << 10) /* bytes estimate_lines counts lines in, */
#define SAMPLES 16                      /* in this many pieces */
#define SURE_MAX 4096                  /* bytes sure_row_start reads before a block speculates */
#define GIVE_BACK ((size_t)1 << 20)  /* mapped bytes parsed before their pages are dropped */
#define MAP_BLOCKS 2                   /* blocks a mapped file moves on by for libcsv: a
                                          step in blocks parses what was mapped, and two
                                          steps are in flight (step_ahead), so the resident
                                          pages stay what one 4 MiB step had (the fast path
                                          splits a step in two halves, whose imbalance grows
                                          with it: one block there) */
#define FIELD_MAX ((size_t)16 << 20)   /* longest cell libcsv may buffer */
#define FIRST_ROW_MAX ((size_t)16 << 20)
#define SNIFF_ROWS 20                  /* data rows the header guess compares the first row with */
#define SNIFF_BYTES ((size_t)1 << 20)  /* ... or fewer, once the kept rows hold this much */
#define TEXT_MAX 200                   /* bytes of an unparsable cell kept for the report */

enum kind { K_INT, K_FLOAT, K_BAD };

/* Where the requote filter is in a field (see requote_byte). */
enum rq_state {
    RQ_START,     /* before a field's first byte other than padding */
    RQ_PLAIN,     /* in an unquoted field */
    RQ_QUOTED,    /* in a quoted field */
    RQ_QUOTE,     /* a quote in a quoted field: doubled or closing, the next byte says */
    RQ_TAIL       /* past a closing quote that did not end the field */
};

/* The bytes given to libcsv, gathered so a call parses OUT_CAP bytes. */
#define OUT_CAP 8192
#define UNIT_BYTES 2048  /* a part gives libcsv whole rows, about this many bytes at a time */
struct requote {
    enum rq_state state;
    size_t pads;              /* RQ_TAIL: out ends with this many spaces and tabs,
                                 dropped if the field ends after them */
    size_t field;             /* index of the field in its row */
    int elide;                /* the column is known: other cells lose their text */
    int el;                   /* this field is another cell, since its start (requote_elided) */
    int open;                 /* el: its stand-in's opening quote is written */
    uint64_t elided;          /* bytes of this field not given to libcsv */
    size_t n;
    char out[OUT_CAP];
};

/* The first rows, kept whole for the header guess, which compares the first
 * row with up to SNIFF_ROWS more (csv_header.c; freed once resolved). */
struct la_csv_kept {
    char *text;               /* the cells of the kept rows, each NUL-terminated */
    size_t len, cap;
    size_t *off;              /* cell i's offset in text */
    size_t ncells, offcap;    /* cells; bytes allocated for off */
    size_t n;                 /* whole rows kept */
    size_t first[SNIFF_ROWS + 1];   /* a kept row's first cell in off */
    size_t cells[SNIFF_ROWS + 1];
    uint64_t line[SNIFF_ROWS + 1];
};

/* The reader's state, by concern: each part is the state of one of them,
 * named where it is used (s->in.buf, s->pend.vals). */
struct la_csv {
    struct la_reader *r;
    unsigned char delim;
    int done;                 /* every byte parsed, the last row ended */
    int failed;               /* r->err holds the first error */
    struct la_csv_cols *cols; /* the columns checked beside the label's (csv_columns.c),
                                 NULL: the label column alone */

    /* input: buf[pos..len) is read but not parsed; cap is 2 * READ_BYTES */
    struct {
        char *buf;
        size_t len, pos;
        /* a plain file is read in place (map_input): buf is then the file from
         * byte map_base on, mapped, and la_csv_fill() only moves len a block on */
        struct la_mapping map;    /* the guarded mapping buf lies in, if any */
        size_t map_len;           /* bytes from buf on that the file holds */
        uint64_t map_base;        /* the file offset of buf[0] */
        size_t given_back;        /* the mapping's first given_back bytes are no longer
                                     resident (madvise) */
        size_t scan;              /* fast path: buf[pos..scan) holds no LF */
        int eof;                  /* the source has no more bytes */
    } in;

    /* libcsv, where the fast path gives way to it (csv_requote.c) */
    struct {
        int slow;                 /* libcsv owns the rest of the input */
        int reference;            /* LABELAUDIT_CSV_SLOW=1: libcsv alone, every byte, one thread */
        struct csv_parser parser;
        int parser_live;
        struct requote rq;        /* libcsv's input, rewritten to read quotes as Python does */
    } lib;

    /* where the parse is */
    struct {
        uint64_t line;            /* 1 + LF bytes parsed: the line of the next row */
        uint64_t row_line;        /* libcsv: the line where the current row started */
        size_t field;             /* libcsv: index of the next cell in the current row */
    } at;

    /* the first rows, kept whole until the header and the column are known
     * (csv_header.c) */
    struct {
        int resolved;
        size_t col;               /* 0-based label column, once resolved */
        size_t width;             /* cells in a data row: no row may have more */
        struct la_csv_kept kept;
    } hdr;

    /* pending values: vals[head..tail) as int64 or double, kinds[] says which */
    struct {
        void *vals;
        unsigned char *kinds;
        size_t head, tail;
        uint64_t index;           /* flat index of vals[head] */
        int saw_float;
        int brk;                  /* the run at head is complete: stop producing */
        char *texts;              /* unparsable cells, NUL-terminated, in row order */
        size_t text_len, text_cap, text_pos;
    } pend;

    /* libcsv on every thread (-j2 and up): see la_csv_blocks_parse */
    struct {
        struct blocks *blocks;    /* NULL until the first parallel block */
        int no_blocks;            /* -j1, LABELAUDIT_CSV_SLOW=1, or no thread could start */
        int at_row_start;         /* libcsv and the requote filter are between rows, and
                                     in.buf[in.pos] starts a line */
        int part;                 /* this csv parses one block on a scheduler thread: it stores
                                     plain rows only, and "fails" (stops) at any other */
        size_t cap;               /* rows pend.vals holds: PENDING, or a part's share */
        size_t block;             /* bytes asked of the source per read (READ_BYTES, or
                                     LABELAUDIT_CSV_BLOCK for tests) */
        size_t split_min;         /* fewer bytes: libcsv stays on this thread */
    } blk;

    /* fast path on two threads (-j2 and up): see la_csv_split_parse */
    struct {
        struct helper *helper;    /* NULL until the first split, or when none may start */
        int no_helper;            /* -j1, or the helper could not start */
        uint64_t split_after;     /* no split before this line (a wasted split backs off) */
        uint64_t fast_bytes;      /* bytes and lines the fast path has parsed: */
        uint64_t fast_lines;      /*   their ratio sizes a split block */
    } fast;
};

/* Keep the first error: later ones are usually its echoes. @return -1. In a
 * part (a block parsed on a scheduler thread) an error, or any row that needs the
 * sequential code, only stops the part: this thread parses that row again
 * and reports it. */
#define FAIL(s, ...) \
    ((s)->failed ? -1 : ((s)->failed = 1, \
                         (s)->blk.part ? -1 : la_reader_set_error((s)->r, __VA_ARGS__)))

/* Spaces and tabs around an unquoted cell are not part of it (libcsv's rule),
 * unless the character is the delimiter. */
static inline int is_pad_of(unsigned char delim, unsigned char c)
{
    return (c == ' ' || c == '\t') && c != delim;
}

static inline int is_pad(const struct la_csv *s, unsigned char c)
{
    return is_pad_of(s->delim, c);
}

static inline void trim(const struct la_csv *s, const char **p, const char **end)
{
    while (*p < *end && is_pad(s, (unsigned char)**p))
        (*p)++;
    while (*end > *p && is_pad(s, (unsigned char)(*end)[-1]))
        (*end)--;
}

/* LF bytes in p[0..n). Most calls count a short cell (libcsv hands every cell
 * to on_field), where a loop costs less than calls to memchr. */
static inline uint64_t count_lf(const char *p, size_t n)
{
    uint64_t lines = 0;
    if (n < 16) {
        for (size_t i = 0; i < n; i++)
            lines += p[i] == '\n';
        return lines;
    }
    const char *end = p + n, *q;
    while (p < end && (q = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        lines++;
        p = q + 1;
    }
    return lines;
}

/* The line the row being parsed started on (for libcsv errors mid-row). */
static inline unsigned long long current_row_line(const struct la_csv *s)
{
    return (unsigned long long)(s->at.field ? s->at.row_line : s->at.line);
}

/* Most labels are short plain integers. Parsing those here, with the same
 * result as la_parse_number (the unit test checks this), makes 10^7 rows a
 * third faster; anything else (spaces, floats, words, 19+ digits) goes to it. */
static inline int small_int(const char *p, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    int64_t v = 0;

    if (n == 0 || n > 18)                /* 18 digits cannot overflow int64 */
        return 0;
    if (*p == '-' || *p == '+') {
        neg = *p == '-';
        if (++i == n)
            return 0;
    }
    for (; i < n; i++) {
        unsigned d = (unsigned char)p[i] - '0';
        if (d > 9)
            return 0;
        v = v * 10 + (int64_t)d;
    }
    *out = neg ? -v : v;
    return 1;
}

/* Cells in [p, end) when it starts a field: one more than its delimiters. */
static inline size_t count_fields(const struct la_csv *s, const char *p, const char *end)
{
    size_t n = 1;
    while ((p = memchr(p, s->delim, (size_t)(end - p))) != NULL)
        n++, p++;
    return n;
}

static inline int blank_line(const struct la_csv *s, const char *p, const char *end)
{
    while (p < end && is_pad(s, (unsigned char)*p))
        p++;
    return p == end;
}

// ---- the reader (read_csv.c): pending values and the row handlers

/** la_csv_push_cell() : a data row's label cell p[0..n), parsed, pending. */
void la_csv_push_cell(struct la_csv *s, const char *p, size_t n);

/** la_csv_push_bad() : an unparsable label cell, its text kept for the report. */
void la_csv_push_bad(struct la_csv *s, const char *p, size_t n);

/** la_csv_check_width() : a data row of cells at line is no wider than the first. */
void la_csv_check_width(struct la_csv *s, size_t cells, unsigned long long line);

/** la_csv_end_row() : a row of cells has ended (kept, or its label pushed). */
void la_csv_end_row(struct la_csv *s, size_t cells);

/** la_csv_fill() : one more block of input after the unparsed bytes.
 *  @return 0, or -1 with the error set. */
int la_csv_fill(struct la_csv *s);

/** la_csv_pages_due() : the parsed pages of a mapped file not given back yet,
 *  once GIVE_BACK bytes of them have gathered: *from, and @return the length
 *  the caller drops (MADV_DONTNEED); 0 when none are due. */
size_t la_csv_pages_due(struct la_csv *s, char **from);

// ---- the first rows (csv_header.c)

/** la_csv_row0_add() : a cell of a row kept for the header guess. */
void la_csv_row0_add(struct la_csv *s, const char *p, size_t n);

/** la_csv_keep_row() : a kept row of cells has ended; with enough of them,
 *  the header and the column are decided (la_csv_resolve). */
void la_csv_keep_row(struct la_csv *s, size_t cells);

/** la_csv_resolve() : decide the header and the label column from the kept
 *  rows, then hand the kept data rows out as any later row. */
void la_csv_resolve(struct la_csv *s);

/** la_csv_is_column_number() : --column=N (from 1) rather than a name. */
int la_csv_is_column_number(const char *column, uint64_t *num);

// ---- libcsv and the requote filter (csv_requote.c)

/** la_csv_parser_init() : s's libcsv, for its delimiter. @return 0, or -1. */
int la_csv_parser_init(struct la_csv *s);

/** la_csv_rq_next() : the requote filter's state after byte c. A row ends at
 *  a newline that leaves it in RQ_START. */
enum rq_state la_csv_rq_next(unsigned char delim, enum rq_state st, unsigned char c);

/** la_csv_requote_span() : filter *pp..end for libcsv up to the first newline
 *  that ends a row, moving *pp past what was read. @return 1 when a row
 *  ended, 0 at end, -1 with the error set. */
int la_csv_requote_span(struct la_csv *s, const char **pp, const char *end);

/** la_csv_requote_put() : one byte for libcsv. @return 0, or -1. */
int la_csv_requote_put(struct la_csv *s, char c);

/** la_csv_requote_flush() : hand the gathered bytes to libcsv but the last
 *  keep. @return 0, or -1 with the error set. */
int la_csv_requote_flush(struct la_csv *s, size_t keep);

/** la_csv_libcsv_end() : the end of input for libcsv: the last cell closed,
 *  an unterminated quote reported. @return 0 (an error may be set), or -1
 *  when the last bytes could not be given to libcsv. */
int la_csv_libcsv_end(struct la_csv *s);

// ---- the other columns the model indexes (csv_columns.c), on the reader's thread

/** la_csv_cols_open() : at the header guess, with a header of n cells
 *  (cell(s, i); field i + shift of a data row): the plan's columns it names,
 *  when others than the label column are among them. The file is then read
 *  by libcsv on this thread. @return 0, or -1 with the error set. */
int la_csv_cols_open(struct la_csv *s, const char *(*cell)(const struct la_csv *, size_t),
                     size_t n, size_t shift);

/** la_csv_cols_row_begin() : a data row starts at line. */
void la_csv_cols_row_begin(struct la_csv *s, uint64_t line);

/** la_csv_cols_cell() : cell p[0..n) of field (not the label's) of the row. */
void la_csv_cols_cell(struct la_csv *s, size_t field, const char *p, size_t n);

/** la_csv_cols_label() : the label cell: its length counted; a list's items
 *  pushed for the scan. @return 1 when it was handled here (a list), 0 when
 *  la_csv_push_cell parses it (a scalar, an empty or unparsable cell). */
int la_csv_cols_label(struct la_csv *s, const char *p, size_t n);

/** la_csv_cols_row_end() : the row has ended: its lengths checked. */
void la_csv_cols_row_end(struct la_csv *s);

/** la_csv_cols_publish() : the rows of the values about to go out, for the scan. */
void la_csv_cols_publish(struct la_csv *s);

/** la_csv_cols_finish() : the end of the file: the findings into the notes. */
void la_csv_cols_finish(struct la_csv *s);

/** la_csv_cols_free() : at close; the sample map goes to the notes. */
void la_csv_cols_free(struct la_csv *s);

// ---- the parse on other threads (csv_parallel.c)

/** la_csv_split_parse() : the complete lines from *pp to last on two threads
 *  (the fast path's halves). @return 1 when all were parsed, 0 to have the
 *  fast path go on a line at a time from *pp. */
int la_csv_split_parse(struct la_csv *s, const char **pp, const char *last);

/** la_csv_helper_stop() : the fast path's second thread ends. */
void la_csv_helper_stop(struct la_csv *s);

/** la_csv_blocks_wanted() : whether libcsv may parse in blocks on threads now. */
int la_csv_blocks_wanted(const struct la_csv *s);

/** la_csv_steps_in_blocks() : whether the next bytes go to libcsv in blocks,
 *  whose steps then give the parsed pages of a mapping back. */
int la_csv_steps_in_blocks(const struct la_csv *s);

/** la_csv_blocks_parse() : the rows of buf[pos..len) in blocks on every
 *  thread, appended in file order. @return 1 when rows were taken, 0 when
 *  more bytes are wanted first, -1 when no block can be parsed now. */
int la_csv_blocks_parse(struct la_csv *s);

/** la_csv_blocks_free() : the blocks' threads end, their memory is freed. */
void la_csv_blocks_free(struct blocks *b);

#endif
