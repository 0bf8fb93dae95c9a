/* image_size.h - an image's size from its header alone, never its pixels
 * (SPEC "A label and what it labels"): PNG by libspng, JPEG by
 * libjpeg-turbo, TIFF by libtiff, WebP by libwebp, BMP by its fixed header
 * (BITMAPINFOHEADER and the older BITMAPCOREHEADER), the format told by
 * its magic bytes, not its name. The size is PIL's Image.open(p).size:
 * stored width and height, no EXIF rotation. */
#ifndef LA_IMAGE_SIZE_H
#define LA_IMAGE_SIZE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

struct la_image_size {
    uint64_t width, height;
    uint64_t bytes_read;       /* of the file, to learn its header (at most a few KiB) */
    const char *format;        /* "png", "jpeg", "tiff", "webp", "bmp" */
};

/** la_image_size() : path's size. @return 0; -1 with err (unreadable, cut
 *  short, not an image); -2 with err where this build cannot read that
 *  format's header (./configure --without-jpeg, ...). */
int la_image_size(const char *path, struct la_image_size *s, char *err, size_t errlen);

/** la_image_name() : whether a file name's extension is one of an image
 *  (.png .jpg .jpeg .tif .tiff .webp .bmp, any case). */
int la_image_name(const char *name);

#endif
