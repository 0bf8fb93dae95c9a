/* csv_header.c - the CSV reader's first rows: kept whole until the header
 * and the label column are known, then the guess (Python's csv.Sniffer,
 * pandas' and R's layouts) and the choice (--column, the default names, the
 * last column), and the kept data rows handed out as any later row. */
#include "read_csv.h"

#include "cells.h"   /* la_utf8_cut */
#include "util.h"    /* la_grow, la_parse_number, la_strtou64 */

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* free */
#include <string.h>  /* memcpy, strcmp, strlen */
#include <strings.h> /* strcasecmp */

void la_csv_row0_add(struct la_csv *s, const char *p, size_t n)
{
    if (s->hdr.kept.len + n + 1 > FIRST_ROW_MAX) {
        FAIL(s, "line %llu: %s longer than 16 MiB", (unsigned long long)s->at.row_line,
             s->hdr.kept.n ? "row" : "first row");
        return;
    }
    if (la_grow(&s->hdr.kept.text, &s->hdr.kept.cap, s->hdr.kept.len + n + 1, 256) != 0 ||
        la_grow(&s->hdr.kept.off, &s->hdr.kept.offcap, (s->hdr.kept.ncells + 1) * sizeof *s->hdr.kept.off,
                16 * sizeof *s->hdr.kept.off) != 0) {
        FAIL(s, "out of memory");
        return;
    }
    if (n)
        memcpy(s->hdr.kept.text + s->hdr.kept.len, p, n);
    s->hdr.kept.text[s->hdr.kept.len + n] = '\0';
    s->hdr.kept.off[s->hdr.kept.ncells++] = s->hdr.kept.len;
    s->hdr.kept.len += n + 1;
}

/* Cell i of kept row k. */
static const char *kept_cell(const struct la_csv *s, size_t k, size_t i)
{
    return s->hdr.kept.text + s->hdr.kept.off[s->hdr.kept.first[k] + i];
}

static const char *row0_cell(const struct la_csv *s, size_t i)
{
    return kept_cell(s, 0, i);
}

int la_csv_is_column_number(const char *column, uint64_t *num)
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
    for (size_t i = 0; i < s->hdr.kept.cells[0]; i++) {
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
    for (size_t i = 0; i < s->hdr.kept.cells[0]; i++)
        if (strcmp(row0_cell(s, i), name) == 0)
            return (long)i;
    for (size_t i = 0; i < s->hdr.kept.cells[0]; i++)
        if (strcasecmp(row0_cell(s, i), name) == 0)
            return (long)i;
    return -1;
}

/* The default names (la_label_name_rank): the best-ranked cell, the first of equals. */
static long find_default(const struct la_csv *s)
{
    long found = -1;
    int best = -1;
    for (size_t i = 0; i < s->hdr.kept.cells[0]; i++) {
        const char *cell = row0_cell(s, i);
        int rank = la_label_name_rank(cell, strlen(cell));
        if (rank >= 0 && (best < 0 || rank < best))
            best = rank, found = (long)i;
    }
    return found;
}

/* R's write.table (and write.csv with row names) writes a header one field
 * shorter than the data rows: the first data column holds the row names,
 * which pandas reads as the index. @return 1 when every kept data row is one
 * field wider than the first row. */
static int is_r_layout(const struct la_csv *s)
{
    if (s->hdr.kept.n < 2)
        return 0;
    for (size_t k = 1; k < s->hdr.kept.n; k++)
        if (s->hdr.kept.cells[k] != s->hdr.kept.cells[0] + 1)
            return 0;
    return 1;
}

/* The header pandas writes for unnamed columns (pd.Series(y).to_csv(), a
 * DataFrame built from an array): "0,1,...,k-1", after an empty cell when the
 * index is written too. */
static int is_pandas_default_header(const struct la_csv *s)
{
    size_t n = s->hdr.kept.cells[0], i = 0;
    if (s->hdr.kept.n < 2)
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
    for (size_t k = 0; k < s->hdr.kept.n; k++)
        for (size_t i = 0; i < s->hdr.kept.cells[k]; i++)
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
    for (size_t i = 0; i < s->hdr.kept.cells[0] && used < size; i++) {
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
    for (size_t i = 0; i < s->hdr.kept.cells[0]; i++) {
        long shape = 0;
        int seen = 0, alike = 1;
        for (size_t k = 1; k < s->hdr.kept.n && alike; k++) {
            if (s->hdr.kept.cells[k] != s->hdr.kept.cells[0])
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
        int text = !is_number(row0_cell(s, s->hdr.col));
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
    for (size_t k = first; k < s->hdr.kept.n; k++) {
        if (i >= s->hdr.kept.cells[k])
            continue;
        const char *cell = kept_cell(s, k, i);
        if (is_number(cell))
            numbers++;
        else if (*cell)
            texts++;
    }
    return numbers && !texts ? 1 : texts && !numbers ? -1 : 0;
}

/* Whether the first row names its columns: a cell of text (pandas' 0,1,...
 * and a row of numbers taken for a header name none). */
static int row0_has_names(const struct la_csv *s)
{
    for (size_t i = 0; i < s->hdr.kept.cells[0]; i++)
        if (*row0_cell(s, i) && !is_number(row0_cell(s, i)))
            return 1;
    return 0;
}

/* The last column is taken for want of a label column by name. When it holds
 * text while another holds numbers (filename,class_idx,split), auditing the
 * text would report every row and miss the labels; when it holds numbers and
 * so does another named one (image,diag,fold), which is the label is a
 * guess, and a wrong one passes with exit 0 while the stray class in the
 * other goes unseen. Refuse both, naming the candidates. A file without
 * names (no header, pandas' 0,1,... header, its unnamed index column) keeps
 * the last column, as np.savetxt and to_csv lay labels out. @return 0, or -1 with the
 * error set. */
static int check_fallback_column(struct la_csv *s, int header)
{
    size_t first = header ? 1 : 0, shift = s->hdr.width - s->hdr.kept.cells[0];
    int last_kind = column_kind(s, first, s->hdr.col);
    if (last_kind == 0 || (last_kind > 0 && (!header || !row0_has_names(s))))
        return 0;     /* no names to go by: np.savetxt's and pandas' layouts keep the last */
    char list[320];
    size_t used = 0, found = 0;
    list[0] = '\0';
    for (size_t i = 0; i < s->hdr.width && used + 64 < sizeof list; i++) {
        const char *name = header && i >= shift ? row0_cell(s, i - shift) : "";
        if ((last_kind < 0 && i == s->hdr.col) || column_kind(s, first, i) <= 0 ||
            (last_kind > 0 && !*name))
            continue;                    /* (an unnamed column: pandas' index) */
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%.*s%s-c %zu%s",
                                 found++ ? ", " : "", 24, name, *name ? " (" : "", i + 1,
                                 *name ? ")" : "");
    }
    if (last_kind > 0 && found < 2)
        return 0;                        /* the only column of numbers: the labels */
    if (!found)
        return 0;
    char last[48];                       /* (the error is made one line when it is set) */
    snprintf(last, sizeof last, "%s", header && s->hdr.col >= shift ? row0_cell(s, s->hdr.col - shift) : "");
    if (last_kind > 0)
        return FAIL(s, "no column is named like labels, and %zu columns hold numbers: "
                    "choose the label column with -c: %s", found, list);
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
    size_t n0 = s->hdr.kept.cells[0], width = n0 + (size_t)shift;
    uint64_t num;
    long i;

    s->hdr.width = width;
    s->r->info.header_guessed = header == LA_AUTO;
    if (want && la_csv_is_column_number(want, &num)) {
        if (num == 0)
            return FAIL(s, "column 0 out of range: columns are numbered from 1");
        if (num > width)
            return FAIL(s, "column %llu out of range: the %s has %zu column%s",
                        (unsigned long long)num, shift ? "data rows" : header == LA_NO
                        ? "first row" : "header", width, width == 1 ? "" : "s");
        s->hdr.col = (size_t)(num - 1);      /* counted in the data rows, as cut(1) does */
    } else if (want) {
        if ((i = find_name(s, want)) < 0) {
            char cols[320];
            list_columns(s, cols, sizeof cols);
            return FAIL(s, "no column named '%.100s' (columns: %s)", want, cols);
        }
        s->hdr.col = (size_t)i + (size_t)shift;
        return 1;                        /* a name is only found in a header */
    } else if (header != LA_NO && (i = find_default(s)) >= 0) {
        s->hdr.col = (size_t)i + (size_t)shift;
        return 1;
    } else {
        s->hdr.col = width - 1;
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

/* Kept data row k: its label cell, or an unparsable empty one when it is
 * too short; the columns checked beside it. */
static void data_row(struct la_csv *s, size_t k)
{
    size_t cells = s->hdr.kept.cells[k];
    unsigned long long line = (unsigned long long)s->hdr.kept.line[k];
    if (s->cols) {
        la_csv_cols_row_begin(s, line);
        for (size_t f = 0; f < cells && !s->failed; f++)
            if (f != s->hdr.col)
                la_csv_cols_cell(s, f, kept_cell(s, k, f), strlen(kept_cell(s, k, f)));
    }
    if (cells <= s->hdr.col)
        la_csv_push_bad(s, "", 0);              /* too short to have the label cell */
    else {
        const char *label = kept_cell(s, k, s->hdr.col);
        la_csv_push_cell(s, label, strlen(label));
        la_csv_check_width(s, cells, line);
    }
    if (s->cols)
        la_csv_cols_row_end(s);
}

static void release_kept(struct la_csv *s)
{
    free(s->hdr.kept.text);
    free(s->hdr.kept.off);
    s->hdr.kept.text = NULL, s->hdr.kept.off = NULL;
    s->hdr.kept.len = s->hdr.kept.cap = s->hdr.kept.ncells = s->hdr.kept.offcap = 0;
    s->hdr.kept.n = 0;
}

/* The kept rows suffice (or are all there is): settle the header and the
 * column, then hand out the kept data rows as any later row. */
void la_csv_resolve(struct la_csv *s)
{
    int header = choose_column(s);
    if (header < 0)
        return;
    s->hdr.resolved = 1;
    s->r->info.column_index = s->hdr.col;
    s->lib.rq.elide = !s->lib.reference;         /* see requote_text */
    s->r->info.header_present = header;
    if (header) {
        size_t shift = s->hdr.width - s->hdr.kept.cells[0];      /* 1 in R's layout */
        const char *cell = s->hdr.col >= shift ? row0_cell(s, s->hdr.col - shift) : "";
        struct la_array_info *info = &s->r->info;
        size_t n = la_utf8_cut(cell, strlen(cell), sizeof info->column - 1);
        memcpy(info->column, cell, n);
        info->column[n] = '\0';
        info->has_column = 1;
    }
    if (header && la_csv_cols_open(s, row0_cell, s->hdr.kept.cells[0],
                                   s->hdr.width - s->hdr.kept.cells[0]) != 0)
        return;
    for (size_t k = header ? 1 : 0; k < s->hdr.kept.n && !s->failed; k++)
        data_row(s, k);
    release_kept(s);
}

/* A row kept for the header guess has ended. */
void la_csv_keep_row(struct la_csv *s, size_t cells)
{
    s->hdr.kept.first[s->hdr.kept.n] = s->hdr.kept.ncells - cells;
    s->hdr.kept.cells[s->hdr.kept.n] = cells;
    s->hdr.kept.line[s->hdr.kept.n] = s->at.row_line;
    s->hdr.kept.n++;
    if (s->hdr.kept.n == SNIFF_ROWS + 1 || s->hdr.kept.len > SNIFF_BYTES)
        la_csv_resolve(s);
}
