/* input.c - byte sources (a path or "-"), transparent decompression (gzip,
 * xz, bzip2, zstd), the text formats' byte order marks (UTF-16 decoded), and
 * format sniffing.
 *
 * The first bytes are read ahead into a peek buffer: they tell compressed
 * from plain data, then npy/npz/csv/text, and are replayed to the reader, so
 * detection works on pipes too.
 *
 * Compressed data is decompressed on a thread of its own once the reader
 * starts pulling (after the peek), a few MiB ahead of it: inflating costs as
 * much as parsing a CSV, so the two overlap on two cores. Where -j leaves no
 * thread for it, or a CSV parse on two threads needs that thread more
 * (la_source_ahead_inline), it is decompressed inline, ahead of the reads
 * by la_source_prefetch(), which the parse runs as a task beside its own. */
#include "config.h"     /* HAVE_LZMA, HAVE_BZIP2, HAVE_ZSTD, HAVE_ISAL */
#include "input.h"
#include "reader_options.h" /* la_read_options_implied */
#include "stdin_memory.h" /* standard input continued in the caller's memory */

#include <errno.h>     /* errno */
#include <fcntl.h>     /* open */
#include <iconv.h>     /* iconv: UTF-16 text to UTF-8 */
#include <pthread.h>   /* pthread_create, pthread_cond_wait */
#include <stdio.h>     /* snprintf */
#include <stdlib.h>    /* calloc, free */
#include <string.h>    /* memcpy, strerror, strrchr */
#include <sys/stat.h>  /* fstat */
#include <unistd.h>    /* read, close */
#include <zlib.h>      /* inflate */
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h> /* isal_inflate: gzip, faster than zlib */
#endif
#ifdef HAVE_LZMA
#include <lzma.h>      /* lzma_stream_decoder: .xz */
#endif
#ifdef HAVE_BZIP2
#include <bzlib.h>     /* BZ2_bzDecompress: .bz2 */
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>      /* ZSTD_decompressStream: .zst */
#endif

#include "msg.h"        /* la_verbose: -v says which path read the file */
#include "pool.h"       /* la_thread_create: the decompressor is one of -j */
#include "context.h" /* the report's --format and the options that imply one */
#include "reader.h"     /* la_reader_for_format: is a detected format built in */
#include "ring.h"       /* the decompressor hands blocks over */

#define RAW_BUF_LEN (1u << 20)
/* Decompressed data waiting for the reader: AHEAD_SLOTS blocks of AHEAD_SLOT_LEN bytes. */
#define AHEAD_SLOTS 4
#define AHEAD_SLOT_LEN ((size_t)1 << 20)
/* The first bytes read decide the compression: bzip2's magic is the longest. */
#define MAGIC_LEN 10
/* A hostile .xz header may ask for a 4 GiB dictionary; xz -9 needs 65 MiB. */
#define XZ_MEMLIMIT ((uint64_t)256 << 20)
#define TEXT_IN_LEN ((size_t)64 << 10)
#define TEXT_OUT_LEN ((size_t)3 * TEXT_IN_LEN)   /* a 2-byte UTF-16 unit: <= 3 UTF-8 bytes */

enum codec { C_PLAIN, C_GZIP, C_XZ, C_BZIP2, C_ZSTD };

/* Each compressed format: its name in messages, the library that reads it
 * and the command that undoes it (for a build without that library). */
static const struct codec_info {
    const char *name, *library, *command;
    int built;
} codecs[] = {
    [C_PLAIN] = { "plain", "", "", 1 },
    [C_GZIP] = { "gzip", "zlib", "gzip -d", 1 },   /* or ISA-L: decoder_name */
#ifdef HAVE_LZMA
    [C_XZ] = { "xz", "liblzma", "xz -d", 1 },
#else
    [C_XZ] = { "xz", "liblzma", "xz -d", 0 },
#endif
#ifdef HAVE_BZIP2
    [C_BZIP2] = { "bzip2", "libbz2", "bzip2 -d", 1 },
#else
    [C_BZIP2] = { "bzip2", "libbz2", "bzip2 -d", 0 },
#endif
#ifdef HAVE_ZSTD
    [C_ZSTD] = { "zstd", "libzstd", "zstd -d", 1 },
#else
    [C_ZSTD] = { "zstd", "libzstd", "zstd -d", 0 },
#endif
};

/* The decompressor thread and the blocks it hands over, oldest first; or,
 * inline (no thread, or its thread handed to the parse), the blocks that
 * la_source_prefetch() decompressed ahead on the reader's threads. */
struct ahead {
    pthread_t tid;
    struct la_ring ring;
    unsigned char *slot[AHEAD_SLOTS];
    size_t len[AHEAD_SLOTS];
    uint64_t raw_end[AHEAD_SLOTS];  /* compressed bytes read when the block was done */
    int failed;                     /* the decompressor stopped on an error, in err */
    int finished;                   /* the thread met the end or an error (not a quit) */
    size_t pos;                     /* reader's position in its current block */
    uint64_t raw_seen;              /* raw_end of the block the reader is in */
    int inline_mode;                /* no thread: the fields below count the blocks */
    uint64_t filled, taken;         /* inline: blocks decompressed ahead; blocks read */
    size_t bytes;                   /* inline: decompressed bytes waiting in them */
    int ended;                      /* inline: the data ended or failed */
};

/* UTF-16 text being decoded into UTF-8 (la_source_text_mode). */
struct utf16_text {
    iconv_t cd;
    char in[TEXT_IN_LEN];           /* UTF-16 bytes not decoded yet */
    size_t in_len;
    char out[TEXT_OUT_LEN];         /* UTF-8 not handed out yet */
    size_t out_pos, out_len;
    uint64_t decoded;               /* UTF-16 bytes decoded, the BOM included */
    int eof;                        /* no more UTF-16 bytes */
    int failed;                     /* err holds why; after out[] is handed out */
};

struct la_source {
    const char *path;
    int fd;
    enum codec codec;
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
    struct utf16_text *utf16;   /* UTF-16 text decoded to UTF-8, else NULL */
    struct la_stdin_memory *mem; /* "-": the bytes after standard input's end, else NULL */
};

static ssize_t read_fd(struct la_source *s, void *buf, size_t n)
{
    for (;;) {
        ssize_t got = read(s->fd, buf, n);
        if (got == 0 && s->mem) {       /* the rest lies in the caller's memory */
            got = la_stdin_memory_read(s->mem, buf, n, s->err, sizeof s->err);
            if (got < 0)
                return -1;
        }
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
static int check_padding(struct la_source *s, const unsigned char *in, size_t in_left)
{
    for (;;) {
        for (size_t i = 0; i < in_left; i++) {
            if (in[i] != 0) {
                snprintf(s->err, sizeof s->err, "byte %llu: data after the end of the gzip "
                         "stream (corrupt or concatenated file)",
                         (unsigned long long)(s->raw_offset - in_left + i));
                return -1;
            }
        }
        ssize_t got = read_fd(s, s->raw, RAW_BUF_LEN);
        if (got <= 0)
            return got < 0 ? -1 : 0;
        in = s->raw;
        in_left = (size_t)got;
    }
}

/* Inflate into buf; concatenated gzip members are read one after another, as gzip -d does. */
static ssize_t read_gzip(struct la_source *s, unsigned char *buf, size_t n)
{
    s->z.next_out = buf;
    s->z.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
    while (s->z.avail_out > 0 && !s->dec_done) {
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
                if (check_padding(s, s->z.next_in, s->z.avail_in) != 0)
                    return -1;
                s->dec_done = 1;          /* trailing zeros or nothing: the end */
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

// ---- ISA-L's gzip, xz, bzip2, zstd: the compressed bytes in s->in, refilled from the file
#if defined HAVE_ISAL || defined HAVE_LZMA || defined HAVE_BZIP2 || defined HAVE_ZSTD

/* Read the next compressed bytes. @return 0 (in_eof set at the end), -1 on error. */
static int refill_input(struct la_source *s)
{
    ssize_t got = read_fd(s, s->raw, RAW_BUF_LEN);
    if (got < 0)
        return -1;
    s->in = s->raw;
    s->in_left = (size_t)got;
    s->in_eof = got == 0;
    return 0;
}

/* The position of the next compressed byte, for messages. */
static unsigned long long input_byte(const struct la_source *s)
{
    return (unsigned long long)(s->raw_offset - s->in_left);
}

static ssize_t ends_early(struct la_source *s)
{
    snprintf(s->err, sizeof s->err, "byte %llu: %s data ends early (truncated file)",
             input_byte(s), codecs[s->codec].name);
    return -1;
}

static ssize_t corrupt(struct la_source *s, const char *why)
{
    snprintf(s->err, sizeof s->err, "byte %llu: corrupt %s data (%s)", input_byte(s),
             codecs[s->codec].name, why);
    return -1;
}

/* One step of every decoder below: more input when it is used up.
 * @return 0, or -1 on a read error. */
static int want_input(struct la_source *s)
{
    return s->in_left == 0 && !s->in_eof ? refill_input(s) : 0;
}
#endif

#ifdef HAVE_ISAL
/* ISA-L's codes in zlib's words (zlib_diagnosis gives zlib's own where it can). */
static const char *isal_reason(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data or length check";
    default: return "compressed data is corrupt";
    }
}

static int start_isal(struct la_source *s)
{
    if (!(s->isal = malloc(sizeof *s->isal)))
        return -1;
    isal_inflate_init(s->isal);
    s->isal->crc_flag = ISAL_GZIP;      /* it reads the header and checks the trailer */
    return 0;
}

/* What the zlib path says of data ISA-L refused: ISA-L reads its input ahead
 * in words, so neither its byte nor its codes are zlib's. A regular file
 * (standard input too, when it is one) is inflated again from where it
 * started by read_gzip, so the message is the same on either path, byte and
 * all (every byte of fd went through read_fd, so it started raw_offset
 * before where it stands). A pipe cannot be read twice: ISA-L's message then.
 * @return -1 with s->err set. */
static ssize_t zlib_diagnosis(struct la_source *s, int rc)
{
    unsigned char *sink = NULL;
    off_t now = s->file_size >= 0 ? lseek(s->fd, 0, SEEK_CUR) : -1;
    off_t start = now - (off_t)s->raw_offset;
    if (now >= 0 && start >= 0 && lseek(s->fd, start, SEEK_SET) == start
        && inflateInit2(&s->z, 15 + 16) == Z_OK) {
        s->raw_offset = 0;
        s->z.avail_in = 0;
        ssize_t got = (sink = malloc(RAW_BUF_LEN)) ? 1 : 0;
        while (got > 0)
            got = read_gzip(s, sink, RAW_BUF_LEN);
        free(sink);
        inflateEnd(&s->z);
        if (got < 0)
            return -1;
    }
    return corrupt(s, isal_reason(rc));
}

/* A member ended: the next one, or zero padding up to the end of the file,
 * as read_gzip has it. @return 0, or -1 with s->err set. */
static int isal_member_end(struct la_source *s)
{
    if (want_input(s) != 0)
        return -1;
    if (s->in_left > 0 && s->in[0] == 0x1f) {
        isal_inflate_reset(s->isal);
        s->isal->crc_flag = ISAL_GZIP;
        return 0;
    }
    s->dec_done = 1;
    return check_padding(s, s->in, s->in_left);
}

/* Inflate into buf through ISA-L; members and padding as read_gzip reads them. */
static ssize_t read_gzip_isal(struct la_source *s, unsigned char *buf, size_t n)
{
    struct inflate_state *st = s->isal;
    size_t done = 0;
    while (done < n && !s->dec_done) {
        if (want_input(s) != 0)
            return -1;
        if (s->in_left == 0)
            return ends_early(s);
        st->next_in = (uint8_t *)s->in;
        st->avail_in = (uint32_t)(s->in_left > UINT32_MAX ? UINT32_MAX : s->in_left);
        st->next_out = buf + done;
        st->avail_out = (uint32_t)(n - done > UINT32_MAX ? UINT32_MAX : n - done);
        uint32_t in_before = st->avail_in, out_before = st->avail_out;
        int rc = isal_inflate(st);
        s->in += in_before - st->avail_in;
        s->in_left -= in_before - st->avail_in;
        done += out_before - st->avail_out;
        if (rc < 0 || rc == ISAL_NEED_DICT)
            return zlib_diagnosis(s, rc);
        if (st->block_state == ISAL_BLOCK_FINISH && isal_member_end(s) != 0)
            return -1;
    }
    return (ssize_t)done;
}
#endif

#ifdef HAVE_LZMA
static const char *xz_reason(lzma_ret rc)
{
    switch (rc) {
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR: return "it needs more than 256 MiB of memory to decompress";
    case LZMA_FORMAT_ERROR: return "not in the .xz format";
    case LZMA_OPTIONS_ERROR: return "unsupported options";
    default: return "compressed data is corrupt";
    }
}

/* Concatenated .xz streams and their zero padding are read as xz -d does. */
static ssize_t read_xz(struct la_source *s, unsigned char *buf, size_t n)
{
    s->xz.next_out = buf;
    s->xz.avail_out = n;
    while (s->xz.avail_out > 0 && !s->dec_done) {
        if (want_input(s) != 0)
            return -1;
        s->xz.next_in = s->in;
        s->xz.avail_in = s->in_left;
        lzma_ret rc = lzma_code(&s->xz, s->in_eof ? LZMA_FINISH : LZMA_RUN);
        s->in = s->xz.next_in;
        s->in_left = s->xz.avail_in;
        if (rc == LZMA_STREAM_END)
            s->dec_done = 1;
        else if (rc == LZMA_BUF_ERROR && s->in_eof)
            return ends_early(s);
        else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR)
            return corrupt(s, xz_reason(rc));
    }
    return (ssize_t)(n - s->xz.avail_out);
}

static int start_xz(struct la_source *s)
{
    lzma_stream fresh = LZMA_STREAM_INIT;
    s->xz = fresh;
    return lzma_stream_decoder(&s->xz, XZ_MEMLIMIT, LZMA_CONCATENATED) == LZMA_OK ? 0 : -1;
}
#endif

#ifdef HAVE_BZIP2
static const char *bz_reason(int rc)
{
    switch (rc) {
    case BZ_MEM_ERROR: return "out of memory";
    case BZ_DATA_ERROR_MAGIC: return "not bzip2 data";
    default: return "compressed data is corrupt";
    }
}

static int start_bz2(struct la_source *s)
{
    memset(&s->bz, 0, sizeof s->bz);
    s->bz_live = BZ2_bzDecompressInit(&s->bz, 0, 0) == BZ_OK;
    return s->bz_live ? 0 : -1;
}

/* After a stream's end: the next stream (bzip2 -d reads concatenated ones, as
 * pbzip2 writes them), or the end of the file. @return 0 or -1. */
static int bz2_next_stream(struct la_source *s)
{
    if (want_input(s) != 0)
        return -1;
    if (s->in_left == 0) {
        s->dec_done = 1;
        return 0;
    }
    char *next_out = s->bz.next_out;        /* the caller's buffer, partly filled */
    unsigned avail_out = s->bz.avail_out;
    BZ2_bzDecompressEnd(&s->bz);
    if (start_bz2(s) != 0)
        return (int)corrupt(s, "cannot restart the decoder");
    s->bz.next_out = next_out;
    s->bz.avail_out = avail_out;
    return 0;
}

static ssize_t read_bz2(struct la_source *s, unsigned char *buf, size_t n)
{
    s->bz.next_out = (char *)buf;
    s->bz.avail_out = (unsigned)(n > UINT32_MAX ? UINT32_MAX : n);
    size_t cap = s->bz.avail_out;
    while (s->bz.avail_out > 0 && !s->dec_done) {
        if (want_input(s) != 0)
            return -1;
        unsigned before = s->bz.avail_out;
        s->bz.next_in = (char *)s->in;
        s->bz.avail_in = (unsigned)(s->in_left > UINT32_MAX ? UINT32_MAX : s->in_left);
        size_t offered = s->bz.avail_in;
        int rc = BZ2_bzDecompress(&s->bz);
        s->in += offered - s->bz.avail_in;
        s->in_left -= offered - s->bz.avail_in;
        if (rc == BZ_STREAM_END) {
            if (bz2_next_stream(s) != 0)
                return -1;
        } else if (rc != BZ_OK) {
            return corrupt(s, bz_reason(rc));
        } else if (s->in_eof && s->in_left == 0 && s->bz.avail_out == before) {
            return ends_early(s);
        }
    }
    return (ssize_t)(cap - s->bz.avail_out);
}
#endif

#ifdef HAVE_ZSTD
/* Frames follow one another (zstd -d reads concatenated ones); the data may
 * end only between two frames. */
static ssize_t read_zstd(struct la_source *s, unsigned char *buf, size_t n)
{
    ZSTD_outBuffer out = { buf, n, 0 };
    while (out.pos < out.size && !s->dec_done) {
        if (want_input(s) != 0)
            return -1;
        if (s->in_eof && s->in_left == 0 && s->zstd_hint == 0) {
            s->dec_done = 1;
            break;
        }
        size_t before = out.pos;
        ZSTD_inBuffer in = { s->in, s->in_left, 0 };
        size_t rc = ZSTD_decompressStream(s->zstd, &out, &in);
        s->in += in.pos;
        s->in_left -= in.pos;
        if (ZSTD_isError(rc))
            return corrupt(s, ZSTD_getErrorName(rc));
        s->zstd_hint = rc;
        if (s->in_eof && s->in_left == 0 && rc != 0 && out.pos == before)
            return ends_early(s);
    }
    return (ssize_t)out.pos;
}

static int start_zstd(struct la_source *s)
{
    if (!(s->zstd = ZSTD_createDStream()))
        return -1;
    s->zstd_hint = 0;
    return ZSTD_isError(ZSTD_initDStream(s->zstd)) ? -1 : 0;
}
#endif

/* The library decompressing s, for -v. */
static const char *decoder_name(const struct la_source *s)
{
#ifdef HAVE_ISAL
    if (s->isal)
        return "ISA-L";
#endif
    return codecs[s->codec].library;
}

static ssize_t read_decompressed(struct la_source *s, unsigned char *buf, size_t n)
{
    switch (s->codec) {
#ifdef HAVE_ISAL
    case C_GZIP: return s->isal ? read_gzip_isal(s, buf, n) : read_gzip(s, buf, n);
#else
    case C_GZIP: return read_gzip(s, buf, n);
#endif
#ifdef HAVE_LZMA
    case C_XZ: return read_xz(s, buf, n);
#endif
#ifdef HAVE_BZIP2
    case C_BZIP2: return read_bz2(s, buf, n);
#endif
#ifdef HAVE_ZSTD
    case C_ZSTD: return read_zstd(s, buf, n);
#endif
    default: return read_fd(s, buf, n);
    }
}

/* Fill the peek buffer with the first decoded bytes. */
static int fill_peek(struct la_source *s)
{
    while (s->peek_len < LA_PEEK_LEN) {
        ssize_t got = read_decompressed(s, s->peek + s->peek_len, LA_PEEK_LEN - s->peek_len);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        s->peek_len += (size_t)got;
    }
    return 0;
}

// ---- which compression: the magic bytes

static enum codec codec_of(const unsigned char *m, size_t n)
{
    static const unsigned char xz[6] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
    static const unsigned char zstd[4] = { 0x28, 0xB5, 0x2F, 0xFD };
    /* bzip2: "BZh", the block size '1'..'9', then a block's or the end's magic */
    static const unsigned char bz_block[6] = { 0x31, 0x41, 0x59, 0x26, 0x53, 0x59 };
    static const unsigned char bz_end[6] = { 0x17, 0x72, 0x45, 0x38, 0x50, 0x90 };
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        return C_GZIP;
    if (n >= 6 && memcmp(m, xz, 6) == 0)
        return C_XZ;
    if (n >= 4 && (memcmp(m, zstd, 4) == 0                    /* a frame, or a skippable one */
                   || ((m[0] & 0xF0) == 0x50 && m[1] == 0x2A && m[2] == 0x4D && m[3] == 0x18)))
        return C_ZSTD;
    if (n >= 10 && memcmp(m, "BZh", 3) == 0 && m[3] >= '1' && m[3] <= '9'
        && (memcmp(m + 4, bz_block, 6) == 0 || memcmp(m + 4, bz_end, 6) == 0))
        return C_BZIP2;
    return C_PLAIN;
}

static int start_decoder(struct la_source *s)
{
    switch (s->codec) {
    case C_GZIP:
#ifdef HAVE_ISAL
        if (!getenv("LABELAUDIT_GZIP_ZLIB"))   /* tests: the zlib path too */
            return start_isal(s);
#endif
        s->z.next_in = s->raw;
        s->z.avail_in = (uInt)s->in_left;
        s->in_left = 0;
        return inflateInit2(&s->z, 15 + 16) == Z_OK ? 0 : -1;   /* 16: gzip wrapper */
#ifdef HAVE_LZMA
    case C_XZ: return start_xz(s);
#endif
#ifdef HAVE_BZIP2
    case C_BZIP2: return start_bz2(s);
#endif
#ifdef HAVE_ZSTD
    case C_ZSTD: return start_zstd(s);
#endif
    default: return -1;
    }
}

/* Read the first bytes and start the decompressor they call for (or replay
 * them as plain data). @return 0, or -1 with s->err set. */
static int detect_compression(struct la_source *s)
{
    unsigned char magic[MAGIC_LEN];
    size_t have = 0;
    while (have < MAGIC_LEN) {
        ssize_t got = read_fd(s, magic + have, MAGIC_LEN - have);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        have += (size_t)got;
    }
    s->codec = codec_of(magic, have);
    if (s->codec == C_PLAIN) {          /* those bytes are data: replay them */
        memcpy(s->peek, magic, have);
        s->peek_len = have;
        return 0;
    }
    const struct codec_info *c = &codecs[s->codec];
    if (!c->built) {
        snprintf(s->err, sizeof s->err, "%s-compressed, but this labelaudit was built without "
                 "%s: decompress it first (%s)", c->name, c->library, c->command);
        return -1;
    }
    if (!(s->raw = malloc(RAW_BUF_LEN))) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return -1;
    }
    memcpy(s->raw, magic, have);
    s->in = s->raw;
    s->in_left = have;
    if (start_decoder(s) != 0) {
        snprintf(s->err, sizeof s->err, "cannot start %s", c->library);
        return -1;
    }
    return 0;
}

static void stop_decoder(struct la_source *s)
{
    if (!s->raw)
        return;
    switch (s->codec) {
    case C_GZIP:
        inflateEnd(&s->z);          /* nothing to end when ISA-L inflated: z never started */
#ifdef HAVE_ISAL
        free(s->isal);
#endif
        break;
#ifdef HAVE_LZMA
    case C_XZ: lzma_end(&s->xz); break;
#endif
#ifdef HAVE_BZIP2
    case C_BZIP2: if (s->bz_live) BZ2_bzDecompressEnd(&s->bz); break;
#endif
#ifdef HAVE_ZSTD
    case C_ZSTD: ZSTD_freeDStream(s->zstd); break;
#endif
    default: break;
    }
}

// ---- decompression read-ahead ----------------------------------------------------

/* The decompressor: fill free blocks until the data ends or fails. It alone
 * touches the decoder's stream and raw_offset from now on. */
static void *ahead_main(void *arg)
{
    struct la_source *s = arg;
    struct ahead *a = s->ahead;
    long k;
    while ((k = la_ring_wait_free(&a->ring)) >= 0) {
        ssize_t got = read_decompressed(s, a->slot[k], AHEAD_SLOT_LEN);
        if (got <= 0) {
            a->failed = got < 0;
            a->finished = 1;
            break;
        }
        a->len[k] = (size_t)got;
        a->raw_end[k] = s->raw_offset;
        la_ring_fill(&a->ring, 1);
    }
    la_ring_fill(&a->ring, 0);
    return NULL;
}

static void ahead_stop(struct la_source *s)
{
    struct ahead *a = s->ahead;
    if (!a)
        return;
    if (!a->inline_mode) {
        la_ring_quit(&a->ring);
        la_thread_join(a->tid);
    }
    for (int i = 0; i < AHEAD_SLOTS; i++)
        free(a->slot[i]);
    la_ring_destroy(&a->ring);
    free(a);
    s->ahead = NULL;
}

/* Start the decompressor thread, or, when none can start, decompress inline
 * (la_source_prefetch). @return 0, or -1 when out of memory (then the reader
 * decompresses inline, nothing ahead). */
static int ahead_start(struct la_source *s)
{
    struct ahead *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    for (int i = 0; i < AHEAD_SLOTS; i++)
        if (!(a->slot[i] = malloc(AHEAD_SLOT_LEN)))
            goto fail;
    la_ring_init(&a->ring, AHEAD_SLOTS);
    a->raw_seen = s->raw_offset;
    s->ahead = a;
    if (la_thread_create(&a->tid, ahead_main, s) == 0) {
        la_verbose(s->path, "%s: decompressed ahead on a thread of its own",
                   codecs[s->codec].name);
        return 0;
    }
    a->inline_mode = 1;
    la_verbose(s->path, "%s: no thread could start: decompressed inline", codecs[s->codec].name);
    return 0;
fail:
    for (int i = 0; i < AHEAD_SLOTS; i++)
        free(a->slot[i]);
    free(a);
    return -1;
}

/* Inline: up to n bytes from the blocks decompressed ahead, or, when none
 * waits, decompressed straight into buf. */
static ssize_t read_inline(struct la_source *s, unsigned char *buf, size_t n)
{
    struct ahead *a = s->ahead;
    if (a->taken == a->filled) {
        if (a->ended)
            return a->failed ? -1 : 0;
        ssize_t got = read_decompressed(s, buf, n);
        a->raw_seen = s->raw_offset;
        if (got <= 0) {
            a->ended = 1;
            a->failed = got < 0;
        }
        return got;
    }
    long k = (long)(a->taken % AHEAD_SLOTS);
    size_t left = a->len[k] - a->pos;
    n = n < left ? n : left;
    memcpy(buf, a->slot[k] + a->pos, n);
    a->pos += n;
    a->bytes -= n;
    a->raw_seen = a->raw_end[k];
    if (a->pos == a->len[k]) {
        a->pos = 0;
        a->taken++;
    }
    return (ssize_t)n;
}

void la_source_prefetch(struct la_source *s, size_t want)
{
    struct ahead *a = s->ahead;
    if (!a || !a->inline_mode)
        return;
    while (!a->ended && a->filled - a->taken < AHEAD_SLOTS && a->bytes < want) {
        long k = (long)(a->filled % AHEAD_SLOTS);
        ssize_t got = read_decompressed(s, a->slot[k], AHEAD_SLOT_LEN);
        if (got <= 0) {
            a->ended = 1;
            a->failed = got < 0;
            break;
        }
        a->len[k] = (size_t)got;
        a->raw_end[k] = s->raw_offset;
        a->filled++;
        a->bytes += (size_t)got;
    }
}

int la_source_prefetches(const struct la_source *s)
{
    return s->ahead && s->ahead->inline_mode && !s->ahead->ended;
}

int la_source_ahead_inline(struct la_source *s)
{
    struct ahead *a = s->ahead;
    if (!a || a->inline_mode)
        return 0;
    la_ring_quit(&a->ring);
    la_thread_join(a->tid);          /* given back to the -j budget */
    /* the thread is gone: its ring's counts and blocks are this thread's now */
    a->filled = a->ring.filled;
    a->taken = a->ring.taken;
    a->ended = a->finished;
    a->bytes = 0;
    for (uint64_t b = a->taken; b < a->filled; b++)
        a->bytes += a->len[b % AHEAD_SLOTS];
    a->bytes -= a->pos;
    a->inline_mode = 1;
    la_verbose(s->path, "%s: the decompressor's thread goes to the parse, which decompresses "
               "ahead between its pieces", codecs[s->codec].name);
    return 1;
}

/* Copy up to n decompressed bytes from the blocks the thread has finished. */
static ssize_t read_ahead(struct la_source *s, unsigned char *buf, size_t n)
{
    struct ahead *a = s->ahead;
    if (a->inline_mode)
        return read_inline(s, buf, n);
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

/* The decompressed bytes in order: the peek's replay, then the rest. */
static ssize_t read_bytes(struct la_source *s, void *buf, size_t n)
{
    if (s->peek_pos < s->peek_len) {
        size_t k = s->peek_len - s->peek_pos;
        if (k > n)
            k = n;
        memcpy(buf, s->peek + s->peek_pos, k);
        s->peek_pos += k;
        return (ssize_t)k;
    }
    if (s->codec != C_PLAIN && !s->ahead_tried && !s->dec_done) {
        s->ahead_tried = 1;          /* once: each try allocates the blocks afresh */
        ahead_start(s);
    }
    return s->ahead ? read_ahead(s, buf, n) : read_decompressed(s, buf, n);
}

// ---- UTF-16 text: decoded to UTF-8 behind the decompression

/* Decode the next UTF-16 bytes into u->out. @return 0, or -1 at a read error. */
static int decode_utf16(struct la_source *s, struct utf16_text *u)
{
    if (!u->eof && u->in_len < TEXT_IN_LEN) {
        ssize_t got = read_bytes(s, u->in + u->in_len, TEXT_IN_LEN - u->in_len);
        if (got < 0)
            return -1;
        u->eof = got == 0;
        u->in_len += (size_t)got;
    }
    char *in = u->in, *out = u->out;
    size_t in_left = u->in_len, out_left = TEXT_OUT_LEN;
    size_t rc = iconv(u->cd, &in, &in_left, &out, &out_left);
    int why = errno;
    u->decoded += u->in_len - in_left;
    memmove(u->in, in, in_left);
    u->in_len = in_left;
    u->out_pos = 0;
    u->out_len = TEXT_OUT_LEN - out_left;
    if (rc == (size_t)-1 && why == EILSEQ) {
        snprintf(s->err, sizeof s->err, "byte %llu: invalid UTF-16 text (an unpaired surrogate)",
                 (unsigned long long)u->decoded);
        u->failed = 1;
    } else if (u->eof && u->in_len > 0) {      /* EINVAL: a unit or a pair cut short */
        snprintf(s->err, sizeof s->err, "byte %llu: UTF-16 text ends inside a character",
                 (unsigned long long)u->decoded);
        u->failed = 1;
    }
    return 0;
}

static ssize_t read_utf16(struct la_source *s, struct utf16_text *u, unsigned char *buf, size_t n)
{
    while (u->out_pos == u->out_len) {
        if (u->failed)
            return -1;
        if (u->eof && u->in_len == 0)
            return 0;
        if (decode_utf16(s, u) != 0)
            return -1;
    }
    size_t k = u->out_len - u->out_pos;
    if (k > n)
        k = n;
    memcpy(buf, u->out + u->out_pos, k);
    u->out_pos += k;
    return (ssize_t)k;
}

/* Start decoding UTF-16 in the given byte order ("UTF-16LE"/"UTF-16BE"), its BOM skipped. */
static int start_utf16(struct la_source *s, const char *encoding, char *err, size_t errlen)
{
    struct utf16_text *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    u->cd = iconv_open("UTF-8", encoding);
    if (u->cd == (iconv_t)-1) {
        snprintf(err, errlen, "%s text: this system cannot decode it; re-save it as UTF-8", encoding);
        free(u);
        return -1;
    }
    u->decoded = 2;
    s->peek_pos = 2;
    s->utf16 = u;
    la_verbose(s->path, "%s text (byte order mark): decoded to UTF-8 by iconv", encoding);
    return 0;
}

int la_source_text_mode(struct la_source *s, char *err, size_t errlen)
{
    if (s->text_mode_set || s->offset > 0 || s->peek_pos > 0)
        return 0;
    s->text_mode_set = 1;
    const unsigned char *p = s->peek;
    size_t n = s->peek_len;
    if (n >= 4 && ((p[0] == 0xFF && p[1] == 0xFE && p[2] == 0 && p[3] == 0)
                   || (p[0] == 0 && p[1] == 0 && p[2] == 0xFE && p[3] == 0xFF))) {
        snprintf(err, errlen, "UTF-32 text: re-save it as UTF-8");
        return -1;
    }
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
        s->peek_pos = 3;              /* a UTF-8 BOM (Excel, Notepad) is no part of a label */
        return 0;
    }
    if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE)
        return start_utf16(s, "UTF-16LE", err, errlen);
    if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF)
        return start_utf16(s, "UTF-16BE", err, errlen);
    return 0;
}

// ---- the source

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
    if (detect_compression(s) != 0 || fill_peek(s) != 0) {
        snprintf(err, errlen, "%s", s->err);
        la_source_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

ssize_t la_source_read(struct la_source *s, void *buf, size_t n)
{
    ssize_t got = s->utf16 ? read_utf16(s, s->utf16, buf, n) : read_bytes(s, buf, n);
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
int la_source_is_compressed(const struct la_source *s) { return s->codec != C_PLAIN; }
int la_source_is_gzip(const struct la_source *s) { return la_source_is_compressed(s); }
const char *la_source_path(const struct la_source *s) { return s->path; }
const char *la_source_error(const struct la_source *s) { return s->err; }
int64_t la_source_file_size(const struct la_source *s) { return s->file_size; }
uint64_t la_source_raw_offset(const struct la_source *s)
{
    return s->ahead ? s->ahead->raw_seen : s->raw_offset;
}

const char *la_source_decompressors(void)
{
    static char list[64];
    if (!list[0]) {
        size_t at = 0;
        for (int c = C_GZIP; c <= C_ZSTD; c++)
            if (codecs[c].built)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", at ? " " : "",
                                       codecs[c].name);
    }
    return list;
}

/* Byte-exact access (mmap, pread) needs the file's own bytes: not compressed, not transcoded. */
int la_source_plain_fd(const struct la_source *s)
{
    return s->codec == C_PLAIN && !s->utf16 && s->file_size >= 0 ? s->fd : -1;
}

void la_source_read_in_place(struct la_source *s, uint64_t offset)
{
    s->offset = offset;
    if (s->raw_offset < offset)
        s->raw_offset = offset;
}

int64_t la_source_size(const struct la_source *s)
{
    return s->codec != C_PLAIN || s->utf16 ? -1 : s->file_size;
}

void la_source_close(struct la_source *s)
{
    if (!s)
        return;
    ahead_stop(s);
    stop_decoder(s);
    free(s->raw);
    if (s->utf16) {
        iconv_close(s->utf16->cd);
        free(s->utf16);
    }
    if (s->fd > 0)
        close(s->fd);
    free(s->mem);
    free(s);
}

// ---- format detection ---------------------------------------------------------

/* The content's kind of table: a tab before any comma on the first line makes a tsv. */
static enum la_format table_from_content(const unsigned char *head, size_t len,
                                         enum la_format other)
{
    for (size_t i = 0; i < len && head[i] != '\n'; i++) {
        if (head[i] == '\t')
            return LA_FMT_TSV;
        if (head[i] == ',')
            return LA_FMT_CSV;
    }
    return other;
}

/* A table for sure (-c or --header without -d): csv or tsv, by the name, else
 * the content; or a file of records whose -c names a key (a .jsonl). */
static enum la_format table_format(const char *path, const unsigned char *head, size_t len)
{
    enum la_format by_name = la_format_by_extension(path);
    if (la_format_has(by_name, LA_FMTF_TABLE) || la_format_has(by_name, LA_FMTF_KEYED))
        return by_name;
    return table_from_content(head, len, LA_FMT_CSV);
}

/* What the options imply: a format, LA_FMT_NONE for nothing, or IMPLIED_TABLE. */
#define IMPLIED_TABLE LA_FMT_COUNT

/* magic bytes, then what the options imply, then the name, then the content;
 * *why says which of them decided (for -v) */
static enum la_format detect(const char *path, const unsigned char *head, size_t len,
                             enum la_format forced, enum la_format implied, const char **why)
{
    *why = "--format";
    if (forced != LA_FMT_AUTO)
        return forced;
    *why = "magic bytes";
    enum la_format f = la_format_by_magic(head, len);
    if (f != LA_FMT_NONE)
        return f;
    *why = "zip magic bytes and the name";
    if (len >= 4 && memcmp(head, "PK\x03\x04", 4) == 0)
        return la_name_ends_in(path, ".npz") ? LA_FMT_NPZ : LA_FMT_NONE; /* a plain zip */
    *why = "-c, --header or --no-header imply a table, the name or first line which";
    if (implied == IMPLIED_TABLE)
        return table_format(path, head, len);
    *why = implied == LA_FMT_RAW ? "--dtype or --endian imply raw"
         : implied == LA_FMT_CSV || implied == LA_FMT_TSV ? "-d implies a table"
         : "an option that only its reader reads implies it (--field: jsonl)";
    if (implied != LA_FMT_NONE)
        return implied;
    *why = "the file name";
    if ((f = la_format_by_extension(path)) != LA_FMT_NONE)
        return f;
    /* content: a delimiter on the first line makes it a table */
    f = table_from_content(head, len, LA_FMT_TEXT);
    *why = f == LA_FMT_TEXT ? "the content: no delimiter on its first line"
                            : "the content: a delimiter on its first line";
    return f;
}

enum la_format la_detect_format(const char *path, const unsigned char *head, size_t len,
                                enum la_format forced)
{
    const char *why;
    return detect(path, head, len, forced, LA_FMT_NONE, &why);
}

/* The format the options given imply, or LA_FMT_NONE: -d names csv (tsv for
 * a tab), -c and --header/--no-header a table (csv or tsv: see table_format),
 * the rows of reader_options.c that name a format theirs (--dtype and
 * --endian raw, --field jsonl); two kinds at once, nothing, since a run over
 * several files may need both. */
static enum la_format implied_format(const struct la_report_ctx *ctx)
{
    int table = ctx->read.delimiter || ctx->read.column || ctx->read.header != LA_AUTO;
    enum la_format named = la_read_options_implied(&ctx->read);
    if (table == (named != LA_FMT_NONE))
        return LA_FMT_NONE;
    if (named != LA_FMT_NONE)
        return named;
    if (!ctx->read.delimiter)
        return IMPLIED_TABLE;
    return ctx->read.delimiter == '\t' ? LA_FMT_TSV : LA_FMT_CSV;
}

/* The message that refuses a file no reader of this build reads: one whose
 * format is configured out (with a way to export it, where there is one), or
 * binary data that is not labels. */
static void refuse(const struct la_source *s, enum la_format f, const char *looks_like,
                   const char *fix, char *err, size_t errlen)
{
    const struct la_format_def *d = la_format_def(f);
    if (looks_like || !d) {
        snprintf(err, errlen, "not a label file (looks like %s)%s%s",
                 looks_like ? looks_like : "binary data",
                 fix ? ": " : "", fix ? fix : "");
        return;
    }
    /* the command reads the file itself: a compressed one by its name would fail */
    int compressed = s->codec != C_PLAIN;
    char cmd[LA_ERR_LEN];
    la_export_command(f, compressed ? "-" : s->path, cmd, sizeof cmd);
    snprintf(err, errlen, "%s file, but this labelaudit was built without %s%s%s",
             la_format_name(f), d->library ? d->library : "its reader",
             !*cmd ? "" : compressed ? "; decompress it, then export the label column: "
                                     : "; export the label column: ", cmd);
}

enum la_format la_source_format(struct la_source *s, const struct la_report_ctx *ctx,
                                char *err, size_t errlen)
{
    enum la_format forced = ctx ? ctx->format : LA_FMT_AUTO;
    const char *why;
    enum la_format f = detect(s->path, s->peek, s->peek_len, forced,
                              ctx && forced == LA_FMT_AUTO ? implied_format(ctx) : LA_FMT_NONE,
                              &why);
    if (s->codec != C_PLAIN)
        la_verbose(s->path, "%s-compressed (magic bytes): %s decompresses it",
                   codecs[s->codec].name, decoder_name(s));
    /* Binary data is never parsed as text, whatever the name or --format say:
     * a zip no format claims (or any named .zip), NUL bytes, a known magic. */
    char kind[64];
    const char *fix = NULL, *looks_like = NULL;
    enum la_format by_magic = la_format_by_magic(s->peek, s->peek_len);
    if (la_format_has(f, LA_FMTF_TEXT) && by_magic != LA_FMT_NONE) {  /* --format=csv */
        snprintf(kind, sizeof kind, "%s data, by its magic bytes", la_format_name(by_magic));
        looks_like = kind;
        fix = "leave --format out";
    } else if (f == LA_FMT_NONE || la_format_has(f, LA_FMTF_TEXT) ||
               (forced == LA_FMT_AUTO && f == LA_FMT_NPZ && la_name_ends_in(s->path, ".zip"))) {
        looks_like = la_foreign_kind(s->peek, s->peek_len, &fix, kind, sizeof kind);
    }
    if (looks_like || !la_reader_for_format(f)) {
        refuse(s, f, looks_like, fix, err, errlen);
        return LA_FMT_NONE;
    }
    if (la_format_has(f, LA_FMTF_TEXT) && la_source_text_mode(s, err, errlen) != 0)
        return LA_FMT_NONE;
    la_verbose(s->path, "format %s (%s)", la_format_name(f), why);
    return f;
}
