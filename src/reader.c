/* reader.c - what every reader shares: the error helper, the default options,
 * the default label column's names. */
#include "reader.h"

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <string.h> /* strlen */
#include <strings.h> /* strncasecmp */

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

/* In order of preference: the SPEC's six ("label" wins over "y"), then the
 * names datasets give an id column (Kaggle's class_id and diagnosis, COCO's
 * category_id, YOLO's cls). */
static const char *const g_label_names[] = {
    "label", "labels", "target", "targets", "class", "y",
    "class_id", "class_idx", "class_label", "label_id", "label_idx", "target_id",
    "category_id", "category", "cls", "diagnosis",
};

int la_label_name_rank(const char *name, size_t len)
{
    for (size_t k = 0; k < sizeof g_label_names / sizeof g_label_names[0]; k++)
        if (strlen(g_label_names[k]) == len && strncasecmp(g_label_names[k], name, len) == 0)
            return (int)k;
    return -1;
}
