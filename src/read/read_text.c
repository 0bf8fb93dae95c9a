/* read_text.c - one label per line.
 *
 * Lines end in LF, CR LF or a lone CR (classic Mac OS, some exporters), as in
 * the csv reader; a final line without a newline still counts. Blank lines,
 * and lines of only spaces and tabs, are not rows (as in numpy.loadtxt and in
 * the csv reader), so a trailing blank line is harmless. A byte order mark is
 * handled by the source (la_source_text_mode): UTF-8's skipped, UTF-16 decoded. */
#include "cells.h"
#include "reader.h"

#include <stdlib.h> /* malloc, free */
#include <string.h> /* memchr, memmove */

#define BLOCK_LEN (1u << 20)
#define MAX_LINE (1u << 20)

struct text_state {
    struct la_cells cells;
    char *buf;          /* BLOCK_LEN + MAX_LINE bytes: a block plus a carried partial line */
    size_t len, pos;    /* bytes in buf, parse position */
    int eof;
    uint64_t line;      /* 1-based number of the next line, counting LFs */
    /* where the next LF and CR lie in buf (len: none), known since the last
     * refill: each byte is searched once, even in a file of CR-only lines */
    size_t lf_at, cr_at;
    int ends_known;
};

static int text_open(struct la_reader *r)
{
    struct text_state *t = calloc(1, sizeof *t);
    if (!t || !(t->buf = malloc(BLOCK_LEN + MAX_LINE))) {
        free(t);
        return la_reader_set_error(r, "out of memory");
    }
    la_cells_init(&t->cells);
    t->line = 1;
    r->state = t;
    if (la_source_text_mode(r->src, r->err, sizeof r->err) != 0)
        return -1;                    /* close() frees t */
    r->info.dtype = LA_DT_INT64;
    r->info.ndim = 1;
    return 0;
}

/* Keep the unparsed tail, then read another block behind it. */
static int refill(struct la_reader *r, struct text_state *t)
{
    memmove(t->buf, t->buf + t->pos, t->len - t->pos);
    t->len -= t->pos;
    t->pos = 0;
    if (t->len >= MAX_LINE)
        return la_reader_set_error(r, "line %llu: line longer than %u bytes",
                                   (unsigned long long)t->line, MAX_LINE);
    ssize_t got = la_source_read(r->src, t->buf + t->len, BLOCK_LEN);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    if (got == 0)
        t->eof = 1;
    t->len += (size_t)got;
    t->ends_known = 0;
    return 0;
}

/* The offset in buf of the next c at or after pos, else len. */
static size_t next_byte(const struct text_state *t, size_t at, char c)
{
    if (t->ends_known && at >= t->pos)
        return at;
    const char *p = memchr(t->buf + t->pos, c, t->len - t->pos);
    return p ? (size_t)(p - t->buf) : t->len;
}

/* The first line end at or after pos: an LF or a CR, or NULL. */
static const char *line_end(struct text_state *t)
{
    t->lf_at = next_byte(t, t->lf_at, '\n');
    t->cr_at = next_byte(t, t->cr_at, '\r');
    t->ends_known = 1;
    size_t at = t->lf_at < t->cr_at ? t->lf_at : t->cr_at;
    return at < t->len ? t->buf + at : NULL;
}

/* The next line's cell, without its line end. @return 1, 0 at the end, -1 on error. */
static int next_line(struct la_reader *r, struct text_state *t, const char **s, size_t *len)
{
    for (;;) {
        char *start = t->buf + t->pos;
        size_t left = t->len - t->pos;
        const char *end = line_end(t);
        /* a CR last in the buffer may be the first half of CR LF: read on first */
        int cr_undecided = end && *end == '\r' && end + 1 == start + left && !t->eof;
        if ((end && !cr_undecided) || (t->eof && left > 0)) {
            size_t n = end ? (size_t)(end - start) : left;
            size_t eol = !end ? 0 : *end == '\r' && n + 1 < left && end[1] == '\n' ? 2 : 1;
            t->pos += n + eol;
            *s = start;
            *len = n;
            t->line += end && (*end == '\n' || eol == 2);   /* LFs, as grep -n and csv count */
            return 1;
        }
        if (t->eof)
            return 0;
        if (refill(r, t) != 0)
            return -1;
    }
}

/* Only spaces and tabs (or nothing): not a row. */
static int blank(const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    return len == 0;
}

static int text_next(struct la_reader *r, struct la_chunk *out)
{
    struct text_state *t = r->state;
    if (la_cells_take_held(&t->cells, out))
        return 1;
    const char *s;
    size_t len;
    int rc;
    while ((rc = next_line(r, t, &s, &len)) == 1)
        if (!blank(s, len) && la_cells_push(&t->cells, s, len, out))
            goto emit;
    if (rc < 0)
        return -1;
    if (!la_cells_flush(&t->cells, out))
        return 0;
emit:
    if (t->cells.saw_float)
        r->info.dtype = LA_DT_FLOAT64;
    return 1;
}

static void text_close(struct la_reader *r)
{
    struct text_state *t = r->state;
    if (t)
        free(t->buf);
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_text = { text_open, text_next, text_close };
