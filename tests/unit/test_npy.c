/* test_npy.c - TAP tests for dtype.c, npy_header.c and read_npy.c.
 *
 *   gcc -std=c11 -D_GNU_SOURCE -Isrc -Isrc/read src/dtype.c src/read/npy_header.c src/read/read_npy.c \
 *       tests/unit/test_npy.c -lz -o test_npy
 *
 * The fixtures come from tests/gen/gen_fixtures.c, included here, written into a
 * fresh temporary directory. The TAP plan is printed last. */
#include <stdio.h>  /* printf, fopen */
#include <stdlib.h> /* mkdtemp, free */
#include <string.h> /* strstr */
#include "npy_header.h"
#include "reader.h"
#include "file_source.h" /* the byte source these tests read through */
#include "tap.h"

#define GEN_FIXTURES_NO_MAIN
#include "../gen/gen_fixtures.c"

#define HAS(haystack, needle) (strstr((haystack), (needle)) != NULL)


static char dir[256];

/* Everything a reader produced from one file. */
static void read_file(const char *path, const char *as, struct got *g)
{
    struct la_read_opts cfg = {0};
    fs_read_all(&la_reader_npy, path, as, 0, &cfg, g);
}

static void read_fixture(const char *name, const char *as, struct got *g)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    read_file(path, as, g);
}

/* Value i as a uint64 of its size's bits (host order). */
static uint64_t bits_at(const struct got *g, uint64_t i)
{
    size_t sz = la_dtype_info(g->dtype)->size;
    uint64_t v = 0;
    if (sz == 1) { uint8_t x; memcpy(&x, g->v + i, 1); v = x; }
    if (sz == 2) { uint16_t x; memcpy(&x, g->v + i * 2, 2); v = x; }
    if (sz == 4) { uint32_t x; memcpy(&x, g->v + i * 4, 4); v = x; }
    if (sz == 8) { memcpy(&v, g->v + i * 8, 8); }
    return v;
}

static int is_arange(const struct got *g, uint64_t n)
{
    if (g->rc != 0 || g->n != n)
        return 0;
    for (uint64_t i = 0; i < n; i++)
        if (bits_at(g, i) != i)
            return 0;
    return 1;
}

/* Like is_arange, for a read that failed after its chunks. */
static int is_arange_prefix(const struct got *g, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (i >= g->n || bits_at(g, i) != i)
            return 0;
    return g->n == n;
}

// ---- the header parser ------------------------------------------------------

/* A header of version major around dict, padded as NumPy pads it. */
static struct blob hdr(int major, const char *dict)
{
    struct blob b = {0};
    size_t pre = major == 1 ? 10 : 12;
    put(&b, "\x93NUMPY", 6);
    put_le(&b, (uint64_t)major, 1);
    put_le(&b, 0, 1);
    put_le(&b, strlen(dict), pre - 8);
    put(&b, dict, strlen(dict));
    return b;
}

static long parse(int major, const char *dict, struct la_npy_header *h, char *err)
{
    struct blob b = hdr(major, dict);
    long rc = la_npy_parse_header(b.p, b.len, h, err, LA_ERR_LEN);
    free(b.p);
    return rc;
}

static void test_header_ok(void)
{
    struct la_npy_header h;
    char err[LA_ERR_LEN] = "";
    const char *d = "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }";
    for (int v = 1; v <= 3; v++) {
        long rc = parse(v, d, &h, err);
        TAP_OK(rc == (long)(strlen(d) + (v == 1 ? 10 : 12)) && h.major == v && h.ndim == 1
           && h.shape[0] == 5 && h.count == 5 && h.nbytes == 40 && h.dtype == LA_DT_INT64
           && !h.fortran_order, "header v%d.0 parses (%s)", v, err);
    }
    TAP_OK(parse(1, "{'shape': (3, 4, 5), 'fortran_order': True, 'descr': '>f4'}", &h, err) > 0
       && h.ndim == 3 && h.count == 60 && h.fortran_order && h.dtype == LA_DT_FLOAT32
       && h.swap == !la_host_is_big_endian(), "keys in any order, no trailing comma");
    TAP_OK(parse(1, "  { 'descr' : '|u1' , 'fortran_order' : False ,\t'shape' : ( 5 , ) , }  \n",
             &h, err) > 0 && h.count == 5 && h.dtype == LA_DT_UINT8 && !h.swap,
       "spaces everywhere and trailing commas");
    TAP_OK(parse(1, "{\"descr\": \"<f2\", \"fortran_order\": False, \"shape\": (2, 3,)}", &h, err) > 0
       && h.count == 6 && h.dtype == LA_DT_FLOAT16, "double-quoted strings");
    TAP_OK(parse(1, "{'descr': '<i8', 'fortran_order': False, 'shape': ()}", &h, err) > 0
       && h.ndim == 0 && h.count == 1 && h.nbytes == 8, "() is a scalar: one value");
    TAP_OK(parse(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (0, 5)}", &h, err) > 0
       && h.ndim == 2 && h.count == 0 && h.nbytes == 0, "a zero dimension: empty");
    TAP_OK(parse(1, "{'descr': '<i8', 'fortran_order': False, "
                "'shape': (4294967296, 0, 4294967296)}", &h, err) > 0 && h.count == 0,
       "a zero dimension never overflows");
    TAP_OK(parse(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (5L, 2L)}", &h, err) > 0
       && h.count == 10, "Python 2 long literals (5L,)");
    TAP_OK(parse(1, "{'descr': '?', 'fortran_order': False, 'shape': (3,)}", &h, err) > 0
       && h.dtype == LA_DT_BOOL, "descr '?' is bool");
}

struct bad_case {
    const char *dict;
    const char *msg;           /* expected in the error */
    const char *at;            /* the error's offset is where this text starts, or NULL */
};

static void test_header_errors(void)
{
    static const struct bad_case cases[] = {
        {"{'descr': '<i8', 'fortran_order': False}", "lacks the key 'shape'", NULL},
        {"{'descr': '<i8', 'foo': 1, 'fortran_order': False, 'shape': (1,)}",
         "unknown key 'foo'", "'foo'"},
        {"{'descr': '<i8', 'descr': '<i8', 'fortran_order': False, 'shape': (1,)}",
         "appears twice", "'descr': '<i8', 'f"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (5)}", "must be a tuple", ")}"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (-5,)}", "negative", "-5"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': 5}", "must be a tuple", "5}"},
        {"{'descr': '<i8', 'fortran_order': 0, 'shape': (5,)}", "True or False", "0,"},
        {"{'descr': '<i8', 'fortran_order': Falsey, 'shape': (5,)}", "True or False", NULL},
        {"{'descr': '<c16', 'fortran_order': False, 'shape': (5,)}",
         "unsupported dtype '<c16'", "'<c16'"},
        {"{'descr': '|S5', 'fortran_order': False, 'shape': (5,)}", "unsupported dtype '|S5'",
         NULL},
        {"{'descr': '|O', 'fortran_order': False, 'shape': (5,)}", "unsupported dtype '|O'",
         NULL},
        {"{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (5,)}",
         "unsupported dtype '<M8[ns]'", NULL},
        {"{'descr': '<U3', 'fortran_order': False, 'shape': (5,)}", "unsupported dtype", NULL},
        {"{'descr': '<f16', 'fortran_order': False, 'shape': (5,)}", "unsupported dtype", NULL},
        {"{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (5,)}",
         "structured", "[("},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (5,)} x", "after the header", "x"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (5,)", "header ends", NULL},
        {"{'descr': '<i8' 'fortran_order': False, 'shape': (5,)}", "expected ','", NULL},
        {"{'descr' '<i8', 'fortran_order': False, 'shape': (5,)}", "expected ':'", NULL},
        {"['descr', '<i8']", "expected '{'", "['"},
        {"{'descr: '<i8', 'fortran_order': False, 'shape': (5,)}", "", NULL},
        {"{'descr': 'a\\x', 'fortran_order': False, 'shape': (5,)}", "unsupported character",
         NULL},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
         "shape (4294967296, 4294967296) overflows 64 bits", "(4294967296, 4"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (2305843009213693952,)}",
         "shape (2305843009213693952,) overflows 64 bits", NULL},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (9223372036854775808,)}",
         "dimension too large", NULL},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
         "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}", "more than 32 dimensions", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct la_npy_header h;
        char err[LA_ERR_LEN] = "", want[32] = "byte ";
        long rc = parse(1, cases[i].dict, &h, err);
        if (cases[i].at)
            snprintf(want, sizeof want, "byte %zu: ",
                     (size_t)(10 + (strstr(cases[i].dict, cases[i].at) - cases[i].dict)));
        TAP_OK(rc == -1 && strncmp(err, want, strlen(want)) == 0 && HAS(err, cases[i].msg)
           && !strchr(err, '\n'), "bad header %zu: %s", i + 1, err);
    }
}

static void test_preamble_errors(void)
{
    char err[LA_ERR_LEN];
    struct la_npy_header h;
    const char *d = "{'descr': '<i8', 'fortran_order': False, 'shape': (5,)}";
    struct blob b = hdr(1, d);
    b.p[3] = 'X';
    TAP_OK(la_npy_parse_header(b.p, b.len, &h, err, sizeof err) == -1
       && strcmp(err, "byte 0: not a .npy file (bad magic)") == 0, "bad magic: %s", err);
    b.p[3] = 'M';
    b.p[6] = 4;
    TAP_OK(la_npy_parse_header(b.p, b.len, &h, err, sizeof err) == -1
       && strcmp(err, "byte 6: unsupported .npy version 4.0") == 0, "version 4.0: %s", err);
    b.p[6] = 1;
    TAP_OK(la_npy_parse_header(b.p, b.len - 5, &h, err, sizeof err) == -1
       && HAS(err, "file ends inside the header"), "header cut short: %s", err);
    TAP_OK(la_npy_parse_header(b.p, 7, &h, err, sizeof err) == -1
       && strcmp(err, "byte 7: file ends inside the .npy preamble") == 0, "preamble cut: %s",
       err);
    TAP_OK(la_npy_parse_header(b.p, 0, &h, err, sizeof err) == -1 && HAS(err, "bad magic"),
       "empty buffer: %s", err);
    free(b.p);
    b = hdr(2, d);
    b.p[8] = 0, b.p[9] = 0, b.p[10] = 0x20, b.p[11] = 0;      /* 2 MiB */
    TAP_OK(la_npy_parse_header(b.p, b.len, &h, err, sizeof err) == -1
       && HAS(err, "byte 8: header length 2097152 is over"), "huge header length: %s", err);
    b.p[10] = 0, b.p[11] = 0x80;                             /* 2 GiB */
    TAP_OK(la_npy_parse_header(b.p, b.len, &h, err, sizeof err) == -1 && HAS(err, "byte 8:"),
       "huge v2 header length: %s", err);
    free(b.p);
}

// ---- dtype.c ----------------------------------------------------------------

static void test_dtype(void)
{
    static const struct { const char *descr; enum la_dtype dt; int little; } ok[] = {
        {"<i8", LA_DT_INT64, 1}, {">f4", LA_DT_FLOAT32, 0}, {"|u1", LA_DT_UINT8, 1},
        {"|b1", LA_DT_BOOL, 1}, {"=i4", LA_DT_INT32, -1}, {"<f2", LA_DT_FLOAT16, 1},
        {"|i1", LA_DT_INT8, 1}, {"<u8", LA_DT_UINT64, 1}, {"?", LA_DT_BOOL, -1},
        {">u2", LA_DT_UINT16, 0}, {"<f8", LA_DT_FLOAT64, 1}, {">i2", LA_DT_INT16, 0},
        {"<u4", LA_DT_UINT32, 1}, {"b", LA_DT_INT8, -1}, {"<q", LA_DT_INT64, 1},
        {">d", LA_DT_FLOAT64, 0}, {"e", LA_DT_FLOAT16, -1},
    };
    int good = 1, big = la_host_is_big_endian();
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        enum la_dtype dt;
        int swap = -1;
        int want_swap = ok[i].little < 0 || la_dtype_info(ok[i].dt)->size == 1 ? 0
                      : ok[i].little == big;
        if (la_dtype_from_numpy(ok[i].descr, &dt, &swap) != 0 || dt != ok[i].dt
            || swap != want_swap) {
            good = 0;
            printf("# %s\n", ok[i].descr);
        }
    }
    TAP_OK(good, "la_dtype_from_numpy reads NumPy type strings and byte orders");
    static const char *const bad[] = {"<c16", "|S5", "|O", "<M8[ns]", "<U3", "|V8", "<f16",
                                      "", "<", "l", "<i3", "<i8x", "!i4", "<b2", NULL};
    good = 1;
    for (int i = 0; bad[i]; i++) {
        enum la_dtype dt;
        int swap;
        if (la_dtype_from_numpy(bad[i], &dt, &swap) == 0) {
            good = 0;
            printf("# accepted %s\n", bad[i]);
        }
    }
    TAP_OK(good, "la_dtype_from_numpy rejects complex, strings, objects, datetimes, 'l'");
    good = 1;
    for (int t = 0; t < LA_DT_COUNT; t++) {
        enum la_dtype dt;
        good &= la_dtype_from_name(fx_types[t].name, &dt) == 0 && (int)dt == t
                && la_dtype_info(dt)->size == fx_types[t].size
                && la_dtype_info(dt)->kind == fx_types[t].kind;
    }
    enum la_dtype dt;
    TAP_OK(good && la_dtype_from_name("int128", &dt) == -1 && la_dtype_from_name(NULL, &dt) == -1
       && la_dtype_info(LA_DT_COUNT) == NULL, "dtype names, sizes and kinds");
    uint16_t a = 0x0102;
    uint32_t b = 0x01020304;
    uint64_t c[2] = {0x0102030405060708, 0x1122334455667788};
    unsigned char d[3] = {1, 2, 3};
    la_byteswap(&a, 1, 2);
    la_byteswap(&b, 1, 4);
    la_byteswap(c, 2, 8);
    la_byteswap(d, 1, 3);
    TAP_OK(a == 0x0201 && b == 0x04030201 && c[0] == 0x0807060504030201
       && c[1] == 0x8877665544332211 && d[0] == 3 && d[2] == 1, "la_byteswap 2, 4, 8, 3 bytes");
    TAP_OK(la_host_is_big_endian() == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__),
       "la_host_is_big_endian");
}

// ---- read_npy.c ---------------------------------------------------------------

static void test_dtypes_read(void)
{
    for (int t = 0; t < LA_DT_COUNT; t++) {
        for (int be = 0; be < 2; be++) {
            char name[64];
            struct got g;
            snprintf(name, sizeof name, "%s_%s.npy", fx_types[t].name, be ? "be" : "le");
            read_fixture(name, be ? "-" : NULL, &g);
            int good = g.rc == 0 && g.n == FX_N && (int)g.dtype == t
                       && (int)g.info.dtype == t && g.info.ndim == 1 && g.info.shape[0] == 8
                       && g.info.shape_known;
            for (int k = 0; good && k < FX_N; k++)
                good = bits_at(&g, (uint64_t)k) == fx_bits(t, k);
            TAP_OK(good, "%s reads the right values (%s)", name, g.err);
            free(g.v);
        }
    }
    /* Independent of the generator: big-endian int32 258 is 00 00 01 02. */
    struct got g;
    read_fixture("int32_be.npy", NULL, &g);
    int32_t v7;
    memcpy(&v7, g.v + 7 * 4, 4);
    TAP_OK(g.rc == 0 && v7 == 258, ">i4 bytes 00 00 01 02 read as 258");
    free(g.v);
    read_fixture("float16.npy", NULL, &g);
    uint16_t h[FX_N];
    memcpy(h, g.v, sizeof h);
    TAP_OK(g.rc == 0 && g.dtype == LA_DT_FLOAT16 && h[3] == 0x7E00 && h[4] == 0x7C00
       && h[5] == 0xFC00 && h[6] == 0x0001 && h[7] == 0x7BFF,
       "float16 NaN, +-Inf, subnormal and 65504 come through as bits");
    free(g.v);
}

static void test_shapes(void)
{
    struct got g;
    static const char *const versions[3] = {"v1.npy", "v2.npy", "v3.npy"};
    for (int v = 0; v < 3; v++) {
        read_fixture(versions[v], NULL, &g);
        TAP_OK(is_arange(&g, 5), "%s reads 0..4", versions[v]);
        free(g.v);
    }
    read_fixture("c2d.npy", NULL, &g);
    TAP_OK(is_arange(&g, 12) && g.info.ndim == 2 && g.info.shape[0] == 3 && g.info.shape[1] == 4
       && g.dtype == LA_DT_INT32 && !g.info.fortran_order, "2-D C order (3, 4)");
    free(g.v);
    read_fixture("c3d.npy", NULL, &g);
    TAP_OK(is_arange(&g, 24) && g.info.ndim == 3 && g.info.shape[2] == 4, "3-D C order (2, 3, 4)");
    free(g.v);
    read_fixture("mask_uint8.npy", NULL, &g);
    TAP_OK(g.rc == 0 && g.n == 640 && g.info.ndim == 3 && g.info.shape[0] == 10 && g.v[192] == 255
       && g.v[192 + 37] == 255 && g.v[7 * 64 + 63] == 255 && g.v[1] == 1,
       "uint8 mask (10, 8, 8) with 255s");
    free(g.v);
    read_fixture("labels_int64.npy", NULL, &g);
    TAP_OK(g.rc == 0 && g.n == 1000 && (int64_t)bits_at(&g, 17) == 10
       && (int64_t)bits_at(&g, 123) == -1 && bits_at(&g, 500) == 255
       && (int64_t)bits_at(&g, 999) == -100 && bits_at(&g, 998) == 8,
       "int64 labels with out-of-range values");
    free(g.v);
    read_fixture("bool.npy", NULL, &g);
    TAP_OK(g.rc == 0 && g.dtype == LA_DT_BOOL && g.n == 5 && memcmp(g.v, "\1\0\1\1\0", 5) == 0,
       "bool");
    free(g.v);
    read_fixture("empty.npy", NULL, &g);
    TAP_OK(g.rc == 0 && g.n == 0 && g.chunks == 0 && g.info.ndim == 1 && g.info.shape[0] == 0,
       "zero-length array: no chunks");
    free(g.v);
    read_fixture("empty2d.npy", "-", &g);
    TAP_OK(g.rc == 0 && g.n == 0 && g.info.ndim == 2 && g.info.shape[1] == 5, "(0, 5): empty");
    free(g.v);
    read_fixture("scalar.npy", NULL, &g);
    TAP_OK(g.rc == 0 && g.n == 1 && g.info.ndim == 0 && bits_at(&g, 0) == 7, "scalar: one value");
    free(g.v);
}

static void test_fortran(void)
{
    struct got g;
    for (int stream = 0; stream < 2; stream++) {
        const char *as = stream ? "-" : NULL, *how = stream ? "from a stream" : "by mmap";
        read_fixture("fortran2d.npy", as, &g);
        TAP_OK(is_arange(&g, 12) && g.info.fortran_order && g.info.shape[0] == 3,
           "Fortran (3, 4) yields C order %s (%s)", how, g.err);
        free(g.v);
        read_fixture("fortran3d_be.npy", as, &g);
        TAP_OK(is_arange(&g, 24) && g.dtype == LA_DT_INT16, "Fortran (2, 3, 4) >i2 %s", how);
        free(g.v);
    }
    /* Big enough for several chunks, so gathering carries across chunk ends. */
    char path[512];
    struct blob d = {0}, f = {0};
    fx_arange(&d, 4, 0, 1, 700, 300, 3);
    npy(&f, 2, "<u4", 1, "(700, 300, 3)", d.p, d.len);
    snprintf(path, sizeof path, "%s/fortran_big.npy", dir);
    save(dir, "fortran_big.npy", &f);
    read_file(path, NULL, &g);
    TAP_OK(is_arange(&g, 630000) && g.chunks == 3, "Fortran (700, 300, 3) by mmap, %d chunks",
       g.chunks);
    free(g.v);
    read_file(path, "-", &g);
    TAP_OK(is_arange(&g, 630000), "Fortran (700, 300, 3) from a stream");
    free(g.v);
    /* Shapes with one dimension above 1 are the same in both orders. */
    d.len = 0;
    fx_arange(&d, 4, 0, 1, 4, 3, 0);
    f.len = 0;
    npy(&f, 1, "<u4", 1, "(1, 5, 1)", "\0\0\0\0\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0", 20);
    save(dir, "fortran_flat.npy", &f);
    read_fixture("fortran_flat.npy", "-", &g);
    TAP_OK(is_arange(&g, 5), "Fortran (1, 5, 1) needs no reordering");
    free(g.v);
    f.len = 0;
    npy(&f, 1, "<u4", 1, "(4, 3)", d.p, 48);
    put(&f, "xyz", 3);
    save(dir, "fortran_trailing.npy", &f);
    read_fixture("fortran_trailing.npy", NULL, &g);
    TAP_OK(g.rc == 1 && g.n == 0 && strcmp(g.err, "byte 176: 3 bytes after the array's data") == 0,
       "Fortran with trailing bytes, by mmap: %s", g.err);
    read_fixture("fortran_trailing.npy", "-", &g);
    TAP_OK(g.rc == 2 && is_arange_prefix(&g, 12)
       && strcmp(g.err, "byte 176: 3 bytes after the array's data") == 0,
       "Fortran with trailing bytes, from a stream: %s", g.err);
    free(g.v);
    f.len = 0;
    npy(&f, 1, "<u4", 1, "(4, 3)", d.p, 30);
    save(dir, "fortran_short.npy", &f);
    read_fixture("fortran_short.npy", NULL, &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "byte 158: file ends after 7 of 12 values") == 0,
       "Fortran truncated, by mmap: %s", g.err);
    read_fixture("fortran_short.npy", "-", &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "byte 158: file ends after 7 of 12 values") == 0,
       "Fortran truncated, from a stream: %s", g.err);
    f.len = 0;
    npy(&f, 1, "|u1", 1, "(20000, 20000)", d.p, 100);
    save(dir, "fortran_huge.npy", &f);
    read_fixture("fortran_huge.npy", "-", &g);
    /* the header claims 400 MB over 100 bytes: truncated, not "too large to
     * reorder" (tests/reliability/limits.sh streams a real 300 MB one for that message) */
    TAP_OK(g.rc == 1 && strcmp(g.err, "byte 228: file ends after 100 of 400000000 values") == 0,
       "huge Fortran claim from a stream is refused, nothing allocated: %s", g.err);
    read_fixture("fortran_huge.npy", NULL, &g);
    TAP_OK(g.rc == 1 && HAS(g.err, "file ends after 100 of 400000000 values"),
       "huge Fortran claim in a short file: %s", g.err);
    free(d.p);
    free(f.p);
}

/* The data come from the file whose header was read: a Fortran-order file
 * is mapped to be reordered, and a file renamed over the path after the
 * source opened it must not be what is mapped (the reader once opened the
 * path a second time). */
static void test_one_open(void)
{
    static const char zeros[48] = {0};
    char path[512], other[512];
    struct blob d = {0}, f = {0}, z = {0};
    struct la_read_opts opts = { .header = LA_AUTO };
    struct got g;
    fx_arange(&d, 4, 0, 1, 4, 3, 0);
    npy(&f, 1, "<u4", 1, "(4, 3)", d.p, 48);
    npy(&z, 1, "<u4", 1, "(4, 3)", zeros, sizeof zeros);
    save(dir, "swap_a.npy", &f);
    save(dir, "swap_b.npy", &z);
    snprintf(path, sizeof path, "%s/swap_a.npy", dir);
    snprintf(other, sizeof other, "%s/swap_b.npy", dir);
    fs_read_swapped(&la_reader_npy, path, NULL, 0, &opts, other, &g);
    TAP_OK(g.rc == 0 && is_arange(&g, 12),
           "a file renamed over the path after the open is not the one mapped (%s)", g.err);
    free(g.v);
    free(d.p);
    free(f.p);
    free(z.p);
}

static void test_errors(void)
{
    struct got g;
    read_fixture("truncated.npy", NULL, &g);
    TAP_OK(g.rc == 2 && strcmp(g.err, "byte 1328: file ends after 150 of 1000 values") == 0,
       "truncated data: %s", g.err);
    free(g.v);
    read_fixture("trailing.npy", NULL, &g);
    TAP_OK(g.rc == 2 && g.n == 5 && strcmp(g.err, "byte 168: 12 bytes after the array's data") == 0,
       "trailing bytes: %s", g.err);
    free(g.v);
    read_fixture("badmagic.npy", NULL, &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "byte 0: not a .npy file (bad magic)") == 0, "bad magic: %s",
       g.err);
    read_fixture("complex.npy", NULL, &g);
    TAP_OK(g.rc == 1 && HAS(g.err, ": unsupported dtype '<c16'"), "complex: %s", g.err);

    /* Many chunks: first_index runs on (read_file checks), bool bytes become 0/1. */
    struct blob d = {0}, f = {0};
    for (int i = 0; i < FX_BIG; i++)
        put_le(&d, (uint64_t)(i % 7), 8);
    npy(&f, 1, "<i8", 0, "(400000,)", d.p, d.len);
    save(dir, "big.npy", &f);
    read_fixture("big.npy", "-", &g);
    int good = g.rc == 0 && g.n == FX_BIG && g.chunks == 4;
    for (uint64_t i = 0; good && i < FX_BIG; i++)
        good = bits_at(&g, i) == i % 7;
    TAP_OK(good, "400000 int64 in %d chunks of at most 1 MiB", g.chunks);
    free(g.v);
    f.len = 0;
    npy(&f, 1, "|b1", 0, "(3,)", "\2\0\377", 3);
    save(dir, "bool_bytes.npy", &f);
    read_fixture("bool_bytes.npy", NULL, &g);
    TAP_OK(g.rc == 0 && memcmp(g.v, "\1\0\1", 3) == 0, "bool bytes other than 0/1 are True");
    free(g.v);
    free(d.p);
    free(f.p);
}

int main(void)
{
    if (fs_make_dir("test_npy", dir, sizeof dir) != 0 || fx_write_all(dir) != 0) {
        printf("Bail out! cannot write the fixtures\n");
        return 99;
    }
    test_header_ok();
    test_header_errors();
    test_preamble_errors();
    test_dtype();
    test_dtypes_read();
    test_shapes();
    test_fortran();
    test_errors();
    test_one_open();
    fs_remove_dir(dir);
    return tap_done();
}
