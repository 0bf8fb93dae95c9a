/* fuzz_npy_header.c - the pure .npy header parser (src/read/npy_header.h) over a
 * buffer: it must never read past len, and what it accepts must be coherent. */
#include "fuzz_common.h"

#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* abort, malloc, free */
#include <string.h> /* memcpy, strlen */

#include "npy_header.h"

static void check_err(const char *err)
{
    if (!err[0] || strncmp(err, "byte ", 5) != 0) {
        fprintf(stderr, "fuzz oracle: header error without a byte offset: \"%s\"\n", err);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so ASan sees any read past len */
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    char err[256] = "";
    size_t total;
    if (la_npy_header_size(buf, size, &total, err, sizeof err) != 0)
        check_err(err);
    struct la_npy_header h;
    err[0] = '\0';
    long rc = la_npy_parse_header(buf, size, &h, err, sizeof err);
    if (rc < 0) {
        check_err(err);
    } else {
        uint64_t count = 1;
        for (int d = 0; d < h.ndim; d++)
            count *= h.shape[d];
        if ((size_t)rc > size || (size_t)rc != h.data_offset || h.count != count ||
            h.nbytes != h.count * la_dtype_info(h.dtype)->size || h.ndim > LA_MAX_DIMS) {
            fprintf(stderr, "fuzz oracle: incoherent header accepted\n");
            abort();
        }
    }
    free(buf);
    return 0;
}
