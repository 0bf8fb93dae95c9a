/* read_npz.c - the .npz reader: a zip archive of .npy members.
 *
 * The archive and its members are read by zip.c (random access: a plain file
 * is read with pread(), stdin and compressed input are spooled first). The
 * chosen member, stored or raw-deflated, is pulled through bounded buffers
 * into the npy stream of read_npy.c, and its CRC-32 is checked as the bytes
 * go by. */
#include "read_npy.h"
#include "zip.h"

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* calloc, free */
#include <string.h>   /* strcmp, strlen, strncmp */

struct npz_state {
    struct la_zip zip;
    const struct la_zip_member *chosen;
    struct la_npy_stream s;
};

// ---- choosing the array --------------------------------------------------

static int is_array(const struct la_zip_member *m)
{
    size_t n = strlen(m->name);
    return n > 4 && strcmp(m->name + n - 4, ".npy") == 0;
}

/* The member for array name a: "a.npy", else a member named exactly a (as
 * np.load's npz[key] does). The last one wins, as in Python's zipfile. */
static const struct la_zip_member *find_array(const struct npz_state *st, const char *a)
{
    const struct la_zip_member *hit = NULL, *exact = NULL;
    size_t n = strlen(a);
    for (size_t i = 0; i < st->zip.nm; i++) {
        const char *name = st->zip.m[i].name;
        if (strncmp(name, a, n) == 0 && strcmp(name + n, ".npy") == 0)
            hit = &st->zip.m[i];
        else if (strcmp(name, a) == 0)
            exact = &st->zip.m[i];
    }
    return hit ? hit : exact;
}

/* "x, y2, z": the array names, cut short to fit a one-line message. */
static void list_arrays(const struct npz_state *st, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < st->zip.nm; i++) {
        if (!is_array(&st->zip.m[i]))
            continue;
        int nlen = (int)strlen(st->zip.m[i].name) - 4;
        if (len + (size_t)nlen + 8 >= cap) {
            snprintf(out + len, cap - len, "%s...", len ? ", " : "");
            return;
        }
        char name[LA_ZIP_SHOWN_LEN];
        len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? ", " : "", nlen,
                                la_zip_shown(st->zip.m[i].name, name));
    }
}

static int choose(struct la_reader *r, struct npz_state *st)
{
    static const char *const preferred[] = {"labels", "targets", "y"};
    char names[300], name[LA_ZIP_SHOWN_LEN];
    size_t arrays = 0;
    const struct la_zip_member *only = NULL;
    list_arrays(st, names, sizeof names);
    if (r->opts && r->opts->array) {
        if (!(st->chosen = find_array(st, r->opts->array)))
            return la_reader_set_error(r, "no array '%.100s' in the archive (arrays: %s)",
                                       la_zip_shown(r->opts->array, name), names);
        return 0;
    }
    for (size_t i = 0; i < st->zip.nm; i++)
        if (is_array(&st->zip.m[i]))
            arrays++, only = &st->zip.m[i];
    if (arrays == 1) {
        st->chosen = only;
        return 0;
    }
    for (size_t i = 0; i < sizeof preferred / sizeof *preferred && arrays; i++)
        if ((st->chosen = find_array(st, preferred[i])) && is_array(st->chosen))
            return 0;
    if (arrays == 0)
        return la_reader_set_error(r, "no arrays (.npy members) in the archive");
    return la_reader_set_error(r, "several arrays (%s): choose one with --array", names);
}

// ---- reading the member --------------------------------------------------

static const char *member_name(const struct npz_state *st)
{
    return st->zip.chosen->name;
}

static int start_member(struct npz_state *st, char *err, size_t errlen)
{
    int stored = st->zip.chosen->method == 0;
    if (la_zip_start(&st->zip, err, errlen) != 0)
        return -1;
    st->s.pull = la_zip_pull;
    st->s.ctx = &st->zip;
    st->s.what = "member";
    st->s.too_big_hint = "save it with np.savez (stored) or in C order";
    st->s.fd = stored ? st->zip.fd : -1;
    st->s.fd_offset = st->zip.data_off;
    st->s.fd_length = st->zip.chosen->usize;
    int rc = la_npy_stream_open(&st->s, err, errlen);
    if (rc != 0)
        return rc;
    return la_npy_stream_gathers(&st->s) ? la_zip_crc_whole(&st->zip, err, errlen) : 0;
}

/* Put "member 'NAME': " in front of a message from the member's stream. */
static int member_error(struct la_reader *r, const char *msg)
{
    char name[LA_ZIP_SHOWN_LEN];
    return la_reader_set_error(r, "member '%s': %s", la_zip_shown(member_name(r->state), name), msg);
}

static int npz_open(struct la_reader *r)
{
    struct npz_state *st = calloc(1, sizeof *st);
    char err[LA_ERR_LEN];
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    st->zip.fd = -1;
    if (la_zip_open(r, &st->zip) != 0 || choose(r, st) != 0
        || la_zip_locate(r, &st->zip, st->chosen) != 0)
        return -1;
    int rc = start_member(st, err, sizeof err);
    if (rc == LA_NPY_NOT_NPY)
        return member_error(r, "not a .npy array (bad magic)");
    if (rc != 0)
        return member_error(r, err);
    la_npy_stream_info(&st->s, &r->info);
    return 0;
}

static int npz_next(struct la_reader *r, struct la_chunk *out)
{
    struct npz_state *st = r->state;
    char err[LA_ERR_LEN];
    int rc = la_npy_stream_next(&st->s, out, err, sizeof err);
    return rc < 0 ? member_error(r, err) : rc;
}

static void npz_close(struct la_reader *r)
{
    struct npz_state *st = r->state;
    if (!st)
        return;
    la_npy_stream_close(&st->s);
    la_zip_close(&st->zip);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_npz = { npz_open, npz_next, npz_close };
