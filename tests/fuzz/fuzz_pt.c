/* fuzz_pt.c - a whole torch.save .pt file: once by path (read with pread,
 * views mapped) and once as standard input (spooled to a temporary file). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=pt", "-n10", NULL };
    fuzz_audit(data, size, args, 0);
    fuzz_audit(data, size, args, 1);
    return 0;
}
