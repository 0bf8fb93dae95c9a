/* indices_out.c - see indices_out.h. */
#include "indices_out.h"

#include <errno.h>   /* errno */
#include <stdio.h>   /* FILE, fprintf */
#include <stdlib.h>  /* malloc, mkstemp */
#include <string.h>  /* strrchr, strerror */
#include <sys/stat.h> /* fchmod, umask */
#include <unistd.h>  /* fsync, unlink */

struct la_indices_out {
    char *target;
    char *tmp;
    FILE *fp;
    const char *path;   /* of the file whose entries arrive now */
    int dtype;
    int failed_errno;   /* first write error, 0 if none */
};

struct la_indices_out *la_indices_out_open(const char *target, char *err, size_t errlen)
{
    struct la_indices_out *io = calloc(1, sizeof *io);
    size_t n = strlen(target);
    if (!io || !(io->target = strdup(target)) || !(io->tmp = malloc(n + 32))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* in the target's own folder, so that rename() is atomic */
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target + 1) : 0;
    snprintf(io->tmp, n + 32, "%.*s.labelaudit-XXXXXX", dirlen, target);
    int fd = mkstemp(io->tmp);
    if (fd >= 0) {          /* mkstemp makes it 0600; a plain output file follows the umask */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    if (fd < 0 || !(io->fp = fdopen(fd, "w"))) {
        snprintf(err, errlen, "cannot create a temporary file beside it: %s", strerror(errno));
        if (fd >= 0)
            close(fd), unlink(io->tmp);
        goto fail;
    }
    return io;
fail:
    if (io) {
        free(io->target);
        free(io->tmp);
        free(io);
    }
    return NULL;
}

void la_indices_out_begin_file(struct la_indices_out *io, const char *path, int dtype)
{
    io->path = path;
    io->dtype = dtype;
}

void la_indices_out_sink(void *ctx, const struct la_bad *bad)
{
    struct la_indices_out *io = ctx;
    char value[64];
    if (bad->text)
        snprintf(value, sizeof value, "%s", bad->text);
    else
        la_format_num(bad->value, io->dtype, value, sizeof value);
    /* tabs and newlines inside a cell would break the TSV line */
    for (char *p = value; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    if (fprintf(io->fp, "%s\t%llu\t%s\n", io->path, (unsigned long long)bad->index, value) < 0 &&
        !io->failed_errno)
        io->failed_errno = errno ? errno : EIO;
}

int la_indices_out_close(struct la_indices_out *io, int commit, char *err, size_t errlen)
{
    int rc = 0;
    if (fflush(io->fp) != 0 || ferror(io->fp))
        io->failed_errno = io->failed_errno ? io->failed_errno : errno ? errno : EIO;
    if (commit && !io->failed_errno && fsync(fileno(io->fp)) != 0)
        io->failed_errno = errno;
    if (fclose(io->fp) != 0 && !io->failed_errno)
        io->failed_errno = errno ? errno : EIO;
    if (io->failed_errno) {
        snprintf(err, errlen, "write error: %s", strerror(io->failed_errno));
        rc = -1;
    } else if (commit && rename(io->tmp, io->target) != 0) {
        snprintf(err, errlen, "cannot rename into place: %s", strerror(errno));
        rc = -1;
    }
    if (rc != 0 || !commit)
        unlink(io->tmp);
    free(io->target);
    free(io->tmp);
    free(io);
    return rc;
}
