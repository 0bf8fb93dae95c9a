/* label_items.h - a queue of one file's labels for the folder readers (yolo,
 * imagefolder): integers and unparsable cells, handed to
 * next() as chunks of one kind each, in order. */
#ifndef LA_LABEL_ITEMS_H
#define LA_LABEL_ITEMS_H

#include <stdint.h>
#include <stddef.h>
#include "reader.h"

enum la_item_kind { LA_ITEM_INT, LA_ITEM_TEXT };

struct la_items {
    int64_t *ints;        /* per item: the value (LA_ITEM_INT) */
    char **texts;         /* per item: the cell (LA_ITEM_TEXT), else NULL */
    unsigned char *kind;
    size_t n, cap, pos;
    uint64_t first_index; /* element index of item 0 */
};

int la_items_push_int(struct la_items *q, int64_t v);
/** la_items_push_text() : an unparsable cell, its text copied (up to 80 bytes). */
int la_items_push_text(struct la_items *q, const char *s, size_t len);
/** la_items_take() : the next run of one kind as a chunk. @return 1, or 0 when empty. */
int la_items_take(struct la_items *q, struct la_chunk *out);
/** la_items_reset() : empty the queue; its next item has element index first_index. */
void la_items_reset(struct la_items *q, uint64_t first_index);
void la_items_free(struct la_items *q);

#endif
