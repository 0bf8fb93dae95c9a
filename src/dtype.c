/* dtype.c - the element types labelaudit reads: their table, the --dtype
 * names, NumPy type strings ("<i8", ">f4", "|b1", "?") and byte swapping.
 * See dtype.h for the contracts. */
#include "dtype.h"

#include <string.h> /* memcpy, strcmp, strlen */

/* Indexed by enum la_dtype; the names are the SPEC's --dtype words. */
static const struct la_dtype_info table[LA_DT_COUNT] = {
    [LA_DT_BOOL] = {"bool", 1, 'b'},
    [LA_DT_INT8] = {"int8", 1, 'i'},
    [LA_DT_UINT8] = {"uint8", 1, 'u'},
    [LA_DT_INT16] = {"int16", 2, 'i'},
    [LA_DT_UINT16] = {"uint16", 2, 'u'},
    [LA_DT_INT32] = {"int32", 4, 'i'},
    [LA_DT_UINT32] = {"uint32", 4, 'u'},
    [LA_DT_INT64] = {"int64", 8, 'i'},
    [LA_DT_UINT64] = {"uint64", 8, 'u'},
    [LA_DT_FLOAT16] = {"float16", 2, 'f'},
    [LA_DT_FLOAT32] = {"float32", 4, 'f'},
    [LA_DT_FLOAT64] = {"float64", 8, 'f'},
};

const struct la_dtype_info *la_dtype_info(enum la_dtype dt)
{
    if ((unsigned)dt >= LA_DT_COUNT)
        return NULL;
    return &table[dt];
}

int la_dtype_from_name(const char *name, enum la_dtype *out)
{
    for (int i = 0; name && i < LA_DT_COUNT; i++) {
        if (strcmp(name, table[i].name) == 0) {
            *out = (enum la_dtype)i;
            return 0;
        }
    }
    return -1;
}

/* The dtype of NumPy kind ('b', 'i', 'u', 'f') and size, or -1. */
static int from_kind_size(char kind, unsigned size)
{
    for (int i = 0; i < LA_DT_COUNT; i++)
        if (table[i].kind == kind && table[i].size == size)
            return i;
    return -1;
}

/* NumPy's one-letter type codes (np.dtype('h') and so on). 'l', 'L', 'p'
 * are left out on purpose: their size depends on the platform that wrote
 * the file, so the file alone cannot tell. */
static int from_char_code(char c)
{
    static const char codes[] = "?bBhHiIqQefd";
    static const enum la_dtype types[] = {
        LA_DT_BOOL, LA_DT_INT8, LA_DT_UINT8, LA_DT_INT16, LA_DT_UINT16, LA_DT_INT32,
        LA_DT_UINT32, LA_DT_INT64, LA_DT_UINT64, LA_DT_FLOAT16, LA_DT_FLOAT32, LA_DT_FLOAT64,
    };
    const char *p = c ? strchr(codes, c) : NULL;
    return p ? (int)types[p - codes] : -1;
}

int la_dtype_from_numpy(const char *descr, enum la_dtype *out, int *swap)
{
    char order = '=';
    if (!descr)
        return -1;
    if (descr[0] && strchr("<>|=", descr[0]))
        order = *descr++;
    int dt = -1;
    size_t len = strlen(descr);
    if (len == 1) {
        dt = from_char_code(descr[0]);
    } else if (len == 2 && descr[1] >= '1' && descr[1] <= '8') {
        dt = from_kind_size(descr[0], (unsigned)(descr[1] - '0'));
    }
    if (dt < 0)
        return -1;
    /* '|' means "not applicable" and NumPy treats it as native for wider types */
    int little = order == '<' || ((order == '=' || order == '|') && !la_host_is_big_endian());
    *out = (enum la_dtype)dt;
    *swap = table[dt].size > 1 && little == la_host_is_big_endian();
    return 0;
}

void la_byteswap(void *data, size_t count, unsigned size)
{
    unsigned char *p = data;
    if (size == 2) {
        for (size_t i = 0; i < count; i++, p += 2) {
            uint16_t v;
            memcpy(&v, p, 2);
            v = __builtin_bswap16(v);
            memcpy(p, &v, 2);
        }
    } else if (size == 4) {
        for (size_t i = 0; i < count; i++, p += 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            v = __builtin_bswap32(v);
            memcpy(p, &v, 4);
        }
    } else if (size == 8) {
        for (size_t i = 0; i < count; i++, p += 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            v = __builtin_bswap64(v);
            memcpy(p, &v, 8);
        }
    } else if (size > 1) {
        for (size_t i = 0; i < count; i++, p += size)
            for (unsigned a = 0, b = size - 1; a < b; a++, b--) {
                unsigned char t = p[a];
                p[a] = p[b];
                p[b] = t;
            }
    }
}

int la_host_is_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 0;
}

void la_bf16_to_f32(const void *in, void *out, size_t n)
{
    const uint16_t *h = in;
    uint32_t *f = out;
    for (size_t i = 0; i < n; i++)
        f[i] = (uint32_t)h[i] << 16;
}

void la_gather_f_order(unsigned char *dst, const unsigned char *data, unsigned esize,
                       int ndim, const uint64_t *shape, uint64_t *cidx, size_t n)
{
    const int last = ndim - 1;
    uint64_t fstride[LA_MAX_DIMS];
    fstride[0] = 1;
    for (int k = 1; k < ndim; k++)
        fstride[k] = fstride[k - 1] * shape[k - 1];
    const size_t step = (size_t)fstride[last] * esize;  /* along the last axis */
    for (size_t i = 0; i < n;) {
        uint64_t off = 0;
        for (int k = 0; k < ndim; k++)
            off += cidx[k] * fstride[k];
        uint64_t run = shape[last] - cidx[last];
        run = run < n - i ? run : n - i;
        const unsigned char *src = data + off * esize;
        for (uint64_t r = 0; r < run; r++, dst += esize, src += step)
            memcpy(dst, src, esize);
        i += (size_t)run;
        cidx[last] += run;
        for (int k = last; k > 0 && cidx[k] == shape[k]; k--) {
            cidx[k] = 0;
            cidx[k - 1]++;
        }
    }
}

void la_bool_normalize(unsigned char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = v[i] != 0;
}

int la_num_cmp(struct la_num a, struct la_num b)
{
    if (a.kind == LA_NUM_F64 || b.kind == LA_NUM_F64) {
        double x = a.kind == LA_NUM_F64 ? a.v.f : a.kind == LA_NUM_U64 ? (double)a.v.u : (double)a.v.i;
        double y = b.kind == LA_NUM_F64 ? b.v.f : b.kind == LA_NUM_U64 ? (double)b.v.u : (double)b.v.i;
        return (x > y) - (x < y);
    }
    /* integers: a negative int64 is below every uint64 */
    int a_neg = a.kind == LA_NUM_I64 && a.v.i < 0, b_neg = b.kind == LA_NUM_I64 && b.v.i < 0;
    if (a_neg != b_neg)
        return a_neg ? -1 : 1;
    if (a_neg)
        return (a.v.i > b.v.i) - (a.v.i < b.v.i);
    uint64_t x = a.kind == LA_NUM_U64 ? a.v.u : (uint64_t)a.v.i;
    uint64_t y = b.kind == LA_NUM_U64 ? b.v.u : (uint64_t)b.v.i;
    return (x > y) - (x < y);
}
