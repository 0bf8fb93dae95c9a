/* overlays.c - --overlays=DIR: each of the worst bad masks (mask_image.h) as
 * a PNG a person opens beside the image: the mask's classes in the palette's
 * colours, its bad pixels magenta, full size. The overlay carries its own
 * palette (indexed PNG), so that index LA_MASK_BAD is exactly the bad pixels
 * and a script can count them.
 *
 * Named after the mask: its path below the dataset's folder with '/' as '_'
 * (or its file name), the extension replaced by .png, "-sample-K" added for
 * one mask of an array of many. That mapping is not one to one (a/b.npy and
 * a_b.npy, m.npy and m.png, two reports' m.png), so a name an earlier overlay
 * of the run took gets "-2", "-3", ... before ".png": each mask its own file,
 * the common names unchanged, and -v says which mask each file shows. A file
 * already there is never replaced (O_EXCL): with the same bytes (the same
 * command run again) it is kept silently; with others it is said, the others
 * are still written, and the run exits 2, as for an output that is an input. */
#include "report.h"

#include <errno.h>    /* errno, EEXIST */
#include <fcntl.h>    /* open, O_EXCL */
#include <stdint.h>   /* uint64_t */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* free, calloc */
#include <string.h>   /* strlen, strrchr, strerror, strcmp, strdup */
#include <sys/stat.h> /* mkdir, stat */
#include <unistd.h>   /* write, close, unlink */

#include "dataset.h"
#include "util.h"     /* la_name_ends_in */
#include "mask_image.h"
#include "msg.h"

/* The overlay's file name for pick of r, into buf. @return 1 when a '/' of its
 * path became '_', else 0. */
static int overlay_name(const struct la_file_report *r, const struct la_mask_pick *p,
                         char *buf, size_t len)
{
    const char *name = strrchr(p->path, '/') ? strrchr(p->path, '/') + 1 : p->path;
    size_t root = r->dataset && r->dataset->path ? strlen(r->dataset->path) : 0;
    if (root && strncmp(p->path, r->dataset->path, root) == 0 && p->path[root] == '/')
        name = p->path + root + 1;              /* below the folder: its subfolders too */
    static const char *const compressed[] = { ".gz", ".xz", ".bz2", ".zst" };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof compressed / sizeof *compressed; i++)
        if (la_name_ends_in(name, compressed[i]))
            n -= strlen(compressed[i]);
    for (size_t k = n; k > 0 && name[k - 1] != '/'; k--)
        if (name[k - 1] == '.' && k > 1) {      /* the extension, not a leading dot */
            n = k - 1;
            break;
        }
    int w = snprintf(buf, len, "%.*s", (int)n, name), flattened = 0;
    for (char *c = buf; *c; c++)
        if (*c == '/')
            *c = '_', flattened = 1;
    if (w >= 0 && (size_t)w < len && p->in_file)
        snprintf(buf + w, len - (size_t)w, "-sample-%llu", (unsigned long long)p->sample);
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, ".png");
    return flattened;
}

// ---- the names this run gave: a set of strings ---------------------------------------

/* Open addressing, at most half full: a run may write --max-report overlays
 * for each of many reports. */
struct name_set {
    char **slot;
    size_t cap, n;
};

static size_t name_hash(const char *s)
{
    uint64_t h = 14695981039346656037u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

static char **name_slot(char **slot, size_t cap, const char *name)
{
    size_t i = name_hash(name) & (cap - 1);
    while (slot[i] && strcmp(slot[i], name) != 0)
        i = (i + 1) & (cap - 1);
    return &slot[i];
}

/* Add name. @return 1 added, 0 already there, -1 out of memory. */
static int name_set_add(struct name_set *set, const char *name)
{
    if (2 * (set->n + 1) > set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        char **slot = calloc(cap, sizeof *slot);
        if (!slot)
            return -1;
        for (size_t i = 0; i < set->cap; i++)
            if (set->slot[i])
                *name_slot(slot, cap, set->slot[i]) = set->slot[i];
        free(set->slot);
        set->slot = slot;
        set->cap = cap;
    }
    char **at = name_slot(set->slot, set->cap, name);
    if (*at)
        return 0;
    if (!(*at = strdup(name)))
        return -1;
    set->n++;
    return 1;
}

static void name_set_free(struct name_set *set)
{
    for (size_t i = 0; i < set->cap; i++)
        free(set->slot[i]);
    free(set->slot);
}

/* name (".png" at its end), made one no earlier overlay of the run has: "-K"
 * before ".png" for the first K from 2 that is free. @return 0, or -1 said. */
static int unique_name(struct name_set *set, char *name, size_t len, const char *path)
{
    size_t stem = strlen(name);
    if (stem + 1 >= len || stem < 4 || strcmp(name + stem - 4, ".png") != 0) {
        la_err(path, "no overlay: %s: name too long", name);   /* cut short by overlay_name */
        return -1;
    }
    stem -= 4;
    char base[1024];
    snprintf(base, sizeof base, "%.*s", (int)stem, name);
    for (unsigned long k = 2;; k++) {
        int added = name_set_add(set, name);
        if (added < 0) {
            la_err(path, "no overlay: out of memory");
            return -1;
        }
        if (added)
            return 0;
        if (snprintf(name, len, "%s-%lu.png", base, k) >= (int)len) {
            la_err(path, "no overlay: %s: name too long", base);
            return -1;
        }
    }
}

// ---- the files ---------------------------------------------------------------------

/* Whether the file at path holds exactly bytes[0..len): the overlay an
 * earlier run of the same command wrote. */
static int same_bytes(const char *path, const unsigned char *bytes, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == len;
    unsigned char buf[8192];
    for (size_t done = 0; same && done < len;) {
        ssize_t k = read(fd, buf, len - done < sizeof buf ? len - done : sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        same = k > 0 && memcmp(buf, bytes + done, (size_t)k) == 0;
        done += k > 0 ? (size_t)k : 0;
    }
    close(fd);
    return same;
}

/* Write bytes to the new file path, which must not exist. A file there with
 * the same bytes is a re-run's: kept, not an error. One with other bytes is
 * never replaced: a usage error (the folder names files of another run), not
 * an input that could not be read. @return 0, -2 (said: exit 2) or -1 said. */
static int write_new(const char *path, const unsigned char *bytes, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) {
        if (same_bytes(path, bytes, len))
            return 0;
        la_err(NULL, "--overlays: %s exists and differs: not overwritten "
               "(remove it, or name another folder)", path);
        return -2;
    }
    if (fd < 0) {
        la_err(path, "cannot create: %s", strerror(errno));
        return -1;
    }
    for (size_t done = 0; done < len;) {
        ssize_t k = write(fd, bytes + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            la_err(path, "write error: %s", strerror(k < 0 ? errno : EIO));
            close(fd);
            unlink(path);       /* ours, half written */
            return -1;
        }
        done += (size_t)k;
    }
    if (close(fd) != 0) {
        la_err(path, "write error: %s", strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}

/* The overlay of pick p of r, if its name was made in this pass (0: the names
 * that are a file name, unchanged; 1: those of a subfolder's path, flattened). */
static int write_overlay(const struct la_file_report *r, const struct la_mask_pick *p,
                         const struct la_config *cfg, struct name_set *names, int pass)
{
    char name[1024], path[4096], err[LA_ERR_LEN];
    if (overlay_name(r, p, name, sizeof name) != pass)
        return 0;
    struct la_mask_image img;
    if (la_mask_load(p, cfg, &img, err, sizeof err) != 0) {
        la_err(p->path, "no overlay: %s", err);
        return -1;
    }
    size_t len = 0;
    unsigned char *png = la_mask_png(&img, &len, err, sizeof err);
    la_mask_image_free(&img);
    if (!png) {
        la_err(cfg->overlays, "%s", err);
        return -1;
    }
    int rc = -1;
    if (unique_name(names, name, sizeof name, p->path) != 0)
        ;
    else if (snprintf(path, sizeof path, "%s/%s", cfg->overlays, name) >= (int)sizeof path)
        la_err(cfg->overlays, "%s: name too long", name);
    else if ((rc = write_new(path, png, len)) == 0 && p->in_file)
        la_verbose(p->path, "sample %llu: overlay %s", (unsigned long long)p->sample, path);
    else if (rc == 0)
        la_verbose(p->path, "overlay %s", path);
    free(png);
    return rc;
}

int la_report_overlays(const struct la_file_report *files, int n, const struct la_config *cfg)
{
    struct stat st;
    if (mkdir(cfg->overlays, 0777) != 0 &&
        (errno != EEXIST || stat(cfg->overlays, &st) != 0 || !S_ISDIR(st.st_mode))) {
        la_err(cfg->overlays, "cannot make the --overlays folder: %s",
               errno == EEXIST ? "not a folder" : strerror(errno));
        return -1;
    }
    int rc = 0;
    struct name_set names = { 0 };
    /* a file name kept first: a_b.png is a_b.png's, a/b.png's overlay a_b-2.png */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            struct la_mask_pick *picks;
            long k = la_mask_worst(&files[i], cfg, &picks);
            if (k < 0 && pass == 0) {
                la_err(files[i].path, "no overlays: out of memory");
                rc = -1;
            }
            for (long j = 0; j < k; j++) {
                int w = write_overlay(&files[i], &picks[j], cfg, &names, pass);
                if (w == -1 || (w == -2 && rc == 0))
                    rc = w;   /* an unreadable input's exit 3 outranks exit 2 */
            }
            free(picks);
        }
    name_set_free(&names);
    return rc;
}
