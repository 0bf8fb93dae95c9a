/* label_items.c - see label_items.h. */
#include "label_items.h"

#include <stdlib.h> /* realloc */
#include <string.h> /* memcpy */

#define MAX_TEXT 80

static int grow(struct la_items *q)
{
    if (q->n < q->cap)
        return 0;
    size_t cap = q->cap ? q->cap * 2 : 256;
    int64_t *ints = realloc(q->ints, cap * sizeof *ints);
    if (ints)
        q->ints = ints;
    char **texts = realloc(q->texts, cap * sizeof *texts);
    if (texts)
        q->texts = texts;
    unsigned char *kind = realloc(q->kind, cap);
    if (kind)
        q->kind = kind;
    if (!ints || !texts || !kind)
        return -1;
    q->cap = cap;
    return 0;
}

static int push(struct la_items *q, enum la_item_kind kind)
{
    if (grow(q) != 0)
        return -1;
    q->kind[q->n] = (unsigned char)kind;
    q->texts[q->n] = NULL;
    q->n++;
    return 0;
}

int la_items_push_int(struct la_items *q, int64_t v)
{
    if (push(q, LA_ITEM_INT) != 0)
        return -1;
    q->ints[q->n - 1] = v;
    return 0;
}

int la_items_push_text(struct la_items *q, const char *s, size_t len)
{
    if (len > MAX_TEXT)
        len = MAX_TEXT;
    char *t = malloc(len + 1);
    if (!t || push(q, LA_ITEM_TEXT) != 0) {
        free(t);
        return -1;
    }
    memcpy(t, s, len);
    t[len] = '\0';
    q->texts[q->n - 1] = t;
    return 0;
}

int la_items_take(struct la_items *q, struct la_chunk *out)
{
    if (q->pos >= q->n)
        return 0;
    size_t start = q->pos, end = start + 1;
    enum la_item_kind kind = (enum la_item_kind)q->kind[start];
    if (kind != LA_ITEM_TEXT)
        while (end < q->n && q->kind[end] == kind)
            end++;
    *out = (struct la_chunk){ .first_index = q->first_index + start, .count = end - start };
    if (kind == LA_ITEM_INT) {
        out->dtype = LA_DT_INT64;
        out->values = q->ints + start;
    } else {
        out->dtype = LA_DT_INT64;
        out->unparsable = q->texts[start];
    }
    q->pos = end;
    return 1;
}

void la_items_reset(struct la_items *q, uint64_t first_index)
{
    for (size_t i = 0; i < q->n; i++)
        free(q->texts[i]);
    q->n = q->pos = 0;
    q->first_index = first_index;
}

void la_items_free(struct la_items *q)
{
    la_items_reset(q, 0);
    free(q->ints);
    free(q->texts);
    free(q->kind);
    *q = (struct la_items){ 0 };
}
