/* fuzz_wds.c - a WebDataset shard through libarchive's tar reader and the
 * grouping by key: once by path, once as standard input (the reader streams
 * either way); the default label members, then --key. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=wds", "-n10", "-b2", NULL };
    static const char *const key[] = { "--format=wds", "--key=txt", "-n10", "--json", NULL };
    fuzz_audit(data, size, args, 0);
    fuzz_audit(data, size, args, 1);
    fuzz_audit(data, size, key, 0);
    return 0;
}
