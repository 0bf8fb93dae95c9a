/* stdin_memory.h - standard input that goes on in another process's memory.
 *
 * The Python package hands an array to the binary without copying it into a
 * pipe: it writes the .npy header to standard input and names, in
 * LABELAUDIT_STDIN_MEMORY=PID:ADDRESS:LENGTH, where the array's bytes lie in
 * its own memory. When standard input ends, the source goes on with those
 * bytes, read with process_vm_readv(2) into the reader's buffer: the reader
 * sees one .npy stream, so the report is the one the same bytes through a
 * pipe give. The kernel decides whether this process may read that one
 * (ptrace access: the same user, and Yama's ptrace_scope); where it may not,
 * the read fails with one line saying so, and the package falls back to the
 * pipe. */
#ifndef LA_STDIN_MEMORY_H
#define LA_STDIN_MEMORY_H

#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* pid_t, ssize_t */

#define LA_STDIN_MEMORY_ENV "LABELAUDIT_STDIN_MEMORY"

struct la_stdin_memory {
    pid_t pid;
    uint64_t address, length;   /* the bytes that follow standard input */
    uint64_t done;              /* of them, handed out */
};

/** la_stdin_memory_from_env() : parse LABELAUDIT_STDIN_MEMORY into m.
 *  @return 1 when it is set, 0 when it is not (or empty), -1 when it is not
 *  PID:ADDRESS:LENGTH (decimal), with a one-line reason in err. */
int la_stdin_memory_from_env(struct la_stdin_memory *m, char *err, size_t errlen);

/** la_stdin_memory_read() : up to n of the next bytes.
 *  @return bytes read, 0 after the last, -1 with a one-line reason in err. */
ssize_t la_stdin_memory_read(struct la_stdin_memory *m, void *buf, size_t n,
                             char *err, size_t errlen);

#endif
