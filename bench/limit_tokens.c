/* limit_tokens.c - the token benchmark's speed limit: a plain C read and
 * range check of a uint16 token file, nothing else (no report, no positions).
 *
 *   limit_tokens PATH V THREADS
 *
 * The file is split into THREADS contiguous ranges, each read with pread()
 * into a page-aligned 1 MiB buffer of its own and every id compared with V;
 * prints the number of ids >= V. */
#include <fcntl.h>    /* open */
#include <pthread.h>  /* pthread_create */
#include <stdint.h>   /* uint16_t */
#include <stdio.h>    /* printf */
#include <stdlib.h>   /* strtoull, aligned_alloc */
#include <sys/stat.h> /* fstat */
#include <unistd.h>   /* pread */

#define BUF (1u << 20)

struct job {
    int fd;
    uint64_t lo, hi, v, bad;
};

static void *run(void *arg)
{
    struct job *j = arg;
    uint16_t *buf = aligned_alloc(4096, BUF);
    for (uint64_t off = j->lo; buf && off < j->hi;) {
        size_t want = j->hi - off < BUF ? (size_t)(j->hi - off) : BUF;
        ssize_t got = pread(j->fd, buf, want, (off_t)off);
        if (got <= 0)
            break;
        uint64_t bad = 0;
        uint16_t v = (uint16_t)(j->v > 65535 ? 65535 : j->v);
        if ((size_t)got == BUF)     /* a constant count: -O2 vectorizes it */
            for (size_t i = 0; i < BUF / 2; i++)
                bad += buf[i] >= v;
        else
            for (size_t i = 0; i < (size_t)got / 2; i++)
                bad += buf[i] >= v;
        j->bad += bad;
        off += (uint64_t)got;
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    int threads = atoi(argv[3]);
    if (fd < 0 || fstat(fd, &st) != 0 || threads < 1 || threads > 64)
        return 1;
    struct job jobs[64];
    pthread_t tid[64];
    uint64_t size = (uint64_t)st.st_size / 2 * 2, share = size / threads / 4096 * 4096;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){ fd, t * share, t + 1 < threads ? (t + 1) * share : size,
                                strtoull(argv[2], NULL, 10), 0 };
        pthread_create(&tid[t], NULL, run, &jobs[t]);
    }
    uint64_t bad = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        bad += jobs[t].bad;
    }
    printf("%llu\n", (unsigned long long)bad);
    return 0;
}
