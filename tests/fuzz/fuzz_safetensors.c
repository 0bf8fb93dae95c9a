/* fuzz_safetensors.c - a whole .safetensors file: once by path (the tensor
 * mapped in place) and once as standard input (read through). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=safetensors", "-n10", NULL };
    fuzz_audit(data, size, args, 0);
    fuzz_audit(data, size, args, 1);
    return 0;
}
