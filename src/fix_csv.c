/* fix_csv.c - --fix's writer for CSV, TSV and text (fix_rules.h).
 *
 * The original is streamed once and every byte goes out as it came, except
 * the number in each data row's label cell that a rule changes, and the rows
 * --fix-drop leaves out (with their line end). Rows, fields and quotes are
 * found by the reader's own rules (reader.h's la_csv_quote_step: Python's
 * quoting, LF, CR LF or a lone CR, a line of padding is no row), the header
 * and the label column are the ones the reader chose (the report's info), so
 * the copy's rows are the rows the audit counted. A label cell whose quoting
 * is not plain ("3", not "3""x") is kept as it is. */
#include "fix_rules.h"

#include <errno.h>  /* errno */
#include <stdio.h>  /* fopen, fread */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memmove, strerror */

#include "reader.h" /* la_csv_quote_step */
#include "util.h"   /* la_parse_number, la_grow */

#define BLOCK ((size_t)1 << 20)
#define ROW_MAX ((size_t)64 << 20)   /* a longer row: refused, not buffered */

/* Where the walk of the current row is; offsets from the row's first byte. */
struct row {
    int state;          /* the quote state (0: between fields) */
    int content;        /* more than padding so far */
    uint64_t field;     /* the index of the field being read */
    size_t cell, cell_end;   /* the label cell's bytes, once met (cell_end: SIZE_MAX until it ends) */
    int has_cell;
};

struct csv_fix {
    struct la_fix_job *j;
    int text;                 /* one label per line: no fields, no quotes */
    unsigned char delim;
    uint64_t col;
    int header;               /* the next row with content is the header */
    uint64_t sample;          /* data rows so far */
    int skip_lf;              /* a dropped row ended in CR: an LF after it goes too */
};

static int is_pad(const struct csv_fix *c, unsigned char b)
{
    return (b == ' ' || b == '\t') && (c->text || b != c->delim);
}

/* The number of the label cell p[0..n): its span [*from, *to) in p, and its
 * value, or NULL when it is not a number. *odd: quoting the writer leaves be. */
static const struct la_num *cell_number(const struct csv_fix *c, const char *p, size_t n,
                                        size_t *from, size_t *to, struct la_num *v, int *odd,
                                        int *is_float)
{
    size_t a = 0, b = n;
    *odd = 0;
    while (a < b && is_pad(c, (unsigned char)p[a]))
        a++;
    while (b > a && is_pad(c, (unsigned char)p[b - 1]))
        b--;
    if (!c->text && a < b && p[a] == '"') {
        if (b - a < 2 || p[b - 1] != '"' || memchr(p + a + 1, '"', b - a - 2)) {
            *odd = 1;
            return NULL;
        }
        a++, b--;
        while (a < b && (p[a] == ' ' || p[a] == '\t'))
            a++;
        while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
            b--;
    }
    *from = a, *to = b;
    *is_float = 0;
    if (b - a >= 1 && b - a <= 18) {      /* most labels: a short plain integer */
        int64_t x = 0;
        size_t k = a + (p[a] == '-');
        for (; k < b && p[k] >= '0' && p[k] <= '9'; k++)
            x = x * 10 + (p[k] - '0');
        if (k == b && b > a + (p[a] == '-')) {
            v->kind = LA_NUM_I64;
            v->v.i = p[a] == '-' ? -x : x;
            return v;
        }
    }
    enum la_cell kind = la_parse_number(p + a, b - a, v);
    *is_float = kind == LA_CELL_FLOAT;
    return kind == LA_CELL_BAD ? NULL : v;
}

/* y in decimal into text (32 bytes), ".0" after it for a float cell: what
 * snprintf's "%lld" writes, at a tenth of its cost. @return the length. */
static size_t format_int(int64_t y, int is_float, char *text)
{
    char digits[24];
    size_t n = 0, len = 0;
    uint64_t u = y < 0 ? (uint64_t)0 - (uint64_t)y : (uint64_t)y;
    do
        digits[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (y < 0)
        text[len++] = '-';
    while (n)
        text[len++] = digits[--n];
    if (is_float)
        text[len++] = '.', text[len++] = '0';
    return len;
}

/* A data row p[0..n) (its line end included), whose label cell the walk found. */
static int data_row(struct csv_fix *c, const char *p, size_t n, const struct row *w)
{
    struct la_fix_job *j = c->j;
    uint64_t sample = c->sample++;
    size_t from = 0, to = 0;
    struct la_num v;
    int odd = 0, is_float = 0;
    const struct la_num *num = NULL;
    if (w->has_cell)
        num = cell_number(c, p + w->cell, w->cell_end - w->cell, &from, &to, &v, &odd, &is_float);
    int64_t y = 0;
    enum la_fix_action act = odd ? LA_FIX_KEEP : la_fix_value(j->plan, num, &y);
    if (act == LA_FIX_DROP) {
        c->skip_lf = n && p[n - 1] == '\r';
        return la_fix_job_drop(j, sample);
    }
    int64_t x = 0;             /* the value as read: an integer, or a float's whole number */
    if (act == LA_FIX_SET && !(num->kind == LA_NUM_F64 ? la_f64_label(num->v.f, &x)
                                                      : (x = num->v.i, 1)))
        act = LA_FIX_KEEP;
    if (act == LA_FIX_KEEP || y == x) {
        la_new_file_put(j->out, p, n);
        return 0;
    }
    char text[32];
    size_t len = format_int(y, is_float, text);
    la_new_file_put(j->out, p, w->cell + from);
    la_new_file_put(j->out, text, len);
    la_new_file_put(j->out, p + w->cell + to, n - w->cell - to);
    j->changed++;
    return 0;
}

/* A whole row p[0..n), its line end included (none at the end of the file). */
static int end_row(struct csv_fix *c, const char *p, size_t n, struct row *w)
{
    int rc = 0;
    if (c->skip_lf && n == 1 && p[0] == '\n') {
        c->skip_lf = 0;             /* the LF of a dropped row's CR LF */
    } else if (!w->content) {
        c->skip_lf = 0;
        la_new_file_put(c->j->out, p, n);       /* a blank line is no row */
    } else if (c->header) {
        c->header = 0;
        c->skip_lf = 0;
        la_new_file_put(c->j->out, p, n);
    } else {
        c->skip_lf = 0;
        rc = data_row(c, p, n, w);
    }
    *w = (struct row){ .has_cell = c->col == 0, .cell = 0, .cell_end = SIZE_MAX };
    return rc;
}

/* The row p[0..n) that ends in its only LF (or CR LF: crlf) and holds no
 * quote and no other CR: its fields found with memchr, as the byte walk would
 * find them. A CR LF is two line ends to the walk, the row's CR and a blank
 * line's LF, and is handed out so. */
static int plain_row(struct csv_fix *c, const char *p, size_t n, int crlf, struct row *w)
{
    if (crlf) {
        int rc = plain_row(c, p, n - 1, 0, w);
        return rc != 0 ? rc : end_row(c, p + n - 1, 1, w);
    }
    size_t last = n - 1;                  /* the line end */
    for (size_t q = 0; q < last && !w->content; q++)
        w->content = !is_pad(c, (unsigned char)p[q]);
    if (c->text) {
        w->has_cell = 1, w->cell = 0, w->cell_end = last;
        return end_row(c, p, n, w);
    }
    /* rows are short: a loop over the bytes costs less than memchr's calls */
    size_t q = 0;
    uint64_t f = 0;
    for (; q < last && f < c->col; q++)
        f += (unsigned char)p[q] == c->delim;
    if (f == c->col) {
        w->has_cell = 1;
        w->cell = q;
        while (q < last && (unsigned char)p[q] != c->delim)
            q++;
        w->cell_end = q;
    }
    return end_row(c, p, n, w);
}

/* Walk row bytes buf[*at..len), the current row starting at *row_start; each
 * row that ends is handed out and *row_start moves past it. A row that starts
 * here and holds no quote and no CR before its LF takes plain_row's memchr
 * path; any other goes byte by byte by the reader's quote rules. At eof the
 * last row, without its LF, is walked too. @return 0, or -1. */
static int walk(struct csv_fix *c, const char *buf, size_t len, size_t *at, struct row *w,
                size_t *row_start, int eof)
{
    size_t i = *at;
    /* the next quote and CR from i, each found once per stretch of input
     * rather than once per row (len: none) */
    size_t quote_at = 0, cr_at = 0;
    int known = 0;
    while (i < len) {
        if (i == *row_start) {            /* a fresh row: the fast path, when it may */
            const char *nl = memchr(buf + i, '\n', len - i);
            size_t n = nl ? (size_t)(nl - (buf + i)) + 1 : 0;
            if (!nl && !eof)
                break;                    /* the row goes on past the buffer */
            if (!known || quote_at < i) {
                const char *qp = c->text ? NULL : memchr(buf + i, '"', len - i);
                quote_at = qp ? (size_t)(qp - buf) : len;
            }
            if (!known || cr_at < i) {
                const char *rp = memchr(buf + i, '\r', len - i);
                cr_at = rp ? (size_t)(rp - buf) : len;
            }
            known = 1;
            size_t end = i + n - 1;       /* the LF */
            if (nl && quote_at > end && (cr_at > end || cr_at + 1 == end)) {
                if (plain_row(c, buf + i, n, cr_at + 1 == end, w) != 0)
                    return -1;
                i += n;
                *row_start = i;
                continue;
            }
        }
        unsigned char b = (unsigned char)buf[i];
        int newline = b == '\n' || b == '\r';
        size_t off = i - *row_start;
        i++;
        if (!c->text)
            w->state = la_csv_quote_step(c->delim, w->state, b);
        if (!w->content && !newline && !is_pad(c, b))
            w->content = 1;
        if (w->state != 0)
            continue;
        if (!c->text && b == c->delim) {
            if (w->field == c->col)
                w->cell_end = off;
            if (++w->field == c->col) {
                w->cell = off + 1;
                w->has_cell = 1;
            }
        } else if (newline) {
            if (w->field == c->col && w->cell_end == SIZE_MAX)
                w->cell_end = off;
            if (end_row(c, buf + *row_start, off + 1, w) != 0)
                return -1;
            *row_start = i;
        }
    }
    *at = i;
    return 0;
}

/* Copy the byte order mark and the --skip-rows lines as they are. @return the
 * bytes of buf[0..len) they take, or len when they go on past it. */
static size_t preamble(struct csv_fix *c, const char *buf, size_t len, int first,
                       uint64_t *skip)
{
    size_t p = first && len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (*skip > 0 && p < len) {
        const char *nl = memchr(buf + p, '\n', len - p);
        if (!nl)
            p = len;
        else {
            p = (size_t)(nl - buf) + 1;
            (*skip)--;
        }
    }
    la_new_file_put(c->j->out, buf, p);
    return p;
}

int la_fix_write_csv(struct la_fix_job *j)
{
    const struct la_file_report *r = j->r;
    struct csv_fix c = { .j = j, .text = r->info.format == LA_FMT_TEXT };
    c.delim = j->read->delimiter ? (unsigned char)j->read->delimiter
              : r->info.format == LA_FMT_TSV ? '\t' : ',';
    c.col = c.text ? 0 : r->info.column_index;
    c.header = !c.text && r->info.header_present;
    uint64_t skip = c.text ? 0 : j->read->skip_rows;
    FILE *in = fopen(j->in, "rb");
    size_t cap = 2 * BLOCK, len = 0, at = 0, row_start = 0;
    char *buf = in ? malloc(cap) : NULL;
    if (!buf) {
        snprintf(j->err, sizeof j->err, "%s", in ? "out of memory" : strerror(errno));
        if (in)
            fclose(in);
        return -1;
    }
    struct row w = { .has_cell = c.col == 0, .cell_end = SIZE_MAX };
    int first = 1, rc = 0;
    for (;;) {
        if (cap - len < BLOCK && la_grow(&buf, &cap, len + BLOCK, 2 * BLOCK) != 0) {
            snprintf(j->err, sizeof j->err, "out of memory");
            rc = -1;
            break;
        }
        size_t got = fread(buf + len, 1, BLOCK, in);
        if (got == 0) {
            if (ferror(in)) {
                snprintf(j->err, sizeof j->err, "read error: %s", strerror(errno));
                rc = -1;
            } else if (walk(&c, buf, len, &at, &w, &row_start, 1) != 0) {
                rc = -1;              /* the last row, without its LF */
            } else {
                memmove(buf, buf + row_start, len - row_start);
                len -= row_start;
            }
            break;
        }
        size_t from = len;
        len += got;
        if (first || skip) {
            size_t p = preamble(&c, buf + from, len - from, first, &skip);
            first = 0;
            memmove(buf + from, buf + from + p, len - from - p);
            len -= p;
            at = row_start = from;
        }
        if (walk(&c, buf, len, &at, &w, &row_start, 0) != 0) {
            rc = -1;
            break;
        }
        memmove(buf, buf + row_start, len - row_start);   /* the row that goes on */
        len -= row_start;
        at -= row_start;
        row_start = 0;
        if (len > ROW_MAX) {
            snprintf(j->err, sizeof j->err, "a row longer than %zu MiB", ROW_MAX >> 20);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && len > 0) {
        if (w.field == c.col && w.cell_end == SIZE_MAX)
            w.cell_end = len;
        rc = end_row(&c, buf, len, &w);
    }    /* the last row, without a line end */
    free(buf);
    fclose(in);
    return rc;
}
