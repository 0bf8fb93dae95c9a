/* fuzz_litdata.c - a LitData folder: index.json and a chunk (its header,
 * offsets table and items), as fuzz_shards.h lays them out. */
#include "fuzz_common.h"
#include "fuzz_shards.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = { "chunk-0-0.bin", "chunk-0-1.bin", "chunk-0-0.zstd.bin",
                                         NULL };
    fuzz_shards(data, size, &la_reader_litdata, names);
    return 0;
}
