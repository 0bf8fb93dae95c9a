/* read_litdata.c - LitData optimize() output: a folder whose index.json lists
 * chunk-*.bin files (compressed ones too: "compression": "zstd", whole
 * chunks, or framed inside them with compression_level "batch", the
 * default: shard_frames.h). One item is one sample.
 *
 * The layout, from litdata/streaming (writer.py, item_loader.py,
 * serializers.py): a chunk is the container shards.h reads, its first item
 * right after the offsets table. With the TokensLoader an item is the raw
 * token ids ("no_header_tensor:I" / "no_header_numpy:I", I indexing
 * litdata's torch or numpy dtype list). With the PyTreeLoader (the default)
 * an item is uint32 sizes of its leaves (the flattened pytree, in
 * data_format's order), then each leaf: "int" (int64), "float" (float64),
 * "bool", "json" (a Python list: decode_json), the two no-header arrays, "tensor" (uint32 dtype index and rank,
 * big-endian in litdata 0.2.5x on, little-endian before, the shape, the
 * values), "numpy" (the same, little-endian, numpy's index), or "pickle".
 * -c names a key of a dict item (data_spec's context), or a leaf's number
 * (1-based, as a CSV column's). With --seq-len L and the TokensLoader the
 * samples are its blocks of L ids (shards.h: la_shards_blocks), as litdata's
 * StreamingDataset cuts them; without it, each item is a sample. */
#include "config.h"
#include "reader.h"
#include "label_notes.h"
#include "columns.h"  /* the lengths against the position table */
#include "shards.h"
#include "shard_values.h"
#include "util.h"    /* la_mul_overflow */

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, free, strtoul */
#include <string.h>  /* memcpy, strchr, strcmp, strcpy, strlen, strncmp, strstr */
#include <unistd.h>  /* access */

#define MAX_LEAVES 4096
#define MAX_KEYS 256

enum leaf { L_SCALAR, L_RAW, L_TENSOR, L_NUMPY, L_PICKLE, L_JSON };

struct litdata_state {
    struct la_shards *engine;
    int tokens;              /* TokensLoader: an item is the raw ids */
    int framed;              /* compression_level "batch": framed zstd chunks */
    uint64_t block;          /* --seq-len with it: the samples are its blocks */
    uint64_t dropped;        /* the ids after each chunk's last block */
    size_t n_leaves;
    size_t leaf;             /* the label leaf */
    enum leaf kind;
    enum la_dtype dtype;     /* scalar, raw */
    char format[64];         /* its data_format entry */
    struct la_shard_scratch scratch;
};

/* litdata's _TORCH_DTYPES_MAPPING (constants.py); -1: no dtype labelaudit reads. */
static int torch_dtype(uint32_t i, enum la_dtype *dt)
{
    static const int map[] = {
        LA_DT_FLOAT32, LA_DT_FLOAT32, LA_DT_FLOAT64, LA_DT_FLOAT64, -1, -1, -1, -1,
        LA_DT_FLOAT16, LA_DT_FLOAT16, -1, LA_DT_UINT8, LA_DT_INT8, LA_DT_INT16, LA_DT_INT16,
        LA_DT_INT32, LA_DT_INT32, LA_DT_INT64, LA_DT_INT64, LA_DT_BOOL, LA_DT_UINT16,
    };
    if (i >= sizeof map / sizeof map[0] || map[i] < 0)
        return 0;
    *dt = (enum la_dtype)map[i];
    return 1;
}

/* litdata's _NUMPY_DTYPES_MAPPING: NumPy's scalar types in its order. */
static int numpy_dtype(uint32_t i, enum la_dtype *dt)
{
    static const int map[] = {
        LA_DT_INT8, LA_DT_INT16, LA_DT_INT32, LA_DT_INT64, LA_DT_UINT8, LA_DT_UINT16,
        LA_DT_UINT32, LA_DT_UINT64, LA_DT_FLOAT16, LA_DT_FLOAT32, LA_DT_FLOAT64, -1, -1,
        LA_DT_BOOL,
    };
    if (i >= sizeof map / sizeof map[0] || map[i] < 0)
        return 0;
    *dt = (enum la_dtype)map[i];
    return 1;
}

static uint32_t rd32(const unsigned char *p, int big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* "tensor" and "numpy" leaves: dtype index, rank, shape, values. A tensor's
 * header is big-endian in newer litdata: the order whose dtype and rank are
 * valid is the one it was written in (a valid rank read the other way is
 * 2^24 or more). */
static int decode_array(int is_tensor, const unsigned char *p, size_t n,
                        struct la_shard_values *out, char *why, size_t whylen)
{
    if (n < 8) {
        snprintf(why, whylen, "a %s leaf of %zu bytes has no header", is_tensor ? "tensor" : "numpy", n);
        return -1;
    }
    enum la_dtype dt;
    int big = 0;
    if (is_tensor && rd32(p + 4, 0) > LA_MAX_DIMS)
        big = 1;
    uint32_t code = rd32(p, big), rank = rd32(p + 4, big);
    if (!(is_tensor ? torch_dtype(code, &dt) : numpy_dtype(code, &dt)) || rank > LA_MAX_DIMS) {
        snprintf(why, whylen, "%s leaf: dtype index %lu, rank %lu: not one labelaudit reads",
                 is_tensor ? "tensor" : "numpy", (unsigned long)code, (unsigned long)rank);
        return -1;
    }
    size_t at = 8 + 4 * (size_t)rank;
    uint64_t numel = 1;
    if (at > n) {
        snprintf(why, whylen, "the %s leaf's shape runs past its end", is_tensor ? "tensor" : "numpy");
        return -1;
    }
    for (uint32_t d = 0; d < rank; d++)
        if (la_mul_overflow(numel, rd32(p + 8 + 4 * d, big), &numel))
            numel = UINT64_MAX;
    size_t esize = la_dtype_info(dt)->size;
    if ((n - at) % esize || (n - at) / esize != numel) {
        snprintf(why, whylen, "the %s leaf holds %zu bytes of %s, its shape says %llu values",
                 is_tensor ? "tensor" : "numpy", n - at, la_dtype_info(dt)->name,
                 (unsigned long long)numel);
        return -1;
    }
    *out = (struct la_shard_values){ .dtype = dt, .values = p + at, .n = numel, .little_endian = 1 };
    return 0;
}

/* A "json" leaf (a Python list or dict; serializers.py's JsonSerializer): a
 * tag, then a homogeneous list of int64, float64 or bool, or one of them, or
 * JSON text (a mixed list; or the whole leaf, as litdata before 0.2.7x wrote
 * it), read as torch.tensor() types what StreamingDataset gives back. An
 * empty list is tagged as one of strings. */
enum { J_JSON, J_STRS, J_I64S, J_F64S, J_BOOLS, J_DICT, J_RECS, J_STR, J_I64, J_F64, J_BOOL, J_NONE };

static int decode_json(struct litdata_state *t, const unsigned char *p, size_t n,
                       struct la_shard_values *out, char *why, size_t whylen)
{
    static const char *const names[] = { "", "a list of strings", "", "", "", "a dict",
                                         "a list of records", "a string", "", "", "", "None" };
    if (n && p[0] > 0x20)                          /* the legacy leaf: JSON text */
        return la_shard_json(&t->scratch, p, n, out, why, whylen);
    uint32_t count = n >= 5 ? rd32(p + 1, 0) : 0;
    int tag = n ? p[0] : -1;
    size_t esize = tag == J_I64S || tag == J_F64S ? 8 : 1, head = 5;
    if (tag == J_I64 || tag == J_F64 || tag == J_BOOL)
        count = 1, esize = tag == J_BOOL ? 1 : 8, head = 1;
    if (tag == J_JSON && n >= 5 && count == n - 5)
        return la_shard_json(&t->scratch, p + 5, count, out, why, whylen);
    int list = tag == J_I64S || tag == J_F64S || tag == J_BOOLS || (tag == J_STRS && count == 0);
    if (!list && tag != J_I64 && tag != J_F64 && tag != J_BOOL) {
        if (tag < 0)
            snprintf(why, whylen, "an empty json leaf");
        else if (tag <= J_NONE && names[tag][0])
            snprintf(why, whylen, "the json leaf holds %s, not labels", names[tag]);
        else
            snprintf(why, whylen, "a json leaf of tag %d and %zu bytes: not one litdata writes",
                     tag, n);
        return -1;
    }
    if (n < head || (n - head) / esize != count || (n - head) % esize) {
        snprintf(why, whylen, "a json leaf of %zu bytes, not the %llu its tag and count say", n,
                 (unsigned long long)head + (unsigned long long)count * esize);
        return -1;
    }
    enum la_dtype dt = tag == J_I64S || tag == J_I64 || tag == J_STRS ? LA_DT_INT64
                     : tag == J_F64S || tag == J_F64 ? LA_DT_FLOAT64 : LA_DT_BOOL;
    *out = (struct la_shard_values){ .dtype = dt, .values = p + head, .n = count, .little_endian = 1 };
    return 0;
}

static int decode_leaf(struct litdata_state *t, const unsigned char *p, size_t n,
                       struct la_shard_values *out, char *why, size_t whylen)
{
    size_t esize = la_dtype_info(t->dtype)->size;
    switch (t->kind) {
    case L_SCALAR:
    case L_RAW:
        if (t->kind == L_SCALAR ? n != esize : n % esize != 0) {
            snprintf(why, whylen, "a %s leaf of %zu bytes is no whole number of %s", t->format, n,
                     la_dtype_info(t->dtype)->name);
            return -1;
        }
        *out = (struct la_shard_values){ .dtype = t->dtype, .values = p, .n = n / esize,
                                         .little_endian = 1 };
        return 0;
    case L_TENSOR:
    case L_NUMPY:
        return decode_array(t->kind == L_TENSOR, p, n, out, why, whylen);
    case L_PICKLE:
        return la_shard_pickle(&t->scratch, p, n, out, why, whylen);
    case L_JSON:
        return decode_json(t, p, n, out, why, whylen);
    }
    return -1;
}

static int litdata_decode(void *ctx, const unsigned char *item, size_t len,
                          struct la_shard_values *out, char *why, size_t whylen)
{
    struct litdata_state *t = ctx;
    if (t->tokens)
        return decode_leaf(t, item, len, out, why, whylen);
    size_t head = 4 * t->n_leaves, at = head;
    if (head > len) {
        snprintf(why, whylen, "%zu bytes, fewer than its %zu-byte head of leaf sizes", len, head);
        return -1;
    }
    for (size_t k = 0; k <= t->leaf; k++) {
        uint32_t size = rd32(item + 4 * k, 0);
        if (size > len - at) {
            snprintf(why, whylen, "leaf %zu (%lu bytes) runs past the item's end (%zu bytes)", k,
                     (unsigned long)size, len);
            return -1;
        }
        if (k == t->leaf)
            return decode_leaf(t, item + at, size, out, why, whylen);
        at += size;
    }
    return -1;
}

/* The leaves under a data_spec node (a node with no type is one leaf). */
static uint64_t leaves_of(const cJSON *node, int depth)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(node, "type");
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(node, "children_spec");
    if (cJSON_IsNull(type) || !cJSON_IsArray(kids) || depth > 64)
        return 1;
    uint64_t n = 0;
    for (const cJSON *k = kids->child; k; k = k->next)
        n += leaves_of(k, depth + 1);
    return n;
}

/* -c KEY of a dict item: data_spec (a JSON string: [version, node]) gives
 * the root's keys (its context, a JSON string too) and each key's leaves.
 * @return the leaf, -1 when not found (r->err set), -2 when not a dict. */
static long leaf_of_key(struct la_reader *r, struct litdata_state *t, const char *spec_text)
{
    const char *want = la_read_opts_or_default(r->opts)->column;
    cJSON *spec = spec_text ? cJSON_Parse(spec_text) : NULL;
    const cJSON *node = cJSON_GetArrayItem(spec, 1);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(node, "type");
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(node, "context");
    cJSON *keys = cJSON_IsString(ctx) ? cJSON_Parse(ctx->valuestring) : NULL;
    long leaf = -2;
    const char *names[MAX_KEYS];
    size_t n = 0;
    for (const cJSON *k = cJSON_IsArray(keys) ? keys->child : NULL; k && n < MAX_KEYS; k = k->next)
        names[n++] = cJSON_IsString(k) ? k->valuestring : "";
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "builtins.dict") != 0 || !n)
        goto done;
    char list[512];
    la_shard_column_list(names, n, list, sizeof list);
    long key = la_shard_pick_column(names, n, want);
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(node, "children_spec");
    if (key < 0 || cJSON_GetArraySize(kids) != (int)n) {
        leaf = want ? la_reader_set_error(r, "no key '%s' in the items (their keys: %s)", want, list)
                    : la_reader_set_error(r, "no label key among %s: name one with -c", list);
        goto done;
    }
    uint64_t at = 0;
    for (long k = 0; k < key; k++)
        at += leaves_of(cJSON_GetArrayItem(kids, (int)k), 0);
    if (leaves_of(cJSON_GetArrayItem(kids, (int)key), 0) != 1) {
        leaf = la_reader_set_error(r, "key '%s' holds a nested structure, not one array", names[key]);
        goto done;
    }
    snprintf(r->info.column, sizeof r->info.column, "%s", names[key]);
    la_one_line(r->info.column);
    r->info.has_column = 1;
    leaf = at < t->n_leaves ? (long)at : la_reader_set_error(r, "index.json: data_spec has more "
                                                             "leaves than data_format");
done:
    cJSON_Delete(keys);
    cJSON_Delete(spec);
    return leaf;
}

/* The label leaf and how it is encoded. */
static int choose_leaf(struct la_reader *r, struct litdata_state *t, const cJSON *config)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(config, "data_format");
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(config, "data_spec");
    int n = cJSON_GetArraySize(fmt);
    if (!cJSON_IsArray(fmt) || n < 1 || n > MAX_LEAVES)
        return la_reader_set_error(r, "index.json: config.data_format is not a list of 1 to %d "
                                   "names", MAX_LEAVES);
    t->n_leaves = (size_t)n;
    long leaf = t->tokens ? 0 : leaf_of_key(r, t, cJSON_IsString(spec) ? spec->valuestring : NULL);
    if (leaf == -1)
        return -1;
    const char *want = la_read_opts_or_default(r->opts)->column;
    if (leaf == -2) {                     /* not a dict: a leaf by number, or the only one */
        uint64_t k = 0;
        if (want && (la_strtou64(want, &k) != 0 || k < 1 || k > (uint64_t)n))
            return la_reader_set_error(r, "no leaf '%s' in the items (-c names a key of a dict "
                                       "item, or a leaf 1 to %d)", want, n);
        if (!want && n != 1)
            return la_reader_set_error(r, "the items have %d leaves: name one with -c (1 to %d)",
                                       n, n);
        leaf = want ? (long)k - 1 : 0;   /* 1-based, as for CSV */
    }
    t->leaf = (size_t)leaf;
    const cJSON *f = cJSON_GetArrayItem(fmt, (int)leaf);
    if (!cJSON_IsString(f))
        return la_reader_set_error(r, "index.json: config.data_format holds a non-string");
    snprintf(t->format, sizeof t->format, "%s", f->valuestring);
    la_one_line(t->format);
    return 0;
}

/* How the chosen data_format entry is read. */
static int parse_format(struct la_reader *r, struct litdata_state *t)
{
    const char *f = t->format, *colon = strchr(f, ':');
    if (colon && (strncmp(f, "no_header_tensor:", 17) == 0 || strncmp(f, "no_header_numpy:", 16) == 0)) {
        char *end;
        unsigned long i = strtoul(colon + 1, &end, 10);
        t->kind = L_RAW;
        if (*end || end == colon + 1 ||
            !(f[10] == 't' ? torch_dtype((uint32_t)i, &t->dtype) : numpy_dtype((uint32_t)i, &t->dtype)))
            return la_reader_set_error(r, "index.json: data format '%s': not a dtype labelaudit "
                                       "reads", f);
        return 0;
    }
    if (t->tokens)
        return la_reader_set_error(r, "index.json: TokensLoader data in '%s' format (litdata reads "
                                   "only no_header_tensor and no_header_numpy)", f);
    t->kind = L_SCALAR;
    if (strcmp(f, "int") == 0)
        t->dtype = LA_DT_INT64;
    else if (strcmp(f, "float") == 0)
        t->dtype = LA_DT_FLOAT64;
    else if (strcmp(f, "bool") == 0)
        t->dtype = LA_DT_BOOL;
    else if (strcmp(f, "tensor") == 0 || strcmp(f, "numpy") == 0)
        t->kind = f[0] == 't' ? L_TENSOR : L_NUMPY;
    else if (strcmp(f, "pickle") == 0)
        t->kind = L_PICKLE;
    else if (strcmp(f, "json") == 0)
        t->kind = L_JSON;
    else
        return la_reader_set_error(r, "the label %s '%s' is in litdata's %s format: not labels "
                                   "(int, tensor, numpy, json, no_header_* or pickle leaves are read)",
                                   r->info.has_column ? "key" : "leaf",
                                   r->info.has_column ? r->info.column : "", f);
    return 0;
}

/* config: the item loader, and what labelaudit cannot read, refused by name. */
static int read_config(struct la_reader *r, struct litdata_state *t, const cJSON *config)
{
    if (!cJSON_IsObject(config))
        return la_reader_set_error(r, "index.json: no \"config\" object (not a LitData index)");
    const cJSON *loader = cJSON_GetObjectItemCaseSensitive(config, "item_loader");
    const cJSON *enc = cJSON_GetObjectItemCaseSensitive(config, "encryption");
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(config, "compression_level");
    const char *name = cJSON_IsString(loader) ? loader->valuestring : "PyTreeLoader";
    if (strcmp(name, "TokensLoader") == 0)
        t->tokens = r->info.token_stream = 1;
    else if (strcmp(name, "PyTreeLoader") != 0)
        return la_reader_set_error(r, "index.json: item loader %s (labelaudit reads the "
                                   "PyTreeLoader's and the TokensLoader's chunks)", name);
    if (enc && !cJSON_IsNull(enc))
        return la_reader_set_error(r, "index.json: the chunks are encrypted");
    /* "batch" (optimize(compression="zstd")'s default): framed zstd chunks */
    t->framed = cJSON_IsString(level) && strcmp(level->valuestring, "batch") == 0;
    if (t->framed && t->tokens)
        return la_reader_set_error(r, "index.json: TokensLoader chunks in framed zstd "
                                   "(litdata writes those only for the PyTreeLoader)");
    if (cJSON_IsString(level) && strcmp(level->valuestring, "sample") == 0)
        return la_reader_set_error(r, "index.json: compression inside the chunks (level %s): "
                                   "write them with compression_level \"batch\" or \"chunk\", "
                                   "or none", level->valuestring);
    if (choose_leaf(r, t, config) != 0 || parse_format(r, t) != 0)
        return -1;
    if (t->kind == L_SCALAR || t->kind == L_RAW)
        r->info.dtype = t->dtype;
    return 0;
}

/* A compressed chunk (chunk-0-0.zstd.bin) that litdata's reader has
 * decompressed beside it, where it was read before: chunk-0-0.bin. */
static char *decompressed_name(const char *name, const cJSON *config)
{
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(config, "compression");
    char ext[40];
    if (!cJSON_IsString(comp) || !comp->valuestring[0] || strlen(comp->valuestring) > 32)
        return NULL;
    snprintf(ext, sizeof ext, ".%s", comp->valuestring);
    const char *at = strstr(name, ext);
    char *plain = at ? malloc(strlen(name) + 1) : NULL;
    if (plain) {
        memcpy(plain, name, (size_t)(at - name));
        strcpy(plain + (at - name), at + strlen(ext));
    }
    return plain;
}

/* The file of chunk name: itself, else its decompressed copy. */
static int chunk_file(const char *dir, const char *name, const cJSON *config,
                      struct la_shard *sh)
{
    if (!(sh->path = la_shards_join(dir, name)) || !(sh->name = strdup(name)))
        return -1;
    char *plain = access(sh->path, F_OK) != 0 ? decompressed_name(name, config) : NULL;
    char *path = plain ? la_shards_join(dir, plain) : NULL;
    if (path && access(path, F_OK) == 0) {
        free(sh->path);
        free(sh->name);
        sh->path = path;
        sh->name = plain;
        return 0;
    }
    free(path);
    free(plain);
    return 0;
}

static int read_chunks(struct la_reader *r, const cJSON *root, const char *dir,
                       struct la_shard **shards, size_t *n)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "chunks");
    if (!cJSON_IsArray(list))
        return la_reader_set_error(r, "index.json: no \"chunks\" list (not a LitData index)");
    size_t count = (size_t)cJSON_GetArraySize(list), i = 0;
    if (!(*shards = calloc(count ? count : 1, sizeof **shards)))
        return la_reader_set_error(r, "out of memory");
    for (const cJSON *c = list->child; c; c = c->next, i++) {
        *n = i + 1;
        const cJSON *file = cJSON_GetObjectItemCaseSensitive(c, "filename");
        const cJSON *size = cJSON_GetObjectItemCaseSensitive(c, "chunk_size");
        if (!cJSON_IsString(file) || !cJSON_IsNumber(size) || size->valuedouble < 0 ||
            size->valuedouble > 4294967295.0 ||
            size->valuedouble != (double)(uint64_t)size->valuedouble)
            return la_reader_set_error(r, "index.json: chunk %zu: no filename and chunk_size", i);
        struct la_shard *sh = &(*shards)[i];
        sh->samples = (uint64_t)size->valuedouble;
        const cJSON *dim = cJSON_GetObjectItemCaseSensitive(c, "dim");   /* TokensLoader: ids */
        sh->has_dim = cJSON_IsNumber(dim) && dim->valuedouble >= 0 &&
                      dim->valuedouble < 18446744073709551616.0 &&
                      dim->valuedouble == (double)(uint64_t)dim->valuedouble;
        sh->dim = sh->has_dim ? (uint64_t)dim->valuedouble : 0;
        if (chunk_file(dir, file->valuestring,
                       cJSON_GetObjectItemCaseSensitive(root, "config"), sh) != 0)
            return la_reader_set_error(r, "index.json: chunk %zu: file name '%s' is not inside "
                                       "the folder", i, file->valuestring);
    }
    *n = i;
    return 0;
}

static int describe(struct la_reader *r, struct litdata_state *t, size_t n_chunks)
{
    uint64_t samples = la_shards_samples(t->engine);
    const char *loader = t->tokens ? "TokensLoader" : "PyTreeLoader";
    if (r->info.has_column)
        cJSON_AddStringToObject(r->notes->json, "key", r->info.column);
    cJSON_AddNumberToObject(r->notes->json, "leaf", (double)t->leaf);
    cJSON_AddStringToObject(r->notes->json, "data_format", t->format);
    cJSON_AddStringToObject(r->notes->json, "item_loader", loader);
    cJSON_AddNumberToObject(r->notes->json, "chunks", (double)n_chunks);
    cJSON_AddNumberToObject(r->notes->json, "items", (double)samples);
    if (la_notes_line(r->notes, "  %s%s%sleaf %zu (%s, %s), %zu %s, %llu %s",
                      r->info.has_column ? "key " : "", r->info.has_column ? r->info.column : "",
                      r->info.has_column ? ", " : "", t->leaf, t->format, loader, n_chunks,
                      n_chunks == 1 ? "chunk" : "chunks", (unsigned long long)samples,
                      samples == 1 ? "item" : "items") != 0)
        return la_reader_set_error(r, "out of memory");
    if (!t->block)
        return 0;
    uint64_t blocks = r->info.shape[0] / t->block;
    cJSON_AddNumberToObject(r->notes->json, "blocks", (double)blocks);
    cJSON_AddNumberToObject(r->notes->json, "ids_after_blocks", (double)t->dropped);
    if (la_notes_line(r->notes, "  the TokensLoader's blocks of %llu are the samples: %llu, "
                      "each chunk's own (%llu %s after a chunk's last block, which litdata "
                      "never reads, left out)", (unsigned long long)t->block,
                      (unsigned long long)blocks, (unsigned long long)t->dropped,
                      t->dropped == 1 ? "id" : "ids") != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

/* TokensLoader cuts its blocks across items: a long item is no crash. */
#define TOKENS_FIX "TokensLoader cuts blocks across items, so these alone do not crash; " \
                   "give --seq-len (its block_size) to check the blocks"

/* The lengths against the model's position table (columns.h). TokensLoader
 * items: with --seq-len L the blocks, which litgpt sizes max_seq_length + 1
 * and shifts into x and y (L - 1 positions); without it, each item, a
 * warning at most. Other items, fed whole: where the key is a column of
 * token ids. */
static int check_lengths(struct la_reader *r, struct litdata_state *t)
{
    const struct la_column_plan *plan = la_read_opts_or_default(r->opts)->columns;
    if (!plan || plan->model.length == LA_LEN_NONE)
        return 0;
    r->notes->blocks_checked = t->block != 0;
    if (t->block)
        return la_column_check_blocks(plan, t->block, r->info.shape[0] / t->block, t->block,
                                      LA_FEED_SHIFTED, r->notes) == 0
                   ? 0 : la_reader_set_error(r, "out of memory");
    if (!t->tokens && !(r->info.has_column && la_column_plan_ids(plan, r->info.column)))
        return 0;
    struct la_column_check *c = la_column_check_stream(plan, t->tokens ? "" : r->info.column,
                                                       t->tokens ? "item" : "sample",
                                                       t->tokens ? TOKENS_FIX : NULL);
    if (!c)
        return la_reader_set_error(r, "out of memory");
    la_shards_lengths(t->engine, c, 0);
    return 0;
}

static int litdata_open(struct la_reader *r)
{
    struct litdata_state *t = calloc(1, sizeof *t);
    if (!t || !r->notes || !(r->notes->json = cJSON_CreateObject())) {
        free(t);
        return la_reader_set_error(r, "out of memory");
    }
    r->state = t;
    r->info.dtype = LA_DT_INT64;
    r->info.ndim = 1;
    char *dir = NULL;
    cJSON *root = la_shards_load_index(r, &dir);
    struct la_shard *shards = NULL;
    size_t n = 0;
    int rc = -1;
    if (!root || read_config(r, t, cJSON_GetObjectItemCaseSensitive(root, "config")) != 0 ||
        read_chunks(r, root, dir, &shards, &n) != 0)
        goto done;
    t->engine = la_shards_open(r, shards, n, 0, litdata_decode, t);
    shards = NULL;
    if (t->engine && t->framed)
        la_shards_framed(t->engine);
    /* --seq-len L: litdata's StreamingDataset(item_loader=TokensLoader(block_size=L))
     * yields each chunk's dim // L blocks; the items are no samples then */
    t->block = t->tokens ? la_read_opts_or_default(r->opts)->seq_len : 0;
    rc = t->engine && (!t->block || la_shards_blocks(r, t->engine, t->block, &t->dropped) == 0)
             ? check_lengths(r, t) : -1;
    rc = rc == 0 ? describe(r, t, n) : -1;
done:
    la_shards_free_list(shards, n);
    cJSON_Delete(root);
    free(dir);
    return rc;
}

static int litdata_next(struct la_reader *r, struct la_chunk *out)
{
    struct litdata_state *t = r->state;
    return la_shards_next(r, t->engine, out);
}

static void litdata_close(struct la_reader *r)
{
    struct litdata_state *t = r->state;
    if (!t)
        return;
    la_shards_close(t->engine);
    la_shard_scratch_free(&t->scratch);
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_litdata = { litdata_open, litdata_next, litdata_close };
