/* util.h - small helpers every module uses: checked allocation, overflow-checked
 * arithmetic, and the one number parser for csv and text cells. */
#ifndef LA_UTIL_H
#define LA_UTIL_H

#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t */
#include "dtype.h"   /* struct la_num */

/** la_mul_overflow() : *out = a * b. @return 1 when it overflows 64 bits. */
static inline int la_mul_overflow(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

/* Whether a cell was an integer, a float, or not a number at all. */
enum la_cell { LA_CELL_INT, LA_CELL_FLOAT, LA_CELL_BAD };

/** la_parse_number() : parse the cell s[0..len) as a label, like pandas would:
 *  surrounding spaces are allowed; "12", "-3", "+4" are integers (int64, a larger
 *  one becomes a float); "1.0", "1e3", "nan", "inf", "-Infinity" are floats;
 *  "" and anything else are LA_CELL_BAD. s need not be NUL-terminated. */
enum la_cell la_parse_number(const char *s, size_t len, struct la_num *out);

/** la_strtou64() / la_strtoi64() : a whole string as a number, range-checked.
 *  @return 0, or -1 when it is not a number or out of range. */
int la_strtou64(const char *s, uint64_t *out);
int la_strtoi64(const char *s, int64_t *out);

/** la_grow() : make the buffer hold at least need bytes, doubling its capacity
 *  *cap (from at least min) so that appending stays linear. bufp is the address
 *  of the caller's pointer, of any object type; the pointer may be NULL.
 *  @return 0, or -1 when out of memory (then the buffer and *cap are unchanged). */
/** la_last_at_most() : the last i of [0, n) with a[i] <= x, a ascending and
 *  a[0] <= x (0 where n is 0): the run, shard or sample that starts at or
 *  before x, an empty one giving way to the next of the same start. */
size_t la_last_at_most(const uint64_t *a, size_t n, uint64_t x);

int la_grow(void *bufp, size_t *cap, size_t need, size_t min);

/** la_grow_n() : la_grow() counted in elements of size bytes: room for at
 *  least need of them, *cap (an element count) doubling from at least min.
 *  @return 0, or -1 when out of memory (then the buffer and *cap are unchanged). */
int la_grow_n(void *bufp, size_t *cap, size_t need, size_t size, size_t min);

/** la_pread_full() : n bytes of fd at off, read again where a read comes back
 *  short or interrupted. @return the bytes read: n, or fewer when the file
 *  ends first (errno 0) or a read fails (errno says why). */
size_t la_pread_full(int fd, void *buf, size_t n, uint64_t off);

/** la_online_cpus() : sysconf(_SC_NPROCESSORS_ONLN), at least 1. */
int la_online_cpus(void);

/** la_name_ends_in() : whether path ends in ext, case-insensitively, after more than ext. */
int la_name_ends_in(const char *path, const char *ext);

/** la_is_directory() : whether path names a directory (following links). */
int la_is_directory(const char *path);
/** la_is_regular_file() : whether path names a regular file (following links). */
int la_is_regular_file(const char *path);

#endif
