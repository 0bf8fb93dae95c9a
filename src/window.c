/* window.c - see window.h. */
#include "window.h"

#include <errno.h>    /* errno, ENOMEM */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* aligned_alloc, free */
#include <string.h>   /* strerror */
#include <sys/stat.h> /* fstat */

#include "util.h"     /* la_pread_full */

#define PAGE ((size_t)4096)

/* The window read with pread into w->buf, at the file offset's place in a
 * page: the kernel's copy (`rep movsb`) ran about four times slower on this
 * AMD EPYC when the destination lay a few bytes above the source modulo
 * 4 KiB (malloc's 16-byte offset into a fresh page, against a raw file read
 * from page starts: 0.34 s against 0.08 s of CPU for 800 MB; the same
 * short-distance case glibc's memmove steers around). @return the bytes, or
 * NULL with *f. */
static const char *read_copy(struct la_window *w, int fd, uint64_t off, size_t len,
                             struct la_window_failure *f)
{
    size_t lead = (size_t)(off % PAGE), need = (lead + len + PAGE - 1) / PAGE * PAGE;
    if (w->buf_cap < need) {
        free(w->buf);
        w->buf_cap = 0;
        if (!(w->buf = aligned_alloc(PAGE, need))) {
            *f = (struct la_window_failure){ 1, off, ENOMEM };
            return NULL;
        }
        w->buf_cap = need;
    }
    size_t got = la_pread_full(fd, w->buf + lead, len, off);
    if (got < len) {
        *f = (struct la_window_failure){ 1, off + got, errno };
        return NULL;
    }
    w->preads++;
    return w->buf + lead;
}

const char *la_window_open(struct la_window *w, int fd, uint64_t off, size_t len,
                           struct la_window_failure *f)
{
    struct stat st;
    /* already cut short: say so now (if it shrinks later, the guard or the
     * changed size at the end catches it) */
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < off + len) {
        *f = (struct la_window_failure){ 1, fstat(fd, &st) == 0 ? (uint64_t)st.st_size : off, 0 };
        return NULL;
    }
    const char *mapped = w->copy ? NULL : la_map_guarded(fd, off, len, &w->map);
    return mapped ? mapped : read_copy(w, fd, off, len, f);
}

int la_window_close(struct la_window *w, struct la_window_failure *f)
{
    int64_t fault = la_unmap_guarded(&w->map);
    if (fault < 0)
        return 0;
    *f = (struct la_window_failure){ 1, (uint64_t)fault, 0 };
    return -1;
}

void la_window_free(struct la_window *w)
{
    la_unmap_guarded(&w->map);
    free(w->buf);
    *w = (struct la_window){ .copy = w->copy };
}

void la_window_failure_text(const struct la_window_failure *f, char *buf, size_t len)
{
    if (f->err == ENOMEM)
        snprintf(buf, len, "out of memory");
    else if (f->err)
        snprintf(buf, len, "byte %llu: read error: %s", (unsigned long long)f->at,
                 strerror(f->err));
    else
        snprintf(buf, len, "byte %llu: file shrank while being read", (unsigned long long)f->at);
}
