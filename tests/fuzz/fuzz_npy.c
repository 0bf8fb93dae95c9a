/* fuzz_npy.c - a whole .npy file: once by path (regular file, Fortran order
 * gathered through mmap) and once as standard input (a stream). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=npy", "-n10", "-b4", NULL };
    fuzz_audit(data, size, args, 0);
    fuzz_audit(data, size, args, 1);
    return 0;
}
