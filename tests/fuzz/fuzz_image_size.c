/* fuzz_image_size.c - an image's size from its header (read/image_size.c):
 * PNG through libspng, JPEG through libjpeg-turbo (whose errors jump back,
 * never exit), TIFF through libtiff, WebP through libwebp, BMP's header by
 * hand. A refusal is one printable line; an accepted size is not zero, and
 * only a few KiB of the file were read for it. */
#include "fuzz_common.h"
#include "read/image_size.h"

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* abort */
#include <string.h>  /* strchr */
#include <unistd.h>  /* write, close, unlink */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz-image-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    int ok = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (ok) {
        struct la_image_size s;
        char err[256] = "";
        int rc = la_image_size(path, &s, err, sizeof err);
        if (rc == 0 && (s.width == 0 || s.height == 0 || !s.format))
            abort();
        if (rc != 0 && (!err[0] || strchr(err, '\n')))
            abort();
        if (rc == 0 && s.bytes_read > ((uint64_t)1 << 20) && s.bytes_read > size)
            abort();
    }
    unlink(path);
    return 0;
}
