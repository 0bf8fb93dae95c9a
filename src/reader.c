/* reader.c - the format table and the shared error helper. */
#include "reader.h"

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
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

int la_reader_set_error(struct la_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return -1;
}
