/* mask_image.h - the bad masks of a report as pictures (--html, --overlays):
 * which images are the worst, and their pixels.
 *
 * The report model keeps no pixels. It keeps how many bad entries each bad
 * sample holds (the stats' groups: the first --max-report bad samples of a
 * file) and each file of a dataset (la_source_info.bad). The few images a
 * page or an overlay shows are read again, after the audit, through their
 * own reader, and each pixel is judged by the audit's rule: so a picture
 * costs memory for one image at a time, never for the dataset.
 *
 * A mask is a sample of two or more axes: a PNG or TIFF image, a NIfTI
 * volume, one (H, W) plane of an (N, H, W) array. A sample of more than two
 * axes is shown by its plane (over the last two axes) with the most bad
 * pixels. Standard input cannot be read twice, so it gets no picture. */
#ifndef LA_MASK_IMAGE_H
#define LA_MASK_IMAGE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */
#include "diagnose.h"

/* The palette both pictures use: a valid class c below LA_MASK_BEYOND is
 * index c (PASCAL VOC's colour map, whose channels never reach 255); the
 * three last indices are kept for what is not a plain class. */
#define LA_MASK_BEYOND 253    /* a valid class the palette has no colour of its own for */
#define LA_MASK_IGNORED 254   /* --ignore-index: white */
#define LA_MASK_BAD 255       /* a bad pixel (out of range, not an integer, ...): magenta */

/* One bad sample worth a picture. */
struct la_mask_pick {
    const char *path;         /* the file holding it (the report's, or a dataset source's) */
    uint64_t sample;          /* its index within that file */
    uint64_t report_sample;   /* its index in the report (the dataset's numbering) */
    uint64_t bad;             /* its bad entries */
    int in_file;              /* the file holds more than one sample: name the sample */
};

/** la_mask_worst() : the bad masks of r, most bad entries first, at most
 *  --max-report of them, into *out (malloc'd; free it). None for a report of
 *  no masks, or of standard input. @return how many, or -1 when out of memory. */
long la_mask_worst(const struct la_file_report *r, const struct la_config *cfg,
                   struct la_mask_pick **out);

/* One mask plane as palette indices. */
struct la_mask_image {
    uint32_t width, height;
    unsigned char *index;     /* width * height palette indices, row by row */
    uint64_t bad;             /* LA_MASK_BAD pixels in the plane */
    uint64_t plane, planes;   /* which plane of the sample is shown, of how many */
};

/** la_mask_load() : read pick's sample again and make its worst plane.
 *  @return 0, or -1 with a one-line reason in err. */
int la_mask_load(const struct la_mask_pick *pick, const struct la_config *cfg,
                 struct la_mask_image *img, char *err, size_t errlen);

void la_mask_image_free(struct la_mask_image *img);

/** la_mask_palette() : the 256 colours of the palette, RGB. */
void la_mask_palette(unsigned char rgb[256][3]);

/** la_mask_thumbnail() : img made at most max pixels on its longer side: each
 *  thumbnail pixel covers a square of the image and is bad when any pixel of
 *  the square is (so that a bad line one pixel wide still shows), else the
 *  square's first pixel. An image that fits is copied. @return 0, or -1 when
 *  out of memory. */
int la_mask_thumbnail(const struct la_mask_image *img, uint32_t max, struct la_mask_image *out);

/** la_mask_png() : img as an indexed PNG in la_mask_palette(), in memory
 *  (malloc'd, *len bytes), through libspng. @return the bytes, or NULL with
 *  the reason in err (out of memory; a build without libspng). */
unsigned char *la_mask_png(const struct la_mask_image *img, size_t *len, char *err, size_t errlen);

#endif
