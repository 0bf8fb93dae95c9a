/* file_source.c - see file_source.h. */
#include "file_source.h"

#include <stdarg.h> /* va_list */

#include "input.h"
#include "reader.h"

ssize_t la_source_read(struct la_source *s, void *buf, size_t n)
{
    size_t k = fread(buf, 1, n, s->f);
    if (k == 0 && ferror(s->f))
        return -1;
    s->off += k;
    return (ssize_t)k;
}

ssize_t la_source_read_full(struct la_source *s, void *buf, size_t n)
{
    return la_source_read(s, buf, n);
}

const char *la_source_path(const struct la_source *s) { return s->path; }
int la_source_is_gzip(const struct la_source *s) { return s->gzip; }
uint64_t la_source_offset(const struct la_source *s) { return s->off; }
const char *la_source_error(const struct la_source *s) { (void)s; return "read error"; }

int la_reader_set_error(struct la_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return -1;
}
