/* indices_out.h - --indices-out: every bad entry of every file as TSV lines
 * PATH<TAB>INDEX<TAB>VALUE (a backslash, tab, newline or carriage return in
 * PATH or VALUE written as \\, \t, \n, \r, so that each entry stays one line of
 * three fields, and any other control byte as \xNN, so that none reaches a
 * terminal that shows the file).
 *
 * Three kinds of target:
 * - a regular file (or a link to one) is written to a temporary file beside it
 *   and renamed into place only when the whole run succeeded, with the mode
 *   the file had;
 * - a descriptor of this process, named "-", /dev/stdout, /dev/stderr,
 *   /dev/fd/N or /proc/self/fd/N, is written straight through that descriptor
 *   (its offset, its O_APPEND) as the entries come: it may be a file the shell
 *   opened (`>> run.log`), which must be appended to, never replaced;
 * - any other device, FIFO or socket is never replaced: the entries are copied
 *   into it on success from an unlinked temporary file in $TMPDIR. */
#ifndef LA_INDICES_OUT_H
#define LA_INDICES_OUT_H

#include "stats.h"

struct la_indices_out;

/** la_indices_out_open() : create the temporary file, or take the descriptor.
 *  @return NULL with err set. */
struct la_indices_out *la_indices_out_open(const char *target, char *err, size_t errlen);

/** la_indices_out_streams() : whether the entries go straight to a descriptor as
 *  they come (so a failed run cannot take them back). */
int la_indices_out_streams(const struct la_indices_out *io);

/** la_indices_out_begin_file() : the PATH and dtype of the entries that follow. */
void la_indices_out_begin_file(struct la_indices_out *io, const char *path, int dtype);

/** la_indices_out_flush() : after each file, hand a descriptor the file's
 *  whole lines (so that a message on the same stream never cuts one). */
void la_indices_out_flush(struct la_indices_out *io);

/** la_indices_out_sink() : a la_bad_sink; ctx is the la_indices_out. */
void la_indices_out_sink(void *ctx, const struct la_bad *bad);

/** la_indices_out_close() : commit (fsync + rename) when commit is set and every
 *  write worked, else remove the temporary file. Frees io.
 *  @return 0, or -1 with err set (nothing was renamed). */
int la_indices_out_close(struct la_indices_out *io, int commit, char *err, size_t errlen);

#endif
