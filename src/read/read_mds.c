/* read_mds.c - MosaicML streaming (MDS) datasets: a folder whose index.json
 * lists shard.NNNNN.mds files (or their .zstd/.gz/.bz2 compressed forms),
 * as streaming's MDSWriter writes them. One MDS sample is one sample; its
 * values are the label column's (-c): an integer, or an ndarray of them
 * (token ids), or a pkl/json column holding an int or a list of ints.
 *
 * The layout, from streaming/base/format/mds (writer.py, encodings.py): a
 * shard is the container shards.h reads, its config JSON after the offsets
 * table; a sample is uint32 sizes of its variable-size columns (in column
 * order), then each column's bytes. An ndarray column is
 * [dtype code: 1 byte, when the encoding names no dtype]
 * [ndim << 2 | shape width code: 1 byte, shape: ndim uints, when it names no shape]
 * then the values, little-endian. */
#include "config.h"
#include "reader.h"
#include "label_notes.h"
#include "columns.h"  /* a column of token ids against the position table */
#include "shards.h"
#include "shard_values.h"
#include "util.h"    /* la_mul_overflow, la_strtoi64 */

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, free, strtoull */
#include <string.h>  /* memchr, memcpy, strchr, strcmp, strdup, strlen, strncmp */
#include <unistd.h>  /* access */

#define MAX_COLUMNS 256

enum kind { K_SCALAR, K_NDARRAY, K_PKL, K_JSON, K_STR_INT };

/* What an ndarray encoding says of its values (NDArray.from_str). */
struct nd_enc {
    enum la_dtype dtype;          /* when has_dtype */
    int has_dtype, has_shape;
    uint64_t shape_numel;         /* with a shape in the encoding */
};

/* A column of the plan's (columns.h) that the samples hold: an integer
 * scalar, or an ndarray (its values to int64 for the check). */
struct mds_col {
    long col;
    int scalar;
    enum la_dtype dtype;          /* scalar's */
    struct nd_enc nd;
};

/* The check of every plan column the samples hold, fed sample by sample as
 * the engine decodes them (in order: row is the dataset's sample). */
struct mds_cols {
    struct la_column_check *check;   /* the engine's to finish */
    struct mds_col cols[LA_COLUMNS_MAX];
    size_t n;
    uint64_t row;
    int64_t *buf;
    size_t cap;
};

#define MDS_ROW_MAX (1u << 24)   /* values of one column of one sample converted for the check */

struct mds_state {
    struct la_shards *engine;
    size_t n_cols;
    char *names[MAX_COLUMNS];
    int64_t sizes[MAX_COLUMNS];   /* -1: variable (a uint32 in the sample's head) */
    long col;                     /* the label column */
    enum kind kind;
    enum la_dtype dtype;          /* scalar; ndarray when nd.has_dtype */
    struct nd_enc nd;
    /* the column of token ids whose count is a sample's length, held to the
     * model's position table (columns.h): the label column itself, or
     * another ndarray column (len_nd), or -1 */
    long len_col;
    struct nd_enc len_nd;
    struct mds_cols cc;           /* or, where plan columns are present, all of them */
    char encoding[64];
    struct la_shard_scratch scratch;
    int64_t str_int;
};

/* The scalar encodings: streaming's Int ("int", int64) and its numpy scalars. */
static int scalar_dtype(const char *enc, enum la_dtype *dt)
{
    if (strcmp(enc, "int") == 0) {
        *dt = LA_DT_INT64;
        return 1;
    }
    static const char *const names[] = { "uint8", "uint16", "uint32", "uint64", "int8", "int16",
                                         "int32", "int64", "float16", "float32", "float64" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(enc, names[i]) == 0)
            return la_dtype_from_name(enc, dt) == 0;
    return 0;
}

/* NDArray's value dtype codes (encodings.py _int2value_dtype). */
static int ndarray_code_dtype(unsigned code, enum la_dtype *dt)
{
    switch (code) {
    case 8: *dt = LA_DT_UINT8; return 1;
    case 9: *dt = LA_DT_INT8; return 1;
    case 16: *dt = LA_DT_UINT16; return 1;
    case 17: *dt = LA_DT_INT16; return 1;
    case 18: *dt = LA_DT_FLOAT16; return 1;
    case 32: *dt = LA_DT_UINT32; return 1;
    case 33: *dt = LA_DT_INT32; return 1;
    case 34: *dt = LA_DT_FLOAT32; return 1;
    case 64: *dt = LA_DT_UINT64; return 1;
    case 65: *dt = LA_DT_INT64; return 1;
    case 66: *dt = LA_DT_FLOAT64; return 1;
    default: return 0;
    }
}

/* "ndarray", "ndarray:DTYPE", "ndarray:DTYPE:D0,D1,..." (NDArray.from_str). */
static int parse_ndarray(struct la_reader *r, struct nd_enc *t, const char *enc)
{
    if (!enc[7])
        return 0;
    const char *dt = enc + 8, *colon = strchr(dt, ':');
    char name[16];
    size_t n = colon ? (size_t)(colon - dt) : strlen(dt);
    if (enc[7] != ':' || n == 0 || n >= sizeof name)
        return la_reader_set_error(r, "index.json: column encoding '%s' is not ndarray's", enc);
    memcpy(name, dt, n);
    name[n] = '\0';
    enum la_dtype d;
    if (!scalar_dtype(name, &d) || strcmp(name, "int") == 0)
        return la_reader_set_error(r, "index.json: column encoding '%s': unknown dtype", enc);
    t->dtype = d;
    t->has_dtype = 1;
    if (!colon)
        return 0;
    t->has_shape = 1;
    t->shape_numel = 1;
    for (const char *p = colon + 1;;) {
        char *end;
        unsigned long long dim = strtoull(p, &end, 10);
        if (end == p || dim == 0 || la_mul_overflow(t->shape_numel, dim, &t->shape_numel))
            return la_reader_set_error(r, "index.json: column encoding '%s': bad shape", enc);
        if (*end == '\0')
            return 0;
        if (*end != ',')
            return la_reader_set_error(r, "index.json: column encoding '%s': bad shape", enc);
        p = end + 1;
    }
}

static int parse_encoding(struct la_reader *r, struct mds_state *t, const char *enc)
{
    snprintf(t->encoding, sizeof t->encoding, "%s", enc);
    if (scalar_dtype(enc, &t->dtype)) {
        t->kind = K_SCALAR;
        return 0;
    }
    if (strncmp(enc, "ndarray", 7) == 0) {
        t->kind = K_NDARRAY;
        if (parse_ndarray(r, &t->nd, enc) != 0)
            return -1;
        t->dtype = t->nd.dtype;
        return 0;
    }
    if (strcmp(enc, "pkl") == 0 || strcmp(enc, "json") == 0 || strcmp(enc, "str_int") == 0) {
        t->kind = enc[0] == 'p' ? K_PKL : enc[0] == 'j' ? K_JSON : K_STR_INT;
        return 0;
    }
    return la_reader_set_error(r, "column '%s' is %s-encoded: not labels (an int, ndarray, "
                               "pkl, json or str_int column is read)", t->names[t->col], enc);
}

/* Where the label column lies in a sample: its offset and size. */
static int find_column(const struct mds_state *t, long col, const unsigned char *item,
                       size_t len, size_t *at, size_t *size, char *why, size_t whylen)
{
    size_t head = 0;
    for (size_t c = 0; c < t->n_cols; c++)
        head += t->sizes[c] < 0 ? 4 : 0;
    if (head > len) {
        snprintf(why, whylen, "%zu bytes, fewer than its %zu-byte head of column sizes", len, head);
        return -1;
    }
    size_t pos = head, k = 0;
    for (size_t c = 0; c <= (size_t)col; c++) {
        uint64_t sz = t->sizes[c] >= 0 ? (uint64_t)t->sizes[c]
                    : (uint64_t)item[k] | (uint64_t)item[k + 1] << 8 |
                      (uint64_t)item[k + 2] << 16 | (uint64_t)item[k + 3] << 24;
        k += t->sizes[c] < 0 ? 4 : 0;
        if (sz > len - pos) {
            snprintf(why, whylen, "column '%s' (%llu bytes) runs past the sample's end "
                     "(%zu bytes)", t->names[c], (unsigned long long)sz, len);
            return -1;
        }
        *at = pos;
        *size = (size_t)sz;
        pos += (size_t)sz;
    }
    return 0;
}

static int decode_ndarray(const struct nd_enc *t, const unsigned char *p, size_t n,
                          struct la_shard_values *out, char *why, size_t whylen)
{
    enum la_dtype dt = t->dtype;
    size_t at = 0;
    if (!t->has_dtype && (n < 1 || !ndarray_code_dtype(p[at++], &dt))) {
        snprintf(why, whylen, n < 1 ? "an empty ndarray" : "ndarray dtype code %u is none of "
                 "streaming's", n ? p[0] : 0u);
        return -1;
    }
    uint64_t numel = t->shape_numel;
    if (!t->has_shape) {
        if (at >= n) {
            snprintf(why, whylen, "the ndarray ends before its shape");
            return -1;
        }
        unsigned ndim = p[at] >> 2, width = 1u << (p[at] & 3);
        at++;
        if ((uint64_t)ndim * width > n - at) {
            snprintf(why, whylen, "the ndarray's shape (%u axes) runs past its end", ndim);
            return -1;
        }
        numel = 1;
        for (unsigned d = 0; d < ndim; d++, at += width) {
            uint64_t dim = 0;
            for (unsigned b = 0; b < width; b++)
                dim |= (uint64_t)p[at + b] << (8 * b);
            if (la_mul_overflow(numel, dim, &numel))
                numel = UINT64_MAX;
        }
    }
    size_t esize = la_dtype_info(dt)->size;
    if ((n - at) % esize != 0 || (n - at) / esize != numel) {
        snprintf(why, whylen, "the ndarray holds %zu bytes of %s, its shape says %llu values "
                 "(numpy's reshape fails)", n - at, la_dtype_info(dt)->name,
                 (unsigned long long)numel);
        return -1;
    }
    *out = (struct la_shard_values){ .dtype = dt, .values = p + at, .n = numel,
                                     .little_endian = 1 };
    return 0;
}

/* str_int: Python's int() of the UTF-8 text. */
static int decode_str_int(struct mds_state *t, const unsigned char *p, size_t n,
                          struct la_shard_values *out, char *why, size_t whylen)
{
    char text[32];
    size_t b = 0, e = n;
    while (b < e && (p[b] == ' ' || p[b] == '\t' || p[b] == '\n' || p[b] == '\r'))
        b++;
    while (e > b && (p[e - 1] == ' ' || p[e - 1] == '\t' || p[e - 1] == '\n' || p[e - 1] == '\r'))
        e--;
    if (e - b >= sizeof text || e == b) {
        snprintf(why, whylen, "str_int text of %zu bytes is no int64", n);
        return -1;
    }
    memcpy(text, p + b, e - b);
    text[e - b] = '\0';
    if (memchr(text, '\0', e - b) || la_strtoi64(text[0] == '+' ? text + 1 : text, &t->str_int) != 0) {
        snprintf(why, whylen, "str_int text '%s' is no int64", la_one_line(text));
        return -1;
    }
    *out = (struct la_shard_values){ .dtype = LA_DT_INT64, .values = &t->str_int, .n = 1 };
    return 0;
}

static int decode_label(struct mds_state *t, const unsigned char *item, size_t len,
                        struct la_shard_values *out, char *why, size_t whylen)
{
    size_t at, n;
    if (find_column(t, t->col, item, len, &at, &n, why, whylen) != 0)
        return -1;
    const unsigned char *p = item + at;
    switch (t->kind) {
    case K_SCALAR:
        if (n != la_dtype_info(t->dtype)->size) {
            snprintf(why, whylen, "column '%s' holds %zu bytes, not one %s", t->names[t->col], n,
                     la_dtype_info(t->dtype)->name);
            return -1;
        }
        *out = (struct la_shard_values){ .dtype = t->dtype, .values = p, .n = 1,
                                         .little_endian = 1 };
        return 0;
    case K_NDARRAY:
        return decode_ndarray(&t->nd, p, n, out, why, whylen);
    case K_PKL:
        return la_shard_pickle(&t->scratch, p, n, out, why, whylen);
    case K_JSON:
        return la_shard_json(&t->scratch, p, n, out, why, whylen);
    case K_STR_INT:
        return decode_str_int(t, p, n, out, why, whylen);
    }
    return -1;
}

/* v's values as int64 in cc->buf (unsigned past INT64_MAX: INT64_MAX, out of
 * every table). @return 0, or -1 with why. */
static int to_int64(struct mds_cols *cc, const struct la_shard_values *v, const char *name,
                    char *why, size_t whylen)
{
    if (v->n > MDS_ROW_MAX) {
        snprintf(why, whylen, "column '%s' holds %llu values in one sample, more than the %u "
                 "labelaudit checks beside the labels", name, (unsigned long long)v->n,
                 MDS_ROW_MAX);
        return -1;
    }
    if (v->n > cc->cap) {
        int64_t *b = realloc(cc->buf, (size_t)v->n * sizeof *b);
        if (!b) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        cc->buf = b;
        cc->cap = (size_t)v->n;
    }
    const struct la_dtype_info *d = la_dtype_info(v->dtype);
    const unsigned char *p = v->values;
    for (size_t k = 0; k < (size_t)v->n; k++, p += d->size) {
        uint64_t u = 0;
        for (unsigned b = 0; b < d->size; b++)
            u |= (uint64_t)p[b] << (8 * b);
        if (d->kind == 'i' && d->size < 8 && (u >> (8 * d->size - 1)) & 1)
            u |= ~(uint64_t)0 << (8 * d->size);          /* sign-extend */
        cc->buf[k] = d->kind == 'u' && u > (uint64_t)INT64_MAX ? INT64_MAX
                   : d->kind == 'b' ? (int64_t)(u != 0) : (int64_t)u;
    }
    return 0;
}

/* One sample's plan columns into the check, then its row. */
static int feed_columns(struct mds_state *t, const unsigned char *item, size_t len, char *why,
                        size_t whylen)
{
    struct mds_cols *cc = &t->cc;
    for (size_t i = 0; i < cc->n; i++) {
        const struct mds_col *m = &cc->cols[i];
        size_t at, n;
        struct la_shard_values v;
        if (find_column(t, m->col, item, len, &at, &n, why, whylen) != 0)
            return -1;
        if (m->scalar && n != la_dtype_info(m->dtype)->size) {
            snprintf(why, whylen, "column '%s' holds %zu bytes, not one %s", t->names[m->col], n,
                     la_dtype_info(m->dtype)->name);
            return -1;
        }
        if (m->scalar)
            v = (struct la_shard_values){ .dtype = m->dtype, .values = item + at, .n = 1,
                                          .little_endian = 1 };
        else if (decode_ndarray(&m->nd, item + at, n, &v, why, whylen) != 0)
            return -1;
        if (la_dtype_is_float(v.dtype)) {   /* no ids: a null row, as Arrow's floats are */
            la_column_check_values(cc->check, i, cc->row, NULL, 0);
            continue;
        }
        if (to_int64(cc, &v, t->names[m->col], why, whylen) != 0)
            return -1;
        la_column_check_values(cc->check, i, cc->row, cc->buf, (size_t)v.n);
    }
    la_column_check_row(cc->check, cc->row++);
    return 0;
}

/* A sample: its label column's values, and where another column holds
 * its token ids, their count (every length checked as the label's are). */
static int mds_decode(void *ctx, const unsigned char *item, size_t len,
                      struct la_shard_values *out, char *why, size_t whylen)
{
    struct mds_state *t = ctx;
    uint64_t length = 0;
    if (t->cc.check && feed_columns(t, item, len, why, whylen) != 0)
        return -1;
    if (t->len_col >= 0 && t->len_col != t->col) {
        size_t at, n;
        struct la_shard_values ids;
        if (find_column(t, t->len_col, item, len, &at, &n, why, whylen) != 0)
            return -1;
        if (decode_ndarray(&t->len_nd, item + at, n, &ids, why, whylen) != 0)
            return -1;
        length = ids.n;
    }
    if (decode_label(t, item, len, out, why, whylen) != 0)
        return -1;
    out->has_length = t->len_col >= 0 && t->len_col != t->col;
    out->length = length;
    return 0;
}

/* One shard's columns: the first shard's are kept, the others must match. */
static int read_columns(struct la_reader *r, struct mds_state *t, const cJSON *sh, size_t i)
{
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(sh, "column_names");
    const cJSON *encs = cJSON_GetObjectItemCaseSensitive(sh, "column_encodings");
    const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(sh, "column_sizes");
    int n = cJSON_GetArraySize(names);
    if (!cJSON_IsArray(names) || !cJSON_IsArray(encs) || !cJSON_IsArray(sizes) ||
        cJSON_GetArraySize(encs) != n || cJSON_GetArraySize(sizes) != n || n < 1 ||
        n > MAX_COLUMNS)
        return la_reader_set_error(r, "index.json: shard %zu: column_names, column_encodings "
                                   "and column_sizes are not lists of one length (1 to %d)",
                                   i, MAX_COLUMNS);
    if (i > 0 && (size_t)n != t->n_cols)
        return la_reader_set_error(r, "index.json: shard %zu's columns differ from shard 0's", i);
    for (int c = 0; c < n; c++) {
        const cJSON *nm = cJSON_GetArrayItem(names, c), *sz = cJSON_GetArrayItem(sizes, c);
        const cJSON *en = cJSON_GetArrayItem(encs, c);
        int64_t size = cJSON_IsNull(sz) ? -1 : cJSON_IsNumber(sz) && sz->valuedouble >= 0 &&
                       sz->valuedouble < 4294967296.0 ? (int64_t)sz->valuedouble : -2;
        if (!cJSON_IsString(nm) || !cJSON_IsString(en) || size == -2)
            return la_reader_set_error(r, "index.json: shard %zu: column %d is not a name, an "
                                       "encoding and a size (or null)", i, c);
        if (i == 0) {
            if (!(t->names[c] = strdup(nm->valuestring)))
                return la_reader_set_error(r, "out of memory");
            t->sizes[c] = size;
            t->n_cols = (size_t)c + 1;
        } else if (strcmp(t->names[c], nm->valuestring) != 0 || t->sizes[c] != size) {
            return la_reader_set_error(r, "index.json: shard %zu's columns differ from shard 0's",
                                       i);
        }
    }
    return 0;
}

/* The file of one shard: its raw basename when that exists, else its
 * compressed one (zip_data), which the source decompresses. */
static int shard_file(struct la_reader *r, const char *dir, const cJSON *sh, size_t i,
                      struct la_shard *out)
{
    const cJSON *raw = cJSON_GetObjectItemCaseSensitive(sh, "raw_data");
    const cJSON *zip = cJSON_GetObjectItemCaseSensitive(sh, "zip_data");
    const cJSON *rb = cJSON_GetObjectItemCaseSensitive(raw, "basename");
    const cJSON *zb = cJSON_GetObjectItemCaseSensitive(zip, "basename");
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(sh, "compression");
    const char *name = cJSON_IsString(rb) ? rb->valuestring : NULL;
    if (!name && !cJSON_IsString(zb))
        return la_reader_set_error(r, "index.json: shard %zu names no file (raw_data.basename)", i);
    char *path = name ? la_shards_join(dir, name) : NULL;
    if (cJSON_IsString(zb) && (!path || access(path, F_OK) != 0)) {
        const char *c = cJSON_IsString(comp) ? comp->valuestring : "";
        free(path);
        if (strncmp(c, "br", 2) == 0 || strncmp(c, "snappy", 6) == 0)
            return la_reader_set_error(r, "%s: %s-compressed (labelaudit reads zstd, gz and "
                                       "bz2 shards): decompress it first", zb->valuestring, c);
        name = zb->valuestring;
        path = la_shards_join(dir, name);
    }
    if (!path || !(out->name = strdup(name))) {
        free(path);
        return la_reader_set_error(r, "index.json: shard %zu: file name '%s' is not inside the "
                                   "folder", i, name);
    }
    out->path = path;
    return 0;
}

static int read_shards(struct la_reader *r, struct mds_state *t, const cJSON *root,
                       const char *dir, struct la_shard **shards, size_t *n)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "shards");
    if (!cJSON_IsArray(list))
        return la_reader_set_error(r, "index.json: no \"shards\" list (not an MDS index)");
    size_t count = (size_t)cJSON_GetArraySize(list), i = 0;
    if (!(*shards = calloc(count ? count : 1, sizeof **shards)))
        return la_reader_set_error(r, "out of memory");
    for (const cJSON *sh = list->child; sh; sh = sh->next, i++) {
        *n = i + 1;
        const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(sh, "format");
        const cJSON *samples = cJSON_GetObjectItemCaseSensitive(sh, "samples");
        if (!cJSON_IsObject(sh) || !cJSON_IsString(fmt))
            return la_reader_set_error(r, "index.json: shard %zu is not an object with a format", i);
        if (strcmp(fmt->valuestring, "mds") != 0)
            return la_reader_set_error(r, "index.json: shard %zu is in streaming's %s format "
                                       "(labelaudit reads mds shards)", i, fmt->valuestring);
        if (!cJSON_IsNumber(samples) || samples->valuedouble < 0 ||
            samples->valuedouble > 4294967295.0 ||
            samples->valuedouble != (double)(uint64_t)samples->valuedouble)
            return la_reader_set_error(r, "index.json: shard %zu: samples is not a count", i);
        (*shards)[i].samples = (uint64_t)samples->valuedouble;
        if (read_columns(r, t, sh, i) != 0 || shard_file(r, dir, sh, i, &(*shards)[i]) != 0)
            return -1;
    }
    *n = i;
    return 0;
}

static int choose_column(struct la_reader *r, struct mds_state *t, const cJSON *root)
{
    const char *want = la_read_opts_or_default(r->opts)->column;
    char list[512];
    la_shard_column_list((const char *const *)t->names, t->n_cols, list, sizeof list);
    if ((t->col = la_shard_pick_column((const char *const *)t->names, t->n_cols, want)) < 0)
        return want ? la_reader_set_error(r, "no column '%s' (the columns: %s)", want, list)
                    : la_reader_set_error(r, "no label column among %s: name one with -c", list);
    const cJSON *sh = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "shards"), 0);
    const cJSON *encs = cJSON_GetObjectItemCaseSensitive(sh, "column_encodings");
    const char *enc = cJSON_GetArrayItem(encs, (int)t->col)->valuestring;
    for (const cJSON *s = sh; s; s = s->next) {   /* every shard encodes it alike */
        const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "column_encodings"),
                                            (int)t->col);
        if (strcmp(e->valuestring, enc) != 0)
            return la_reader_set_error(r, "index.json: column '%s' is %s in one shard, %s in "
                                       "another", t->names[t->col], enc, e->valuestring);
    }
    snprintf(t->encoding, sizeof t->encoding, "%s", enc);
    la_one_line(t->encoding);
    snprintf(r->info.column, sizeof r->info.column, "%s", t->names[t->col]);
    la_one_line(r->info.column);
    r->info.has_column = 1;
    return parse_encoding(r, t, enc);
}

/* The column of token ids (input_ids, a column --columns gives that role,
 * llm-foundry's `tokens`), if any: the label column when it is one and holds
 * lists, else the first ndarray column so named. */
static long ids_column(const struct la_column_plan *plan, const struct mds_state *t,
                       const cJSON *encs)
{
    for (size_t c = 0; c < t->n_cols; c++) {
        if (!la_column_plan_ids(plan, t->names[c]) && strcmp(t->names[c], "tokens") != 0)
            continue;
        if ((long)c == t->col)
            return t->kind == K_SCALAR || t->kind == K_STR_INT ? -1 : (long)c;
        const cJSON *e = cJSON_GetArrayItem(encs, (int)c);
        if (cJSON_IsString(e) && strncmp(e->valuestring, "ndarray", 7) == 0)
            return (long)c;
    }
    return -1;
}

/* Column c's encoding as a plan column: 1 read (an integer scalar, an
 * ndarray), 0 not read (a note says so), -1 a bad encoding (r->err). */
static int plan_column(struct la_reader *r, const char *enc, const char *name,
                       struct mds_col *m)
{
    enum la_dtype dt;
    if (scalar_dtype(enc, &dt) && !la_dtype_is_float(dt)) {
        m->scalar = 1;
        m->dtype = dt;
        return 1;
    }
    if (strncmp(enc, "ndarray", 7) == 0) {
        if (parse_ndarray(r, &m->nd, enc) != 0)
            return -1;
        if (!m->nd.has_dtype || !la_dtype_is_float(m->nd.dtype))
            return 1;
    }
    char what[64];
    snprintf(what, sizeof what, "%s", enc);
    if (la_notes_line(r->notes, "  column '%s' is %s: not checked (its table takes integer ids; "
                      "labelaudit reads int and ndarray columns beside the labels)", name,
                      la_one_line(what)) != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

/* The check of the plan's columns that the samples hold, or none. A column
 * must be encoded alike in every shard, as the label column is. */
static int plan_columns(struct la_reader *r, struct mds_state *t, const cJSON *root,
                        const struct la_column_plan *plan)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "shards");
    const cJSON *encs = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, 0),
                                                         "column_encodings");
    int rules[LA_COLUMNS_MAX];
    struct mds_cols *cc = &t->cc;
    for (size_t c = 0; c < t->n_cols && cc->n < LA_COLUMNS_MAX; c++) {
        int rule = la_column_plan_find(plan, t->names[c]);
        if (rule < 0)
            continue;
        const char *enc = cJSON_GetArrayItem(encs, (int)c)->valuestring;
        for (const cJSON *sh = list->child; sh; sh = sh->next) {
            const cJSON *e = cJSON_GetArrayItem(
                cJSON_GetObjectItemCaseSensitive(sh, "column_encodings"), (int)c);
            if (strcmp(e->valuestring, enc) != 0)
                return la_reader_set_error(r, "index.json: column '%s' is %s in one shard, %s "
                                           "in another", t->names[c], enc, e->valuestring);
        }
        struct mds_col m = { .col = (long)c };
        int ok = plan_column(r, enc, t->names[c], &m);
        if (ok < 0)
            return -1;
        if (ok) {
            rules[cc->n] = rule;
            cc->cols[cc->n++] = m;
        }
    }
    if (!cc->n)
        return 0;
    int primary = la_column_plan_find(plan, t->names[t->col]);
    if (!(cc->check = la_column_check_new(plan, rules, cc->n, primary)))
        return la_reader_set_error(r, "out of memory");
    la_column_check_unit(cc->check, "sample");
    for (size_t i = 0; i < cc->n; i++) {
        const struct mds_col *m = &cc->cols[i];
        const char *dt = m->scalar ? la_dtype_info(m->dtype)->name
                       : m->nd.has_dtype ? la_dtype_info(m->nd.dtype)->name : "ndarray";
        la_column_check_dtype(cc->check, i, dt, !m->scalar);
    }
    la_shards_lengths(t->engine, cc->check, 1);
    return 0;
}

/* Each sample's length against the model's position table (columns.h), as
 * the engine reads it. A sample is fed whole (llm-foundry's concatenated
 * `tokens` of max_seq_len): past the table is the model's severity. */
static int check_lengths(struct la_reader *r, struct mds_state *t, const cJSON *root)
{
    const struct la_column_plan *plan = la_read_opts_or_default(r->opts)->columns;
    t->len_col = -1;
    if (!plan || !plan->n)
        return 0;
    if (plan_columns(r, t, root, plan) != 0)
        return -1;
    if (t->cc.check || plan->model.length == LA_LEN_NONE)   /* the check measures the rows */
        return 0;
    const cJSON *sh = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "shards"), 0);
    const cJSON *encs = cJSON_GetObjectItemCaseSensitive(sh, "column_encodings");
    long c = ids_column(plan, t, encs);
    if (c < 0)
        return 0;
    if (c != t->col) {   /* every shard encodes it alike, as the label column */
        const char *enc = cJSON_GetArrayItem(encs, (int)c)->valuestring;
        for (const cJSON *s = sh; s; s = s->next) {
            const cJSON *e = cJSON_GetArrayItem(
                cJSON_GetObjectItemCaseSensitive(s, "column_encodings"), (int)c);
            if (strcmp(e->valuestring, enc) != 0)
                return la_reader_set_error(r, "index.json: column '%s' is %s in one shard, %s "
                                           "in another", t->names[c], enc, e->valuestring);
        }
        if (parse_ndarray(r, &t->len_nd, enc) != 0)
            return -1;
    }
    char name[LA_COLUMN_NAME];
    snprintf(name, sizeof name, "%s", t->names[c]);
    struct la_column_check *check = la_column_check_stream(plan, la_one_line(name), "sample",
                                                           NULL);
    if (!check)
        return la_reader_set_error(r, "out of memory");
    t->len_col = c;
    la_shards_lengths(t->engine, check, 0);
    return 0;
}

static int describe(struct la_reader *r, struct mds_state *t, size_t n_shards)
{
    uint64_t samples = la_shards_samples(t->engine);
    cJSON_AddStringToObject(r->notes->json, "column", r->info.column);
    cJSON_AddStringToObject(r->notes->json, "encoding", t->encoding);
    cJSON_AddNumberToObject(r->notes->json, "shards", (double)n_shards);
    cJSON_AddNumberToObject(r->notes->json, "samples", (double)samples);
    if (la_notes_line(r->notes, "  column %s (%s), %zu %s, %llu %s", r->info.column, t->encoding,
                      n_shards, n_shards == 1 ? "shard" : "shards", (unsigned long long)samples,
                      samples == 1 ? "sample" : "samples") != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

static int mds_open(struct la_reader *r)
{
    struct mds_state *t = calloc(1, sizeof *t);
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
    if (!root || read_shards(r, t, root, dir, &shards, &n) != 0)
        goto done;
    if (n == 0) {
        rc = la_reader_set_error(r, "index.json lists no shards");
        goto done;
    }
    if (choose_column(r, t, root) != 0)
        goto done;
    if (t->kind == K_SCALAR || t->nd.has_dtype)
        r->info.dtype = t->dtype;
    t->engine = la_shards_open(r, shards, n, 1, mds_decode, t);
    shards = NULL;
    rc = t->engine ? check_lengths(r, t, root) : -1;
    rc = rc == 0 ? describe(r, t, n) : -1;
done:
    la_shards_free_list(shards, n);
    cJSON_Delete(root);
    free(dir);
    return rc;
}

static int mds_next(struct la_reader *r, struct la_chunk *out)
{
    struct mds_state *t = r->state;
    return la_shards_next(r, t->engine, out);
}

static void mds_close(struct la_reader *r)
{
    struct mds_state *t = r->state;
    if (!t)
        return;
    la_shards_close(t->engine);
    for (size_t c = 0; c < t->n_cols; c++)
        free(t->names[c]);
    la_shard_scratch_free(&t->scratch);
    free(t->cc.buf);   /* the check is the engine's */
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_mds = { mds_open, mds_next, mds_close };
