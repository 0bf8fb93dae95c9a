/* atomic_file.h - write a finished report file all at once, so that a reader
 * (a CI test reporter, another job) never sees half of it: --junit and
 * --annotations=gitlab:FILE.
 *
 * A regular file (or a link to one) is written to a temporary file beside it,
 * synced and renamed into place; it keeps the mode it had (a new one follows
 * the umask). A target that exists and is not a regular file (/dev/stdout, a
 * FIFO) is never replaced: the bytes are written into it. */
#ifndef LA_ATOMIC_FILE_H
#define LA_ATOMIC_FILE_H

#include <stddef.h> /* size_t */

/** la_atomic_write() : make target hold the len bytes of data.
 *  @return 0, or -1 with a one-line reason in err (the target is untouched
 *  and no temporary file is left behind). */
int la_atomic_write(const char *target, const char *data, size_t len, char *err, size_t errlen);

/* A new file, written whole or not at all and never over a file that exists
 * (--fix's copies): the bytes go to a temporary file in the target's folder,
 * which is synced, then link()ed to the target's name (link, unlike rename,
 * fails when the name exists) and unlinked. */
struct la_new_file {
    int fd;                   /* the temporary file; -1 when none is open */
    char *tmp, *target;
    int failed;               /* the first write error (an errno), 0 if none */
    size_t n;                 /* bytes waiting in buf */
    char buf[1 << 16];
};

/** la_new_file_open() : refuse a target that exists; else create the
 *  temporary file beside it. @return 0, or -1 with a one-line reason in err. */
int la_new_file_open(struct la_new_file *f, const char *target, char *err, size_t errlen);

/** la_new_file_put() : append len bytes (buffered; an error is kept for commit). */
void la_new_file_put(struct la_new_file *f, const void *data, size_t len);

/** la_new_file_commit() : flush, sync and link the file into place, never over
 *  one that appeared meanwhile. @return 0, or -1 with err set (nothing is left). */
int la_new_file_commit(struct la_new_file *f, char *err, size_t errlen);

/** la_new_file_abort() : remove the temporary file (nothing is left). */
void la_new_file_abort(struct la_new_file *f);

/** la_new_file_write() : the whole of data as the new file target (open, put,
 *  commit). @return 0, or -1 with err set. */
int la_new_file_write(const char *target, const char *data, size_t len, char *err,
                      size_t errlen);

#endif
