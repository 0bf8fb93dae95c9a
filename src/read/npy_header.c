/* npy_header.c - the .npy header: magic, version, header length, and the
 * Python dict literal {'descr': '<i8', 'fortran_order': False, 'shape': (5,)}.
 *
 * Strict and bounded, since the bytes may be hostile: only the three keys
 * NumPy writes, each once, in any order; Python's optional spaces and trailing
 * commas; the header at most LA_NPY_HEADER_MAX bytes; the shape's product and
 * byte size must fit 64 bits. Every error names the byte offset. */
#include "npy_header.h"

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf, vsnprintf */
#include <string.h> /* memcmp, memcpy, strcmp */
#include "util.h"   /* la_mul_overflow */

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

struct parser {
    const unsigned char *buf;
    size_t end;                 /* the dict ends here (the whole header) */
    size_t pos;
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 4, 5)))
static int errorf(char *err, size_t errlen, size_t at, const char *fmt, ...)
{
    int n = snprintf(err, errlen, "byte %zu: ", at);
    if (n >= 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#define FAIL(p, ...) errorf((p)->err, (p)->errlen, (p)->pos, __VA_ARGS__)

int la_npy_header_size(const unsigned char *buf, size_t len, size_t *total,
                       char *err, size_t errlen)
{
    size_t have = len < sizeof magic ? len : sizeof magic;
    if (memcmp(buf, magic, have) != 0 || len == 0)
        return errorf(err, errlen, 0, "not a .npy file (bad magic)"), LA_NPY_NOT_NPY;
    if (len < 8)
        return errorf(err, errlen, len, "file ends inside the .npy preamble");
    unsigned major = buf[6], minor = buf[7];
    if (major < 1 || major > 3 || minor != 0)
        return errorf(err, errlen, 6, "unsupported .npy version %u.%u", major, minor);
    size_t lenbytes = major == 1 ? 2 : 4;
    if (len < 8 + lenbytes)
        return errorf(err, errlen, len, "file ends inside the .npy preamble");
    uint64_t hlen = 0;
    for (size_t i = 0; i < lenbytes; i++)             /* little-endian, any host */
        hlen |= (uint64_t)buf[8 + i] << (8 * i);
    if (hlen > LA_NPY_HEADER_MAX)
        return errorf(err, errlen, 8, "header length %llu is over the %u-byte limit",
                      (unsigned long long)hlen, LA_NPY_HEADER_MAX);
    *total = 8 + lenbytes + (size_t)hlen;
    return 0;
}

// ---- lexing ------------------------------------------------------------

static void skip_ws(struct parser *p)
{
    while (p->pos < p->end && strchr(" \t\r\n", p->buf[p->pos]) && p->buf[p->pos])
        p->pos++;
}

static int peek(const struct parser *p)
{
    return p->pos < p->end ? p->buf[p->pos] : -1;
}

/* A message-safe copy of s, cut to cap bytes. */
static void printable(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s);
    la_one_line(dst);
}

/* A quoted Python string without escapes into out[cap]. Too long: -1. */
static int parse_string(struct parser *p, char *out, size_t cap)
{
    int q = peek(p);
    if (q != '\'' && q != '"')
        return FAIL(p, "expected a quoted string in the header");
    size_t start = ++p->pos, n = 0;
    while (p->pos < p->end && p->buf[p->pos] != q) {
        unsigned char c = p->buf[p->pos];
        if (c == '\\' || c == '\n')
            return FAIL(p, "unsupported character in a header string");
        if (n + 1 < cap)
            out[n] = (char)c;
        n++;
        p->pos++;
    }
    if (p->pos >= p->end) {
        p->pos = start - 1;
        return FAIL(p, "unterminated string in the header");
    }
    p->pos++;
    if (n >= cap) {
        out[cap - 1] = '\0';
        return -2;                                     /* caller words the error */
    }
    out[n] = '\0';
    return 0;
}

// ---- values ------------------------------------------------------------

static int parse_descr(struct parser *p, struct la_npy_header *h)
{
    size_t at = p->pos;
    if (peek(p) == '[')
        return FAIL(p, "unsupported dtype: structured arrays are not labels");
    int rc = parse_string(p, h->descr, sizeof h->descr);
    if (rc == -1)
        return -1;
    char shown[sizeof h->descr];
    printable(shown, sizeof shown, h->descr);
    if (rc == -2 || la_dtype_from_numpy(h->descr, &h->dtype, &h->swap) != 0)
        return errorf(p->err, p->errlen, at, "unsupported dtype '%s%s'", shown,
                      rc == -2 ? "..." : "");
    return 0;
}

static int is_ident_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || c == '_';
}

static int parse_bool(struct parser *p, int *out)
{
    static const char *const words[2] = {"False", "True"};
    for (int v = 0; v < 2; v++) {
        size_t n = strlen(words[v]);
        if (p->end - p->pos >= n && memcmp(p->buf + p->pos, words[v], n) == 0
            && !(p->pos + n < p->end && is_ident_char(p->buf[p->pos + n]))) {
            p->pos += n;
            *out = v;
            return 0;
        }
    }
    return FAIL(p, "fortran_order must be True or False");
}

/* A non-negative Python int; Python 2 wrote a trailing 'L' ("(5L,)"). */
static int parse_dim(struct parser *p, uint64_t *out)
{
    if (peek(p) == '-')
        return FAIL(p, "negative dimension in shape");
    if (peek(p) < '0' || peek(p) > '9')
        return FAIL(p, "expected a dimension in shape");
    uint64_t v = 0;
    size_t at = p->pos;
    while (peek(p) >= '0' && peek(p) <= '9') {
        unsigned d = (unsigned)(peek(p) - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)       /* NumPy's dims are signed 64-bit */
            return errorf(p->err, p->errlen, at, "dimension too large in shape");
        v = v * 10 + d;
        p->pos++;
    }
    if (peek(p) == 'L' || peek(p) == 'l')
        p->pos++;
    *out = v;
    return 0;
}

static int parse_shape(struct parser *p, struct la_npy_header *h)
{
    if (peek(p) != '(')
        return FAIL(p, "shape must be a tuple");
    p->pos++;
    skip_ws(p);
    int commas = 0;
    h->ndim = 0;
    while (peek(p) != ')') {
        if (h->ndim == LA_MAX_DIMS)
            return FAIL(p, "shape has more than %d dimensions", LA_MAX_DIMS);
        if (parse_dim(p, &h->shape[h->ndim]) != 0)
            return -1;
        h->ndim++;
        skip_ws(p);
        if (peek(p) == ',') {
            commas++;
            p->pos++;
            skip_ws(p);
        } else if (peek(p) != ')') {
            return FAIL(p, "expected ',' or ')' in shape");
        }
    }
    if (h->ndim == 1 && commas == 0)                 /* "(5)" is an int in Python */
        return FAIL(p, "shape must be a tuple: write (N,)");
    p->pos++;
    return 0;
}

// ---- the dict ----------------------------------------------------------

static void format_shape(const struct la_npy_header *h, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "(");
    for (int i = 0; i < h->ndim && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%llu", i ? ", " : "",
                              (unsigned long long)h->shape[i]);
    if (n < cap)
        snprintf(out + n, cap - n, h->ndim == 1 ? ",)" : ")");
}

/* count and nbytes; any zero dimension makes an empty array, never an overflow. */
static int compute_size(struct parser *p, size_t at, struct la_npy_header *h)
{
    uint64_t count = 1;
    int zero = 0, over = 0;
    for (int i = 0; i < h->ndim; i++) {
        zero |= h->shape[i] == 0;
        over |= la_mul_overflow(count, h->shape[i], &count);
    }
    if (zero) {
        count = 0;
        over = 0;
    }
    over |= la_mul_overflow(count, la_dtype_info(h->dtype)->size, &h->nbytes);
    if (over) {
        char shape[LA_MAX_DIMS * 22 + 4];
        format_shape(h, shape, sizeof shape);
        return errorf(p->err, p->errlen, at, "shape %s overflows 64 bits", shape);
    }
    h->count = count;
    return 0;
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static int parse_entry(struct parser *p, struct la_npy_header *h, int *seen, size_t *shape_at)
{
    size_t at = p->pos;
    char key[32], shown[32];
    int rc = parse_string(p, key, sizeof key);
    if (rc == -1)
        return -1;
    printable(shown, sizeof shown, key);
    int which = rc != 0 ? 0 : strcmp(key, "descr") == 0 ? KEY_DESCR
              : strcmp(key, "fortran_order") == 0 ? KEY_FORTRAN
              : strcmp(key, "shape") == 0 ? KEY_SHAPE : 0;
    if (which == 0)
        return errorf(p->err, p->errlen, at, "unknown key '%s%s' in the header", shown,
                      rc ? "..." : "");
    if (*seen & which)
        return errorf(p->err, p->errlen, at, "key '%s' appears twice in the header", shown);
    *seen |= which;
    skip_ws(p);
    if (peek(p) != ':')
        return FAIL(p, "expected ':' after '%s' in the header", shown);
    p->pos++;
    skip_ws(p);
    if (which == KEY_SHAPE)
        *shape_at = p->pos;
    return which == KEY_DESCR ? parse_descr(p, h)
         : which == KEY_FORTRAN ? parse_bool(p, &h->fortran_order)
         : parse_shape(p, h);
}

static int parse_dict(struct parser *p, struct la_npy_header *h)
{
    int seen = 0;
    size_t shape_at = 0;
    skip_ws(p);
    if (peek(p) != '{')
        return FAIL(p, "expected '{' at the start of the header");
    p->pos++;
    for (;;) {
        skip_ws(p);
        if (peek(p) == '}')
            break;
        if (parse_entry(p, h, &seen, &shape_at) != 0)
            return -1;
        skip_ws(p);
        if (peek(p) == ',')
            p->pos++;
        else if (peek(p) != '}')
            return FAIL(p, peek(p) < 0 ? "header ends inside the dict"
                                       : "expected ',' or '}' in the header");
    }
    static const char *const names[3] = {"descr", "fortran_order", "shape"};
    for (int i = 0; i < 3; i++)
        if (!(seen & (1 << i)))
            return FAIL(p, "header lacks the key '%s'", names[i]);
    p->pos++;
    skip_ws(p);
    if (p->pos < p->end)
        return FAIL(p, "unexpected bytes after the header dict");
    return compute_size(p, shape_at, h);
}

long la_npy_parse_header(const unsigned char *buf, size_t len, struct la_npy_header *out,
                         char *err, size_t errlen)
{
    size_t total;
    if (la_npy_header_size(buf, len, &total, err, errlen) != 0)
        return -1;
    if (len < total)
        return errorf(err, errlen, len, "file ends inside the header (%zu of %zu bytes)",
                      len, total);
    memset(out, 0, sizeof *out);
    out->major = buf[6];
    out->minor = buf[7];
    struct parser p = {buf, total, out->major == 1 ? 10 : 12, err, errlen};
    if (parse_dict(&p, out) != 0)
        return -1;
    out->data_offset = total;
    return (long)total;
}
