/* read_safetensors.c - Hugging Face safetensors files.
 *
 * The layout: an 8-byte little-endian header length N, N bytes of JSON
 * ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, ...,
 * "__metadata__": {...}}), then the tensors' bytes, little-endian, C order.
 * The header is parsed with cJSON and checked as the safetensors library
 * checks it: offsets that tile the data exactly, in order, each tensor's size
 * its shape times its dtype's, and a file that ends where the data does. A
 * header that lies is refused, and so is one that the library's serde_json
 * refuses: a dimension or offset spelled as a float ([2.0]) or negative, a
 * field given twice; a tensor name given twice counts once, its last entry,
 * as serde's map keeps it. The chosen tensor is then read like a .npy:
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
    size_t ordinal;               /* its entry's place in the header */
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

// ---- the header's integers, as serde reads them ----------------------------------

/* cJSON keeps a number as a double: "shape": [2.0] is 2 to it, and
 * 9007199254740993 is not itself. The safetensors library reads dimensions
 * and offsets with serde_json as usize and refuses any other spelling
 * ("invalid type: floating point `2.0`, expected usize"), so their tokens
 * are read here from the header's text: per entry of the top-level object
 * (in cJSON's order, the text's), the integers of its "shape" and
 * "data_offsets" arrays, exact. The text is valid JSON (cJSON parsed it
 * first), so strings, brackets and commas are all that need telling apart. */
struct st_ints {
    uint64_t shape[LA_MAX_DIMS], offs[2];
    const char *bad;              /* a token that is no usize, in the header text */
    size_t bad_len;
};

enum st_field { SF_OTHER, SF_SHAPE, SF_OFFSETS };

struct int_scan {
    struct st_ints *ints;
    size_t n_entries, entry;      /* entry: the current top-level key's ordinal + 1 */
    int depth;
    unsigned char is_object[4];   /* the open containers up to depth 3 */
    int want_key;
    enum st_field field;
    size_t element;               /* in the shape or data_offsets array */
};

/* The end of the string whose opening quote is at s[i]. */
static size_t string_close(const char *s, size_t len, size_t i)
{
    for (i++; i < len && s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i;
}

static void scan_key(struct int_scan *k, const char *key, size_t n)
{
    if (k->depth == 1)
        k->entry++;
    if (k->depth == 2)
        k->field = n == 5 && !memcmp(key, "shape", 5) ? SF_SHAPE
                 : n == 12 && !memcmp(key, "data_offsets", 12) ? SF_OFFSETS : SF_OTHER;
}

/* A number token at s[0..n): a dimension or offset must be digits only. */
static void scan_number(struct int_scan *k, const char *s, size_t n)
{
    if (k->depth != 3 || k->field == SF_OTHER || k->is_object[3] || !k->entry ||
        k->entry > k->n_entries)
        return;
    struct st_ints *e = &k->ints[k->entry - 1];
    uint64_t v = 0;
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        ok = s[i] >= '0' && s[i] <= '9' && v <= (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10;
        v = ok ? v * 10 + (uint64_t)(s[i] - '0') : v;
    }
    if (!ok && !e->bad) {
        e->bad = s;
        e->bad_len = n;
    }
    size_t at = k->element++;
    if (k->field == SF_SHAPE && at < LA_MAX_DIMS)
        e->shape[at] = v;
    else if (k->field == SF_OFFSETS && at < 2)
        e->offs[at] = v;
}

static void scan_ints(const char *s, size_t len, struct st_ints *ints, size_t n_entries)
{
    struct int_scan k = { .ints = ints, .n_entries = n_entries };
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '"') {
            size_t end = string_close(s, len, i);
            if (k.want_key)
                scan_key(&k, s + i + 1, end - i - 1);
            k.want_key = 0;
            i = end;
        } else if (c == '{' || c == '[') {
            if (++k.depth < 4)
                k.is_object[k.depth] = c == '{';
            k.want_key = c == '{';
            k.element = 0;
        } else if (c == '}' || c == ']') {
            k.depth -= k.depth > 0;
            k.want_key = 0;
        } else if (c == ',') {
            k.want_key = k.depth < 4 && k.is_object[k.depth];
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t n = 0;   /* the header is not NUL-terminated: no strspn */
            while (i + n < len && strchr("+-.0123456789eE", s[i + n]) && s[i + n])
                n++;
            scan_number(&k, s + i, n);
            i += n - 1;
        }
    }
}

// ---- the header --------------------------------------------------------------

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

/* A field given twice in one object: serde refuses it ("duplicate field"). */
static const char *duplicate_field(const cJSON *o, const char *const *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (const cJSON *c = o->child; c; c = c->next)
            seen += !strcmp(c->string, fields[i]);
        if (seen > 1)
            return fields[i];
    }
    return NULL;
}

/* An array of count numbers (count -1: at most LA_MAX_DIMS). */
static int number_array(const cJSON *a, int count)
{
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (n < 0 || (count < 0 ? n > LA_MAX_DIMS : n != count))
        return 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, a)
        if (!cJSON_IsNumber(d))
            return 0;
    return 1;
}

/* One tensor's entry: dtype, shape, data_offsets, and its size agreeing. */
static int parse_tensor(struct la_reader *r, const cJSON *e, const struct st_ints *ints,
                        struct st_tensor *t)
{
    static const char *const fields[] = { "dtype", "shape", "data_offsets" };
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    const char *twice = cJSON_IsObject(e) ? duplicate_field(e, fields, 3) : NULL;
    t->name = e->string;
    if (twice)
        return la_reader_set_error(r, "header: tensor '%.100s' gives \"%s\" twice", t->name, twice);
    if (!cJSON_IsObject(e) || tensor_dtype(r, cJSON_GetObjectItemCaseSensitive(e, "dtype"), t) != 0)
        return r->err[0] ? -1 : la_reader_set_error(r, "header: '%.100s' is not a tensor", t->name);
    if (!number_array(shape, -1))
        return la_reader_set_error(r, "header: tensor '%.100s' has no shape of at most %d "
                                   "dimensions", t->name, LA_MAX_DIMS);
    if (!number_array(offs, 2))
        return la_reader_set_error(r, "header: tensor '%.100s' has bad data_offsets", t->name);
    if (ints->bad)
        return la_reader_set_error(r, "header: tensor '%.100s' has %.*s in its shape or "
                                   "data_offsets, not an unsigned integer (safetensors: "
                                   "expected usize)", t->name,
                                   (int)(ints->bad_len > 30 ? 30 : ints->bad_len), ints->bad);
    uint64_t esize = t->bf16 ? 2 : la_dtype_info(t->dtype)->size, elements = 1;
    int overflow = 0;   /* as the library multiplies: elements first, then bytes */
    for (int i = 0; i < cJSON_GetArraySize(shape); i++) {
        uint64_t n = ints->shape[i];
        overflow |= n && elements > UINT64_MAX / n;
        elements *= n;
        t->shape[t->ndim++] = n;
    }
    if (overflow || elements > UINT64_MAX / esize)
        return la_reader_set_error(r, "header: tensor '%.100s' is over 2^64 bytes", t->name);
    uint64_t bytes = elements * esize;
    t->begin = ints->offs[0];
    t->end = ints->offs[1];
    if (t->end < t->begin)
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

/* "__metadata__": null, or a map of strings (serde: HashMap<String, String>). */
static int check_metadata(struct la_reader *r, const cJSON *m)
{
    const cJSON *v;
    if (cJSON_IsNull(m))
        return 0;
    if (!cJSON_IsObject(m))
        return la_reader_set_error(r, "header: __metadata__ is not a map of strings");
    cJSON_ArrayForEach(v, m)
        if (!cJSON_IsString(v))
            return la_reader_set_error(r, "header: __metadata__ '%.100s' is not a string",
                                       v->string);
    return 0;
}

static int by_name_then_ordinal(const void *a, const void *b)
{
    const struct st_tensor *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

/* A tensor name given twice: the last entry counts, as serde's HashMap
 * keeps it (the earlier one's bytes then tile nothing). */
static void keep_last_of_each_name(struct st_state *st)
{
    size_t kept = 0;
    qsort(st->t, st->nt, sizeof *st->t, by_name_then_ordinal);
    for (size_t i = 0; i < st->nt; i++) {
        if (kept && !strcmp(st->t[kept - 1].name, st->t[i].name))
            kept--;
        st->t[kept++] = st->t[i];
    }
    st->nt = kept;
}

static int parse_entries(struct la_reader *r, struct st_state *st, const struct st_ints *ints)
{
    static const char *const metadata[] = { "__metadata__" };
    const char *twice = duplicate_field(st->json, metadata, 1);
    if (twice)
        return la_reader_set_error(r, "header: \"%s\" twice", twice);
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, st->json) {
        int rc = !strcmp(e->string, "__metadata__") ? check_metadata(r, e)
               : parse_tensor(r, e, &ints[i], &st->t[st->nt]);
        if (rc != 0)
            return -1;
        if (strcmp(e->string, "__metadata__"))
            st->t[st->nt++].ordinal = i;
        i++;
    }
    keep_last_of_each_name(st);
    return 0;
}

static int parse_header(struct la_reader *r, struct st_state *st, const char *text, size_t len)
{
    if (len == 0 || text[0] != '{')
        return la_reader_set_error(r, "byte 8: header is not a JSON object");
    const char *end = text;   /* cJSON stops at the object's end: the rest is not scanned */
    st->json = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!st->json || !cJSON_IsObject(st->json))
        return la_reader_set_error(r, "byte 8: header is not valid JSON");
    len = (size_t)(end - text);
    size_t n = (size_t)cJSON_GetArraySize(st->json);
    struct st_ints *ints = calloc(n ? n : 1, sizeof *ints);
    if (!(st->t = calloc(n ? n : 1, sizeof *st->t)) || !ints) {
        free(ints);
        return la_reader_set_error(r, "out of memory");
    }
    scan_ints(text, len, ints, n);
    int rc = parse_entries(r, st, ints);
    free(ints);
    return rc;
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
