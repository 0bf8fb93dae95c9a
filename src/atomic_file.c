/* atomic_file.c - see atomic_file.h. */
#include "atomic_file.h"

#include <errno.h>    /* errno, EINTR */
#include <fcntl.h>    /* open */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, mkstemp, realpath */
#include <string.h>   /* strrchr, strerror */
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
