/* fuzz_jsonl.c - JSON Lines through the jsonl reader (yajl), a line at a time,
 * and the same bytes as one document whose "data" holds the records (--field). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const lines[] = { "--format=jsonl", "-n10", "-b4", "--max-report=3", NULL };
    static const char *const named[] = { "--format=jsonl", "-c", "y", "-n10", "--max-report=3", NULL };
    fuzz_audit(data, size, lines, 0);
    fuzz_audit(data, size, named, 1);
    return 0;
}
