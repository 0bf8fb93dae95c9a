/* test_shrink.c - a file cut short while it is read is an error, not a crash.
 *
 * TAP. np.save over a file that labelaudit is scanning truncates it; the next
 * read of a mapped page past the new end raises SIGBUS, in whichever thread
 * reads it, and a pread comes back short. la_guard_test_hook truncates the
 * file right after each mapping is made, and la_run_test_hook before the
 * threads read their shares of a file run, so every path meets a shrunk file
 * at a known point, with no timing race: a file run (plain .npy, raw) read by
 * two pool threads (in mapped windows, or with pread when no window can be
 * mapped), the Fortran-order gather of a .npy and of a stored .npz member
 * (mapped), a CSV parsed in place (mapped).
 * Each must end as "file shrank while being read" (exit 3), and the next file
 * of the run must still be audited. */
#include "audit.h"   /* la_file_report_free */
#include "plan.h"    /* la_audit_files */
#include "fatal.h"   /* la_guard_test_hook */
#include "options.h" /* la_options_parse */
#include "scan.h"    /* la_scan_cpu_open */
#include "tap.h"

#include <getopt.h>  /* optind */
#include <stdlib.h>  /* getenv */
#include <string.h>  /* strstr */
#include <unistd.h>  /* truncate, unlink */

#define GEN_FIXTURES_NO_MAIN
#include "../gen/gen_fixtures.c"

static const char *g_victim;    /* the file to cut at the next mapping, once */
static off_t g_cut;
static int g_cuts;

static void cut_once(void)
{
    if (g_victim && truncate(g_victim, g_cut) == 0)
        g_cuts++;
    g_victim = NULL;
}

static void cut_after_map(const void *map, size_t len)
{
    (void)map, (void)len;
    cut_once();
}

static void cut_before_read(int fd)
{
    (void)fd;
    cut_once();
}

static void write_file(const char *path, const struct blob *b)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0)
        tap_diag("cannot write %s", path);
}

/* Audit path (after the options in opts, a NULL-ended list), cut to cut bytes
 * once mapped, then clean, a file of clean_count good labels, with -j 2. */
static void check_says(const char *what, const char *path, off_t cut,
                       const char *const *opts, const char *clean, uint64_t clean_count,
                       const char *says)
{
    char *argv[16] = { "labelaudit", "-n", "10", "-j", "2" };
    int argc = 5;
    while (*opts)
        argv[argc++] = (char *)*opts++;
    argv[argc++] = (char *)path;
    argv[argc++] = (char *)clean;
    struct la_config cfg;
    optind = 0;
    TAP_OK(la_options_parse(argc, argv, &cfg) == LA_OPT_OK, "%s: options", what);
    struct la_scan_backend cpu;
    la_scan_cpu_open(&cpu, 2);
    struct la_file_report files[2];
    g_victim = path;
    g_cut = cut;
    g_cuts = 0;
    int rc = la_audit_files(&cfg, &cpu, NULL, files);
    TAP_OK(g_cuts == 1, "%s: the file was cut once, as it was read", what);
    TAP_OK(rc == 0 && !files[0].read_ok, "%s: no crash, the file is unreadable (exit 3)", what);
    TAP_OK(strstr(files[0].error, says) != NULL,
           "%s: \"%s\"", what, files[0].error);
    TAP_OK(files[1].read_ok && files[1].stats.count == clean_count, "%s: the next file is audited", what);
    la_file_report_free(&files[0]);
    la_file_report_free(&files[1]);
    la_scan_close(&cpu);
}

static void check(const char *what, const char *path, off_t cut, const char *const *opts,
                  const char *clean, uint64_t clean_count)
{
    check_says(what, path, cut, opts, clean, clean_count, "file shrank while being read");
}

int main(void)
{
    const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
    char clean[4096], path[] = "/tmp/labelaudit-shrink-XXXXXX";
    snprintf(clean, sizeof clean, "%s/samples/clean-10.csv", srcdir);   /* 1040 labels */
    int fd = mkstemp(path);
    if (fd < 0)
        return tap_diag("mkstemp failed"), 1;
    close(fd);
    (void)fx_write_all;                 /* the fixture code this test does not need */
    la_guard_test_hook = cut_after_map;
    la_run_test_hook = cut_before_read;

    /* C order: 400000 int64 (3.2 MB), a share of it read by each of two threads */
    struct blob data = { 0 }, file = { 0 };
    for (int i = 0; i < 400000; i++)
        put_le(&data, (uint64_t)(i % 7), 8);
    npy(&file, 1, "<i8", 0, "(400000,)", data.p, data.len);
    write_file(path, &file);
    const char *none[] = { NULL }, *raw[] = { "--format=raw", "--dtype=int64", NULL };
    check(".npy, C order", path, 128 + 64 * 1024, none, clean, 1040);

    /* the same, with every guard taken: the threads cannot map their windows
     * and read them with pread, which comes back short */
    write_file(path, &file);
    static char taken[64];
    int n_taken = 0;
    while (n_taken < 64 && la_guard_add(&taken[n_taken], 1, 0) == 0)
        n_taken++;
    TAP_OK(n_taken < 64, "every guard is taken (%d)", n_taken);
    check(".npy, C order, no window mapped", path, 128 + 64 * 1024, none, clean, 1040);
    for (int i = 0; i < n_taken; i++)
        la_guard_remove(&taken[i]);

    /* the same values as raw int64 */
    write_file(path, &data);
    char clean_raw[] = "/tmp/labelaudit-shrink-clean-XXXXXX";
    fd = mkstemp(clean_raw);
    if (fd < 0 || write(fd, data.p, 80) != 80)
        tap_diag("cannot write %s", clean_raw);
    close(fd);
    check("raw", path, 100 * 1024, raw, clean_raw, 10);
    /* rewritten longer: what was read is neither the old file nor the new one */
    write_file(path, &data);
    check_says("raw, grown while read", path, (off_t)data.len + 4096, raw, clean_raw, 10,
               "file changed while being read");
    unlink(clean_raw);

    /* Fortran order (1000, 400): gathered from the mapping into C order */
    file.len = 0;
    npy(&file, 1, "<i8", 1, "(1000, 400)", data.p, data.len);
    write_file(path, &file);
    check(".npy, Fortran order", path, 128 + 64 * 1024, none, clean, 1040);

    /* the same array as a stored .npz member */
    struct blob zipped = { 0 };
    struct zentry entry = { "y.npy", file.p, file.len, 0 };
    struct zopts plain = { 0 };
    zip(&zipped, &entry, 1, &plain, NULL);
    write_file(path, &zipped);
    check(".npz, stored Fortran-order member", path, 256 * 1024, none, clean, 1040);

    /* a CSV read in place: 200000 quoted rows (3 MB), parsed by libcsv on two threads */
    FILE *f = fopen(path, "wb");
    fputs("id,text,label\n", f);
    for (int i = 0; i < 200000; i++)
        fprintf(f, "%d,\"row, %d\",%d\n", i, i, i % 7);
    fclose(f);
    check(".csv, quoted", path, 100 * 1024, none, clean, 1040);

    free(data.p);
    free(file.p);
    free(zipped.p);
    unlink(path);
    return tap_done();
}
