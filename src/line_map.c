/* line_map.c - see line_map.h. */
#include "line_map.h"

#include <csv.h>      /* csv_parse: libcsv, as the csv reader uses it */
#include <string.h>   /* memchr, strcmp */
#include <sys/stat.h> /* stat */

#include "input.h"

#define READ_BYTES ((size_t)1 << 16)

/* Where the walk through the file is. */
struct walk {
    const uint64_t *rows;     /* the data rows asked for, ascending */
    uint64_t *lines;
    size_t n, next;           /* rows[next] is the next one to find */
    uint64_t line;            /* the line being read, 1-based */
    uint64_t row_start;       /* the line where the current row started */
    uint64_t seen;            /* rows seen, the header included */
    int header;               /* the first row is a header, not data */
    uint64_t skip;            /* --skip-rows: csv lines before the first row */
};

/* A row ended: if it is a data row asked for, note where it started. */
static void row_done(struct walk *w)
{
    uint64_t seen = w->seen++;
    if (w->header && seen == 0)
        return;
    uint64_t index = seen - (w->header ? 1 : 0);
    while (w->next < w->n && w->rows[w->next] == index)
        w->lines[w->next++] = w->row_start;
    w->row_start = w->line;   /* a row after a lone CR starts on this same line */
}

static void on_row(int c, void *ctx)
{
    (void)c;
    row_done(ctx);
}

/* Spaces and tabs, except the delimiter itself: the csv reader's padding. */
static int blank(const char *p, size_t len, unsigned char delim)
{
    for (size_t i = 0; i < len; i++)
        if (!((p[i] == ' ' || p[i] == '\t' || p[i] == '\r') && (unsigned char)p[i] != delim))
            return 0;
    return 1;
}

/* One line (its LF included, when it has one). A blank line outside a quoted
 * field is not a row, for the csv reader and the text reader alike. */
static int feed_line(struct walk *w, struct csv_parser *p, const char *line, size_t len,
                     int text, unsigned char delim)
{
    size_t body = len - (len && line[len - 1] == '\n');
    if (text) {             /* one row a line */
        if (!blank(line, body, 0)) {
            w->row_start = w->line;
            row_done(w);
        }
    } else if (w->line <= w->skip) {
        /* dropped before the first row, as the csv reader drops them */
    } else if (p->pstate != 0 || !blank(line, body, delim)) {
        if (p->pstate == 0)  /* ROW_NOT_BEGUN: a row starts on this line */
            w->row_start = w->line;
        if (csv_parse(p, line, len, NULL, on_row, w) != len)
            return -1;
    }
    w->line += len > body;
    return 0;
}

/* Read the whole source line by line. @return 0, or -1 on a read or parse error. */
static int walk_source(struct walk *w, struct la_source *src, int text, unsigned char delim)
{
    struct csv_parser p;
    if (csv_init(&p, 0) != 0)
        return -1;
    csv_set_delim(&p, delim);
    static char buf[2 * READ_BYTES];
    size_t have = 0;
    int rc = 0;
    for (;;) {
        ssize_t got = la_source_read(src, buf + have, sizeof buf - have);
        if (got < 0) {
            rc = -1;
            break;
        }
        have += (size_t)got;
        size_t pos = 0;
        for (char *lf; rc == 0 && (lf = memchr(buf + pos, '\n', have - pos));) {
            size_t len = (size_t)(lf - (buf + pos)) + 1;
            rc = feed_line(w, &p, buf + pos, len, text, delim);
            pos += len;
        }
        /* no LF in a full buffer, or the end: hand over what is there */
        if (rc == 0 && (got == 0 || (pos == 0 && have == sizeof buf))) {
            if (text && got != 0) {   /* a text line this long is refused by the reader */
                rc = -1;
                break;
            }
            rc = feed_line(w, &p, buf, have, text, delim);
            pos = have;
        }
        memmove(buf, buf + pos, have - pos);
        have -= pos;
        if (rc != 0 || got == 0)
            break;
    }
    if (rc == 0 && !text && csv_fini(&p, NULL, on_row, w) != 0)
        rc = -1;
    csv_free(&p);
    return rc;
}

static int is_regular(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int la_line_map(const struct la_file_report *r, const struct la_config *cfg,
                const uint64_t *rows, size_t n, uint64_t *lines)
{
    memset(lines, 0, n * sizeof *lines);
    enum la_format f = r->info.format;
    if (!r->read_ok || !la_format_has(f, LA_FMTF_TEXT) || !is_regular(r->path))
        return -1;
    char err[LA_ERR_LEN];
    struct la_source *src;
    if (la_source_open(r->path, &src, err, sizeof err) != 0)
        return -1;
    int text = !la_format_has(f, LA_FMTF_TABLE);
    unsigned char delim = cfg->delimiter ? (unsigned char)cfg->delimiter
                        : f == LA_FMT_TSV ? '\t' : ',';
    struct walk w = { rows, lines, n, 0, 1, 1, 0, !text && r->info.header_present,
                      text ? 0 : cfg->skip_rows };
    int rc = la_source_text_mode(src, err, sizeof err) == 0 ? walk_source(&w, src, text, delim) : -1;
    la_source_close(src);
    /* the file changed since it was audited, or libcsv saw other rows: no lines */
    if (rc != 0 || w.seen - (w.header ? 1 : 0) != r->stats.count || w.next != n) {
        memset(lines, 0, n * sizeof *lines);
        return -1;
    }
    return 0;
}
