/* fuzz_common.c - see fuzz_common.h. The audit loop below is audit.c's, with
 * the checks a fuzzer needs in between; it calls the CPU reference scan
 * directly, one chunk at a time, so a crash points at the reader or the scan,
 * not at thread scheduling. */
#include "fuzz_common.h"

#include <cjson/cJSON.h> /* cJSON_Parse, to check the JSON report */
#include <fcntl.h>       /* open */
#include <getopt.h>      /* optind: la_options_parse runs once per input */
#include <stdio.h>       /* FILE, open_memstream, fprintf */
#include <stdlib.h>      /* abort, free */
#include <string.h>      /* memset, strlen, memcmp */
#include <sys/mman.h>    /* memfd_create */
#include <sys/stat.h>    /* fstat: a file run lies inside its file */
#include <unistd.h>      /* write, lseek, dup, dup2, close, pread */

#include "audit.h"       /* diagnose.h: la_diagnose */
#include "columns.h"     /* la_column_plan_build: --vocab-size checks every column */
#include "context.h"  /* the options' context: rule, read options */
#include "input.h"       /* la_source_* */
#include "reader.h"      /* struct la_reader, la_reader_for_format */
#include "report.h"      /* la_report_json, la_report_text */
#include "scan.h"        /* la_scan_chunk_cpu_ref */
#include "stats.h"       /* la_stats_* */

#define FAIL(...) (fprintf(stderr, "fuzz oracle: " __VA_ARGS__), fputc('\n', stderr), abort())

// ---- oracles -----------------------------------------------------------------

/* A message for people: not empty, one line, no control characters. */
static void check_message(const char *msg, const char *what)
{
    if (!msg[0])
        FAIL("%s: empty error message", what);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            FAIL("%s: control byte 0x%02x in the message \"%s\"", what, *p, msg);
}

/* Strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF). */
static int valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || i + len > n)
            return 0;
        uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += len;
    }
    return 1;
}

static char *last_json;   /* the JSON report of the last fuzz_audit */

const char *fuzz_last_json(void)
{
    return last_json;
}

/* Both reports render; the JSON one parses and is valid UTF-8. */
static void check_reports(const struct la_file_report *r, const struct la_config *cfg)
{
    struct la_summary sum = { .files = 1, .backend = "cpu" };
    sum.exit_status = la_report_exit_status(r, 1, cfg, &sum.errors, &sum.warnings);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    if (la_report_json(out, r, 1, cfg, &sum) != 0)
        FAIL("la_report_json failed");
    fclose(out);
    if (!valid_utf8((const unsigned char *)text, len))
        FAIL("the JSON report is not valid UTF-8");
    cJSON *doc = cJSON_Parse(text);
    if (!doc)
        FAIL("the JSON report does not parse");
    cJSON_Delete(doc);
    free(last_json);
    last_json = text;                  /* kept for fuzz_last_json */
    out = open_memstream(&text, &len);
    if (!out)
        abort();
    if (la_report_text(out, r, 1, cfg, &sum) != 0)
        FAIL("la_report_text failed");
    fclose(out);
    free(text);
}

/* A file run offered by open() (reader.h): inside its file, aligned, of a
 * dtype read as it lies, as many values as the header promised. */
static void check_run(const struct la_reader *rd, int64_t want)
{
    const struct la_file_run *run = &rd->run;
    struct stat sb;
    if (!rd->has_run)
        return;
    if ((unsigned)run->dtype >= LA_DT_COUNT || run->dtype == LA_DT_BOOL)
        FAIL("a file run of dtype %d", (int)run->dtype);
    uint64_t size = la_dtype_info(run->dtype)->size;
    if (run->dtype != rd->info.dtype)
        FAIL("a file run of another dtype than the array's");
    if (run->offset % size != 0)
        FAIL("a file run at byte %llu, not a multiple of %llu", (unsigned long long)run->offset,
             (unsigned long long)size);
    if (fstat(run->fd, &sb) != 0)
        FAIL("a file run on a descriptor that fstat refuses");
    if (run->count > UINT64_MAX / size || run->offset > (uint64_t)sb.st_size
        || run->count * size > (uint64_t)sb.st_size - run->offset)
        FAIL("a file run of %llu values from byte %llu in a file of %lld bytes",
             (unsigned long long)run->count, (unsigned long long)run->offset, (long long)sb.st_size);
    if (want >= 0 && (uint64_t)want != run->count)
        FAIL("a file run of %llu values where the header claims %lld",
             (unsigned long long)run->count, (long long)want);
}

/* The chunk next() gave holds the run's bytes at its index: the offer and the
 * pulled values agree. */
static void check_chunk_in_run(const struct la_reader *rd, const struct la_chunk *c)
{
    static unsigned char buf[1 << 16];
    const struct la_file_run *run = &rd->run;
    if (!rd->has_run || c->unparsable)
        return;
    if (c->dtype != run->dtype || c->first_index + c->count > run->count)
        FAIL("a chunk outside the offered file run");
    size_t size = la_dtype_info(c->dtype)->size;
    for (size_t done = 0; done < c->count * size;) {
        size_t n = c->count * size - done < sizeof buf ? c->count * size - done : sizeof buf;
        if (pread(run->fd, buf, n, (off_t)(run->offset + c->first_index * size + done)) != (ssize_t)n)
            FAIL("the offered file run cannot be read");
        if (memcmp(buf, (const unsigned char *)c->values + done, n) != 0)
            FAIL("next() gave other values than the offered file run at index %llu",
                 (unsigned long long)c->first_index);
        done += n;
    }
}

// ---- the audit loop ------------------------------------------------------------

/* audit.c's init_stats, without --indices-out. */
static int init_stats(struct la_file_report *r, const struct la_config *cfg)
{
    uint64_t stride = 1;
    for (int d = 1; d < r->info.ndim; d++)
        if (__builtin_mul_overflow(stride, r->info.shape[d], &stride))
            stride = 1;
    uint64_t hist_len = 0;
    if (cfg->loss != LA_LOSS_BCE)
        hist_len = !cfg->has_num_classes ? LA_HIST_MAX
                 : (uint64_t)cfg->num_classes <= LA_HIST_MAX ? (uint64_t)cfg->num_classes : 0;
    int64_t above = cfg->loss == LA_LOSS_BCE ? 1 : cfg->has_num_classes ? cfg->num_classes : 0;
    return la_stats_init(&r->stats, stride ? stride : 1, la_config_max_report(cfg), hist_len,
                         above);
}

/* The values a header promised, or -1 when the reader does not know yet. */
static int64_t promised(const struct la_array_info *info)
{
    if (!info->shape_known)
        return -1;
    uint64_t n = 1;
    for (int d = 0; d < info->ndim; d++)
        if (__builtin_mul_overflow(n, info->shape[d], &n))
            FAIL("a reader accepted a shape whose product overflows");
    return (int64_t)n;
}

/* Pull and fold every chunk. @return 0 read, -1 refused (message checked). */
static int scan_all(struct la_reader *rd, struct la_file_report *r, const struct la_report_ctx *ctx)
{
    struct la_rule rule = ctx->rule;
    struct la_chunk c;
    uint64_t next = 0;
    int rc;
    check_run(rd, promised(&rd->info));
    while ((rc = rd->ops->next(rd, &c)) == 1) {
        check_chunk_in_run(rd, &c);
        if (c.first_index != next)
            FAIL("chunk at index %llu, expected %llu", (unsigned long long)c.first_index,
                 (unsigned long long)next);
        if (c.count == 0)
            FAIL("an empty chunk");
        if (c.unparsable) {
            if (c.count != 1)
                FAIL("an unparsable chunk of %zu cells", c.count);
            la_stats_add_unparsable(&r->stats, c.first_index, c.unparsable);
        } else {
            if ((unsigned)c.dtype >= LA_DT_COUNT || !c.values)
                FAIL("a chunk without a dtype or values");
            la_scan_chunk_cpu_ref(&c, &rule, &r->stats);
        }
        next += c.count;
    }
    if (rc < 0) {
        check_message(rd->err, "reader error");
        snprintf(r->error, sizeof r->error, "%s", rd->err);
        return -1;
    }
    if (rc != 0)
        FAIL("next() returned %d", rc);
    int64_t want = promised(&rd->info);
    if (want >= 0 && (uint64_t)want != next)
        FAIL("read as clean with %llu values where the header claims %lld",
             (unsigned long long)next, (long long)want);
    if (r->stats.count != next)
        FAIL("stats count %llu after %llu values", (unsigned long long)r->stats.count,
             (unsigned long long)next);
    return 0;
}

static int audit_one(const char *path, const struct la_config *cfg)
{
    struct la_file_report r;
    memset(&r, 0, sizeof r);
    r.path = path;
    struct la_reader rd = { 0 };
    struct la_report_ctx ctx;   /* as plan.c makes it, from the options alone */
    la_report_ctx_init(&ctx, cfg, NULL);
    struct la_read_opts opts = ctx.read;
    rd.opts = &opts;
    int read_ok = 0;
    if (la_source_open(path, &rd.src, r.error, sizeof r.error) != 0) {
        check_message(r.error, "source error");
        goto report;
    }
    /* as audit.c does: the options' implications, byte order marks, UTF-16 */
    enum la_format format = la_source_format(rd.src, &ctx, r.error, sizeof r.error);
    if (format == LA_FMT_NONE) {
        check_message(r.error, "format refusal");
        goto done;
    }
    if (!(rd.ops = la_reader_for_format(format)))
        FAIL("no reader for format '%s'", la_format_name(format));
    rd.info.format = format;
    if (rd.ops->open(&rd) != 0) {
        check_message(rd.err, "open error");
        snprintf(r.error, sizeof r.error, "%s", rd.err);
        r.info = rd.info;
        goto done;
    }
    r.info = rd.info;
    if (init_stats(&r, cfg) != 0)
        FAIL("la_stats_init failed");
    int scanned = scan_all(&rd, &r, &ctx);
    r.info = rd.info;
    if (scanned == 0) {
        if (!r.info.shape_known && r.info.ndim <= 1) {
            r.info.ndim = 1;
            r.info.shape[0] = r.stats.count;
        }
        r.samples = r.info.ndim == 0 ? 1 : r.info.shape[0];
        r.read_ok = read_ok = 1;
        la_diagnose(&r, &ctx);
    }
done:
    if (rd.ops && rd.ops->close)
        rd.ops->close(&rd);
    la_source_close(rd.src);
report:
    check_reports(&r, cfg);
    la_stats_free(&r.stats);
    return read_ok ? 0 : 1;
}

int fuzz_audit(const uint8_t *data, size_t size, const char *const *args, int as_stdin)
{
    int fd = memfd_create("labelaudit-fuzz", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t k = write(fd, data + done, size - done);
        if (k <= 0)
            abort();
        done += (size_t)k;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char *argv[64];
    int argc = 0;
    argv[argc++] = "labelaudit";
    for (; args && *args && argc < 62; args++)
        argv[argc++] = (char *)*args;
    argv[argc++] = as_stdin ? "-" : path;
    argv[argc] = NULL;
    optind = 0;                     /* getopt_long starts afresh for each input */
    struct la_config cfg;
    if (la_options_parse(argc, argv, &cfg) != LA_OPT_OK)
        FAIL("the target's options do not parse");
    static struct la_column_plan columns;    /* as main.c builds it */
    char why[256];
    if (la_column_plan_build(&cfg, &columns, why, sizeof why) != 0)
        FAIL("the target's --columns do not parse");
    if (columns.n)
        cfg.column_plan = &columns;
    int saved = -1;
    if (as_stdin) {
        if (lseek(fd, 0, SEEK_SET) != 0 || (saved = dup(0)) < 0 || dup2(fd, 0) < 0)
            abort();
    }
    int rc = audit_one(cfg.files[0], &cfg);
    if (as_stdin) {
        dup2(saved, 0);
        close(saved);
    }
    close(fd);
    return rc;
}
