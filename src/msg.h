/* msg.h - messages to standard error, colours, and the progress bar.
 *
 * Every message is one line in the GNU form "labelaudit: PATH: what". --quiet
 * silences all of them; the exit status still answers. -v adds la_verbose()'s. */
#ifndef LA_MSG_H
#define LA_MSG_H

#include <stdint.h> /* uint64_t */
#include <stdio.h>  /* FILE */
#include "options.h"

/** la_msg_setup() : apply --quiet and --color; call once after option parsing. */
void la_msg_setup(const struct la_config *cfg);

/** la_err() : "labelaudit: PATH: message" on standard error (path may be NULL),
 *  control bytes escaped as by la_escape_ctl(). */
void la_err(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** la_verbose() : with -v (and without -q), a line as la_err() writes it that
 *  says how a file is read and why: its format, the decompressor, the reader's
 *  path, the backend. Safe on any thread (one write per line). */
void la_verbose(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** la_verbose_hold() : 1 keeps la_verbose() quiet, 0 lets it speak again: for
 *  files opened only to plan the run (--backend=auto's look at the inputs),
 *  whose audit says the same again. Call it on the main thread, before any
 *  reader thread runs. */
void la_verbose_hold(int hold);

/** la_verbose_on() : whether la_verbose() prints (to skip work done only for it). */
int la_verbose_on(void);

/** la_escape_ctl() : text for a terminal, its control bytes (below 0x20, and
 *  0x7f: an escape sequence, a carriage return) and its bytes that are not
 *  UTF-8 as \xNN, so that a file name or a cell cannot act on the terminal or
 *  break the line (la_escape's LA_ESC_TERMINAL); into dst[cap], cut before an
 *  escape that would not fit. @return the length written. */
size_t la_escape_ctl(char *dst, size_t cap, const char *text);

/** la_fputs_escaped() : text to out, escaped as by la_escape_ctl(), uncut. @return as fputs. */
int la_fputs_escaped(const char *text, FILE *out);

/** la_use_color() : whether text on out gets ANSI colours (per --color, NO_COLOR, isatty). */
int la_use_color(FILE *out);

/* Colour escape sequences, or "" when colours are off. */
const char *la_c_err(void);
const char *la_c_warn(void);
const char *la_c_ok(void);
const char *la_c_bold(void);
const char *la_c_off(void);

/* ---- progress bar on standard error ---- */
struct la_progress {
    int on;
    const char *path;
    int64_t total;          /* bytes, -1 unknown */
    double start, last;
    double delay;           /* seconds before the first draw */
    int drawn;
};

/** la_progress_begin() : decide whether to draw: --progress, or a terminal on standard
 *  error without --json, for a file that takes over a second. */
void la_progress_begin(struct la_progress *p, const struct la_config *cfg, const char *path,
                       int64_t total_bytes);
/** la_progress_update() : redraw at most a few times a second. */
void la_progress_update(struct la_progress *p, uint64_t done_bytes);
/** la_progress_end() : erase the bar. */
void la_progress_end(struct la_progress *p);

#endif
