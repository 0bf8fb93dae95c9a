/* indices_out.h - --indices-out: every bad entry of every file as TSV lines
 * PATH<TAB>INDEX<TAB>VALUE, written to a temporary file beside the target and
 * renamed into place only when the whole run succeeded. A target that is not a
 * regular file (/dev/stdout, a FIFO) is never replaced: the entries are copied
 * into it on success from an unlinked temporary file in $TMPDIR. */
#ifndef LA_INDICES_OUT_H
#define LA_INDICES_OUT_H

#include "stats.h"

struct la_indices_out;

/** la_indices_out_open() : create the temporary file. @return NULL with err set. */
struct la_indices_out *la_indices_out_open(const char *target, char *err, size_t errlen);

/** la_indices_out_begin_file() : the PATH and dtype of the entries that follow. */
void la_indices_out_begin_file(struct la_indices_out *io, const char *path, int dtype);

/** la_indices_out_sink() : a la_bad_sink; ctx is the la_indices_out. */
void la_indices_out_sink(void *ctx, const struct la_bad *bad);

/** la_indices_out_close() : commit (fsync + rename) when commit is set and every
 *  write worked, else remove the temporary file. Frees io.
 *  @return 0, or -1 with err set (nothing was renamed). */
int la_indices_out_close(struct la_indices_out *io, int commit, char *err, size_t errlen);

#endif
