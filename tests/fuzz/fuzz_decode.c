/* fuzz_decode.c - the decoders behind gzip's: xz (liblzma), bzip2 (libbz2),
 * zstd (libzstd) and UTF-16 text (iconv). An input that starts with none of
 * their marks gets one put in front, chosen by its first byte, so every input
 * exercises a decoder; what comes out is detected as usual. A decoder left
 * out of the build is refused by name, which the harness checks too. */
#include "fuzz_common.h"

#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy */

static const struct mark {
    const char *bytes;
    size_t len;
} marks[] = {
    { "\xFD" "7zXZ\0", 6 },                        /* xz stream header */
    { "BZh9\x31\x41\x59\x26\x53\x59", 10 },        /* bzip2, then a block's magic */
    { "\x28\xB5\x2F\xFD", 4 },                     /* zstd frame */
    { "\xFF\xFE", 2 },                             /* UTF-16LE byte order mark */
    { "\xFE\xFF", 2 },                             /* UTF-16BE byte order mark */
};
#define N_MARKS (sizeof marks / sizeof marks[0])

static int has_mark(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < N_MARKS; i++)
        if (size >= marks[i].len && memcmp(data, marks[i].bytes, marks[i].len) == 0)
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const args[] = { "-n10", "--max-report=3", NULL };
    if (size == 0 || has_mark(data, size)) {
        fuzz_audit(data, size, args, 0);
        return 0;
    }
    const struct mark *m = &marks[data[0] % N_MARKS];
    uint8_t *buf = malloc(m->len + size - 1);
    if (!buf)
        return 0;
    memcpy(buf, m->bytes, m->len);
    memcpy(buf + m->len, data + 1, size - 1);
    fuzz_audit(buf, m->len + size - 1, args, (data[0] >> 4) & 1);
    free(buf);
    return 0;
}
