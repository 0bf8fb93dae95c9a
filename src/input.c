/* input.c - a byte source: a path or "-", its first bytes read ahead into a
 * peek buffer that tells compressed from plain data, then the format, and
 * that is replayed to the reader, so detection works on pipes too; and what
 * is known of it. The rest is a file each (input_source.h), from the bottom:
 * the decompressors, the decoded bytes in order (the peek, then the
 * decompressor's thread), the text's encoding, the format's detection. */
#include "input_source.h"

#include <errno.h>     /* errno */
#include <fcntl.h>     /* open */
#include <stdio.h>     /* snprintf */
#include <stdlib.h>    /* calloc, free */
#include <string.h>    /* memcpy, strerror, strcmp */
#include <sys/stat.h>  /* fstat */
#include <unistd.h>    /* read, close */

#include "stdin_memory.h" /* standard input continued in the caller's memory */

/* "-" with LABELAUDIT_STDIN_MEMORY set: the bytes go on in that memory. */
static int open_stdin_memory(struct la_source *s, char *err, size_t errlen)
{
    struct la_stdin_memory m;
    int set = la_stdin_memory_from_env(&m, err, errlen);
    if (set <= 0)
        return set;
    s->mem = malloc(sizeof *s->mem);
    if (!s->mem) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *s->mem = m;
    return 0;
}

int la_source_open(const char *path, struct la_source **out, char *err, size_t errlen)
{
    struct la_source *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->path = path;
    s->file_size = -1;
    s->fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY);
    if (s->fd < 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        free(s);
        return -1;
    }
    if (s->fd == 0 && open_stdin_memory(s, err, errlen) != 0) {
        free(s);
        return -1;
    }
    struct stat st;
    if (fstat(s->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "is a directory");
            la_source_close(s);
            return -1;
        }
        if (S_ISREG(st.st_mode))
            s->file_size = (int64_t)st.st_size;
    }
    if (la_source_start_decoder(s) != 0 || la_source_fill_peek(s) != 0) {
        snprintf(err, errlen, "%s", s->err);
        la_source_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

ssize_t la_source_read(struct la_source *s, void *buf, size_t n)
{
    ssize_t got = s->utf16 ? la_source_read_text(s, buf, n) : la_source_read_bytes(s, buf, n);
    if (got > 0)
        s->offset += (uint64_t)got;
    return got;
}

ssize_t la_source_read_full(struct la_source *s, void *buf, size_t n)
{
    size_t have = 0;
    while (have < n) {
        ssize_t got = la_source_read(s, (char *)buf + have, n - have);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        have += (size_t)got;
    }
    return (ssize_t)have;
}

const unsigned char *la_source_peek(struct la_source *s, size_t *len)
{
    *len = s->peek_len;
    return s->peek;
}

uint64_t la_source_offset(const struct la_source *s) { return s->offset; }
int la_source_is_compressed(const struct la_source *s) { return s->codec != LA_CODEC_PLAIN; }
const char *la_source_path(const struct la_source *s) { return s->path; }
const char *la_source_error(const struct la_source *s) { return s->err; }
int64_t la_source_file_size(const struct la_source *s) { return s->file_size; }

/* Byte-exact access (mmap, pread) needs the file's own bytes: not compressed, not transcoded. */
int la_source_plain_fd(const struct la_source *s)
{
    return s->codec == LA_CODEC_PLAIN && !s->utf16 && s->file_size >= 0 ? s->fd : -1;
}

void la_source_read_in_place(struct la_source *s, uint64_t offset)
{
    s->offset = offset;
    if (s->raw_offset < offset)
        s->raw_offset = offset;
}

int64_t la_source_size(const struct la_source *s)
{
    return s->codec != LA_CODEC_PLAIN || s->utf16 ? -1 : s->file_size;
}

void la_source_close(struct la_source *s)
{
    if (!s)
        return;
    la_source_ahead_stop(s);
    la_source_stop_decoder(s);
    free(s->raw);
    la_source_text_close(s);
    if (s->fd > 0)
        close(s->fd);
    free(s->mem);
    free(s);
}
