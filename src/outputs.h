/* outputs.h - the files this run writes (--indices-out, --junit, --sarif,
 * --annotations=gitlab:FILE, --html, and with --annotations=github the job
 * summary GITHUB_STEP_SUMMARY names) never become its inputs, and never each
 * other.
 *
 * Before anything is read or written, an output that is one of the FILE
 * arguments, or that another output names too, is refused (exit status 2).
 * An output that lies inside a directory FILE, and the temporary files this
 * run writes beside its outputs, are not inputs of the directory: the walks
 * skip them and say so. A file is an output by its device and inode; one that
 * does not exist yet by its folder's device and inode and its name. */
#ifndef LA_OUTPUTS_H
#define LA_OUTPUTS_H

#include <sys/types.h> /* ino_t */

struct la_config;

/** la_outputs_check() : refuse an output that is an input or that two outputs
 *  name (each said on standard error); otherwise remember the outputs for
 *  la_output_of_run(). @return 0, or 1 when refused. */
int la_outputs_check(const struct la_config *cfg);

/** la_outputs_step_summary() : the file --annotations=github appends its job
 *  summary to (GITHUB_STEP_SUMMARY, when set and not empty), or NULL. */
const char *la_outputs_step_summary(const struct la_config *cfg);

/** la_outputs_add_temporary() : the file open on fd is a temporary file this
 *  run made beside an output. */
void la_outputs_add_temporary(int fd);

/** la_output_of_run() : why the file path met on a directory walk is not one
 *  of its inputs: it is an output of this run, a temporary file of this run,
 *  or one left by another run of labelaudit (named .labelaudit-XXXXXX). name
 *  is path's last component; ino is its inode number as readdir() gave it
 *  (links followed), or 0 when unknown: only a match costs a stat(). *own is
 *  set for this run's own temporary file, which is gone when the run ends: a
 *  report need not list it (-v says it).
 *  @return the reason, or NULL for a file that is none of these. */
const char *la_output_of_run(const char *path, const char *name, ino_t ino, int *own);

/** la_output_is_input() : which of the n inputs (a path, or "-" for standard
 *  input) is the same regular file (device and inode) as the output target
 *  (--indices-out, --junit...), which the run would replace or write into
 *  while reading it. @return its index, or -1. */
int la_output_is_input(const char *target, char *const *inputs, int n);

/** la_descriptor_named() : the descriptor of this process that path names
 *  ("-" is 1, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a link
 *  to one), which must be written through, not opened anew or renamed over;
 *  or -1. */
int la_descriptor_named(const char *path);

#endif
