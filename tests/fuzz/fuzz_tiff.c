/* fuzz_tiff.c - a TIFF mask through libtiff, by path (libtiff seeks, so the
 * reader refuses standard input: that refusal is checked once too). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=tiff", "-n10", NULL };
    fuzz_audit(data, size, args, 0);
    if (size < 64)
        fuzz_audit(data, size, args, 1);
    return 0;
}
