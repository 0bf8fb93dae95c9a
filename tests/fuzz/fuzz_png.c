/* fuzz_png.c - a PNG mask through libspng: once by path, once as standard
 * input (the reader streams either way). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=png", "-n21", "-b2", NULL };
    fuzz_audit(data, size, args, 0);
    fuzz_audit(data, size, args, 1);
    return 0;
}
