/* fuzz_csv.c - CSV/TSV through the libcsv reader. The first byte picks the
 * options (header rule, delimiter, column, loss, standard input); the rest is
 * the file. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const headers[4] = { NULL, "--header", "--no-header", NULL };
    static const char *const delims[4] = { NULL, "-d;", "-d\t", "-d|" };
    static const char *const columns[4] = { NULL, "-c1", "-c2", "-clabel" };
    unsigned k = size ? data[0] : 0;
    const char *args[12];
    int n = 0;
    args[n++] = "--format=csv";
    args[n++] = "-n10";
    args[n++] = "-b4";
    if (headers[k & 3])
        args[n++] = headers[k & 3];
    if (delims[(k >> 2) & 3])
        args[n++] = delims[(k >> 2) & 3];
    if (columns[(k >> 4) & 3])
        args[n++] = columns[(k >> 4) & 3];
    if (k & 0x40)
        args[n++] = "--loss=bce";
    args[n] = NULL;
    fuzz_audit(size ? data + 1 : data, size ? size - 1 : 0, args, (k & 0x80) != 0);
    return 0;
}
