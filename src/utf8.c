/* utf8.c - see utf8.h. */
#include "utf8.h"

#include <stdio.h>  /* snprintf, fwrite */
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

/* The escape an output has for its own special byte c, or NULL. */
static const char *special_escape(unsigned char c, enum la_escape_for how)
{
    switch (how) {
    case LA_ESC_TERMINAL:
        return NULL;
    case LA_ESC_JSON:
        return c == 0x7f ? "\\u007f" : NULL;
    case LA_ESC_TSV:
        return c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n"
             : c == '\r' ? "\\r" : NULL;
    case LA_ESC_GITHUB_PROPERTY:
        if (c == ':' || c == ',')
            return c == ':' ? "%3A" : "%2C";
        return special_escape(c, LA_ESC_GITHUB_MESSAGE);
    case LA_ESC_GITHUB_MESSAGE:
        return c == '%' ? "%25" : c == '\r' ? "%0D" : c == '\n' ? "%0A" : NULL;
    case LA_ESC_XML:
        switch (c) {
        case '&':  return "&amp;";
        case '<':  return "&lt;";
        case '>':  return "&gt;";
        case '"':  return "&quot;";
        case '\'': return "&apos;";
        case '\n': return "&#10;";
        case '\r': return "&#13;";
        case '\t': return "&#9;";
        }
        return NULL;
    }
    return NULL;
}

static unsigned codepoint(const unsigned char *p, size_t len)
{
    unsigned c = len == 2 ? p[0] & 0x1fu : len == 3 ? p[0] & 0x0fu : p[0] & 0x07u;
    for (size_t k = 1; k < len; k++)
        c = c << 6 | (p[k] & 0x3fu);
    return c;
}

/* The controls that reorder what a terminal shows (U+202A-U+202E, U+2066-U+2069,
 * U+200E/F, U+061C): a class name holding U+202E shows its text backwards, and
 * what follows it on the line too ("Trojan Source"). Escaped as the C0
 * controls are: shown, never obeyed. */
static int is_bidi_control(const unsigned char *p, size_t len)
{
    unsigned c = codepoint(p, len);
    return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e ||
           c == 0x200f || c == 0x061c;
}

static size_t put(char out[8], const void *bytes, size_t len)
{
    memcpy(out, bytes, len);
    return len;
}

/* The next character of p (n bytes left) escaped for how into out[8]; *used
 * says how many bytes of p it stands for. @return its length. */
static size_t escape_next(const unsigned char *p, size_t n, enum la_escape_for how, char out[8],
                          size_t *used)
{
    size_t len = sequence_len(p, n);
    *used = len ? len : 1;
    if (len == 0 && how == LA_ESC_TERMINAL)
        return (size_t)snprintf(out, 8, "\\x%02x", p[0]);
    if (len == 0)
        return how == LA_ESC_TSV ? put(out, p, 1) : put(out, "\xef\xbf\xbd", 3);
    if (len > 1 && is_bidi_control(p, len) && how != LA_ESC_JSON && how != LA_ESC_TSV &&
        how != LA_ESC_XML)
        return (size_t)snprintf(out, 8, "\\u%04x", codepoint(p, len));
    if (len > 1)
        return put(out, p, len);
    const char *special = special_escape(p[0], how);
    if (special)
        return put(out, special, strlen(special));
    if ((p[0] < 0x20 && how != LA_ESC_JSON) || p[0] == 0x7f)
        return (size_t)snprintf(out, 8, "\\x%02x", p[0]);
    return put(out, p, 1);
}

size_t la_escape(char *dst, size_t cap, const char *s, enum la_escape_for how)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), o = 0, used;
    char e[8];
    for (size_t i = 0; i < n; i += used) {
        size_t k = escape_next(p + i, n - i, how, e, &used);
        if (o + k >= cap)
            break;
        memcpy(dst + o, e, k);
        o += k;
    }
    if (cap)
        dst[o] = '\0';
    return o;
}

char *la_escape_dup(const char *s, enum la_escape_for how)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), cap = 1, used;
    char e[8];
    for (size_t i = 0; i < n; i += used)     /* the exact size: a report may be large */
        cap += escape_next(p + i, n - i, how, e, &used);
    char *buf = malloc(cap);
    if (buf)
        la_escape(buf, cap, s, how);
    return buf;
}

int la_fputs_escape(const char *s, FILE *out, enum la_escape_for how)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), used;
    char e[8];
    for (size_t i = 0; i < n; i += used) {
        size_t k = escape_next(p + i, n - i, how, e, &used);
        if (fwrite(e, 1, k, out) != k)
            return EOF;
    }
    return 0;
}
