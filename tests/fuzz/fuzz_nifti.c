/* fuzz_nifti.c - a NIfTI-1 volume, its header checked by libniftiio: by path
 * and as standard input (the voxels are streamed either way). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "--format=nifti", "-n4", NULL };
    fuzz_audit(data, size, args, 0);
    fuzz_audit(data, size, args, 1);
    return 0;
}
