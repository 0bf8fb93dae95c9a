/* shards.h - what the readers of sharded datasets (mds: MosaicML streaming;
 * litdata: LitData's optimize() output) share. Both are a folder whose
 * index.json lists shard files, and each shard is the same container:
 *
 *     uint32 count | uint32 offsets[count + 1] | ... | item 0 | item 1 | ...
 *
 * (little-endian; offsets are absolute byte offsets into the shard: item i is
 * [offsets[i], offsets[i+1]); MDS puts its config JSON between the table and
 * the first item). The format's reader parses index.json into a list of
 * shards and decodes one item into values; this engine reads the shards in
 * order, one item at a time (so memory is one item, one chunk and the sample
 * table), checks every count and offset against the file and index.json,
 * numbers the samples, and names a bad entry's shard, sample and position.
 *
 * A shard may be compressed (.zstd, .gz, .bz2, .xz): the source decompresses
 * it by its magic bytes (input.h); its items are then read in one pass. A
 * LitData chunk may instead hold its items in zstd frames of its own
 * (la_shards_framed). */
#ifndef LA_SHARDS_H
#define LA_SHARDS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */
#include <cjson/cJSON.h>
#include "dtype.h"

struct la_reader;
struct la_chunk;

#define LA_SHARD_INDEX_MAX (64u << 20)   /* index.json bigger than this is refused */
#define LA_SHARD_ITEM_MAX (128u << 20)   /* one item (sample) bigger than this is refused */

struct la_shard {
    char *name;          /* as index.json names it (for messages) */
    char *path;          /* the folder joined with it */
    uint64_t samples;    /* index.json's count of its items */
    uint64_t dim;        /* LitData's TokensLoader: index.json's count of its ids */
    int has_dim;
};

/* What a format's decode() makes of one item: n values of dtype at values
 * (into the item's bytes or the format's own buffer, valid until the next
 * decode), little-endian as stored (the engine swaps them on a big-endian
 * host), or else in host order. */
struct la_shard_values {
    enum la_dtype dtype;
    const void *values;
    uint64_t n;
    int little_endian;
    /* the sample's length where another column holds its ids (MDS), for
     * la_shards_lengths; else n is */
    int has_length;
    uint64_t length;
};

/* decode(): item[0..len) of the format (ctx) into *out. @return 0, or -1
 * with a reason in why (no place: the engine names the shard and sample). */
typedef int (*la_shard_decode)(void *ctx, const unsigned char *item, size_t len,
                               struct la_shard_values *out, char *why, size_t whylen);

struct la_shards;

/** la_shards_load_index() : dir/index.json (path is the folder or the
 *  index.json itself) parsed with cJSON, its size bounded; *dir gets the
 *  folder (malloc'd). @return the root, or NULL with r->err set. */
cJSON *la_shards_load_index(struct la_reader *r, char **dir);

/** la_shards_join() : dir/name, malloc'd; NULL when name is empty, absolute,
 *  or climbs out of dir (".."), or out of memory. */
char *la_shards_join(const char *dir, const char *name);

/** la_shards_open() : take the shards (moved in: freed by the engine) and
 *  the format's decoder; check every shard exists and its count fits its
 *  size; set up r->notes (sample_of, locate) and r->info's layout (one
 *  sample per item). first_gap: MDS's config JSON lies between the offsets
 *  table and the first item (LitData's first item follows the table).
 *  @return the engine (r->state of the format keeps it), or NULL with r->err. */
struct la_shards *la_shards_open(struct la_reader *r, struct la_shard *shards, size_t n,
                                 int first_gap, la_shard_decode decode, void *ctx);

/** la_shards_blocks() : after la_shards_open(): the samples are blocks of L
 *  values, as LitData's TokensLoader(block_size=L) cuts them: dim // L of a
 *  shard's ids from its first on, across its items, never across shards. The
 *  dim % L ids after a shard's last block, which litdata never reads, are left
 *  out of the values; a shard holding other than dim ids is refused. Every
 *  shard's dim must be set. *dropped gets the ids left out. @return 0, or -1
 *  with r->err. */
int la_shards_blocks(struct la_reader *r, struct la_shards *s, uint64_t L, uint64_t *dropped);

/** la_shards_framed() : after la_shards_open(): the shards are LitData's
 *  framed zstd chunks (compression_level "batch": shard_frames.h), their
 *  items read out of each frame inflated in turn. */
void la_shards_framed(struct la_shards *s);

struct la_column_check;

/** la_shards_lengths() : after la_shards_open(), items their own samples:
 *  check (columns.h; taken, NULL: none) is finished into r->notes once the
 *  last shard is read. fed 0: each item's count of values (or its decode's
 *  length) is a sample's length, fed by the engine to a stream check; fed 1:
 *  decode() feeds the check each sample's columns itself. */
void la_shards_lengths(struct la_shards *s, struct la_column_check *check, int fed);

/** la_shards_next() : the reader's next() (see reader.h). */
int la_shards_next(struct la_reader *r, struct la_shards *s, struct la_chunk *out);

/** la_shards_samples() : the samples (items) listed in index.json. */
uint64_t la_shards_samples(const struct la_shards *s);

void la_shards_close(struct la_shards *s);

/** la_shards_free_list() : free shards[0..n) (before la_shards_open took them). */
void la_shards_free_list(struct la_shard *shards, size_t n);

#endif
