/* input.h - byte sources: a path or "-", decompressed transparently (gzip,
 * xz, bzip2, zstd: by their magic bytes), and format detection from the first
 * bytes, then the options, then the name, then --format.
 *
 * A source hands out the decompressed bytes in order. It keeps the first
 * bytes for sniffing (la_source_peek) and replays them, so detection costs no
 * extra read and works on pipes. For the text formats it also decodes the
 * encoding a byte order mark announces (la_source_text_mode).
 *
 * Implemented by input.c and the input_*.c files beside it, one concern each
 * (input_source.h says which). */
#ifndef LA_INPUT_H
#define LA_INPUT_H

#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* ssize_t */
#include "formats.h"   /* enum la_format */

struct la_report_ctx;

#define LA_PEEK_LEN 4096

struct la_source;

/** la_source_open() : open path ("-" is standard input); gzip, xz, bzip2 and
 *  zstd are detected by their magic bytes and decompressed through zlib,
 *  liblzma, libbz2 and libzstd as the data is read (a decompressor left out
 *  of the build is refused by name).
 *  @return 0, or -1 with a one-line reason in err (LA_ERR_LEN bytes). */
int la_source_open(const char *path, struct la_source **out, char *err, size_t errlen);

/** la_source_read() : up to n decompressed bytes.
 *  @return bytes read, 0 at the end, -1 on a read, decompression or decoding
 *  error (see la_source_error). */
ssize_t la_source_read(struct la_source *s, void *buf, size_t n);

/** la_source_read_full() : exactly n bytes unless the input ends first.
 *  @return bytes read (< n only at the end), or -1 on error. */
ssize_t la_source_read_full(struct la_source *s, void *buf, size_t n);

/** la_source_peek() : the first up to LA_PEEK_LEN decompressed bytes, without consuming them. */
const unsigned char *la_source_peek(struct la_source *s, size_t *len);

uint64_t la_source_offset(const struct la_source *s);   /* decompressed bytes consumed */
/** la_source_is_compressed() : the bytes come through a decompressor (any of them). */
int la_source_is_compressed(const struct la_source *s);
/** la_source_text_mode() : for the text formats (csv, tsv, text), before the
 *  first read: skip a UTF-8 byte order mark, and decode UTF-16 text that
 *  starts with a UTF-16 byte order mark into UTF-8 as it is read (PowerShell
 *  5.1's `>` writes UTF-16LE). Does nothing once bytes were read, so calling it
 *  twice is harmless. @return 0, or -1 with a one-line reason in err. */
int la_source_text_mode(struct la_source *s, char *err, size_t errlen);
const char *la_source_path(const struct la_source *s);  /* as given, "-" for stdin */
const char *la_source_error(const struct la_source *s);
/** la_source_size() : the decompressed size when known (a plain regular file), else -1. */
int64_t la_source_size(const struct la_source *s);
/** la_source_file_size() : the on-disk size when known (for progress), else -1. */
int64_t la_source_file_size(const struct la_source *s);
/** la_source_raw_offset() : bytes consumed from the file itself (compressed). */
uint64_t la_source_raw_offset(const struct la_source *s);
/** la_source_ahead_inline() : compressed input decompressed on a thread of
 *  its own hands that thread back to the -j budget, for a reader that
 *  parses on two threads and has none left for its helper: from now on the
 *  bytes are decompressed on the threads that read them, ahead of the
 *  reads by la_source_prefetch(). @return 1 when a thread was given back. */
int la_source_ahead_inline(struct la_source *s);
/** la_source_prefetch() : with the decompression inline (no thread could
 *  start, or la_source_ahead_inline), decompress until want bytes wait
 *  ahead of the reads (4 MiB at most); else nothing. On any thread, but
 *  never at once with another call on s (a task beside the parse of bytes
 *  already read). */
void la_source_prefetch(struct la_source *s, size_t want);
/** la_source_prefetches() : whether la_source_prefetch() has work to do. */
int la_source_prefetches(const struct la_source *s);
/** la_source_plain_fd() : the descriptor of a regular, uncompressed file (for
 *  mmap or pread at absolute offsets; it stays owned by the source), else -1. */
int la_source_plain_fd(const struct la_source *s);
/** la_source_read_in_place() : a reader that reads the plain file behind s
 *  in place (mmap at la_source_plain_fd) says it has read up to file byte
 *  offset, so that --progress and la_source_offset() follow it. It must not
 *  call la_source_read() after. */
void la_source_read_in_place(struct la_source *s, uint64_t offset);
void la_source_close(struct la_source *s);

/** la_source_format() : the format to read s as, for --format and the other
 *  options in the report's ctx: la_detect_format, except that with --format=auto the
 *  CSV options (-d, -c, --header, --no-header) imply a table (tsv for a tab
 *  delimiter, or without -d for a .tsv name or a tab on the first line, else
 *  csv) and --dtype/--endian imply raw, over the name and the content
 *  (both kinds at once imply nothing: each file is detected as usual). Magic
 *  bytes still win: a .npy or .npz carries its own layout. A zip archive that
 *  is not an npz is refused, and so is a format this build lacks. For the
 *  text formats (LA_FMTF_TEXT) it calls la_source_text_mode.
 *  @return the format, or LA_FMT_NONE with a reason in err. */
enum la_format la_source_format(struct la_source *s, const struct la_report_ctx *ctx,
                                char *err, size_t errlen);

/** la_detect_format() : forced (--format) unless LA_FMT_AUTO; else the
 *  format whose magic bytes head has (formats.c's table), then the name's
 *  extension (a compression suffix ignored), then the content: a delimiter in
 *  the first line means csv/tsv, else text. LA_FMT_NONE for a zip archive
 *  no format claims. */
enum la_format la_detect_format(const char *path, const unsigned char *head, size_t len,
                                enum la_format forced);

#endif
