/* utf8.h - text from the input (a cell, a path, a reader's message) made fit
 * for where it is written: a terminal, a TSV line, a GitHub workflow command,
 * XML, JSON.
 *
 * Every output escapes a file name through la_escape(): a control byte (C0
 * and DEL: an escape sequence, a carriage return, a tab) never reaches any
 * output raw. Each kind of output has its own escapes for its own special
 * bytes; a control byte that has none there is written \xNN. */
#ifndef LA_UTF8_H
#define LA_UTF8_H

#include <stddef.h> /* size_t */
#include <stdio.h>  /* FILE */

/** la_utf8_clean() : a copy of s in which each byte that does not start a
 *  valid UTF-8 sequence (overlong forms, surrogates and code points above
 *  U+10FFFF included) is U+FFFD. @return it (free() it), or NULL when out of memory. */
char *la_utf8_clean(const char *s);

/* Where escaped text goes. */
enum la_escape_for {
    /* the text report, messages on standard error: controls and bytes that
     * are not UTF-8 as \xNN, bidi controls (U+202E ...) as \uNNNN (a
     * terminal shows them, never obeys them; so do the GitHub escapes) */
    LA_ESC_TERMINAL,
    /* --indices-out's TSV fields: \\ \t \n \r, other controls \xNN; other
     * bytes kept as they are (a path is bytes, and the TSV gives them back) */
    LA_ESC_TSV,
    /* a GitHub workflow command's message: % CR LF as %25 %0D %0A, other
     * controls \xNN, bytes that are not UTF-8 as U+FFFD */
    LA_ESC_GITHUB_MESSAGE,
    /* a workflow command's property (file=, title=): also : and , as %3A %2C */
    LA_ESC_GITHUB_PROPERTY,
    /* XML text and attribute values: & < > " ' as entities, tab LF CR as
     * character references; other controls, which XML 1.0 cannot hold even as
     * references, \xNN; bytes that are not UTF-8 as U+FFFD */
    LA_ESC_XML,
    /* a JSON document as cJSON printed it, whose strings hold the other
     * controls as \u00XX already: DEL as \u007f (JSON allows it raw, a
     * terminal showing the file need not), bytes that are not UTF-8 as U+FFFD;
     * the whitespace between its tokens kept */
    LA_ESC_JSON,
};

/** The most bytes that one byte of input becomes (&quot;, \u007f). */
#define LA_ESCAPE_MAX 6

/** la_escape() : s escaped for how, into dst[cap], cut before an escape or a
 *  character that would not fit (never inside one). @return the length written. */
size_t la_escape(char *dst, size_t cap, const char *s, enum la_escape_for how);

/** la_escape_dup() : s escaped for how, uncut. @return it (free() it), or NULL
 *  when out of memory. */
char *la_escape_dup(const char *s, enum la_escape_for how);

/** la_fputs_escape() : s escaped for how, to out, uncut. @return 0, or EOF on
 *  a write error. */
int la_fputs_escape(const char *s, FILE *out, enum la_escape_for how);

#endif
