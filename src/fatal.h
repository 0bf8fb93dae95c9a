/* fatal.h - fatal signals: a mapped file cut short under the scan, and the
 * temporary file that must not outlive the process.
 *
 * A file mapped with mmap() that another program truncates or rewrites (np.save
 * over it) raises SIGBUS on the next read of a page past its new end, in
 * whichever thread reads it: a CPU pool thread, a CUDA staging thread, the
 * reader thread gathering a Fortran-order array. Every mapping of an input is
 * registered here ("guarded"); the SIGBUS handler puts zero pages over the
 * missing part of a guarded mapping and notes where the fault was, so the code
 * that reads it finishes its job normally and its owner then reports the file
 * as shrunk (exit 3) instead of the process dying.
 *
 * Any other fatal signal (SIGSEGV, SIGINT, SIGTERM, SIGHUP, ...) removes the
 * --indices-out temporary file, then ends the process as the signal would have. */
#ifndef LA_FATAL_H
#define LA_FATAL_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* int64_t, uint64_t */

/** la_fatal_setup() : install the handlers (once; later calls do nothing). A
 *  signal ignored at start (nohup, a background job's SIGINT) stays ignored. */
void la_fatal_setup(void);

/** la_fatal_remove_on_death() : the file a fatal signal removes, or NULL for none.
 *  The string must live until it is replaced. */
void la_fatal_remove_on_death(const char *path);

/** la_guard_add() : watch the mapping [map, map + len), which holds the file's
 *  bytes from file_offset on. Calls la_fatal_setup().
 *  @return 0, or -1 when too many mappings are guarded (the caller must then
 *  read the file another way). */
int la_guard_add(const void *map, size_t len, uint64_t file_offset);

/** la_guard_fault() : the lowest file offset a read of the guarded mapping found
 *  missing (the file shrank; the bytes read there were zeros), or -1 if none. */
int64_t la_guard_fault(const void *map);

/** la_guard_remove() : stop watching map; call it before munmap().
 *  @return as la_guard_fault(). */
int64_t la_guard_remove(const void *map);

/* A guarded read-only mapping of a file's bytes (la_map_guarded). */
struct la_mapping {
    void *base;               /* the mapping, from a page start; NULL: none */
    size_t len;
};

/** la_map_guarded() : map bytes [offset, offset + len) of the regular file fd
 *  read-only and guard them (la_guard_add). m is set for la_unmap_guarded().
 *  @return the byte at offset, or NULL when mmap refuses, len does not fit in
 *  memory, or no guard is left: the caller then reads the file another way. */
const void *la_map_guarded(int fd, uint64_t offset, uint64_t len, struct la_mapping *m);

/** la_unmap_guarded() : stop watching and unmap m (nothing when it holds none).
 *  @return as la_guard_fault(). */
int64_t la_unmap_guarded(struct la_mapping *m);

/** For tests: when set, called by la_guard_add() once the mapping is guarded,
 *  so that a test can truncate the file at a known point. NULL in the tool. */
extern void (*la_guard_test_hook)(const void *map, size_t len);

#endif
