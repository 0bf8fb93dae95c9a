/* zip.h - reading members of a zip archive at random (npz, torch.save's .pt).
 *
 * The archive is read through its central directory (the End of Central
 * Directory record, found by scanning back over at most a 64 KiB comment, and
 * its zip64 forms), which needs random access: a plain regular file is opened
 * again by path and read with pread(); stdin and compressed input are first
 * spooled to an unlinked temporary file. A member, stored or raw-deflated, is
 * pulled through bounded buffers with its CRC-32 checked as the bytes go by. */
#ifndef LA_ZIP_H
#define LA_ZIP_H

#include <stdint.h>    /* uint64_t */
#include <sys/types.h> /* ssize_t */
#include <zlib.h>      /* z_stream */
#include "reader.h"
#include "zip_head.h" /* la_zip_first_member: the readers test a first member too */

struct la_zip_member {
    char *name;                   /* control bytes shown as '?' */
    uint64_t csize, usize, local_off;
    uint32_t crc;
    unsigned method, flags;
};

struct la_zip {
    int fd;
    uint64_t fsize;
    uint64_t cd_off;              /* members lie before it */
    struct la_zip_member *m;
    size_t nm;
    const struct la_zip_member *chosen;
    uint64_t data_off;            /* archive offset of the chosen member's bytes */
    uint64_t cpos, upos;          /* member bytes consumed / produced */
    uint32_t crc;
    int at_end;                   /* the member's bytes are all out and checked */
    int z_end;                    /* inflate() said Z_STREAM_END */
    z_stream z;
    int z_live;
    unsigned char *zin;
};

/** la_zip_open() : the archive behind r->src and its central directory.
 *  @return 0, or -1 with r->err set. */
int la_zip_open(struct la_reader *r, struct la_zip *z);

/** la_zip_locate() : choose member m (one of z->m) and find its data.
 *  @return 0, or -1 with r->err set (encrypted, unknown method, bad header). */
int la_zip_locate(struct la_reader *r, struct la_zip *z, const struct la_zip_member *m);

/** la_zip_start() : get ready to pull the chosen member from its first byte. */
int la_zip_start(struct la_zip *z, char *err, size_t errlen);

/** la_zip_pull() : the chosen member's next bytes (an la_npy_pull; ctx is the
 *  la_zip). The CRC-32 is checked when the last byte is out.
 *  @return bytes, 0 at the end, -1 with a message in err. */
ssize_t la_zip_pull(void *ctx, void *buf, size_t n, char *err, size_t errlen);

/** la_zip_crc_whole() : check a stored member's CRC-32 by reading it all. */
int la_zip_crc_whole(struct la_zip *z, char *err, size_t errlen);

/** la_zip_read_at() : exactly n bytes at archive offset off.
 *  @return 0, or -1 with errno (0 for a short read). */
int la_zip_read_at(int fd, void *buf, size_t n, uint64_t off);

/** la_zip_shown() : name fit for a one-line message in buf (LA_ZIP_SHOWN_LEN). */
#define LA_ZIP_SHOWN_LEN 201
const char *la_zip_shown(const char *name, char *buf);

void la_zip_close(struct la_zip *z);

#endif
