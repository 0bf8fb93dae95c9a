/* util.c - see util.h. */
#include "util.h"

#include <ctype.h>   /* isspace */
#include <errno.h>   /* errno, EINTR */
#include <stdint.h>  /* SIZE_MAX */
#include <stdlib.h>  /* strtod, realloc */
#include <string.h>  /* memcpy */
#include <strings.h> /* strncasecmp */
#include <sys/stat.h> /* stat */
#include <unistd.h>  /* sysconf, pread */

/* Digits-only integer with optional sign; no locale, no overflow. */
static int parse_int64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == len)
        return -1;
    uint64_t mag = 0;
    for (; i < len; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9)
            return -1;
        if (mag > (UINT64_MAX - d) / 10)
            return -2;                       /* too big for 64 bits */
        mag = mag * 10 + d;
    }
    if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)
        return -2;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return 0;
}

enum la_cell la_parse_number(const char *s, size_t len, struct la_num *out)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    if (len == 0)
        return LA_CELL_BAD;
    int rc = parse_int64(s, len, &out->v.i);
    if (rc == 0) {
        out->kind = LA_NUM_I64;
        return LA_CELL_INT;
    }
    /* strtod needs a terminated string; labels are short, longer cells are not numbers */
    char buf[64];
    if (len >= sizeof buf)
        return LA_CELL_BAD;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        return LA_CELL_BAD;                  /* pandas reads no hex */
    char *end;
    double d = strtod(buf, &end);
    if (end != buf + len)
        return LA_CELL_BAD;
    for (size_t i = 0; i < len; i++)         /* strtod also takes hex floats like "1p3" */
        if (buf[i] == 'p' || buf[i] == 'P' || buf[i] == 'x' || buf[i] == 'X')
            return LA_CELL_BAD;
    out->kind = LA_NUM_F64;
    out->v.f = d;
    return LA_CELL_FLOAT;
}

int la_strtou64(const char *s, uint64_t *out)
{
    int64_t v;
    if (!s || !*s || *s == '-' || parse_int64(s, strlen(s), &v) != 0)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int la_strtoi64(const char *s, int64_t *out)
{
    if (!s || !*s || parse_int64(s, strlen(s), out) != 0)
        return -1;
    return 0;
}

int la_grow(void *bufp, size_t *cap, size_t need, size_t min)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap > min ? *cap : min;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : n * 2;
    void *old, *p;
    memcpy(&old, bufp, sizeof old);     /* the caller's pointer, whatever its type */
    if (!(p = realloc(old, n)))
        return -1;
    memcpy(bufp, &p, sizeof p);
    *cap = n;
    return 0;
}

int la_grow_n(void *bufp, size_t *cap, size_t need, size_t size, size_t min)
{
    if (need > SIZE_MAX / size || min > SIZE_MAX / size)
        return -1;
    size_t bytes = *cap * size;
    if (la_grow(bufp, &bytes, need * size, min * size) != 0)
        return -1;
    *cap = bytes / size;
    return 0;
}

int la_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

size_t la_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, (unsigned char *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = 0;
            break;
        }
        got += (size_t)k;
    }
    return got;
}

size_t la_last_at_most(const uint64_t *a, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;   /* a[lo] <= x < a[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int la_name_ends_in(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    return n > k && strncasecmp(path + n - k, ext, k) == 0;
}

int la_is_directory(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int la_is_regular_file(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
