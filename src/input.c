/* input.c - byte sources (a path or "-"), transparent gunzip, and format sniffing.
 *
 * The first bytes are read ahead into a peek buffer: they tell gzip from
 * plain data, then npy/npz/csv/text, and are replayed to the reader, so
 * detection works on pipes too.
 *
 * Gzip is inflated on a thread of its own once the reader starts pulling
 * (after the peek), a few MiB ahead of it: inflating costs as much as parsing
 * a CSV, so the two overlap on two cores. */
#include "input.h"

#include <errno.h>     /* errno */
#include <fcntl.h>     /* open */
#include <pthread.h>   /* pthread_create, pthread_cond_wait */
#include <stdio.h>     /* snprintf */
#include <stdlib.h>    /* calloc, free */
#include <string.h>    /* memcpy, strerror, strrchr */
#include <strings.h>   /* strcasecmp */
#include <sys/stat.h>  /* fstat */
#include <unistd.h>    /* read, close */
#include <zlib.h>      /* inflate */

#include "ring.h"       /* the inflater hands blocks over */

#define RAW_BUF_LEN (1u << 20)
/* Inflated data waiting for the reader: GZ_SLOTS blocks of GZ_SLOT_LEN bytes. */
#define GZ_SLOTS 4
#define GZ_SLOT_LEN ((size_t)1 << 20)

/* The inflater thread and the blocks it hands over, oldest first. */
struct gz_ahead {
    pthread_t tid;
    struct la_ring ring;
    unsigned char *slot[GZ_SLOTS];
    size_t len[GZ_SLOTS];
    uint64_t raw_end[GZ_SLOTS];  /* compressed bytes read when the block was done */
    int failed;                  /* the inflater stopped on an error, in err */
    size_t pos;                  /* reader's position in its current block */
    uint64_t raw_seen;           /* raw_end of the block the reader is in */
};

struct la_source {
    const char *path;
    int fd;
    int is_gzip;
    int64_t file_size;          /* regular files only, else -1 */
    uint64_t raw_offset;        /* bytes read from fd */
    uint64_t offset;            /* decompressed bytes handed out */
    z_stream z;
    int z_done;                 /* the gzip stream ended (all members) */
    unsigned char *raw;         /* compressed input buffer */
    unsigned char peek[LA_PEEK_LEN];
    size_t peek_len, peek_pos;  /* replay of peek[] before reading on */
    char err[256];
    struct gz_ahead *ahead;     /* gzip after the peek: the inflater thread, else NULL */
};

static ssize_t read_fd(struct la_source *s, void *buf, size_t n)
{
    for (;;) {
        ssize_t got = read(s->fd, buf, n);
        if (got >= 0) {
            s->raw_offset += (uint64_t)got;
            return got;
        }
        if (errno != EINTR) {
            snprintf(s->err, sizeof s->err, "byte %llu: read error: %s",
                     (unsigned long long)s->raw_offset, strerror(errno));
            return -1;
        }
    }
}

/* After the last gzip member only zero padding (tape blocks, dd) may follow,
 * as gzip -d allows; anything else means the file is not what it claims
 * (gzip itself warns "trailing garbage ignored" and exits 2). @return 0 or -1. */
static int check_padding(struct la_source *s)
{
    for (;;) {
        for (uInt i = 0; i < s->z.avail_in; i++) {
            if (s->z.next_in[i] != 0) {
                snprintf(s->err, sizeof s->err, "byte %llu: data after the end of the gzip "
                         "stream (corrupt or concatenated file)",
                         (unsigned long long)(s->raw_offset - s->z.avail_in + i));
                return -1;
            }
        }
        ssize_t got = read_fd(s, s->raw, RAW_BUF_LEN);
        if (got <= 0)
            return got < 0 ? -1 : 0;
        s->z.next_in = s->raw;
        s->z.avail_in = (uInt)got;
    }
}

/* Inflate into buf; concatenated gzip members are read one after another, as gzip -d does. */
static ssize_t read_gzip(struct la_source *s, unsigned char *buf, size_t n)
{
    s->z.next_out = buf;
    s->z.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
    while (s->z.avail_out > 0 && !s->z_done) {
        if (s->z.avail_in == 0) {
            ssize_t got = read_fd(s, s->raw, RAW_BUF_LEN);
            if (got < 0)
                return -1;
            if (got == 0) {
                snprintf(s->err, sizeof s->err,
                         "byte %llu: gzip data ends early (truncated file)",
                         (unsigned long long)s->raw_offset);
                return -1;
            }
            s->z.next_in = s->raw;
            s->z.avail_in = (uInt)got;
        }
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            if (s->z.avail_in == 0) {
                ssize_t got = read_fd(s, s->raw, RAW_BUF_LEN);
                if (got < 0)
                    return -1;
                s->z.next_in = s->raw;
                s->z.avail_in = (uInt)got;
            }
            if (s->z.avail_in == 0 || s->z.next_in[0] != 0x1f) {
                if (check_padding(s) != 0)
                    return -1;
                s->z_done = 1;          /* trailing zeros or nothing: the end */
            } else {
                inflateReset(&s->z);
            }
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(s->err, sizeof s->err, "byte %llu: corrupt gzip data (%s)",
                     (unsigned long long)(s->raw_offset - s->z.avail_in),
                     s->z.msg ? s->z.msg : zError(rc));
            return -1;
        }
    }
    return (ssize_t)(n - s->z.avail_out);
}

static ssize_t read_decoded(struct la_source *s, void *buf, size_t n)
{
    return s->is_gzip ? read_gzip(s, buf, n) : read_fd(s, buf, n);
}

/* Fill the peek buffer with the first decoded bytes. */
static int fill_peek(struct la_source *s)
{
    while (s->peek_len < LA_PEEK_LEN) {
        ssize_t got = read_decoded(s, s->peek + s->peek_len, LA_PEEK_LEN - s->peek_len);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        s->peek_len += (size_t)got;
    }
    return 0;
}

static int detect_gzip(struct la_source *s)
{
    unsigned char magic[2];
    size_t have = 0;
    while (have < 2) {
        ssize_t got = read_fd(s, magic + have, 2 - have);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        have += (size_t)got;
    }
    s->is_gzip = have == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!s->is_gzip) {              /* those bytes are data: replay them */
        memcpy(s->peek, magic, have);
        s->peek_len = have;
        return 0;
    }
    if (!(s->raw = malloc(RAW_BUF_LEN))) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return -1;
    }
    memcpy(s->raw, magic, 2);
    s->z.next_in = s->raw;
    s->z.avail_in = 2;
    if (inflateInit2(&s->z, 15 + 16) != Z_OK) {  /* 16: gzip wrapper */
        snprintf(s->err, sizeof s->err, "cannot start zlib");
        return -1;
    }
    return 0;
}

// ---- gzip read-ahead ------------------------------------------------------------

/* The inflater: fill free blocks until the data ends or fails. It alone
 * touches the zlib stream and raw_offset from now on. */
static void *gz_main(void *arg)
{
    struct la_source *s = arg;
    struct gz_ahead *a = s->ahead;
    long k;
    while ((k = la_ring_wait_free(&a->ring)) >= 0) {
        ssize_t got = read_gzip(s, a->slot[k], GZ_SLOT_LEN);
        if (got <= 0) {
            a->failed = got < 0;
            break;
        }
        a->len[k] = (size_t)got;
        a->raw_end[k] = s->raw_offset;
        la_ring_fill(&a->ring, 1);
    }
    la_ring_fill(&a->ring, 0);
    return NULL;
}

static void gz_stop(struct la_source *s)
{
    struct gz_ahead *a = s->ahead;
    if (!a)
        return;
    la_ring_quit(&a->ring);
    pthread_join(a->tid, NULL);
    for (int i = 0; i < GZ_SLOTS; i++)
        free(a->slot[i]);
    la_ring_destroy(&a->ring);
    free(a);
    s->ahead = NULL;
}

/* Start the inflater. @return 0, or -1 (then the reader inflates inline). */
static int gz_start(struct la_source *s)
{
    struct gz_ahead *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    for (int i = 0; i < GZ_SLOTS; i++)
        if (!(a->slot[i] = malloc(GZ_SLOT_LEN)))
            goto fail;
    la_ring_init(&a->ring, GZ_SLOTS);
    a->raw_seen = s->raw_offset;
    s->ahead = a;
    if (pthread_create(&a->tid, NULL, gz_main, s) == 0)
        return 0;
    s->ahead = NULL;
    la_ring_destroy(&a->ring);
fail:
    for (int i = 0; i < GZ_SLOTS; i++)
        free(a->slot[i]);
    free(a);
    return -1;
}

/* Copy up to n inflated bytes from the blocks the inflater has finished. */
static ssize_t gz_read_ahead(struct la_source *s, unsigned char *buf, size_t n)
{
    struct gz_ahead *a = s->ahead;
    long k = la_ring_wait_filled(&a->ring);
    if (k < 0)
        return a->failed ? -1 : 0;   /* err was written before the ring finished */
    size_t left = a->len[k] - a->pos;
    n = n < left ? n : left;
    memcpy(buf, a->slot[k] + a->pos, n);
    a->pos += n;
    a->raw_seen = a->raw_end[k];
    if (a->pos == a->len[k]) {
        a->pos = 0;
        la_ring_take(&a->ring);
    }
    return (ssize_t)n;
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
    if (detect_gzip(s) != 0 || fill_peek(s) != 0) {
        snprintf(err, errlen, "%s", s->err);
        la_source_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

ssize_t la_source_read(struct la_source *s, void *buf, size_t n)
{
    if (s->peek_pos < s->peek_len) {
        size_t k = s->peek_len - s->peek_pos;
        if (k > n)
            k = n;
        memcpy(buf, s->peek + s->peek_pos, k);
        s->peek_pos += k;
        s->offset += k;
        return (ssize_t)k;
    }
    if (s->is_gzip && !s->ahead && !s->z_done)
        gz_start(s);
    ssize_t got = s->ahead ? gz_read_ahead(s, buf, n) : read_decoded(s, buf, n);
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
int la_source_is_gzip(const struct la_source *s) { return s->is_gzip; }
const char *la_source_path(const struct la_source *s) { return s->path; }
const char *la_source_error(const struct la_source *s) { return s->err; }
int64_t la_source_file_size(const struct la_source *s) { return s->file_size; }
uint64_t la_source_raw_offset(const struct la_source *s)
{
    return s->ahead ? s->ahead->raw_seen : s->raw_offset;
}

int la_source_plain_fd(const struct la_source *s)
{
    return !s->is_gzip && s->file_size >= 0 ? s->fd : -1;
}

int64_t la_source_size(const struct la_source *s)
{
    return s->is_gzip ? -1 : s->file_size;
}

void la_source_close(struct la_source *s)
{
    if (!s)
        return;
    gz_stop(s);
    if (s->raw)
        inflateEnd(&s->z);
    free(s->raw);
    if (s->fd > 0)
        close(s->fd);
    free(s);
}

// ---- format detection ---------------------------------------------------------

/* The name's extension, ignoring a trailing ".gz". */
static const char *format_from_name(const char *path)
{
    char name[4096];
    snprintf(name, sizeof name, "%s", path);
    size_t n = strlen(name);
    if (n > 3 && strcasecmp(name + n - 3, ".gz") == 0)
        name[n - 3] = '\0';
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    static const struct { const char *ext, *format; } table[] = {
        { ".npy", "npy" }, { ".npz", "npz" }, { ".csv", "csv" }, { ".tsv", "tsv" },
        { ".tab", "tsv" }, { ".txt", "text" }, { ".labels", "text" }, { ".raw", "raw" },
        { ".bin", "raw" }, { ".dat", "raw" },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcasecmp(dot, table[i].ext) == 0)
            return table[i].format;
    return NULL;
}

const char *la_detect_format(const char *path, const unsigned char *head, size_t len,
                             const char *forced)
{
    if (forced && strcmp(forced, "auto") != 0)
        return forced;
    if (len >= 6 && memcmp(head, "\x93NUMPY", 6) == 0)
        return "npy";
    if (len >= 4 && memcmp(head, "PK\x03\x04", 4) == 0)
        return "npz";
    const char *by_name = format_from_name(path);
    if (by_name)
        return by_name;
    /* content: a delimiter on the first line makes it a table */
    for (size_t i = 0; i < len && head[i] != '\n'; i++) {
        if (head[i] == '\t')
            return "tsv";
        if (head[i] == ',')
            return "csv";
    }
    return "text";
}
