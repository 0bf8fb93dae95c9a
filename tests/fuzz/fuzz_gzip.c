/* fuzz_gzip.c - gzip-compressed input: the gzip magic is put in front when the
 * input lacks it, so every input exercises the inflater; what comes out is
 * detected as usual (npy, npz, csv or text). */
#include "fuzz_common.h"

#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "-n10", NULL };
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        fuzz_audit(data, size, args, 0);
        return 0;
    }
    uint8_t *buf = malloc(size + 2);
    if (!buf)
        return 0;
    buf[0] = 0x1f;
    buf[1] = 0x8b;
    memcpy(buf + 2, data, size);
    fuzz_audit(buf, size + 2, args, 0);
    free(buf);
    return 0;
}
