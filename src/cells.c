/* cells.c - see cells.h. */
#include "cells.h"

#include <string.h> /* memset, memcpy */

void la_cells_init(struct la_cells *c)
{
    c->n = 0;
    c->is_float = 0;
    c->first_index = c->next_index = 0;
    c->saw_float = 0;
    c->held = 0;
}

static void copy_text(char *dst, const char *s, size_t len)
{
    len = la_utf8_cut(s, len, LA_CELL_TEXT_MAX);
    memcpy(dst, s, len);
    dst[len] = '\0';
}

static void unparsable_chunk(struct la_cells *c, const char *text, struct la_chunk *out)
{
    memmove(c->bad_text, text, strlen(text) + 1);
    *out = (struct la_chunk){ LA_DT_INT64, NULL, 1, c->next_index++, c->bad_text };
}

static void add_number(struct la_cells *c, enum la_cell kind, struct la_num num)
{
    if (c->n == 0) {
        c->is_float = kind == LA_CELL_FLOAT;
        c->first_index = c->next_index;
    }
    if (c->is_float)
        c->floats[c->n++] = num.v.f;
    else
        c->ints[c->n++] = num.v.i;
    c->saw_float |= kind == LA_CELL_FLOAT;
    c->next_index++;
}

int la_cells_flush(struct la_cells *c, struct la_chunk *out)
{
    if (c->n == 0)
        return 0;
    *out = (struct la_chunk){ c->is_float ? LA_DT_FLOAT64 : LA_DT_INT64,
                              c->is_float ? (const void *)c->floats : (const void *)c->ints,
                              c->n, c->first_index, NULL };
    c->n = 0;
    return 1;
}

int la_cells_take_held(struct la_cells *c, struct la_chunk *out)
{
    int held = c->held;
    c->held = 0;
    if (held == 1)
        add_number(c, c->held_kind, c->held_num);
    if (held == 2) {
        unparsable_chunk(c, c->held_text, out);
        return 1;
    }
    return 0;
}

int la_cells_push(struct la_cells *c, const char *s, size_t len, struct la_chunk *out)
{
    struct la_num num;
    enum la_cell kind = la_parse_number(s, len, &num);
    if (kind == LA_CELL_BAD) {
        if (c->n == 0) {
            char text[LA_CELL_TEXT_MAX + 1];
            copy_text(text, s, len);
            unparsable_chunk(c, text, out);
            return 1;
        }
        c->held = 2;
        copy_text(c->held_text, s, len);
        return la_cells_flush(c, out);
    }
    int fits = c->n < LA_CELLS_CHUNK && (c->n == 0 || c->is_float == (kind == LA_CELL_FLOAT));
    if (fits) {
        add_number(c, kind, num);
        return 0;
    }
    c->held = 1;
    c->held_kind = kind;
    c->held_num = num;
    return la_cells_flush(c, out);
}
