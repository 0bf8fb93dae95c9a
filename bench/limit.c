#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memrchr */
#endif
/* limit.c - the speed limit labelaudit is measured against: a plain C program
 * that only reads, checks and counts. No report, no index list, no formats
 * beyond what the benchmark files need.
 *
 *   limit bin int64|int32|uint8 PATH OFFSET CLASSES THREADS [COUNT]
 *   limit csv PATH CLASSES THREADS        label = the last cell; first line is a header
 *   limit csvgz PATH CLASSES              one thread inflates, one parses
 *   limit spin N THREADS                  N steps of a loop, shared by THREADS
 *
 * Prints the number of values outside [0, CLASSES). Binary and CSV inputs are
 * split into THREADS contiguous ranges, each read with pread() into a 1 MiB
 * buffer of its own, checked and histogrammed; the counts are summed. A binary
 * array runs from OFFSET to the end of the file, or for COUNT elements (an
 * array inside a container: a zip member, an HDF5 file).
 *
 * spin touches no memory and shares nothing: the speed-up its THREADS get
 * over one is what this machine gives a perfectly parallel program at the
 * time (a shared VM's slow minutes hit a run on two CPUs harder than one on
 * one). Prints "-".
 *
 * Built with -DLIMIT_MASKS (and -lspng -lpng), folders of mask files:
 *
 *   limit spng|spng-decode|libpng|niigz LIST CLASSES THREADS
 *
 * LIST names one file a line; THREADS take the next file as they finish one,
 * decode it (8-bit grey or palette PNG with libspng or libpng, a gzipped uint8
 * .nii with zlib) a row or 1 MiB at a time, and count as above; spng-decode
 * only decodes (prints "-"): what libspng alone takes.
 *
 * Built with -DLIMIT_HDF5 (and -lhdf5), an HDF5 dataset: limit_hdf5.h. */
#include <fcntl.h>    /* open */
#include <pthread.h>  /* pthread_create */
#include <stdint.h>   /* int64_t */
#include <stdio.h>    /* printf */
#include <stdlib.h>   /* strtoull, malloc */
#include <string.h>   /* memchr, memrchr, strcmp */
#include <sys/stat.h> /* fstat */
#include <unistd.h>   /* pread */
#include <zlib.h>     /* inflate */

#define BUF (1u << 20)
#define MAX_THREADS 64
#define MAX_CLASSES 4096

struct job {
    int fd;
    const char *kind;
    uint64_t lo, hi;          /* byte range */
    uint64_t classes;
    uint64_t bad;
    uint64_t hist[MAX_CLASSES];
};

// ---- binary arrays -----------------------------------------------------------

static void count_block(struct job *j, const void *p, size_t n)
{
    uint64_t c = j->classes, bad = 0;
    if (strcmp(j->kind, "int64") == 0) {
        const int64_t *v = p;
        for (size_t i = 0; i < n / 8; i++) {
            if ((uint64_t)v[i] < c)
                j->hist[v[i]]++;
            else
                bad++;
        }
    } else if (strcmp(j->kind, "int32") == 0) {
        const int32_t *v = p;
        for (size_t i = 0; i < n / 4; i++) {
            if ((uint32_t)v[i] < c)
                j->hist[v[i]]++;
            else
                bad++;
        }
    } else {
        const uint8_t *v = p;
        for (size_t i = 0; i < n; i++) {
            if (v[i] < c)
                j->hist[v[i]]++;
            else
                bad++;
        }
    }
    j->bad += bad;
}

/* The buffer lies at the file offset's place in a page, as labelaudit's
 * does: the kernel's copy into a buffer a few bytes above the source modulo
 * 4 KiB (malloc's 16 bytes into a fresh page, from a raw file's page starts)
 * ran four times slower on AMD Zen, and the limit must not be slowed by that. */
static void *bin_thread(void *arg)
{
    struct job *j = arg;
    char *page = aligned_alloc(4096, BUF + 4096), *buf = page ? page + j->lo % 4096 : NULL;
    for (uint64_t off = j->lo; buf && off < j->hi;) {
        size_t want = j->hi - off < BUF ? (size_t)(j->hi - off) : BUF;
        ssize_t got = pread(j->fd, buf, want, (off_t)off);
        if (got <= 0)
            break;
        count_block(j, buf, (size_t)got);
        off += (uint64_t)got;
    }
    free(page);
    return NULL;
}

// ---- CSV -----------------------------------------------------------------------

static void count_line(struct job *j, const char *p, const char *end)
{
    const char *comma = memrchr(p, ',', (size_t)(end - p));
    if (!comma)
        return;
    p = comma + 1;
    int neg = p < end && *p == '-';
    p += neg;
    int64_t v = 0;
    while (p < end && *p >= '0' && *p <= '9')
        v = v * 10 + (*p++ - '0');
    if (neg)
        v = -v;
    if ((uint64_t)v < j->classes)
        j->hist[v]++;
    else
        j->bad++;
}

/* Count the lines in p[0..n); @return the bytes of the unfinished last line. */
static size_t count_lines(struct job *j, const char *p, size_t n)
{
    const char *end = p + n, *nl;
    while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        count_line(j, p, nl);
        p = nl + 1;
    }
    return (size_t)(end - p);
}

/* The range starts after the first newline at or after lo (the header, for lo = 0). */
static uint64_t line_start(int fd, uint64_t lo, uint64_t size)
{
    char b[4096];
    while (lo < size) {
        ssize_t got = pread(fd, b, sizeof b, (off_t)lo);
        if (got <= 0)
            return size;
        char *nl = memchr(b, '\n', (size_t)got);
        if (nl)
            return lo + (uint64_t)(nl - b) + 1;
        lo += (uint64_t)got;
    }
    return size;
}

static void *csv_thread(void *arg)
{
    struct job *j = arg;
    char *buf = malloc(2 * BUF);
    size_t keep = 0;
    for (uint64_t off = j->lo; buf && off < j->hi;) {
        size_t want = j->hi - off < BUF ? (size_t)(j->hi - off) : BUF;
        ssize_t got = pread(j->fd, buf + keep, want, (off_t)off);
        if (got <= 0)
            break;
        off += (uint64_t)got;
        size_t n = keep + (size_t)got;
        keep = count_lines(j, buf, n);
        memmove(buf, buf + n - keep, keep);
    }
    if (buf && keep)
        count_line(j, buf, buf + keep);
    free(buf);
    return NULL;
}

// ---- gzip CSV: inflate in one thread, parse in another -----------------------------

#define RING 4

struct ring {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *slot[RING];
    size_t len[RING];
    uint64_t filled, taken;   /* slots produced and consumed so far */
    int done;
    int fd;
};

static void *inflate_thread(void *arg)
{
    struct ring *r = arg;
    unsigned char *in = malloc(BUF);
    z_stream z = { 0 };
    inflateInit2(&z, 15 + 16);
    int end = 0;
    while (in && !end) {
        pthread_mutex_lock(&r->mu);
        while (r->filled - r->taken == RING)
            pthread_cond_wait(&r->cv, &r->mu);
        pthread_mutex_unlock(&r->mu);
        char *out = r->slot[r->filled % RING];
        z.next_out = (unsigned char *)out;
        z.avail_out = BUF;
        while (z.avail_out > 0) {
            if (z.avail_in == 0) {
                ssize_t got = read(r->fd, in, BUF);
                if (got <= 0) {
                    end = 1;
                    break;
                }
                z.next_in = in;
                z.avail_in = (uInt)got;
            }
            int rc = inflate(&z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END && z.avail_in == 0) {
                end = 1;
                break;
            }
            if (rc == Z_STREAM_END)
                inflateReset(&z);
            else if (rc != Z_OK) {
                end = 1;        /* corrupt data: count what was inflated */
                break;
            }
        }
        pthread_mutex_lock(&r->mu);
        r->len[r->filled % RING] = BUF - z.avail_out;
        r->filled++;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_lock(&r->mu);
    r->done = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    inflateEnd(&z);
    free(in);
    return NULL;
}

static uint64_t run_csvgz(int fd, struct job *j)
{
    struct ring r = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .fd = fd };
    for (int i = 0; i < RING; i++)
        r.slot[i] = malloc(BUF);
    char *line = malloc(2 * BUF);
    size_t keep = 0;
    int header = 1;
    pthread_t t;
    pthread_create(&t, NULL, inflate_thread, &r);
    for (;;) {
        pthread_mutex_lock(&r.mu);
        while (r.filled == r.taken && !r.done)
            pthread_cond_wait(&r.cv, &r.mu);
        int empty = r.filled == r.taken;
        pthread_mutex_unlock(&r.mu);
        if (empty)
            break;
        const char *p = r.slot[r.taken % RING];
        size_t n = r.len[r.taken % RING];
        /* finish the line carried over, then count whole lines in place */
        const char *nl = memchr(p, '\n', n);
        size_t head = nl ? (size_t)(nl - p) + 1 : n;
        memcpy(line + keep, p, head);
        keep += head;
        if (nl) {
            if (!header)
                count_line(j, line, line + keep - 1);
            header = 0;
            keep = count_lines(j, p + head, n - head);
            memcpy(line, p + n - keep, keep);
        }
        pthread_mutex_lock(&r.mu);
        r.taken++;
        pthread_cond_broadcast(&r.cv);
        pthread_mutex_unlock(&r.mu);
    }
    pthread_join(t, NULL);
    if (keep)
        count_line(j, line, line + keep);
    return j->bad;
}

#ifdef LIMIT_MASKS
#include "limit_masks.h"
#endif
#ifdef LIMIT_HDF5
#include "limit_hdf5.h"
#endif

// ---- the machine's own parallel speed-up ----------------------------------

static void *spin(void *arg)
{
    uint64_t n = *(const uint64_t *)arg;
    volatile uint64_t x = 0;   /* kept in memory: the loop is not folded away */
    for (uint64_t i = 0; i < n; i++)
        x += i * 2654435761u;
    return NULL;
}

static int run_spin(uint64_t steps, int threads)
{
    pthread_t tids[MAX_THREADS];
    uint64_t share = steps / (uint64_t)threads;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tids[t], NULL, spin, &share) != 0)
            return 1;
    spin(&share);
    for (int t = 1; t < threads; t++)
        pthread_join(tids[t], NULL);
    printf("-\n");
    return 0;
}

int main(int argc, char **argv)
{
#ifdef LIMIT_MASKS
    if (argc == 5 && is_mask_kind(argv[1]))
        return run_masks(argv[1], argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]));
#endif
#ifdef LIMIT_HDF5
    if (argc == 5 && strcmp(argv[1], "h5") == 0)
        return run_h5(argv[2], argv[3], strtoull(argv[4], NULL, 10));
#endif
    if (argc == 4 && strcmp(argv[1], "spin") == 0) {
        int threads = atoi(argv[3]);
        return threads < 1 || threads > MAX_THREADS ? 2 : run_spin(strtoull(argv[2], NULL, 10), threads);
    }
    if (argc < 4) {
        fprintf(stderr, "usage: limit bin int64|int32|uint8 PATH OFFSET CLASSES THREADS [COUNT]\n"
                        "       limit csv PATH CLASSES THREADS | limit csvgz PATH CLASSES\n"
                        "       limit spin N THREADS\n");
        return 2;
    }
    int bin = strcmp(argv[1], "bin") == 0;
    const char *path = argv[bin ? 3 : 2];
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        return 1;
    }
    uint64_t size = (uint64_t)st.st_size;
    uint64_t classes = strtoull(argv[bin ? 5 : 3], NULL, 10);
    int threads = argc > (bin ? 6 : 4) ? atoi(argv[bin ? 6 : 4]) : 1;
    if (classes > MAX_CLASSES || threads < 1 || threads > MAX_THREADS)
        return 2;
    static struct job jobs[MAX_THREADS];
    if (strcmp(argv[1], "csvgz") == 0) {
        jobs[0].classes = classes;
        printf("%llu\n", (unsigned long long)run_csvgz(fd, &jobs[0]));
        return 0;
    }
    uint64_t start = bin ? strtoull(argv[4], NULL, 10) : 0;
    unsigned elem = !bin ? 1 : strcmp(argv[2], "int64") == 0 ? 8
                  : strcmp(argv[2], "int32") == 0 ? 4 : 1;
    uint64_t count = bin && argc > 7 ? strtoull(argv[7], NULL, 10) : (size - start) / elem;
    pthread_t tids[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        struct job *j = &jobs[t];
        j->fd = fd;
        j->kind = bin ? argv[2] : "csv";
        j->classes = classes;
        j->lo = start + count * (uint64_t)t / (uint64_t)threads * elem;
        j->hi = start + count * (uint64_t)(t + 1) / (uint64_t)threads * elem;
        if (!bin) {
            j->lo = line_start(fd, j->lo, size);
            j->hi = t == threads - 1 ? size : line_start(fd, j->hi, size);
        }
        pthread_create(&tids[t], NULL, bin ? bin_thread : csv_thread, j);
    }
    uint64_t bad = 0, valid = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tids[t], NULL);
        bad += jobs[t].bad;
        for (uint64_t c = 0; c < classes; c++)
            valid += jobs[t].hist[c];
    }
    printf("%llu\n", (unsigned long long)bad);
    fprintf(stderr, "valid %llu\n", (unsigned long long)valid);
    return 0;
}
