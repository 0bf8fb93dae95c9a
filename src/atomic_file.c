/* atomic_file.c - see atomic_file.h. */
#include "atomic_file.h"

#include <errno.h>    /* errno, EINTR */
#include <fcntl.h>    /* open */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, mkstemp, realpath */
#include <string.h>   /* strrchr, strerror, memcpy, strdup */
#include <sys/stat.h> /* stat, fchmod, umask */
#include <unistd.h>   /* write, fsync, close, unlink */

#include "outputs.h"     /* la_descriptor_named */

/* Write all len bytes to fd. @return 0, or an errno. */
static int write_all(int fd, const char *data, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t k = write(fd, data + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        done += (size_t)k;
    }
    return 0;
}

/* A device, FIFO or socket: written into, never replaced. */
static int write_into(const char *target, const char *data, size_t len, char *err, size_t errlen)
{
    int fd = open(target, O_WRONLY | O_CLOEXEC);
    int rc = fd < 0 ? errno : write_all(fd, data, len);
    if (fd >= 0 && close(fd) != 0 && rc == 0 && errno != EINTR)
        rc = errno;
    if (rc != 0) {
        snprintf(err, errlen, "write error: %s", strerror(rc));
        return -1;
    }
    return 0;
}

/* The temporary file's name: ".labelaudit-XXXXXX" in the target's folder. */
static char *temp_name(const char *target)
{
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target + 1) : 0;
    size_t n = (size_t)dirlen + 32;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%.*s.labelaudit-XXXXXX", dirlen, target);
    return tmp;
}

/* Write data to a temporary file beside target and rename it into place. */
static int replace(const char *target, mode_t mode, const char *data, size_t len, char *err,
                   size_t errlen)
{
    char *tmp = temp_name(target);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a temporary file beside it: %s", strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = fchmod(fd, mode) != 0 ? errno : write_all(fd, data, len);
    if (rc == 0 && fsync(fd) != 0)
        rc = errno;
    if (close(fd) != 0 && rc == 0 && errno != EINTR)
        rc = errno;
    const char *what = "write error";
    if (rc == 0 && rename(tmp, target) != 0) {
        rc = errno;
        what = "cannot rename into place";
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", what, strerror(rc));
        unlink(tmp);
    }
    free(tmp);
    return rc != 0 ? -1 : 0;
}

int la_atomic_write(const char *target, const char *data, size_t len, char *err, size_t errlen)
{
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = 0666 & ~mask;
    int fd = la_descriptor_named(target);   /* /dev/stdout, -: `>> run.log` is appended to */
    if (fd >= 0) {
        int rc = write_all(fd, data, len);
        if (rc != 0)
            snprintf(err, errlen, "write error: %s", strerror(rc));
        return rc != 0 ? -1 : 0;
    }
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "is a directory");
            return -1;
        }
        if (!S_ISREG(st.st_mode))
            return write_into(target, data, len, err, errlen);
        mode = st.st_mode & 07777;
        char *real = realpath(target, NULL);   /* keep a link, replace its file */
        if (real) {
            int rc = replace(real, mode, data, len, err, errlen);
            free(real);
            return rc;
        }
    }
    return replace(target, mode, data, len, err, errlen);
}

// ---- new files: linked into place, never over one that exists ---------------------

int la_new_file_open(struct la_new_file *f, const char *target, char *err, size_t errlen)
{
    struct stat st;
    f->fd = -1;
    f->failed = 0;
    f->n = 0;
    f->tmp = f->target = NULL;
    if (lstat(target, &st) == 0) {
        snprintf(err, errlen, "%s exists: never replaced", target);
        return -1;
    }
    if (!(f->tmp = temp_name(target)) || !(f->target = strdup(target))) {
        free(f->tmp);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    f->fd = mkstemp(f->tmp);
    if (f->fd < 0 || fchmod(f->fd, 0666 & ~mask) != 0) {
        snprintf(err, errlen, "cannot create a temporary file beside %s: %s", target,
                 strerror(errno));
        la_new_file_abort(f);
        return -1;
    }
    la_outputs_add_temporary(f->fd);   /* a walk of the folder skips it */
    return 0;
}

static void flush_buf(struct la_new_file *f)
{
    if (f->n && !f->failed)
        f->failed = write_all(f->fd, f->buf, f->n);
    f->n = 0;
}

void la_new_file_put(struct la_new_file *f, const void *data, size_t len)
{
    if (f->n + len > sizeof f->buf)
        flush_buf(f);
    if (len > sizeof f->buf) {
        if (!f->failed)
            f->failed = write_all(f->fd, data, len);
        return;
    }
    memcpy(f->buf + f->n, data, len);
    f->n += len;
}

int la_new_file_commit(struct la_new_file *f, char *err, size_t errlen)
{
    flush_buf(f);
    int rc = f->failed;
    if (rc == 0 && fsync(f->fd) != 0)
        rc = errno;
    if (close(f->fd) != 0 && rc == 0 && errno != EINTR)
        rc = errno;
    f->fd = -1;
    const char *what = "write error";
    if (rc == 0 && link(f->tmp, f->target) != 0) {
        rc = errno;
        what = rc == EEXIST ? "appeared meanwhile: never replaced" : "cannot link into place";
    }
    if (rc != 0)
        snprintf(err, errlen, "%s: %s: %s", f->target, what, strerror(rc));
    la_new_file_abort(f);     /* the temporary name goes; a linked file stays */
    return rc != 0 ? -1 : 0;
}

void la_new_file_abort(struct la_new_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp)
        unlink(f->tmp);
    f->fd = -1;
    free(f->tmp);
    free(f->target);
    f->tmp = f->target = NULL;
}

int la_new_file_write(const char *target, const char *data, size_t len, char *err,
                      size_t errlen)
{
    static struct la_new_file f;   /* its buffer is large: not on the stack */
    if (la_new_file_open(&f, target, err, errlen) != 0)
        return -1;
    la_new_file_put(&f, data, len);
    return la_new_file_commit(&f, err, errlen);
}
