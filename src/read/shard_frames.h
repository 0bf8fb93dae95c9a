/* shard_frames.h - LitData's framed zstd chunks (compression_level "batch",
 * what optimize(compression="zstd") writes by default since litdata 0.2.7x),
 * read in order, one frame inflated at a time.
 *
 * The layout, from litdata/streaming/framed_zstd.py (little-endian):
 *
 *     "LDFZ01\0\0" | u16 version (1) | u16 flags | u32 items | u32 frame_rows K
 *     | u32 frames | u32 offsets[items + 1] (into the items' bytes inflated
 *     and joined, from 0) | frames x (u32 first_item, u32 items, u64 byte,
 *     u32 compressed, u32 inflated) | the zstd frames, one after another
 *
 * Frame f holds items f*K on, K of them (the last fewer). Every number is
 * checked against the others and the file before it is used: the frames
 * must follow one another from the table's end, as litdata writes them,
 * each inflating to exactly its items' bytes. */
#ifndef LA_SHARD_FRAMES_H
#define LA_SHARD_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#define LA_SHARD_FRAME_MAX (256u << 20)   /* one frame's items inflated: a larger one is refused */

struct la_source;

struct la_shard_frame {
    uint32_t first, n;        /* its items */
    uint64_t at;              /* its byte in the file */
    uint32_t packed, size;    /* its bytes compressed, inflated */
};

struct la_shard_frames {
    uint64_t count;           /* items */
    uint32_t item_max;        /* one item's bytes at most */
    uint32_t *offsets;        /* count + 1, into the inflated items */
    struct la_shard_frame *frames;
    uint64_t n_frames, rows;
    uint64_t cur;             /* the frame in out; n_frames: none yet */
    unsigned char *in, *out;
    size_t in_cap, out_cap;
};

/** la_shard_frames_is() : whether the 8 bytes at b begin a framed chunk. */
int la_shard_frames_is(const unsigned char *b);

/** la_shard_frames_open() : after the 8 magic bytes already read from src
 *  (*pos 8), the rest of the header and the tables of a chunk of size bytes
 *  (-1: unknown) that index.json says holds count items, none over
 *  item_max bytes.
 *  @return 0, or -1 with why (naming the byte). */
int la_shard_frames_open(struct la_shard_frames *f, struct la_source *src, int64_t size,
                         uint64_t count, uint32_t item_max, uint64_t *pos, char *why,
                         size_t whylen);

/** la_shard_frames_item() : item i's bytes (items read in order), its frame
 *  read and inflated when i is its first. *p valid until the next frame.
 *  @return 0, or -1 with why. */
int la_shard_frames_item(struct la_shard_frames *f, struct la_source *src, uint64_t i,
                         const unsigned char **p, size_t *len, uint64_t *pos,
                         char *why, size_t whylen);

void la_shard_frames_free(struct la_shard_frames *f);

#endif
