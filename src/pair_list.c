/* pair_list.c - see pair_list.h. */
#include "pair_list.h"

#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strdup */

#include "util.h"   /* la_grow_n */

static char *dup_or_null(const char *s, int *failed)
{
    char *d = s ? strdup(s) : NULL;
    *failed |= s && !d;
    return d;
}

int la_pairs_note(struct la_pairs *p, enum la_pair_kind kind, const char *file,
                  const char *image, uint64_t label_w, uint64_t label_h, uint64_t image_w,
                  uint64_t image_h, const char *why)
{
    if (p->n_bad >= p->cap)
        return 0;
    if (la_grow_n(&p->bad, &p->cap_bad, p->n_bad + 1, sizeof *p->bad, 16) != 0)
        return -1;
    int failed = 0;
    struct la_pair_bad *b = &p->bad[p->n_bad];
    *b = (struct la_pair_bad){ .kind = kind, .file = dup_or_null(file, &failed),
                               .image = dup_or_null(image, &failed), .label_w = label_w,
                               .label_h = label_h, .image_w = image_w, .image_h = image_h,
                               .why = dup_or_null(why, &failed) };
    if (failed) {
        free(b->file), free(b->image), free(b->why);
        return -1;
    }
    p->n_bad++;
    return 0;
}

void la_pairs_free(struct la_pairs *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_bad; i++)
        free(p->bad[i].file), free(p->bad[i].image), free(p->bad[i].why);
    free(p->bad);
    free(p->images_dir);
    free(p);
}

enum la_code la_pair_code(enum la_pair_kind kind)
{
    return kind == LA_PAIR_SIZE ? LA_F_SIZE_MISMATCH
         : kind == LA_PAIR_GEOMETRY ? LA_F_GEOMETRY_MISMATCH
         : kind == LA_PAIR_UNREADABLE ? LA_F_UNLOADABLE_IMAGE : LA_F_MISSING_PAIR;
}

void la_pair_describe(const struct la_pair_bad *b, char *buf, size_t len)
{
    switch (b->kind) {
    case LA_PAIR_SIZE:
        snprintf(buf, len, "%s: %llu x %llu, its image %s %llu x %llu", b->file,
                 (unsigned long long)b->label_w, (unsigned long long)b->label_h, b->image,
                 (unsigned long long)b->image_w, (unsigned long long)b->image_h);
        break;
    case LA_PAIR_NO_IMAGE:
        if (b->image)           /* COCO: the entry's file */
            snprintf(buf, len, "%s: no file %s", b->file, b->image);
        else
            snprintf(buf, len, "%s: no image", b->file);
        break;
    case LA_PAIR_NO_LABEL:
        snprintf(buf, len, "%s: no mask", b->image);
        break;
    case LA_PAIR_UNREADABLE:
        snprintf(buf, len, "%s: its image %s: %s", b->file, b->image, b->why ? b->why : "");
        break;
    case LA_PAIR_GEOMETRY:
        snprintf(buf, len, "%s: %s (%s)", b->file, b->why ? b->why : "", b->image);
        break;
    }
}
