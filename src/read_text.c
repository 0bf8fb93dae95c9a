/* read_text.c - one label per line.
 *
 * Lines end in LF or CRLF; a final line without a newline still counts.
 * Blank lines are not rows (as in numpy.loadtxt and in the csv reader), so a
 * trailing blank line is harmless; a line of spaces is an unparsable cell. */
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
    uint64_t line;      /* 1-based number of the next line */
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
    r->info.format = "text";
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
    return 0;
}

/* The next line's cell, without its line end. @return 1, 0 at the end, -1 on error. */
static int next_line(struct la_reader *r, struct text_state *t, const char **s, size_t *len)
{
    for (;;) {
        char *start = t->buf + t->pos;
        char *nl = memchr(start, '\n', t->len - t->pos);
        if (nl || (t->eof && t->pos < t->len)) {
            size_t n = nl ? (size_t)(nl - start) : t->len - t->pos;
            t->pos += n + (nl != NULL);
            if (n && start[n - 1] == '\r')
                n--;
            *s = start;
            *len = n;
            t->line++;
            return 1;
        }
        if (t->eof)
            return 0;
        if (refill(r, t) != 0)
            return -1;
    }
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
        if (len > 0 && la_cells_push(&t->cells, s, len, out))
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

const struct la_reader_ops la_reader_text = { "text", text_open, text_next, text_close };
