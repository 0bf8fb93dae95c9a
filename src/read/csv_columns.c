/* csv_columns.c - every column the model indexes in a CSV/TSV file with a
 * header (columns.h): the plan's columns that the header names are parsed
 * cell by cell (list_cell.c: one integer, or a list as pandas writes one) and
 * fed to the check row by row, beside the label column, which stays the
 * scan's. Only the rows being parsed are held: one cell's integers at a time.
 *
 * Such a file is parsed by libcsv on the reader's own thread, from the row
 * after the header guess on: the check sees every row in file order, and no
 * state is shared between threads (the fast path and the blocks on threads
 * look at the label cell alone, and would each need a check of their own,
 * merged in order). A label cell that holds a list is one sample of its
 * items, as a Parquet list row is: the items go to the scan, and the sample
 * map (sample_map.h) tells it each item's row. */
#include "read_csv.h"

#include "columns.h"
#include "label_notes.h"
#include "list_cell.h"
#include "sample_map.h"

#include <stdlib.h>  /* calloc, realloc, free */
#include <string.h>  /* strlen */

struct la_csv_cols {
    struct la_column_check *check;   /* NULL once finished */
    size_t field[LA_COLUMNS_MAX];    /* the check's column i is field field[i] */
    const char *name[LA_COLUMNS_MAX];   /* the plan's (immutable) names, for messages */
    size_t n;
    int label;                       /* the label field's column in the check, or -1 */
    int typed[LA_COLUMNS_MAX];       /* its dtype given (at its first non-null cell) */
    int fed[LA_COLUMNS_MAX];         /* fed in the current row */
    struct la_int_list cell;         /* the current cell's integers */
    struct la_sample_map *map;       /* each row's first label item */
    uint64_t row;                    /* the current data row, from 0 */
    uint64_t line;                   /* its first line */
};

/* The check's column of field f, or -1. */
static int column_of(const struct la_csv_cols *c, size_t f)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->field[i] == f)
            return (int)i;
    return -1;
}

/* The plan's columns that the header names, in *out; none (NULL) when only
 * the label column is among them (the scan says all there is, and the file
 * keeps its fast lanes). @return 0, or -1 out of memory. */
static int cols_new(struct la_csv *s, const char *(*cell)(const struct la_csv *, size_t),
                    size_t n, size_t shift, struct la_csv_cols **out)
{
    const struct la_column_plan *plan = la_read_opts_or_default(s->r->opts)->columns;
    int rules[LA_COLUMNS_MAX], others = 0;
    struct la_csv_cols *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c)
        return -1;
    c->label = -1;
    for (size_t i = 0; i < n && c->n < LA_COLUMNS_MAX; i++) {
        int rule = la_column_plan_find(plan, cell(s, i));
        if (rule < 0)
            continue;
        if (i + shift == s->hdr.col)
            c->label = (int)c->n;
        else
            others++;
        rules[c->n] = rule;
        c->field[c->n] = i + shift;
        c->name[c->n] = plan->cols[rule].name;
        c->n++;
    }
    if (!others) {
        free(c);
        return 0;
    }
    c->check = la_column_check_new(plan, rules, c->n, c->label >= 0 ? rules[c->label] : -1);
    c->map = la_sample_map_new();
    if (!c->check || !c->map) {
        la_column_check_free(c->check);
        la_sample_map_free(c->map);
        free(c);
        return -1;
    }
    *out = c;
    return 0;
}

int la_csv_cols_open(struct la_csv *s, const char *(*cell)(const struct la_csv *, size_t),
                     size_t n, size_t shift)
{
    const struct la_read_opts *o = la_read_opts_or_default(s->r->opts);
    struct la_notes *notes = s->r->notes;
    struct la_csv_cols *c;
    if (!o->columns || !o->columns->n || !notes || notes->sample_of)
        return 0;
    if (cols_new(s, cell, n, shift, &c) != 0)
        return FAIL(s, "out of memory");
    if (!c)
        return 0;
    s->cols = c;
    /* libcsv on this thread from here on, every cell given to it whole */
    s->lib.slow = 1;
    s->lib.rq.elide = 0;
    s->blk.no_blocks = 1;
    s->fast.no_helper = 1;
    notes->sample_of = la_sample_map_sample_of;
    notes->sample_passed = la_sample_map_passed;
    notes->sample_ctx = c->map;
    notes->samples_ordered = 1;
    notes->has_samples = 1;
    return 0;
}

/* Room for one more pending value: a list label cell adds its items at
 * once, more than PENDING may hold; the buffers grow to the longest row
 * (libcsv holds a cell of at most FIELD_MAX bytes, so of FIELD_MAX / 2 items). */
static int pend_room(struct la_csv *s)
{
    if (s->pend.tail < s->blk.cap)
        return 0;
    size_t cap = 2 * s->blk.cap;
    void *vals = realloc(s->pend.vals, cap * sizeof(int64_t));
    if (vals)
        s->pend.vals = vals;
    unsigned char *kinds = vals ? realloc(s->pend.kinds, cap) : NULL;
    if (!kinds)
        return FAIL(s, "out of memory");
    s->pend.kinds = kinds;
    s->blk.cap = cap;
    return 0;
}

/* One item of a list label cell, pending for the scan as an integer cell's. */
static void push_item(struct la_csv *s, int64_t v)
{
    size_t t = s->pend.tail;
    if (pend_room(s) != 0)
        return;
    if (s->pend.saw_float) {
        ((double *)s->pend.vals)[t] = (double)v;
        s->pend.kinds[t] = K_FLOAT;
    } else {
        ((int64_t *)s->pend.vals)[t] = v;
        s->pend.kinds[t] = K_INT;
    }
    s->pend.tail = t + 1;
}

void la_csv_cols_row_begin(struct la_csv *s, uint64_t line)
{
    struct la_csv_cols *c = s->cols;
    /* the row's first label item: the next pending value's flat index */
    if (la_sample_map_start(c->map, s->pend.index + (s->pend.tail - s->pend.head)) != 0) {
        FAIL(s, "out of memory");
        return;
    }
    c->line = line;
    la_column_check_line(c->check, line);
    for (size_t i = 0; i < c->n; i++)
        c->fed[i] = 0;
}

/* Cell p[0..n) of the check's column i, parsed into c->cell.
 * @return its form; LA_FORM_BAD has failed the read, naming line and column. */
static enum la_cell_form parse_cell(struct la_csv *s, size_t i, const char *p, size_t n)
{
    struct la_csv_cols *c = s->cols;
    char why[200];
    enum la_cell_form f = la_list_cell_parse(p, n, &c->cell, why, sizeof why);
    if (f == LA_FORM_BAD) {
        FAIL(s, "line %llu, column '%s' (row %llu): %s", (unsigned long long)c->line,
             c->name[i], (unsigned long long)c->row, why);
        return f;
    }
    if (f != LA_FORM_NULL && !c->typed[i]) {
        la_column_check_dtype(c->check, i, "int64", f == LA_FORM_LIST);
        c->typed[i] = 1;
    }
    la_column_check_values(c->check, i, c->row, f == LA_FORM_NULL ? NULL : c->cell.v,
                           f == LA_FORM_NULL ? 0 : c->cell.n);
    c->fed[i] = 1;
    return f;
}

void la_csv_cols_cell(struct la_csv *s, size_t field, const char *p, size_t n)
{
    int i = column_of(s->cols, field);
    if (i >= 0 && !s->failed)
        parse_cell(s, (size_t)i, p, n);
}

int la_csv_cols_label(struct la_csv *s, const char *p, size_t n)
{
    struct la_csv_cols *c = s->cols;
    const char *a = p, *b = p + n;
    trim(s, &a, &b);
    int list = a < b && *a == '[';
    if (c->label < 0) {
        if (!list)
            return 0;
        /* a list in a label column the plan does not name: its items all the same */
        char why[200];
        if (la_list_cell_parse(p, n, &c->cell, why, sizeof why) == LA_FORM_BAD) {
            FAIL(s, "line %llu, the label column (row %llu): %s", (unsigned long long)c->line,
                 (unsigned long long)c->row, why);
            return 1;
        }
    } else if (!list) {
        /* a scalar: the scan parses it (floats, words) and the check counts 1 */
        static const int64_t one = 0;
        la_column_check_values(c->check, (size_t)c->label, c->row, a < b ? &one : NULL,
                               a < b ? 1 : 0);
        c->fed[c->label] = 1;
        return 0;
    } else if (parse_cell(s, (size_t)c->label, p, n) == LA_FORM_BAD) {
        return 1;
    }
    for (size_t k = 0; k < c->cell.n && !s->failed; k++)
        push_item(s, c->cell.v[k]);
    return 1;
}

void la_csv_cols_row_end(struct la_csv *s)
{
    struct la_csv_cols *c = s->cols;
    if (s->failed)
        return;
    for (size_t i = 0; i < c->n; i++)   /* a row too short to have the cell: null */
        if (!c->fed[i])
            la_column_check_values(c->check, i, c->row, NULL, 0);
    la_column_check_row(c->check, c->row);
    c->row++;
}

void la_csv_cols_publish(struct la_csv *s)
{
    if (s->cols)
        la_sample_map_publish(s->cols->map);
}

void la_csv_cols_finish(struct la_csv *s)
{
    struct la_csv_cols *c = s->cols;
    if (!c || !c->check)
        return;
    la_sample_map_publish(c->map);
    s->r->notes->samples = c->row;
    int rc = la_column_check_finish(c->check, s->r->notes);
    c->check = NULL;                     /* freed by finish */
    if (rc != 0)
        FAIL(s, "out of memory");
}

void la_csv_cols_free(struct la_csv *s)
{
    struct la_csv_cols *c = s->cols;
    if (!c)
        return;
    la_column_check_free(c->check);
    struct la_notes *notes = s->r->notes;
    if (notes && notes->sample_ctx == c->map && !notes->ctx) {
        notes->ctx = c->map;             /* the scan's sample_of reads it: it lives with the notes */
        notes->free_ctx = la_sample_map_free;
    } else {
        la_sample_map_free(c->map);
    }
    la_int_list_free(&c->cell);
    free(c);
    s->cols = NULL;
}
