/* jsonl_columns.c - see jsonl_columns.h: a jsonl record's columns that the
 * model indexes, held while the record is read, then handed to the check
 * (columns.h) row by row. */
#include "jsonl_columns.h"

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* calloc, realloc, free */
#include <string.h>   /* memcpy, strlen */

#include "columns.h"
#include "findings.h"
#include "label_notes.h"
#include "util.h"     /* la_parse_number */

enum shape { S_ABSENT, S_NULL, S_SCALAR, S_LIST };

#define BAD_TEXT 40   /* the first bad value of a column, as the file wrote it */
#define BAD_ROWS 5    /* rows a finding names */

/* A column's row being read, and what its rows so far were. */
struct column {
    int slot;                  /* in the check (present order), or -1: not read */
    /* this record's */
    int64_t *v;
    size_t n, cap;
    enum shape shape;
    int bad, all_bool;
    char bad_text[BAD_TEXT];
    /* over the file */
    enum shape first_shape;    /* of its first non-null row: S_ABSENT while none */
    uint64_t first_line;
    uint64_t bad_rows, bad_row[BAD_ROWS], first_bad_line;
    char first_bad[BAD_TEXT];
};

struct la_jsonl_columns {
    const struct la_column_plan *plan;
    struct la_column_check *check;
    int schema;                /* the first record ended: the columns are fixed */
    int off;                   /* nothing to check (none present, or the label alone) */
    int present[LA_COLUMNS_MAX];
    size_t n;
    int primary;               /* the label key's slot, or -1 */
    int cur;                   /* the rule whose value is being read, or -1 */
    size_t held;               /* values held for the record, over its columns */
    struct column col[LA_COLUMNS_MAX];   /* by rule */
};

struct la_jsonl_columns *la_jsonl_columns_new(const struct la_column_plan *plan)
{
    struct la_jsonl_columns *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->plan = plan;
    c->cur = c->primary = -1;
    for (size_t i = 0; i < LA_COLUMNS_MAX; i++)
        c->col[i].slot = -1;
    return c;
}

void la_jsonl_columns_key(struct la_jsonl_columns *c, const unsigned char *k, size_t n)
{
    c->cur = -1;
    if (c->off || n >= LA_COLUMN_NAME)
        return;
    char name[LA_COLUMN_NAME];
    memcpy(name, k, n);
    name[n] = '\0';
    int rule = la_column_plan_find(c->plan, name);
    if (rule < 0 || rule >= LA_COLUMNS_MAX)
        return;
    struct column *w = &c->col[rule];
    if (w->slot < 0) {
        if (c->schema)
            return;            /* not a key of the first record: not read */
        w->slot = (int)c->n;
        c->present[c->n++] = rule;
    }
    c->held -= w->n;           /* a key given twice: the last counts, as in json.loads */
    w->n = 0;
    w->shape = S_NULL;
    w->bad = 0;
    w->all_bool = 1;
    c->cur = rule;
}

static void set_bad(struct column *w, const char *text, size_t n)
{
    if (w->bad)
        return;
    w->bad = 1;
    snprintf(w->bad_text, sizeof w->bad_text, "%.*s", (int)(n < BAD_TEXT - 1 ? n : BAD_TEXT - 1),
             text);
}

static int push(struct la_jsonl_columns *c, struct column *w, int64_t x, char *why, size_t whylen)
{
    if (c->held >= LA_JSONL_COLUMN_VALUES) {
        snprintf(why, whylen, "the record's columns hold over %zu values (a row is held until "
                 "its record ends)", LA_JSONL_COLUMN_VALUES);
        return -1;
    }
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        int64_t *v = realloc(w->v, cap * sizeof *v);
        if (!v) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        w->v = v;
        w->cap = cap;
    }
    w->v[w->n++] = x;
    c->held++;
    return 0;
}

/* One value of the row: an integer, a boolean (0 or 1), else the row is
 * bad (its item still counts for the row's length, as 0). */
static int item(struct la_jsonl_columns *c, struct column *w, char first, const char *s,
                size_t n, char *why, size_t whylen)
{
    int64_t x = 0;
    struct la_num num;
    if (first == '0' && la_parse_number(s, n, &num) == LA_CELL_INT)
        x = num.v.i, w->all_bool = 0;
    else if (first == 'b')
        x = s[0] == 't';
    else if (first == '0')
        set_bad(w, s, n);      /* 2.0, 1e3, NaN, an integer past int64 */
    else {
        const char *what = first == '"' ? "a string" : first == 'n' ? "null"
                         : first == '[' ? "a nested list" : "an object";
        set_bad(w, what, strlen(what));
    }
    return push(c, w, x, why, whylen);
}

int la_jsonl_columns_value(struct la_jsonl_columns *c, int depth, char first, const char *s,
                           size_t n, char *why, size_t whylen)
{
    if (c->cur < 0)
        return 0;
    struct column *w = &c->col[c->cur];
    if (depth == 0) {          /* the key's value */
        if (first == '[') {
            w->shape = S_LIST;
            return 0;          /* its items follow, until it closes */
        }
        if (first == 'n') {
            c->cur = -1;
            return 0;
        }
        w->shape = S_SCALAR;
        if (first == '{') {    /* bad; read past until it closes */
            set_bad(w, "an object", 9);
            return 0;
        }
        c->cur = -1;
        return item(c, w, first, s, n, why, whylen);
    }
    if (depth == 1 && w->shape == S_LIST)
        return item(c, w, first, s, n, why, whylen);
    return 0;                  /* inside a nested list or object: said at its start */
}

void la_jsonl_columns_close(struct la_jsonl_columns *c, int depth)
{
    if (depth == 0)
        c->cur = -1;
}

/* The first record ended: its plan columns are the file's. */
static int start(struct la_jsonl_columns *c, const char *label_key)
{
    c->schema = 1;
    int primary = label_key ? la_column_plan_find(c->plan, label_key) : -1;
    if (primary >= 0 && primary < LA_COLUMNS_MAX && c->col[primary].slot >= 0)
        c->primary = c->col[primary].slot;
    else
        primary = -1;
    /* the label column alone: the scan says all there is */
    if (c->n == 0 || (c->n == 1 && c->primary >= 0)) {
        c->off = 1;
        return 0;
    }
    c->check = la_column_check_new(c->plan, c->present, c->n, primary);
    return c->check ? 0 : -1;
}

/* A row's shape against its column's first: pyarrow.json refuses a column
 * of both. A bad row (an object, a float) is non-integer already, and has
 * no shape to compare. */
static int same_shape(struct la_jsonl_columns *c, struct column *w, uint64_t line, char *why,
                      size_t whylen)
{
    if ((w->shape != S_SCALAR && w->shape != S_LIST) || w->bad)
        return 0;
    if (w->first_shape == S_ABSENT) {
        w->first_shape = w->shape;
        w->first_line = line;
        la_column_check_dtype(c->check, (size_t)w->slot, w->all_bool && w->n ? "bool" : "int64",
                              w->shape == S_LIST);
        return 0;
    }
    if (w->shape == w->first_shape)
        return 0;
    char first[40] = "an earlier record";   /* --field: records have no lines */
    if (w->first_line)
        snprintf(first, sizeof first, "line %llu", (unsigned long long)w->first_line);
    snprintf(why, whylen, "column '%s' holds %s where %s's holds %s (load_dataset(\"json\") "
             "refuses a column of both)", c->plan->cols[c->present[w->slot]].name,
             w->shape == S_LIST ? "a list" : "a number", first,
             w->first_shape == S_LIST ? "a list" : "a number");
    return -1;
}

static void note_bad(struct column *w, uint64_t row, uint64_t line)
{
    if (w->bad_rows < BAD_ROWS)
        w->bad_row[w->bad_rows] = row;
    if (w->bad_rows++ == 0) {
        w->first_bad_line = line;
        memcpy(w->first_bad, w->bad_text, sizeof w->first_bad);
    }
}

int la_jsonl_columns_record(struct la_jsonl_columns *c, uint64_t row, uint64_t line,
                            const char *label_key, char *why, size_t whylen)
{
    c->cur = -1;
    if (!c->schema && start(c, label_key) != 0) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (c->off)
        return 0;
    la_column_check_line(c->check, line);
    int rc = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct column *w = &c->col[c->present[i]];
        if (rc == 0)
            rc = same_shape(c, w, line, why, whylen);
        int as_null = w->shape == S_ABSENT || w->shape == S_NULL ||
                      (w->bad && (int)i != c->primary);
        if (w->bad && (int)i != c->primary)
            note_bad(w, row, line);
        la_column_check_values(c->check, i, row, as_null ? NULL : w->v, as_null ? 0 : w->n);
        w->shape = S_ABSENT;   /* until the next record names it */
        w->n = 0;
        w->bad = 0;
    }
    c->held = 0;
    la_column_check_row(c->check, row);
    return rc;
}

/* The non-integer rows of column w: an error, as the embedding refuses them. */
static void bad_finding(const struct la_jsonl_columns *c, const struct column *w,
                        struct la_notes *notes)
{
    const char *name = c->plan->cols[c->present[w->slot]].name;
    char rows[120];
    size_t used = (size_t)snprintf(rows, sizeof rows, "row%s", w->bad_rows == 1 ? "" : "s");
    size_t shown = w->bad_rows < BAD_ROWS ? (size_t)w->bad_rows : BAD_ROWS;
    for (size_t j = 0; j < shown && used < sizeof rows; j++)
        used += (size_t)snprintf(rows + used, sizeof rows - used, "%s %llu", j ? "," : "",
                                 (unsigned long long)w->bad_row[j]);
    if (w->bad_rows > shown && used < sizeof rows)
        snprintf(rows + used, sizeof rows - used, " and %llu more",
                 (unsigned long long)(w->bad_rows - shown));
    struct la_finding *f = la_notes_finding(
        notes, LA_F_NON_INTEGER, "Expected tensor for argument #1 'indices' to have one of the "
        "following scalar types: Long, Int; but got torch.FloatTensor instead", "%s", "");
    if (!f)
        return;
    snprintf(f->column, sizeof f->column, "%s", name);
    char at[64];
    int len = snprintf(at, sizeof at, "row %llu", (unsigned long long)w->bad_row[0]);
    if (w->first_bad_line && len > 0 && (size_t)len < sizeof at)   /* --field: no lines */
        snprintf(at + len, sizeof at - (size_t)len, ", line %llu",
                 (unsigned long long)w->first_bad_line);
    snprintf(f->message, sizeof f->message, "column '%s': %llu row%s holding values that are not "
             "integers, %s (%s: %s)", name, (unsigned long long)w->bad_rows,
             w->bad_rows == 1 ? "" : "s", rows, at, w->first_bad);
    snprintf(f->hint, sizeof f->hint, "an embedding takes integer ids: json.loads reads 2.0 as a "
             "float, and torch.tensor of a list holding one is a FloatTensor; write the ids as "
             "integers (Dataset.cast_column to int64 before to_json)");
}

int la_jsonl_columns_finish(struct la_jsonl_columns *c, struct la_notes *notes)
{
    if (!c || c->off || !c->check)
        return 0;
    for (size_t i = 0; i < c->n; i++) {
        struct column *w = &c->col[c->present[i]];
        if (w->first_shape == S_ABSENT)   /* no value in any row: pyarrow's null type */
            la_column_check_dtype(c->check, i, "null", 0);
        if (w->bad_rows)
            bad_finding(c, w, notes);
    }
    struct la_column_check *check = c->check;
    c->check = NULL;
    return la_column_check_finish(check, notes);
}

void la_jsonl_columns_free(struct la_jsonl_columns *c)
{
    if (!c)
        return;
    la_column_check_free(c->check);
    for (size_t i = 0; i < LA_COLUMNS_MAX; i++)
        free(c->col[i].v);
    free(c);
}
