/* fuzz_arrow.c - a Parquet file or an Arrow IPC file or stream through
 * Apache Arrow's C++ libraries, by path only (the reader refuses standard
 * input by name). Arrow's own checks come first (every array is validated in
 * full before its values are read); this target checks what labelaudit makes
 * of what gets past them. Bytes that open with PAR1 go as Parquet, the rest
 * as Arrow. Each is audited twice: with -n, and with --vocab-size, which
 * checks every column the model indexes (input_ids, token types, positions,
 * the mask, row lengths: arrow_columns.cc) besides the label column. */
#include "fuzz_common.h"

#include <string.h> /* memcmp */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const parquet[] = { "--format=parquet", "-n10", NULL };
    static const char *const arrow[] = { "--format=arrow", "-n10", NULL };
    static const char *const parquet_columns[] = { "--format=parquet", "--vocab-size=10", NULL };
    static const char *const arrow_columns[] = { "--format=arrow", "--vocab-size=10", NULL };
    int is_parquet = size >= 4 && memcmp(data, "PAR1", 4) == 0;
    fuzz_audit(data, size, is_parquet ? parquet : arrow, 0);
    fuzz_audit(data, size, is_parquet ? parquet_columns : arrow_columns, 0);
    return 0;
}
