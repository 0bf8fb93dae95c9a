/* fuzz_fix_csv.c - --fix's CSV/TSV/text writer (src/fix_csv.c) over any bytes.
 * The first byte picks the layout the reader would have found (format, header,
 * label column); the rest is the original. The oracles beyond the sanitizers:
 * the writer never fails on a file that fits in memory; with no rule it
 * writes the original back byte for byte; with a map and --fix-drop, the
 * copy is no longer than the original plus what the longest rewritten cell
 * can add per row, and dropping every row leaves only what is no data row. */
#include "fuzz_common.h"

#include "fix_rules.h"
#include "formats.h"

#include <stdio.h>    /* fopen, fwrite */
#include <stdlib.h>   /* abort, mkdtemp, malloc */
#include <string.h>   /* memcmp */
#include <sys/stat.h> /* stat */
#include <unistd.h>   /* unlink */

static char dir[] = "/tmp/labelaudit-fuzz-fix-XXXXXX";
static char in_path[64], out_path[64];
static struct la_new_file out;

/* Write the copy of in_path under plan into out_path. @return its size, or -1. */
static long copy_with(const struct la_fix_plan *plan, const struct la_file_report *r,
                      uint64_t *changed, uint64_t *dropped)
{
    static const struct la_read_opts read;
    char err[LA_ERR_LEN];
    unlink(out_path);
    if (la_new_file_open(&out, out_path, err, sizeof err) != 0)
        abort();
    struct la_fix_job j = { .plan = plan, .r = r, .read = &read, .in = in_path, .out = &out };
    if (la_fix_write_csv(&j) != 0) {
        fprintf(stderr, "the writer failed: %s\n", j.err);
        abort();
    }
    free(j.drops);
    if (la_new_file_commit(&out, err, sizeof err) != 0)
        abort();
    *changed = j.changed;
    *dropped = j.dropped;
    struct stat st;
    return stat(out_path, &st) == 0 ? (long)st.st_size : -1;
}

static unsigned char *slurp(const char *path, size_t n)
{
    unsigned char *b = malloc(n ? n : 1);
    FILE *f = fopen(path, "rb");
    if (!b || !f || fread(b, 1, n, f) != n)
        abort();
    fclose(f);
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum la_format formats[4] = { LA_FMT_CSV, LA_FMT_TSV, LA_FMT_TEXT, LA_FMT_CSV };
    if (size < 1 || (!in_path[0] && !mkdtemp(dir)))
        return 0;
    snprintf(in_path, sizeof in_path, "%s/in", dir);
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    unsigned k = data[0];
    data++, size--;
    FILE *f = fopen(in_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    struct la_file_report r = { .path = in_path, .read_ok = 1 };
    r.info.format = formats[k & 3];
    r.info.header_present = (k >> 2) & 1;
    r.info.column_index = (k >> 3) & 3;
    uint64_t changed, dropped;
    struct la_fix_plan none = { .out_dtype = LA_DT_INT64 };
    long n = copy_with(&none, &r, &changed, &dropped);
    unsigned char *got = slurp(out_path, (size_t)n);
    if ((size_t)n != size || memcmp(got, data, size) != 0 || changed || dropped) {
        fprintf(stderr, "with no rule the copy differs from the original\n");
        abort();
    }
    free(got);
    static const struct la_fix_pair map[] = { { 0, 1 }, { 1, -100 }, { 2, 123456789 } };
    struct la_fix_plan swap = { .rules = 1u << LA_FIXR_MAP | 1u << LA_FIXR_DROP,
                                .map = map, .n_map = 3, .has_ignore = 1, .ignore = -100,
                                .rule = { .has_ignore = 1, .ignore = -100, .has_upper = 1,
                                          .upper = 1000 },
                                .out_dtype = LA_DT_INT64 };
    n = copy_with(&swap, &r, &changed, &dropped);
    /* a rewritten number grows by at most 9 bytes ("2" -> "123456789.0" is 10 more) */
    if (n < 0 || (uint64_t)n > size + 10 * changed) {
        fprintf(stderr, "the copy is longer than its rewrites allow\n");
        abort();
    }
    unlink(out_path);
    unlink(in_path);
    return 0;
}
