/* hold_labels.c - hands labels to labelaudit the way the Python package
 * does (python/labelaudit/_handover.py): the .npy header on standard input,
 * the values left in this process's memory and named by
 * LABELAUDIT_STDIN_MEMORY (src/stdin_memory.h), for
 * tests/readers/stdin-memory.sh, which runs no Python.
 *
 *   hold_labels FILE.npy              write the same labels as a .npy file
 *   hold_labels -- PROGRAM ARGS...    run PROGRAM with them handed over
 *   hold_labels -x SPEC -- PROGRAM... the same, with SPEC as the variable
 *                                     ("%p" in it: this process's id)
 * The exit status is PROGRAM's. */
#ifndef _GNU_SOURCE   /* the build passes -D_GNU_SOURCE; a lone compile needs it here */
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define COUNT 100003    /* more than one read of the reader, not a round number */

static int64_t labels[COUNT];

/* A version 1.0 header for COUNT int64, padded to 64 bytes as numpy pads it. */
static size_t header(char *buf, size_t cap)
{
    char dict[128];
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }", COUNT);
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    if (padded > cap)
        abort();
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)((padded - 10) & 0xff);
    buf[9] = (char)((padded - 10) >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', padded - 10 - (size_t)n - 1);
    buf[padded - 1] = '\n';
    return padded;
}

static int run(char *spec, char **argv)
{
    char head[256], env[128];
    size_t len = header(head, sizeof head);
    if (spec) {
        char *p = strstr(spec, "%p");
        if (p)
            snprintf(env, sizeof env, "%.*s%d%s", (int)(p - spec), spec, (int)getpid(), p + 2);
        else
            snprintf(env, sizeof env, "%s", spec);
    } else {
        snprintf(env, sizeof env, "%d:%" PRIuPTR ":%zu", (int)getpid(),
                 (uintptr_t)labels, sizeof labels);
    }
    int fds[2];
    if (pipe(fds) != 0 || write(fds[1], head, len) != (ssize_t)len)
        return 99;
    close(fds[1]);
    pid_t child = fork();
    if (child == 0) {
        dup2(fds[0], 0);
        setenv("LABELAUDIT_STDIN_MEMORY", env, 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[0]);
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child)
        return 99;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 98;
}

int main(int argc, char **argv)
{
    for (int i = 0; i < COUNT; i++)
        labels[i] = i % 10;
    labels[7] = 10;
    labels[COUNT - 1] = -3;         /* the last value: read to the very end */
    if (argc == 2) {
        char head[256];
        size_t len = header(head, sizeof head);
        FILE *f = fopen(argv[1], "wb");
        if (!f || fwrite(head, 1, len, f) != len || fwrite(labels, sizeof labels, 1, f) != 1
            || fclose(f) != 0)
            return 99;
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "--") == 0)
        return run(NULL, argv + 2);
    if (argc > 4 && strcmp(argv[1], "-x") == 0 && strcmp(argv[3], "--") == 0)
        return run(argv[2], argv + 4);
    fprintf(stderr, "usage: hold_labels FILE.npy | [-x SPEC] -- PROGRAM ARGS...\n");
    return 2;
}
