/* fuzz_pickle.c - the strict pickle reader (src/read/pickle.h) over a buffer: it
 * must never read past len, never loop without end, and what it accepts must
 * be coherent (a root value, tensors whose storages are storages). */
#include "fuzz_common.h"

#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* abort, malloc, free */
#include <string.h> /* memcpy, strncmp */

#include "pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so ASan sees any read past len */
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct la_pickle p = { 0 };
    if (la_pickle_load(&p, buf, size) != 0) {
        if (strncmp(p.err, "byte ", 5) != 0) {
            fprintf(stderr, "fuzz oracle: pickle error without a byte offset: \"%s\"\n", p.err);
            abort();
        }
    } else {
        if (p.root >= p.nv)
            abort();
        for (uint32_t i = 0; i < p.nv; i++)
            if (p.v[i].kind == LA_PV_TENSOR
                && (p.v[i].i >= p.nt || p.v[p.t[p.v[i].i].storage].kind != LA_PV_STORAGE)) {
                fprintf(stderr, "fuzz oracle: incoherent tensor accepted\n");
                abort();
            }
    }
    la_pickle_free(&p);
    free(buf);
    return 0;
}
