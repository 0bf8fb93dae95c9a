/* fix_array.c - --fix's writer for npy and raw (fix_rules.h): the elements
 * read in blocks of whole samples, each mapped by la_fix_value and written in
 * the output dtype (the input's byte order kept). A .npy header is copied as
 * it is, unless the int64 rule changes its descr or --fix-drop its first
 * axis: then that one header is edited in place and padded again as NumPy
 * pads it (to 64 bytes, after room for the growth axis), so that the copy is
 * the file np.save writes of the corrected array. */
#include "fix_rules.h"

#include <errno.h>    /* errno */
#include <fcntl.h>    /* open */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, free */
#include <string.h>   /* memcpy, strstr, strerror */
#include <sys/stat.h> /* fstat */
#include <unistd.h>   /* close, pread */

#include "read/npy_header.h" /* la_npy_parse_header */
#include "util.h"            /* la_pread_full */

#define BLOCK_BYTES ((size_t)1 << 20)
#define GROWTH_AXIS_MAX_DIGITS 21   /* numpy.lib.format's room for the shape to grow */

/* What the writer reads: where the values start, their dtype and shape. */
struct layout {
    uint64_t data_offset;
    enum la_dtype dtype;
    int swap;
    unsigned esize;
    uint64_t count, samples, per_sample;
    struct la_npy_header npy;     /* npy */
    unsigned char *head;          /* npy: the header as read */
    size_t head_len;
};

// ---- elements ---------------------------------------------------------------------

static void swap_in_place(unsigned char *p, unsigned n)
{
    for (unsigned i = 0; i < n / 2; i++) {
        unsigned char t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

static void element_in(const unsigned char *p, const struct layout *l, struct la_num *v)
{
    unsigned char e[8];
    memcpy(e, p, l->esize);
    if (l->swap)
        swap_in_place(e, l->esize);
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
            int64_t i64; uint64_t u64; float f32; double f64; } u;
    memcpy(&u, e, l->esize);
    v->kind = LA_NUM_I64;
    switch (l->dtype) {
    case LA_DT_BOOL:    v->v.i = u.u8 != 0; break;
    case LA_DT_INT8:    v->v.i = u.i8; break;
    case LA_DT_UINT8:   v->v.i = u.u8; break;
    case LA_DT_INT16:   v->v.i = u.i16; break;
    case LA_DT_UINT16:  v->v.i = u.u16; break;
    case LA_DT_INT32:   v->v.i = u.i32; break;
    case LA_DT_UINT32:  v->v.i = u.u32; break;
    case LA_DT_INT64:   v->v.i = u.i64; break;
    case LA_DT_UINT64:  v->kind = LA_NUM_U64, v->v.u = u.u64; break;
    case LA_DT_FLOAT16: v->kind = LA_NUM_F64, v->v.f = la_half_to_float(u.u16); break;
    case LA_DT_FLOAT32: v->kind = LA_NUM_F64, v->v.f = u.f32; break;
    default:            v->kind = LA_NUM_F64, v->v.f = u.f64; break;
    }
}

/* y as an element of dtype, in the input's byte order. */
static void element_out(int64_t y, enum la_dtype dtype, int swap, unsigned char *p)
{
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
            int64_t i64; uint64_t u64; float f32; double f64; } u;
    unsigned n = la_dtype_info(dtype)->size;
    switch (dtype) {
    case LA_DT_BOOL: case LA_DT_UINT8: u.u8 = (uint8_t)y; break;
    case LA_DT_INT8:    u.i8 = (int8_t)y; break;
    case LA_DT_INT16:   u.i16 = (int16_t)y; break;
    case LA_DT_UINT16:  u.u16 = (uint16_t)y; break;
    case LA_DT_INT32:   u.i32 = (int32_t)y; break;
    case LA_DT_UINT32:  u.u32 = (uint32_t)y; break;
    case LA_DT_UINT64:  u.u64 = (uint64_t)y; break;
    case LA_DT_FLOAT32: u.f32 = (float)y; break;
    case LA_DT_FLOAT64: u.f64 = (double)y; break;
    default:            u.i64 = y; break;
    }
    memcpy(p, &u, n);
    if (swap)
        swap_in_place(p, n);
}

/* One sample's n elements from in to out (in the output dtype): @return 1 when
 * the sample is to be dropped, else 0, with *changed counted. */
static int map_sample(const struct la_fix_plan *plan, const struct layout *l,
                      const unsigned char *in, uint64_t n, unsigned char *out, uint64_t *changed)
{
    unsigned osize = la_dtype_info(plan->out_dtype)->size;
    uint64_t ch = 0;
    for (uint64_t k = 0; k < n; k++) {
        struct la_num v;
        int64_t y;
        element_in(in + k * l->esize, l, &v);
        enum la_fix_action act = la_fix_value(plan, &v, &y);
        if (act == LA_FIX_DROP)
            return 1;
        if (act == LA_FIX_KEEP) {      /* NaN, 1.5: as it was (the dtype is the same) */
            memcpy(out + k * osize, in + k * l->esize, l->esize);
            continue;
        }
        int64_t x;
        if (!(v.kind == LA_NUM_F64 ? la_f64_label(v.v.f, &x) : (x = v.v.i, 1)) || x != y)
            ch++;
        element_out(y, plan->out_dtype, l->swap, out + k * osize);
    }
    *changed += ch;
    return 0;
}

// ---- the npy header ------------------------------------------------------------------

/* buf[0..*len) with bytes [from, to) replaced by s. @return 0, or -1 when it would not fit. */
static int replace_span(char *buf, size_t *len, size_t cap, size_t from, size_t to, const char *s)
{
    size_t n = strlen(s);
    if (*len - (to - from) + n > cap)
        return -1;
    memmove(buf + from + n, buf + to, *len - to);
    memcpy(buf + from, s, n);
    *len = *len - (to - from) + n;
    return 0;
}

/* The value after key's colon in the dict d[0..len): its start. */
static const char *value_of(const char *d, const char *key)
{
    const char *k = strstr(d, key);
    if (!k || !(k = strchr(k + strlen(key), ':')))
        return NULL;
    for (k++; *k == ' '; k++)
        ;
    return k;
}

/* The header of the copy: the original's dict with descr and shape[0] edited,
 * padded as numpy.lib.format._wrap_header pads. @return its length, or 0. */
static size_t npy_header(const struct layout *l, const char *descr, uint64_t shape0, char *out,
                         size_t cap)
{
    size_t pre = l->npy.major == 1 ? 10 : 12, len = l->head_len - pre;
    char d[4096 + 64];
    if (len >= sizeof d - 64)
        return 0;
    memcpy(d, l->head + pre, len);
    d[len] = '\0';
    while (len > 0 && (d[len - 1] == ' ' || d[len - 1] == '\n'))
        d[--len] = '\0';
    const char *v = value_of(d, "'descr'");
    if (!v || (*v != '\'' && *v != '"') || !strchr(v + 1, *v))
        return 0;
    char quoted[40];
    snprintf(quoted, sizeof quoted, "%c%s%c", *v, descr, *v);
    if (replace_span(d, &len, sizeof d - 1, (size_t)(v - d), (size_t)(strchr(v + 1, *v) + 1 - d),
               quoted) != 0)
        return 0;
    d[len] = '\0';
    const char *s = value_of(d, "'shape'");
    if (!s || *s != '(')
        return 0;
    if (l->npy.ndim > 0) {
        const char *a = s + 1, *b;
        while (*a == ' ')
            a++;
        for (b = a; *b >= '0' && *b <= '9'; b++)
            ;
        char num[24];
        snprintf(num, sizeof num, "%llu", (unsigned long long)shape0);
        if (b == a || replace_span(d, &len, sizeof d - 1, (size_t)(a - d), (size_t)(b - d), num) != 0)
            return 0;
        d[len] = '\0';
        char axis[24];
        int k = l->npy.fortran_order ? l->npy.ndim - 1 : 0;
        int digits = snprintf(axis, sizeof axis, "%llu",
                              (unsigned long long)(k == 0 ? shape0 : l->npy.shape[k]));
        for (int i = digits; i < GROWTH_AXIS_MAX_DIGITS && len < sizeof d - 1; i++)
            d[len++] = ' ';
    }
    size_t hlen = len + 1, pad = 64 - ((pre + hlen) % 64), total = pre + hlen + pad;
    if (total > cap || (l->npy.major == 1 && hlen + pad > 65535))
        return 0;
    memcpy(out, l->head, 8);
    for (size_t i = 0; i < pre - 8; i++)
        out[8 + i] = (char)(((hlen + pad) >> (8 * i)) & 0xff);
    memcpy(out + pre, d, len);
    memset(out + pre + len, ' ', pad);
    out[total - 1] = '\n';
    return total;
}

// ---- the file ------------------------------------------------------------------------

static int read_layout(struct la_fix_job *j, int fd, struct layout *l)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return snprintf(j->err, sizeof j->err, "%s", strerror(errno)), -1;
    if (j->r->info.format == LA_FMT_RAW) {
        l->dtype = j->read->dtype;
        l->esize = la_dtype_info(l->dtype)->size;
        l->swap = j->read->big_endian != la_host_is_big_endian();
        l->count = (uint64_t)st.st_size / l->esize;
        l->samples = l->count;
        l->per_sample = 1;
        return 0;
    }
    unsigned char pre[12];
    size_t total;
    if (la_pread_full(fd, pre, sizeof pre, 0) < 10 ||
        la_npy_header_size(pre, sizeof pre, &total, j->err, sizeof j->err) != 0)
        return -1;
    if (!(l->head = malloc(total)) || la_pread_full(fd, l->head, total, 0) != total)
        return snprintf(j->err, sizeof j->err, "the file changed while it was copied"), -1;
    l->head_len = total;
    if (la_npy_parse_header(l->head, total, &l->npy, j->err, sizeof j->err) < 0)
        return -1;
    l->data_offset = l->npy.data_offset;
    l->dtype = l->npy.dtype;
    l->swap = l->npy.swap;
    l->esize = la_dtype_info(l->dtype)->size;
    l->count = l->npy.count;
    l->samples = l->npy.ndim > 0 && !j->r->info.one_sample ? l->npy.shape[0] : 1;
    l->per_sample = l->samples ? l->count / l->samples : 0;
    if (l->data_offset + l->count * l->esize > (uint64_t)st.st_size)
        return snprintf(j->err, sizeof j->err, "the file changed while it was copied"), -1;
    return 0;
}

/* The copy's header: the original's, or edited when the descr or the shape changes. */
static int write_header(struct la_fix_job *j, const struct layout *l)
{
    if (j->r->info.format == LA_FMT_RAW)
        return 0;
    int retyped = j->plan->out_dtype != l->dtype;
    if (!retyped && j->n_drops == 0) {
        la_new_file_put(j->out, l->head, l->head_len);
        return 0;
    }
    char descr[32], out[8192];
    snprintf(descr, sizeof descr, "%s", l->npy.descr);
    if (retyped)      /* the byte order kept: "<i4" becomes "<i8", ">i2" ">i8" */
        snprintf(descr, sizeof descr, "%ci8", l->npy.descr[0] == '>' ? '>' : '<');
    size_t n = npy_header(l, descr, l->samples - j->n_drops, out, sizeof out);
    if (n == 0)
        return snprintf(j->err, sizeof j->err, "cannot edit this .npy header"), -1;
    la_new_file_put(j->out, out, n);
    return 0;
}

/* Every sample through map_sample: with write, the kept ones go out; without,
 * only the drops are counted (the first pass of --fix-drop, which the header's
 * shape waits for). */
static int each_sample(struct la_fix_job *j, int fd, const struct layout *l, int write)
{
    size_t sbytes = (size_t)l->per_sample * l->esize;
    size_t obytes = (size_t)l->per_sample * la_dtype_info(j->plan->out_dtype)->size;
    size_t per_block = sbytes && sbytes < BLOCK_BYTES ? BLOCK_BYTES / sbytes : 1;
    unsigned char *in = malloc(per_block * (sbytes ? sbytes : 1));
    unsigned char *out = malloc(obytes ? obytes : 1);
    size_t next_drop = 0;
    uint64_t changed = 0;
    int rc = in && out ? 0 : (snprintf(j->err, sizeof j->err, "out of memory"), -1);
    for (uint64_t s = 0; rc == 0 && s < l->samples; s += per_block) {
        uint64_t n = l->samples - s < per_block ? l->samples - s : per_block;
        if (la_pread_full(fd, in, n * sbytes, l->data_offset + s * sbytes) != n * sbytes) {
            snprintf(j->err, sizeof j->err, "the file changed while it was copied");
            rc = -1;
            break;
        }
        for (uint64_t k = 0; k < n && rc == 0; k++) {
            if (write && next_drop < j->n_drops && j->drops[next_drop] == s + k) {
                next_drop++;          /* found by the first pass */
                continue;
            }
            int dropped = map_sample(j->plan, l, in + k * sbytes, l->per_sample, out, &changed);
            if (!write && dropped)
                rc = la_fix_job_drop(j, s + k);
            else if (write)
                la_new_file_put(j->out, out, obytes);
        }
    }
    if (write)
        j->changed = changed;
    free(in);
    free(out);
    return rc;
}

int la_fix_write_array(struct la_fix_job *j)
{
    int fd = open(j->in, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return snprintf(j->err, sizeof j->err, "%s", strerror(errno)), -1;
    struct layout l = { 0 };
    int rc = read_layout(j, fd, &l);
    if (rc == 0 && (j->plan->rules & (1u << LA_FIXR_DROP)))
        rc = each_sample(j, fd, &l, 0);
    if (rc == 0)
        rc = write_header(j, &l);
    if (rc == 0)
        rc = each_sample(j, fd, &l, 1);
    free(l.head);
    close(fd);
    return rc;
}
