/* indices_out.c - see indices_out.h. */
#include "indices_out.h"

#include <errno.h>   /* errno */
#include <signal.h>  /* sigaction, raise */
#include <fcntl.h>   /* open */
#include <stdio.h>   /* FILE, fprintf */
#include <stdlib.h>  /* malloc, mkstemp, realpath */
#include <string.h>  /* strrchr, strerror */
#include <sys/stat.h> /* fchmod, umask, stat */
#include <unistd.h>  /* fsync, unlink, read, write */

struct la_indices_out {
    char *target;       /* the regular file renamed into place (a symlink's target) */
    char *tmp;          /* the temporary file, or NULL when it is already unlinked */
    FILE *fp;
    int copy;           /* the target is a device, FIFO or socket: copy into it on success */
    const char *path;   /* of the file whose entries arrive now */
    int dtype;
    int failed_errno;   /* first write error, 0 if none */
};

/* Where the entries go. A regular file (or a link to one) is replaced by
 * rename(), so the temporary file lies in the resolved target's own folder; a
 * device, FIFO or socket (/dev/stdout, a pipe) is never replaced, only written
 * to on success from a temporary file in $TMPDIR. @return 0, or -1 with err set. */
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

// ---- interrupted runs ---------------------------------------------------------

/* The temporary file of the run in progress: a Ctrl-C or kill must not leave it
 * behind. Only the path is kept, so the handler calls nothing but unlink(). */
static const char *volatile g_pending_tmp;

static void remove_pending_and_die(int sig)
{
    const char *tmp = g_pending_tmp;
    if (tmp)
        unlink(tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A signal the caller ignores (nohup, a shell's background job) stays ignored. */
static void watch_signals(const char *tmp)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    g_pending_tmp = tmp;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tmp ? remove_pending_and_die : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
}

struct la_indices_out *la_indices_out_open(const char *target, char *err, size_t errlen)
{
    struct la_indices_out *io = calloc(1, sizeof *io);
    if (!io) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (plan(io, target, err, errlen) != 0)
        goto fail;
    int fd = mkstemp(io->tmp);
    if (fd >= 0 && io->copy) {      /* only this process needs it: gone even if killed */
        unlink(io->tmp);
        free(io->tmp);
        io->tmp = NULL;
    } else if (fd >= 0) {           /* mkstemp makes it 0600; an output file follows the umask */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    if (fd < 0 || !(io->fp = fdopen(fd, io->copy ? "w+" : "w"))) {
        snprintf(err, errlen, "cannot create a temporary file %s: %s",
                 io->copy ? "in $TMPDIR" : "beside it", strerror(errno));
        if (fd >= 0) {
            close(fd);
            if (io->tmp)
                unlink(io->tmp);
        }
        goto fail;
    }
    watch_signals(io->tmp);         /* NULL for a device: already unlinked */
    return io;
fail:
    free(io->target);
    free(io->tmp);
    free(io);
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
    if (fflush(io->fp) != 0 || ferror(io->fp))
        io->failed_errno = io->failed_errno ? io->failed_errno : errno ? errno : EIO;
    if (commit && !io->failed_errno && !io->copy && fsync(fileno(io->fp)) != 0)
        io->failed_errno = errno;
    if (commit && !io->failed_errno && io->copy)
        io->failed_errno = copy_out(io);
    if (fclose(io->fp) != 0 && !io->failed_errno)
        io->failed_errno = errno ? errno : EIO;
    if (io->failed_errno) {
        snprintf(err, errlen, "write error: %s", strerror(io->failed_errno));
        rc = -1;
    } else if (commit && !io->copy && rename(io->tmp, io->target) != 0) {
        snprintf(err, errlen, "cannot rename into place: %s", strerror(errno));
        rc = -1;
    }
    if ((rc != 0 || !commit) && io->tmp)
        unlink(io->tmp);
    watch_signals(NULL);
    free(io->target);
    free(io->tmp);
    free(io);
    return rc;
}
