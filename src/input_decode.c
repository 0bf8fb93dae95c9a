/* input_decode.c - a source's decompressor: gzip (zlib, or ISA-L where
 * built), xz (liblzma), bzip2 (libbz2), zstd (libzstd), chosen by the first
 * bytes (codecs.h); concatenated members and streams are read one after
 * another, as the command-line tools read them, and every error names the
 * compressed byte it met. Plain data is read through here too: this file
 * alone reads the file's descriptor. */
#include "input_source.h"

#include <errno.h>     /* errno, EINTR */
#include <stdio.h>     /* snprintf */
#include <stdlib.h>    /* malloc, free, getenv */
#include <string.h>    /* memcpy, memset, strerror */
#include <unistd.h>    /* read, lseek */

#include "stdin_memory.h" /* standard input continued in the caller's memory */

#define RAW_BUF_LEN (1u << 20)
/* A hostile .xz header may ask for a 4 GiB dictionary; xz -9 needs 65 MiB. */
#define XZ_MEMLIMIT ((uint64_t)256 << 20)

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
             input_byte(s), la_codecs[s->codec].name);
    return -1;
}

static ssize_t corrupt(struct la_source *s, const char *why)
{
    snprintf(s->err, sizeof s->err, "byte %llu: corrupt %s data (%s)", input_byte(s),
             la_codecs[s->codec].name, why);
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
const char *la_source_decoder_name(const struct la_source *s)
{
#ifdef HAVE_ISAL
    if (s->isal)
        return "ISA-L";
#endif
    return la_codecs[s->codec].library;
}

ssize_t la_source_decode(struct la_source *s, unsigned char *buf, size_t n)
{
    switch (s->codec) {
#ifdef HAVE_ISAL
    case LA_CODEC_GZIP: return s->isal ? read_gzip_isal(s, buf, n) : read_gzip(s, buf, n);
#else
    case LA_CODEC_GZIP: return read_gzip(s, buf, n);
#endif
#ifdef HAVE_LZMA
    case LA_CODEC_XZ: return read_xz(s, buf, n);
#endif
#ifdef HAVE_BZIP2
    case LA_CODEC_BZIP2: return read_bz2(s, buf, n);
#endif
#ifdef HAVE_ZSTD
    case LA_CODEC_ZSTD: return read_zstd(s, buf, n);
#endif
    default: return read_fd(s, buf, n);
    }
}

static int start_decoder(struct la_source *s)
{
    switch (s->codec) {
    case LA_CODEC_GZIP:
#ifdef HAVE_ISAL
        if (!getenv("LABELAUDIT_GZIP_ZLIB"))   /* tests: the zlib path too */
            return start_isal(s);
#endif
        s->z.next_in = s->raw;
        s->z.avail_in = (uInt)s->in_left;
        s->in_left = 0;
        return inflateInit2(&s->z, 15 + 16) == Z_OK ? 0 : -1;   /* 16: gzip wrapper */
#ifdef HAVE_LZMA
    case LA_CODEC_XZ: return start_xz(s);
#endif
#ifdef HAVE_BZIP2
    case LA_CODEC_BZIP2: return start_bz2(s);
#endif
#ifdef HAVE_ZSTD
    case LA_CODEC_ZSTD: return start_zstd(s);
#endif
    default: return -1;
    }
}

/* Read the first bytes and start the decompressor they call for (or replay
 * them as plain data). @return 0, or -1 with s->err set. */
int la_source_start_decoder(struct la_source *s)
{
    unsigned char magic[LA_CODEC_MAGIC_LEN];
    size_t have = 0;
    while (have < LA_CODEC_MAGIC_LEN) {
        ssize_t got = read_fd(s, magic + have, LA_CODEC_MAGIC_LEN - have);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        have += (size_t)got;
    }
    s->codec = la_codec_of(magic, have);
    if (s->codec == LA_CODEC_PLAIN) {          /* those bytes are data: replay them */
        memcpy(s->peek, magic, have);
        s->peek_len = have;
        return 0;
    }
    const struct la_codec_info *c = &la_codecs[s->codec];
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

void la_source_stop_decoder(struct la_source *s)
{
    if (!s->raw)
        return;
    switch (s->codec) {
    case LA_CODEC_GZIP:
        inflateEnd(&s->z);          /* nothing to end when ISA-L inflated: z never started */
#ifdef HAVE_ISAL
        free(s->isal);
#endif
        break;
#ifdef HAVE_LZMA
    case LA_CODEC_XZ: lzma_end(&s->xz); break;
#endif
#ifdef HAVE_BZIP2
    case LA_CODEC_BZIP2: if (s->bz_live) BZ2_bzDecompressEnd(&s->bz); break;
#endif
#ifdef HAVE_ZSTD
    case LA_CODEC_ZSTD: ZSTD_freeDStream(s->zstd); break;
#endif
    default: break;
    }
}

