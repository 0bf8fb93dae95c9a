/* gpu_inputs.c - the inputs tests/gpu-check.sh audits on both backends.
 *
 *   gpu_inputs DIR    writes into DIR (zlib for .gz and the npz's CRC):
 *   dt-NAME.raw       every dtype, about 200 MiB, an element count that is no
 *                     multiple of 32, labels in [0, 10) and a bad value at the
 *                     first and last element and at every sub-chunk (4 MiB)
 *                     and window (64 MiB) edge -1, 0 and +1
 *   odd.npy           int32, a header of odd length (data at an odd offset)
 *   be.npy            big-endian int32; fortran.npy: int16, 2-D, Fortran order
 *   gz.npy.gz         int16 .npy, gzip; labels.npz: a stored zip of an .npy
 *   big.u8            2^31 + 2^20 + 7 uint8 labels (sparse: zeros), 255 at
 *                     2^31 - 1, 2^31 and the last element
 *   cap.u8            two 64 MiB windows of uint8: exactly 2^20 bad values in
 *                     the first and 2^20 + 1 in the second
 *   hist.i16          int16 labels in [0, 8200): -n 8192 and -n 8193 straddle
 *                     the kernel's shared-memory histogram
 * Plain C and zlib: the GPU machine needs no Python. */
#ifndef _GNU_SOURCE   /* the build passes -D_GNU_SOURCE; a lone compile needs it here */
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SUB ((uint64_t)4 << 20)
#define WINDOW ((uint64_t)64 << 20)

static char dir[4096];

static FILE *create(const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

/* Whether element i sits on a sub-chunk or window edge (+-1), or is first/last. */
static int on_edge(uint64_t i, uint64_t n, size_t elem)
{
    uint64_t sub = SUB / elem;
    uint64_t m = i % sub;
    return i == 0 || i == n - 1 || m == 0 || m == 1 || m == sub - 1;
}

/* One element of dtype code c ('b','i','u','f') and size elem with value v. */
static void put(unsigned char *p, char c, size_t elem, double v)
{
    if (c == 'f' && elem == 2) { /* half: the labels used here are small integers or NaN */
        uint16_t h;
        if (v != v)
            h = 0x7e00;
        else if (v == 0)
            h = 0;
        else {
            int neg = v < 0, e = 0;
            double a = neg ? -v : v;
            while (a >= 2) a /= 2, e++;
            h = (uint16_t)((neg ? 0x8000 : 0) | (unsigned)(e + 15) << 10 |
                           (unsigned)((a - 1) * 1024));
        }
        memcpy(p, &h, 2);
    } else if (c == 'f' && elem == 4) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (c == 'f') {
        memcpy(p, &v, 8);
    } else {
        int64_t x = (int64_t)v;
        memcpy(p, &x, elem); /* little-endian truncation */
    }
}

static void write_dtype(const char *name, char c, size_t elem)
{
    uint64_t n = ((uint64_t)200 << 20) / elem - 7;
    char file[64];
    snprintf(file, sizeof file, "dt-%s.raw", name);
    FILE *f = create(file);
    unsigned char *buf = malloc(SUB);
    uint64_t at = 0, k = 0;
    while (at < n) {
        size_t m = n - at < SUB / elem ? (size_t)(n - at) : (size_t)(SUB / elem);
        for (size_t j = 0; j < m; j++, k++) {
            uint64_t i = at + j;
            double v = (double)(i % 10);
            if (c == 'b')
                v = i % 2;
            else if (on_edge(i, n, elem))
                v = c == 'f' ? (k % 3 == 0 ? 0.0 / 0.0 : k % 3 == 1 ? 2.5 : 10)
                  : c == 'i' ? -1 : 10;
            put(buf + j * elem, c, elem, v);
        }
        fwrite(buf, elem, m, f);
        at += m;
    }
    free(buf);
    fclose(f);
}

/* An .npy header for descr/fortran/shape, padded to total bytes (with '\n'). */
static size_t npy_header(unsigned char *out, const char *descr, int fortran, const char *shape,
                         size_t total)
{
    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                       descr, fortran ? "True" : "False", shape);
    size_t hl = total - 10;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)(hl & 0xff);
    out[9] = (unsigned char)(hl >> 8);
    memset(out + 10, ' ', hl);
    memcpy(out + 10, dict, (size_t)len);
    out[total - 1] = '\n';
    return total;
}

/* n int32 (or int16) labels in [0, 10), every 1001st one 12, as bytes. */
static unsigned char *labels(uint64_t n, size_t elem, int big_endian)
{
    unsigned char *b = malloc(n * elem);
    for (uint64_t i = 0; i < n; i++) {
        int32_t v = i % 1001 == 5 ? 12 : (int32_t)(i % 10);
        for (size_t k = 0; k < elem; k++)
            b[i * elem + k] = (unsigned char)(v >> (8 * (big_endian ? elem - 1 - k : k)));
    }
    return b;
}

static void write_npys(void)
{
    unsigned char h[512];
    uint64_t n = (SUB * 3) / 4 + 3; /* 12 MiB of int32: three sub-chunks and a bit */
    unsigned char *v = labels(n, 4, 0);
    char shape[64];
    snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)n);
    FILE *f = create("odd.npy");
    fwrite(h, 1, npy_header(h, "<i4", 0, shape, 117), f);
    fwrite(v, 4, n, f);
    fclose(f);
    free(v);
    v = labels(n, 4, 1);
    f = create("be.npy");
    fwrite(h, 1, npy_header(h, ">i4", 0, shape, 128), f);
    fwrite(v, 4, n, f);
    fclose(f);
    free(v);
    uint64_t rows = (SUB * 3) / 2 / 7;
    v = labels(rows * 7, 2, 0);
    snprintf(shape, sizeof shape, "(%llu, 7)", (unsigned long long)rows);
    f = create("fortran.npy");
    fwrite(h, 1, npy_header(h, "<i2", 1, shape, 128), f);
    fwrite(v, 2, rows * 7, f);
    fclose(f);
    /* the same array, gzip'd */
    char path[8192];
    snprintf(path, sizeof path, "%s/gz.npy.gz", dir);
    gzFile z = gzopen(path, "wb1");
    size_t hl = npy_header(h, "<i2", 1, shape, 128);
    gzwrite(z, h, (unsigned)hl);
    gzwrite(z, v, (unsigned)(rows * 7 * 2));
    gzclose(z);
    /* and stored in a zip as labels.npy */
    uint32_t crc = (uint32_t)crc32(0, h, (uInt)hl);
    crc = (uint32_t)crc32(crc, v, (uInt)(rows * 7 * 2));
    uint32_t size = (uint32_t)(hl + rows * 7 * 2);
    unsigned char lh[30 + 10], cd[46 + 10], end[22];
    memset(lh, 0, sizeof lh);
    memcpy(lh, "PK\x03\x04\x14\x00", 6);
    memcpy(lh + 14, &crc, 4);
    memcpy(lh + 18, &size, 4);
    memcpy(lh + 22, &size, 4);
    lh[26] = 10;
    memcpy(lh + 30, "labels.npy", 10);
    memset(cd, 0, sizeof cd);
    memcpy(cd, "PK\x01\x02\x14\x00\x14\x00", 8);
    memcpy(cd + 16, &crc, 4);
    memcpy(cd + 20, &size, 4);
    memcpy(cd + 24, &size, 4);
    cd[28] = 10;
    memcpy(cd + 46, "labels.npy", 10);
    uint32_t cd_at = (uint32_t)sizeof lh + size, cd_len = (uint32_t)sizeof cd;
    memset(end, 0, sizeof end);
    memcpy(end, "PK\x05\x06", 4);
    end[8] = end[10] = 1;
    memcpy(end + 12, &cd_len, 4);
    memcpy(end + 16, &cd_at, 4);
    f = create("labels.npz");
    fwrite(lh, 1, sizeof lh, f);
    fwrite(h, 1, hl, f);
    fwrite(v, 2, rows * 7, f);
    fwrite(cd, 1, sizeof cd, f);
    fwrite(end, 1, sizeof end, f);
    fclose(f);
    free(v);
}

/* A sparse file of n zero bytes with 255 at each of the offsets. */
static void sparse_u8(const char *name, uint64_t n, const uint64_t *at, size_t k)
{
    FILE *f = create(name);
    int fd = fileno(f);
    if (ftruncate(fd, (off_t)n) != 0)
        exit(1);
    for (size_t i = 0; i < k; i++)
        if (pwrite(fd, "\xff", 1, (off_t)at[i]) != 1)
            exit(1);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);
    static const struct { const char *name; char c; size_t elem; } dts[] = {
        { "bool", 'b', 1 },   { "int8", 'i', 1 },    { "uint8", 'u', 1 },
        { "int16", 'i', 2 },  { "uint16", 'u', 2 },  { "int32", 'i', 4 },
        { "uint32", 'u', 4 }, { "int64", 'i', 8 },   { "uint64", 'u', 8 },
        { "float16", 'f', 2 }, { "float32", 'f', 4 }, { "float64", 'f', 8 },
    };
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        write_dtype(dts[k].name, dts[k].c, dts[k].elem);
    write_npys();
    uint64_t big = ((uint64_t)1 << 31) + ((uint64_t)1 << 20) + 7;
    uint64_t big_at[] = { ((uint64_t)1 << 31) - 1, (uint64_t)1 << 31, big - 1 };
    sparse_u8("big.u8", big, big_at, 3);
    uint64_t *cap = malloc(((size_t)2 << 20) * sizeof *cap);
    size_t k = 0;
    for (uint64_t i = 0; i < (uint64_t)1 << 20; i++)
        cap[k++] = i * 64;                           /* 2^20 in window 0 */
    for (uint64_t i = 0; i <= (uint64_t)1 << 20; i++)
        cap[k++] = WINDOW + i * 63;                  /* 2^20 + 1 in window 1 */
    sparse_u8("cap.u8", 2 * WINDOW, cap, k);
    free(cap);
    FILE *f = create("hist.i16");
    for (int32_t i = 0; i < (16 << 20); i++) {
        int16_t v = (int16_t)(i % 8200);
        fwrite(&v, 2, 1, f);
    }
    fclose(f);
    return 0;
}
