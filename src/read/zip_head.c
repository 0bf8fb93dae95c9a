/* zip_head.c - see zip_head.h. */
#include "zip_head.h"

#include <string.h> /* memcmp */

#define ZIP_LOCAL_LEN 30           /* a local file header before its name */

enum la_zip_head la_zip_first_member(const unsigned char *head, size_t len, const char **name,
                                     size_t *name_len)
{
    *name = NULL;
    *name_len = 0;
    if (len < 4 || memcmp(head, "PK\3\4", 4) != 0)
        return LA_ZIP_HEAD_NOT_ZIP;
    if (len < ZIP_LOCAL_LEN)
        return LA_ZIP_HEAD_SHORT;
    size_t n = (size_t)head[26] | (size_t)head[27] << 8;
    if (ZIP_LOCAL_LEN + n > len)
        return LA_ZIP_HEAD_SHORT;
    *name = (const char *)head + ZIP_LOCAL_LEN;
    *name_len = n;
    return LA_ZIP_HEAD_NAMED;
}
