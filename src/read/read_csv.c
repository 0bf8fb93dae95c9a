/* read_csv.c - the CSV/TSV reader: one label column out of a delimited file.
 *
 * Rows come from two parsers that must agree byte for byte:
 *   - a fast path for quote-free input: memchr finds the newlines and the
 *     label cell, nothing is copied (10^7 rows in about 0.2 s on one core);
 *   - libcsv (RFC 4180: quoted delimiters, doubled quotes, quoted newlines)
 *     for the rest of the file from the first block that holds a quote, a lone
 *     CR, or a line longer than a block, behind the requote filter that makes
 *     it read quotes as Python does. From -j2 on it runs on every thread
 *     (blocks_parse): blocks cut where a row surely starts, each with its own
 *     libcsv and filter, their rows taken in file order; once the label
 *     column is known, libcsv is not given the text of other cells.
 * A regular file is parsed in place, mapped (map_input); a pipe, compressed or
 * UTF-16 input is read a block at a time into a buffer. The parse is the same.
 * All call the same row handlers, so the header guess, the column choice and
 * the numbering exist once. Values wait in a bounded "pending" buffer until a
 * run of one kind (int64, float64, one unparsable cell) is complete, then
 * next() hands the run out in place, up to CHUNK values at a time.
 *
 * Where the fast path must behave as libcsv does (the unit test compares them):
 *   - a row ends at LF, CR LF or a lone CR (a lone CR sends the file to libcsv);
 *   - blank lines, and lines of only spaces and tabs, are not rows;
 *   - unquoted cells lose their leading and trailing spaces and tabs, except
 *     the delimiter itself (TSV keeps empty cells between two tabs).
 * Our own rules: a UTF-8 byte order mark at the start is skipped (Excel writes
 * one); once a float cell is seen, later integer cells are stored as float64,
 * as pandas does for a mixed column; line numbers in messages count LF bytes
 * (as grep -n does) and name the line where the row starts.
 *
 * LABELAUDIT_CSV_SLOW=1 in the environment (read by open) sends the whole file
 * through libcsv on one thread, every byte of it: the reference the tests
 * compare the other paths with. LABELAUDIT_CSV_BLOCK=N reads N bytes at a
 * time, so that tests cut small files into many blocks. */
#include "cells.h"   /* la_utf8_cut */
#include "fatal.h"   /* la_map_guarded: a mapped file cut short is reported, not fatal */
#include "msg.h"     /* la_verbose: -v says which parser read which rows */
#include "scheduler.h" /* the blocks and halves parsed on other threads */
#include "reader.h"
#include "util.h"

#include <csv.h>     /* csv_parse, csv_fini: libcsv */
#ifdef __SSE2__
#include <emmintrin.h> /* quote_or_lf: 16 bytes a compare */
#endif
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* malloc, free, getenv */
#include <string.h>  /* memchr, memcpy, memmove, strcmp */
#include <strings.h> /* strcasecmp */
#include <sys/mman.h> /* madvise */
#include <unistd.h>  /* sysconf */

#define READ_BYTES ((size_t)1 << 20) /* bytes asked of the source per read */
#define PIECE 4096                     /* bytes per csv_parse call: bounds rows per call */
#define CHUNK 65536                    /* values per chunk */
#define PENDING (2 * CHUNK + PIECE)    /* a csv_parse call adds <= PIECE/2 + 2 rows past CHUNK;
                                          a split block adds <= CHUNK (see split_parse,
                                          blocks_parse) */
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

/* One half of a split block: complete lines p..end, parsed by quick_lines
 * into vals/kinds until a line needs the sequential code (stop). */
struct half {
    const char *p, *end;
    void *vals;
    unsigned char *kinds;
    size_t cap;               /* at most this many rows */
    size_t rows;              /* rows stored */
    uint64_t lines;           /* LF bytes passed */
    const char *stop;         /* the first line not parsed (end when all were) */
};

/* The helper thread (a scheduler of two: this one and one worker): the two
 * halves of a block are two tasks, the second parsed into its own buffers,
 * the first into the pending buffer. */
struct helper {
    struct la_sched *sched;
    struct la_batch batch;
    const struct la_csv *s;      /* of the block being parsed */
    struct half halves[2];    /* [1] owns vals/kinds; [0] points into the csv's */
};

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

struct la_csv {
    struct la_reader *r;
    unsigned char delim;

    /* input: buf[pos..len) is read but not parsed; cap is 2 * READ_BYTES */
    char *buf;
    size_t len, pos;
    /* a plain file is read in place (map_input): buf is then the file from
     * byte map_base on, mapped, and fill() only moves len a block on */
    struct la_mapping map;    /* the guarded mapping buf lies in, if any */
    size_t map_len;           /* bytes from buf on that the file holds */
    uint64_t map_base;        /* the file offset of buf[0] */
    size_t given_back;        /* the mapping's first given_back bytes are no longer
                                 resident (madvise) */
    size_t scan;              /* fast path: buf[pos..scan) holds no LF */
    int eof;                  /* the source has no more bytes */
    int slow;                 /* libcsv owns the rest of the input */
    int reference;            /* LABELAUDIT_CSV_SLOW=1: libcsv alone, every byte, one thread */
    int done;                 /* every byte parsed, the last row ended */
    int failed;               /* r->err holds the first error */
    struct csv_parser parser;
    int parser_live;
    struct requote rq;        /* libcsv's input, rewritten to read quotes as Python does */

    /* where the parse is */
    uint64_t line;            /* 1 + LF bytes parsed: the line of the next row */
    uint64_t row_line;        /* libcsv: the line where the current row started */
    size_t field;             /* libcsv: index of the next cell in the current row */

    /* the first rows, kept whole until the header and the column are known:
     * the header guess compares the first row with up to SNIFF_ROWS more */
    int resolved;
    size_t col;               /* 0-based label column, once resolved */
    size_t width;             /* cells in a data row: no row may have more */
    char *row0;               /* the cells of the kept rows, each NUL-terminated */
    size_t row0_len, row0_cap;
    size_t *row0_off;
    size_t row0_n, row0_offcap;  /* cells; bytes allocated for row0_off */
    size_t kept;              /* whole rows in row0 */
    size_t kept_first[SNIFF_ROWS + 1];   /* a kept row's first cell in row0_off */
    size_t kept_cells[SNIFF_ROWS + 1];
    uint64_t kept_line[SNIFF_ROWS + 1];

    /* pending values: vals[head..tail) as int64 or double, kinds[] says which */
    void *vals;
    unsigned char *kinds;
    size_t head, tail;
    uint64_t index;           /* flat index of vals[head] */
    int saw_float;
    int brk;                  /* the run at head is complete: stop producing */
    char *texts;              /* unparsable cells, NUL-terminated, in row order */
    size_t text_len, text_cap, text_pos;

    /* libcsv on every thread (-j2 and up): see blocks_parse */
    struct blocks *blocks;    /* NULL until the first parallel block */
    int no_blocks;            /* -j1, LABELAUDIT_CSV_SLOW=1, or no thread could start */
    int at_row_start;         /* libcsv and the requote filter are between rows, and
                                 buf[pos] starts a line */
    int part;                 /* this csv parses one block on a scheduler thread: it stores
                                 plain rows only, and "fails" (stops) at any other */
    size_t cap;               /* rows vals[] holds: PENDING, or a part's share */
    size_t block;             /* bytes asked of the source per read (READ_BYTES, or
                                 LABELAUDIT_CSV_BLOCK for tests) */
    size_t split_min;         /* fewer bytes: libcsv stays on this thread */

    /* fast path on two threads (-j2 and up): see split_parse */
    struct helper *helper;    /* NULL until the first split, or when none may start */
    int no_helper;            /* -j1, or the helper could not start */
    uint64_t split_after;     /* no split before this line (a wasted split backs off) */
    uint64_t fast_bytes;      /* bytes and lines the fast path has parsed: */
    uint64_t fast_lines;      /*   their ratio sizes a split block */
};

/* Keep the first error: later ones are usually its echoes. @return -1. In a
 * part (a block parsed on a scheduler thread) an error, or any row that needs the
 * sequential code, only stops the part: this thread parses that row again
 * and reports it. */
#define FAIL(s, ...) \
    ((s)->failed ? -1 : ((s)->failed = 1, \
                         (s)->part ? -1 : la_reader_set_error((s)->r, __VA_ARGS__)))

// ---- small helpers

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

static void trim(const struct la_csv *s, const char **p, const char **end)
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
static unsigned long long current_row_line(const struct la_csv *s)
{
    return (unsigned long long)(s->field ? s->row_line : s->line);
}

// ---- pending values

static void push_bad(struct la_csv *s, const char *p, size_t n)
{
    if (s->part) {
        FAIL(s, "an unparsable cell");   /* stops the part: see FAIL */
        return;
    }
    if (s->tail == s->cap) {
        FAIL(s, "internal error: CSV row buffer overflow");
        return;
    }
    const char *nul = n ? memchr(p, '\0', n) : NULL;   /* the report gets a C string */
    if (nul)
        n = (size_t)(nul - p);
    n = la_utf8_cut(p, n, TEXT_MAX);
    if (la_grow(&s->texts, &s->text_cap, s->text_len + n + 1, 4096) != 0) {
        FAIL(s, "out of memory");
        return;
    }
    if (n)
        memcpy(s->texts + s->text_len, p, n);
    s->texts[s->text_len + n] = '\0';
    s->text_len += n + 1;
    s->kinds[s->tail++] = K_BAD;
    s->brk = 1;
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

/* One data row's label cell. */
static void push_cell(struct la_csv *s, const char *p, size_t n)
{
    struct la_num v;
    enum la_cell c = small_int(p, n, &v.v.i) ? LA_CELL_INT : la_parse_number(p, n, &v);
    size_t t = s->tail;

    if (c == LA_CELL_BAD) {
        push_bad(s, p, n);
        return;
    }
    if (t == s->cap) {
        FAIL(s, "internal error: CSV row buffer overflow");
        return;
    }
    if (c == LA_CELL_FLOAT && !s->saw_float) {
        if (s->part) {
            FAIL(s, "the first float");  /* the run breaks here: in order, on this thread */
            return;
        }
        s->saw_float = 1;
        s->r->info.dtype = LA_DT_FLOAT64;
        if (t > s->head)
            s->brk = 1;                  /* the int run before it is complete */
    }
    if (s->saw_float) {
        ((double *)s->vals)[t] = c == LA_CELL_INT ? (double)v.v.i : v.v.f;
        s->kinds[t] = K_FLOAT;
    } else {
        ((int64_t *)s->vals)[t] = v.v.i;
        s->kinds[t] = K_INT;
    }
    s->tail = t + 1;
}

// ---- the first row: header guess and label column

static void row0_add(struct la_csv *s, const char *p, size_t n)
{
    if (s->row0_len + n + 1 > FIRST_ROW_MAX) {
        FAIL(s, "line %llu: %s longer than 16 MiB", (unsigned long long)s->row_line,
             s->kept ? "row" : "first row");
        return;
    }
    if (la_grow(&s->row0, &s->row0_cap, s->row0_len + n + 1, 256) != 0 ||
        la_grow(&s->row0_off, &s->row0_offcap, (s->row0_n + 1) * sizeof *s->row0_off,
                16 * sizeof *s->row0_off) != 0) {
        FAIL(s, "out of memory");
        return;
    }
    if (n)
        memcpy(s->row0 + s->row0_len, p, n);
    s->row0[s->row0_len + n] = '\0';
    s->row0_off[s->row0_n++] = s->row0_len;
    s->row0_len += n + 1;
}

/* Cell i of kept row k. */
static const char *kept_cell(const struct la_csv *s, size_t k, size_t i)
{
    return s->row0 + s->row0_off[s->kept_first[k] + i];
}

static const char *row0_cell(const struct la_csv *s, size_t i)
{
    return kept_cell(s, 0, i);
}

static int is_column_number(const char *column, uint64_t *num)
{
    return la_strtou64(column, num) == 0;
}

static int is_number(const char *cell)
{
    struct la_num v;
    return la_parse_number(cell, strlen(cell), &v) != LA_CELL_BAD;
}

/* "a, b, c" for an error message: one line, at most about 300 bytes. */
static void list_columns(const struct la_csv *s, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < s->kept_cells[0]; i++) {
        const char *cell = row0_cell(s, i);
        if (used + strlen(cell) + 6 > size) {
            snprintf(out + used, size - used, "%s...", i ? ", " : "");
            break;
        }
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", cell);
    }
    la_one_line(out);                    /* a quoted header cell may hold a newline */
}

/* --column=NAME: exact match first, then case-insensitive. @return index or -1. */
static long find_name(const struct la_csv *s, const char *name)
{
    for (size_t i = 0; i < s->kept_cells[0]; i++)
        if (strcmp(row0_cell(s, i), name) == 0)
            return (long)i;
    for (size_t i = 0; i < s->kept_cells[0]; i++)
        if (strcasecmp(row0_cell(s, i), name) == 0)
            return (long)i;
    return -1;
}

/* The default names, in order of preference: the SPEC's six ("label" wins
 * over "y"), then the names datasets give an id column (Kaggle's class_id
 * and diagnosis, COCO's category_id, YOLO's cls). */
static long find_default(const struct la_csv *s)
{
    static const char *const names[] = {
        "label", "labels", "target", "targets", "class", "y",
        "class_id", "class_idx", "class_label", "label_id", "label_idx", "target_id",
        "category_id", "category", "cls", "diagnosis",
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        for (size_t i = 0; i < s->kept_cells[0]; i++)
            if (strcasecmp(row0_cell(s, i), names[k]) == 0)
                return (long)i;
    return -1;
}

/* R's write.table (and write.csv with row names) writes a header one field
 * shorter than the data rows: the first data column holds the row names,
 * which pandas reads as the index. @return 1 when every kept data row is one
 * field wider than the first row. */
static int is_r_layout(const struct la_csv *s)
{
    if (s->kept < 2)
        return 0;
    for (size_t k = 1; k < s->kept; k++)
        if (s->kept_cells[k] != s->kept_cells[0] + 1)
            return 0;
    return 1;
}

/* The header pandas writes for unnamed columns (pd.Series(y).to_csv(), a
 * DataFrame built from an array): "0,1,...,k-1", after an empty cell when the
 * index is written too. */
static int is_pandas_default_header(const struct la_csv *s)
{
    size_t n = s->kept_cells[0], i = 0;
    if (s->kept < 2)
        return 0;                        /* nothing after it: it may as well be a label */
    if (n > 1 && row0_cell(s, 0)[0] == '\0')
        i = 1;                           /* the index column's header */
    for (size_t name = 0; i < n; i++, name++) {
        char want[24];
        snprintf(want, sizeof want, "%zu", name);
        if (strcmp(row0_cell(s, i), want) != 0)
            return 0;
    }
    return 1;
}

/* Whether every cell of every kept row is a number: a first row of pandas'
 * default names (no index cell) is then as much a row of data as a header. */
static int kept_rows_all_numbers(const struct la_csv *s)
{
    for (size_t k = 0; k < s->kept; k++)
        for (size_t i = 0; i < s->kept_cells[k]; i++)
            if (!is_number(kept_cell(s, k, i)))
                return 0;
    return 1;
}

/* The first row, cells joined by the delimiter, cut to fit out ("..." then). */
static void join_row0(const struct la_csv *s, char *out, size_t size)
{
    const char sep[2] = { (char)s->delim, '\0' };
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < s->kept_cells[0] && used < size; i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? sep : "", row0_cell(s, i));
        used += n > 0 ? (size_t)n : 0;
    }
    if (used >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

/* What a cell looks like to the header guess: -1 a number, else its length. */
static long cell_shape(const char *cell)
{
    return is_number(cell) ? -1 : (long)strlen(cell);
}

/* Python's csv.Sniffer.has_header: each column whose cells look alike in the
 * kept data rows (all numbers, or all of one length) votes "header" when the
 * first row's cell does not look like them, "data" when it does; rows of
 * another width are left out. A tie is "data". @return the vote's sum, and
 * *voters the columns that voted. */
static long header_vote(const struct la_csv *s, size_t *voters)
{
    long sum = 0;
    *voters = 0;
    for (size_t i = 0; i < s->kept_cells[0]; i++) {
        long shape = 0;
        int seen = 0, alike = 1;
        for (size_t k = 1; k < s->kept && alike; k++) {
            if (s->kept_cells[k] != s->kept_cells[0])
                continue;
            long here = cell_shape(kept_cell(s, k, i));
            alike = !seen || here == shape;
            shape = here, seen = 1;
        }
        if (!seen || !alike)
            continue;
        (*voters)++;
        sum += cell_shape(row0_cell(s, i)) != shape ? 1 : -1;
    }
    return sum;
}

/* Guess whether the first row is a header from its cells against the next
 * rows', and say why in info (the report shows the guess). */
static int guess_header(struct la_csv *s)
{
    struct la_array_info *info = &s->r->info;
    size_t voters;
    long vote = header_vote(s, &voters);

    if (is_pandas_default_header(s)) {
        info->header_why = "the first row is pandas' default column names 0, 1, ...";
        if (kept_rows_all_numbers(s))    /* np.savetxt of labels sorted by class writes 0 first */
            join_row0(s, info->header_ambiguous_row, sizeof info->header_ambiguous_row);
        return 1;
    }
    if (voters == 0) {                   /* nothing to compare with: the label cell decides */
        int text = !is_number(row0_cell(s, s->col));
        info->header_why = text ? "the label cell of the first row is not a number"
                                : "the label cell of the first row is a number";
        return text;
    }
    info->header_why = vote > 0 ? "the first row's cells are unlike the next rows': text "
                                  "over numbers, or another length"
                                : vote < 0 ? "the first row's cells are like the next rows'"
                                : "the first row looks as much like data as like a header: "
                                  "a tie counts as data";
    return vote > 0;
}

/* What the kept data rows (from row first on) hold in column i: 1 numbers
 * only, -1 text and no number (empty cells aside), 0 a mix or nothing. */
static int column_kind(const struct la_csv *s, size_t first, size_t i)
{
    size_t numbers = 0, texts = 0;
    for (size_t k = first; k < s->kept; k++) {
        if (i >= s->kept_cells[k])
            continue;
        const char *cell = kept_cell(s, k, i);
        if (is_number(cell))
            numbers++;
        else if (*cell)
            texts++;
    }
    return numbers && !texts ? 1 : texts && !numbers ? -1 : 0;
}

/* The last column, taken for want of a label column by name, holds text
 * while another holds numbers (filename,class_idx,split): auditing the text
 * would report every row and miss the labels. Refuse, naming the candidates.
 * @return 0, or -1 with the error set. */
static int check_fallback_column(struct la_csv *s, int header)
{
    size_t first = header ? 1 : 0, shift = s->width - s->kept_cells[0];
    if (column_kind(s, first, s->col) >= 0)
        return 0;
    char list[320];
    size_t used = 0, found = 0;
    list[0] = '\0';
    for (size_t i = 0; i < s->width && used + 64 < sizeof list; i++) {
        if (i == s->col || column_kind(s, first, i) <= 0)
            continue;
        const char *name = header && i >= shift ? row0_cell(s, i - shift) : "";
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%.*s%s-c %zu%s",
                                 found++ ? ", " : "", 24, name, *name ? " (" : "", i + 1,
                                 *name ? ")" : "");
    }
    if (!found)
        return 0;
    char last[48];                       /* (the error is made one line when it is set) */
    snprintf(last, sizeof last, "%s", header && s->col >= shift ? row0_cell(s, s->col - shift) : "");
    return FAIL(s, "no column is named like labels, and the last one%s%s%s holds text: "
                "choose the label column with -c; columns of numbers: %s",
                *last ? ", '" : "", last, *last ? "'," : "", list);
}

/* Decide the label column and whether row0 is a header, from the kept rows.
 * @return 1 header, 0 data, -1 error. */
static int choose_column(struct la_csv *s)
{
    const struct la_read_opts *o = la_read_opts_or_default(s->r->opts);
    int header = o->header;
    const char *want = o->column;
    int shift = header != LA_NO && is_r_layout(s);   /* the row names' column */
    size_t n0 = s->kept_cells[0], width = n0 + (size_t)shift;
    uint64_t num;
    long i;

    s->width = width;
    s->r->info.header_guessed = header == LA_AUTO;
    if (want && is_column_number(want, &num)) {
        if (num == 0)
            return FAIL(s, "column 0 out of range: columns are numbered from 1");
        if (num > width)
            return FAIL(s, "column %llu out of range: the %s has %zu column%s",
                        (unsigned long long)num, shift ? "data rows" : header == LA_NO
                        ? "first row" : "header", width, width == 1 ? "" : "s");
        s->col = (size_t)(num - 1);      /* counted in the data rows, as cut(1) does */
    } else if (want) {
        if ((i = find_name(s, want)) < 0) {
            char cols[320];
            list_columns(s, cols, sizeof cols);
            return FAIL(s, "no column named '%.100s' (columns: %s)", want, cols);
        }
        s->col = (size_t)i + (size_t)shift;
        return 1;                        /* a name is only found in a header */
    } else if (header != LA_NO && (i = find_default(s)) >= 0) {
        s->col = (size_t)i + (size_t)shift;
        return 1;
    } else {
        s->col = width - 1;
    }
    if (header != LA_AUTO)
        header = header == LA_YES;
    else if (shift) {
        s->r->info.header_why = "the first row is one field short: R's layout, with row names";
        header = 1;
    } else
        header = guess_header(s);
    return want || check_fallback_column(s, header) == 0 ? header : -1;
}

/* A row wider than the first one is what pandas refuses ("Expected 2 fields in
 * line 3, saw 3"): mostly an unquoted delimiter inside a path, which shifts
 * every cell after it, the label's too. A shorter row only lacks cells. */
static void check_width(struct la_csv *s, size_t cells, unsigned long long line)
{
    if (cells > s->width)
        FAIL(s, "line %llu: %zu fields, but the first row has %zu (an unquoted "
             "delimiter inside a field?)", line, cells, s->width);
}

/* A data row: its label cell, or an unparsable empty one when it is too short. */
static void data_row(struct la_csv *s, size_t cells, const char *label, unsigned long long line)
{
    if (cells <= s->col)
        push_bad(s, "", 0);              /* too short to have the label cell */
    else {
        push_cell(s, label, strlen(label));
        check_width(s, cells, line);
    }
}

static void release_kept(struct la_csv *s)
{
    free(s->row0);
    free(s->row0_off);
    s->row0 = NULL, s->row0_off = NULL;
    s->row0_len = s->row0_cap = s->row0_n = s->row0_offcap = 0;
    s->kept = 0;
}

/* The kept rows suffice (or are all there is): settle the header and the
 * column, then hand out the kept data rows as any later row. */
static void resolve(struct la_csv *s)
{
    int header = choose_column(s);
    if (header < 0)
        return;
    s->resolved = 1;
    s->rq.elide = !s->reference;         /* see requote_text */
    s->r->info.header_present = header;
    if (header) {
        size_t shift = s->width - s->kept_cells[0];      /* 1 in R's layout */
        const char *cell = s->col >= shift ? row0_cell(s, s->col - shift) : "";
        struct la_array_info *info = &s->r->info;
        size_t n = la_utf8_cut(cell, strlen(cell), sizeof info->column - 1);
        memcpy(info->column, cell, n);
        info->column[n] = '\0';
        info->has_column = 1;
    }
    for (size_t k = header ? 1 : 0; k < s->kept && !s->failed; k++) {
        size_t cells = s->kept_cells[k];
        data_row(s, cells, s->col < cells ? kept_cell(s, k, s->col) : "",
                 (unsigned long long)s->kept_line[k]);
    }
    release_kept(s);
}

/* A row kept for the header guess has ended. */
static void keep_row(struct la_csv *s, size_t cells)
{
    s->kept_first[s->kept] = s->row0_n - cells;
    s->kept_cells[s->kept] = cells;
    s->kept_line[s->kept] = s->row_line;
    s->kept++;
    if (s->kept == SNIFF_ROWS + 1 || s->row0_len > SNIFF_BYTES)
        resolve(s);
}

// ---- row handlers shared by both parsers

/* A row has ended (its cells were given to on_field or parsed in place). */
static void end_row(struct la_csv *s, size_t cells)
{
    if (s->failed)
        return;
    if (!s->resolved)
        keep_row(s, cells);
    else if (cells <= s->col)
        push_bad(s, "", 0);              /* too short to have the label cell */
    else
        check_width(s, cells, current_row_line(s));
}

/* Cells in [p, end) when it starts a field: one more than its delimiters. */
static size_t count_fields(const struct la_csv *s, const char *p, const char *end)
{
    size_t n = 1;
    while ((p = memchr(p, s->delim, (size_t)(end - p))) != NULL)
        n++, p++;
    return n;
}

/* libcsv's cell callback. */
static void on_field(void *data, size_t n, void *ctx)
{
    struct la_csv *s = ctx;
    const char *p = data ? data : "";    /* libcsv has no buffer before its first byte */

    if (s->failed)
        return;
    if (s->field == 0)
        s->row_line = s->line;
    s->line += count_lf(p, n);           /* quoted newlines; the row's own are in on_row */
    if (!s->resolved)
        row0_add(s, p, n);
    else if (s->field == s->col)
        push_cell(s, p, n);
    s->field++;
}

/* libcsv's row callback. With CSV_REPALL_NL it also reports blank lines (no
 * cells), which keeps the LF count exact; a CR alone is not counted. */
static void on_row(int c, void *ctx)
{
    struct la_csv *s = ctx;

    if (c == '\n')
        s->line++;
    if (s->failed || s->field == 0)
        return;
    end_row(s, s->field);
    s->field = 0;
}

// ---- the fast path: quote-free lines, parsed in place

static int blank_line(const struct la_csv *s, const char *p, const char *end)
{
    while (p < end && is_pad(s, (unsigned char)*p))
        p++;
    return p == end;
}

/* The first row: every cell is kept for the header decision. */
static void fast_first_row(struct la_csv *s, const char *p, const char *end)
{
    size_t cells = 0;
    s->row_line = s->line;
    for (;;) {
        const char *d = memchr(p, s->delim, (size_t)(end - p));
        const char *a = p, *b = d ? d : end;
        trim(s, &a, &b);
        row0_add(s, a, (size_t)(b - a));
        cells++;
        if (!d || s->failed)
            break;
        p = d + 1;
    }
    end_row(s, cells);
}

/* One line without its LF. Only the label cell is looked at. */
static void fast_line(struct la_csv *s, const char *p, const char *end)
{
    if (end > p && end[-1] == '\r')
        end--;
    if (p == end || (is_pad(s, (unsigned char)*p) && blank_line(s, p, end)))
        return;
    if (!s->resolved) {
        fast_first_row(s, p, end);
        return;
    }
    for (size_t k = s->col; k; k--) {
        const char *d = memchr(p, s->delim, (size_t)(end - p));
        if (!d) {
            end_row(s, s->col - k + 1);
            return;
        }
        p = d + 1;
    }
    const char *d = memchr(p, s->delim, (size_t)(end - p));
    if (d) {
        check_width(s, s->col + 1 + count_fields(s, d + 1, end), (unsigned long long)s->line);
        end = d;
    }
    trim(s, &p, &end);
    push_cell(s, p, (size_t)(end - p));
}

static int run_complete(const struct la_csv *s)
{
    return s->brk || s->tail - s->head >= CHUNK || s->failed;
}

// ---- the fast path on two threads

/* Parse the whole lines h->p..h->end (end follows an LF) as fast_line would,
 * as long as each row is one that fast_line only stores: a number of the
 * current kind (an integer, or any number once a float was seen) in a row no
 * wider than the first. A short row, an unparsable cell, the first float or a
 * wide row stops it there; fast_line then parses that line, with its break in
 * the run or its error and line number. It reads only fields of s that do not
 * change while it runs, so two threads may run it on one s at once. */
static void quick_lines(const struct la_csv *s, struct half *h)
{
    const char *p = h->p, *end = h->end;
    const unsigned char delim = s->delim;
    const size_t col = s->col;
    const int saw_float = s->saw_float;
    size_t rows = 0;
    uint64_t lines = 0;

    while (p < end && rows < h->cap) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *a = p, *b = nl;
        if (b > a && b[-1] == '\r')
            b--;
        if (a == b || (is_pad(s, (unsigned char)*a) && blank_line(s, a, b))) {
            lines++;
            p = nl + 1;
            continue;
        }
        size_t k;
        for (k = col; k; k--) {
            const char *d = memchr(a, delim, (size_t)(b - a));
            if (!d)
                break;
            a = d + 1;
        }
        if (k)
            break;                       /* too short: fast_line pushes it as unparsable */
        const char *d = a;               /* the label cell is short: no memchr call */
        while (d < b && (unsigned char)*d != delim)
            d++;
        if (d < b) {
            if (col + 1 + count_fields(s, d + 1, b) > s->width)
                break;                   /* fast_line reports it */
            b = d;
        }
        trim(s, &a, &b);
        struct la_num v;
        size_t n = (size_t)(b - a);
        enum la_cell c = small_int(a, n, &v.v.i) ? LA_CELL_INT : la_parse_number(a, n, &v);
        if (c == LA_CELL_BAD || (c == LA_CELL_FLOAT && !saw_float))
            break;
        if (saw_float) {
            ((double *)h->vals)[rows] = c == LA_CELL_INT ? (double)v.v.i : v.v.f;
            h->kinds[rows] = K_FLOAT;
        } else {
            ((int64_t *)h->vals)[rows] = v.v.i;
            h->kinds[rows] = K_INT;
        }
        rows++;
        lines++;
        p = nl + 1;
    }
    h->rows = rows;
    h->lines = lines;
    h->stop = p;
}

static void parse_half(void *ctx, int worker, size_t t)
{
    struct helper *hp = ctx;
    (void)worker;
    quick_lines(hp->s, &hp->halves[t]);
}

static void helper_free(struct helper *hp)
{
    la_sched_close(hp->sched);
    free(hp->halves[1].vals);
    free(hp->halves[1].kinds);
    free(hp);
}

/* @return 0, or -1 when no helper can start (the parse stays on one thread). */
static int helper_start(struct la_csv *s)
{
    struct helper *hp = calloc(1, sizeof *hp);
    if (!hp)
        return -1;
    hp->halves[1].vals = malloc(CHUNK * sizeof(int64_t));
    hp->halves[1].kinds = malloc(CHUNK);
    hp->sched = la_sched_open(2);
    if (!hp->halves[1].vals || !hp->halves[1].kinds || !hp->sched ||
        la_sched_threads(hp->sched) < 2) {
        helper_free(hp);
        la_verbose(s->r->path, "csv: no helper thread: the fast path stays on one thread");
        return -1;
    }
    s->helper = hp;
    la_verbose(s->r->path, "csv: fast path on two threads from line %llu (a helper parses "
               "half of each block)", (unsigned long long)s->line);
    return 0;
}

static void helper_stop(struct la_csv *s)
{
    if (s->helper)
        helper_free(s->helper);
    s->helper = NULL;
}

/* Parse the complete lines from *pp on two threads: the helper takes those
 * after an LF near the middle into its own buffer, this thread those before it
 * straight into the pending buffer, and the helper's rows are appended. Rows
 * are numbered by position, so the order is all that matters. The block holds
 * about the rows the run still lacks (at the line length seen so far); each
 * half stops at a line quick_lines leaves to fast_line, and what comes after
 * that line is dropped. last follows the last LF read. *pp moves past the
 * lines parsed. @return 1 when the whole block was, 0 to have fast_line go on. */
static int split_parse(struct la_csv *s, const char **pp, const char *last)
{
    const char *p = *pp, *end = last;
    size_t room = CHUNK - (s->tail - s->head);           /* the run is not complete */
    size_t est = s->fast_lines ? (size_t)(s->fast_bytes / s->fast_lines) : 8;

    if (s->tail + room > PENDING || PENDING - (s->tail + room) < CHUNK)
        return 0;                                         /* head is 0 here: never */
    if (est < 1)
        est = 1;
    if ((size_t)(last - p) / est > room) {
        const char *lim = p + room * est;
        end = (const char *)memchr(lim, '\n', (size_t)(last - lim)) + 1;   /* last[-1] is LF */
    }
    if ((size_t)(end - p) < SPLIT_MIN)
        return 0;
    const char *mid = p + (end - p) / 2;
    const char *cut = (const char *)memchr(mid, '\n', (size_t)(end - mid)) + 1;
    if (cut == end)
        return 0;
    if (!s->helper && helper_start(s) < 0) {
        s->no_helper = 1;
        return 0;
    }

    struct helper *hp = s->helper;
    struct half *a = &hp->halves[0], *b = &hp->halves[1];
    hp->s = s;
    *a = (struct half){
        .p = p, .end = cut, .cap = room,
        .vals = (char *)s->vals + s->tail * sizeof(int64_t), .kinds = s->kinds + s->tail,
    };
    b->p = cut, b->end = end, b->cap = CHUNK;
    la_sched_submit(hp->sched, &hp->batch, 2, parse_half, hp);
    la_sched_wait(hp->sched, &hp->batch);

    s->tail += a->rows;
    s->line += a->lines;
    s->fast_lines += a->lines;
    if (a->stop == cut) {
        memcpy((char *)s->vals + s->tail * sizeof(int64_t), b->vals, b->rows * sizeof(int64_t));
        memcpy(s->kinds + s->tail, b->kinds, b->rows);
        s->tail += b->rows;
        s->line += b->lines;
        s->fast_lines += b->lines;
        a->stop = b->stop;
    } else if (a->rows < room) {
        s->split_after = s->line + CHUNK;   /* the helper's half was wasted: back off */
    }
    s->fast_bytes += (uint64_t)(a->stop - p);
    *pp = a->stop;
    return a->stop == end;
}

/* Parse the complete lines in buf[pos..len) until the run at head is complete. */
static void fast_parse(struct la_csv *s)
{
    const char *p = s->buf + s->pos, *end = s->buf + s->len;
    const char *from = s->scan > s->pos ? s->buf + s->scan : p;   /* small reads: no rescan */
    int split = s->resolved && !s->no_helper;
    while (!run_complete(s)) {
        if (split && s->line >= s->split_after && (size_t)(end - from) >= SPLIT_MIN) {
            const char *last = memrchr(from, '\n', (size_t)(end - from));
            int all = last && split_parse(s, &p, last + 1);
            if (p > from)
                from = p;
            if (all)
                continue;
            split = 0;                   /* a line for fast_line, or too few bytes */
        }
        const char *nl = memchr(from, '\n', (size_t)(end - from));
        if (!nl) {
            s->scan = s->len;
            break;
        }
        fast_line(s, p, nl);
        s->line++;
        p = from = nl + 1;
    }
    s->pos = (size_t)(p - s->buf);
}

/* Whether fresh bytes need libcsv: a quote, or a CR that is not part of CR LF.
 * A CR at the very end is decided by the next read (or ends the last line).
 * @return the first such byte (the quote, when there is one), else NULL. */
static const char *needs_libcsv(const char *p, const char *end)
{
    const char *quote = memchr(p, '"', (size_t)(end - p));
    if (quote)
        return quote;
    for (;;) {
        const char *cr = memchr(p, '\r', (size_t)(end - p));
        if (!cr || cr + 1 == end)
            return NULL;
        if (cr[1] != '\n')
            return cr;
        p = cr + 2;
    }
}

/* The parse leaves the fast path for libcsv (why: at byte at of buf, or NULL):
 * -v says where and why, and where libcsv runs. */
static void go_slow(struct la_csv *s, const char *at, const char *why)
{
    s->slow = 1;
    if (!la_verbose_on())
        return;
    const char *p = s->buf + s->pos;
    unsigned long long line = s->line + (at && at > p ? count_lf(p, (size_t)(at - p)) : 0);
    /* the source's offset is that of buf's end: bytes after decompression */
    unsigned long long byte = la_source_offset(s->r->src) - (s->len - (size_t)((at ? at : p) - s->buf));
    if (s->map.base)
        byte = s->map_base + (size_t)((at ? at : p) - s->buf);
    la_verbose(s->r->path, "csv: %s at line %llu (byte %llu): libcsv parses from line %llu on, "
               "%s", why, line, byte, (unsigned long long)s->line,
               s->no_blocks ? "on one thread" : "in blocks on threads where rows allow");
}

// ---- libcsv

/* Hand the gathered bytes to libcsv, except the last keep, which move to the
 * front. @return 0, or -1 with the error set. */
static int requote_flush(struct la_csv *s, size_t keep)
{
    struct requote *q = &s->rq;
    size_t n = q->n - keep;
    size_t used = n ? csv_parse(&s->parser, q->out, n, on_field, on_row, s) : 0;
    int short_parse = used < n;
    memmove(q->out, q->out + n, keep);
    q->n = keep;
    if (s->failed)
        return -1;
    if (short_parse) {
        int e = csv_error(&s->parser);
        return FAIL(s, "line %llu: %s", current_row_line(s),
                    e == CSV_ENOMEM ? "out of memory" : csv_strerror(e));
    }
    /* checked per flush, so a 100 MB cell fails having buffered 16 MiB */
    if (csv_get_buffer_size(&s->parser) > FIELD_MAX)
        return FAIL(s, "line %llu: field longer than 16 MiB", current_row_line(s));
    return 0;
}

static int requote_put(struct la_csv *s, char c)
{
    struct requote *q = &s->rq;
    q->out[q->n++] = c;
    if (q->n < OUT_CAP)
        return 0;
    q->pads = 0;                         /* a run of padding this long stays in the cell */
    return requote_flush(s, 0);
}

/* The requote filter's next state after byte c (requote_byte's rules). A row
 * ends at a newline that leaves the filter in RQ_START; blocks_parse finds row
 * boundaries with this alone. */
static enum rq_state rq_next(unsigned char delim, enum rq_state st, unsigned char c)
{
    int ends_field = c == delim || c == '\n' || c == '\r';

    switch (st) {
    case RQ_START:
        return c == '"' ? RQ_QUOTED : ends_field || is_pad_of(delim, c) ? RQ_START : RQ_PLAIN;
    case RQ_PLAIN:
        return ends_field ? RQ_START : RQ_PLAIN;
    case RQ_QUOTED:
        return c == '"' ? RQ_QUOTE : RQ_QUOTED;
    case RQ_QUOTE:
        return c == '"' ? RQ_QUOTED : ends_field ? RQ_START : RQ_TAIL;
    case RQ_TAIL:
        break;
    }
    return ends_field ? RQ_START : RQ_TAIL;
}

/* Once the label column is known, another cell is given to libcsv as a
 * stand-in: a quoted field that holds only the cell's newlines (they number
 * the lines), whatever its text, quotes and padding were. libcsv still sees
 * every cell and row, in a few bytes instead of a text column's hundred. The
 * rules that find where the cell ends are requote_byte's, unchanged. A cell
 * that is only padding stays no cell (a line of spaces is no row). ends: c
 * ended the cell. */
static int requote_elided(struct la_csv *s, enum rq_state from, char c, int ends)
{
    struct requote *q = &s->rq;
    if (ends) {
        int was_open = q->open;
        q->open = 0;
        return was_open && requote_put(s, '"') < 0 ? -1 : requote_put(s, c);
    }
    if (!q->open && from == RQ_START && q->state == RQ_START)
        return 0;                        /* padding before the cell */
    if (!q->open) {
        q->open = 1;
        if (requote_put(s, '"') < 0)
            return -1;
    }
    return c == '\n' ? requote_put(s, '\n') : 0;   /* a newline inside quotes */
}

/* libcsv and Python's csv module (and pandas) read RFC 4180 alike, but not a
 * quote that closes a quoted field too early: in '"Great" movie,1' Python
 * drops that quote and reads the rest as plain text ('Great movie'), where
 * libcsv keeps the field open until the next quote, rows later, and silently
 * swallows the rows between. This filter gives libcsv the bytes that make it
 * read what Python reads: after such a quote the field stays quoted for
 * libcsv, its quotes doubled, and is closed before the delimiter or newline
 * that ends it. A quote inside an unquoted field is literal in both. Padding
 * is libcsv's rule, as on the fast path: spaces and tabs before a field are
 * skipped (so a quote after them opens a quoted field) and those after it
 * dropped. */
static int requote_byte(struct la_csv *s, char c)
{
    struct requote *q = &s->rq;
    enum rq_state from = q->state;
    int el = q->el, ends = 0;

    q->state = rq_next(s->delim, from, (unsigned char)c);
    if (q->state == RQ_START && ((unsigned char)c == s->delim || c == '\n' || c == '\r')) {
        q->field = (unsigned char)c == s->delim ? q->field + 1 : 0;
        q->elided = 0;
        q->el = q->elide && q->field != s->col;
        ends = 1;
    }
    if (el)
        return requote_elided(s, from, c, ends);
    if (from == RQ_QUOTED && c == '"')
        return 0;                        /* written once the next byte says what it is */
    if (from == RQ_QUOTE) {
        if (q->state != RQ_TAIL)         /* a doubled quote, or the field's end */
            return requote_put(s, '"') < 0 ? -1 : requote_put(s, c);
        from = RQ_TAIL;                  /* a quote that does not end the field: dropped */
    }
    if (from == RQ_TAIL) {
        if (q->state == RQ_START) {
            q->n -= q->pads;             /* trailing padding is not part of a cell */
            q->pads = 0;
            return requote_put(s, '"') < 0 ? -1 : requote_put(s, c);
        }
        if (is_pad(s, (unsigned char)c)) {
            q->pads++;
            return requote_put(s, c);
        }
        q->pads = 0;                     /* the padding is inside the cell */
        if (c == '"' && requote_put(s, '"') < 0)
            return -1;
    }
    return requote_put(s, c);
}

/* Bytes that need no rewriting, gathered as they are. */
static int requote_copy(struct la_csv *s, const char *p, size_t n)
{
    struct requote *q = &s->rq;
    while (n > 0) {
        size_t room = OUT_CAP - q->n, k = n < room ? n : room;
        memcpy(q->out + q->n, p, k);
        q->n += k, p += k, n -= k;
        if (q->n == OUT_CAP) {
            q->pads = 0;
            if (requote_flush(s, 0) < 0)
                return -1;
        }
    }
    return 0;
}

/* A run of a cell's text that needs no rewriting. Of another cell (see
 * requote_elided) only the newlines are given to libcsv; a cell longer than
 * libcsv may hold fails as it would. */
static int requote_text(struct la_csv *s, const char *p, size_t n)
{
    struct requote *q = &s->rq;
    if (!q->el)
        return requote_copy(s, p, n);
    if ((q->elided += n) > FIELD_MAX)
        return FAIL(s, "line %llu: field longer than 16 MiB", current_row_line(s));
    for (uint64_t lf = count_lf(p, n); lf > 0; lf--)
        if (requote_put(s, '\n') < 0)
            return -1;
    return 0;
}

/* The first '"' or LF in p..end, or end: 16 bytes at a time where SSE2 is
 * (every x86-64), else 8 (SWAR). A text cell is a few words, where two
 * memchr calls a cell (quote, then newlines) cost more than this one scan. */
static const char *quote_or_lf(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), lf = _mm_set1_epi8('\n');
    for (; end - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned hits = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, lf)));
        if (hits)
            return p + __builtin_ctz(hits);
    }
#else
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    for (; end - p >= 8; p += 8) {
        uint64_t w, a, b;
        memcpy(&w, p, 8);
        a = w ^ (ones * '"');
        b = w ^ (ones * '\n');
        if (((a - ones) & ~a & highs) | ((b - ones) & ~b & highs))
            break;                       /* one of these 8 bytes: found below */
    }
#endif
    while (p < end && *p != '"' && *p != '\n')
        p++;
    return p;
}

/* Where the cell at p ends (at its delimiter, LF or CR), for requote_row;
 * *lf counts the newlines inside it. @return NULL where requote_byte must
 * read it: a quote that closes the cell early, padding after it, or its end
 * not in p..end. */
static const char *usual_cell_end(const struct la_csv *s, const char *p, const char *end,
                                  uint64_t *lf)
{
    *lf = 0;
    if (p == end || *p != '"') {
        while (p < end && (unsigned char)*p != s->delim && *p != '\n' && *p != '\r')
            p++;
        return p < end ? p : NULL;
    }
    for (p++;;) {
        p = quote_or_lf(p, end);
        if (p == end)
            return NULL;
        if (*p++ == '\n') {
            ++*lf;
            continue;
        }
        if (p < end && *p == '"') {      /* a doubled quote */
            p++;
            continue;
        }
        int ends = p < end && ((unsigned char)*p == s->delim || *p == '\n' || *p == '\r');
        return ends ? p : NULL;
    }
}

/* requote_span's lane for the usual row, once the label column is known
 * (elide): every cell plain, or quoted with only doubled quotes inside and
 * closed right at its end. Its output is then simple: each other cell's
 * stand-in (requote_elided) and the label cell and the delimiters as they
 * are, so it is written here without requote_byte's per-byte steps. Anything
 * else (a stray quote, a lone CR, padding after a quote, a row that runs past
 * end or past the room in out) writes nothing and @return NULL: requote_byte
 * reads that row. @return the byte after the row's LF. */
static const char *requote_row(struct la_csv *s, const char *p, const char *end)
{
    struct requote *q = &s->rq;
    size_t n0 = q->n;

    for (size_t field = 0;; field++) {
        const char *cell = p;
        while (p < end && is_pad(s, (unsigned char)*p))
            p++;                         /* padding before a cell */
        const char *text = p;
        uint64_t lf;
        if (!(p = usual_cell_end(s, p, end, &lf)) || (size_t)(p - cell) > FIELD_MAX)
            break;
        int crlf = *p == '\r';
        if (crlf && (p + 1 == end || p[1] != '\n'))
            break;                       /* a CR that ends a line alone */
        size_t sep = 1 + (size_t)crlf;   /* the delimiter, LF or CR LF after it */
        size_t len = field == s->col ? (size_t)(p - cell) : text == p ? 0 : 2 + lf;
        if (OUT_CAP - q->n < len + sep)
            break;
        char *out = q->out + q->n;
        if (field == s->col) {
            memcpy(out, cell, len);      /* the label cell as it is */
        } else if (len) {
            out[0] = '"';                /* a stand-in: the cell's LF, quoted */
            memset(out + 1, '\n', len - 2);
            out[len - 1] = '"';
        }
        memcpy(out + len, p, sep);
        q->n += len + sep;
        p += sep;
        if (p[-1] == '\n') {
            q->field = 0;
            q->el = s->col != 0;
            return p;
        }
    }
    q->n = n0;
    return NULL;
}

/* Filter *pp..end through requote_byte up to the first newline that ends a
 * row, moving *pp past what was read. Inside a quoted field and inside an
 * unquoted one no byte is rewritten until a quote or a field's end, so those
 * runs are copied whole: most bytes of a text column go by memchr and memcpy.
 * A row of the usual shape that starts at *pp goes whole by requote_row.
 * @return 1 when a row ended, 0 at end, -1 with the error set. */
static int requote_span(struct la_csv *s, const char **pp, const char *end)
{
    const char *p = *pp;
    int ended = 0, row_lane = 1;
    struct requote *q = &s->rq;

    while (p < end && !ended) {
        if (row_lane && q->elide && q->state == RQ_START && q->field == 0 && !q->open && !q->pads) {
            const char *next = requote_row(s, p, end);
            if (next) {
                *pp = next;
                return 1;
            }
            row_lane = 0;                /* requote_byte reads this row */
        }
        const char *run = p;
        if (q->state == RQ_QUOTED) {
            run = memchr(p, '"', (size_t)(end - p));
            if (!run)
                run = end;
        } else if (q->state == RQ_PLAIN) {
            while (run < end && (unsigned char)*run != s->delim && *run != '\n' && *run != '\r')
                run++;
        }
        if (run > p && requote_text(s, p, (size_t)(run - p)) < 0)
            return -1;
        p = run;
        if (p == end)
            break;
        if (requote_byte(s, *p) < 0)
            return -1;
        ended = *p++ == '\n' && q->state == RQ_START;
    }
    *pp = p;
    return ended;
}

// ---- libcsv on every thread

/* The parsed pages of a mapped file that are not given back yet, once
 * GIVE_BACK bytes of them have gathered: *from and the length, which the
 * caller drops (MADV_DONTNEED). Dropping them costs a system call and a TLB
 * flush on every core, so step_publish hands them to the step, whose first
 * thread to take a block drops them while the others parse. @return 0 when
 * none are due. */
static size_t pages_due(struct la_csv *s, char **from)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t lead = (size_t)(s->buf - (char *)s->map.base);   /* buf's offset in the mapping */
    size_t parsed = (lead + s->pos) / page * page;
    if (!s->map.base || parsed < s->given_back + GIVE_BACK)
        return 0;
    *from = (char *)s->map.base + s->given_back;
    size_t len = parsed - s->given_back;
    s->given_back = parsed;
    return len;
}

/* One block of a parallel step: the rows in p..end (p starts a row, end
 * follows the newline that ends one), parsed into s's own buffers by s's own
 * libcsv; stop is where the part stopped (end when it parsed them all). p
 * is NULL when the block's stretch holds no row start (block_start). */
struct block_part {
    struct la_csv s;
    const char *p, *end, *stop;
};

/* Blocks per thread in a step. Threads take the next block as they finish
 * one, so a thread that the system sets aside (two cores, three busy
 * threads: the scan wakes now and then) holds up a step by a quarter block,
 * not by half of it while the other thread idles at the step's end. */
#define BLOCKS_PER_THREAD 4

/* A step: the rows from..to, cut into n blocks, each parsed into its part:
 * a batch of n + 1 tasks on the scheduler, task 0 giving the parsed pages
 * back (pages_due) while the others parse, task 1 + t parsing block t. A
 * block that stops short stops the batch: the blocks after it that no
 * thread has begun are not parsed (their rows are the reader thread's). */
struct step {
    const struct la_csv *s;       /* whose step: its filter's rules */
    const struct blocks *b;
    const char *from, *to;        /* the step's bytes, cut into n stretches */
    char *give_from;              /* parsed pages (pages_due) the step drops first */
    size_t give_len;
    uint64_t lines;               /* the step's lines, estimated */
    int whole;                    /* step_merge took every block */
    struct la_batch batch;
    struct block_part *parts;
};

/* The scheduler the blocks are parsed on, and the two steps it may hold:
 * step k (counted from 0) lies in steps[k % 2]. The reader thread publishes
 * a step and, on a mapped file, the one after it before it waits for the
 * first (step_ahead): a thread that runs out of blocks goes on to the next
 * step instead of idling at the step's end and through the merge, and so
 * does the reader thread while the last blocks of its step finish. */
struct blocks {
    struct la_sched *sched;
    int threads;                  /* the scheduler's */
    int n;                        /* blocks of a step: BLOCKS_PER_THREAD per thread */
    uint64_t published;           /* steps published */
    uint64_t merged;              /* steps merged (or dropped) */
    struct step steps[2];
};

static int blocks_wanted(const struct la_csv *s)
{
    return s->resolved && !s->no_blocks && s->line >= s->split_after;
}

/* Whether the next bytes go to libcsv in blocks on the scheduler, whose steps
 * then give the parsed pages of a mapping back (pages_due). */
static int steps_in_blocks(const struct la_csv *s)
{
    return s->slow && blocks_wanted(s);
}

static int parser_init(struct la_csv *s)
{
    if (csv_init(&s->parser, CSV_REPALL_NL) != 0)
        return -1;
    s->parser_live = 1;
    csv_set_delim(&s->parser, s->delim);
    csv_set_blk_size(&s->parser, 65536);   /* a long cell grows in 64 KiB steps, not 128 B */
    return 0;
}

static void blocks_free(struct blocks *b)
{
    if (!b)
        return;
    la_sched_close(b->sched);           /* a step in flight is stopped, its blocks finish */
    for (int k = 0; k < 2; k++) {
        struct step *st = &b->steps[k];
        for (int t = 0; st->parts && t < b->n; t++) {
            struct la_csv *ps = &st->parts[t].s;
            if (ps->parser_live)
                csv_free(&ps->parser);
            free(ps->vals);
            free(ps->kinds);
        }
        free(st->parts);
    }
    free(b);
}

/* A part per block of each step, its rows a share of CHUNK: the merged rows
 * of a step fit in PENDING, and the memory is the same for any -j. Compressed
 * input is inflated on a thread of its own (input.c), so the parse takes one
 * thread fewer. @return 0, or -1 when fewer than two threads can run (libcsv
 * stays on this thread). */
static int blocks_start(struct la_csv *s)
{
    struct blocks *b = calloc(1, sizeof *b);
    int inflating = la_source_is_compressed(s->r->src);
    if (!b)
        return -1;
    s->blocks = b;
    b->sched = la_sched_open(la_read_opts_or_default(s->r->opts)->threads - inflating);
    b->threads = b->sched ? la_sched_threads(b->sched) : 0;
    b->n = b->threads * BLOCKS_PER_THREAD;
    if (b->threads < 2) {
        la_verbose(s->r->path, "csv: fewer than two threads free%s: libcsv stays on one thread",
                   inflating ? " beside the decompressor" : "");
        return -1;
    }
    la_verbose(s->r->path, "csv: libcsv in blocks on %d threads from line %llu", b->threads,
               (unsigned long long)s->line);
    for (int k = 0; k < 2; k++) {
        struct step *st = &b->steps[k];
        st->b = b;
        if (!(st->parts = calloc((size_t)b->n, sizeof *st->parts)))
            return -1;
        for (int t = 0; t < b->n; t++) {
            struct la_csv *ps = &st->parts[t].s;
            ps->cap = CHUNK / (size_t)b->n;
            ps->vals = malloc(ps->cap * sizeof(int64_t));
            ps->kinds = malloc(ps->cap);
            if (!ps->vals || !ps->kinds)
                return -1;
        }
    }
    return 0;
}

/* What a part needs of s for one step: the column, the width, the kind. */
static void part_begin(struct la_csv *ps, const struct la_csv *s)
{
    ps->part = ps->resolved = 1;
    ps->delim = s->delim;
    ps->col = s->col;
    ps->width = s->width;
    ps->saw_float = s->saw_float;
    ps->failed = 0;
    ps->head = ps->tail = 0;
    ps->line = 0;
    ps->field = 0;
    ps->rq.state = RQ_START;
    ps->rq.n = ps->rq.pads = ps->rq.field = 0;
    ps->rq.elided = 0;
    ps->rq.elide = s->rq.elide;
    ps->rq.el = ps->rq.elide && ps->col != 0;   /* a part starts at a row's first cell */
    ps->rq.open = 0;
}

/* Parse a part's block a unit at a time: whole rows, until UNIT_BYTES of them
 * are gathered for libcsv (one csv_parse call per row cost more than the
 * parse). The unit in which the part stops (see FAIL) is taken back whole,
 * for this thread to parse. Runs on a scheduler thread: it touches its part only. */
static void parse_part(struct block_part *bp)
{
    struct la_csv *ps = &bp->s;
    const char *p = bp->p, *unit = p;
    size_t unit_rows = 0;
    uint64_t unit_lines = 0;

    if (ps->parser_live)
        csv_free(&ps->parser);           /* the last step may have left it mid-row */
    ps->parser_live = 0;
    if (parser_init(ps) == 0)
        while (requote_span(ps, &p, bp->end) > 0) {
            if (ps->rq.n < UNIT_BYTES && p < bp->end)
                continue;
            if (requote_flush(ps, 0) != 0)
                break;
            unit = p, unit_rows = ps->tail, unit_lines = ps->line;
        }
    ps->tail = unit_rows;
    ps->line = unit_lines;
    bp->stop = unit;
}

static const char *block_start(const struct step *st, int t);

/* Where block t ends: where the next block starts, or the step's end. */
static const char *block_end(const struct step *st, int t)
{
    for (int j = t + 1; j < st->b->n; j++) {
        const char *start = block_start(st, j);
        if (start)
            return start;
    }
    return st->to;
}

/* Task k of step st's batch (see struct step). A block runs from its start
 * to the next block's (block_start): a stretch with no row start belongs to
 * the block before it. Each touches its part only. */
static void step_task(void *ctx, int worker, size_t k)
{
    struct step *st = ctx;
    (void)worker;
    if (k == 0) {
        if (st->give_len)
            madvise(st->give_from, st->give_len, MADV_DONTNEED);   /* the others parse */
        return;
    }
    int t = (int)(k - 1);
    struct block_part *bp = &st->parts[t];
    if (!(bp->p = block_start(st, t)))
        return;
    bp->end = block_end(st, t);
    parse_part(bp);
    if (bp->stop != bp->end)
        la_sched_stop(st->b->sched, &st->batch, k + 1);
}

/* Where a row surely starts at or after p, whatever the filter's state at p
 * (a block does not know whether it begins inside a quoted field): run every
 * state through the bytes until all agree, then up to a newline that ends a
 * row. The rules of requote_byte make the states meet within a row or two
 * (at a quote next to a letter: '"great' opens, 'great"' closes). @return
 * NULL when they have not by end: a block inside one quoted field, or quotes
 * that read both ways ('"\n' after a delimiter, as in '1,"\nx",2'). */
static const char *sure_row_start(const struct la_csv *s, const char *p, const char *end)
{
    enum rq_state st[] = { RQ_START, RQ_PLAIN, RQ_QUOTED, RQ_QUOTE, RQ_TAIL };
    size_t n = sizeof st / sizeof st[0];

    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        int agree = 1;
        for (size_t i = 0; i < n; i++) {
            st[i] = rq_next(s->delim, st[i], c);
            agree &= st[i] == st[0];
        }
        if (agree)
            n = 1;
        if (n == 1 && c == '\n' && st[0] == RQ_START)
            return p + 1;
    }
    return NULL;
}

// ---- the row rule, for line_map.c: where each row starts, as this reader reads them

void la_csv_rows_init(struct la_csv_rows *w, unsigned char delim, int quotes, uint64_t skip)
{
    *w = (struct la_csv_rows){ .delim = delim, .quotes = quotes, .state = RQ_START,
                               .line = 1, .skip = skip };
}

void la_csv_rows_feed(struct la_csv_rows *w, const char *p, size_t n,
                      void (*row_ended)(uint64_t line, void *ctx), void *ctx)
{
    for (const char *end = p + n; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        int newline = c == '\n' || c == '\r';
        if (w->line <= w->skip) {        /* --skip-rows: whole lines, quotes unread */
            w->line += c == '\n';
            continue;
        }
        /* a row ends at a newline that leaves the requote filter between
         * fields (blocks_parse cuts rows by this alone); text has no quotes */
        if (w->quotes)
            w->state = (int)rq_next(w->delim, (enum rq_state)w->state, c);
        if (!w->content && !newline && !is_pad_of(w->quotes ? w->delim : 0, c)) {
            w->content = 1;              /* a line of padding is no row */
            w->row_line = w->line;
        }
        w->line += c == '\n';
        if (newline && w->state == RQ_START && w->content) {
            w->content = 0;
            row_ended(w->row_line, ctx);
        }
    }
}

void la_csv_rows_end(struct la_csv_rows *w, void (*row_ended)(uint64_t line, void *ctx),
                     void *ctx)
{
    if (w->content)                      /* the last row, without a newline */
        row_ended(w->row_line, ctx);
    w->content = 0;
}

/* Where block t of step st starts, NULL when its stretch (the step's bytes
 * cut into n) holds none: a row surely starts there (sure_row_start,
 * within SURE_MAX bytes), or else after its first newline, a speculation that
 * the newline is not inside a quoted field. The block before confirms or
 * refutes it: it parses exactly up to it, and stops short unless a row ends
 * there (step_merge then drops the blocks after it). The parser of block t
 * and that of the one before each find it (the answer is the same for both,
 * from the bytes alone), so that neither waits for the other. */
static const char *block_start(const struct step *st, int t)
{
    if (t == 0)
        return st->from;
    int n = st->b->n;
    size_t len = (size_t)(st->to - st->from);
    const char *guess = st->from + len * (size_t)t / (size_t)n;
    const char *lim = st->from + len * (size_t)(t + 1) / (size_t)n;
    const char *cut = sure_row_start(st->s, guess, lim - guess > SURE_MAX ? guess + SURE_MAX : lim);
    if (!cut && (cut = memchr(guess, '\n', (size_t)(lim - guess))) != NULL)
        cut++;
    if (cut && cut >= st->to)
        cut = NULL;                 /* at or past the end: the block before ends there */
    return cut;
}

/* The lines in p..end, estimated from SAMPLES pieces spread over it (all of
 * them when it is short): counting every line of a step on this thread,
 * before the parts start, cost a tenth of the parse. A part that meets more
 * rows than it holds stops there (push_cell), and this thread goes on from
 * its stop, so a low estimate costs time, not rows. */
static uint64_t estimate_lines(const char *p, const char *end)
{
    size_t len = (size_t)(end - p), piece = SAMPLE_BYTES / SAMPLES;
    if (len <= SAMPLE_BYTES)
        return count_lf(p, len);
    uint64_t seen = 0;
    for (size_t i = 0; i < SAMPLES; i++)
        seen += count_lf(p + (len - piece) * i / (SAMPLES - 1), piece);
    return (seen + 1) * (uint64_t)len / SAMPLE_BYTES + 1;
}

/* Publish a step over the rows from p to last's newline (as many of them as
 * the parts hold), in the slot of the step two before it, which is merged:
 * the scheduler's threads begin on it at once. */
static void step_publish(struct la_csv *s, const char *p, const char *last)
{
    struct blocks *b = s->blocks;
    struct step *st = &b->steps[b->published % 2];
    size_t want = (size_t)b->n * st->parts[0].s.cap / 8 * 7;   /* rows the parts hold */
    uint64_t lines = estimate_lines(p, last + 1);
    const char *end = last + 1;
    if (lines > want) {                  /* fewer bytes, as many lines as the parts hold */
        const char *lim = p + (size_t)((uint64_t)(end - p) * want / lines);
        end = (const char *)memchr(lim, '\n', (size_t)(last + 1 - lim)) + 1;
    }
    for (int t = 0; t < b->n; t++) {
        part_begin(&st->parts[t].s, s);
        st->parts[t].p = st->parts[t].end = st->parts[t].stop = NULL;
    }
    st->s = s;
    st->from = p;
    st->to = end;
    st->lines = lines;
    st->give_len = pages_due(s, &st->give_from);
    b->published++;
    la_sched_submit(b->sched, &st->batch, (size_t)b->n + 1, step_task, st);
}

/* Wait until the oldest step in flight is parsed, and count it merged: its
 * parts are then this thread's. Meanwhile this thread parses blocks of it,
 * and then of the step published after it (la_sched_wait): waiting idle, it
 * lost up to a block's time at the end of every step (3 of a 50 ms parse
 * on two threads). */
static struct step *step_wait(struct blocks *b)
{
    struct step *st = &b->steps[b->merged % 2];
    la_sched_wait(b->sched, &st->batch);
    b->merged++;
    return st;
}

/* Drop the oldest step in flight unparsed: no block more of it is begun,
 * and those that were are waited for. */
static void step_drop(struct blocks *b)
{
    la_sched_stop(b->sched, &b->steps[b->merged % 2].batch, 0);
    step_wait(b);
}

/* Append the parsed step's rows in file order, up to the first block that
 * stopped short, and move pos to where the step stopped: its end when whole
 * (where a step published ahead begins). @return 1 when rows
 * were taken, -1 when none (the first block stopped at its first row). */
static int step_merge(struct la_csv *s, struct step *st)
{
    struct blocks *b = s->blocks;
    const char *p = st->from, *stop = p;
    st->whole = 1;
    for (int t = 0; t < b->n; t++) {
        const struct block_part *bp = &st->parts[t];
        if (!la_sched_ran(&st->batch, (size_t)t + 1)) {
            st->whole = 0;               /* never: a block before it stopped short */
            break;
        }
        if (!bp->p)
            continue;                    /* its stretch is the block before's */
        const struct la_csv *ps = &bp->s;
        if (s->tail + ps->tail > PENDING) {
            st->whole = 0;               /* never: the parts hold CHUNK rows in all */
            break;
        }
        memcpy((char *)s->vals + s->tail * sizeof(int64_t), ps->vals, ps->tail * sizeof(int64_t));
        memcpy(s->kinds + s->tail, ps->kinds, ps->tail);
        s->tail += ps->tail;
        s->line += ps->line;
        stop = bp->stop;
        if (bp->stop != bp->end) {
            st->whole = 0;
            break;
        }
    }
    if ((size_t)(stop - p) < (size_t)(st->parts[0].end - p) / 16)
        s->split_after = s->line + st->lines;   /* rows that need this thread are dense here */
    s->pos = (size_t)(stop - s->buf);
    return stop > p ? 1 : -1;
}

/* The last LF in p..buf+len, when split_min bytes or more lie there: where
 * a step over them ends. NULL when fewer, or no row ends in them. */
static const char *last_row_end(const struct la_csv *s, const char *p)
{
    const char *end = s->buf + s->len;
    return (size_t)(end - p) >= s->split_min ? memrchr(p, '\n', (size_t)(end - p)) : NULL;
}

static int fill(struct la_csv *s);

/* On a mapped file, publish the step after st (the only one in flight), from
 * where st ends, before this thread waits for st: a worker that runs out of
 * st's blocks goes on to it, and parses on while this thread merges st and
 * hands its rows to the scan. Waiting for each step whole, the workers idled
 * through the last block and the merge (7 of a 55 ms parse on two threads).
 * Only a mapping is read ahead: its bytes stay where they are, where a read
 * buffer moves them. When st stops short, the step after it is dropped. */
static void step_ahead(struct la_csv *s, const struct step *st)
{
    struct blocks *b = s->blocks;
    if (!s->map.base || b->published - b->merged != 1 || s->failed)
        return;
    if (!s->eof && (size_t)(s->buf + s->len - st->to) < s->block && fill(s) < 0)
        return;
    const char *last = last_row_end(s, st->to);
    if (last)
        step_publish(s, st->to, last);
}

/* Parse the rows in buf[pos..len) on every thread (-j2 and up): cut them into
 * blocks at proved row starts, parse each block with its own libcsv behind
 * its own requote filter, then append their rows in file order, so the rows
 * and their numbers are those of a one-thread parse. A block stops at a row
 * that needs this thread (an unparsable cell, the first float, a short or
 * wide row, an error); the blocks after it are dropped and this thread goes
 * on from that row. libcsv on this thread must be between rows (at_row_start).
 * A step published ahead (step_ahead) starts at pos: this thread joins it.
 * @return 1 when rows were taken, 0 when more bytes are wanted first, -1 when
 * no block can be parsed now (the caller parses a PIECE). */
static int blocks_parse(struct la_csv *s)
{
    struct blocks *b = s->blocks;
    if (!b || b->published == b->merged) {
        const char *p = s->buf + s->pos, *last = last_row_end(s, p);
        if (!last)
            return 0;
        if (!b && blocks_start(s) < 0) {
            s->no_blocks = 1;
            return -1;
        }
        b = s->blocks;
        step_publish(s, p, last);
    }
    step_ahead(s, &b->steps[b->merged % 2]);
    struct step *st = step_wait(b);
    int got = step_merge(s, st);
    if (b->published != b->merged && !st->whole)
        step_drop(b);                    /* it began where this step was to end */
    return got;
}

/* Feed up to a PIECE of buf[pos..len) to libcsv on this thread; when blocks
 * may follow, stop after the first row that ends in it. */
static void slow_piece(struct la_csv *s)
{
    size_t n = s->len - s->pos < PIECE ? s->len - s->pos : PIECE;
    const char *p = s->buf + s->pos, *end = p + n;
    int to_row_end = blocks_wanted(s), got;

    do
        got = requote_span(s, &p, end);
    while (got == 1 && !to_row_end);
    if (got < 0)
        return;
    s->at_row_start = got == 1;
    s->pos = (size_t)(p - s->buf);
    requote_flush(s, s->rq.pads);        /* the rows of this PIECE, no more, are pending */
}

/* Feed buf[pos..len) to libcsv until the run is complete: in blocks on every
 * thread where it may, else a PIECE at a time. */
static void slow_parse(struct la_csv *s)
{
    while (s->pos < s->len && !run_complete(s) && !s->failed) {
        if (blocks_wanted(s)) {
            int got = s->at_row_start ? blocks_parse(s) : -1;
            if (got > 0)
                continue;
            if (got == 0 && !s->eof && s->len - s->pos < s->block)
                return;                  /* a read first: the block is too small */
        }
        slow_piece(s);
    }
}

/* End of input: the last line may lack its newline. */
static void finish(struct la_csv *s)
{
    if (!s->slow) {
        if (s->pos < s->len)
            fast_line(s, s->buf + s->pos, s->buf + s->len);
        s->pos = s->len;
    } else {
        /* strict only now: it makes csv_fini report a quote that never closed */
        csv_set_opts(&s->parser, (unsigned char)(csv_get_opts(&s->parser) | CSV_STRICT
                                                  | CSV_STRICT_FINI));
        enum rq_state open = s->rq.state;
        /* the last cell is closed for libcsv, unless a quote left it open */
        int close = s->rq.el ? s->rq.open && open != RQ_QUOTED
                             : open == RQ_QUOTE || open == RQ_TAIL;
        s->rq.n -= s->rq.pads;
        s->rq.pads = 0;
        if (close && (requote_put(s, '"') < 0 || requote_flush(s, 0) < 0))
            return;
        unsigned long long line = current_row_line(s);
        if (csv_fini(&s->parser, on_field, on_row, s) != 0)
            FAIL(s, "line %llu: unterminated quoted field", line);
    }
    if (!s->resolved && s->kept && !s->failed)
        resolve(s);                      /* fewer rows than the guess would compare */
    s->done = 1;
}

// ---- input

/* Read a plain file in place: map it, guarded (fatal.h), from the source's
 * offset on. Copying it through read() cost a tenth of the parse, on the
 * thread all others wait for at each step; mapped, the parts fault its pages
 * in on their own threads. When mmap is refused, the file is read. */
static void map_input(struct la_csv *s)
{
    int fd = la_source_plain_fd(s->r->src);
    int64_t size = la_source_size(s->r->src);
    uint64_t at = la_source_offset(s->r->src);
    const char *buf;
    if (fd < 0 || size < 0 || (uint64_t)size <= at
        || !(buf = la_map_guarded(fd, at, (uint64_t)size - at, &s->map)))
        return;
    madvise(s->map.base, s->map.len, MADV_SEQUENTIAL);
    s->buf = (char *)buf;
    s->map_len = (size_t)((uint64_t)size - at);
    s->map_base = at;
}

/* The next block of a mapped file (MAP_BLOCKS for libcsv): no copy, len moves on. Parsed
 * pages are dropped now and then, so resident memory stays what reading used.
 * @return the bytes added, 0 at the end, -1 when the file shrank under the
 * mapping (the bytes read past its new end were zeros). */
static ssize_t more_mapped(struct la_csv *s)
{
    char *from;
    int in_blocks = steps_in_blocks(s);
    size_t due = in_blocks ? 0 : pages_due(s, &from);   /* else the next step's */
    if (due)
        madvise(from, due, MADV_DONTNEED);
    int64_t fault = la_guard_fault(s->map.base);
    if (fault >= 0)
        return FAIL(s, "byte %lld: file shrank while being read", (long long)fault);
    size_t step = in_blocks ? MAP_BLOCKS * s->block : s->block;
    size_t n = s->map_len - s->len < step ? s->map_len - s->len : step;
    la_source_read_in_place(s->r->src, s->map_base + s->len + n);
    return (ssize_t)n;
}

/* Read the next block after the unparsed bytes into buf. @return the bytes
 * added, 0 at the end, -1 on a read error. */
static ssize_t more_read(struct la_csv *s)
{
    /* Move the unparsed tail (at most READ_BYTES, see produce) to the front
     * when READ_BYTES no longer fit after it, or when it is shorter than the
     * bytes parsed before it (the partial row a block leaves: the buffer's
     * second half is then never touched). Moving a long tail every time would
     * be quadratic in the line length with small reads from a pipe; this way
     * each move costs at most what was parsed since the last. */
    if (s->pos == s->len) {
        s->pos = s->len = s->scan = 0;
    } else if (s->len > s->block || s->len - s->pos <= s->pos) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->len -= s->pos;
        s->scan = s->scan > s->pos ? s->scan - s->pos : 0;
        s->pos = 0;
    }
    ssize_t n = la_source_read(s->r->src, s->buf + s->len, s->block);
    if (n < 0) {
        const char *why = la_source_error(s->r->src);
        return FAIL(s, "%s", why && *why ? why : "read error");
    }
    return n;
}

/* One more block after the unparsed bytes. @return 0, or -1 on a read error. */
static int fill(struct la_csv *s)
{
    ssize_t n = s->map.base ? more_mapped(s) : more_read(s);
    if (n < 0)
        return -1;
    if (n == 0) {
        s->eof = 1;
        return 0;
    }
    size_t from = s->len ? s->len - 1 : 0;   /* a CR left at the end is decided now */
    s->len += (size_t)n;
    const char *at = s->slow ? NULL : needs_libcsv(s->buf + from, s->buf + s->len);
    if (at)
        go_slow(s, at, *at == '"' ? "a quote" : "a CR that ends a line alone");
    return 0;
}

/* Parse until the run at head is complete, the first row is resolved (when
 * asked), or the input ends. @return 0, or -1 with r->err set. */
static int produce(struct la_csv *s, int until_resolved)
{
    s->brk = 0;
    for (;;) {
        if (s->slow)
            slow_parse(s);
        else
            fast_parse(s);
        if (s->failed)
            return -1;
        if (run_complete(s) || (until_resolved && s->resolved))
            return 0;
        /* the parser needs more bytes; a line longer than a block goes to libcsv,
         * which holds only the cell, so memory stays bounded */
        if (!s->slow && s->len - s->pos > s->block) {
            go_slow(s, NULL, "a line longer than a read block");
            continue;
        }
        if (s->eof) {
            finish(s);
            return s->failed ? -1 : 0;
        }
        if (fill(s) < 0)
            return -1;
    }
}

// ---- the reader ops

static void la_csv_close(struct la_reader *r)
{
    struct la_csv *s = r->state;
    if (!s)
        return;
    helper_stop(s);
    blocks_free(s->blocks);
    if (s->parser_live)
        csv_free(&s->parser);
    if (s->map.base)
        la_unmap_guarded(&s->map);
    else
        free(s->buf);
    free(s->vals);
    free(s->kinds);
    free(s->texts);
    free(s->row0);
    free(s->row0_off);
    free(s);
    r->state = NULL;
}

static unsigned char pick_delimiter(const struct la_reader *r)
{
    if (r->opts && r->opts->delimiter)
        return (unsigned char)r->opts->delimiter;
    return r->info.format == LA_FMT_TSV ? '\t' : ',';
}

static int csv_setup(struct la_reader *r, struct la_csv *s)
{
    const struct la_read_opts *o = r->opts;
    const char *slow = getenv("LABELAUDIT_CSV_SLOW");
    const char *block = getenv("LABELAUDIT_CSV_BLOCK");
    uint64_t num;

    s->r = r;
    s->delim = pick_delimiter(r);
    s->line = 1;
    s->slow = s->reference = slow && strcmp(slow, "1") == 0;
    s->no_helper = o && o->threads == 1;
    s->no_blocks = s->slow || !o || o->threads <= 1;   /* the reference stays one thread */
    s->at_row_start = 1;
    s->cap = PENDING;
    s->block = READ_BYTES;
    if (block && la_strtou64(block, &num) == 0 && num >= 2 && num <= READ_BYTES)
        s->block = (size_t)num;          /* tests: small files cross many block edges */
    s->split_min = s->block / 16 > 2 ? s->block / 16 : 2;
    if (s->delim == '"' || s->delim == '\n' || s->delim == '\r')
        return FAIL(s, "the delimiter cannot be a quote or a newline");
    if (o && o->column && o->header == LA_NO && !is_column_number(o->column, &num))
        return FAIL(s, "--column=%.100s names a header cell, but --no-header says there is none",
                    o->column);
    map_input(s);
    if (!s->map.base)
        s->buf = malloc(2 * s->block);
    s->vals = malloc(PENDING * sizeof(int64_t));
    s->kinds = malloc(PENDING);
    if (!s->buf || !s->vals || !s->kinds || parser_init(s) != 0)
        return FAIL(s, "out of memory");
    if (s->reference)
        la_verbose(r->path, "csv: libcsv alone on one thread (LABELAUDIT_CSV_SLOW=1)");
    else
        la_verbose(r->path, "csv: fast path (quote-free lines parsed in place)%s",
                   s->no_helper ? " on one thread (-j1)" : "");
    return 0;
}

static void init_info(struct la_reader *r)
{
    r->info.dtype = LA_DT_INT64;
    r->info.ndim = 1;
    r->info.shape[0] = 0;
    r->info.shape_known = 0;
    r->info.column[0] = '\0';
    r->info.has_column = 0;
    r->info.header_present = r->info.header_guessed = 0;
    r->info.header_why = NULL;
    r->info.header_ambiguous_row[0] = '\0';
}

/* --skip-rows=K: drop the first K lines, as pandas' skiprows=K does (sklearn's
 * wine_data.csv opens with a line of counts). Lines end at LF, so a quoted
 * newline in them ends one too. @return 0, or -1 on a read error. */
static int skip_lines(struct la_csv *s, uint64_t k)
{
    while (k > 0) {
        const char *p = s->buf + s->pos;
        const char *nl = memchr(p, '\n', s->len - s->pos);
        if (nl) {
            s->pos = (size_t)(nl + 1 - s->buf);
            s->line++;
            k--;
        } else if (s->eof) {
            s->pos = s->len;             /* fewer lines than K: no rows at all */
            return 0;
        } else {
            s->pos = s->len;             /* the line goes on: drop what was read of it */
            if (fill(s) < 0)
                return -1;
        }
    }
    s->scan = s->pos;
    return 0;
}

/* The header decides what row 0 is, so the first row is read before any chunk. */
static int read_first_row(struct la_csv *s)
{
    while (!s->eof && s->len < 3)        /* the BOM may arrive a byte at a time */
        if (fill(s) < 0)
            return -1;
    if (s->len >= 3 && memcmp(s->buf, "\xEF\xBB\xBF", 3) == 0)
        s->pos = 3;
    if (s->r->opts && skip_lines(s, s->r->opts->skip_rows) < 0)
        return -1;
    while (!s->resolved && !s->done)
        if (produce(s, 1) < 0)
            return -1;
    return 0;
}

static int la_csv_open(struct la_reader *r)
{
    struct la_csv *s = calloc(1, sizeof *s);
    if (!s)
        return la_reader_set_error(r, "out of memory");
    r->state = s;
    init_info(r);
    if (csv_setup(r, s) < 0 || read_first_row(s) < 0) {
        la_csv_close(r);                    /* r->err stays; a later close() does nothing */
        return -1;
    }
    return 0;
}

/* How many of the n kinds at p are k, from the first on. A step adds
 * tens of thousands of rows and this runs after each, so it compares 64 at a
 * time (the OR of eight words' differences, which -O2 vectorizes). */
static size_t same_kind(const unsigned char *p, size_t n, unsigned char k)
{
    const uint64_t all = 0x0101010101010101u * k;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t w[8], diff = 0;
        memcpy(w, p + i, sizeof w);
        for (int j = 0; j < 8; j++)
            diff |= w[j] ^ all;
        if (diff)
            break;
    }
    while (i < n && p[i] == k)
        i++;
    return i;
}

/* The length of the run at head: values of one kind, or one unparsable cell. */
static size_t run_length(const struct la_csv *s)
{
    if (s->head == s->tail)
        return 0;
    unsigned char k = s->kinds[s->head];
    if (k == K_BAD)
        return 1;
    size_t lim = s->tail < s->head + CHUNK ? s->tail : s->head + CHUNK;
    return same_kind(s->kinds + s->head, lim - s->head, k);
}

static void emit(struct la_csv *s, size_t n, struct la_chunk *out)
{
    unsigned char k = s->kinds[s->head];
    out->dtype = k == K_FLOAT || (k == K_BAD && s->saw_float) ? LA_DT_FLOAT64 : LA_DT_INT64;
    out->first_index = s->index;
    out->count = n;
    if (k == K_BAD) {
        out->values = NULL;
        out->unparsable = s->texts + s->text_pos;
        s->text_pos += strlen(out->unparsable) + 1;
    } else {
        out->values = (const char *)s->vals + s->head * sizeof(int64_t);
        out->unparsable = NULL;
    }
    s->head += n;
    s->index += n;
    s->r->info.shape[0] = s->index;
}

/* Move the one incomplete run to the front. No unparsable cell is pending then
 * (one would have completed the run), so the text buffer starts over too. */
static void compact(struct la_csv *s)
{
    size_t n = s->tail - s->head;
    if (s->head) {
        memmove(s->vals, (char *)s->vals + s->head * sizeof(int64_t), n * sizeof(int64_t));
        memmove(s->kinds, s->kinds + s->head, n);
    }
    s->head = 0, s->tail = n;
    s->text_len = s->text_pos = 0;
}

static int la_csv_next(struct la_reader *r, struct la_chunk *out)
{
    struct la_csv *s = r->state;
    for (;;) {
        if (s->failed)
            return -1;
        size_t n = run_length(s);
        if (n && (n == CHUNK || s->head + n < s->tail || s->done
                  || s->kinds[s->head] == K_BAD)) {
            emit(s, n, out);
            return 1;
        }
        if (s->done) {
            r->info.shape_known = 1;
            return 0;
        }
        compact(s);
        if (produce(s, 0) < 0)
            return -1;
    }
}

const struct la_reader_ops la_reader_csv = {
    .open = la_csv_open,
    .next = la_csv_next,
    .close = la_csv_close,
};
