/* csv_requote.c - libcsv behind the requote filter: the bytes libcsv is given
 * are rewritten so that it reads quotes as Python's csv module (and pandas)
 * does, and once the label column is known other cells reach it as short
 * stand-ins. libcsv's callbacks hand cells to the header guess or the
 * pending values. The filter's state machine is also the row rule that
 * line_map.c and the parallel parse find row starts with. */
#include "read_csv.h"

#include <csv.h>     /* csv_parse, csv_fini: libcsv */
#ifdef __SSE2__
#include <emmintrin.h> /* quote_or_lf: 16 bytes a compare */
#endif
#include <string.h>  /* memchr, memcpy, memmove, memset */

/* libcsv's cell callback. */
static void on_field(void *data, size_t n, void *ctx)
{
    struct la_csv *s = ctx;
    const char *p = data ? data : "";    /* libcsv has no buffer before its first byte */

    if (s->failed)
        return;
    if (s->at.field == 0)
        s->at.row_line = s->at.line;
    if (s->at.field == 0 && s->hdr.resolved && s->cols)
        la_csv_cols_row_begin(s, s->at.row_line);
    s->at.line += count_lf(p, n);           /* quoted newlines; the row's own are in on_row */
    if (!s->hdr.resolved)
        la_csv_row0_add(s, p, n);
    else if (s->at.field == s->hdr.col)
        la_csv_push_cell(s, p, n);
    else if (s->cols)
        la_csv_cols_cell(s, s->at.field, p, n);
    s->at.field++;
}

/* libcsv's row callback. With CSV_REPALL_NL it also reports blank lines (no
 * cells), which keeps the LF count exact; a CR alone is not counted. */
static void on_row(int c, void *ctx)
{
    struct la_csv *s = ctx;

    if (c == '\n')
        s->at.line++;
    if (s->failed || s->at.field == 0)
        return;
    la_csv_end_row(s, s->at.field);
    s->at.field = 0;
}

// ---- libcsv behind the requote filter

/* Hand the gathered bytes to libcsv, except the last keep, which move to the
 * front. @return 0, or -1 with the error set. */
int la_csv_requote_flush(struct la_csv *s, size_t keep)
{
    struct requote *q = &s->lib.rq;
    size_t n = q->n - keep;
    size_t used = n ? csv_parse(&s->lib.parser, q->out, n, on_field, on_row, s) : 0;
    int short_parse = used < n;
    memmove(q->out, q->out + n, keep);
    q->n = keep;
    if (s->failed)
        return -1;
    if (short_parse) {
        int e = csv_error(&s->lib.parser);
        return FAIL(s, "line %llu: %s", current_row_line(s),
                    e == CSV_ENOMEM ? "out of memory" : csv_strerror(e));
    }
    /* checked per flush, so a 100 MB cell fails having buffered 16 MiB */
    if (csv_get_buffer_size(&s->lib.parser) > FIELD_MAX)
        return FAIL(s, "line %llu: field longer than 16 MiB", current_row_line(s));
    return 0;
}

int la_csv_requote_put(struct la_csv *s, char c)
{
    struct requote *q = &s->lib.rq;
    q->out[q->n++] = c;
    if (q->n < OUT_CAP)
        return 0;
    q->pads = 0;                         /* a run of padding this long stays in the cell */
    return la_csv_requote_flush(s, 0);
}

/* The requote filter's next state after byte c (requote_byte's rules). A row
 * ends at a newline that leaves the filter in RQ_START; la_csv_blocks_parse finds row
 * boundaries with this alone. */
enum rq_state la_csv_rq_next(unsigned char delim, enum rq_state st, unsigned char c)
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

int la_csv_quote_step(unsigned char delim, int state, unsigned char c)
{
    _Static_assert(RQ_START == 0, "0 is between fields");
    return (int)la_csv_rq_next(delim, (enum rq_state)state, c);
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
    struct requote *q = &s->lib.rq;
    if (ends) {
        int was_open = q->open;
        q->open = 0;
        return was_open && la_csv_requote_put(s, '"') < 0 ? -1 : la_csv_requote_put(s, c);
    }
    if (!q->open && from == RQ_START && q->state == RQ_START)
        return 0;                        /* padding before the cell */
    if (!q->open) {
        q->open = 1;
        if (la_csv_requote_put(s, '"') < 0)
            return -1;
    }
    return c == '\n' ? la_csv_requote_put(s, '\n') : 0;   /* a newline inside quotes */
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
    struct requote *q = &s->lib.rq;
    enum rq_state from = q->state;
    int el = q->el, ends = 0;

    q->state = la_csv_rq_next(s->delim, from, (unsigned char)c);
    if (q->state == RQ_START && ((unsigned char)c == s->delim || c == '\n' || c == '\r')) {
        q->field = (unsigned char)c == s->delim ? q->field + 1 : 0;
        q->elided = 0;
        q->el = q->elide && q->field != s->hdr.col;
        ends = 1;
    }
    if (el)
        return requote_elided(s, from, c, ends);
    if (from == RQ_QUOTED && c == '"')
        return 0;                        /* written once the next byte says what it is */
    if (from == RQ_QUOTE) {
        if (q->state != RQ_TAIL)         /* a doubled quote, or the field's end */
            return la_csv_requote_put(s, '"') < 0 ? -1 : la_csv_requote_put(s, c);
        from = RQ_TAIL;                  /* a quote that does not end the field: dropped */
    }
    if (from == RQ_TAIL) {
        if (q->state == RQ_START) {
            q->n -= q->pads;             /* trailing padding is not part of a cell */
            q->pads = 0;
            return la_csv_requote_put(s, '"') < 0 ? -1 : la_csv_requote_put(s, c);
        }
        if (is_pad(s, (unsigned char)c)) {
            q->pads++;
            return la_csv_requote_put(s, c);
        }
        q->pads = 0;                     /* the padding is inside the cell */
        if (c == '"' && la_csv_requote_put(s, '"') < 0)
            return -1;
    }
    return la_csv_requote_put(s, c);
}

/* Bytes that need no rewriting, gathered as they are. */
static int requote_copy(struct la_csv *s, const char *p, size_t n)
{
    struct requote *q = &s->lib.rq;
    while (n > 0) {
        size_t room = OUT_CAP - q->n, k = n < room ? n : room;
        memcpy(q->out + q->n, p, k);
        q->n += k, p += k, n -= k;
        if (q->n == OUT_CAP) {
            q->pads = 0;
            if (la_csv_requote_flush(s, 0) < 0)
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
    struct requote *q = &s->lib.rq;
    if (!q->el)
        return requote_copy(s, p, n);
    if ((q->elided += n) > FIELD_MAX)
        return FAIL(s, "line %llu: field longer than 16 MiB", current_row_line(s));
    for (uint64_t lf = count_lf(p, n); lf > 0; lf--)
        if (la_csv_requote_put(s, '\n') < 0)
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

/* la_csv_requote_span's lane for the usual row, once the label column is known
 * (elide): every cell plain, or quoted with only doubled quotes inside and
 * closed right at its end. Its output is then simple: each other cell's
 * stand-in (requote_elided) and the label cell and the delimiters as they
 * are, so it is written here without requote_byte's per-byte steps. Anything
 * else (a stray quote, a lone CR, padding after a quote, a row that runs past
 * end or past the room in out) writes nothing and @return NULL: requote_byte
 * reads that row. @return the byte after the row's LF. */
static const char *requote_row(struct la_csv *s, const char *p, const char *end)
{
    struct requote *q = &s->lib.rq;
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
        size_t len = field == s->hdr.col ? (size_t)(p - cell) : text == p ? 0 : 2 + lf;
        if (OUT_CAP - q->n < len + sep)
            break;
        char *out = q->out + q->n;
        if (field == s->hdr.col) {
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
            q->el = s->hdr.col != 0;
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
int la_csv_requote_span(struct la_csv *s, const char **pp, const char *end)
{
    const char *p = *pp;
    int ended = 0, row_lane = 1;
    struct requote *q = &s->lib.rq;

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

int la_csv_parser_init(struct la_csv *s)
{
    if (csv_init(&s->lib.parser, CSV_REPALL_NL) != 0)
        return -1;
    s->lib.parser_live = 1;
    csv_set_delim(&s->lib.parser, s->delim);
    csv_set_blk_size(&s->lib.parser, 65536);   /* a long cell grows in 64 KiB steps, not 128 B */
    return 0;
}

/* The end of input for libcsv. Strict only now: it makes csv_fini report a
 * quote that never closed. */
int la_csv_libcsv_end(struct la_csv *s)
{
    csv_set_opts(&s->lib.parser, (unsigned char)(csv_get_opts(&s->lib.parser) | CSV_STRICT
                                              | CSV_STRICT_FINI));
    enum rq_state open = s->lib.rq.state;
    /* the last cell is closed for libcsv, unless a quote left it open */
    int close = s->lib.rq.el ? s->lib.rq.open && open != RQ_QUOTED
                         : open == RQ_QUOTE || open == RQ_TAIL;
    s->lib.rq.n -= s->lib.rq.pads;
    s->lib.rq.pads = 0;
    if (close && (la_csv_requote_put(s, '"') < 0 || la_csv_requote_flush(s, 0) < 0))
        return -1;
    unsigned long long line = current_row_line(s);
    if (csv_fini(&s->lib.parser, on_field, on_row, s) != 0)
        FAIL(s, "line %llu: unterminated quoted field", line);
    return 0;
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
         * fields (la_csv_blocks_parse cuts rows by this alone); text has no quotes */
        if (w->quotes)
            w->state = (int)la_csv_rq_next(w->delim, (enum rq_state)w->state, c);
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
