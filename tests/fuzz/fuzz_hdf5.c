/* fuzz_hdf5.c - an HDF5 dataset through libhdf5, by path only
 * (standard input is refused by name: the library opens files by name). The
 * parsing is the library's; this target checks what labelaudit makes of it. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=hdf5", "-n10", NULL };
    fuzz_audit(data, size, args, 0);
    return 0;
}
