/* gen.c - deterministic benchmark inputs with a known number of bad labels.
 *
 *   gen npy-int64 PATH COUNT CLASSES     1-D int64 .npy
 *   gen raw-int32 PATH COUNT CLASSES     headerless little-endian int32
 *   gen npy-mask  PATH S H W CLASSES     uint8 .npy of shape (S, H, W), runs of one class
 *   gen csv       PATH ROWS CLASSES      "path,label" with a header row
 *   gen csv-text  PATH ROWS CLASSES      "id,text,label": a quoted review of
 *                                        about 90 bytes (commas, doubled quotes,
 *                                        a quoted newline in one row of 64)
 *   gen csv-text-first PATH ROWS CLASSES "label,id,text": the same, label first
 *   gen npy-mask-scattered PATH S H W CLASSES PPM
 *                                        as npy-mask, plus PPM per million
 *                                        pixels set to 255 one by one
 *   gen npy-int64-1based PATH COUNT CLASSES
 *                                        labels uniform in [1, CLASSES]: with
 *                                        -n CLASSES, one in CLASSES is bad
 *
 * Labels are uniform in [0, CLASSES) from a splitmix64 stream; about one value
 * in 65536 is planted bad (-1 or CLASSES; 255 in masks). The number of bad
 * values is printed on standard output, so the benchmark can check that every
 * tool found exactly that many. Written with large fwrite()s: 10^8 labels take
 * about a second, most of it the kernel's. */
#include <stdint.h>  /* uint64_t */
#include <stdio.h>   /* fopen, fwrite */
#include <stdlib.h>  /* strtoull */
#include <string.h>  /* strcmp, memset */

#define BUF_VALUES (1u << 16)

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* One label from r: mostly in [0, classes), sometimes planted bad. */
static int64_t label_from(uint64_t r, int64_t classes, uint64_t *bad)
{
    if ((r & 0xFFFFu) == 0) {
        (*bad)++;
        return (r >> 16) & 1 ? classes : -1;
    }
    return (int64_t)(((r >> 32) * (uint64_t)classes) >> 32);
}

/* The .npy v1.0 preamble and header, padded so the data starts at 64 or 128. */
static int write_npy_header(FILE *f, const char *descr, const char *shape)
{
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
                     "'shape': %s, }", descr, shape);
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0 };
    size_t hlen = padded - 10;
    pre[8] = (unsigned char)(hlen & 0xFF);
    pre[9] = (unsigned char)(hlen >> 8);
    if (fwrite(pre, 1, 10, f) != 10 || fwrite(dict, 1, (size_t)n, f) != (size_t)n)
        return -1;
    for (size_t i = 10 + (size_t)n; i < padded - 1; i++)
        fputc(' ', f);
    fputc('\n', f);
    return 0;
}

static int gen_ints(FILE *f, uint64_t count, int64_t classes, int width, uint64_t *bad)
{
    static int64_t b64[BUF_VALUES];
    static int32_t b32[BUF_VALUES];
    uint64_t st = 42;
    for (uint64_t done = 0; done < count;) {
        size_t n = count - done < BUF_VALUES ? (size_t)(count - done) : BUF_VALUES;
        for (size_t i = 0; i < n; i++) {
            int64_t v = label_from(splitmix64(&st), classes, bad);
            if (width == 8)
                b64[i] = v;
            else
                b32[i] = (int32_t)v;
        }
        void *buf = width == 8 ? (void *)b64 : (void *)b32;
        if (fwrite(buf, (size_t)width, n, f) != n)
            return -1;
        done += n;
    }
    return 0;
}

/* One image row of runs of 1 to 64 pixels of one class, from the stream st.
 * With bad_runs, about one run in 4096 is 255 (bad, as VOC marks borders),
 * counted into *bad; without, that run keeps its class. */
static void mask_row(unsigned char *row, uint64_t w, uint64_t *st, int64_t classes,
                     int bad_runs, uint64_t *bad)
{
    for (uint64_t x = 0; x < w;) {
        uint64_t r = splitmix64(st);
        uint64_t len = 1 + (r & 63);
        if (len > w - x)
            len = w - x;
        unsigned char v = (unsigned char)(((r >> 32) * (uint64_t)classes) >> 32);
        if (bad_runs && (r >> 8 & 0xFFF) == 0) {
            v = 255;
            *bad += len;
        }
        memset(row + x, v, len);
        x += len;
    }
}

/* Masks of s images of h rows of w pixels. scattered 0: mask_row()'s 255 runs.
 * scattered 1: ppm bad pixels per million, scattered, not in runs: a mask set
 * whose 255 "ignore" pixels were forgotten (VOC boundaries are some 5%). */
static int gen_mask_rows(FILE *f, uint64_t s, uint64_t h, uint64_t w, int64_t classes,
                         int scattered, uint64_t ppm, uint64_t *bad)
{
    unsigned char *row = malloc(w);
    uint64_t st = 7, pix = 11;
    if (!row)
        return -1;
    for (uint64_t img = 0; img < s * h; img++) {
        mask_row(row, w, &st, classes, !scattered, bad);
        for (uint64_t x = 0; scattered && x < w; x++) {
            if (splitmix64(&pix) % 1000000 < ppm) {
                row[x] = 255;
                (*bad)++;
            }
        }
        if (fwrite(row, 1, w, f) != w) {
            free(row);
            return -1;
        }
    }
    free(row);
    return 0;
}

/* 1-based labels, [1, classes]: the value classes is one label in classes. */
static int gen_one_based(FILE *f, uint64_t count, int64_t classes, uint64_t *bad)
{
    static int64_t buf[BUF_VALUES];
    uint64_t st = 5;
    for (uint64_t done = 0; done < count;) {
        size_t n = count - done < BUF_VALUES ? (size_t)(count - done) : BUF_VALUES;
        for (size_t i = 0; i < n; i++) {
            buf[i] = 1 + (int64_t)(((splitmix64(&st) >> 32) * (uint64_t)classes) >> 32);
            *bad += buf[i] == classes;
        }
        if (fwrite(buf, 8, n, f) != n)
            return -1;
        done += n;
    }
    return 0;
}

/* Rows "img/00001234.jpg,7": about 20 bytes each. */
static int gen_csv(FILE *f, uint64_t rows, int64_t classes, uint64_t *bad)
{
    static char buf[1 << 20];
    size_t used = 0;
    uint64_t st = 99;
    fputs("path,label\n", f);
    for (uint64_t i = 0; i < rows; i++) {
        int64_t v = label_from(splitmix64(&st), classes, bad);
        used += (size_t)snprintf(buf + used, sizeof buf - used, "img/%08llu.jpg,%lld\n",
                                 (unsigned long long)i, (long long)v);
        if (used > sizeof buf - 64) {
            if (fwrite(buf, 1, used, f) != used)
                return -1;
            used = 0;
        }
    }
    return fwrite(buf, 1, used, f) == used ? 0 : -1;
}

/* A review: quoted, with the commas, doubled quotes and (one row in 64)
 * newline that text datasets hold. @return bytes written to out. */
static size_t review(char *out, uint64_t r)
{
    static const char *const words[] = {
        "great", "movie", "really", "\"\"great\"\"", "bad", "film,", "plot", "acting",
        "the", "a", "was", "not", "very", "good", "terrible,", "fine", "i", "loved", "it",
        "boring", "and", "too", "long", "ending", "\"\"meh\"\"", "would", "watch", "again",
        "5/10", "characters", "music", "fun",
    };
    size_t n = 0;
    int newline = r >> 58 == 0;          /* one row in 64 */
    out[n++] = '"';
    for (int w = 0; w < 16; w++, r >>= 5) {
        const char *word = words[r & 31];
        size_t len = strlen(word);
        memcpy(out + n, word, len);
        n += len;
        out[n++] = w == 7 && newline ? '\n' : ' ';
        if (w == 11)
            r = splitmix64(&r);
    }
    out[n - 1] = '"';
    return n;
}

/* Rows "1234,\"great movie, ...\",7" (or the label first): about 100 bytes. */
static int gen_csv_text(FILE *f, uint64_t rows, int64_t classes, int label_first, uint64_t *bad)
{
    static char buf[1 << 20];
    size_t used = 0;
    uint64_t st = 77;
    fputs(label_first ? "label,id,text\n" : "id,text,label\n", f);
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t r = splitmix64(&st);
        int64_t v = label_from(r, classes, bad);
        if (label_first)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%lld,%llu,", (long long)v,
                                     (unsigned long long)i);
        else
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%llu,",
                                     (unsigned long long)i);
        used += review(buf + used, splitmix64(&st));
        if (label_first)
            buf[used++] = '\n';
        else
            used += (size_t)snprintf(buf + used, sizeof buf - used, ",%lld\n", (long long)v);
        if (used > sizeof buf - 1024) {
            if (fwrite(buf, 1, used, f) != used)
                return -1;
            used = 0;
        }
    }
    return fwrite(buf, 1, used, f) == used ? 0 : -1;
}

static uint64_t num(const char *s)
{
    return strtoull(s, NULL, 10);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: gen npy-int64|npy-int64-1based|raw-int32|csv|csv-text|csv-text-first"
                        " PATH COUNT CLASSES\n"
                        "       gen npy-mask PATH S H W CLASSES\n"
                        "       gen npy-mask-scattered PATH S H W CLASSES PPM\n");
        return 2;
    }
    const char *mode = argv[1];
    FILE *f = fopen(argv[2], "wb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    uint64_t bad = 0;
    int rc = -1;
    char shape[128];
    if (strcmp(mode, "npy-int64") == 0) {
        snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)num(argv[3]));
        rc = write_npy_header(f, "<i8", shape);
        if (rc == 0)
            rc = gen_ints(f, num(argv[3]), (int64_t)num(argv[4]), 8, &bad);
    } else if (strcmp(mode, "raw-int32") == 0) {
        rc = gen_ints(f, num(argv[3]), (int64_t)num(argv[4]), 4, &bad);
    } else if (strcmp(mode, "npy-mask") == 0 && argc >= 7) {
        snprintf(shape, sizeof shape, "(%llu, %llu, %llu)", (unsigned long long)num(argv[3]),
                 (unsigned long long)num(argv[4]), (unsigned long long)num(argv[5]));
        rc = write_npy_header(f, "|u1", shape);
        if (rc == 0)
            rc = gen_mask_rows(f, num(argv[3]), num(argv[4]), num(argv[5]),
                               (int64_t)num(argv[6]), 0, 0, &bad);
    } else if (strcmp(mode, "npy-mask-scattered") == 0 && argc >= 8) {
        snprintf(shape, sizeof shape, "(%llu, %llu, %llu)", (unsigned long long)num(argv[3]),
                 (unsigned long long)num(argv[4]), (unsigned long long)num(argv[5]));
        rc = write_npy_header(f, "|u1", shape);
        if (rc == 0)
            rc = gen_mask_rows(f, num(argv[3]), num(argv[4]), num(argv[5]),
                               (int64_t)num(argv[6]), 1, num(argv[7]), &bad);
    } else if (strcmp(mode, "npy-int64-1based") == 0) {
        snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)num(argv[3]));
        rc = write_npy_header(f, "<i8", shape);
        if (rc == 0)
            rc = gen_one_based(f, num(argv[3]), (int64_t)num(argv[4]), &bad);
    } else if (strcmp(mode, "csv") == 0) {
        rc = gen_csv(f, num(argv[3]), (int64_t)num(argv[4]), &bad);
    } else if (strcmp(mode, "csv-text") == 0 || strcmp(mode, "csv-text-first") == 0) {
        rc = gen_csv_text(f, num(argv[3]), (int64_t)num(argv[4]), mode[8] == '-', &bad);
    }
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        fprintf(stderr, "gen: %s: failed\n", argv[2]);
        return 1;
    }
    printf("%llu\n", (unsigned long long)bad);
    return 0;
}
