/* codecs.h - the compressions a byte source undoes: their magic bytes, their
 * names in messages, the library that reads each and the command that undoes
 * it where this build lacks that library. A table, knowing nothing of the
 * stages: input_decode.c decompresses by it, --version lists what it has. */
#ifndef LA_CODECS_H
#define LA_CODECS_H

#include <stddef.h>    /* size_t */

enum la_codec { LA_CODEC_PLAIN, LA_CODEC_GZIP, LA_CODEC_XZ, LA_CODEC_BZIP2, LA_CODEC_ZSTD };

struct la_codec_info {
    const char *name, *library, *command;
    int built;          /* this build has the library */
};

/* indexed by enum la_codec */
extern const struct la_codec_info la_codecs[];

/* The first bytes read decide the compression: bzip2's magic is the longest. */
#define LA_CODEC_MAGIC_LEN 10

/** la_codec_of() : the compression whose magic bytes m (n of them) start with. */
enum la_codec la_codec_of(const unsigned char *m, size_t n);

/** la_decompressors() : the decompressors built in, "gzip xz bzip2 zstd" or fewer. */
const char *la_decompressors(void);

#endif
