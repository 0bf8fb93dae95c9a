/* reader.c - what every reader shares: the error helper, the default options. */
#include "reader.h"

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */

int la_reader_set_error(struct la_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    /* names a file holds (a tensor's, a dataset's, a dict key) may carry any
     * byte: the message stays one line without control bytes */
    la_one_line(r->err);
    return -1;
}

char *la_one_line(char *text)
{
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return text;
}

const struct la_read_opts *la_read_opts_or_default(const struct la_read_opts *opts)
{
    static const struct la_read_opts defaults = { .header = LA_AUTO };
    return opts ? opts : &defaults;
}
