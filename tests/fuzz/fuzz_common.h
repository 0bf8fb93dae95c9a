/* fuzz_common.h - what every libFuzzer target shares: put the bytes in a real
 * file (a memfd), open it as a real la_source, read it with a real reader,
 * fold every chunk with the CPU reference scan, diagnose, render both reports,
 * and abort() on anything a broken file must never cause.
 *
 * The oracles, beyond the sanitizers: chunks arrive in index order with no
 * gaps; a file read "successfully" holds exactly the values its header
 * claims; every error is one printable line; the JSON report parses and is
 * valid UTF-8. */
#ifndef LA_FUZZ_COMMON_H
#define LA_FUZZ_COMMON_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t */

/** fuzz_audit() : audit data[0..size) as labelaudit would with these options
 *  (argv words without the program name and the FILE, NULL-terminated).
 *  as_stdin: hand the file over as "-" (standard input) instead of a path.
 *  @return 0 when the file was read, 1 when it was refused with a message. */
int fuzz_audit(const uint8_t *data, size_t size, const char *const *args, int as_stdin);

/** fuzz_last_json() : the JSON report the last fuzz_audit() rendered (valid
 *  until the next call), for targets that compare two ways of reading. */
const char *fuzz_last_json(void);

/* The entry point every target defines (libFuzzer's, or replay.c's main). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
