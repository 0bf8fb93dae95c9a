/* shards.c - the shard engine of the mds and litdata readers: see shards.h.
 *
 * Every number a shard holds is checked before it is used: its count against
 * index.json's, its offsets table against the file's size (a plain file) or
 * a cap (a compressed one, whose size shows only at its end), each offset
 * against the one before, each item against LA_SHARD_ITEM_MAX. The flat
 * index of the values is the position in the dataset's stream of them; the
 * sample of an index is found in a table of each sample's first index, which
 * the scan's thread reads (sample_of) while this reader's thread adds to it:
 * under a lock. */
#include "config.h"
#include "shards.h"
#include "shard_frames.h" /* LitData's framed zstd chunks */
#include "reader.h"
#include "label_notes.h"
#include "columns.h"  /* la_shards_lengths: each item against the position table */
#include "util.h"     /* la_grow_n, la_last_at_most */

#include <errno.h>    /* errno */
#include <pthread.h>  /* pthread_mutex_t */
#include <stdio.h>    /* fopen, fread, snprintf */
#include <stdlib.h>   /* malloc, calloc, free */
#include <string.h>   /* memcpy, strcmp, strlen, strrchr, strerror, strstr */
#include <sys/stat.h> /* stat */

#define CHUNK_BYTES (1u << 20)           /* values handed over per chunk */
#define COMPRESSED_MAX_COUNT (1u << 26)  /* items per compressed shard: its table's cap */

struct la_shards {
    struct la_shard *shards;
    size_t n;
    uint64_t *shard_first;     /* per shard: the dataset sample of its item 0 */
    int first_gap;
    la_shard_decode decode;
    void *ctx;
    uint64_t total;            /* samples in index.json */
    /* the shard being read */
    size_t cur;                /* n: all read */
    struct la_source *src;
    uint32_t *offsets;         /* count + 1 */
    int framed;                /* la_shards_framed(): LitData's framed zstd chunks */
    struct la_shard_frames frames;
    uint64_t count, item;      /* its items, the next one */
    uint64_t pos;              /* its decompressed bytes read so far */
    unsigned char *buf;        /* one item */
    size_t buf_cap;
    /* decoded values not yet handed over */
    struct la_shard_values pend;
    uint64_t pend_done;
    /* the chunk being filled */
    unsigned char *chunk;
    size_t chunk_n;
    enum la_dtype chunk_dtype;
    uint64_t chunk_first;
    uint64_t next_index;       /* values so far */
    int dtype_known;
    /* la_shards_blocks(): samples of block values, each shard's first block */
    uint64_t block;            /* 0: a sample is an item */
    uint64_t *shard_block0;
    uint64_t shard_read;       /* the current shard's values decoded so far */
    /* la_shards_lengths(): each item's length against the position table */
    struct la_column_check *lengths;
    int lengths_fed;           /* decode() feeds it: the engine only finishes it */
    /* each sample's first index (sample_of, locate) */
    pthread_mutex_t lock;
    uint64_t *first;
    size_t n_first, cap_first;
};

// ---- index.json --------------------------------------------------------------

/* Whether path names the file index.json (in some folder). */
static int is_index_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strcmp(slash ? slash + 1 : path, "index.json") == 0;
}

/* The whole of path, at most LA_SHARD_INDEX_MAX bytes, NUL-terminated. */
static char *read_bounded(struct la_reader *r, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        la_reader_set_error(r, "index.json: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap > LA_SHARD_INDEX_MAX)
            break;
        char *more = realloc(buf, cap * 2 + 1);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) {
        la_reader_set_error(r, "out of memory");
        return NULL;
    }
    if (bad || n > LA_SHARD_INDEX_MAX) {
        la_reader_set_error(r, bad ? "index.json: read error"
                                   : "index.json: over the %u-byte limit", LA_SHARD_INDEX_MAX);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

cJSON *la_shards_load_index(struct la_reader *r, char **dir)
{
    struct stat st;
    *dir = NULL;
    if (stat(r->path, &st) != 0) {
        la_reader_set_error(r, "%s", strerror(errno));
        return NULL;
    }
    int is_dir = S_ISDIR(st.st_mode);
    if (!is_dir && !is_index_name(r->path)) {
        la_reader_set_error(r, "not a folder or its index.json (give the dataset's folder)");
        return NULL;
    }
    const char *slash = strrchr(r->path, '/');
    *dir = is_dir ? strdup(r->path)
         : slash ? strndup(r->path, (size_t)(slash - r->path)) : strdup(".");
    char *index = *dir ? la_shards_join(*dir, "index.json") : NULL;
    if (!index) {
        la_reader_set_error(r, "out of memory");
        return NULL;
    }
    size_t len = 0;
    char *text = read_bounded(r, index, &len);
    free(index);
    if (!text)
        return NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root)
        la_reader_set_error(r, "index.json byte %zu: not valid JSON",
                            end && end >= text ? (size_t)(end - text) : (size_t)0);
    else if (!cJSON_IsObject(root)) {
        la_reader_set_error(r, "index.json: not a JSON object");
        cJSON_Delete(root);
        root = NULL;
    }
    free(text);
    return root;
}

char *la_shards_join(const char *dir, const char *name)
{
    if (!name[0] || name[0] == '/' || strcmp(name, "..") == 0 || strncmp(name, "../", 3) == 0 ||
        strstr(name, "/../") || (strlen(name) >= 3 && strcmp(name + strlen(name) - 3, "/..") == 0))
        return NULL;
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void la_shards_free_list(struct la_shard *shards, size_t n)
{
    for (size_t i = 0; shards && i < n; i++) {
        free(shards[i].name);
        free(shards[i].path);
    }
    free(shards);
}

// ---- samples: the first index of each ------------------------------------------

/* The sample holding value index: the last one whose first index is <= it
 * (an empty sample shares its first index with the next one). */
static uint64_t sample_of_locked(const struct la_shards *s, uint64_t index)
{
    return la_last_at_most(s->first, s->n_first, index);
}

static uint64_t shards_sample_of(void *ctx, uint64_t index)
{
    struct la_shards *s = ctx;
    pthread_mutex_lock(&s->lock);
    uint64_t sample = s->n_first ? sample_of_locked(s, index) : LA_NO_SAMPLE;
    pthread_mutex_unlock(&s->lock);
    return sample;
}

static int add_sample(struct la_shards *s)
{
    pthread_mutex_lock(&s->lock);
    int rc = la_grow_n(&s->first, &s->cap_first, s->n_first + 1, sizeof *s->first, 1024);
    if (rc == 0)
        s->first[s->n_first++] = s->next_index;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* The shard holding dataset sample `sample`: the last whose first is <= it. */
static size_t shard_of(const struct la_shards *s, uint64_t sample)
{
    return la_last_at_most(s->shard_first, s->n, sample);
}

/* Where the scan's bad entries lie: shard, its sample, the position in it. */
/* Where a bad entry lies in a shard of blocks: its block and position. */
static int blocks_locate(struct la_notes *n, struct la_shards *s, uint64_t index)
{
    uint64_t block = index / s->block, pos = index % s->block;
    size_t lo = la_last_at_most(s->shard_block0, s->n, block);   /* its shard */
    uint64_t in_shard = block - s->shard_block0[lo];
    char where[LA_NOTE_LEN];
    snprintf(where, sizeof where, "%s block %llu position %llu", s->shards[lo].name,
             (unsigned long long)in_shard, (unsigned long long)pos);
    la_one_line(where);
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddNumberToObject(o, "index", (double)index);
        cJSON_AddNumberToObject(o, "sample", (double)block);
        cJSON_AddStringToObject(o, "shard", s->shards[lo].name);
        cJSON_AddNumberToObject(o, "shard_sample", (double)in_shard);
        cJSON_AddNumberToObject(o, "position", (double)pos);
    }
    return la_notes_problem(n, LA_P_AT, index, block, where, "", o);
}

static int shards_locate(struct la_notes *n, const uint64_t *index, size_t count)
{
    struct la_shards *s = n->ctx;
    for (size_t i = 0; s->block && s->n && i < count; i++)
        if (blocks_locate(n, s, index[i]) != 0)
            return -1;
    for (size_t i = 0; i < count && !s->block && s->n_first && s->n; i++) {
        uint64_t sample = sample_of_locked(s, index[i]);
        uint64_t end = sample + 1 < s->n_first ? s->first[sample + 1] : s->next_index;
        uint64_t pos = index[i] - s->first[sample];
        size_t sh = shard_of(s, sample);
        uint64_t in_shard = sample - s->shard_first[sh];
        char where[LA_NOTE_LEN];
        if (end - s->first[sample] > 1)
            snprintf(where, sizeof where, "%s sample %llu position %llu", s->shards[sh].name,
                     (unsigned long long)in_shard, (unsigned long long)pos);
        else
            snprintf(where, sizeof where, "%s sample %llu", s->shards[sh].name,
                     (unsigned long long)in_shard);
        la_one_line(where);
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddNumberToObject(o, "index", (double)index[i]);
            cJSON_AddNumberToObject(o, "sample", (double)sample);
            cJSON_AddStringToObject(o, "shard", s->shards[sh].name);
            cJSON_AddNumberToObject(o, "shard_sample", (double)in_shard);
            cJSON_AddNumberToObject(o, "position", (double)pos);
        }
        if (la_notes_problem(n, LA_P_AT, index[i], sample, where, "", o) != 0)
            return -1;
    }
    return 0;
}

// ---- open ---------------------------------------------------------------------

static void free_engine(void *ctx)
{
    struct la_shards *s = ctx;
    if (!s)
        return;
    la_source_close(s->src);
    la_shards_free_list(s->shards, s->n);
    free(s->shard_first);
    free(s->shard_block0);
    free(s->offsets);
    la_shard_frames_free(&s->frames);
    free(s->buf);
    free(s->chunk);
    free(s->first);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Every shard is a regular file, and the samples add up without overflow. */
static int check_shards(struct la_reader *r, struct la_shards *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct stat st;
        if (stat(s->shards[i].path, &st) != 0)
            return la_reader_set_error(r, "%s: missing (index.json's shard %zu): %s",
                                       s->shards[i].name, i, strerror(errno));
        if (!S_ISREG(st.st_mode))
            return la_reader_set_error(r, "%s: not a regular file (index.json's shard %zu)",
                                       s->shards[i].name, i);
        s->shard_first[i] = s->total;
        if (s->shards[i].samples > UINT32_MAX || s->total + s->shards[i].samples < s->total)
            return la_reader_set_error(r, "index.json: shard %zu (%s): %llu samples is more "
                                       "than a shard can hold", i, s->shards[i].name,
                                       (unsigned long long)s->shards[i].samples);
        s->total += s->shards[i].samples;
    }
    return 0;
}

struct la_shards *la_shards_open(struct la_reader *r, struct la_shard *shards, size_t n,
                                 int first_gap, la_shard_decode decode, void *ctx)
{
    struct la_shards *s = calloc(1, sizeof *s);
    if (!s || !r->notes) {
        la_shards_free_list(shards, n);
        free(s);
        la_reader_set_error(r, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->shards = shards;
    s->n = n;
    s->first_gap = first_gap;
    s->decode = decode;
    s->ctx = ctx;
    /* the notes own the engine from here: it outlives the reader for locate() */
    r->notes->ctx = s;
    r->notes->free_ctx = free_engine;
    r->notes->locate = shards_locate;
    r->notes->sample_of = shards_sample_of;
    r->notes->sample_ctx = s;
    r->notes->samples_ordered = 1;
    if (!(s->shard_first = calloc(n ? n : 1, sizeof *s->shard_first)) ||
        !(s->chunk = malloc(CHUNK_BYTES))) {
        la_reader_set_error(r, "out of memory");
        return NULL;
    }
    if (check_shards(r, s) != 0)
        return NULL;
    /* samples: the items; elements: their values, how many shows as they are
     * read (so the values are read on a thread of their own, not as a few) */
    r->info.ndim = 1;
    r->info.shape[0] = s->total;
    r->info.shape_known = 0;
    r->notes->has_samples = 1;
    r->notes->samples = s->total;
    return s;
}

int la_shards_blocks(struct la_reader *r, struct la_shards *s, uint64_t L, uint64_t *dropped)
{
    if (!(s->shard_block0 = calloc(s->n ? s->n : 1, sizeof *s->shard_block0)))
        return la_reader_set_error(r, "out of memory");
    uint64_t blocks = 0, values = 0;
    *dropped = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!s->shards[i].has_dim)
            return la_reader_set_error(r, "index.json: chunk %zu (%s) has no dim (its count of "
                                       "ids), which litdata's TokensLoader cuts blocks from",
                                       i, s->shards[i].name);
        s->shard_block0[i] = blocks;
        blocks += s->shards[i].dim / L;
        values += s->shards[i].dim / L * L;
        *dropped += s->shards[i].dim % L;
    }
    s->block = L;
    /* the samples are the blocks: audit.c cuts the stream of their values
     * every L (as --seq-len cuts any stream), no map of items needed */
    r->notes->sample_of = NULL;
    r->notes->sample_ctx = NULL;
    r->notes->samples_ordered = 0;
    r->notes->has_samples = 0;
    r->info.shape[0] = values;
    r->info.shape_known = 1;
    return 0;
}

/* TokensLoader blocks: keep the decoded values that fall in the shard's
 * blocks; at its last item, its ids must be index.json's dim. */
static int keep_in_blocks(struct la_reader *r, struct la_shards *s)
{
    const struct la_shard *sh = &s->shards[s->cur];
    uint64_t keep = sh->dim / s->block * s->block;
    uint64_t room = keep > s->shard_read ? keep - s->shard_read : 0;
    s->shard_read += s->pend.n;
    if (s->pend.n > room)
        s->pend.n = room;
    if (s->item + 1 == s->count && s->shard_read != sh->dim)
        return la_reader_set_error(r, "%s: the chunk holds %llu ids, index.json's dim says %llu "
                                   "(litdata cuts its blocks by dim)", sh->name,
                                   (unsigned long long)s->shard_read,
                                   (unsigned long long)sh->dim);
    return 0;
}

void la_shards_lengths(struct la_shards *s, struct la_column_check *check, int fed)
{
    s->lengths = check;
    s->lengths_fed = fed;
}

void la_shards_framed(struct la_shards *s)
{
    s->framed = 1;
}

uint64_t la_shards_samples(const struct la_shards *s)
{
    return s->total;
}

void la_shards_close(struct la_shards *s)
{
    /* the notes free the engine (free_engine); its shard is closed now */
    if (!s)
        return;
    la_source_close(s->src);
    s->src = NULL;
    la_column_check_free(s->lengths);   /* a read that failed before the end */
    s->lengths = NULL;
    free(s->offsets);   /* what locate() needs stays: the samples, the shards */
    free(s->buf);
    free(s->chunk);
    s->offsets = NULL;
    la_shard_frames_free(&s->frames);
    s->buf = s->chunk = NULL;
}

// ---- reading a shard -----------------------------------------------------------

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Exactly n bytes of the shard into buf. @return 0, or -1 with r->err. */
static int read_exact(struct la_reader *r, struct la_shards *s, void *buf, size_t n,
                      const char *what)
{
    const char *name = s->shards[s->cur].name;
    ssize_t got = la_source_read_full(s->src, buf, n);
    if (got < 0)
        return la_reader_set_error(r, "%s byte %llu: %s", name, (unsigned long long)s->pos,
                                   la_source_error(s->src));
    if ((size_t)got < n)
        return la_reader_set_error(r, "%s byte %llu: the file ends inside %s (truncated shard)",
                                   name, (unsigned long long)(s->pos + (uint64_t)got), what);
    s->pos += n;
    return 0;
}

/* The offsets table: in order, within the file. @return 0, or -1 with r->err. */
static int check_offsets(struct la_reader *r, struct la_shards *s, int64_t size)
{
    const char *name = s->shards[s->cur].name;
    uint64_t table_end = 4 + 4 * (s->count + 1);
    if (s->first_gap ? s->offsets[0] < table_end : s->offsets[0] != table_end)
        return la_reader_set_error(r, "%s byte 4: the first sample starts at byte %lu, "
                                   "%s the offsets table's end (byte %llu)", name,
                                   (unsigned long)s->offsets[0],
                                   s->first_gap ? "before" : "not at",
                                   (unsigned long long)table_end);
    for (uint64_t i = 0; i < s->count; i++) {
        if (s->offsets[i + 1] < s->offsets[i])
            return la_reader_set_error(r, "%s byte %llu: the offsets go backwards: sample %llu "
                                       "ends at byte %lu, before its start at byte %lu", name,
                                       (unsigned long long)(4 + 4 * (i + 1)),
                                       (unsigned long long)i, (unsigned long)s->offsets[i + 1],
                                       (unsigned long)s->offsets[i]);
        if (s->offsets[i + 1] - s->offsets[i] > LA_SHARD_ITEM_MAX)
            return la_reader_set_error(r, "%s byte %llu: sample %llu is %lu bytes, over the "
                                       "%u-byte limit", name, (unsigned long long)(4 + 4 * (i + 1)),
                                       (unsigned long long)i,
                                       (unsigned long)(s->offsets[i + 1] - s->offsets[i]),
                                       LA_SHARD_ITEM_MAX);
    }
    if (size >= 0 && s->offsets[s->count] > (uint64_t)size)
        return la_reader_set_error(r, "%s byte %llu: sample %llu ends at byte %lu, past the "
                                   "end of the file (%lld bytes: truncated shard)", name,
                                   (unsigned long long)table_end - 4,
                                   (unsigned long long)(s->count ? s->count - 1 : 0),
                                   (unsigned long)s->offsets[s->count], (long long)size);
    return 0;
}

/* A framed chunk (la_shards_framed): its magic, header and tables. */
static int open_framed(struct la_reader *r, struct la_shards *s)
{
    const struct la_shard *sh = &s->shards[s->cur];
    unsigned char magic[8];
    char why[LA_ERR_LEN / 2];
    if (read_exact(r, s, magic, sizeof magic, "the framed header") != 0)
        return -1;
    if (!la_shard_frames_is(magic))
        return la_reader_set_error(r, "%s byte 0: not a framed zstd chunk (no LDFZ01 magic), "
                                   "though index.json's compression_level says batch", sh->name);
    if (la_shard_frames_open(&s->frames, s->src, la_source_size(s->src), sh->samples,
                             LA_SHARD_ITEM_MAX, &s->pos, why, sizeof why) != 0)
        return la_reader_set_error(r, "%s %s", sh->name, why);
    s->count = s->frames.count;
    s->item = 0;
    s->shard_read = 0;
    return 0;
}

/* Open shard s->cur, read its count and offsets, and skip to its first item. */
static int open_shard(struct la_reader *r, struct la_shards *s)
{
    const struct la_shard *sh = &s->shards[s->cur];
    char err[LA_ERR_LEN];
    if (la_source_open(sh->path, &s->src, err, sizeof err) != 0)
        return la_reader_set_error(r, "%s: %s", sh->name, err);
    s->pos = 0;
    if (s->framed)
        return open_framed(r, s);
    unsigned char b4[4];
    if (read_exact(r, s, b4, 4, "the sample count") != 0)
        return -1;
    s->count = le32(b4);
    if (s->count != sh->samples)
        return la_reader_set_error(r, "%s byte 0: the shard holds %llu samples, index.json "
                                   "says %llu", sh->name, (unsigned long long)s->count,
                                   (unsigned long long)sh->samples);
    int64_t size = la_source_size(s->src);   /* -1: compressed */
    uint64_t table = 4 * (s->count + 1);
    if (size >= 0 ? 4 + table > (uint64_t)size : s->count > COMPRESSED_MAX_COUNT)
        return la_reader_set_error(r, size >= 0 ? "%s byte 4: the offsets table of %llu samples "
                                   "runs past the end of the file (truncated shard)"
                                   : "%s byte 4: %llu samples in one compressed shard is over "
                                   "the limit", sh->name, (unsigned long long)s->count);
    free(s->offsets);
    if (!(s->offsets = malloc((size_t)table)))
        return la_reader_set_error(r, "out of memory");
    if (read_exact(r, s, s->offsets, (size_t)table, "the offsets table") != 0)
        return -1;
    for (uint64_t i = 0; i <= s->count; i++)
        s->offsets[i] = le32((const unsigned char *)&s->offsets[i]);
    if (check_offsets(r, s, size) != 0)
        return -1;
    for (uint64_t gap = s->offsets[0] - s->pos; gap > 0;) {   /* MDS: the config JSON */
        unsigned char skip[4096];
        size_t k = gap < sizeof skip ? (size_t)gap : sizeof skip;
        if (read_exact(r, s, skip, k, "the shard's config") != 0)
            return -1;
        gap -= k;
    }
    s->item = 0;
    s->shard_read = 0;
    if (s->block && s->count == 0 && s->shards[s->cur].dim != 0)
        return la_reader_set_error(r, "%s: the chunk holds no ids, index.json's dim says %llu",
                                   sh->name, (unsigned long long)s->shards[s->cur].dim);
    return 0;
}

/* Read and decode the next item of the current shard into s->pend. */
/* The current item's bytes: read from the shard, or out of its inflated frame. */
static int item_bytes(struct la_reader *r, struct la_shards *s, const unsigned char **p,
                      size_t *len)
{
    if (s->framed) {
        char why[LA_ERR_LEN / 2];
        if (la_shard_frames_item(&s->frames, s->src, s->item, p, len, &s->pos, why,
                                 sizeof why) != 0)
            return la_reader_set_error(r, "%s %s", s->shards[s->cur].name, why);
        return 0;
    }
    *len = s->offsets[s->item + 1] - s->offsets[s->item];
    if (la_grow(&s->buf, &s->buf_cap, *len ? *len : 1, 4096) != 0)
        return la_reader_set_error(r, "out of memory");
    char what[64];
    snprintf(what, sizeof what, "sample %llu", (unsigned long long)s->item);
    *p = s->buf;
    return read_exact(r, s, s->buf, *len, what);
}

static int read_item(struct la_reader *r, struct la_shards *s)
{
    const struct la_shard *sh = &s->shards[s->cur];
    const unsigned char *p;
    size_t len;
    if (item_bytes(r, s, &p, &len) != 0)
        return -1;
    char why[LA_ERR_LEN / 2];
    why[0] = '\0';
    if (s->decode(s->ctx, p, len, &s->pend, why, sizeof why) != 0)
        return la_reader_set_error(r, s->framed ? "%s sample %llu (inflated byte %lu): %s"
                                   : "%s sample %llu (byte %lu): %s", sh->name,
                                   (unsigned long long)s->item,
                                   (unsigned long)(s->framed ? s->frames.offsets[s->item]
                                                   : s->offsets[s->item]), why);
    if (s->block ? keep_in_blocks(r, s) != 0 : add_sample(s) != 0)
        return s->block ? -1 : la_reader_set_error(r, "out of memory");
    if (s->lengths && !s->lengths_fed && !s->block)
        la_column_check_length(s->lengths, s->shard_first[s->cur] + s->item,
                               s->pend.has_length ? s->pend.length : s->pend.n);
    s->pend_done = 0;
    s->item++;
    if (s->pend.n && !s->dtype_known) {
        r->info.dtype = s->pend.dtype;
        s->dtype_known = 1;
    }
    return 0;
}

/* Hand over the chunk filled so far, if any. */
static int flush_chunk(struct la_shards *s, struct la_chunk *out)
{
    if (!s->chunk_n)
        return 0;
    *out = (struct la_chunk){ .dtype = s->chunk_dtype, .values = s->chunk, .count = s->chunk_n,
                              .first_index = s->chunk_first };
    s->chunk_first += s->chunk_n;
    s->chunk_n = 0;
    return 1;
}

/* Move pending values into the chunk. @return 1 when the chunk must go first. */
static int fill_chunk(struct la_shards *s, struct la_chunk *out)
{
    if (s->chunk_n && s->chunk_dtype != s->pend.dtype)
        return flush_chunk(s, out);
    s->chunk_dtype = s->pend.dtype;
    size_t esize = la_dtype_info(s->pend.dtype)->size;
    size_t room = CHUNK_BYTES / esize - s->chunk_n;
    uint64_t left = s->pend.n - s->pend_done;
    size_t k = left < room ? (size_t)left : room;
    memcpy(s->chunk + s->chunk_n * esize,
           (const unsigned char *)s->pend.values + s->pend_done * esize, k * esize);
    if (s->pend.dtype == LA_DT_BOOL)
        la_bool_normalize(s->chunk + s->chunk_n, k);
    else if (s->pend.little_endian && esize > 1 && la_host_is_big_endian())
        la_byteswap(s->chunk + s->chunk_n * esize, k, (unsigned)esize);
    s->chunk_n += k;
    s->pend_done += k;
    s->next_index += k;
    return s->chunk_n == CHUNK_BYTES / esize ? flush_chunk(s, out) : 0;
}

int la_shards_next(struct la_reader *r, struct la_shards *s, struct la_chunk *out)
{
    for (;;) {
        if (s->pend_done < s->pend.n) {
            if (fill_chunk(s, out))
                return 1;
            continue;
        }
        if (s->cur == s->n) {
            /* the notes are the reader's until the scan ends: this thread's */
            if (s->lengths && la_column_check_finish(s->lengths, r->notes) != 0) {
                s->lengths = NULL;
                return la_reader_set_error(r, "out of memory");
            }
            s->lengths = NULL;
            return flush_chunk(s, out);
        }
        if (!s->src && open_shard(r, s) != 0)
            return -1;
        if (s->item == s->count) {
            la_source_close(s->src);
            s->src = NULL;
            s->cur++;
            continue;
        }
        if (read_item(r, s) != 0)
            return -1;
    }
}
