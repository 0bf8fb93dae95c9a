/* fuzz_jsonl.c - the jsonl reader (yajl): the bytes as JSON Lines, a line at a
 * time, then from standard input as one document whose "data" holds the
 * records (--field), with -c naming the label key; then again as JSON Lines
 * with --vocab-size, which checks every column the model indexes (input_ids,
 * token types, positions, the mask, row lengths: jsonl_columns.c) beside the
 * label key. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const lines[] = { "--format=jsonl", "-n10", "-b4", "--max-report=3", NULL };
    static const char *const field[] = { "--format=jsonl", "--field=data", "-c", "y", "-n10",
                                         "--max-report=3", NULL };
    static const char *const columns[] = { "--format=jsonl", "--vocab-size=10", "--max-report=3",
                                           NULL };
    fuzz_audit(data, size, lines, 0);
    fuzz_audit(data, size, field, 1);
    fuzz_audit(data, size, columns, 0);
    return 0;
}
