/* formats.c - the readers by format name: the one place that lists them all,
 * kept apart from reader.c so that a reader's unit test links without the rest. */
#include "reader.h"

#include <string.h> /* strcmp */

const struct la_reader_ops *la_reader_for_format(const char *format)
{
    static const struct { const char *name; const struct la_reader_ops *ops; } table[] = {
        { "csv", &la_reader_csv }, { "tsv", &la_reader_csv }, { "text", &la_reader_text },
        { "npy", &la_reader_npy }, { "npz", &la_reader_npz }, { "raw", &la_reader_raw },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(format, table[i].name) == 0)
            return table[i].ops;
    return NULL;
}
