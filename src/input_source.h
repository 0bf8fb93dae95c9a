/* input_source.h - the byte source's state and the calls between the files
 * that implement input.h, one concern each, each calling only those before
 * it: input_decode.c (the file's bytes through their decompressor),
 * input_ahead.c (the decoded bytes in order: the peek's replay, then a
 * decompressor's thread, or inline decompression ahead of the reads),
 * input_text.c (byte order marks, UTF-16 decoded to UTF-8), input.c (open,
 * read, close, and what is known of a source) and input_detect.c (which
 * format). Only they include it. */
#ifndef LA_INPUT_SOURCE_H
#define LA_INPUT_SOURCE_H

#include "config.h"     /* HAVE_LZMA, HAVE_BZIP2, HAVE_ZSTD, HAVE_ISAL */
#include "input.h"
#include "codecs.h"     /* enum la_codec */

#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* ssize_t */
#include <zlib.h>      /* z_stream */
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h> /* struct inflate_state */
#endif
#ifdef HAVE_LZMA
#include <lzma.h>      /* lzma_stream */
#endif
#ifdef HAVE_BZIP2
#include <bzlib.h>     /* bz_stream */
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>      /* ZSTD_DStream */
#endif

struct ahead;           /* input_ahead.c */
struct utf16_text;      /* input_text.c */

/* A source's state, by concern: the file (input.c), the decoder of its
 * compression (input_decode.c), the peek and its replay (input.c), the
 * decompressor's thread (input_ahead.c), the text's encoding (input_text.c). */
struct la_source {
    const char *path;
    int fd;
    enum la_codec codec;
    int64_t file_size;          /* regular files only, else -1 */
    uint64_t raw_offset;        /* bytes read from fd */
    uint64_t offset;            /* decoded bytes handed out */
    unsigned char *raw;         /* compressed input buffer */
    const unsigned char *in;    /* xz, bzip2, zstd: compressed bytes not yet decoded */
    size_t in_left;
    int in_eof;                 /* the file has no more compressed bytes */
    int dec_done;               /* the compressed stream ended (all members) */
    int ahead_tried;            /* ahead_start ran: a refused thread is not asked again */
    z_stream z;
#ifdef HAVE_ISAL
    struct inflate_state *isal;  /* gzip through ISA-L; NULL: through zlib (z) */
#endif
#ifdef HAVE_LZMA
    lzma_stream xz;
#endif
#ifdef HAVE_BZIP2
    bz_stream bz;
    int bz_live;                /* bz needs BZ2_bzDecompressEnd */
#endif
#ifdef HAVE_ZSTD
    ZSTD_DStream *zstd;
    size_t zstd_hint;           /* last ZSTD_decompressStream result: 0 between frames */
#endif
    unsigned char peek[LA_PEEK_LEN];
    size_t peek_len, peek_pos;  /* replay of peek[] before reading on */
    char err[256];
    struct ahead *ahead;        /* compressed, after the peek: the decompressor thread */
    int text_mode_set;          /* la_source_text_mode ran */
    struct utf16_text *utf16;   /* UTF-16 text decoded to UTF-8, else NULL */    struct la_stdin_memory *mem; /* "-": the bytes after standard input's end, else NULL */
};

/* input_decode.c */
/** la_source_start_decoder() : read the first bytes and start the decompressor
 *  they call for (or keep them in the peek as plain data). @return 0, or -1 with s->err set. */
int la_source_start_decoder(struct la_source *s);
/** la_source_decode() : up to n bytes through the decompressor (or from the file, plain). */
ssize_t la_source_decode(struct la_source *s, unsigned char *buf, size_t n);
void la_source_stop_decoder(struct la_source *s);
/** la_source_decoder_name() : the library decompressing s, for -v. */
const char *la_source_decoder_name(const struct la_source *s);

/* input_ahead.c */
/** la_source_fill_peek() : the peek buffer filled with the first decoded bytes. @return 0 or -1. */
int la_source_fill_peek(struct la_source *s);
/** la_source_read_bytes() : the decoded bytes in order: the peek's replay, then the rest. */
ssize_t la_source_read_bytes(struct la_source *s, void *buf, size_t n);
void la_source_ahead_stop(struct la_source *s);

/* input_text.c */
/** la_source_read_text() : up to n bytes of the UTF-16 text, as UTF-8. */
ssize_t la_source_read_text(struct la_source *s, unsigned char *buf, size_t n);
void la_source_text_close(struct la_source *s);

#endif
