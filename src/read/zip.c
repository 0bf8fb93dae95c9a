/* zip.c - reading members of a zip archive at random: see zip.h. Shared by
 * the npz reader (read_npz.c) and the torch.save reader (read_pt.c). */
#include "zip.h"

#include <errno.h>    /* errno, EINTR */
#include <fcntl.h>    /* fcntl: F_DUPFD_CLOEXEC */
#include <limits.h>   /* UINT_MAX */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, realloc, free, getenv, mkstemp */
#include <string.h>   /* memcmp, strlen, strerror */
#include <sys/stat.h> /* fstat */
#include <unistd.h>   /* write, close, unlink */

#include "util.h"     /* la_pread_full */

#define ZIP_IO (1u << 20)         /* spool and CRC buffers */
#define ZIP_INBUF (256u << 10)    /* compressed input buffer */
#define ZIP_EOCD_LEN 22
#define ZIP_COMMENT_MAX 65535u
#define ZIP_CD_MAX ((uint64_t)64 << 20)

// ---- little-endian fields and positioned reads --------------------------

static unsigned u16(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }
static uint32_t u32(const unsigned char *p) { return u16(p) | (uint32_t)u16(p + 2) << 16; }
static uint64_t u64(const unsigned char *p) { return u32(p) | (uint64_t)u32(p + 4) << 32; }

/* Exactly n bytes at off. @return 0, or -1 (short or failed) with errno, 0 for short. */
int la_zip_read_at(int fd, void *buf, size_t n, uint64_t off)
{
    return la_pread_full(fd, buf, n, off) == n ? 0 : -1;
}

static int io_error(struct la_reader *r, uint64_t off, const char *what)
{
    if (errno)
        return la_reader_set_error(r, "byte %llu: cannot read the %s: %s",
                                   (unsigned long long)off, what, strerror(errno));
    return la_reader_set_error(r, "byte %llu: archive ends inside the %s (truncated)",
                               (unsigned long long)off, what);
}

// ---- getting a file to read at random -----------------------------------

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Copy the source into an unlinked file in $TMPDIR, in ZIP_IO pieces. */
static int spool(struct la_reader *r)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/labelaudit-zip-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return la_reader_set_error(r, "cannot create a temporary file in %s: %s",
                                   dir && *dir ? dir : "/tmp", strerror(errno));
    unlink(path);
    unsigned char *buf = malloc(ZIP_IO);
    if (!buf) {
        close(fd);
        return la_reader_set_error(r, "out of memory");
    }
    ssize_t got;
    while ((got = la_source_read(r->src, buf, ZIP_IO)) > 0) {
        if (write_all(fd, buf, (size_t)got) != 0) {
            la_reader_set_error(r, "cannot spool the archive to a temporary file: %s",
                                strerror(errno));
            got = -2;
            break;
        }
    }
    free(buf);
    if (got == -1) {
        const char *why = la_source_error(r->src);
        la_reader_set_error(r, "%s", why && *why ? why : "read error");
    }
    if (got < 0)
        close(fd);
    return got < 0 ? -1 : fd;
}

static int open_archive(struct la_reader *r, struct la_zip *st)
{
    /* the source's own file (a copy of its descriptor, closed with the
     * archive), never the path opened again: a file renamed over the path
     * in between would give the first bytes of one file and the rest of another */
    struct stat sb;
    int fd = la_source_plain_fd(r->src);
    st->fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (st->fd < 0 && (st->fd = spool(r)) < 0)
        return -1;
    if (fstat(st->fd, &sb) != 0)
        return la_reader_set_error(r, "cannot stat the archive: %s", strerror(errno));
    st->fsize = (uint64_t)sb.st_size;
    return 0;
}

// ---- the end records -----------------------------------------------------

/* Scan back for "PK\5\6"; prefer a record whose comment ends the file exactly. */
static int find_eocd(struct la_reader *r, struct la_zip *st, uint64_t *pos)
{
    uint64_t tail = st->fsize < ZIP_EOCD_LEN + ZIP_COMMENT_MAX ? st->fsize
                                                               : ZIP_EOCD_LEN + ZIP_COMMENT_MAX;
    unsigned char *buf = malloc(tail ? tail : 1);
    if (!buf)
        return la_reader_set_error(r, "out of memory");
    uint64_t base = st->fsize - tail;
    int found = 0;
    if (la_zip_read_at(st->fd, buf, (size_t)tail, base) != 0) {
        free(buf);
        return io_error(r, base, "end of central directory");
    }
    for (size_t i = tail >= ZIP_EOCD_LEN ? tail - ZIP_EOCD_LEN + 1 : 0; i-- > 0;) {
        if (memcmp(buf + i, "PK\5\6", 4) != 0)
            continue;
        uint64_t end = i + ZIP_EOCD_LEN + u16(buf + i + 20);
        if (end == tail || (!found && end <= tail)) {
            *pos = base + i;
            found = end == tail ? 2 : 1;
            if (found == 2)
                break;
        }
    }
    free(buf);
    if (!found)
        return la_reader_set_error(r, "byte %llu: no end of central directory record "
                                   "(not a zip archive, or truncated)",
                                   (unsigned long long)st->fsize);
    return 0;
}

struct cd_loc {
    uint64_t entries, size, off, end;   /* end: where the directory must stop */
};

static int read_zip64_end(struct la_reader *r, struct la_zip *st, uint64_t eocd,
                          struct cd_loc *cd)
{
    unsigned char loc[20], rec[56];
    if (la_zip_read_at(st->fd, loc, sizeof loc, eocd - 20) != 0)
        return io_error(r, eocd - 20, "zip64 locator");
    uint64_t off = u64(loc + 8);
    if (u32(loc + 4) != 0 || u32(loc + 16) > 1)
        return la_reader_set_error(r, "multi-disk zip archives are not supported");
    if (eocd < 20 + sizeof rec || off > eocd - 20 - sizeof rec
        || la_zip_read_at(st->fd, rec, sizeof rec, off) != 0 || u32(rec) != 0x06064b50)
        return la_reader_set_error(r, "byte %llu: bad zip64 end of central directory record",
                                   (unsigned long long)off);
    if (u32(rec + 16) != 0 || u32(rec + 20) != 0)
        return la_reader_set_error(r, "multi-disk zip archives are not supported");
    *cd = (struct cd_loc){u64(rec + 32), u64(rec + 40), u64(rec + 48), off};
    return 0;
}

static int read_end(struct la_reader *r, struct la_zip *st, struct cd_loc *cd)
{
    uint64_t eocd = 0;
    unsigned char rec[ZIP_EOCD_LEN], loc[4];
    if (find_eocd(r, st, &eocd) != 0)
        return -1;
    if (la_zip_read_at(st->fd, rec, sizeof rec, eocd) != 0)
        return io_error(r, eocd, "end of central directory");
    if (eocd >= 20 && la_zip_read_at(st->fd, loc, 4, eocd - 20) == 0 && u32(loc) == 0x07064b50)
        return read_zip64_end(r, st, eocd, cd);
    if (u16(rec + 4) != 0 || u16(rec + 6) != 0)
        return la_reader_set_error(r, "multi-disk zip archives are not supported");
    *cd = (struct cd_loc){u16(rec + 10), u32(rec + 12), u32(rec + 16), eocd};
    if (cd->entries == 0xFFFF || cd->size == 0xFFFFFFFF || cd->off == 0xFFFFFFFF)
        return la_reader_set_error(r, "byte %llu: zip64 archive without its zip64 end record",
                                   (unsigned long long)eocd);
    return 0;
}

// ---- the central directory -----------------------------------------------

/* Sizes and offset that do not fit 32 bits are in the zip64 extra field (id 1),
 * in this order, each present only when its 32-bit field is all ones. */
static int zip64_extra(const unsigned char *x, size_t len, struct la_zip_member *m)
{
    while (len >= 4) {
        unsigned id = u16(x), sz = u16(x + 2);
        if (sz > len - 4)
            return -1;
        if (id == 1) {
            uint64_t *fields[3] = {&m->usize, &m->csize, &m->local_off};
            size_t at = 4;
            for (int i = 0; i < 3; i++) {
                if (*fields[i] != 0xFFFFFFFF)
                    continue;
                if (at + 8 > 4 + (size_t)sz)
                    return -1;
                *fields[i] = u64(x + at);
                at += 8;
            }
        }
        x += 4 + sz;
        len -= 4 + sz;
    }
    return 0;
}

/* One entry at cd[p]; @return its length, or 0 when it is truncated or corrupt. */
static size_t parse_entry(const unsigned char *cd, size_t left, struct la_zip_member *m)
{
    if (left < 46 || u32(cd) != 0x02014b50)
        return 0;
    size_t n = u16(cd + 28), x = u16(cd + 30), c = u16(cd + 32);
    if (46 + n + x + c > left || u16(cd + 34) != 0)
        return 0;
    m->flags = u16(cd + 8);
    m->method = u16(cd + 10);
    m->crc = u32(cd + 16);
    m->csize = u32(cd + 20);
    m->usize = u32(cd + 24);
    m->local_off = u32(cd + 42);
    if (zip64_extra(cd + 46 + n, x, m) != 0 || !(m->name = malloc(n + 1)))
        return 0;
    for (size_t i = 0; i < n; i++)    /* names go into one-line messages */
        m->name[i] = cd[46 + i] < 0x20 || cd[46 + i] == 0x7f ? '?' : (char)cd[46 + i];
    m->name[n] = '\0';
    return 46 + n + x + c;
}

static int read_directory(struct la_reader *r, struct la_zip *st)
{
    struct cd_loc cd = { 0, 0, 0, 0 };
    if (read_end(r, st, &cd) != 0)
        return -1;
    if (cd.off > cd.end || cd.size > cd.end - cd.off)
        return la_reader_set_error(r, "byte %llu: central directory runs past its end record "
                                   "(truncated or corrupt archive)", (unsigned long long)cd.off);
    if (cd.size > ZIP_CD_MAX)
        return la_reader_set_error(r, "byte %llu: central directory over 64 MiB",
                                   (unsigned long long)cd.off);
    st->cd_off = cd.off;
    unsigned char *buf = malloc(cd.size ? (size_t)cd.size : 1);
    if (!buf)
        return la_reader_set_error(r, "out of memory");
    if (la_zip_read_at(st->fd, buf, (size_t)cd.size, cd.off) != 0) {
        free(buf);
        return io_error(r, cd.off, "central directory");
    }
    /* The entry count is only a claim: the directory's bytes bound the loop. */
    size_t p = 0, len = 0;
    for (uint64_t e = 0; e < cd.entries; e++, p += len) {
        struct la_zip_member *m = realloc(st->m, (st->nm + 1) * sizeof *m);
        if (!m) {
            free(buf);
            return la_reader_set_error(r, "out of memory");
        }
        st->m = m;
        memset(&m[st->nm], 0, sizeof *m);
        if (!(len = parse_entry(buf + p, (size_t)cd.size - p, &m[st->nm]))) {
            free(buf);
            return la_reader_set_error(r, "byte %llu: central directory entry %llu is "
                                       "truncated or corrupt", (unsigned long long)(cd.off + p),
                                       (unsigned long long)e + 1);
        }
        st->nm++;
    }
    free(buf);
    return 0;
}


/* A member name fit for a one-line message: control bytes become '?' (a name
 * is any bytes the archive's writer chose, newlines and escapes included),
 * and a long one is cut at 200 bytes. */
const char *la_zip_shown(const char *name, char *buf)
{
    snprintf(buf, LA_ZIP_SHOWN_LEN, "%s", name);
    return la_one_line(buf);
}

// ---- reading the member --------------------------------------------------

static int crc_check(struct la_zip *st, char *err, size_t errlen)
{
    st->at_end = 1;
    if (st->crc == st->chosen->crc)
        return 0;
    snprintf(err, errlen, "CRC-32 mismatch (archive is corrupt)");
    return -1;
}

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n)
{
    while (n > 0) {
        uInt k = n > UINT_MAX ? UINT_MAX : (uInt)n;
        crc = (uint32_t)crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return crc;
}

static ssize_t pull_stored(void *ctx, void *buf, size_t n, char *err, size_t errlen)
{
    struct la_zip *st = ctx;
    uint64_t left = st->chosen->usize - st->upos;
    n = left < n ? (size_t)left : n;
    if (st->at_end || n == 0)
        return st->at_end || crc_check(st, err, errlen) == 0 ? 0 : -1;
    if (la_zip_read_at(st->fd, buf, n, st->data_off + st->upos) != 0) {
        snprintf(err, errlen, "byte %llu: cannot read the member: %s",
                 (unsigned long long)st->upos, errno ? strerror(errno) : "archive ends");
        return -1;
    }
    st->crc = crc_update(st->crc, buf, n);
    st->upos += n;
    if (st->upos == st->chosen->usize && crc_check(st, err, errlen) != 0)
        return -1;
    return (ssize_t)n;
}

/* Feed the inflater from the member's compressed bytes. @return 0, or -1. */
static int refill(struct la_zip *st, char *err, size_t errlen)
{
    uint64_t left = st->chosen->csize - st->cpos;
    size_t n = left < ZIP_INBUF ? (size_t)left : ZIP_INBUF;
    if (la_zip_read_at(st->fd, st->zin, n, st->data_off + st->cpos) != 0) {
        snprintf(err, errlen, "cannot read the member's compressed data: %s",
                 errno ? strerror(errno) : "archive ends");
        return -1;
    }
    st->cpos += n;
    st->z.next_in = st->zin;
    st->z.avail_in = (uInt)n;
    return 0;
}

static ssize_t inflate_into(struct la_zip *st, unsigned char *buf, size_t n,
                            char *err, size_t errlen)
{
    st->z.next_out = buf;
    st->z.avail_out = n > UINT_MAX ? UINT_MAX : (uInt)n;
    uInt asked = st->z.avail_out;
    while (st->z.avail_out > 0) {
        if (st->z.avail_in == 0 && st->cpos < st->chosen->csize && refill(st, err, errlen) != 0)
            return -1;
        int zr = inflate(&st->z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            st->z_end = 1;
            break;
        }
        if (zr == Z_BUF_ERROR && st->z.avail_in == 0 && st->cpos == st->chosen->csize) {
            snprintf(err, errlen, "deflate data ends early (archive is truncated or corrupt)");
            return -1;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            snprintf(err, errlen, "corrupt deflate data (%s)",
                     st->z.msg ? st->z.msg : "zlib error");
            return -1;
        }
    }
    return (ssize_t)(asked - st->z.avail_out);
}

static ssize_t pull_deflated(void *ctx, void *buf, size_t n, char *err, size_t errlen)
{
    struct la_zip *st = ctx;
    if (st->at_end || n == 0)
        return 0;
    ssize_t got = inflate_into(st, buf, n, err, errlen);
    if (got < 0)
        return -1;
    st->crc = crc_update(st->crc, buf, (size_t)got);
    st->upos += (uint64_t)got;
    if (st->upos > st->chosen->usize) {
        snprintf(err, errlen, "inflates to more than its recorded %llu bytes",
                 (unsigned long long)st->chosen->usize);
        return -1;
    }
    if (st->z_end && st->upos != st->chosen->usize) {
        snprintf(err, errlen, "inflates to %llu bytes, not the recorded %llu",
                 (unsigned long long)st->upos, (unsigned long long)st->chosen->usize);
        return -1;
    }
    if (st->z_end && crc_check(st, err, errlen) != 0)
        return -1;
    return got;
}

/* Flags, method and the local header, which only tells where the data starts
 * (its sizes may be zero or 0xFFFFFFFF: the central directory is the truth). */
int la_zip_locate(struct la_reader *r, struct la_zip *st, const struct la_zip_member *m)
{
    st->chosen = m;
    unsigned char lh[30];
    char name[LA_ZIP_SHOWN_LEN];
    if (m->flags & 0x41)
        return la_reader_set_error(r, "member '%s' is encrypted", la_zip_shown(m->name, name));
    if (m->method != 0 && m->method != 8)
        return la_reader_set_error(r, "member '%s': compression method %u is not "
                                   "supported (only stored and deflated)", la_zip_shown(m->name, name),
                                   m->method);
    if (m->method == 0 && m->csize != m->usize)
        return la_reader_set_error(r, "member '%s': stored, yet its sizes differ",
                                   la_zip_shown(m->name, name));
    if (m->local_off > st->cd_off || la_zip_read_at(st->fd, lh, sizeof lh, m->local_off) != 0
        || u32(lh) != 0x04034b50)
        return la_reader_set_error(r, "byte %llu: member '%s': bad local header",
                                   (unsigned long long)m->local_off, la_zip_shown(m->name, name));
    st->data_off = m->local_off + 30 + u16(lh + 26) + u16(lh + 28);
    if (st->data_off > st->cd_off || m->csize > st->cd_off - st->data_off)
        return la_reader_set_error(r, "member '%s': data runs past the end of the "
                                   "archive (truncated)", la_zip_shown(m->name, name));
    return 0;
}

/* Verify a stored member that is gathered through mmap, not pulled. */
int la_zip_crc_whole(struct la_zip *st, char *err, size_t errlen)
{
    unsigned char *buf = malloc(ZIP_IO);
    uint32_t crc = 0;
    if (!buf)
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint64_t at = 0; at < st->chosen->usize;) {
        uint64_t left = st->chosen->usize - at;
        size_t n = left < ZIP_IO ? (size_t)left : ZIP_IO;
        if (la_zip_read_at(st->fd, buf, n, st->data_off + at) != 0) {
            free(buf);
            return snprintf(err, errlen, "cannot read the member"), -1;
        }
        crc = crc_update(crc, buf, n);
        at += n;
    }
    free(buf);
    st->crc = crc;
    return crc_check(st, err, errlen);
}

int la_zip_open(struct la_reader *r, struct la_zip *st)
{
    return open_archive(r, st) != 0 || read_directory(r, st) != 0 ? -1 : 0;
}

int la_zip_start(struct la_zip *st, char *err, size_t errlen)
{
    st->cpos = st->upos = 0;
    st->crc = 0;
    st->at_end = st->z_end = 0;
    if (st->chosen->method == 0)
        return 0;
    if (!st->zin && !(st->zin = malloc(ZIP_INBUF)))
        return snprintf(err, errlen, "out of memory"), -1;
    if (st->z_live)
        inflateEnd(&st->z);
    st->z_live = 0;
    memset(&st->z, 0, sizeof st->z);
    if (inflateInit2(&st->z, -15) != Z_OK)
        return snprintf(err, errlen, "cannot start zlib"), -1;
    st->z_live = 1;
    return 0;
}

ssize_t la_zip_pull(void *ctx, void *buf, size_t n, char *err, size_t errlen)
{
    const struct la_zip *st = ctx;
    return st->chosen->method == 0 ? pull_stored(ctx, buf, n, err, errlen)
                                   : pull_deflated(ctx, buf, n, err, errlen);
}

void la_zip_close(struct la_zip *st)
{
    if (st->z_live)
        inflateEnd(&st->z);
    free(st->zin);
    for (size_t i = 0; i < st->nm; i++)
        free(st->m[i].name);
    free(st->m);
    if (st->fd >= 0)
        close(st->fd);
    memset(st, 0, sizeof *st);
    st->fd = -1;
}
