/* gen_fixtures.c - write the deterministic .npy and .npz test fixtures into a
 * directory, so the tests need neither Python nor NumPy.
 *
 *   gen_fixtures DIR
 *
 * Headers are laid out as NumPy writes them (a dict padded with spaces to a
 * multiple of 64 bytes, ending in '\n'); archives as Python's zipfile writes
 * them. The unit tests #include this file with GEN_FIXTURES_NO_MAIN defined to
 * share fx_bits(), the values the dtype fixtures hold, and fx_write_all(). */
#include <errno.h>    /* errno, EEXIST */
#include <stdint.h>   /* uint64_t */
#include <stdio.h>    /* fopen, fwrite, snprintf */
#include <stdlib.h>   /* malloc, realloc, free */
#include <string.h>   /* memcpy, strlen */
#include <sys/stat.h> /* mkdir */
#include <zlib.h>     /* deflate, crc32 */

// ---- a growing byte buffer ------------------------------------------------

struct blob {
    unsigned char *p;
    size_t len, cap;
};

static void put(struct blob *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* The low size bytes of v, little- or big-endian. */
static void put_uint(struct blob *b, uint64_t v, unsigned size, int big)
{
    unsigned char t[8];
    for (unsigned i = 0; i < size; i++)
        t[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
    put(b, t, size);
}

static void put_le(struct blob *b, uint64_t v, unsigned size)
{
    put_uint(b, v, size, 0);
}

static int save(const char *dir, const char *name, const struct blob *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0) {
        fprintf(stderr, "gen_fixtures: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

// ---- .npy -----------------------------------------------------------------

/* A .npy file: version major, the dict's three values, then nbytes of data. */
static void npy(struct blob *b, int major, const char *descr, int fortran, const char *shape,
                const void *data, size_t nbytes)
{
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                     descr, fortran ? "True" : "False", shape);
    size_t pre = major == 1 ? 10 : 12;
    size_t total = (pre + (size_t)n + 1 + 63) / 64 * 64;
    put(b, "\x93NUMPY", 6);
    put_le(b, (uint64_t)major, 1);
    put_le(b, 0, 1);
    put_le(b, total - pre, pre - 8);
    put(b, dict, (size_t)n);
    while (b->len < total - 1)
        put(b, " ", 1);
    put(b, "\n", 1);
    put(b, data, nbytes);
}

static int save_npy(const char *dir, const char *name, int major, const char *descr,
                    int fortran, const char *shape, const void *data, size_t nbytes)
{
    struct blob b = {0};
    npy(&b, major, descr, fortran, shape, data, nbytes);
    int rc = save(dir, name, &b);
    free(b.p);
    return rc;
}

/* The twelve dtypes as (name, NumPy kind letter, size), in enum la_dtype order. */
static const struct { const char *name; char kind; unsigned size; } fx_types[12] = {
    {"bool", 'b', 1}, {"int8", 'i', 1}, {"uint8", 'u', 1}, {"int16", 'i', 2},
    {"uint16", 'u', 2}, {"int32", 'i', 4}, {"uint32", 'u', 4}, {"int64", 'i', 8},
    {"uint64", 'u', 8}, {"float16", 'f', 2}, {"float32", 'f', 4}, {"float64", 'f', 8},
};

#define FX_N 8

/* The bits of value k of the dtype fixture t: small labels, the extremes, a
 * value whose bytes differ (a wrong byte order shows), and for floats NaN,
 * +-Inf, the smallest subnormal and the largest finite value. */
static uint64_t fx_bits(int t, int k)
{
    static const uint64_t f16[FX_N] = {0x0000, 0x3C00, 0x4000, 0x7E00, 0x7C00, 0xFC00,
                                       0x0001, 0x7BFF};
    static const uint64_t f32[FX_N] = {0, 0x3F800000, 0x40000000, 0xBFC00000, 0x7FC00000,
                                       0x7F800000, 0x00000001, 0x43811000}; /* 258.125 */
    static const uint64_t f64[FX_N] = {0, 0x3FF0000000000000, 0x4000000000000000,
                                       0xBFF8000000000000, 0x7FF8000000000000,
                                       0xFFF0000000000000, 0x0000000000000001,
                                       0x4070220000000000}; /* 258.125 */
    static const uint64_t flags[FX_N] = {1, 0, 1, 1, 0, 0, 1, 0};
    unsigned bits = fx_types[t].size * 8;
    uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    switch (fx_types[t].kind) {
    case 'b': return flags[k];
    case 'f': return bits == 16 ? f16[k] : bits == 32 ? f32[k] : f64[k];
    default: break;
    }
    int sign = fx_types[t].kind == 'i';
    uint64_t max = sign ? mask >> 1 : mask;
    uint64_t special = bits == 8 ? 0x81 : 0x0102;             /* 258 */
    uint64_t v = k < 5 ? (uint64_t)k : k == 5 ? max : k == 6 ? (sign ? max + 1 : special)
               : bits == 8 ? 100 : (uint64_t)0x0102;
    return v & mask;
}

static int write_dtypes(const char *dir)
{
    for (int t = 0; t < 12; t++) {
        for (int big = 0; big < 2; big++) {
            struct blob data = {0};
            for (int k = 0; k < FX_N; k++)
                put_uint(&data, fx_bits(t, k), fx_types[t].size, big);
            char descr[8], name[64];
            char order = fx_types[t].size == 1 ? '|' : big ? '>' : '<';
            snprintf(descr, sizeof descr, "%c%c%u", order, fx_types[t].kind, fx_types[t].size);
            snprintf(name, sizeof name, "%s_%s.npy", fx_types[t].name, big ? "be" : "le");
            int rc = save_npy(dir, name, 1, descr, 0, "(8,)", data.p, data.len);
            free(data.p);
            if (rc)
                return -1;
        }
    }
    return 0;
}

// ---- arrays with a meaning ------------------------------------------------

#define FX_LABELS 1000

/* Classes 0..9, with out-of-range values at 17 (10), 123 (-1), 500 (255) and
 * an ignored -100 at 999. */
static void fx_labels(struct blob *b)
{
    for (int i = 0; i < FX_LABELS; i++) {
        int64_t v = i % 10;
        v = i == 17 ? 10 : i == 123 ? -1 : i == 500 ? 255 : i == 999 ? -100 : v;
        put_le(b, (uint64_t)v, 8);
    }
}

/* arange(n) as int64, little-endian, laid out in C or Fortran order for shape
 * (d0, d1[, d2]); d2 == 0 means 2-D. */
static void fx_arange(struct blob *b, unsigned size, int big, int fortran,
                      unsigned d0, unsigned d1, unsigned d2)
{
    unsigned n2 = d2 ? d2 : 1;
    for (unsigned f = 0; f < d0 * d1 * n2; f++) {
        unsigned i = f, j, k;
        if (fortran) {                 /* f = i + d0 * (j + d1 * k) */
            j = (i / d0) % d1;
            k = i / (d0 * d1);
            i %= d0;
        } else {                       /* f = (i * d1 + j) * n2 + k */
            k = f % n2;
            j = (f / n2) % d1;
            i = f / (n2 * d1);
        }
        put_uint(b, (uint64_t)((i * d1 + j) * n2 + k), size, big);
    }
}

static int write_shapes(const char *dir)
{
    struct blob b = {0};
    int rc = 0;
    fx_arange(&b, 4, 0, 0, 3, 4, 0);
    rc |= save_npy(dir, "c2d.npy", 1, "<i4", 0, "(3, 4)", b.p, b.len);
    b.len = 0;
    fx_arange(&b, 1, 0, 0, 2, 3, 4);
    rc |= save_npy(dir, "c3d.npy", 1, "|u1", 0, "(2, 3, 4)", b.p, b.len);
    b.len = 0;
    fx_arange(&b, 8, 0, 1, 3, 4, 0);
    rc |= save_npy(dir, "fortran2d.npy", 1, "<i8", 1, "(3, 4)", b.p, b.len);
    b.len = 0;
    fx_arange(&b, 2, 1, 1, 2, 3, 4);
    rc |= save_npy(dir, "fortran3d_be.npy", 1, ">i2", 1, "(2, 3, 4)", b.p, b.len);
    b.len = 0;
    for (int i = 0; i < 10 * 8 * 8; i++) {                 /* a (10, 8, 8) mask */
        int img = i / 64, y = i / 8 % 8, x = i % 8;
        int v = (img + y * 3 + x) % 5;
        if ((img == 3 && y == 0 && x == 0) || (img == 3 && y == 4 && x == 5)
            || (img == 7 && y == 7 && x == 7))
            v = 255;
        put_le(&b, (uint64_t)v, 1);
    }
    rc |= save_npy(dir, "mask_uint8.npy", 1, "|u1", 0, "(10, 8, 8)", b.p, b.len);
    free(b.p);
    return rc;
}

static int write_misc(const char *dir)
{
    struct blob b = {0};
    int rc = 0;
    fx_labels(&b);
    rc |= save_npy(dir, "labels_int64.npy", 1, "<i8", 0, "(1000,)", b.p, b.len);
    rc |= save_npy(dir, "truncated.npy", 1, "<i8", 0, "(1000,)", b.p, 150 * 8);
    static const char *const versions[3] = {"v1.npy", "v2.npy", "v3.npy"};
    for (int v = 1; v <= 3; v++)
        rc |= save_npy(dir, versions[v - 1], v, "<i8", 0, "(5,)", b.p, 5 * 8);
    b.len = 5 * 8;
    put(&b, "twelve bytes", 12);
    rc |= save_npy(dir, "trailing.npy", 1, "<i8", 0, "(5,)", b.p, b.len);
    b.len = 0;
    for (int k = 0; k < FX_N; k++)
        put_le(&b, fx_bits(9, k), 2);
    rc |= save_npy(dir, "float16.npy", 1, "<f2", 0, "(8,)", b.p, b.len);
    rc |= save_npy(dir, "bool.npy", 1, "|b1", 0, "(5,)", "\1\0\1\1\0", 5);
    rc |= save_npy(dir, "empty.npy", 1, "<i8", 0, "(0,)", NULL, 0);
    rc |= save_npy(dir, "empty2d.npy", 1, "<f4", 0, "(0, 5)", NULL, 0);
    rc |= save_npy(dir, "scalar.npy", 1, "<i8", 0, "()", "\7\0\0\0\0\0\0\0", 8);
    rc |= save_npy(dir, "complex.npy", 1, "<c16", 0, "(1,)", "0123456789abcdef", 16);
    b.len = 0;
    npy(&b, 1, "<i8", 0, "(1,)", "\1\0\0\0\0\0\0\0", 8);
    b.p[5] = 'X';
    rc |= save(dir, "badmagic.npy", &b);
    free(b.p);
    return rc;
}

// ---- .npz -----------------------------------------------------------------

struct zentry {
    const char *name;
    const unsigned char *data;
    size_t len;
    int deflate;
};

struct zopts {
    int zip64;         /* zip64 extra fields and end records, as NumPy forces */
    int bad_crc;       /* record a wrong CRC-32 */
    unsigned flags;    /* general purpose flags (1: encrypted) */
    int method;        /* > 0: record this method for stored data */
    const char *comment;
};

static void deflate_raw(const unsigned char *p, size_t n, struct blob *out)
{
    z_stream z = {0};
    unsigned char buf[65536];
    if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    z.next_in = (unsigned char *)p;
    z.avail_in = (uInt)n;
    int zr;
    do {
        z.next_out = buf;
        z.avail_out = sizeof buf;
        zr = deflate(&z, Z_FINISH);
        put(out, buf, sizeof buf - z.avail_out);
    } while (zr == Z_OK);
    deflateEnd(&z);
}

struct zrec {
    uint32_t crc;
    uint64_t csize, usize, off;
    unsigned method;
};

static void zip_local(struct blob *b, const struct zentry *e, const struct zopts *o,
                      struct zrec *rec)
{
    struct blob c = {0};
    if (e->deflate)
        deflate_raw(e->data, e->len, &c);
    else
        put(&c, e->data, e->len);
    rec->crc = (uint32_t)crc32(0, e->data, (uInt)e->len) ^ (o->bad_crc ? 0xDEADBEEF : 0);
    rec->csize = c.len;
    rec->usize = e->len;
    rec->off = b->len;
    rec->method = e->deflate ? 8 : o->method > 0 ? (unsigned)o->method : 0;
    size_t nlen = strlen(e->name);
    put_le(b, 0x04034b50, 4);
    put_le(b, o->zip64 ? 45 : 20, 2);
    put_le(b, o->flags, 2);
    put_le(b, rec->method, 2);
    put_le(b, 0, 2);                              /* time */
    put_le(b, 0x21, 2);                           /* 1980-01-01 */
    put_le(b, rec->crc, 4);
    put_le(b, o->zip64 ? 0xFFFFFFFF : rec->csize, 4);
    put_le(b, o->zip64 ? 0xFFFFFFFF : rec->usize, 4);
    put_le(b, nlen, 2);
    put_le(b, o->zip64 ? 20 : 0, 2);
    put(b, e->name, nlen);
    if (o->zip64) {
        put_le(b, 1, 2);
        put_le(b, 16, 2);
        put_le(b, rec->usize, 8);
        put_le(b, rec->csize, 8);
    }
    put(b, c.p, c.len);
    free(c.p);
}

static void zip_central(struct blob *b, const struct zentry *e, const struct zopts *o,
                        const struct zrec *rec)
{
    size_t nlen = strlen(e->name);
    put_le(b, 0x02014b50, 4);
    put_le(b, 0x0314, 2);                         /* made by: Unix, 2.0 */
    put_le(b, o->zip64 ? 45 : 20, 2);
    put_le(b, o->flags, 2);
    put_le(b, rec->method, 2);
    put_le(b, 0, 2);
    put_le(b, 0x21, 2);
    put_le(b, rec->crc, 4);
    put_le(b, o->zip64 ? 0xFFFFFFFF : rec->csize, 4);
    put_le(b, o->zip64 ? 0xFFFFFFFF : rec->usize, 4);
    put_le(b, nlen, 2);
    put_le(b, o->zip64 ? 28 : 0, 2);
    put_le(b, 0, 2);                              /* comment */
    put_le(b, 0, 2);                              /* disk */
    put_le(b, 0, 2);
    put_le(b, 0x81A40000, 4);                     /* -rw-r--r-- */
    put_le(b, o->zip64 ? 0xFFFFFFFF : rec->off, 4);
    put(b, e->name, nlen);
    if (o->zip64) {
        put_le(b, 1, 2);
        put_le(b, 24, 2);
        put_le(b, rec->usize, 8);
        put_le(b, rec->csize, 8);
        put_le(b, rec->off, 8);
    }
}

static void zip_end(struct blob *b, size_t n, uint64_t cd_off, uint64_t cd_size,
                    const struct zopts *o)
{
    if (o->zip64) {
        uint64_t rec = b->len;
        put_le(b, 0x06064b50, 4);
        put_le(b, 44, 8);
        put_le(b, 45, 2);
        put_le(b, 45, 2);
        put_le(b, 0, 4);
        put_le(b, 0, 4);
        put_le(b, n, 8);
        put_le(b, n, 8);
        put_le(b, cd_size, 8);
        put_le(b, cd_off, 8);
        put_le(b, 0x07064b50, 4);
        put_le(b, 0, 4);
        put_le(b, rec, 8);
        put_le(b, 1, 4);
    }
    size_t clen = o->comment ? strlen(o->comment) : 0;
    put_le(b, 0x06054b50, 4);
    put_le(b, 0, 2);
    put_le(b, 0, 2);
    put_le(b, o->zip64 ? 0xFFFF : n, 2);
    put_le(b, o->zip64 ? 0xFFFF : n, 2);
    put_le(b, o->zip64 ? 0xFFFFFFFF : cd_size, 4);
    put_le(b, o->zip64 ? 0xFFFFFFFF : cd_off, 4);
    put_le(b, clen, 2);
    put(b, o->comment, clen);
}

/* A whole archive of n entries. *cd_end gets where the central directory ends. */
static void zip(struct blob *b, const struct zentry *e, size_t n, const struct zopts *o,
                size_t *cd_end)
{
    struct zrec rec[8];
    for (size_t i = 0; i < n; i++)
        zip_local(b, &e[i], o, &rec[i]);
    uint64_t cd_off = b->len;
    for (size_t i = 0; i < n; i++)
        zip_central(b, &e[i], o, &rec[i]);
    if (cd_end)
        *cd_end = b->len;
    zip_end(b, n, cd_off, b->len - cd_off, o);
}

static int save_zip(const char *dir, const char *name, const struct zentry *e, size_t n,
                    const struct zopts *o)
{
    struct blob b = {0};
    zip(&b, e, n, o, NULL);
    int rc = save(dir, name, &b);
    free(b.p);
    return rc;
}

/* The .npy bytes members hold: labels (int64, 1000), a small x and y, a big
 * y that spans several chunks, and a Fortran-order (3, 4). */
struct fx_members {
    struct blob labels, x, y, big, fortran;
};

#define FX_BIG 400000

static void make_members(struct fx_members *m)
{
    struct blob d = {0};
    fx_labels(&d);
    npy(&m->labels, 1, "<i8", 0, "(1000,)", d.p, d.len);
    d.len = 0;
    for (int i = 0; i < 8; i++)
        put_le(&d, 0x3F800000, 4);                  /* 1.0f */
    npy(&m->x, 1, "<f4", 0, "(4, 2)", d.p, d.len);
    d.len = 0;
    for (int i = 0; i < 4; i++)
        put_le(&d, (uint64_t)(3 - i), 8);
    npy(&m->y, 1, "<i8", 0, "(4,)", d.p, d.len);
    d.len = 0;
    for (int i = 0; i < FX_BIG; i++)
        put_le(&d, (uint64_t)(i % 7), 8);
    npy(&m->big, 3, "<i8", 0, "(400000,)", d.p, d.len);
    d.len = 0;
    fx_arange(&d, 8, 0, 1, 3, 4, 0);
    npy(&m->fortran, 1, "<i8", 1, "(3, 4)", d.p, d.len);
    free(d.p);
}

#define ENTRY(n, blob, def) {(n), (blob).p, (blob).len, (def)}

static int write_npz_good(const char *dir, const struct fx_members *m)
{
    struct zopts plain = {0}, z64 = {.zip64 = 1};
    struct zopts comment = {.comment = "labels for the test split"};
    /* A comment that holds the end record's signature: the real record is the one
     * whose comment ends the file. */
    struct zopts fake = {.comment = "fake end record: PK\5\6 ... inside a comment"};
    struct zentry stored[1] = {ENTRY("labels.npy", m->labels, 0)};
    struct zentry deflated[1] = {ENTRY("labels.npy", m->labels, 1)};
    struct zentry zip64[2] = {ENTRY("x.npy", m->x, 0), ENTRY("y.npy", m->big, 1)};
    struct zentry big[1] = {ENTRY("y.npy", m->big, 1)};
    struct zentry xy[2] = {ENTRY("x.npy", m->x, 1), ENTRY("y.npy", m->y, 1)};
    struct zentry amb[3] = {ENTRY("x.npy", m->x, 0), ENTRY("y2.npy", m->y, 0),
                            ENTRY("z.npy", m->y, 0)};
    struct zentry fst[1] = {ENTRY("y.npy", m->fortran, 0)};
    struct zentry fdf[1] = {ENTRY("y.npy", m->fortran, 1)};
    struct zentry notes[2] = {{"notes.txt", (const unsigned char *)"hello\n", 6, 0},
                              ENTRY("labels.npy", m->labels, 1)};
    int rc = save_zip(dir, "stored.npz", stored, 1, &plain);
    rc |= save_zip(dir, "deflated.npz", deflated, 1, &plain);
    rc |= save_zip(dir, "zip64.npz", zip64, 2, &z64);
    rc |= save_zip(dir, "big_deflated.npz", big, 1, &plain);
    rc |= save_zip(dir, "xy.npz", xy, 2, &plain);
    rc |= save_zip(dir, "ambiguous.npz", amb, 3, &plain);
    rc |= save_zip(dir, "fortran_stored.npz", fst, 1, &plain);
    rc |= save_zip(dir, "fortran_deflated.npz", fdf, 1, &plain);
    rc |= save_zip(dir, "with_notes.npz", notes, 2, &plain);
    rc |= save_zip(dir, "comment.npz", stored, 1, &comment);
    rc |= save_zip(dir, "comment_fake_eocd.npz", stored, 1, &fake);
    rc |= save_zip(dir, "no_arrays.npz", notes, 1, &plain);
    return rc;
}

static int write_npz_bad(const char *dir, const struct fx_members *m)
{
    struct zopts plain = {0}, crc = {.bad_crc = 1}, enc = {.flags = 1}, bz = {.method = 12};
    struct zentry stored[1] = {ENTRY("y.npy", m->labels, 0)};
    struct zentry deflated[1] = {ENTRY("y.npy", m->big, 1)};
    struct zentry xy[2] = {ENTRY("x.npy", m->x, 0), ENTRY("y.npy", m->y, 0)};
    struct zentry text[1] = {{"y.npy", (const unsigned char *)"hello, world\n", 13, 0}};
    int rc = save_zip(dir, "badcrc.npz", stored, 1, &crc);
    rc |= save_zip(dir, "badcrc_deflated.npz", deflated, 1, &crc);
    rc |= save_zip(dir, "encrypted.npz", stored, 1, &enc);
    rc |= save_zip(dir, "method12.npz", stored, 1, &bz);
    rc |= save_zip(dir, "notnpy.npz", text, 1, &plain);

    /* The directory loses its last 10 bytes; the end record still claims them. */
    struct blob b = {0};
    size_t cd_end;
    zip(&b, xy, 2, &plain, &cd_end);
    memmove(b.p + cd_end - 10, b.p + cd_end, b.len - cd_end);
    b.len -= 10;
    rc |= save(dir, "truncated_cd.npz", &b);
    b.len = 0;
    zip(&b, deflated, 1, &plain, NULL);              /* a download cut short */
    b.len /= 2;
    rc |= save(dir, "cut.npz", &b);
    free(b.p);
    return rc;
}

static int write_npz(const char *dir)
{
    struct fx_members m;
    memset(&m, 0, sizeof m);
    make_members(&m);
    int rc = write_npz_good(dir, &m) | write_npz_bad(dir, &m);
    free(m.labels.p);
    free(m.x.p);
    free(m.y.p);
    free(m.big.p);
    free(m.fortran.p);
    return rc;
}

/* Every fixture into dir (created if missing). @return 0, or -1. */
static int fx_write_all(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gen_fixtures: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    if (write_dtypes(dir) || write_shapes(dir) || write_misc(dir) || write_npz(dir))
        return -1;
    return 0;
}

#ifndef GEN_FIXTURES_NO_MAIN
int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_fixtures DIR\n");
        return 2;
    }
    return fx_write_all(argv[1]) == 0 ? 0 : 1;
}
#endif
