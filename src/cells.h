/* cells.h - turns number cells (csv and text) into chunks for the scan.
 *
 * Cells arrive one at a time as text. Integers gather in an int64 chunk and
 * floats in a float64 chunk; a change of kind, a full chunk or a cell that is
 * not a number ends the current chunk. Because readers are pulled one chunk
 * at a time, a cell that ends a chunk is held back and emitted first on the
 * next pull. */
#ifndef LA_CELLS_H
#define LA_CELLS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */
#include "reader.h"
#include "util.h"

#define LA_CELLS_CHUNK 65536
#define LA_CELL_TEXT_MAX 200

/** la_utf8_cut() : the longest prefix of p[0..n) of at most max bytes that does
 *  not end inside a UTF-8 character, so cut text stays valid UTF-8 (JSON) and
 *  prints whole characters. Only continuation bytes are stepped back over, at
 *  most 3: text that is not UTF-8 is cut at max. */
static inline size_t la_utf8_cut(const char *p, size_t n, size_t max)
{
    if (n <= max)
        return n;
    for (size_t back = 0; back < 4 && back < max; back++)
        if (((unsigned char)p[max - back] & 0xC0) != 0x80)
            return max - back;
    return max;
}

struct la_cells {
    int64_t ints[LA_CELLS_CHUNK];
    double floats[LA_CELLS_CHUNK];
    size_t n;
    int is_float;                   /* kind of the values gathered so far */
    uint64_t first_index;
    uint64_t next_index;            /* index of the next cell */
    int saw_float;
    /* a cell held back because it could not join the chunk just returned */
    int held;                       /* 0 none, 1 a number, 2 unparsable text */
    struct la_num held_num;
    enum la_cell held_kind;
    char held_text[LA_CELL_TEXT_MAX + 1];
    char bad_text[LA_CELL_TEXT_MAX + 1];  /* the text an unparsable chunk points to */
};

void la_cells_init(struct la_cells *c);

/** la_cells_take_held() : emit what the previous push held back.
 *  @return 1 with *out filled (an unparsable cell), else 0. Call it first in next(). */
int la_cells_take_held(struct la_cells *c, struct la_chunk *out);

/** la_cells_push() : add the cell s[0..len). @return 1 when *out holds a chunk to
 *  return now (the cell may have been held back), 0 when the cell was absorbed. */
int la_cells_push(struct la_cells *c, const char *s, size_t len, struct la_chunk *out);

/** la_cells_flush() : at the end, the values gathered. @return 1 with *out, else 0. */
int la_cells_flush(struct la_cells *c, struct la_chunk *out);

#endif
