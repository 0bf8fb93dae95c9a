/* read_safetensors.c - Hugging Face safetensors files.
 *
 * The layout: an 8-byte little-endian header length N, N bytes of JSON
 * ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, ...,
 * "__metadata__": {...}}), then the tensors' bytes, little-endian, C order.
 * The header is parsed with cJSON and checked as the safetensors library
 * checks it: offsets that tile the data exactly, in order, each tensor's size
 * its shape times its dtype's, and a file that ends where the data does. A
 * header that lies is refused. The chosen tensor is then read like a .npy:
 * from a plain file it is offered to audit.c as a run to map in place, else
 * pulled through the source in bounded chunks (gzip and stdin too).
 * bfloat16 is widened to float32 exactly. */
#include "reader.h"

#include <cjson/cJSON.h>
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* calloc, malloc, free */
#include <string.h>   /* memcmp, memcpy, strcmp */
#include <sys/stat.h> /* fstat */

#define ST_CHUNK (1u << 20)
/* The safetensors library's own limit on the header (MAX_HEADER_SIZE). */
#define ST_HEADER_MAX 100000000u

struct st_tensor {
    const char *name;             /* in the parsed header */
    enum la_dtype dtype;
    int bf16;
    int ndim;
    uint64_t shape[LA_MAX_DIMS];
    uint64_t begin, end;          /* in the data area */
};

struct st_state {
    struct st_tensor *t;          /* every tensor, sorted by begin */
    size_t nt;
    const struct st_tensor *chosen;
    uint64_t data_start;          /* 8 + N */
    uint64_t pos;                 /* source bytes consumed */
    uint64_t count, done;
    unsigned esize;
    int swap;
    cJSON *json;
    unsigned char *raw, *wide;
};

/* --array, through one accessor so the options' shape is known here only. */
static const char *array_name(const struct la_reader *r)
{
    return r->opts ? r->opts->array : NULL;
}

static const struct {
    const char *name;
    enum la_dtype dtype;
    int bf16;
} dtypes[] = {
    { "BOOL", LA_DT_BOOL, 0 },   { "U8", LA_DT_UINT8, 0 },    { "I8", LA_DT_INT8, 0 },
    { "I16", LA_DT_INT16, 0 },   { "U16", LA_DT_UINT16, 0 },  { "I32", LA_DT_INT32, 0 },
    { "U32", LA_DT_UINT32, 0 },  { "I64", LA_DT_INT64, 0 },   { "U64", LA_DT_UINT64, 0 },
    { "F16", LA_DT_FLOAT16, 0 }, { "BF16", LA_DT_FLOAT32, 1 }, { "F32", LA_DT_FLOAT32, 0 },
    { "F64", LA_DT_FLOAT64, 0 },
};

// ---- the header --------------------------------------------------------------

/* A JSON number that is a whole number in [0, 2^53]: exact in a double. */
static int json_u64(const cJSON *n, uint64_t *out)
{
    if (!cJSON_IsNumber(n) || n->valuedouble < 0 || n->valuedouble > 9007199254740992.0
        || n->valuedouble != (double)(uint64_t)n->valuedouble)
        return -1;
    *out = (uint64_t)n->valuedouble;
    return 0;
}

static int tensor_dtype(struct la_reader *r, const cJSON *d, struct st_tensor *t)
{
    if (!cJSON_IsString(d))
        return la_reader_set_error(r, "header: tensor '%.100s' has no dtype", t->name);
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (!strcmp(d->valuestring, dtypes[i].name)) {
            t->dtype = dtypes[i].dtype;
            t->bf16 = dtypes[i].bf16;
            return 0;
        }
    return la_reader_set_error(r, "header: tensor '%.100s' has dtype %.20s, which cannot "
                               "hold labels", t->name, d->valuestring);
}

/* One tensor's entry: dtype, shape, data_offsets, and its size agreeing. */
static int parse_tensor(struct la_reader *r, const cJSON *e, struct st_tensor *t)
{
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    t->name = e->string;
    if (!cJSON_IsObject(e) || tensor_dtype(r, cJSON_GetObjectItemCaseSensitive(e, "dtype"), t) != 0)
        return r->err[0] ? -1 : la_reader_set_error(r, "header: '%.100s' is not a tensor", t->name);
    if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) > LA_MAX_DIMS)
        return la_reader_set_error(r, "header: tensor '%.100s' has no shape of at most %d "
                                   "dimensions", t->name, LA_MAX_DIMS);
    uint64_t bytes = t->bf16 ? 2 : la_dtype_info(t->dtype)->size;
    const cJSON *d;
    cJSON_ArrayForEach(d, shape) {
        uint64_t n;
        if (json_u64(d, &n) != 0)
            return la_reader_set_error(r, "header: tensor '%.100s' has a bad dimension", t->name);
        if (n && bytes > UINT64_MAX / n)
            return la_reader_set_error(r, "header: tensor '%.100s' is over 2^64 bytes", t->name);
        bytes *= n;
        t->shape[t->ndim++] = n;
    }
    if (!cJSON_IsArray(offs) || cJSON_GetArraySize(offs) != 2
        || json_u64(cJSON_GetArrayItem(offs, 0), &t->begin) != 0
        || json_u64(cJSON_GetArrayItem(offs, 1), &t->end) != 0 || t->end < t->begin)
        return la_reader_set_error(r, "header: tensor '%.100s' has bad data_offsets", t->name);
    if (t->end - t->begin != bytes)
        return la_reader_set_error(r, "header: tensor '%.100s' spans %llu bytes, its shape "
                                   "and dtype %llu", t->name,
                                   (unsigned long long)(t->end - t->begin),
                                   (unsigned long long)bytes);
    return 0;
}

static int by_begin(const void *a, const void *b)
{
    const struct st_tensor *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* The tensors must tile the data area from 0, with no gap and no overlap. */
static int check_tiling(struct la_reader *r, struct st_state *st, uint64_t *data_len)
{
    uint64_t at = 0;
    qsort(st->t, st->nt, sizeof *st->t, by_begin);
    for (size_t i = 0; i < st->nt; i++) {
        if (st->t[i].begin != at)
            return la_reader_set_error(r, "header: tensor '%.100s' starts at data byte %llu, "
                                       "not %llu (the offsets overlap or leave a gap)",
                                       st->t[i].name, (unsigned long long)st->t[i].begin,
                                       (unsigned long long)at);
        at = st->t[i].end;
    }
    *data_len = at;
    return 0;
}

static int parse_header(struct la_reader *r, struct st_state *st, const char *text, size_t len)
{
    if (len == 0 || text[0] != '{')
        return la_reader_set_error(r, "byte 8: header is not a JSON object");
    st->json = cJSON_ParseWithLength(text, len);
    if (!st->json || !cJSON_IsObject(st->json))
        return la_reader_set_error(r, "byte 8: header is not valid JSON");
    size_t n = (size_t)cJSON_GetArraySize(st->json);
    if (!(st->t = calloc(n ? n : 1, sizeof *st->t)))
        return la_reader_set_error(r, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, st->json) {
        if (!strcmp(e->string, "__metadata__"))
            continue;
        if (parse_tensor(r, e, &st->t[st->nt]) != 0)
            return -1;
        st->nt++;
    }
    return 0;
}

/* The 8-byte length and the header, read from the source. */
static int read_header(struct la_reader *r, struct st_state *st)
{
    unsigned char len8[8];
    ssize_t got = la_source_read_full(r->src, len8, 8);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    if (got < 8)
        return la_reader_set_error(r, "byte %zd: file ends inside the header length", got);
    uint64_t n = 0;
    for (int i = 8; i-- > 0;)
        n = n << 8 | len8[i];
    if (n > ST_HEADER_MAX)
        return la_reader_set_error(r, "byte 0: header of %llu bytes (over the safetensors "
                                   "limit of %u)", (unsigned long long)n, ST_HEADER_MAX);
    int64_t size = la_source_size(r->src);
    if (size >= 0 && n > (uint64_t)size - 8)
        return la_reader_set_error(r, "byte 0: header of %llu bytes in a file of %lld "
                                   "(truncated)", (unsigned long long)n, (long long)size);
    char *text = malloc(n ? n : 1);
    if (!text)
        return la_reader_set_error(r, "out of memory for a %llu-byte header", (unsigned long long)n);
    got = la_source_read_full(r->src, text, n);
    int rc = got < 0 ? la_reader_set_error(r, "%s", la_source_error(r->src))
           : (uint64_t)got < n ? la_reader_set_error(r, "byte %llu: file ends inside the header",
                                                     (unsigned long long)(8 + got))
           : parse_header(r, st, text, n);
    free(text);
    st->data_start = st->pos = 8 + n;
    return rc;
}

// ---- choosing the tensor -------------------------------------------------

static const struct st_tensor *find(const struct st_state *st, const char *name)
{
    for (size_t i = 0; i < st->nt; i++)
        if (!strcmp(st->t[i].name, name))
            return &st->t[i];
    return NULL;
}

static void list_names(const struct st_state *st, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < st->nt; i++) {
        size_t n = strlen(st->t[i].name);
        if (len + n + 8 >= cap) {
            snprintf(out + len, cap - len, "%s...", len ? ", " : "");
            return;
        }
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ", " : "", st->t[i].name);
    }
    for (char *s = out; *s; s++)                 /* names go into one-line messages */
        *s = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
}

static int choose(struct la_reader *r, struct st_state *st)
{
    static const char *const preferred[] = { "labels", "label", "y", "targets" };
    const char *want = array_name(r);
    char names[300];
    list_names(st, names, sizeof names);
    if (want) {
        if (!(st->chosen = find(st, want)))
            return la_reader_set_error(r, "no tensor '%.100s' in the file (tensors: %s)", want, names);
        return 0;
    }
    if (st->nt == 1) {
        st->chosen = &st->t[0];
        return 0;
    }
    for (size_t i = 0; i < sizeof preferred / sizeof *preferred && st->nt; i++)
        if ((st->chosen = find(st, preferred[i])))
            return 0;
    if (st->nt == 0)
        return la_reader_set_error(r, "no tensors in the file");
    return la_reader_set_error(r, "several tensors (%s): choose one with --array", names);
}

// ---- the data --------------------------------------------------------------------

/* The file must end where the data does; known up front for a plain file. */
static int check_length(struct la_reader *r, struct st_state *st, uint64_t data_len)
{
    int64_t size = la_source_size(r->src);
    uint64_t want = st->data_start + data_len;
    if (size < 0 || (uint64_t)size == want)
        return 0;
    if ((uint64_t)size < want)
        return la_reader_set_error(r, "byte %lld: file ends inside the tensors' data, "
                                   "which runs to byte %llu (truncated)", (long long)size,
                                   (unsigned long long)want);
    return la_reader_set_error(r, "byte %llu: %llu bytes after the tensors' data",
                               (unsigned long long)want, (unsigned long long)((uint64_t)size - want));
}

/* Read and drop source bytes up to file offset to (a stream cannot seek). */
static int skip_to(struct la_reader *r, struct st_state *st, uint64_t to, int at_end)
{
    while (st->pos < to || at_end) {
        uint64_t left = to - st->pos;
        size_t n = at_end || left > ST_CHUNK ? ST_CHUNK : (size_t)left;
        ssize_t got = la_source_read(r->src, st->raw, n);
        if (got < 0)
            return la_reader_set_error(r, "%s", la_source_error(r->src));
        st->pos += (uint64_t)got;
        if (at_end && got == 0)
            break;
        if (got == 0)
            return la_reader_set_error(r, "byte %llu: file ends inside the tensors' data "
                                       "(truncated)", (unsigned long long)st->pos);
    }
    if (at_end && st->pos != to)
        return la_reader_set_error(r, "byte %llu: %llu bytes after the tensors' data",
                                   (unsigned long long)to, (unsigned long long)(st->pos - to));
    return 0;
}

/* A plain file's native-order tensor: audit.c may map it and scan in place. */
static void offer_run(struct la_reader *r, struct st_state *st)
{
    int fd = la_source_plain_fd(r->src);
    uint64_t start = st->data_start + st->chosen->begin;
    if (fd < 0 || st->swap || st->chosen->bf16 || st->chosen->dtype == LA_DT_BOOL
        || start % st->esize != 0)
        return;
    r->has_run = 1;
    r->run = (struct la_file_run){ fd, start, st->count, st->chosen->dtype };
}

static int st_open(struct la_reader *r)
{
    struct st_state *st = calloc(1, sizeof *st);
    uint64_t data_len = 0;
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    if (read_header(r, st) != 0 || check_tiling(r, st, &data_len) != 0 || choose(r, st) != 0
        || check_length(r, st, data_len) != 0)
        return -1;
    const struct st_tensor *t = st->chosen;
    st->esize = t->bf16 ? 2 : la_dtype_info(t->dtype)->size;
    st->count = (t->end - t->begin) / st->esize;
    st->swap = la_host_is_big_endian();
    st->raw = malloc(ST_CHUNK);
    st->wide = t->bf16 ? malloc(ST_CHUNK * 2) : NULL;
    if (!st->raw || (t->bf16 && !st->wide))
        return la_reader_set_error(r, "out of memory");
    r->info.dtype = t->dtype;
    r->info.ndim = t->ndim;
    memcpy(r->info.shape, t->shape, (size_t)t->ndim * sizeof *t->shape);
    r->info.shape_known = 1;
    offer_run(r, st);
    return 0;
}

static int st_next(struct la_reader *r, struct la_chunk *out)
{
    struct st_state *st = r->state;
    if (st->done == st->count) {
        /* A stream's length shows only at its end: read on, so that trailing
         * bytes or a truncated later tensor are found as in a plain file. */
        uint64_t end = st->data_start + st->t[st->nt - 1].end;
        return la_source_size(r->src) >= 0 ? 0 : skip_to(r, st, end, 1) != 0 ? -1 : 0;
    }
    if (st->done == 0 && skip_to(r, st, st->data_start + st->chosen->begin, 0) != 0)
        return -1;                               /* the tensors before the chosen one */
    uint64_t left = st->count - st->done;
    size_t n = ST_CHUNK / st->esize;
    n = left < n ? (size_t)left : n;
    ssize_t got = la_source_read_full(r->src, st->raw, n * st->esize);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    st->pos += (uint64_t)got;
    if ((size_t)got < n * st->esize)
        return la_reader_set_error(r, "byte %llu: file ends inside tensor '%.100s' (truncated)",
                                   (unsigned long long)st->pos, st->chosen->name);
    if (st->swap)
        la_byteswap(st->raw, n, st->esize);
    if (st->chosen->dtype == LA_DT_BOOL)
        la_bool_normalize(st->raw, n);
    if (st->chosen->bf16)
        la_bf16_to_f32(st->raw, st->wide, n);
    *out = (struct la_chunk){ st->chosen->dtype, st->chosen->bf16 ? st->wide : st->raw, n,
                              st->done, NULL };
    st->done += n;
    return 1;
}

static void st_close(struct la_reader *r)
{
    struct st_state *st = r->state;
    if (!st)
        return;
    cJSON_Delete(st->json);
    free(st->t);
    free(st->raw);
    free(st->wide);
    free(st);
    r->state = NULL;
}

/** la_safetensors_magic() : an 8-byte length, then "{" and, within the first
 *  bytes, a tensor entry's "dtype" or the "__metadata__" key. */
int la_safetensors_magic(const unsigned char *head, size_t len)
{
    if (len < 10 || head[8] != '{' || head[7] != 0 || head[6] != 0)
        return 0;
    size_t span = len - 8 < 512 ? len - 8 : 512;
    return memmem(head + 8, span, "\"dtype\"", 7) || memmem(head + 8, span, "\"__metadata__\"", 14);
}

const struct la_reader_ops la_reader_safetensors = { st_open, st_next, st_close };
