/* fuzz_raw.c - headerless arrays. The first byte picks the dtype (low four
 * bits), the byte order, the loss, --num-classes and whether the bytes come on
 * standard input (size unknown until the end); the rest is the array. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const dtypes[12] = {
        "--dtype=bool", "--dtype=int8", "--dtype=uint8", "--dtype=int16", "--dtype=uint16",
        "--dtype=int32", "--dtype=uint32", "--dtype=int64", "--dtype=uint64",
        "--dtype=float16", "--dtype=float32", "--dtype=float64",
    };
    unsigned k = size ? data[0] : 0;
    const char *args[8];
    int n = 0;
    args[n++] = "--format=raw";
    args[n++] = dtypes[(k & 15) % 12];
    if (k & 0x10)
        args[n++] = "--endian=big";
    if (k & 0x20)
        args[n++] = "--loss=bce";
    if (k & 0x80)
        args[n++] = "-n3";
    args[n] = NULL;
    fuzz_audit(size ? data + 1 : data, size ? size - 1 : 0, args, (k & 0x40) != 0);
    return 0;
}
