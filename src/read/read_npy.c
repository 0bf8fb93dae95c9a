/* read_npy.c - the .npy reader, and the npy stream it shares with read_npz.c.
 *
 * The stream reads the header through a pull callback, then emits the data in
 * chunks of at most LA_NPY_CHUNK bytes, in host byte order and C order, so
 * first_index is NumPy's arr.flat index. It never allocates what the header
 * claims: data is checked as it arrives, and a file that ends early or goes on
 * after the data is an error, since a lying header is bad input.
 *
 * Fortran order: the values must still come out in C order, which means
 * gathering with strides. From a regular file the data is mmap()ed read-only
 * and gathered (only touched pages are resident); from a stream (gzip, stdin,
 * a deflated npz member) it is read into memory when it is at most
 * LA_NPY_REORDER_MAX bytes, and refused otherwise. */
#include "read_npy.h"
#include "fatal.h"    /* la_map_guarded: the mapped file may shrink under the gather */

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, realloc, free */
#include <string.h>   /* memcpy */
#include <sys/stat.h> /* fstat */

#define LA_NPY_CHUNK (1u << 20)
#define LA_NPY_REORDER_MAX ((uint64_t)256 << 20)

// ---- the npy stream ----------------------------------------------------

/* Pull exactly n bytes unless the stream ends: the callback may return less. */
static ssize_t pull_full(struct la_npy_stream *s, void *buf, size_t n, char *err, size_t errlen)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = s->pull(s->ctx, (unsigned char *)buf + got, n - got, err, errlen);
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    s->pos += got;
    return (ssize_t)got;
}

static int read_header(struct la_npy_stream *s, char *err, size_t errlen)
{
    unsigned char pre[LA_NPY_PREAMBLE_MAX];
    ssize_t got = pull_full(s, pre, 10, err, errlen);
    if (got < 0)
        return -1;
    size_t have = (size_t)got, total;
    if (have == 10 && pre[6] >= 2) {                   /* v2, v3: 4-byte length */
        if ((got = pull_full(s, pre + 10, 2, err, errlen)) < 0)
            return -1;
        have += (size_t)got;
    }
    int size_rc = la_npy_header_size(pre, have, &total, err, errlen);
    if (size_rc != 0)
        return size_rc;                                 /* LA_NPY_NOT_NPY tells npz */
    unsigned char *hb = malloc(total);
    if (!hb)
        return snprintf(err, errlen, "out of memory for a %zu-byte header", total), -1;
    memcpy(hb, pre, have);
    got = pull_full(s, hb + have, total - have, err, errlen);
    long rc = got < 0 ? -1 : la_npy_parse_header(hb, have + (size_t)got, &s->hdr, err, errlen);
    free(hb);
    return rc < 0 ? -1 : 0;
}

/* C order and F order differ only when two or more dimensions exceed 1. */
static int needs_gather(const struct la_npy_header *h)
{
    int big = 0;
    for (int i = 0; i < h->ndim; i++)
        big += h->shape[i] > 1;
    return h->fortran_order && h->count > 0 && big > 1;
}

static unsigned esize(const struct la_npy_stream *s)
{
    return la_dtype_info(s->hdr.dtype)->size;
}

static int truncated(const struct la_npy_stream *s, uint64_t end, uint64_t values,
                     char *err, size_t errlen)
{
    snprintf(err, errlen, "byte %llu: %s ends after %llu of %llu values",
             (unsigned long long)end, s->what, (unsigned long long)values,
             (unsigned long long)s->hdr.count);
    return -1;
}

static int trailing(uint64_t at, uint64_t extra, char *err, size_t errlen)
{
    snprintf(err, errlen, "byte %llu: %llu bytes after the array's data",
             (unsigned long long)at, (unsigned long long)extra);
    return -1;
}

/* Map the data from fd. @return 1 mapped, 0 mmap failed (use the stream), -1 error. */
static int map_data(struct la_npy_stream *s, char *err, size_t errlen)
{
    const struct la_npy_header *h = &s->hdr;
    uint64_t avail = s->fd_length > h->data_offset ? s->fd_length - h->data_offset : 0;
    if (avail < h->nbytes)
        return truncated(s, s->fd_length, avail / esize(s), err, errlen);
    if (avail > h->nbytes)
        return trailing(h->data_offset + h->nbytes, avail - h->nbytes, err, errlen);
    s->data = la_map_guarded(s->fd, s->fd_offset + h->data_offset, h->nbytes, &s->map);
    return s->data != NULL;
}

/* Read the whole array into memory, growing as data arrives. */
static int slurp_data(struct la_npy_stream *s, char *err, size_t errlen)
{
    const struct la_npy_header *h = &s->hdr;
    if (h->nbytes > LA_NPY_REORDER_MAX) {
        /* The header may lie: a stream that ends before the limit is truncated,
         * and saying "too large" would send the user the wrong way. */
        for (uint64_t seen = 0; seen <= LA_NPY_REORDER_MAX;) {
            ssize_t got = pull_full(s, s->buf, s->bufcap, err, errlen);
            if (got < 0)
                return -1;
            seen += (uint64_t)got;
            if ((size_t)got < s->bufcap)
                return truncated(s, s->pos, seen / esize(s), err, errlen);
        }
        snprintf(err, errlen, "Fortran-order array too large to reorder from a stream "
                 "(%llu bytes); %s", (unsigned long long)h->nbytes, s->too_big_hint);
        return -1;
    }
    size_t cap = 0, have = 0, want = (size_t)h->nbytes;
    while (have < want) {
        size_t ncap = cap ? cap * 2 : LA_NPY_CHUNK;
        ncap = ncap < want ? ncap : want;
        unsigned char *m = realloc(s->mem, ncap);
        if (!m)
            return snprintf(err, errlen, "out of memory reordering a Fortran array"), -1;
        s->mem = m;
        cap = ncap;
        ssize_t got = pull_full(s, s->mem + have, cap - have, err, errlen);
        if (got < 0)
            return -1;
        have += (size_t)got;
        if (have < cap)
            return truncated(s, s->pos, have / esize(s), err, errlen);
    }
    s->data = s->mem;
    return 0;
}

int la_npy_stream_open(struct la_npy_stream *s, char *err, size_t errlen)
{
    int rc = read_header(s, err, errlen);
    if (rc != 0)
        return rc;
    s->bufcap = LA_NPY_CHUNK;
    if (!(s->buf = malloc(s->bufcap)))
        return snprintf(err, errlen, "out of memory"), -1;
    if (!needs_gather(&s->hdr))
        return 0;
    rc = s->fd >= 0 ? map_data(s, err, errlen) : 0;
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    return slurp_data(s, err, errlen);
}

int la_npy_stream_gathers(const struct la_npy_stream *s)
{
    return s->map.base != NULL;
}

/* n values in C order from the F-order data, at the multi-index cidx. */
static void gather(struct la_npy_stream *s, size_t n)
{
    la_gather_f_order(s->buf, s->data, esize(s), s->hdr.ndim, s->hdr.shape, s->cidx, n);
}

/* After the data: nothing may follow (the mapped case checked this already). */
static int finish(struct la_npy_stream *s, char *err, size_t errlen)
{
    if (s->map.base)
        return 0;
    uint64_t at = s->pos, extra = 0;
    for (;;) {
        ssize_t got = pull_full(s, s->buf, s->bufcap, err, errlen);
        if (got < 0)
            return -1;
        extra += (uint64_t)got;
        if ((size_t)got < s->bufcap)
            break;
    }
    return extra ? trailing(at, extra, err, errlen) : 0;
}

int la_npy_stream_next(struct la_npy_stream *s, struct la_chunk *out, char *err, size_t errlen)
{
    const struct la_npy_header *h = &s->hdr;
    if (s->ended)
        return 0;
    if (s->done == h->count) {
        s->ended = 1;
        return finish(s, err, errlen) != 0 ? -1 : 0;
    }
    const unsigned sz = esize(s);
    uint64_t left = h->count - s->done;
    size_t n = s->bufcap / sz;
    n = left < n ? (size_t)left : n;
    if (s->data) {
        gather(s, n);
        int64_t fault = s->map.base ? la_guard_fault(s->map.base) : -1;
        if (fault >= 0)             /* the gather read zeros, not the file */
            return snprintf(err, errlen, "byte %lld: file shrank while being read",
                            (long long)fault), -1;
    } else {
        ssize_t got = pull_full(s, s->buf, n * sz, err, errlen);
        if (got < 0)
            return -1;
        if ((size_t)got < n * sz)
            return truncated(s, s->pos, s->done + (uint64_t)got / sz, err, errlen);
    }
    if (h->swap)
        la_byteswap(s->buf, n, sz);
    if (h->dtype == LA_DT_BOOL)
        la_bool_normalize(s->buf, n);
    *out = (struct la_chunk){h->dtype, s->buf, n, s->done, NULL};
    s->done += n;
    return 1;
}

int la_npy_stream_run(const struct la_npy_stream *s, struct la_file_run *run)
{
    const struct la_npy_header *h = &s->hdr;
    uint64_t start = s->fd_offset + h->data_offset;
    if (s->fd < 0 || s->data || s->done || h->swap || h->dtype == LA_DT_BOOL ||
        s->fd_length != h->data_offset + h->nbytes || start % esize(s) != 0)
        return 0;
    *run = (struct la_file_run){ s->fd, start, h->count, h->dtype };
    return 1;
}

void la_npy_stream_info(const struct la_npy_stream *s, struct la_array_info *info)
{
    info->dtype = s->hdr.dtype;
    info->ndim = s->hdr.ndim;
    memcpy(info->shape, s->hdr.shape, sizeof info->shape);
    info->shape_known = 1;
    info->fortran_order = s->hdr.fortran_order;
}

void la_npy_stream_close(struct la_npy_stream *s)
{
    la_unmap_guarded(&s->map);
    free(s->mem);
    free(s->buf);
    s->mem = s->buf = NULL;
    s->data = NULL;
}

// ---- the .npy reader -----------------------------------------------------

struct npy_state {
    struct la_npy_stream s;
};

static ssize_t source_pull(void *ctx, void *buf, size_t n, char *err, size_t errlen)
{
    ssize_t got = la_source_read(ctx, buf, n);
    if (got < 0) {
        const char *why = la_source_error(ctx);
        snprintf(err, errlen, "%s", why && *why ? why : "read error");
    }
    return got;
}

/* A plain regular file can be mapped (for Fortran order, or scanned in
 * place); a pipe and compressed input cannot. The descriptor is the source's
 * own, never the path opened again: a file renamed over the path between two
 * opens would give the header of one file and the data of another. */
static int plain_file(struct la_source *src, uint64_t *size)
{
    int fd = la_source_plain_fd(src);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    *size = (uint64_t)st.st_size;
    return fd;
}

static int npy_open(struct la_reader *r)
{
    struct npy_state *st = calloc(1, sizeof *st);
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    st->s.pull = source_pull;
    st->s.ctx = r->src;
    st->s.what = "file";
    st->s.too_big_hint = "decompress it to a file";
    st->s.fd = plain_file(r->src, &st->s.fd_length);   /* owned by the source */
    if (la_npy_stream_open(&st->s, r->err, sizeof r->err) != 0)
        return -1;
    r->has_run = la_npy_stream_run(&st->s, &r->run);
    la_npy_stream_info(&st->s, &r->info);
    return 0;
}

static int npy_next(struct la_reader *r, struct la_chunk *out)
{
    struct npy_state *st = r->state;
    return la_npy_stream_next(&st->s, out, r->err, sizeof r->err);
}

static void npy_close(struct la_reader *r)
{
    struct npy_state *st = r->state;
    if (!st)
        return;
    la_npy_stream_close(&st->s);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_npy = { npy_open, npy_next, npy_close };
