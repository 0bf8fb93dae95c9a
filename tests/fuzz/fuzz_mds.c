/* fuzz_mds.c - an MDS folder: index.json and a shard (its header, offsets
 * table, config and samples), as fuzz_shards.h lays them out. */
#include "fuzz_common.h"
#include "fuzz_shards.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = { "shard.00000.mds", "shard.00001.mds",
                                         "shard.00000.mds.zstd", NULL };
    fuzz_shards(data, size, &la_reader_mds, names);
    return 0;
}
