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

#endif
