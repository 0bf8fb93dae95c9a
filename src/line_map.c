/* line_map.c - see line_map.h. */
#include "line_map.h"

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, calloc, qsort */
#include <string.h>   /* memset, strcmp */
#include <sys/stat.h> /* stat */

#include "input.h"
#include "reader.h"   /* la_csv_rows: the readers' own rule for where rows start */

#define READ_BYTES ((size_t)1 << 16)

/* The rows asked for, and where the walk through them is. */
struct walk {
    const uint64_t *rows;     /* the data rows asked for, ascending */
    uint64_t *lines;
    size_t n, next;           /* rows[next] is the next one to find */
    uint64_t seen;            /* rows seen, the header included */
    int header;               /* the first row is a header, not data */
};

/* A row ended: if it is a data row asked for, note the line it started on. */
static void row_done(uint64_t line, void *ctx)
{
    struct walk *w = ctx;
    uint64_t seen = w->seen++;
    if (w->header && seen == 0)
        return;
    uint64_t index = seen - (w->header ? 1 : 0);
    while (w->next < w->n && w->rows[w->next] == index)
        w->lines[w->next++] = line;
}

/* Read the source through the readers' row rule, up to the last row asked
 * for (the text report asks for the first few bad rows of what may be a large
 * file). *whole: whether it was read to its end. @return 0, or -1 on a read error. */
static int walk_source(struct walk *w, struct la_source *src, struct la_csv_rows *rows,
                       int *whole)
{
    char buf[READ_BYTES];
    ssize_t got = 0;
    while (w->next < w->n && (got = la_source_read(src, buf, sizeof buf)) > 0)
        la_csv_rows_feed(rows, buf, (size_t)got, row_done, w);
    *whole = w->next < w->n;
    if (*whole)
        la_csv_rows_end(rows, row_done, w);
    return got < 0 ? -1 : 0;
}

static int is_regular(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* JSON Lines: the reader read the file (read_ok), so each line holding more
 * than JSON's whitespace held one record, and the others none (blank lines).
 * *whole: whether it was read to its end. @return 0, or -1 on a read error. */
static int walk_records(struct walk *w, struct la_source *src, int *whole)
{
    char buf[READ_BYTES];
    ssize_t got = 0;
    uint64_t line = 1;
    int record = 0;                    /* this line holds a record */
    while (w->next < w->n && (got = la_source_read(src, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < got && w->next < w->n; i++) {
            char c = buf[i];
            if (c == '\n') {
                if (record)
                    row_done(line, w);
                line++;
                record = 0;
            } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
                record = 1;
            }
        }
    *whole = w->next < w->n;
    if (*whole && record)              /* a last line without its newline */
        row_done(line, w);
    return got < 0 ? -1 : 0;
}

uint64_t la_line_row(const struct la_file_report *r, const struct la_bad *b)
{
    return r->info.line_records || r->info.row_samples ? b->sample : b->index;
}

void la_line_record(const struct la_bad *b, uint64_t line, char *buf, size_t len)
{
    if (b->index == b->sample)
        snprintf(buf, len, "record %llu (line %llu)", (unsigned long long)b->sample,
                 (unsigned long long)line);
    else
        snprintf(buf, len, "index %llu (record %llu, line %llu)", (unsigned long long)b->index,
                 (unsigned long long)b->sample, (unsigned long long)line);
}

static int map_records(const struct la_file_report *r, const uint64_t *rows, size_t n,
                       uint64_t *lines)
{
    char err[LA_ERR_LEN];
    struct la_source *src;
    if ((n && rows[n - 1] == LA_NO_SAMPLE) || la_source_open(r->path, &src, err, sizeof err) != 0)
        return -1;
    struct walk w = { rows, lines, n, 0, 0, 0 };
    int whole = 0;
    int rc = walk_records(&w, src, &whole);
    la_source_close(src);
    /* the file changed since it was audited: no lines */
    if (rc != 0 || w.next != n || (whole && w.seen != r->samples)) {
        memset(lines, 0, n * sizeof *lines);
        return -1;
    }
    return 0;
}

int la_line_map(const struct la_file_report *r, const struct la_config *cfg,
                const uint64_t *rows, size_t n, uint64_t *lines)
{
    memset(lines, 0, n * sizeof *lines);
    enum la_format f = r->info.format;
    if (r->read_ok && r->info.line_records && is_regular(r->path))
        return map_records(r, rows, n, lines);
    if (!r->read_ok || !la_format_has(f, LA_FMTF_TEXT) || !is_regular(r->path))
        return -1;
    char err[LA_ERR_LEN];
    struct la_source *src;
    if (la_source_open(r->path, &src, err, sizeof err) != 0)
        return -1;
    int text = !la_format_has(f, LA_FMTF_TABLE);
    unsigned char delim = (unsigned char)(cfg->read.delimiter ? cfg->read.delimiter
                                                              : la_format_delimiter(f));
    struct walk w = { rows, lines, n, 0, 0, !text && r->info.header_present };
    struct la_csv_rows walk_rows;
    la_csv_rows_init(&walk_rows, delim, !text, text ? 0 : cfg->read.skip_rows);
    int whole = 0;
    int rc = la_source_text_mode(src, err, sizeof err) == 0
           ? walk_source(&w, src, &walk_rows, &whole) : -1;
    la_source_close(src);
    /* the file changed since it was audited (rows missing, or more of them
     * where it was read to the end): no lines */
    uint64_t rows_read = r->info.row_samples ? r->samples : r->stats.count;
    if (rc != 0 || w.next != n || (whole && w.seen - (w.header ? 1 : 0) != rows_read)) {
        memset(lines, 0, n * sizeof *lines);
        return -1;
    }
    return 0;
}

struct row_at {
    uint64_t row;
    size_t at;
};

static int by_row(const void *a, const void *b)
{
    const struct row_at *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

int la_line_map_any(const struct la_file_report *r, const struct la_config *cfg,
                    const uint64_t *rows, size_t n, uint64_t *lines)
{
    struct row_at *order = malloc((n ? n : 1) * sizeof *order);
    uint64_t *sorted = calloc(n ? n : 1, sizeof *sorted);
    uint64_t *found = malloc((n ? n : 1) * sizeof *found);
    int rc = -1;
    memset(lines, 0, n * sizeof *lines);
    if (order && sorted && found) {
        for (size_t i = 0; i < n; i++)
            order[i] = (struct row_at){ rows[i], i };
        if (n)
            qsort(order, n, sizeof *order, by_row);
        for (size_t i = 0; i < n; i++)
            sorted[i] = order[i].row;
        rc = la_line_map(r, cfg, sorted, n, found);
        for (size_t i = 0; rc == 0 && i < n; i++)
            lines[order[i].at] = found[i];
    }
    free(order);
    free(sorted);
    free(found);
    return rc;
}
