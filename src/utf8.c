/* utf8.c - see utf8.h. */
#include "utf8.h"

#include <stdlib.h> /* malloc */
#include <string.h> /* memcpy, strlen */

/* The length of the valid UTF-8 sequence at p (of n bytes left), or 0. */
static size_t sequence_len(const unsigned char *p, size_t n)
{
    size_t len = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
               : (p[0] & 0xf0) == 0xe0 ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((p[k] & 0xc0) != 0x80)
            return 0;
    if (len == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
        return 0;           /* overlong, or a surrogate */
    if (len == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
        return 0;           /* overlong, or above U+10FFFF */
    return len;
}

char *la_utf8_clean(const char *s)
{
    size_t n = strlen(s), o = 0;
    char *buf = malloc(3 * n + 1);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t len = sequence_len((const unsigned char *)s + i, n - i);
        if (len == 0) {
            memcpy(buf + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(buf + o, s + i, len);
        o += len;
        i += len;
    }
    buf[o] = '\0';
    return buf;
}
