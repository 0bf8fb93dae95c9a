/* fuzz_yolo.c - one YOLO label file: fields, coordinates, duplicates, lines. */
#include "fuzz_common.h"
#include "fuzz_path_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_path_reader(data, size, &la_reader_yolo);
    return 0;
}
