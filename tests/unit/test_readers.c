/* test_readers.c - byte sources (plain, gzip, concatenated gzip), format
 * detection, and the text and raw readers, over real temporary files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "context.h"  /* la_read_opts_of, la_config_max_report */
#include "input.h"
#include "options.h"
#include "reader.h"
#include "tap.h"

static char dir[] = "/tmp/la-readers-XXXXXX";

static const char *write_file(const char *name, const void *data, size_t len)
{
    static char path[4][256];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 256, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
    return p;
}

static const char *write_gzip(const char *name, const char *text)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    gzFile g = gzopen(p, "wb");
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
    return p;
}

/* Everything the reader yields: values as int64/double, unparsable cells as NaN-tagged. */
struct collected {
    int64_t ints[64];
    double floats[64];
    int is_float[64];
    char bad[64][32];
    size_t n;
    int rc;
    char err[LA_ERR_LEN];
    enum la_dtype dtype;
};

static void collect(const char *path, const char *format, const struct la_config *cfg,
                    struct collected *out)
{
    memset(out, 0, sizeof *out);
    struct la_reader r = { 0 };
    struct la_read_opts opts;
    la_read_opts_of(cfg, &opts);
    r.opts = &opts;
    char err[LA_ERR_LEN];
    if (la_source_open(path, &r.src, err, sizeof err) != 0) {
        out->rc = -1;
        snprintf(out->err, sizeof out->err, "%s", err);
        return;
    }
    r.info.format = la_format_by_name(format);
    r.ops = la_reader_for_format(r.info.format);
    struct la_chunk c;
    if ((out->rc = r.ops->open(&r)) == 0) {
        while ((out->rc = r.ops->next(&r, &c)) == 1) {
            for (size_t i = 0; i < c.count && out->n < 64; i++, out->n++) {
                if (c.unparsable) {
                    snprintf(out->bad[out->n], 32, "%s", c.unparsable);
                    continue;
                }
                if (c.first_index + i != out->n)
                    out->rc = -2;                  /* indices must be contiguous */
                switch (c.dtype) {
                case LA_DT_INT64: out->ints[out->n] = ((const int64_t *)c.values)[i]; break;
                case LA_DT_INT16: out->ints[out->n] = ((const int16_t *)c.values)[i]; break;
                case LA_DT_UINT8: out->ints[out->n] = ((const uint8_t *)c.values)[i]; break;
                case LA_DT_FLOAT64:
                    out->floats[out->n] = ((const double *)c.values)[i];
                    out->is_float[out->n] = 1;
                    break;
                case LA_DT_FLOAT32:
                    out->floats[out->n] = ((const float *)c.values)[i];
                    out->is_float[out->n] = 1;
                    break;
                default: break;
                }
            }
        }
    }
    snprintf(out->err, sizeof out->err, "%s", r.err);
    out->dtype = r.info.dtype;
    if (r.ops->close)
        r.ops->close(&r);
    la_source_close(r.src);
}

static struct la_config defaults(void)
{
    struct la_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.read.header = LA_AUTO;
    cfg.format = LA_FMT_AUTO;
    return cfg;
}

static void test_text(void)
{
    struct la_config cfg = defaults();
    struct collected c;
    collect(write_file("a.txt", "3\r\n-1\n\n7\n cat \n2.5\n4", 20), "text", &cfg, &c);
    TAP_OK(c.rc == 0 && c.n == 6, "text: 6 labels, blank line skipped (rc %d, n %zu)", c.rc, c.n);
    TAP_OK(c.ints[0] == 3 && c.ints[1] == -1 && c.ints[2] == 7, "text: CRLF and LF lines");
    TAP_OK(strcmp(c.bad[3], " cat ") == 0, "text: 'cat' is an unparsable cell at row 3");
    TAP_OK(c.is_float[4] && c.floats[4] == 2.5, "text: 2.5 is a float");
    TAP_OK(c.ints[5] == 4, "text: last line without newline");
    TAP_OK(c.dtype == LA_DT_FLOAT64, "text: dtype becomes float64 after a float cell");
    collect(write_file("empty.txt", "", 0), "text", &cfg, &c);
    TAP_OK(c.rc == 0 && c.n == 0, "text: empty file yields nothing");
}

static void test_raw(void)
{
    struct la_config cfg = defaults();
    cfg.read.has_dtype = true;
    cfg.read.dtype = LA_DT_INT16;
    unsigned char le[] = { 1, 0, 0xff, 0xff, 0x00, 0x01 };
    struct collected c;
    collect(write_file("a.raw", le, 6), "raw", &cfg, &c);
    TAP_OK(c.rc == 0 && c.n == 3 && c.ints[0] == 1 && c.ints[1] == -1 && c.ints[2] == 256,
           "raw int16 little-endian");
    cfg.read.big_endian = true;
    collect(write_file("b.raw", le, 6), "raw", &cfg, &c);
    TAP_OK(c.rc == 0 && c.ints[0] == 256 && c.ints[2] == 1, "raw int16 big-endian");
    cfg.read.big_endian = false;
    collect(write_file("c.raw", le, 5), "raw", &cfg, &c);
    TAP_OK(c.rc == -1 && strstr(c.err, "not a multiple of 2"), "raw: odd size is an error: %s",
           c.err);
    cfg.read.has_dtype = false;
    collect(write_file("d.raw", le, 6), "raw", &cfg, &c);
    TAP_OK(c.rc == -1 && strstr(c.err, "--dtype"), "raw without --dtype is an error");
}

static void test_gzip(void)
{
    struct la_config cfg = defaults();
    struct collected c;
    collect(write_gzip("a.txt.gz", "5\n6\n7\n"), "text", &cfg, &c);
    TAP_OK(c.rc == 0 && c.n == 3 && c.ints[2] == 7, "gzip text is inflated transparently");
    /* two gzip members back to back, as `cat a.gz b.gz` makes */
    char p1[256], both[256];
    snprintf(p1, sizeof p1, "%s", write_gzip("m1.gz", "1\n2\n"));
    FILE *f = fopen(p1, "rb");
    unsigned char buf[256];
    size_t n1 = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unsigned char cat[512];
    memcpy(cat, buf, n1);
    memcpy(cat + n1, buf, n1);
    snprintf(both, sizeof both, "%s", write_file("m2.gz", cat, 2 * n1));
    collect(both, "text", &cfg, &c);
    TAP_OK(c.rc == 0 && c.n == 4 && c.ints[3] == 2, "concatenated gzip members are all read");
    collect(write_file("t.gz", buf, n1 - 6), "text", &cfg, &c);
    TAP_OK(c.rc == -1 && strstr(c.err, "truncated"), "truncated gzip: %s", c.err);
}

static void test_detect(void)
{
    const unsigned char npy[] = "\x93NUMPY\x01\x00", zip[] = "PK\x03\x04";
    const unsigned char *t1 = (const unsigned char *)"1\n";
    TAP_OK(la_detect_format("x.bin", npy, 8, LA_FMT_AUTO) == LA_FMT_NPY, "npy magic wins");
    TAP_OK(la_detect_format("x", zip, 4, LA_FMT_AUTO) == LA_FMT_NPZ, "short zip magic is npz");
    TAP_OK(la_detect_format("y.csv.gz", t1, 2, LA_FMT_AUTO) == LA_FMT_CSV, ".csv.gz is csv");
    TAP_OK(la_detect_format("y.TSV", t1, 2, LA_FMT_AUTO) == LA_FMT_TSV, ".TSV is tsv");
    TAP_OK(la_detect_format("y.tab.zst", t1, 2, LA_FMT_AUTO) == LA_FMT_TSV, ".tab.zst is tsv");
    TAP_OK(la_detect_format("y.dat", t1, 2, LA_FMT_AUTO) == LA_FMT_RAW, ".dat is raw");
    TAP_OK(la_detect_format("-", (const unsigned char *)"a,b\n1,2\n", 8, LA_FMT_AUTO) ==
           LA_FMT_CSV, "stdin with commas is csv");
    TAP_OK(la_detect_format("-", (const unsigned char *)"1\n2\n", 4, LA_FMT_AUTO) == LA_FMT_TEXT,
           "stdin with one number a line is text");
    TAP_OK(la_detect_format("a.csv", npy, 8, LA_FMT_RAW) == LA_FMT_RAW, "--format overrides");

    /* a zip whose first member is a .npy is an npz; another zip is no format
     * unless named .npz (the npz reader then judges) */
    unsigned char head[64] = "PK\x03\x04";
    head[26] = 5;
    memcpy(head + 30, "a.npy", 5);
    TAP_OK(la_detect_format("-", head, sizeof head, LA_FMT_AUTO) == LA_FMT_NPZ,
           "zip of a .npy is npz");
    memcpy(head + 30, "a.txt", 5);
    TAP_OK(la_detect_format("-", head, sizeof head, LA_FMT_AUTO) == LA_FMT_NONE,
           "zip of a .txt is no format");
    TAP_OK(la_detect_format("x.NPZ", head, sizeof head, LA_FMT_AUTO) == LA_FMT_NPZ,
           "zip of a .txt named .npz is npz");
}

/* The table: every row's name finds it, --version's lists cover every row. */
static void test_table(void)
{
    char built[512], absent[512];
    la_formats_list(built, sizeof built, 1, " ");
    la_formats_list(absent, sizeof absent, 0, " ");
    int ok = 1;
    for (int f = LA_FMT_NONE + 1; f < LA_FMT_COUNT; f++) {
        const struct la_format_def *d = la_format_def((enum la_format)f);
        ok &= d && la_format_by_name(d->name) == f && !strcmp(la_format_name(f), d->name);
        ok &= (strstr(built, d->name) != NULL) == (d->ops != NULL);
        ok &= (strstr(absent, d->name) != NULL) == (d->ops == NULL);
        char name[64];
        snprintf(name, sizeof name, "x%.*s", (int)strcspn(d->extensions, " "), d->extensions);
        ok &= !*d->extensions || la_format_by_extension(name) == f;
    }
    TAP_OK(ok, "each format's row: its name, its first extension, the lists (%s | %s)", built,
           absent);
    TAP_OK(la_format_by_name("auto") == LA_FMT_AUTO && la_format_by_name("xls") == LA_FMT_NONE &&
           la_format_def(LA_FMT_NONE) == NULL && la_reader_for_format(LA_FMT_AUTO) == NULL,
           "auto and unknown names are no row");
    TAP_OK(la_format_has(LA_FMT_TSV, LA_FMTF_TEXT | LA_FMTF_TABLE) &&
           !la_format_has(LA_FMT_TEXT, LA_FMTF_TABLE) && la_format_has(LA_FMT_NPY, LA_FMTF_IN_PLACE),
           "flags");
}

static void test_open_errors(void)
{
    struct la_source *s;
    char err[LA_ERR_LEN];
    TAP_OK(la_source_open("/nonexistent/x.csv", &s, err, sizeof err) != 0 &&
           strstr(err, "No such file"), "a missing file: %s", err);
    TAP_OK(la_source_open("/tmp", &s, err, sizeof err) != 0 && strstr(err, "directory"),
           "a directory: %s", err);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 99;
    test_text();
    test_raw();
    test_gzip();
    test_detect();
    test_table();
    test_open_errors();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 99;
    return tap_done();
}
