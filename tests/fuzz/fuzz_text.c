/* fuzz_text.c - one label per line, through the text reader. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=text", "-n10", "-b4", "--max-report=3", NULL };
    fuzz_audit(data, size, args, 0);
    return 0;
}
