/* stdin_memory.c - standard input continued in another process's memory
 * (stdin_memory.h says why and when). */
#include "stdin_memory.h"

#include <errno.h>     /* errno */
#include <inttypes.h>  /* strtoumax */
#include <limits.h>    /* SSIZE_MAX */
#include <stdio.h>     /* snprintf */
#include <stdlib.h>    /* getenv */
#include <string.h>    /* strerror */
#include <sys/uio.h>   /* process_vm_readv */

/* One decimal field ending at `end` (':' or '\0'); 0, or -1 when it is not. */
static int field(const char **p, char end, uint64_t *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return -1;
    char *stop;
    errno = 0;
    uintmax_t v = strtoumax(s, &stop, 10);
    if (errno || *stop != end || v > UINT64_MAX)
        return -1;
    *out = (uint64_t)v;
    *p = end ? stop + 1 : stop;
    return 0;
}

int la_stdin_memory_from_env(struct la_stdin_memory *m, char *err, size_t errlen)
{
    const char *v = getenv(LA_STDIN_MEMORY_ENV);
    if (!v || !*v)
        return 0;
    const char *p = v;
    uint64_t pid;
    if (field(&p, ':', &pid) || field(&p, ':', &m->address) || field(&p, '\0', &m->length)
        || pid == 0 || pid > INT32_MAX || m->address > UINT64_MAX - m->length) {
        snprintf(err, errlen, LA_STDIN_MEMORY_ENV "=%.60s: not PID:ADDRESS:LENGTH in decimal", v);
        return -1;
    }
    m->pid = (pid_t)pid;
    m->done = 0;
    return 1;
}

ssize_t la_stdin_memory_read(struct la_stdin_memory *m, void *buf, size_t n,
                             char *err, size_t errlen)
{
    uint64_t left = m->length - m->done;
    if (n > left)
        n = (size_t)left;
    if (n > SSIZE_MAX)
        n = SSIZE_MAX;
    if (n == 0)
        return 0;
    struct iovec local = { buf, n };
    struct iovec remote = { (void *)(uintptr_t)(m->address + m->done), n };
    ssize_t got;
    do
        got = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
    while (got < 0 && errno == EINTR);
    if (got <= 0) {
        snprintf(err, errlen, "byte %llu of the memory " LA_STDIN_MEMORY_ENV
                 " names: cannot read it from process %d: %s",
                 (unsigned long long)m->done, (int)m->pid,
                 got < 0 ? strerror(errno) : "it ended early");
        return -1;
    }
    m->done += (uint64_t)got;
    return got;
}
