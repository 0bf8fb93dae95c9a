/* fuzz_csv.c - CSV/TSV through the libcsv reader. The first byte picks the
 * options (header rule, delimiter, column, loss, standard input); the rest is
 * the file. The oracle beyond fuzz_common's: the reader's fast lanes (the
 * quote-free path, requote_row, blocks on threads) report exactly what the
 * one-thread libcsv reference (LABELAUDIT_CSV_SLOW=1) reports, with the
 * column check (--vocab-size) as without. */
#include "fuzz_common.h"

#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* setenv, unsetenv, abort */
#include <string.h> /* strdup, strcmp */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const headers[4] = { NULL, "--header", "--no-header", NULL };
    static const char *const delims[4] = { NULL, "-d;", "-d\t", "-d|" };
    static const char *const columns[4] = { NULL, "-c1", "-c2", "-clabel" };
    unsigned k = size ? data[0] : 0;
    const char *args[12];   /* at most 8 words and the NULL */
    int n = 0;
    args[n++] = "--format=csv";
    args[n++] = "-n10";
    args[n++] = "-b4";
    if (headers[k & 3])
        args[n++] = headers[k & 3];
    if (delims[(k >> 2) & 3])
        args[n++] = delims[(k >> 2) & 3];
    if (columns[(k >> 4) & 3])
        args[n++] = columns[(k >> 4) & 3];
    if (k & 0x40)
        args[n++] = "--loss=bce";
    const uint8_t *file = size ? data + 1 : data;
    size_t len = size ? size - 1 : 0;
    int as_stdin = (k & 0x80) != 0;
    /* by the length, so that no option bit is taken: reads of 64 or 7 bytes,
     * which make a few hundred bytes enough for blocks on three threads */
    static const char *const reads[3] = { NULL, "64", "7" };
    const char *read_bytes = reads[len % 3];
    if (read_bytes) {
        setenv("LABELAUDIT_CSV_BLOCK", read_bytes, 1);
        args[n++] = "-j3";
    }
    /* every other length, the columns the model indexes too (csv_columns.c:
     * a header naming input_ids, labels, ... has each cell parsed as one
     * integer or a list, row by row beside the label column) */
    if ((len / 3) % 2 && !(k & 0x40))   /* --vocab-size takes no --loss=bce */
        args[n++] = "--vocab-size=10";   /* as -n10: an embedding has one size */
    args[n] = NULL;
    fuzz_audit(file, len, args, as_stdin);
    char *fast = strdup(fuzz_last_json());
    unsetenv("LABELAUDIT_CSV_BLOCK");
    setenv("LABELAUDIT_CSV_SLOW", "1", 1);
    fuzz_audit(file, len, args, as_stdin);
    unsetenv("LABELAUDIT_CSV_SLOW");
    if (!fast || strcmp(fast, fuzz_last_json()) != 0) {
        fprintf(stderr, "fuzz oracle: the reference reads otherwise:\n%s\n---\n%s\n",
                fast ? fast : "(out of memory)", fuzz_last_json());
        abort();
    }
    free(fast);
    return 0;
}
