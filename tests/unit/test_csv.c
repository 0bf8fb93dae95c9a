/* test_csv.c - TAP unit test for src/read/read_csv.c, the CSV/TSV reader.
 *
 * Every small case runs four ways: the memchr fast path and libcsv
 * (LABELAUDIT_CSV_SLOW=1), each fed the whole input at once and 1 to 7 bytes
 * per read, and all four must give the expected chunks exactly. The chunks are
 * compared as a text dump, "I0[1 2] U2[cat] F3[1.5]": kind (I int64, F float64,
 * U unparsable), first index, values. Larger cases generate 200k rows to check
 * both paths agree over chunk and read boundaries, and a 100 MB cell to check
 * the 16 MiB limit holds in bounded memory.
 *
 * The byte source (input.c) is faked below, so the test links with the reader
 * alone (and reader.c, for la_reader_set_error):
 *   gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc -Isrc/read src/read/read_csv.c src/reader.c \
 *       src/util.c tests/unit/test_csv.c -lcsv -o /tmp/test_csv && /tmp/test_csv */

#include <inttypes.h>     /* PRId64 */
#include <stdarg.h>       /* va_list */
#include <stdio.h>        /* printf, snprintf */
#include <stdlib.h>       /* malloc, setenv */
#include <string.h>       /* memcpy, strcmp */
#include <sys/resource.h> /* getrusage: the 100 MB cell must not be buffered */

#include "fatal.h"  /* la_map_guarded, la_guard_fault: stubbed below */
#include "reader.h"
#include "tap.h"
#include "util.h"     /* la_parse_number: the reference for every cell */

/* AddressSanitizer keeps freed blocks in quarantine, so the peak RSS says
 * nothing about the reader there (gcc and clang spell the test differently). */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

// ---- a stand-in for input.c, so this file links without it

/* An in-memory source: data, then optionally fill_len copies of fill_byte,
 * then tail. Each read returns 1..7 bytes (tiny) or up to max_read. */
struct la_source {
    const char *data;
    size_t len;
    size_t fill_len;
    char fill_byte;
    const char *tail;
    size_t off;               /* bytes delivered */
    int tiny;
    size_t max_read;
    uint32_t rng;
    int fail_at_end;          /* report a read error instead of the end */
};

int la_source_is_compressed(const struct la_source *s)
{
    (void)s;
    return 0;
}

/* The fake source is never compressed: nothing is decompressed ahead. */
int la_source_ahead_inline(struct la_source *s)
{
    (void)s;
    return 0;
}

int la_source_prefetches(const struct la_source *s)
{
    (void)s;
    return 0;
}

void la_source_prefetch(struct la_source *s, size_t want)
{
    (void)s;
    (void)want;
}

ssize_t la_source_read(struct la_source *s, void *buf, size_t n)
{
    size_t tail_len = s->tail ? strlen(s->tail) : 0;
    size_t total = s->len + s->fill_len + tail_len;
    char *out = buf;

    if (s->off == total)
        return s->fail_at_end ? -1 : 0;
    if (s->tiny) {
        s->rng = s->rng * 1103515245u + 12345u;
        size_t k = 1 + (s->rng >> 16) % 7;
        n = n < k ? n : k;
    } else if (s->max_read && n > s->max_read) {
        n = s->max_read;
    }
    size_t done = 0;
    while (done < n && s->off < total) {
        size_t o = s->off;
        if (o < s->len)
            out[done] = s->data[o];
        else if (o < s->len + s->fill_len)
            out[done] = s->fill_byte;
        else
            out[done] = s->tail[o - s->len - s->fill_len];
        done++, s->off++;
    }
    return (ssize_t)done;
}

uint64_t la_source_offset(const struct la_source *s)
{
    return s->off;
}

const char *la_source_error(const struct la_source *s)
{
    (void)s;
    return "Input/output error";
}

const char *la_source_path(const struct la_source *s)
{
    (void)s;
    return "test.csv";
}

/* Not a regular file: the reader reads, it maps nothing (the shell tests
 * cover the mapped file, tests/unit/test_shrink.c a mapped file cut short). */
int la_source_plain_fd(const struct la_source *s)
{
    (void)s;
    return -1;
}

int64_t la_source_size(const struct la_source *s)
{
    (void)s;
    return -1;
}

void la_source_read_in_place(struct la_source *s, uint64_t offset)
{
    (void)s, (void)offset;
}

const void *la_map_guarded(int fd, uint64_t offset, uint64_t len, struct la_mapping *m)
{
    (void)fd, (void)offset, (void)len;
    *m = (struct la_mapping){ NULL, 0 };
    return NULL;
}

int64_t la_unmap_guarded(struct la_mapping *m)
{
    (void)m;
    return -1;
}

int64_t la_guard_fault(const void *map)
{
    (void)map;
    return -1;
}

// ---- running the reader

/* A growable string for the chunk dump. */
struct buf {
    char *p;
    size_t len, cap;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void bprintf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    char tmp[512];

    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof tmp)
        n = sizeof tmp - 1;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p)
            abort();
        b->cap = cap;
    }
    memcpy(b->p + b->len, tmp, (size_t)n + 1);
    b->len += (size_t)n;
}

struct result {
    struct buf dump;          /* the chunks, or "ERROR: message" */
    char column[256];         /* "-" when info.has_column is 0 */
    const char *dtype;        /* info.dtype after the last next() */
    uint64_t rows;            /* info.shape[0] at the end */
    int bad_chunk;            /* a chunk broke an invariant (order, size, kinds) */
};

struct how {
    int slow;                 /* LABELAUDIT_CSV_SLOW=1 */
    int tiny;                 /* 1..7 bytes per read */
    size_t max_read;          /* else at most this many per read (0: as asked) */
    int threads;              /* -j (0: as main leaves it unset) */
    const char *block;        /* LABELAUDIT_CSV_BLOCK: libcsv's blocks on every thread
                                 cut at every few bytes (NULL: the default) */
};

static void dump_chunk(struct result *res, const struct la_chunk *c, uint64_t *next)
{
    if (c->first_index != *next || c->count == 0 || c->count > 65536
        || (c->unparsable && c->count != 1)
        || (!c->unparsable && c->dtype != LA_DT_INT64 && c->dtype != LA_DT_FLOAT64))
        res->bad_chunk = 1;
    *next = c->first_index + c->count;
    if (c->unparsable) {
        bprintf(&res->dump, "%sU%" PRIu64 "[%s]", res->dump.len ? " " : "", c->first_index,
                c->unparsable);
        return;
    }
    int is_int = c->dtype == LA_DT_INT64;
    bprintf(&res->dump, "%s%c%" PRIu64 "[", res->dump.len ? " " : "", is_int ? 'I' : 'F',
            c->first_index);
    for (size_t i = 0; i < c->count; i++) {
        if (is_int)
            bprintf(&res->dump, "%s%" PRId64, i ? " " : "", ((const int64_t *)c->values)[i]);
        else
            bprintf(&res->dump, "%s%.17g", i ? " " : "", ((const double *)c->values)[i]);
    }
    bprintf(&res->dump, "]");
}

static void run_source(struct la_source *src, const struct la_read_opts *cfg_in, const char *format,
                       struct how how, struct result *res)
{
    struct la_read_opts cfg_j = *cfg_in, *cfg = &cfg_j;
    int slow = how.slow;
    struct la_reader r;
    struct la_chunk c;
    uint64_t next = 0;
    int rc;

    memset(res, 0, sizeof *res);
    memset(&r, 0, sizeof r);
    r.ops = &la_reader_csv;
    r.src = src;
    r.opts = cfg;
    r.info.format = strcmp(format, "tsv") == 0 ? LA_FMT_TSV : LA_FMT_CSV;
    if (slow)
        setenv("LABELAUDIT_CSV_SLOW", "1", 1);
    else
        unsetenv("LABELAUDIT_CSV_SLOW");
    if (how.block)
        setenv("LABELAUDIT_CSV_BLOCK", how.block, 1);
    if (how.threads)
        cfg_j.threads = how.threads;
    rc = r.ops->open(&r);
    while (rc == 0 && (rc = r.ops->next(&r, &c)) == 1) {
        dump_chunk(res, &c, &next);
        rc = 0;
    }
    if (rc < 0) {
        res->dump.len = 0;
        bprintf(&res->dump, "ERROR: %s", r.err);
    }
    bprintf(&res->dump, "%s", "");           /* never NULL */
    snprintf(res->column, sizeof res->column, "%s", r.info.has_column ? r.info.column : "-");
    res->dtype = r.info.dtype == LA_DT_INT64 ? "int64"
               : r.info.dtype == LA_DT_FLOAT64 ? "float64" : "?";
    res->rows = r.info.shape[0];
    if (rc == 0 && (r.info.shape[0] != next || !r.info.shape_known))
        res->bad_chunk = 1;
    r.ops->close(&r);
    unsetenv("LABELAUDIT_CSV_SLOW");
    unsetenv("LABELAUDIT_CSV_BLOCK");
}

static void run(const char *input, size_t len, const struct la_read_opts *cfg, const char *format,
                struct how how, struct result *res)
{
    struct la_source src = { .data = input, .len = len, .tiny = how.tiny,
                             .max_read = how.max_read, .rng = 42 };
    run_source(&src, cfg, format, how, res);
}

static const struct how g_ways[] = {
    { 0, 0, 0, 0, NULL }, { 0, 1, 0, 0, NULL }, { 1, 0, 0, 0, NULL }, { 1, 1, 0, 0, NULL },
    { 0, 0, 0, 3, "2" }, { 0, 0, 0, 2, "5" }, { 0, 1, 0, 3, "16" }, { 0, 0, 0, 4, "64" },
};
static const char *const g_way_names[] = {
    "fast, whole", "fast, 1-7 byte reads", "libcsv, whole", "libcsv, 1-7 byte reads",
    "-j3, blocks of 2 bytes", "-j2, blocks of 5 bytes", "-j3, 1-7 byte reads, blocks of 16",
    "-j4, blocks of 64 bytes",
};

/* Options for one case. */
struct opts {
    const char *column;
    int header;
    char delimiter;
    const char *format;
    uint64_t skip_rows;
};

static struct la_read_opts config_of(struct opts o)
{
    struct la_read_opts cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.column = o.column;
    cfg.header = o.header;
    cfg.delimiter = o.delimiter;
    cfg.skip_rows = o.skip_rows;
    return cfg;
}

/* Input read four ways gives want (the dump or "ERROR: ...") and the column
 * (NULL: don't care; "-": no header). @return 1 when all four do. */
static int matches(const char *desc, const char *input, struct opts o, const char *want,
                   const char *column)
{
    struct la_read_opts cfg = config_of(o);
    int pass = 1;

    for (size_t w = 0; w < sizeof g_ways / sizeof g_ways[0]; w++) {
        struct result res;
        run(input, strlen(input), &cfg, o.format ? o.format : "csv", g_ways[w], &res);
        int good = strcmp(res.dump.p, want) == 0 && !res.bad_chunk
                   && (!column || strcmp(res.column, column) == 0);
        if (!good) {
            tap_diag("%s (%s):", desc, g_way_names[w]);
            tap_diag("   got: %s  column %s%s", res.dump.p, res.column,
                 res.bad_chunk ? "  (bad chunk)" : "");
            tap_diag("  want: %s  column %s", want, column ? column : "(any)");
        }
        pass &= good;
        free(res.dump.p);
    }
    return pass;
}

/* One TAP point for matches(). */
static void check(const char *desc, const char *input, struct opts o, const char *want,
                  const char *column)
{
    tap_ok(matches(desc, input, o, want, column), "%s", desc);
}

/* Like check(), for the final dtype. */
static void check_dtype(const char *desc, const char *input, const char *want)
{
    struct la_read_opts cfg = config_of((struct opts){ .header = LA_AUTO });
    int pass = 1;
    for (size_t w = 0; w < sizeof g_ways / sizeof g_ways[0]; w++) {
        struct result res;
        run(input, strlen(input), &cfg, "csv", g_ways[w], &res);
        if (strcmp(res.dtype, want) != 0) {
            tap_diag("%s (%s): dtype %s, want %s", desc, g_way_names[w], res.dtype, want);
            pass = 0;
        }
        free(res.dump.p);
    }
    tap_ok(pass, "%s", desc);
}

#define AUTO ((struct opts){ .header = LA_AUTO })

// ---- small cases

static void test_columns(void)
{
    check("header by name", "path,label\na.jpg,3\nb.jpg,5\n", AUTO, "I0[3 5]", "label");
    static const char *const names[] = { "label", "LABELS", "Target", "targets", "class", "y",
                                         "Y" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char in[128], desc[128];
        snprintf(in, sizeof in, "a,%s,b\n1,7,2\n3,8,4\n", names[i]);
        snprintf(desc, sizeof desc, "default column named '%s' (middle column)", names[i]);
        check(desc, in, AUTO, "I0[7 8]", names[i]);
    }
    check("default names: 'label' is preferred to 'y'", "y,label\n1,2\n", AUTO, "I0[2]",
          "label");
    check("default names: 'class' only as a whole name", "subclass,cls\n1,2\n", AUTO, "I0[2]",
          "cls");
    check("last column when no name matches", "path,cls\nx,4\ny,5\n", AUTO, "I0[4 5]", "cls");
    check("--column by number", "a,b,c\n1,2,3\n4,5,6\n", (struct opts){ "2", LA_AUTO, 0, 0, 0 },
          "I0[2 5]", "b");
    check("--column by name", "a,b,c\n1,2,3\n", (struct opts){ "c", LA_AUTO, 0, 0, 0 }, "I0[3]",
          "c");
    check("--column by name, case-insensitive", "a,Bee,c\n1,2,3\n",
          (struct opts){ "bee", LA_AUTO, 0, 0, 0 }, "I0[2]", "Bee");
    check("--column by name, exact match first", "Foo,foo\n1,2\n",
          (struct opts){ "foo", LA_AUTO, 0, 0, 0 }, "I0[2]", "foo");
    check("--column=1 on a headerless file", "1,2\n3,4\n", (struct opts){ "1", LA_AUTO, 0, 0, 0 },
          "I0[1 3]", "-");
}

static void test_header(void)
{
    check("no header: numbers in the first row", "1,2\n3,4\n", AUTO, "I0[2 4]", "-");
    check("no header: float first row", "x,0.5\ny,1\n", AUTO, "F0[0.5 1]", "-");
    check("--no-header keeps a text first row as data", "p,label\nx,1\n",
          (struct opts){ NULL, LA_NO, 0, 0, 0 }, "U0[label] I1[1]", "-");
    check("--header drops a numeric first row", "1,2\n3,4\n",
          (struct opts){ NULL, LA_YES, 0, 0, 0 }, "I0[4]", "2");
    check("header only: no values", "path,label\n", AUTO, "", "label");
    check("empty file", "", AUTO, "", "-");
    check("only blank lines", "\n\n  \r\n", AUTO, "", "-");
    check("UTF-8 byte order mark is skipped", "\xEF\xBB\xBFlabel\n1\n", AUTO, "I0[1]", "label");
}

/* The header guess compares the whole first row with the next rows, as
 * Python's csv.Sniffer.has_header does. */
static void test_header_guess(void)
{
    check("pd.Series(y).to_csv(index=False): the header '0' is pandas' column name",
          "0\n1\n2\n3\n", AUTO, "I0[1 2 3]", "0");
    check("pd.Series(y).to_csv(): ',0' over index and labels", ",0\n0,5\n1,3\n", AUTO,
          "I0[5 3]", "0");
    check("DataFrame(array).to_csv(index=False): '0,1,2'", "0,1,2\n7,8,9\n", AUTO, "I0[9]",
          "2");
    check("a first row '0' alone is a label", "0\n", AUTO, "I0[0]", "-");
    check("a first row '1' over numbers is a label", "1\n0\n2\n", AUTO, "I0[1 0 2]", "-");
    check("an empty first label cell does not make a header",
          "img0.jpg,\nimg1.jpg,3\nimg2.jpg,4\n", AUTO, "U0[] I1[3 4]", "-");
    /* (-c 2: two named columns of numbers are refused without it, issue 41) */
    check("text over numbers in every column is a header", "a,b\n1,2\n3,4\n",
          (struct opts){ "2", LA_AUTO, 0, 0, 0 }, "I0[2 4]", "b");
    check("a text cell of another length over paths is a header",
          "path,cls\nimg0.jpg,1\nimg1.jpg,2\n", AUTO, "I0[1 2]", "cls");
    check("rows of another width do not vote", "path,cls\nimg0.jpg,1\nimg1.jpg,2,9\n", AUTO,
          "ERROR: line 3: 3 fields, but the first row has 2 (an unquoted delimiter inside a "
          "field?)", NULL);
    check("a header after more rows than the guess reads",
          "path,n\nx,1\nx,2\nx,3\nx,4\nx,5\nx,6\nx,7\nx,8\nx,9\nx,10\nx,11\nx,12\nx,13\nx,14\n"
          "x,15\nx,16\nx,17\nx,18\nx,19\nx,20\nx,21\nx,22\n", AUTO,
          "I0[1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22]", "n");
    check("no rows to compare: a text label cell is a header", "path,cls\n", AUTO, "", "cls");
}

/* R's write.table/write.csv layout: the header lacks the row names' field,
 * which pandas reads as the index. */
static void test_r_layout(void)
{
    check("R's layout: the label column found by name among the shifted columns",
          "\"a\",\"label\"\n\"r1\",1,5\n\"r2\",2,6\n", AUTO, "I0[5 6]", "label");
    check("R's layout: the last column by default", "\"x\",\"cls\"\n\"1\",0.5,3\n\"2\",1,4\n",
          AUTO, "I0[3 4]", "cls");
    check("R's layout: --column by name", "a,b\nr1,1,5\nr2,2,6\n",
          (struct opts){ "a", LA_AUTO, 0, 0, 0 }, "I0[1 2]", "a");
    check("R's layout: --column by number counts the data fields", "a,b\nr1,1,5\nr2,2,6\n",
          (struct opts){ "2", LA_AUTO, 0, 0, 0 }, "I0[1 2]", "a");
    check("not R's layout when a data row has the header's width", "a,label\nr1,1,5\nr2,6\n",
          AUTO, "ERROR: line 2: 3 fields, but the first row has 2 (an unquoted delimiter "
          "inside a field?)", NULL);
    check("--skip-rows=1 skips sklearn wine_data.csv's line of counts",
          "3,2,class_0,class_1\na,target\n1,0\n2,1\n",
          (struct opts){ .header = LA_AUTO, .skip_rows = 1 }, "I0[0 1]", "target");
    check("--skip-rows counts lines, blank ones too, and numbers lines from the file's start",
          "meta\n\nlabel\n1\n1,2\n", (struct opts){ .header = LA_AUTO, .skip_rows = 2 },
          "ERROR: line 5: 2 fields, but the first row has 1 (an unquoted delimiter inside a "
          "field?)", NULL);
    check("--skip-rows past the end: no rows", "a\nb\n",
          (struct opts){ .header = LA_AUTO, .skip_rows = 9 }, "", "-");
    check("not R's layout with --no-header", "a,b\n1,2,3\n", (struct opts){ NULL, LA_NO, 0, 0, 0 },
          "ERROR: line 2: 3 fields, but the first row has 2 (an unquoted delimiter inside a "
          "field?)", NULL);
}

static void test_syntax(void)
{
    check("quoted fields: delimiters, newlines, doubled quotes",
          "path,label\n\"a,b\",1\n\"multi\nline\",2\n\"q\"\"x\",\"3\"\n\"c,a,t\",\"d,og\"\n",
          AUTO, "I0[1 2 3] U3[d,og]", "label");
    check("quoted header cells", "\"path\",\"my label\"\nx,1\n",
          (struct opts){ "my label", LA_AUTO, 0, 0, 0 }, "I0[1]", "my label");
    check("CRLF line ends", "a,label\r\n1,2\r\n3,4\r\n", AUTO, "I0[2 4]", "label");
    check("CRLF with quotes", "a,label\r\n\"x\r\ny\",2\r\n3,4\r\n", AUTO, "I0[2 4]", "label");
    check("lone CR ends a row (as in libcsv)", "a,label\r1,2\r3,4", AUTO, "I0[2 4]", "label");
    check("TSV: tab delimiter from the format", "p\tlabel\nx y\t3\nz,w\t4\n",
          (struct opts){ NULL, LA_AUTO, 0, "tsv", 0 }, "I0[3 4]", "label");
    check("TSV: empty cells between tabs", "a\tb\tlabel\n\t\t5\n1\t\t\n",
          (struct opts){ NULL, LA_AUTO, 0, "tsv", 0 }, "I0[5] U1[]", "label");
    check("custom delimiter ';'", "a;label\n1,5;2\n", (struct opts){ NULL, LA_AUTO, ';', 0, 0 },
          "I0[2]", "label");
    check("spaces around cells are trimmed", "a , label \n x , 7 \n\t y\t,\t 8\t\n", AUTO,
          "I0[7 8]", "label");
    check("quoted spaces are kept in the text", "label\n\" cat \"\n", AUTO, "U0[ cat ]",
          "label");
    check("last line without newline", "label\n1\n2", AUTO, "I0[1 2]", "label");
    check("last line without newline, quoted", "label\n1\n\"2\"", AUTO, "I0[1 2]", "label");
    check("last line ends in a lone CR", "label\n1\n2\r", AUTO, "I0[1 2]", "label");
    check("blank lines are not rows", "\n\nlabel\n\n1\n   \n\r\n\t\n2\n\n", AUTO, "I0[1 2]",
          "label");
    check("a row of delimiters is a row", "a,label\n,\n1,2\n", AUTO, "U0[] I1[2]", "label");
}

static void test_cells(void)
{
    check("empty, 'cat' and short rows are unparsable, with their row indices",
          "p,label\na,1\nb,\nc,cat\nd,4\ne\nf,5\n", AUTO,
          "I0[1] U1[] U2[cat] I3[4] U4[] I5[5]", "label");
    check("float cells switch the dtype", "label\n1\n2\n1.5\n3\nnan\n-inf\n1e3\n", AUTO,
          "I0[1 2] F2[1.5 3 nan -inf 1000]", "label");
    check("integer above int64 reads as a float", "label\n1\n99999999999999999999\n", AUTO,
          "I0[1] F1[1e+20]", "label");
    check("unparsable then float then unparsable", "label\nx\n0.5\n1\ny\n2\n", AUTO,
          "U0[x] F1[0.5 1] U3[y] F4[2]", "label");
    check_dtype("dtype stays int64 without a float cell", "label\n1\n-3\n+4\ncat\n", "int64");
    check_dtype("dtype is float64 after a float cell", "label\n1\n1.0\n", "float64");

    char longcell[600] = "label\n";
    size_t n = strlen(longcell);
    for (int i = 0; i < 150; i++) {
        memcpy(longcell + n, "\xC3\xA9", 2);   /* 'e' with acute accent: 2 bytes, 300 total */
        n += 2;
    }
    memcpy(longcell + n, "\n", 2);
    char want[300] = "U0[";
    for (int i = 0; i < 100; i++)
        strcat(want, "\xC3\xA9");
    strcat(want, "]");
    check("an unparsable cell is cut to 200 bytes on a UTF-8 boundary", longcell, AUTO, want,
          "label");

    /* one ASCII byte first: byte 200 is the middle of a character */
    memmove(longcell + 7, longcell + 6, strlen(longcell + 6) + 1);
    longcell[6] = 'x';
    char want_odd[300] = "U0[x";
    for (int i = 0; i < 99; i++)
        strcat(want_odd, "\xC3\xA9");
    strcat(want_odd, "]");
    check("a cell cut mid-character loses the whole character", longcell, AUTO, want_odd,
          "label");
}

/* A quote that does not open a field, or closes one before its end, is read
 * as Python's csv module and pandas read it (the expected cells below are
 * theirs): libcsv alone kept the field open to the next quote, swallowing
 * the rows between. */
static void test_stray_quotes(void)
{
    const struct opts first = { .column = "1", .header = LA_AUTO };
    check("stray quotes lose no row (the issue's example)",
          "text,label\n\"Great\" movie,1\nbad film,9\nhe said \"meh\",0\nok,1\n", AUTO,
          "I0[1 9 0 1]", "label");
    check("a closing quote that does not end the field is dropped",
          "text,label\n\"Great\" movie,1\n", first, "U0[Great movie]", "text");
    check("after it, quotes are literal and padding inside is kept",
          "text,label\n\"a\" b \"c\" ,2\n", first, "U0[a b \"c\"]", "text");
    check("a doubled quote after it stays doubled",
          "text,label\n\"a\"b\"\"c,2\n", first, "U0[ab\"\"c]", "text");
    check("a quote inside an unquoted field is literal",
          "text,label\nhe said \"meh,0\nok,1\n", first, "U0[he said \"meh] U1[ok]", "text");
    check("padding after a closing quote is dropped", "label\n\"1\"  \t\n\"2\"\n", AUTO,
          "I0[1 2]", "label");
    check("a label cell with text after its closing quote", "label\n\"1\"x\n2\n", AUTO,
          "U0[1x] I1[2]", "label");
    check("text after a closing quote at the end of the file", "label\n1\n\"2\" x", AUTO,
          "I0[1] U1[2 x]", "label");
    check("a stray quote in the header row", "\"my\" text,label\n\"a\"b,3\n", AUTO, "I0[3]",
          "label");
    check("a quote that closes a field then a CR line end", "label\r\n\"1\"x\r\n2\r\n", AUTO,
          "U0[1x] I1[2]", "label");
    check("a quote opening a field after padding still opens it",
          "text,label\n  \"a,b\" ,4\n", first, "U0[a,b]", "text");

    /* held-back padding across the 4 KiB pieces libcsv is fed */
    static char wide[3 * 4096];
    for (size_t k = 0; k < 2; k++) {
        size_t n = (size_t)snprintf(wide, sizeof wide, "text,label\n\"a\"");
        memset(wide + n, ' ', 5000);
        n += 5000;
        snprintf(wide + n, sizeof wide - n, k ? "z,1\n2,3\n" : ",1\n2,3\n");
        check(k ? "5000 spaces then text after a closing quote stay in the cell"
                : "5000 spaces after a closing quote are dropped",
              wide, AUTO, "I0[1 3]", "label");
    }
}

/* The reader's own integer shortcut must agree with la_parse_number. */
static void test_number_cells(void)
{
    static const char *const cells[] = {
        "0", "-0", "+0", "007", "-", "+", "--1", "+-1", "1-", "12345678901234567",
        "123456789012345678", "-12345678901234567", "+123456789012345678",
        "1234567890123456789", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "99999999999999999999", "1 2", "1_000", "0x10", "1e3", "1.",
        ".5", "nan", "-inf", "Infinity", "\v7", "7\f", "\xd9\xa1", "true",
    };
    int pass = 1;
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        char in[64], want[128];
        struct la_num v;
        snprintf(in, sizeof in, "label\n%s\n", cells[i]);
        switch (la_parse_number(cells[i], strlen(cells[i]), &v)) {
        case LA_CELL_INT:
            snprintf(want, sizeof want, "I0[%" PRId64 "]", v.v.i);
            break;
        case LA_CELL_FLOAT:
            snprintf(want, sizeof want, "F0[%.17g]", v.v.f);
            break;
        default:
            snprintf(want, sizeof want, "U0[%s]", cells[i]);
        }
        pass &= matches(cells[i], in, AUTO, want, "label");
    }
    tap_ok(pass, "cells read as la_parse_number reads them (%zu tricky cells)",
       sizeof cells / sizeof cells[0]);
}

static void test_errors(void)
{
    check("a row wider than the first is an error (pandas refuses it too)",
          "p,label\na,1\nb,c,2\n", AUTO,
          "ERROR: line 3: 3 fields, but the first row has 2 (an unquoted delimiter inside a "
          "field?)", NULL);
    check("a wider row after a quoted one is an error too",
          "label,p\n1,\"a,b\"\n2,b,c\n", AUTO,
          "ERROR: line 3: 3 fields, but the first row has 2 (an unquoted delimiter inside a "
          "field?)", NULL);
    check("unterminated quote: error with the row's line",
          "label\n1\n\"2\n3\n", AUTO, "ERROR: line 3: unterminated quoted field", NULL);
    check("unterminated quote after a multi-line cell counts lines",
          "a,b\n\"x\ny\",1\n\n2,\"oops\n", AUTO,
          "ERROR: line 5: unterminated quoted field", NULL);
    check("column name not found lists the columns", "a,b,c\n1,2,3\n",
          (struct opts){ "foo", LA_AUTO, 0, 0, 0 },
          "ERROR: no column named 'foo' (columns: a, b, c)", NULL);
    check("column number out of range", "a,b,c\n1,2,3\n", (struct opts){ "5", LA_AUTO, 0, 0, 0 },
          "ERROR: column 5 out of range: the header has 3 columns", NULL);
    check("column number out of range without a header", "1,2,3\n",
          (struct opts){ "5", LA_NO, 0, 0, 0 },
          "ERROR: column 5 out of range: the first row has 3 columns", NULL);
    check("--column by name with --no-header", "a,b\n1,2\n", (struct opts){ "b", LA_NO, 0, 0, 0 },
          "ERROR: --column=b names a header cell, but --no-header says there is none", NULL);
    check("--column=0", "a,b\n1,2\n", (struct opts){ "0", LA_AUTO, 0, 0, 0 },
          "ERROR: column 0 out of range: columns are numbered from 1", NULL);

    struct la_read_opts cfg = config_of(AUTO);
    struct la_source src = { .data = "label\n1\n2\n", .len = 10, .fail_at_end = 1 };
    struct result res;
    run_source(&src, &cfg, "csv", (struct how){ 0 }, &res);
    tap_ok(strcmp(res.dump.p, "ERROR: Input/output error") == 0, "a read error is an error (%s)",
       res.dump.p);
    free(res.dump.p);
}

// ---- large cases

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* A cell over 16 MiB, quoted or not, fails with the row's line, without
 * buffering the cell whole (the 100 MB one must not raise the peak RSS by
 * anything like 100 MB). */
static void test_long_field(void)
{
    static const struct {
        const char *head, *tail, *desc;
        size_t fill;
        int tiny;
    } cases[] = {
        { "label\n1\n\"", "\"\n2\n", "quoted 100 MB cell", 100000000, 0 },
        { "label\n1\n", "\n2\n", "unquoted 100 MB cell", 100000000, 0 },
        { "label\n1\n\"", "\"\n2\n", "quoted 17 MiB cell, 1-7 byte reads", 17u << 20, 1 },
        { "label\n1\n", "\n2\n", "unquoted 17 MiB cell, 1-7 byte reads", 17u << 20, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int slow = 0; slow <= 1; slow++) {
            struct la_read_opts cfg = config_of(AUTO);
            struct la_source src = { .data = cases[i].head, .len = strlen(cases[i].head),
                                     .fill_len = cases[i].fill, .fill_byte = 'A',
                                     .tail = cases[i].tail, .tiny = cases[i].tiny, .rng = 7 };
            struct result res;
            long before = max_rss_kib();
            run_source(&src, &cfg, "csv", (struct how){ .slow = slow }, &res);
            long grown = max_rss_kib() - before;
            int pass = strcmp(res.dump.p, "ERROR: line 3: field longer than 16 MiB") == 0;
#if !defined(UNDER_ASAN)
            pass &= grown < 60 * 1024;
#endif
            tap_ok(pass, "%s (%s): %s; peak RSS +%ld KiB", cases[i].desc,
               slow ? "libcsv" : "fast", res.dump.p, grown);
            free(res.dump.p);
        }
    }

    /* A text cell over 16 MiB, once the label column is known (after 21 rows),
     * fails as in the one-thread reference, whose libcsv buffers every cell:
     * the other paths give libcsv only the label cell's text. */
    static const char rows21[] = "text,label\na,1\nb,2\nc,3\nd,4\ne,5\nf,6\ng,7\nh,8\ni,9\n"
                                 "j,1\nk,2\nl,3\nm,4\nn,5\no,6\np,7\nq,8\nr,9\ns,1\nt,2\nu,3\n";
    char head[sizeof rows21 + 2];
    for (int quoted = 0; quoted <= 1; quoted++) {
        snprintf(head, sizeof head, "%s%s", rows21, quoted ? "\"" : "");
        for (int way = 0; way < 3; way++) {
            struct la_read_opts cfg = config_of(AUTO);
            struct la_source src = { .data = head, .len = strlen(head), .fill_len = 17u << 20,
                                     .fill_byte = 'A', .tail = quoted ? "\",7\nv,8\n" : ",7\nv,8\n",
                                     .rng = 7 };
            struct result res;
            run_source(&src, &cfg, "csv", (struct how){ .slow = way == 0, .threads = way + 1 },
                       &res);
            tap_ok(strcmp(res.dump.p, "ERROR: line 23: field longer than 16 MiB") == 0,
                   "%s 17 MiB text cell (%s): %s", quoted ? "quoted" : "unquoted",
                   way == 0 ? "libcsv alone" : way == 1 ? "-j2" : "-j3", res.dump.p);
            free(res.dump.p);
        }
    }

    /* 16 MiB exactly, in a quoted cell, is still allowed */
    struct la_read_opts cfg = config_of(AUTO);
    struct la_source src = { .data = "label\n\"", .len = 7, .fill_len = (16u << 20) - 8,
                             .fill_byte = ' ', .tail = "1\"\n2\n" };
    struct result res;
    run_source(&src, &cfg, "csv", (struct how){ 0 }, &res);
    tap_ok(strcmp(res.dump.p, "I0[1 2]") == 0, "a 16 MiB quoted cell is read (%.60s)", res.dump.p);
    free(res.dump.p);
}

/* A deterministic pseudo-random generator for the big files. */
static uint32_t next_rand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* 200k quote-free rows in the given style; bad marks odd rows at these indices. */
static char *make_file(size_t rows, char delim, int messy, int floats_from, size_t *len)
{
    struct buf b = { 0 };
    uint32_t st = 12345;
    bprintf(&b, "path%clabel%cweight\n", delim, delim);
    for (size_t i = 0; i < rows; i++) {
        uint32_t r = next_rand(&st);
        const char *eol = messy && r % 5 == 0 ? "\r\n" : "\n";
        const char *pad = messy && r % 7 == 0 ? " " : "";
        if (messy && r % 11 == 0)
            bprintf(&b, "%s", r % 2 ? "\n" : "  \t\n");                  /* blank lines */
        if (messy && r % 97 == 0) {
            bprintf(&b, "img/%zu.jpg%s", i, eol);                       /* too short */
            continue;
        }
        if (messy && r % 89 == 0) {
            bprintf(&b, "img/%zu.jpg%c%scat%s%c1%s", i, delim, pad, pad, delim, eol);
            continue;
        }
        if (messy && r % 83 == 0) {
            bprintf(&b, "img/%zu.jpg%c%c0.5%s", i, delim, delim, eol);   /* empty label */
            continue;
        }
        if (floats_from >= 0 && i >= (size_t)floats_from && r % 3 == 0)
            bprintf(&b, "img/%zu.jpg%c%s%u.25%s%c1%s", i, delim, pad, r % 1000, pad, delim, eol);
        else
            bprintf(&b, "img/%zu.jpg%c%s%d%s%c1%s", i, delim, pad, (int)(r % 2000) - 100, pad,
                    delim, eol);
    }
    *len = b.len;
    return b.p;
}

/* Fast and libcsv paths give the same chunks, read in odd sizes or whole. */
static void test_paths_agree(void)
{
    static const struct {
        const char *desc;
        char delim;
        int messy, floats_from;
    } cases[] = {
        { "200k clean int rows", ',', 0, -1 },
        { "200k messy rows (CRLF, blanks, spaces, bad and short rows)", ',', 1, -1 },
        { "200k messy rows switching to float at row 150000", ',', 1, 150000 },
        { "200k messy TSV rows", '\t', 1, 100000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *file = make_file(200000, cases[i].delim, cases[i].messy, cases[i].floats_from,
                               &len);
        struct la_read_opts cfg = config_of((struct opts){ .header = LA_AUTO,
                                                        .delimiter = cases[i].delim });
        struct result ref, res;
        run(file, len, &cfg, "csv", (struct how){ .slow = 1 }, &ref);
        int pass = strncmp(ref.dump.p, "I0[", 3) == 0 && !ref.bad_chunk
                   && strcmp(ref.column, "label") == 0;
        static const struct how ways[] = {
            { 0, 0, 0, 0, NULL }, { 0, 1, 0, 0, NULL }, { 1, 1, 0, 0, NULL },
            { 0, 0, 4093, 0, NULL }, { 0, 0, 65537, 0, NULL },
            { 0, 0, 0, 2, NULL }, { 0, 0, 4093, 3, "1000" },
        };
        for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
            run(file, len, &cfg, "csv", ways[w], &res);
            if (strcmp(res.dump.p, ref.dump.p) != 0 || res.bad_chunk || res.rows != ref.rows
                || strcmp(res.dtype, ref.dtype) != 0) {
                tap_diag("way %zu differs from libcsv whole-file (%zu vs %zu dump bytes)", w,
                     res.dump.len, ref.dump.len);
                pass = 0;
            }
            free(res.dump.p);
        }
        tap_ok(pass, "%s: fast and libcsv paths agree (%" PRIu64 " rows, %s)", cases[i].desc,
           ref.rows, ref.dtype);
        free(ref.dump.p);
        free(file);
    }
}

// ---- libcsv on every thread: blocks cut near every byte

/* Rows that make a block edge hard to find: quoted newlines at every offset,
 * quotes that read both ways, one field longer than many blocks, stray quotes
 *, doubled quotes and delimiters in quotes; with stops,
 * also unparsable cells, short rows and a float (rows that stop a block), and
 * with stops == 2 a wide row (an error). eol is "\n", "\r\n" or "\r". */
static char *make_hard(int kind, const char *eol, int bom, int stops)
{
    struct buf b = { 0 };
    bprintf(&b, "%sid,text,label%s", bom ? "\xEF\xBB\xBF" : "", eol);
    for (int i = 0; i < 90; i++) {
        int label = i % 10;
        bprintf(&b, "%d,", i);
        switch (kind) {
        case 0:                          /* a quoted newline after i % 23 bytes */
            bprintf(&b, "\"%.*s%sb\"", i % 23, "aaaaaaaaaaaaaaaaaaaaaaaaa", eol);
            break;
        case 1:                          /* '"\n' and '\n"': either way a valid CSV */
            bprintf(&b, "\"%s%d,%d%s\"", eol, i, label, eol);
            break;
        case 2:                          /* one field over many blocks, at row 40 */
            if (i == 40) {
                bprintf(&b, "\"");
                for (int k = 0; k < 300; k++)
                    bprintf(&b, "x,%s\"\"y", k % 7 ? "" : eol);
                bprintf(&b, "\"");
            } else {
                bprintf(&b, "t%d", i);
            }
            break;
        case 3:                          /* stray quotes, as pandas reads them */
            bprintf(&b, i % 3 == 0 ? "\"Great\" movie" : i % 3 == 1 ? "he said \"meh\""
                                   : "\"a,\"\"b\"\"%s c\"", eol);
            break;
        default:                         /* doubled quotes, delimiters, spaces */
            bprintf(&b, "  \"%d \"\",\"\" ,%s\"  ", i, i % 4 ? "" : eol);
            break;
        }
        if (stops && i % 13 == 5)
            bprintf(&b, ",%s%s", i % 2 ? "cat" : "2.5", eol);
        else if (stops && i % 17 == 3)
            bprintf(&b, "%s", eol);      /* a short row: no label cell */
        else if (stops == 2 && i == 77)
            bprintf(&b, ",1,2%s", eol);  /* a wide row: an error, as on one thread */
        else
            bprintf(&b, ",%d%s", label, eol);
    }
    return b.p;
}

/* Every block size from 2 to 70 bytes, on 2 and 3 threads, whole and tiny
 * reads, gives the chunks (or the error) of the one-thread libcsv parse. */
static void test_blocks(void)
{
    static const char *const kinds[] = { "quoted newline at every offset", "quotes read both ways",
                                         "a field over many blocks", "stray quotes",
                                         "doubled quotes and delimiters" };
    static const char *const eols[] = { "\n", "\r\n", "\r" };
    struct la_read_opts cfg = config_of(AUTO);

    for (int kind = 0; kind < 5; kind++)
        for (int e = 0; e < 3; e++)
            for (int stops = 0; stops <= 2; stops++) {
                char *file = make_hard(kind, eols[e], e == 1, stops);
                struct result ref, res;
                size_t wrong = 0, ways = 0;
                run(file, strlen(file), &cfg, "csv", (struct how){ .slow = 1 }, &ref);
                for (int block = 2; block <= 70; block++)
                    for (int j = 2; j <= 3; j++) {
                        char bs[16];
                        snprintf(bs, sizeof bs, "%d", block);
                        run(file, strlen(file), &cfg, "csv",
                            (struct how){ .tiny = j == 3 && block % 2, .threads = j, .block = bs },
                            &res);
                        if (strcmp(res.dump.p, ref.dump.p) != 0 || res.bad_chunk) {
                            if (!wrong)
                                tap_diag("blocks of %d, -j%d: %s\n  want %s", block, j,
                                         res.dump.p, ref.dump.p);
                            wrong++;
                        }
                        ways++;
                        free(res.dump.p);
                    }
                tap_ok(wrong == 0 && ref.rows >= (stops ? 0u : 90u),
                       "blocks: %s, %s%s: %zu of %zu ways differ from one thread (%s...)",
                       kinds[kind], e == 0 ? "LF" : e == 1 ? "BOM, CR LF" : "CR",
                       stops == 1 ? ", rows that stop a block" : stops ? ", a wide row" : "",
                       wrong, ways,
                       strncmp(ref.dump.p, "ERROR", 5) == 0 ? ref.dump.p : "rows");
                free(ref.dump.p);
                free(file);
            }
}

// ---- la_csv_rows: where rows start, for line_map.c, by the reader's own rule

static void count_row(uint64_t line, void *ctx)
{
    struct buf *lines = ctx;
    bprintf(lines, "%s%" PRIu64, lines->len ? " " : "", line);
}

/* The lines the rows of input start on, by la_csv_rows, fed in pieces of step bytes. */
static char *row_lines(const char *input, unsigned char delim, int quotes, uint64_t skip,
                       size_t step, size_t *rows)
{
    struct la_csv_rows w;
    struct buf lines = { 0 };
    size_t len = strlen(input);
    la_csv_rows_init(&w, delim, quotes, skip);
    for (size_t at = 0; at < len; at += step)
        la_csv_rows_feed(&w, input + at, len - at < step ? len - at : step, count_row, &lines);
    la_csv_rows_end(&w, count_row, &lines);
    bprintf(&lines, "%s", "");
    *rows = 0;
    for (const char *p = lines.p; *p; p++)
        *rows += p == lines.p || p[-1] == ' ';
    return lines.p;
}

/* la_csv_rows sees the rows the reader reads: the same count on the hard
 * files of test_blocks and on random bytes of quotes, delimiters, padding and
 * line ends; and the lines, on cases whose lines are known. */
static void test_row_rule(void)
{
    static const struct { const char *input; uint64_t skip; int quotes; const char *lines; } known[] = {
        { "text,label\n  \"abc\nx,1\n\"q\" tail,2\n\"Great\" movie,5\n\n   \na,9\rb,9\r\n", 0, 1,
          "1 2 5 8 8" },
        { "skip \"this\nlabel\n\"a\n\",3\n4", 1, 1, "2 3 5" },
        { "1\r1\r\n2\n \t\n\"4\n5\"\n", 0, 0, "1 1 2 4 5" },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        size_t rows;
        char *got = row_lines(known[i].input, ',', known[i].quotes, known[i].skip, 3, &rows);
        tap_ok(strcmp(got, known[i].lines) == 0, "la_csv_rows: case %zu starts rows on lines %s "
               "(want %s)", i, got, known[i].lines);
        free(got);
    }

    static const char *const eols[] = { "\n", "\r\n", "\r" };
    struct la_read_opts cfg = config_of(AUTO);
    size_t wrong = 0, cases = 0;
    for (int kind = 0; kind < 5; kind++)
        for (int e = 0; e < 3; e++)
            for (int stops = 0; stops <= 1; stops++, cases++) {
                char *file = make_hard(kind, eols[e], 0, stops);
                struct result ref;
                size_t rows;
                run(file, strlen(file), &cfg, "csv", (struct how){ .slow = 1 }, &ref);
                free(row_lines(file, ',', 1, 0, 7, &rows));
                if (rows != ref.rows + 1) {
                    tap_diag("hard file %d/%d/%d: %zu rows, the reader %" PRIu64 " and a header",
                             kind, e, stops, rows, ref.rows);
                    wrong++;
                }
                free(ref.dump.p);
                free(file);
            }
    tap_ok(wrong == 0, "la_csv_rows: the rows of test_blocks' %zu hard files", cases);

    /* random bytes after a first row wide enough for any of them */
    static const char alphabet[] = "a\",\n\r \t1";
    struct la_read_opts one = config_of((struct opts){ .column = "1", .header = LA_NO });
    uint32_t st = 2026;
    size_t compared = 0;
    wrong = 0;
    for (int n = 0; n < 3000; n++) {
        char input[128] = "x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x,x\n";
        size_t at = strlen(input), len = at + next_rand(&st) % 40;
        while (at < len)
            input[at++] = alphabet[next_rand(&st) % (sizeof alphabet - 1)];
        input[at] = '\0';
        struct result ref;
        size_t rows;
        run(input, at, &one, "csv", (struct how){ .slow = 1 }, &ref);
        if (strncmp(ref.dump.p, "ERROR", 5) != 0) {   /* an unterminated quote: no rows to map */
            free(row_lines(input, ',', 1, 0, 1 + (size_t)n % 5, &rows));
            compared++;
            if (rows != ref.rows && wrong++ == 0)
                tap_diag("%zu rows, the reader %" PRIu64 ": \"%s\"", rows, ref.rows, input);
        }
        free(ref.dump.p);
    }
    tap_ok(wrong == 0 && compared > 1000, "la_csv_rows: the reader's row count on %zu random "
           "inputs (%zu differ)", compared, wrong);
}

/* Indices stay exact across chunk boundaries: row i holds i % 1000, except a
 * few 'cat' rows placed at and around the 65536-value chunk edges. */
static void test_chunk_boundaries(void)
{
    static const uint64_t cats[] = { 65535, 65536, 131072, 131077, 196607 };
    const size_t rows = 200000;
    struct buf b = { 0 };
    size_t ci = 0;

    bprintf(&b, "label\n");
    for (size_t i = 0; i < rows; i++) {
        if (ci < sizeof cats / sizeof cats[0] && i == cats[ci]) {
            bprintf(&b, "cat\n");
            ci++;
        } else {
            bprintf(&b, "%zu\n", i % 1000);
        }
    }
    for (int slow = 0; slow <= 1; slow++) {
        struct la_read_opts cfg = config_of(AUTO);
        struct la_source src = { .data = b.p, .len = b.len, .tiny = 1, .rng = 3 };
        struct la_reader r;
        struct la_chunk c;
        uint64_t next = 0, nchunks = 0, wrong = 0;
        size_t seen_cats = 0;
        int rc;

        memset(&r, 0, sizeof r);
        r.ops = &la_reader_csv, r.src = &src, r.opts = &cfg, r.info.format = LA_FMT_CSV;
        if (slow)
            setenv("LABELAUDIT_CSV_SLOW", "1", 1);
        rc = r.ops->open(&r);
        while (rc == 0 && (rc = r.ops->next(&r, &c)) == 1) {
            nchunks++;
            if (c.first_index != next || c.count > 65536)
                wrong++;
            if (c.unparsable) {
                if (seen_cats >= sizeof cats / sizeof cats[0] || c.first_index != cats[seen_cats]
                    || strcmp(c.unparsable, "cat") != 0)
                    wrong++;
                seen_cats++;
            } else {
                for (size_t k = 0; k < c.count; k++)
                    if (((const int64_t *)c.values)[k] != (int64_t)((c.first_index + k) % 1000))
                        wrong++;
            }
            next = c.first_index + c.count;
            rc = 0;
        }
        unsetenv("LABELAUDIT_CSV_SLOW");
        tap_ok(rc == 0 && wrong == 0 && next == rows && seen_cats == 5 && r.info.shape[0] == rows,
           "exact indices across chunk boundaries (%s): %" PRIu64 " chunks, %" PRIu64
           " wrong, %" PRIu64 " rows", slow ? "libcsv" : "fast", nchunks, wrong, next);
        r.ops->close(&r);
    }
    free(b.p);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_columns();
    test_header();
    test_header_guess();
    test_r_layout();
    test_syntax();
    test_cells();
    test_stray_quotes();
    test_number_cells();
    test_errors();
    test_long_field();
    test_paths_agree();
    test_chunk_boundaries();
    test_blocks();
    test_row_rule();
    return tap_done();
}
