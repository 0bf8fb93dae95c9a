/* fuzz_jsonl.c - the jsonl reader (yajl): the bytes as JSON Lines, a line at a
 * time, then from standard input as one document whose "data" holds the
 * records (--field), with -c naming the label key. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const lines[] = { "--format=jsonl", "-n10", "-b4", "--max-report=3", NULL };
    static const char *const field[] = { "--format=jsonl", "--field=data", "-c", "y", "-n10",
                                         "--max-report=3", NULL };
    fuzz_audit(data, size, lines, 0);
    fuzz_audit(data, size, field, 1);
    return 0;
}
