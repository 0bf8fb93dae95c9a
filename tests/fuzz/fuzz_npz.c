/* fuzz_npz.c - a whole .npz archive: once by path (read with pread) and once
 * as standard input (spooled to an unlinked temporary file first). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=npz", "-n10", NULL };
    fuzz_audit(data, size, args, 0);
    fuzz_audit(data, size, args, 1);
    return 0;
}
