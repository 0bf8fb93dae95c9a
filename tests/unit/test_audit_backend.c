/* test_audit_backend.c - how the audit drives a scan backend. No GPU needed.
 *
 * TAP. Two things the CUDA backend relies on, checked with fake backends:
 * - --backend=auto survives a GPU that fails mid-run. A fake backend named
 *   "gpu" folds each chunk twice (so whatever it leaves behind is wrong) and
 *   then reports a failure, as a device lost halfway through a file would.
 *   la_audit_files() must then discard the half-scanned file, switch to the
 *   CPU backend, audit the file again and go on with the next one, while
 *   --backend=gpu, and auto with --indices-out, stop with the CUDA-side reason.
 * - a backend's window_bytes sets how much of a mapped file each scan() call
 *   gets (the GPU asks for more than the CPU), and the report does not change. */
#include "audit.h"   /* la_file_report_free */
#include "plan.h"    /* la_audit_files */
#include "options.h" /* la_options_parse */
#include "scan.h"    /* la_scan_backend, la_scan_cpu_open */
#include "dtype.h"   /* la_dtype_info */
#include "tap.h"

#include <stdio.h>  /* tmpfile, fgets */
#include <stdlib.h> /* getenv */
#include <string.h> /* strstr */
#include <getopt.h> /* optind */
#include <unistd.h> /* dup, dup2 */

static int fake_scans, fake_closes;

static int fake_scan(struct la_scan_backend *b, const struct la_chunk *c,
                     const struct la_rule *r, struct la_stats *s, char *err, size_t errlen)
{
    (void)b;
    fake_scans++;
    la_scan_chunk_cpu_ref(c, r, s);
    la_scan_chunk_cpu_ref(c, r, s);
    snprintf(err, errlen, "cudaMemcpyAsync: unspecified launch failure");
    return -1;
}

static void fake_close(struct la_scan_backend *b)
{
    (void)b;
    fake_closes++;
}

static const struct la_scan_backend_ops fake_gpu_ops = { "gpu", fake_scan, fake_close, NULL,
                                                          LA_SCANF_FALLIBLE };

static void open_fake_gpu(struct la_scan_backend *b)
{
    b->ops = &fake_gpu_ops;
    b->threads = 1;
    b->window_bytes = 0;
    b->state = NULL;
    fake_scans = fake_closes = 0;
}

/* A backend that scans like the CPU reference and records the chunks it gets. */
static size_t window_calls, window_largest;

static int window_scan(struct la_scan_backend *b, const struct la_chunk *c,
                       const struct la_rule *r, struct la_stats *s, char *err, size_t errlen)
{
    (void)b, (void)err, (void)errlen;
    window_calls++;
    size_t bytes = c->count * la_dtype_info(c->dtype)->size;
    window_largest = bytes > window_largest ? bytes : window_largest;
    la_scan_chunk_cpu_ref(c, r, s);
    return 0;
}

static const struct la_scan_backend_ops window_ops = { "window", window_scan, NULL, NULL, 0 };

/* Run la_audit_files() with the arguments of a command line (after the
 * program name), stderr captured into err. @return its result. */
static int audit(struct la_scan_backend *b, struct la_indices_out *io,
                 struct la_file_report *files, struct la_config *cfg, char *err, size_t errlen,
                 char **argv, int argc)
{
    optind = 0; /* GNU getopt: start over on a new argv */
    if (la_options_parse(argc, argv, cfg) != LA_OPT_OK)
        return -99;
    if (cfg->threads == 0)
        cfg->threads = 1;
    FILE *cap = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(cap), 2);
    int rc = la_audit_files(cfg, b, io, files);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    size_t n = fread(err, 1, errlen - 1, cap);
    err[n] = '\0';
    fclose(cap);
    return rc;
}

/* The CPU's own report of one file, to compare the fallback's with. */
static void cpu_reference(const char *path, struct la_file_report *r)
{
    char *argv[] = { "labelaudit", "-n", "10", "--backend=cpu", (char *)path, NULL };
    struct la_config cfg;
    struct la_scan_backend cpu;
    char err[512];
    la_scan_cpu_open(&cpu, 1);
    audit(&cpu, NULL, r, &cfg, err, sizeof err, argv, 5);
    la_scan_close(&cpu);
}

static int same_scan(const struct la_file_report *a, const struct la_file_report *b)
{
    if (a->stats.count != b->stats.count || a->stats.bad_total != b->stats.bad_total ||
        a->stats.n_bad != b->stats.n_bad || a->n_findings != b->n_findings)
        return 0;
    for (int k = 0; k < LA_V_COUNT; k++)
        if (a->stats.n_verdict[k] != b->stats.n_verdict[k])
            return 0;
    for (size_t i = 0; i < a->stats.n_bad; i++)
        if (a->stats.bad[i].index != b->stats.bad[i].index)
            return 0;
    return 1;
}

int main(void)
{
    const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
    char stray[4096], clean[4096];
    snprintf(stray, sizeof stray, "%s/samples/stray-10.csv", srcdir);
    snprintf(clean, sizeof clean, "%s/samples/clean-10.csv", srcdir);
    struct la_file_report want[2] = { { 0 } };
    cpu_reference(stray, &want[0]);
    cpu_reference(clean, &want[1]);
    TAP_OK(want[0].read_ok && want[0].stats.bad_total == 3, "the CPU reads %s: 3 bad rows",
           stray);

    struct la_config cfg;
    struct la_scan_backend b;
    struct la_file_report got[2] = { { 0 } };
    char err[2048];

    /* auto: the CPU takes over, and the half-scanned file is audited again */
    char *auto_argv[] = { "labelaudit", "-n", "10", stray, clean, NULL };
    open_fake_gpu(&b);
    int rc = audit(&b, NULL, got, &cfg, err, sizeof err, auto_argv, 5);
    TAP_OK(rc == 0, "auto: the run goes on after the GPU failed");
    TAP_OK(fake_scans == 1 && fake_closes == 1, "auto: the GPU was tried once, then closed");
    TAP_OK(b.ops && strcmp(b.ops->name, "cpu") == 0, "auto: the backend is now the CPU");
    TAP_OK(same_scan(&got[0], &want[0]), "auto: the failed file's report is the CPU's own");
    TAP_OK(same_scan(&got[1], &want[1]), "auto: the next file is audited too");
    TAP_OK(strstr(err, "stray-10.csv: GPU scan failed (cudaMemcpyAsync: unspecified launch "
                       "failure); going on with the CPU") != NULL,
           "auto: one line names the file, the CUDA call and the fallback");
    tap_diag("stderr: %.*s", (int)strcspn(err, "\n"), err);
    la_scan_close(&b);
    la_file_report_free(&got[0]);
    la_file_report_free(&got[1]);

    /* --backend=gpu asked for the GPU: no silent switch */
    char *gpu_argv[] = { "labelaudit", "-n", "10", "--backend=gpu", stray, NULL };
    open_fake_gpu(&b);
    rc = audit(&b, NULL, got, &cfg, err, sizeof err, gpu_argv, 5);
    TAP_OK(rc == -1, "--backend=gpu: a GPU failure ends the run (exit 3)");
    TAP_OK(strcmp(b.ops->name, "gpu") == 0, "--backend=gpu: no switch to the CPU");
    TAP_OK(strstr(err, "stray-10.csv: scan failed: cudaMemcpyAsync: unspecified launch "
                       "failure") != NULL, "--backend=gpu: the reason names the file and call");
    la_scan_close(&b);
    la_file_report_free(&got[0]);

    /* auto with --indices-out: part of the file's entries are already written */
    char target[] = "/tmp/labelaudit-fallback-XXXXXX";
    int fd = mkstemp(target);
    close(fd);
    struct la_indices_out *io = la_indices_out_open(target, err, sizeof err);
    TAP_OK(io != NULL, "--indices-out temporary file opens");
    char *io_argv[] = { "labelaudit", "-n", "10", stray, NULL };
    open_fake_gpu(&b);
    rc = audit(&b, io, got, &cfg, err, sizeof err, io_argv, 4);
    TAP_OK(rc == -1, "auto with --indices-out: a GPU failure ends the run");
    if (io)
        la_indices_out_close(io, 0, err, sizeof err);
    unlink(target);
    la_scan_close(&b);
    la_file_report_free(&got[0]);

    /* window_bytes: 40000 int32 labels (one in 97 is -1) in windows of 4 KiB */
    char raw[] = "/tmp/labelaudit-window-XXXXXX";
    fd = mkstemp(raw);
    FILE *f = fdopen(fd, "wb");
    for (int32_t i = 0; i < 40000; i++) {
        int32_t v = i % 97 == 5 ? -1 : i % 10;
        fwrite(&v, sizeof v, 1, f);
    }
    fclose(f);
    char *raw_argv[] = { "labelaudit", "-n", "10", "--format=raw", "--dtype=int32", raw, NULL };
    struct la_scan_backend cpu;
    la_scan_cpu_open(&cpu, 1);
    la_file_report_free(&want[0]);
    memset(&want[0], 0, sizeof want[0]);
    audit(&cpu, NULL, want, &cfg, err, sizeof err, raw_argv, 6);
    la_scan_close(&cpu);
    struct la_scan_backend wb = { &window_ops, 1, 4096, NULL };
    window_calls = window_largest = 0;
    memset(&got[0], 0, sizeof got[0]);
    rc = audit(&wb, NULL, got, &cfg, err, sizeof err, raw_argv, 6);
    TAP_OK(rc == 0 && got[0].read_ok, "window_bytes: the raw file is audited");
    TAP_OK(window_largest == 4096 && window_calls == 40, "window_bytes: 40 calls of 4096 bytes"
           " (got %zu, largest %zu)", window_calls, window_largest);
    TAP_OK(want[0].stats.bad_total == 413 && same_scan(&got[0], &want[0]),
           "window_bytes: the report is the one 8 MiB windows give");
    unlink(raw);
    la_file_report_free(&got[0]);
    la_file_report_free(&want[0]);
    la_file_report_free(&want[1]);
    return tap_done();
}
