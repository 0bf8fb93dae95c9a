/* input_text.c - the text formats' byte order marks: a UTF-8 one skipped,
 * UTF-16 text decoded to UTF-8 (iconv) behind the decompression, UTF-32
 * refused (la_source_text_mode). */
#include "input_source.h"

#include <errno.h>     /* errno, EILSEQ */
#include <iconv.h>     /* iconv: UTF-16 text to UTF-8 */
#include <stdio.h>     /* snprintf */
#include <stdlib.h>    /* calloc, free */
#include <string.h>    /* memcpy, memmove */

#include "msg.h"        /* la_verbose */

#define TEXT_IN_LEN ((size_t)64 << 10)
#define TEXT_OUT_LEN ((size_t)3 * TEXT_IN_LEN)   /* a 2-byte UTF-16 unit: <= 3 UTF-8 bytes */

/* UTF-16 text being decoded into UTF-8 (la_source_text_mode). */
struct utf16_text {
    iconv_t cd;
    char in[TEXT_IN_LEN];           /* UTF-16 bytes not decoded yet */
    size_t in_len;
    char out[TEXT_OUT_LEN];         /* UTF-8 not handed out yet */
    size_t out_pos, out_len;
    uint64_t decoded;               /* UTF-16 bytes decoded, the BOM included */
    int eof;                        /* no more UTF-16 bytes */
    int failed;                     /* err holds why; after out[] is handed out */
};


/* Decode the next UTF-16 bytes into u->out. @return 0, or -1 at a read error. */
static int decode_utf16(struct la_source *s, struct utf16_text *u)
{
    if (!u->eof && u->in_len < TEXT_IN_LEN) {
        ssize_t got = la_source_read_bytes(s, u->in + u->in_len, TEXT_IN_LEN - u->in_len);
        if (got < 0)
            return -1;
        u->eof = got == 0;
        u->in_len += (size_t)got;
    }
    char *in = u->in, *out = u->out;
    size_t in_left = u->in_len, out_left = TEXT_OUT_LEN;
    size_t rc = iconv(u->cd, &in, &in_left, &out, &out_left);
    int why = errno;
    u->decoded += u->in_len - in_left;
    memmove(u->in, in, in_left);
    u->in_len = in_left;
    u->out_pos = 0;
    u->out_len = TEXT_OUT_LEN - out_left;
    if (rc == (size_t)-1 && why == EILSEQ) {
        snprintf(s->err, sizeof s->err, "byte %llu: invalid UTF-16 text (an unpaired surrogate)",
                 (unsigned long long)u->decoded);
        u->failed = 1;
    } else if (u->eof && u->in_len > 0) {      /* EINVAL: a unit or a pair cut short */
        snprintf(s->err, sizeof s->err, "byte %llu: UTF-16 text ends inside a character",
                 (unsigned long long)u->decoded);
        u->failed = 1;
    }
    return 0;
}

ssize_t la_source_read_text(struct la_source *s, unsigned char *buf, size_t n)
{
    struct utf16_text *u = s->utf16;
    while (u->out_pos == u->out_len) {
        if (u->failed)
            return -1;
        if (u->eof && u->in_len == 0)
            return 0;
        if (decode_utf16(s, u) != 0)
            return -1;
    }
    size_t k = u->out_len - u->out_pos;
    if (k > n)
        k = n;
    memcpy(buf, u->out + u->out_pos, k);
    u->out_pos += k;
    return (ssize_t)k;
}

/* Start decoding UTF-16 in the given byte order ("UTF-16LE"/"UTF-16BE"), its BOM skipped. */
static int start_utf16(struct la_source *s, const char *encoding, char *err, size_t errlen)
{
    struct utf16_text *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    u->cd = iconv_open("UTF-8", encoding);
    if (u->cd == (iconv_t)-1) {
        snprintf(err, errlen, "%s text: this system cannot decode it; re-save it as UTF-8", encoding);
        free(u);
        return -1;
    }
    u->decoded = 2;
    s->peek_pos = 2;
    s->utf16 = u;
    la_verbose(s->path, "%s text (byte order mark): decoded to UTF-8 by iconv", encoding);
    return 0;
}

int la_source_text_mode(struct la_source *s, char *err, size_t errlen)
{
    if (s->text_mode_set || s->offset > 0 || s->peek_pos > 0)
        return 0;
    s->text_mode_set = 1;
    const unsigned char *p = s->peek;
    size_t n = s->peek_len;
    if (n >= 4 && ((p[0] == 0xFF && p[1] == 0xFE && p[2] == 0 && p[3] == 0)
                   || (p[0] == 0 && p[1] == 0 && p[2] == 0xFE && p[3] == 0xFF))) {
        snprintf(err, errlen, "UTF-32 text: re-save it as UTF-8");
        return -1;
    }
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
        s->peek_pos = 3;              /* a UTF-8 BOM (Excel, Notepad) is no part of a label */
        return 0;
    }
    if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE)
        return start_utf16(s, "UTF-16LE", err, errlen);
    if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF)
        return start_utf16(s, "UTF-16BE", err, errlen);
    return 0;
}


void la_source_text_close(struct la_source *s)
{
    if (s->utf16) {
        iconv_close(s->utf16->cd);
        free(s->utf16);
        s->utf16 = NULL;
    }
}
