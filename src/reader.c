/* reader.c - what every reader shares: the error helper. */
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
