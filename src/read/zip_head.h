/* zip_head.h - a zip's first local header, as format detection sees it.
 *
 * Apart from zip.c, which reads archives through a source (input.c): the
 * format table (formats.c) tests a zip's first member here, and input.c
 * calls the table, so a detection that called into zip.c would go round
 * formats.c -> zip.c -> input.c -> formats.c. This parser calls nothing. */
#ifndef LA_ZIP_HEAD_H
#define LA_ZIP_HEAD_H

#include <stddef.h> /* size_t */

/* A zip's first bytes, as format detection sees them (before any reader
 * opens the archive): the local header of its first member. */
enum la_zip_head {
    LA_ZIP_HEAD_NOT_ZIP = -1, /* no "PK\3\4" local header at byte 0 */
    LA_ZIP_HEAD_SHORT = 0,    /* a zip, but the first member's name lies past len */
    LA_ZIP_HEAD_NAMED = 1,    /* *name, *name_len: the first member's name */
};

/** la_zip_first_member() : read the local header at the start of head (len
 *  bytes), the one parser of it that detection (formats.c, input.c) and the
 *  readers share. @return an la_zip_head. */
enum la_zip_head la_zip_first_member(const unsigned char *head, size_t len, const char **name,
                                     size_t *name_len);

#endif
