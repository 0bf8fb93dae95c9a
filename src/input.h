/* input.h - byte sources: a path or "-", gunzipped transparently, and format
 * detection from the first bytes, then the name, then --format.
 *
 * A source hands out the decompressed bytes in order. It keeps the first
 * bytes for sniffing (la_source_peek) and replays them, so detection costs no
 * extra read and works on pipes. */
#ifndef LA_INPUT_H
#define LA_INPUT_H

#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* ssize_t */

#define LA_PEEK_LEN 4096

struct la_source;

/** la_source_open() : open path ("-" is standard input); gzip is detected by
 *  its magic bytes and inflated through zlib as it is read.
 *  @return 0, or -1 with a one-line reason in err (LA_ERR_LEN bytes). */
int la_source_open(const char *path, struct la_source **out, char *err, size_t errlen);

/** la_source_read() : up to n decompressed bytes.
 *  @return bytes read, 0 at the end, -1 on a read or gzip error (see la_source_error). */
ssize_t la_source_read(struct la_source *s, void *buf, size_t n);

/** la_source_read_full() : exactly n bytes unless the input ends first.
 *  @return bytes read (< n only at the end), or -1 on error. */
ssize_t la_source_read_full(struct la_source *s, void *buf, size_t n);

/** la_source_peek() : the first up to LA_PEEK_LEN decompressed bytes, without consuming them. */
const unsigned char *la_source_peek(struct la_source *s, size_t *len);

uint64_t la_source_offset(const struct la_source *s);   /* decompressed bytes consumed */
int la_source_is_gzip(const struct la_source *s);
const char *la_source_path(const struct la_source *s);  /* as given, "-" for stdin */
const char *la_source_error(const struct la_source *s);
/** la_source_size() : the decompressed size when known (a plain regular file), else -1. */
int64_t la_source_size(const struct la_source *s);
/** la_source_file_size() : the on-disk size when known (for progress), else -1. */
int64_t la_source_file_size(const struct la_source *s);
/** la_source_raw_offset() : bytes consumed from the file itself (compressed). */
uint64_t la_source_raw_offset(const struct la_source *s);
/** la_source_plain_fd() : the descriptor of a regular, uncompressed file (for
 *  mmap or pread at absolute offsets; it stays owned by the source), else -1. */
int la_source_plain_fd(const struct la_source *s);
void la_source_close(struct la_source *s);

/** la_detect_format() : "npy", "npz", "csv", "tsv", "text" or "raw".
 *  forced is --format ("auto" or NULL to detect). Magic bytes win, then the
 *  name (a trailing ".gz" is ignored), then the content: a delimiter in the
 *  first line means csv/tsv, else text. */
const char *la_detect_format(const char *path, const unsigned char *head, size_t len,
                             const char *forced);

#endif
