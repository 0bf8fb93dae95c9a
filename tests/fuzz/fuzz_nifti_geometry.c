/* fuzz_nifti_geometry.c - a NIfTI file's grid from its header alone
 * (read/nifti_geometry.c, pairs.c's geometry-mismatch): the 348 bytes read
 * through zlib (plain or gzip), converted by libniftiio. A refusal is one
 * printable line; an accepted grid has 1 to 7 dimensions and finite
 * numbers, and compared with itself it is the same grid. */
#include "fuzz_common.h"
#include "read/nifti_geometry.h"

#include <stdlib.h>  /* abort */
#include <string.h>  /* strchr */
#include <unistd.h>  /* write, close, unlink */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz-nifti-geometry-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    int ok = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (ok) {
        struct la_nifti_geometry g;
        char err[256] = "", why[256];
        int rc = la_nifti_geometry(path, &g, err, sizeof err);
        if (rc != 0 && (!err[0] || strchr(err, '\n')))
            abort();
        if (rc == 0 && (g.ndim < 1 || g.ndim > 7))
            abort();
        /* a grid (of finite numbers: NaN is refused) is its own */
        if (rc == 0 && la_nifti_differs(&g, &g, why, sizeof why) != 0)
            abort();
    }
    unlink(path);
    return 0;
}
