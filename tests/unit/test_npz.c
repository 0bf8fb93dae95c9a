/* test_npz.c - TAP tests for read_npz.c: the central directory (zip64 too),
 * stored and deflated members, CRC-32, the array choice, corrupt archives,
 * and stdin or gzip input spooled to a temporary file.
 *
 *   gcc -std=c11 -D_GNU_SOURCE -Isrc -Isrc/read src/dtype.c src/read/npy_header.c src/read/read_npy.c \
 *       src/read/read_npz.c tests/unit/test_npz.c -lz -o test_npz
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

enum how { PLAIN, STDIN, GZIP };

static void read_npz(const char *name, enum how how, const char *array, struct got *g)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct la_read_opts cfg = {0};
    cfg.array = array;
    fs_read_all(&la_reader_npz, path, how == STDIN ? "-" : path, how == GZIP, &cfg, g);
}

static int64_t i64_at(const struct got *g, uint64_t i)
{
    int64_t v;
    memcpy(&v, g->v + i * 8, 8);
    return v;
}

/* The labels fixture: i % 10 with the out-of-range values of fx_labels(). */
static int is_labels(const struct got *g)
{
    if (g->rc != 0 || g->n != FX_LABELS || g->dtype != LA_DT_INT64)
        return 0;
    for (uint64_t i = 0; i < FX_LABELS; i++) {
        int64_t want = i == 17 ? 10 : i == 123 ? -1 : i == 500 ? 255 : i == 999 ? -100
                     : (int64_t)(i % 10);
        if (i64_at(g, i) != want)
            return 0;
    }
    return 1;
}

static int is_mod7(const struct got *g, uint64_t n)
{
    if (g->n != n || g->dtype != LA_DT_INT64)
        return 0;
    for (uint64_t i = 0; i < n; i++)
        if (i64_at(g, i) != (int64_t)(i % 7))
            return 0;
    return 1;
}

static int is_arange(const struct got *g, uint64_t n)
{
    if (g->rc != 0 || g->n != n)
        return 0;
    for (uint64_t i = 0; i < n; i++)
        if (i64_at(g, i) != (int64_t)i)
            return 0;
    return 1;
}

// ---- tests ------------------------------------------------------------------

static void test_good(void)
{
    static const char *const names[] = {"stored.npz", "deflated.npz", "comment.npz",
                                        "comment_fake_eocd.npz", "with_notes.npz"};
    static const char *const hows[] = {"from a file", "from stdin", "from gzip"};
    struct got g;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        for (int how = PLAIN; how <= GZIP; how++) {
            read_npz(names[i], (enum how)how, NULL, &g);
            TAP_OK(is_labels(&g) && g.info.ndim == 1
               && g.info.shape[0] == FX_LABELS && g.info.shape_known,
               "%s %s (%s)", names[i], hows[how], g.err);
            free(g.v);
        }
    }
    read_npz("zip64.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 0 && is_mod7(&g, FX_BIG), "zip64 archive: picks y, %d chunks (%s)", g.chunks,
       g.err);
    free(g.v);
    read_npz("big_deflated.npz", STDIN, NULL, &g);
    TAP_OK(g.rc == 0 && is_mod7(&g, FX_BIG) && g.chunks == 4,
       "3.2 MB deflated member streams in %d chunks", g.chunks);
    free(g.v);
}

static void test_choice(void)
{
    struct got g;
    read_npz("xy.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 0 && g.n == 4 && i64_at(&g, 0) == 3 && i64_at(&g, 3) == 0,
       "x and y: y is the default");
    free(g.v);
    read_npz("xy.npz", PLAIN, "x", &g);
    TAP_OK(g.rc == 0 && g.n == 8 && g.dtype == LA_DT_FLOAT32 && g.info.ndim == 2
       && g.info.shape[0] == 4 && g.info.shape[1] == 2, "--array x");
    free(g.v);
    read_npz("xy.npz", PLAIN, "x.npy", &g);
    TAP_OK(g.rc == 0 && g.n == 8, "--array x.npy names the member itself");
    free(g.v);
    read_npz("ambiguous.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "several arrays (x, y2, z): choose one with --array") == 0,
       "ambiguous: %s", g.err);
    read_npz("ambiguous.npz", PLAIN, "y2", &g);
    TAP_OK(g.rc == 0 && g.n == 4, "ambiguous with --array y2");
    free(g.v);
    read_npz("xy.npz", PLAIN, "foo", &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "no array 'foo' in the archive (arrays: x, y)") == 0,
       "missing name: %s", g.err);
    read_npz("no_arrays.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && HAS(g.err, "no arrays"), "no .npy member: %s", g.err);
    read_npz("with_notes.npz", PLAIN, "notes.txt", &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "member 'notes.txt': not a .npy array (bad magic)") == 0,
       "--array naming a text member: %s", g.err);
}

static void test_fortran(void)
{
    struct got g;
    read_npz("fortran_stored.npz", PLAIN, NULL, &g);
    TAP_OK(is_arange(&g, 12) && g.info.fortran_order, "Fortran in a stored member, by mmap (%s)",
       g.err);
    free(g.v);
    read_npz("fortran_stored.npz", STDIN, NULL, &g);
    TAP_OK(is_arange(&g, 12), "Fortran in a stored member, spooled from stdin (%s)", g.err);
    free(g.v);
    read_npz("fortran_deflated.npz", PLAIN, NULL, &g);
    TAP_OK(is_arange(&g, 12), "Fortran in a deflated member, in memory (%s)", g.err);
    free(g.v);

    /* A stored Fortran member is gathered, not pulled: its CRC is checked first. */
    struct blob d = {0}, m = {0}, z = {0};
    fx_arange(&d, 8, 0, 1, 3, 4, 0);
    npy(&m, 1, "<i8", 1, "(3, 4)", d.p, d.len);
    struct zentry e = {"y.npy", m.p, m.len, 0};
    struct zopts bad = {.bad_crc = 1};
    zip(&z, &e, 1, &bad, NULL);
    save(dir, "fortran_badcrc.npz", &z);
    read_npz("fortran_badcrc.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && g.n == 0
       && strcmp(g.err, "member 'y.npy': CRC-32 mismatch (archive is corrupt)") == 0,
       "Fortran stored member with a bad CRC: %s", g.err);
    free(d.p);
    free(m.p);
    free(z.p);
}

static void test_corrupt(void)
{
    struct got g;
    read_npz("badcrc.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 2 && strcmp(g.err, "member 'y.npy': CRC-32 mismatch (archive is corrupt)") == 0,
       "stored member, bad CRC: %s", g.err);
    free(g.v);
    read_npz("badcrc_deflated.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 2 && g.chunks > 0
       && strcmp(g.err, "member 'y.npy': CRC-32 mismatch (archive is corrupt)") == 0,
       "deflated member, bad CRC found after %d chunks: %s", g.chunks, g.err);
    free(g.v);
    read_npz("truncated_cd.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && HAS(g.err, "central directory runs past its end record"),
       "truncated central directory: %s", g.err);
    read_npz("cut.npz", STDIN, NULL, &g);
    TAP_OK(g.rc == 1 && HAS(g.err, "no end of central directory record"), "cut archive: %s", g.err);
    read_npz("notnpy.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "member 'y.npy': not a .npy array (bad magic)") == 0,
       "member that is not .npy: %s", g.err);
    read_npz("encrypted.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && strcmp(g.err, "member 'y.npy' is encrypted") == 0, "encrypted: %s", g.err);
    read_npz("method12.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && HAS(g.err, "compression method 12 is not supported"), "bzip2: %s", g.err);
    read_npz("labels_int64.npy", PLAIN, NULL, &g);
    TAP_OK(g.rc == 1 && HAS(g.err, "no end of central directory"), "a .npy is no archive: %s",
       g.err);
}

/* Members whose .npy lies: data cut short inside the member, or bytes after it. */
static void test_member_lies(void)
{
    struct blob d = {0}, m = {0}, z = {0};
    for (int i = 0; i < 1000; i++)
        put_le(&d, (uint64_t)i, 8);
    npy(&m, 1, "<i8", 0, "(1000,)", d.p, 150 * 8);
    for (int def = 0; def < 2; def++) {
        struct zentry e = {"y.npy", m.p, m.len, def};
        struct zopts o = {0};
        struct got g;
        z.len = 0;
        zip(&z, &e, 1, &o, NULL);
        save(dir, "short_member.npz", &z);
        read_npz("short_member.npz", PLAIN, NULL, &g);
        TAP_OK(g.rc == 2 && strcmp(g.err, "member 'y.npy': byte 1328: member ends after 150 of "
                               "1000 values") == 0, "%s member shorter than its header: %s",
           def ? "deflated" : "stored", g.err);
        free(g.v);
    }
    m.len = 0;
    npy(&m, 1, "<i8", 0, "(4,)", d.p, 5 * 8);
    struct zentry e = {"y.npy", m.p, m.len, 1};
    struct zopts o = {0};
    struct got g;
    z.len = 0;
    zip(&z, &e, 1, &o, NULL);
    save(dir, "long_member.npz", &z);
    read_npz("long_member.npz", PLAIN, NULL, &g);
    TAP_OK(g.rc == 2 && g.n == 4
       && strcmp(g.err, "member 'y.npy': byte 160: 8 bytes after the array's data") == 0,
       "member longer than its header: %s", g.err);
    free(g.v);
    free(d.p);
    free(m.p);
    free(z.p);
}

/* Copy dir/from to dir/to. @return 0, or -1. */
static int copy_fixture(const char *from, const char *to)
{
    char a[512], b[512], buf[4096];
    snprintf(a, sizeof a, "%s/%s", dir, from);
    snprintf(b, sizeof b, "%s/%s", dir, to);
    FILE *in = fopen(a, "rb"), *out = fopen(b, "wb");
    size_t n;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

/* The archive read is the file the source opened: another renamed over the
 * path after that open is not read (the reader once opened the path again
 * and took its central directory from the new file). */
static void test_one_open(void)
{
    char path[512], other[512];
    struct la_read_opts opts = {0};
    struct got g;
    int made = copy_fixture("stored.npz", "swap_a.npz") == 0 &&
               copy_fixture("xy.npz", "swap_b.npz") == 0;
    snprintf(path, sizeof path, "%s/swap_a.npz", dir);
    snprintf(other, sizeof other, "%s/swap_b.npz", dir);
    fs_read_swapped(&la_reader_npz, path, path, 0, &opts, other, &g);
    TAP_OK(made && is_labels(&g),
           "a file renamed over the path after the open is not the archive read (%s)", g.err);
    free(g.v);
}

int main(void)
{
    if (fs_make_dir("test_npz", dir, sizeof dir) != 0 || fx_write_all(dir) != 0) {
        printf("Bail out! cannot write the fixtures\n");
        return 99;
    }
    test_good();
    test_choice();
    test_fortran();
    test_corrupt();
    test_member_lies();
    test_one_open();
    fs_remove_dir(dir);
    return tap_done();
}
