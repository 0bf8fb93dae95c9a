/* overlays.c - --overlays=DIR: each of the worst bad masks (mask_image.h) as
 * a PNG a person opens beside the image: the mask's classes in the palette's
 * colours, its bad pixels magenta, full size. The overlay carries its own
 * palette (indexed PNG), so that index LA_MASK_BAD is exactly the bad pixels
 * and a script can count them.
 *
 * Named after the mask: its path below the dataset's folder with '/' as '_'
 * (or its file name), the extension replaced by .png, "-sample-K" added for
 * one mask of an array of many. A file already there is never replaced
 * (O_EXCL): it is said, the others are still written, and the run exits 3. */
#include "report.h"

#include <errno.h>    /* errno, EEXIST */
#include <fcntl.h>    /* open, O_EXCL */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* free */
#include <string.h>   /* strlen, strrchr, strerror */
#include <sys/stat.h> /* mkdir, stat */
#include <unistd.h>   /* write, close, unlink */

#include "dataset.h"
#include "formats.h"  /* la_name_ends_in */
#include "mask_image.h"
#include "msg.h"

/* The overlay's file name for pick of r, into buf. */
static void overlay_name(const struct la_file_report *r, const struct la_mask_pick *p,
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
    int w = snprintf(buf, len, "%.*s", (int)n, name);
    for (char *c = buf; *c; c++)
        if (*c == '/')
            *c = '_';
    if (w >= 0 && (size_t)w < len && p->in_file)
        snprintf(buf + w, len - (size_t)w, "-sample-%llu", (unsigned long long)p->sample);
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, ".png");
}

/* Write bytes to the new file path, which must not exist. @return 0, or -1 said. */
static int write_new(const char *path, const unsigned char *bytes, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno == EEXIST)
            la_err(path, "exists: not overwritten (--overlays writes new files only)");
        else
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

static int write_overlay(const struct la_file_report *r, const struct la_mask_pick *p,
                         const struct la_config *cfg)
{
    char name[1024], path[4096], err[LA_ERR_LEN];
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
    overlay_name(r, p, name, sizeof name);
    int rc = -1;
    if (snprintf(path, sizeof path, "%s/%s", cfg->overlays, name) >= (int)sizeof path)
        la_err(cfg->overlays, "%s: name too long", name);
    else
        rc = write_new(path, png, len);
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
    for (int i = 0; i < n; i++) {
        struct la_mask_pick *picks;
        long k = la_mask_worst(&files[i], cfg, &picks);
        if (k < 0) {
            la_err(files[i].path, "no overlays: out of memory");
            rc = -1;
        }
        for (long j = 0; j < k; j++)
            if (write_overlay(&files[i], &picks[j], cfg) != 0)
                rc = -1;
        free(picks);
    }
    return rc;
}
