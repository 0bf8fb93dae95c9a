/* codecs.c - the table of compressions (codecs.h). */
#include "config.h"     /* HAVE_LZMA, HAVE_BZIP2, HAVE_ZSTD */
#include "codecs.h"

#include <stdio.h>     /* snprintf */
#include <string.h>    /* memcmp */

/* Each compressed format: its name in messages, the library that reads it
 * and the command that undoes it (for a build without that library). */
const struct la_codec_info la_codecs[] = {
    [LA_CODEC_PLAIN] = { "plain", "", "", 1 },
    [LA_CODEC_GZIP] = { "gzip", "zlib", "gzip -d", 1 },   /* or ISA-L: decoder_name */
#ifdef HAVE_LZMA
    [LA_CODEC_XZ] = { "xz", "liblzma", "xz -d", 1 },
#else
    [LA_CODEC_XZ] = { "xz", "liblzma", "xz -d", 0 },
#endif
#ifdef HAVE_BZIP2
    [LA_CODEC_BZIP2] = { "bzip2", "libbz2", "bzip2 -d", 1 },
#else
    [LA_CODEC_BZIP2] = { "bzip2", "libbz2", "bzip2 -d", 0 },
#endif
#ifdef HAVE_ZSTD
    [LA_CODEC_ZSTD] = { "zstd", "libzstd", "zstd -d", 1 },
#else
    [LA_CODEC_ZSTD] = { "zstd", "libzstd", "zstd -d", 0 },
#endif
};

enum la_codec la_codec_of(const unsigned char *m, size_t n)
{
    static const unsigned char xz[6] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
    static const unsigned char zstd[4] = { 0x28, 0xB5, 0x2F, 0xFD };
    /* bzip2: "BZh", the block size '1'..'9', then a block's or the end's magic */
    static const unsigned char bz_block[6] = { 0x31, 0x41, 0x59, 0x26, 0x53, 0x59 };
    static const unsigned char bz_end[6] = { 0x17, 0x72, 0x45, 0x38, 0x50, 0x90 };
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        return LA_CODEC_GZIP;
    if (n >= 6 && memcmp(m, xz, 6) == 0)
        return LA_CODEC_XZ;
    if (n >= 4 && (memcmp(m, zstd, 4) == 0                    /* a frame, or a skippable one */
                   || ((m[0] & 0xF0) == 0x50 && m[1] == 0x2A && m[2] == 0x4D && m[3] == 0x18)))
        return LA_CODEC_ZSTD;
    if (n >= 10 && memcmp(m, "BZh", 3) == 0 && m[3] >= '1' && m[3] <= '9'
        && (memcmp(m + 4, bz_block, 6) == 0 || memcmp(m + 4, bz_end, 6) == 0))
        return LA_CODEC_BZIP2;
    return LA_CODEC_PLAIN;
}

const char *la_decompressors(void)
{
    static char list[64];
    if (!list[0]) {
        size_t at = 0;
        for (int c = LA_CODEC_GZIP; c <= LA_CODEC_ZSTD; c++)
            if (la_codecs[c].built)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", at ? " " : "",
                                       la_codecs[c].name);
    }
    return list;
}

