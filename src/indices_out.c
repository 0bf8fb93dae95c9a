/* indices_out.c - see indices_out.h. */
#include "indices_out.h"

#include <errno.h>    /* errno */
#include <fcntl.h>    /* open, fcntl */
#include <limits.h>   /* INT_MAX */
#include <stdio.h>    /* FILE, fprintf */
#include <stdlib.h>   /* malloc, mkstemp, realpath, strtol */
#include <string.h>   /* strrchr, strerror */
#include <sys/stat.h> /* fchmod, umask, stat */
#include <unistd.h>   /* fsync, unlink, read, write, readlink */

#include "fatal.h"    /* la_fatal_remove_on_death */
#include "outputs.h"  /* la_outputs_add_temporary */
#include "utf8.h"     /* la_escape */

struct la_indices_out {
    char *target;       /* the regular file renamed into place (a symlink's target) */
    char *tmp;          /* the temporary file, or NULL when it is already unlinked */
    FILE *fp;
    int copy;           /* the target is a device, FIFO or socket: copy into it on success */
    int stream;         /* fp writes through a duplicate of one of our descriptors */
    int has_mode;       /* the target exists: its mode, for the file that replaces it */
    mode_t mode;
    char *path;         /* of the file whose entries arrive now, escaped for the TSV */
    int dtype;
    int failed_errno;   /* first write error, 0 if none */
};

// ---- where the entries go --------------------------------------------------------

/* Write through descriptor fd: a duplicate shares its offset and O_APPEND. */
static int take_descriptor(struct la_indices_out *io, int fd, char *err, size_t errlen)
{
    int flags = fcntl(fd, F_GETFL);
    int dup_fd = flags < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (flags >= 0 && (flags & O_ACCMODE) == O_RDONLY) {
        close(dup_fd);
        dup_fd = -1;
        errno = EBADF;              /* open for reading only: what write() would say */
    }
    if (dup_fd < 0 || !(io->fp = fdopen(dup_fd, "w"))) {
        snprintf(err, errlen, "cannot write to descriptor %d: %s", fd, strerror(errno));
        if (dup_fd >= 0)
            close(dup_fd);
        return -1;
    }
    io->stream = 1;
    return 0;
}

/* Where the entries go. A regular file (or a link to one) is replaced by
 * rename(), so the temporary file lies in the resolved target's own folder; a
 * device, FIFO or socket is never replaced, only written to on success from a
 * temporary file in $TMPDIR. @return 0, or -1 with err set. */
static int plan(struct la_indices_out *io, const char *target, char *err, size_t errlen)
{
    struct stat st, lst;
    const char *dir = NULL;
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "is a directory");
            return -1;
        }
        io->copy = !S_ISREG(st.st_mode);
        io->has_mode = !io->copy;
        io->mode = st.st_mode & 07777;
        if (io->copy) {
            dir = getenv("TMPDIR");
            dir = dir && *dir ? dir : "/tmp";
        } else if (lstat(target, &lst) == 0 && S_ISLNK(lst.st_mode)) {
            io->target = realpath(target, NULL);   /* keep the link, replace its file */
        }
    }
    if (!io->target && !(io->target = strdup(target)))
        goto oom;
    size_t n = strlen(io->target) + (dir ? strlen(dir) : 0) + 32;
    if (!(io->tmp = malloc(n)))
        goto oom;
    const char *slash = strrchr(io->target, '/');
    int dirlen = slash ? (int)(slash - io->target + 1) : 0;
    if (dir)
        snprintf(io->tmp, n, "%s/labelaudit-indices-XXXXXX", dir);
    else
        snprintf(io->tmp, n, "%.*s.labelaudit-XXXXXX", dirlen, io->target);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* mkstemp() makes the file 0600: give it the mode of the file it replaces, or
 * else what a new file gets under the umask. */
static void set_mode(struct la_indices_out *io, int fd)
{
    mode_t mode = io->mode;
    if (!io->has_mode) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    fchmod(fd, mode);
}

static int create_temporary(struct la_indices_out *io, char *err, size_t errlen)
{
    int fd = mkstemp(io->tmp);
    if (fd >= 0 && io->copy) {      /* only this process needs it: gone even if killed */
        unlink(io->tmp);
        free(io->tmp);
        io->tmp = NULL;
    } else if (fd >= 0) {
        set_mode(io, fd);
    }
    if (fd < 0 || !(io->fp = fdopen(fd, io->copy ? "w+" : "w"))) {
        snprintf(err, errlen, "cannot create a temporary file %s: %s",
                 io->copy ? "in $TMPDIR" : "beside it", strerror(errno));
        if (fd >= 0) {
            close(fd);
            if (io->tmp)
                unlink(io->tmp);
        }
        return -1;
    }
    return 0;
}

struct la_indices_out *la_indices_out_open(const char *target, char *err, size_t errlen)
{
    struct la_indices_out *io = calloc(1, sizeof *io);
    if (!io) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int fd = la_descriptor_named(target);
    if (fd >= 0 ? take_descriptor(io, fd, err, errlen) != 0
                : plan(io, target, err, errlen) != 0 || create_temporary(io, err, errlen) != 0)
        goto fail;
    if (io->tmp)                         /* beside the target: a directory walk skips it */
        la_outputs_add_temporary(fileno(io->fp));
    la_fatal_setup();
    la_fatal_remove_on_death(io->tmp);   /* NULL for a descriptor or device: nothing to remove */
    return io;
fail:
    free(io->target);
    free(io->tmp);
    free(io);
    return NULL;
}

int la_indices_out_streams(const struct la_indices_out *io)
{
    return io->stream;
}

// ---- the entries -------------------------------------------------------------------

void la_indices_out_begin_file(struct la_indices_out *io, const char *path, int dtype)
{
    free(io->path);
    io->path = la_escape_dup(path, LA_ESC_TSV);
    if (!io->path && !io->failed_errno)
        io->failed_errno = ENOMEM;
    io->dtype = dtype;
}

void la_indices_out_flush(struct la_indices_out *io)
{
    if (io && io->stream && fflush(io->fp) != 0 && !io->failed_errno)
        io->failed_errno = errno ? errno : EIO;
}

void la_indices_out_sink(void *ctx, const struct la_bad *bad)
{
    struct la_indices_out *io = ctx;
    char value[64], escaped[LA_ESCAPE_MAX * sizeof value];
    if (!io->path)
        return;                     /* out of memory: already a write error */
    if (bad->text)
        snprintf(value, sizeof value, "%s", bad->text);
    else
        la_format_num(bad->value, io->dtype, value, sizeof value);
    la_escape(escaped, sizeof escaped, value, LA_ESC_TSV);
    if (fprintf(io->fp, "%s\t%llu\t%s\n", io->path, (unsigned long long)bad->index,
                escaped) < 0 && !io->failed_errno)
        io->failed_errno = errno ? errno : EIO;
}

// ---- the end -------------------------------------------------------------------------

/* Copy the finished temporary file into a device, FIFO or socket. @return 0 or an errno. */
static int copy_out(struct la_indices_out *io)
{
    int in = fileno(io->fp);
    if (lseek(in, 0, SEEK_SET) != 0)
        return errno;
    int out = open(io->target, O_WRONLY | O_CLOEXEC);
    if (out < 0)
        return errno;
    char buf[1 << 16];
    ssize_t got;
    int rc = 0;
    while (rc == 0 && (got = read(in, buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno != EINTR)
                rc = errno;
            continue;
        }
        for (ssize_t done = 0; rc == 0 && done < got;) {
            ssize_t k = write(out, buf + done, (size_t)(got - done));
            if (k < 0 && errno != EINTR)
                rc = errno;
            done += k > 0 ? k : 0;
        }
    }
    if (close(out) != 0 && rc == 0 && errno != EINTR)
        rc = errno;
    return rc;
}

int la_indices_out_close(struct la_indices_out *io, int commit, char *err, size_t errlen)
{
    int rc = 0;
    int replace = !io->copy && !io->stream;
    if (fflush(io->fp) != 0 || ferror(io->fp))
        io->failed_errno = io->failed_errno ? io->failed_errno : errno ? errno : EIO;
    if (commit && !io->failed_errno && replace && fsync(fileno(io->fp)) != 0)
        io->failed_errno = errno;
    if (commit && !io->failed_errno && io->copy)
        io->failed_errno = copy_out(io);
    if (fclose(io->fp) != 0 && !io->failed_errno)
        io->failed_errno = errno ? errno : EIO;
    if (io->failed_errno) {
        snprintf(err, errlen, "write error: %s", strerror(io->failed_errno));
        rc = -1;
    } else if (commit && replace && rename(io->tmp, io->target) != 0) {
        snprintf(err, errlen, "cannot rename into place: %s", strerror(errno));
        rc = -1;
    }
    la_fatal_remove_on_death(NULL);
    if ((rc != 0 || !commit) && io->tmp)
        unlink(io->tmp);
    free(io->target);
    free(io->tmp);
    free(io->path);
    free(io);
    return rc;
}
