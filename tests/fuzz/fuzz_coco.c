/* fuzz_coco.c - COCO JSON through yajl, both passes and the locating third. */
#include "config.h"
#include "fuzz_common.h"
#include "fuzz_path_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#if HAVE_YAJL
    fuzz_path_reader(data, size, &la_reader_coco);
#else
    (void)data, (void)size;
#endif
    return 0;
}
