/* window.h - a file's bytes a window at a time, for the scans that read a
 * file run (reader.h: a plain .npy, raw) where it lies: audit.c's (one
 * window at a time, folded by the backend: the GPU's, or with per-column
 * counts) and each CPU backend thread's (its own share).
 *
 * A window is mapped read-only and guarded (fatal.h: a file that shrinks
 * under it reads zeros and is reported), or read with pread into a buffer of
 * the window's own: where the owner asks for a copy (la_window.copy), and
 * where the file cannot be mapped or no guard is left.
 *
 * Which is faster was measured on 10^8 int64 in the page cache (800 MB, two
 * threads, a 2-CPU AMD EPYC VM, Linux 6.18): a mapped 8 MiB window costs a
 * page fault per fault-around span (about 7,000 in all) and an unmap; filling
 * its page tables in one madvise(MADV_POPULATE_READ) call saved the faults but
 * cost more system time than they did (the kernel walks the window a page at
 * a time); pread into a 1 MiB buffer, which stays in the L2 cache, took no
 * more CPU time than the mapping (perf stat: 225 to 258 ms against 254 to 285),
 * with 600 faults in all and 1 MiB resident per thread instead of 8. So the
 * CPU threads copy, and a GPU's staging threads, which want large windows and
 * no copy, map. */
#ifndef LA_WINDOW_H
#define LA_WINDOW_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

#include "fatal.h"  /* struct la_mapping */

/* Bytes per mapped window: large enough that mapping, unmapping and waking
 * the scan threads cost little per byte, small enough to bound resident
 * memory (mapped file pages count in RSS until they are unmapped). */
#define LA_WINDOW_BYTES ((size_t)8 << 20)
/* Bytes per copied window: the buffer is read back while it is in the cache. */
#define LA_WINDOW_COPY_BYTES ((size_t)1 << 20)

struct la_window {
    int copy;               /* read with pread, never mapped (the owner's choice) */
    struct la_mapping map;  /* the live mapping; none when the bytes are a copy */
    char *buf;              /* the copy's page-aligned buffer, made on first use */
    size_t buf_cap;
    uint64_t preads;        /* windows read with pread so far (for messages) */
};

/* Where opening or closing a window found the file wanting. */
struct la_window_failure {
    int failed;
    uint64_t at;            /* byte offset */
    int err;                /* errno; 0: the file shrank (ends before the window does) */
};

/** la_window_open() : make bytes [off, off + len) of the regular file fd
 *  readable until la_window_close(): mapped and guarded, or read. The bytes
 *  lie at the same offset within a page as in the file (so at the alignment
 *  a mapping gives them).
 *  @return them, or NULL with *f set (the file is shorter, a read error,
 *  out of memory). */
const char *la_window_open(struct la_window *w, int fd, uint64_t off, size_t len,
                           struct la_window_failure *f);

/** la_window_close() : unmap the window (a copy's buffer stays for the next).
 *  @return 0, or -1 with *f set when the file shrank under the mapping: what
 *  was read there were zeros, not the file. */
int la_window_close(struct la_window *w, struct la_window_failure *f);

/** la_window_free() : close it and free its buffer. */
void la_window_free(struct la_window *w);

/** la_window_failure_text() : "byte N: file shrank while being read",
 *  "byte N: read error: ...", or "out of memory", into buf. */
void la_window_failure_text(const struct la_window_failure *f, char *buf, size_t len);

#endif
