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
    return -1;
}

const struct la_read_opts *la_read_opts_or_default(const struct la_read_opts *opts)
{
    static const struct la_read_opts defaults = { .header = LA_AUTO };
    return opts ? opts : &defaults;
}
