/* pair_list.h - what a report knows of its labels' images (SPEC "A label
 * and what it labels"): how many images its labels were paired with, and
 * the first --max-report pairs that disagree, as pairs.c finds them and
 * the renderers show them (the JSON's "pairs"). */
#ifndef LA_PAIR_LIST_H
#define LA_PAIR_LIST_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */
#include "findings.h" /* enum la_code */

enum la_pair_kind {
    LA_PAIR_SIZE,        /* size-mismatch: a mask of another size than its image */
    LA_PAIR_NO_IMAGE,    /* missing-pair: a label with no image */
    LA_PAIR_NO_LABEL,    /* missing-pair: a segmentation image with no mask */
    LA_PAIR_UNREADABLE,  /* the image's header could not be read */
    LA_PAIR_GEOMETRY,    /* geometry-mismatch: a NIfTI label off its image's grid (why says how) */
};

struct la_pair_bad {
    enum la_pair_kind kind;
    char *file;          /* the label file, or NULL (an image with no mask) */
    char *image;         /* its image, or NULL (a label with no image) */
    uint64_t label_w, label_h, image_w, image_h;   /* 0: not known */
    char *why;           /* LA_PAIR_UNREADABLE: the header's problem; LA_PAIR_GEOMETRY: how
                            the grids differ */
    int refused;         /* LA_PAIR_GEOMETRY: nnU-Net refuses it (shape, spacing), not
                            only warns (origin, direction) */
};

struct la_pairs {
    char *images_dir;    /* where the images were looked for */
    int segmentation;    /* masks (an image without one is missing), not detection labels */
    int coco;            /* a COCO JSON's image entries against their files */
    uint64_t images;     /* image files found there */
    uint64_t paired;     /* labels with an image */
    uint64_t unlabeled;  /* images with no label (YOLO's background images) */
    uint64_t orphans;    /* labels with no image */
    uint64_t size_mismatch;
    uint64_t geometry_mismatch;  /* NIfTI labels off an image's grid (each label once), */
    uint64_t geometry_refused;   /* of them those nnU-Net refuses (shape, spacing) */
    uint64_t unreadable; /* images whose header could not be read */
    uint64_t header_bytes;   /* read from the images' files, headers only */
    struct la_pair_bad *bad;     /* the first cap of them, in label order */
    size_t n_bad, cap_bad, cap;
};

/** la_pairs_note() : a pair that disagrees, kept while there is room (cap);
 *  the strings are copied. @return 0, or -1 out of memory. */
int la_pairs_note(struct la_pairs *p, enum la_pair_kind kind, const char *file,
                  const char *image, uint64_t label_w, uint64_t label_h, uint64_t image_w,
                  uint64_t image_h, const char *why);

/** la_pair_code() : the finding a bad pair of kind is told under. */
enum la_code la_pair_code(enum la_pair_kind kind);

/** la_pair_describe() : one bad pair in words, "a.png: 32 x 24, its image
 *  a.jpg 32 x 20", "a.png: no image", "a.jpg: no mask". */
void la_pair_describe(const struct la_pair_bad *b, char *buf, size_t len);

void la_pairs_free(struct la_pairs *p);

#endif
