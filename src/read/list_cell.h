/* list_cell.h - a CSV cell's text as integers: one integer (a scalar column),
 * or a list as users' tools write a list column into CSV: Python's repr,
 * "[101, 2054, 102]" (pandas' to_csv of a column of lists), or numpy's,
 * "[ 101 2054  102]" (to_csv of a column of arrays, what Dataset.to_pandas()
 * gives), wrapped over several lines inside the quoted cell. libcsv has
 * unquoted the cell already: this reads only its text. */
#ifndef LA_LIST_CELL_H
#define LA_LIST_CELL_H

#include <stddef.h>  /* size_t */
#include <stdint.h>  /* int64_t */

/* What a cell held. */
enum la_cell_form {
    LA_FORM_BAD = -1,    /* not integers: why says what */
    LA_FORM_NULL = 0,    /* empty, or only whitespace: a null row */
    LA_FORM_SCALAR = 1,  /* one integer, or True/False */
    LA_FORM_LIST = 2     /* [...]: its items, maybe none */
};

/* A row's values: reused from cell to cell, so memory is one row's. */
struct la_int_list {
    int64_t *v;
    size_t n, cap;
};

/** la_list_cell_parse() : the integers in p[0..len) into out (out->n of
 *  them, replacing what it held). A float, a word, a nested list, a list
 *  left open and numpy's summary "..." (more than 1000 items printed with
 *  the middle ones left out: they are not in the file) are LA_FORM_BAD, why
 *  the reason (a phrase, NUL-terminated, at most whylen bytes).
 *  @return the form, LA_FORM_BAD also out of memory. */
enum la_cell_form la_list_cell_parse(const char *p, size_t len, struct la_int_list *out,
                                     char *why, size_t whylen);

void la_int_list_free(struct la_int_list *l);

#endif
