/* read_pt.c - tensors saved by torch.save (the zip format of PyTorch 1.6+).
 *
 * A .pt file is a zip archive (zip.c) of PREFIX/data.pkl, a pickle of the
 * saved object, and one member PREFIX/data/KEY per storage. The pickle is
 * read by pickle.c, which never runs it. The array chosen (the object itself,
 * or one in nested dicts, lists and tuples: --array names its path) is a
 * tensor, read as torch would see it: the storage's elements at offset +
 * sum(index[k] * stride[k]), in C order; or a list of numbers (or of rows of
 * them), read as torch.tensor(list) would make it, from the pickle's values.
 *
 * A tensor that is its whole storage, in order, is pulled through the zip
 * member as it is (stored or deflated) with its CRC-32 checked at the end;
 * any other view is gathered from the mapped member (stored members only, as
 * torch.save writes them), whose CRC-32 is checked first. bfloat16 is widened
 * to float32 (exactly: bfloat16 is float32's upper half).
 *
 * A C-contiguous tensor of a stored member in a plain file, in the host's
 * byte order and a dtype the scan takes as it lies (not bool, not bfloat16),
 * is offered to audit.c as a file run (reader.h): its values are then mapped
 * and scanned in place, and the member's CRC-32 is not checked, as torch.load
 * does not check it either (PyTorch builds miniz without the reader's CRC-32
 * checks): the check alone would cost more than the scan. */
#include "pickle.h"
#include "fatal.h"   /* la_map_guarded: the mapped file may shrink under the gather */
#include "zip.h"

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* calloc, malloc, free, strtoull */
#include <string.h>   /* memcpy, strcmp, strlen, strncmp */

#define PT_CHUNK (1u << 20)
#define PT_MAX_DEPTH 16                       /* levels of containers searched */
#define PT_PATH_LEN (PT_MAX_DEPTH * 64 + 1)   /* "train/labels": 60 bytes a level */
/* A pickle of a list of labels is about 2 to 9 bytes a label (1 GiB: some
 * 10^8 labels); a stored one is mapped, a deflated one read whole. */
#define PT_PICKLE_MAX ((uint64_t)1 << 30)

/* The legacy (pre-1.6) format: a bare pickle opening with torch's magic number. */
static const unsigned char legacy_magic[] = {
    0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19
};

struct pt_state {
    struct la_zip zip;
    struct la_pickle pk;
    const struct la_pv_tensor *t; /* the tensor audited, or NULL for a list: */
    uint32_t list;                /* the list or tuple of numbers audited, */
    uint64_t rows, cols;          /* or of rows of them (rows 0: a vector) */
    char name[PT_PATH_LEN];       /* its path, "" for the whole file */
    struct la_pv_vector vec;      /* its count and dtype, as torch.tensor(list) makes them */
    enum la_dtype dtype;          /* of the storage's elements */
    int bf16, swap;
    unsigned esize;               /* bytes per stored element */
    uint64_t count, done;         /* tensor elements, emitted */
    int sequential;               /* pulled through the member, not gathered */
    int mapped;                   /* map_storage() done (a view: at open, or at the
                                     first next() when a run was offered) */
    struct la_mapping map;        /* the guarded mapping behind data */
    const unsigned char *data;    /* gathering: the member's bytes */
    uint64_t idx[LA_PICKLE_MAX_DIMS];
    unsigned char *raw, *wide;    /* one chunk as stored; bf16 widened */
};

/* --array, through one accessor so the options' shape is known here only. */
static const char *array_name(const struct la_reader *r)
{
    return r->opts ? r->opts->array : NULL;
}

// ---- the archive's members ------------------------------------------------

/* PREFIX/data.pkl, PREFIX being the one top-level folder. */
static const struct la_zip_member *find_pickle(const struct la_zip *z, size_t *prefix_len)
{
    for (size_t i = 0; i < z->nm; i++) {
        const char *name = z->m[i].name, *slash = strchr(name, '/');
        if (slash && slash > name && !strcmp(slash, "/data.pkl")) {
            *prefix_len = (size_t)(slash - name);
            return &z->m[i];
        }
    }
    return NULL;
}

static const struct la_zip_member *find_member(const struct la_zip *z, const char *prefix,
                                               size_t plen, const char *rest)
{
    const struct la_zip_member *hit = NULL;
    for (size_t i = 0; i < z->nm; i++)
        if (!strncmp(z->m[i].name, prefix, plen) && !strcmp(z->m[i].name + plen, rest))
            hit = &z->m[i];             /* the last one wins, as in Python's zipfile */
    return hit;
}

/* A small member's bytes, whole, NUL-terminated. @return malloc()ed, or NULL with r->err. */
static unsigned char *read_member(struct la_reader *r, struct pt_state *st,
                                  const struct la_zip_member *m, uint64_t max)
{
    char name[LA_ZIP_SHOWN_LEN];
    if (m->usize > max) {
        la_reader_set_error(r, "member '%s' is %llu bytes (over %llu)", la_zip_shown(m->name, name),
                            (unsigned long long)m->usize, (unsigned long long)max);
        return NULL;
    }
    if (la_zip_locate(r, &st->zip, m) != 0
        || la_zip_start(&st->zip, r->err, sizeof r->err) != 0)
        return NULL;
    unsigned char *buf = malloc((size_t)m->usize + 1);
    size_t have = 0;
    if (!buf) {
        la_reader_set_error(r, "out of memory");
        return NULL;
    }
    for (;;) {                          /* to the end, so the CRC-32 is checked */
        char err[LA_ERR_LEN];
        ssize_t got = la_zip_pull(&st->zip, buf + have, (size_t)m->usize + 1 - have, err, sizeof err);
        if (got < 0) {
            la_reader_set_error(r, "member '%s': %s", la_zip_shown(m->name, name), err);
            free(buf);
            return NULL;
        }
        if (got == 0)
            break;
        have += (size_t)got;
    }
    buf[have] = '\0';
    return buf;
}

/* A TorchScript archive (torch.jit.save) has a data.pkl too, of objects. */
static int is_torchscript(const struct la_zip *z)
{
    for (size_t i = 0; i < z->nm; i++) {
        const char *s = strchr(z->m[i].name, '/');
        if (s && (!strcmp(s, "/constants.pkl") || !strncmp(s, "/code/", 6)))
            return 1;
    }
    return 0;
}

/* A stored pickle, mapped: a list of 10^7 labels then costs its packed
 * numbers only, not a copy of its bytes too. @return its bytes, or NULL
 * (with r->err on a CRC-32 mismatch; without, where it cannot be mapped). */
static const unsigned char *map_pickle(struct la_reader *r, struct pt_state *st,
                                       const struct la_zip_member *m, struct la_mapping *map)
{
    if (m->method != 0 || m->usize == 0 || la_zip_locate(r, &st->zip, m) != 0)
        return NULL;
    if (la_zip_crc_whole(&st->zip, r->err, sizeof r->err) != 0) {
        char name[LA_ZIP_SHOWN_LEN], why[LA_ERR_LEN];
        snprintf(why, sizeof why, "%s", r->err);
        la_reader_set_error(r, "member '%s': %s", la_zip_shown(m->name, name), why);
        return NULL;
    }
    return la_map_guarded(st->zip.fd, st->zip.data_off, m->usize, map);
}

static int read_pickle(struct la_reader *r, struct pt_state *st, size_t *plen)
{
    const struct la_zip_member *m = find_pickle(&st->zip, plen);
    if (is_torchscript(&st->zip))
        return la_reader_set_error(r, "a TorchScript archive (torch.jit.save), not a "
                                   "torch.save file: save the labels with torch.save");
    if (!m)
        return la_reader_set_error(r, "zip archive without a data.pkl member: not a "
                                   "torch.save file");
    char name[LA_ZIP_SHOWN_LEN];
    if (m->usize > PT_PICKLE_MAX)
        return la_reader_set_error(r, "member '%s' is %llu bytes (over %llu)",
                                   la_zip_shown(m->name, name), (unsigned long long)m->usize,
                                   (unsigned long long)PT_PICKLE_MAX);
    struct la_mapping map = { NULL, 0 };
    const unsigned char *pkl = map_pickle(r, st, m, &map);
    unsigned char *copy = NULL;
    if (!pkl && !r->err[0])
        pkl = copy = read_member(r, st, m, PT_PICKLE_MAX);
    if (!pkl)
        return -1;
    int rc = la_pickle_load(&st->pk, pkl, (size_t)m->usize);
    int64_t fault = la_unmap_guarded(&map);
    free(copy);
    if (fault >= 0)
        return la_reader_set_error(r, "byte %lld: file shrank while being read", (long long)fault);
    return rc != 0 ? la_reader_set_error(r, "data.pkl: %s", st->pk.err) : 0;
}

/* PREFIX/byteorder says "little" or "big"; files before PyTorch 1.10 lack it: little. */
static int read_byteorder(struct la_reader *r, struct pt_state *st, const char *prefix, size_t plen)
{
    const struct la_zip_member *m = find_member(&st->zip, prefix, plen, "/byteorder");
    int big = 0;
    if (m) {
        unsigned char *s = read_member(r, st, m, 16);
        if (!s)
            return -1;
        big = !strcmp((char *)s, "big");
        int ok = big || !strcmp((char *)s, "little");
        free(s);
        if (!ok)
            return la_reader_set_error(r, "byteorder member is neither 'little' nor 'big'");
    }
    st->swap = big != la_host_is_big_endian();
    return 0;
}

// ---- choosing the tensor ----------------------------------------------------

/* "key" of a dict item or the index of a list item: one segment of a path. */
static void item_label(const struct la_pickle *p, const struct la_pv *c, uint32_t i,
                       char *out, size_t cap)
{
    if (c->kind != LA_PV_DICT)
        snprintf(out, cap, "%u", i);
    else if (p->v[c->items[2 * i]].kind == LA_PV_STR)
        snprintf(out, cap, "%.60s", p->v[c->items[2 * i]].s);
    else
        snprintf(out, cap, "%lld", (long long)p->v[c->items[2 * i]].i);
    for (char *s = out; *s; s++)
        *s = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
}

static uint32_t item_count(const struct la_pv *c)
{
    return c->kind == LA_PV_DICT ? c->n / 2 : c->n;
}

static uint32_t item_value(const struct la_pv *c, uint32_t i)
{
    return c->kind == LA_PV_DICT ? c->items[2 * i + 1] : c->items[i];
}

/* How deep lists nest in v, found as torch.tensor finds a shape, through
 * first items: 1 for a list or tuple of numbers, 2 for a list of those, ...;
 * 0 for anything else (a list holding a non-list beside lists, deeper than
 * LA_MAX_DIMS). Bounded by LA_MAX_DIMS levels, however the lists are shared. */
static int nest_depth(const struct la_pickle *p, uint32_t v)
{
    struct la_pv_vector vec;
    for (int depth = 1; depth <= LA_MAX_DIMS; depth++) {
        const struct la_pv *c = &p->v[v];
        if (la_pickle_vector(p, v, &vec))
            return depth;
        if ((c->kind != LA_PV_LIST && c->kind != LA_PV_TUPLE) || c->n == 0)
            return 0;
        for (uint32_t i = 0; i < c->n; i++)
            if (p->v[c->items[i]].kind != LA_PV_LIST && p->v[c->items[i]].kind != LA_PV_TUPLE)
                return 0;
        v = c->items[0];
    }
    return 0;
}

/* What --array names and the default rule chooses among: a tensor, or a list
 * or tuple of numbers, or of lists of them (as torch.tensor(x) reads it). An
 * empty list is one only when it is the whole file or named: inside a dict
 * it is bookkeeping. */
static int is_array(const struct la_pickle *p, uint32_t v, int empty_too)
{
    struct la_pv_vector vec;
    if (p->v[v].kind == LA_PV_TENSOR)
        return 1;
    int depth = nest_depth(p, v);
    return depth > 1 || (depth == 1 && la_pickle_vector(p, v, &vec) && (vec.n > 0 || empty_too));
}

static int is_container(const struct la_pickle *p, uint32_t v)
{
    enum la_pv_kind k = p->v[v].kind;
    return (k == LA_PV_DICT || k == LA_PV_LIST || k == LA_PV_TUPLE) && !is_array(p, v, 1);
}

/* The arrays inside nested dicts, lists and tuples, named by their paths:
 * keys and indices joined by '/' ("train/labels", "0/y"). Each value is
 * visited once however often it is shared (a "billion laughs" pickle costs
 * its values), down to PT_MAX_DEPTH levels. The default is the only array,
 * else the one whose last key comes first among preferred[] (the shallowest
 * of them); a tie is ambiguous. */

struct search {
    const struct la_pickle *p;
    unsigned char *seen;                  /* a byte per value */
    uint32_t found;                       /* arrays */
    char names[300];                      /* their paths, cut short to fit */
    size_t names_len;
    uint32_t last;                        /* the last array found */
    size_t best_rank;                     /* of the preferred one so far (none: SIZE_MAX) */
    int best_depth, best_ties;
    uint32_t best;
    char path[PT_PATH_LEN];               /* of the value being visited */
    char last_path[PT_PATH_LEN], best_path[PT_PATH_LEN];
};

static const char *const preferred[] = { "labels", "label", "y", "targets" };

static void found_array(struct search *s, uint32_t v, const char *path, const char *label,
                        int depth)
{
    size_t len = s->names_len, cap = sizeof s->names;
    if (len + strlen(path) + 8 < cap)
        len += (size_t)snprintf(s->names + len, cap - len, "%s%s", s->found ? ", " : "", path);
    else if (len + 5 < cap && (len == 0 || s->names[len - 1] != '.'))
        len += (size_t)snprintf(s->names + len, cap - len, ", ...");
    s->names_len = len;
    s->found++;
    s->last = v;
    snprintf(s->last_path, sizeof s->last_path, "%s", path);
    for (size_t k = 0; k < sizeof preferred / sizeof *preferred; k++) {
        if (strcmp(label, preferred[k]) != 0)
            continue;
        if (k < s->best_rank || (k == s->best_rank && depth < s->best_depth)) {
            s->best_rank = k;
            s->best_depth = depth;
            s->best_ties = 0;
            s->best = v;
            snprintf(s->best_path, sizeof s->best_path, "%s", path);
        } else if (k == s->best_rank && depth == s->best_depth)
            s->best_ties++;
    }
}

static void search_in(struct search *s, uint32_t c, char *path, size_t plen, int depth)
{
    const struct la_pv *cv = &s->p->v[c];
    for (uint32_t i = 0; i < item_count(cv); i++) {
        uint32_t x = item_value(cv, i);
        if (s->seen[x])
            continue;
        s->seen[x] = 1;
        char label[64];
        item_label(s->p, cv, i, label, sizeof label);
        size_t len = plen + (size_t)snprintf(path + plen, PT_PATH_LEN - plen, "%s%s",
                                             plen ? "/" : "", label);
        if (is_array(s->p, x, 0))
            found_array(s, x, path, label, depth);
        else if (is_container(s->p, x) && depth + 1 < PT_MAX_DEPTH)
            search_in(s, x, path, len, depth + 1);
        path[plen] = '\0';
    }
}

/* The item of container c whose label is path, or whose label and a '/'
 * begin it (the longest such: a key may hold a '/' itself). @return its
 * value, or UINT32_MAX; *used is the length of path it took. */
static uint32_t path_step(const struct la_pickle *p, const struct la_pv *c, const char *path,
                          size_t *used)
{
    uint32_t exact = UINT32_MAX, prefix = UINT32_MAX;
    size_t prefix_len = 0;
    char label[64];
    for (uint32_t i = 0; i < item_count(c); i++) {      /* the last one wins, as in a dict */
        item_label(p, c, i, label, sizeof label);
        size_t n = strlen(label);
        if (!strcmp(label, path))
            exact = item_value(c, i);
        else if (!strncmp(label, path, n) && path[n] == '/' && n >= prefix_len)
            prefix = item_value(c, i), prefix_len = n;
    }
    *used = exact != UINT32_MAX ? strlen(path) : prefix_len + 1;
    return exact != UINT32_MAX ? exact : prefix;
}

/* "tensor", "list of numbers", "dict": what value v is, for messages. */
static const char *described(const struct la_pickle *p, uint32_t v)
{
    if (p->v[v].kind == LA_PV_LIST && is_array(p, v, 1))
        return "list of numbers";
    if (p->v[v].kind == LA_PV_TUPLE && is_array(p, v, 1))
        return "tuple of numbers";
    return la_pickle_kind_name(p->v[v].kind);
}

/* --array PATH from the root. @return the value, or UINT32_MAX with r->err. */
static uint32_t resolve(struct la_reader *r, const struct la_pickle *p, const char *want,
                        const char *names)
{
    const char *start = want + (want[0] == '/'), *rest = start;
    uint32_t v = p->root;
    while (*rest) {
        uint32_t c = v;
        size_t used = 0;
        if (!is_container(p, c) || (v = path_step(p, &p->v[c], rest, &used)) == UINT32_MAX) {
            int walked = rest > start ? (int)(rest - start) - 1 : 0;   /* less its '/' */
            const char *kind = described(p, c);
            if (walked)
                la_reader_set_error(r, "no item '%.100s' in '%.*s' (a %s; arrays: %s)", rest,
                                    walked, start, kind, names[0] ? names : "none");
            else
                la_reader_set_error(r, "no item '%.100s' in the %s (arrays: %s)", rest, kind,
                                    names[0] ? names : "none");
            return UINT32_MAX;
        }
        rest += used;
    }
    return v;
}

/* A view or a list of lists may repeat the values it holds (expand(),
 * strides that overlap, [row] * n): what is audited is bounded by what the
 * file stores, at most PT_REPEAT_MAX times it plus PT_REPEAT_SLACK elements. */
#define PT_REPEAT_MAX 256
#define PT_REPEAT_SLACK ((uint64_t)1 << 24)

static int too_repetitive(uint64_t count, uint64_t stored)
{
    return stored > (UINT64_MAX - PT_REPEAT_SLACK) / PT_REPEAT_MAX ? 0
           : count > PT_REPEAT_SLACK + PT_REPEAT_MAX * stored;
}

/* The array named name in messages: 'train/labels', or the whole file's "the list". */
static const char *shown(const char *name, char *buf, size_t cap)
{
    if (*name)
        snprintf(buf, cap, "'%.100s'", name);
    else
        snprintf(buf, cap, "the list");
    return buf;
}

/* torch.tensor's refusal of an int it cannot hold: item at of name. */
static int refuse_overflow(struct la_reader *r, enum la_dtype dtype, const char *name,
                           const char *at)
{
    char who[112];
    if (dtype == LA_DT_INT64)
        return la_reader_set_error(r, "item %s of %s is an int beyond int64: torch.tensor "
                                   "raises \"Overflow when unpacking long\"", at,
                                   shown(name, who, sizeof who));
    return la_reader_set_error(r, "item %s of %s is an int beyond a double's range: "
                               "torch.tensor raises \"int too large to convert to float\"",
                               at, shown(name, who, sizeof who));
}

/* A list of rows, each a list or tuple of numbers of one length: a matrix of
 * the dtype torch.tensor promotes its rows' to, refused where it refuses. */
static int take_matrix(struct la_reader *r, struct pt_state *st, uint32_t v, const char *name)
{
    const struct la_pickle *p = &st->pk;
    const struct la_pv *c = &p->v[v];
    struct la_pv_vector row;
    int has_int = 0, has_float = 0;
    uint64_t stored = 0, big = UINT64_MAX, huge = UINT64_MAX, cols = 0;
    char who[112];
    shown(name, who, sizeof who);
    unsigned char *seen = calloc(p->nv, 1);
    if (!seen)
        return la_reader_set_error(r, "out of memory");
    for (uint32_t i = 0; i < c->n; i++) {
        if (!la_pickle_vector(p, c->items[i], &row)) {
            free(seen);
            return la_reader_set_error(r, "item %u of %s is a %s, not a list of numbers "
                                       "as item 0 is (torch.tensor refuses it)", i, who,
                                       described(p, c->items[i]));
        }
        if (i == 0)
            cols = row.n;
        if (row.n != cols) {
            free(seen);
            return la_reader_set_error(r, "item %u of %s has length %llu, item 0 %llu: "
                                       "torch.tensor raises \"expected sequence of length %llu "
                                       "at dim 1 (got %llu)\"", i, who, (unsigned long long)row.n,
                                       (unsigned long long)cols, (unsigned long long)cols,
                                       (unsigned long long)row.n);
        }
        has_int |= row.n && row.dtype != LA_DT_BOOL;
        has_float |= row.n && row.dtype == LA_DT_FLOAT32;
        if (row.big_at != UINT64_MAX && big == UINT64_MAX)
            big = (uint64_t)i << 32 | row.big_at;
        if (row.huge_at != UINT64_MAX && huge == UINT64_MAX)
            huge = (uint64_t)i << 32 | row.huge_at;
        stored += seen[c->items[i]] ? 0 : cols;  /* a row shared n times is stored once */
        seen[c->items[i]] = 1;
    }
    free(seen);
    st->vec.dtype = has_float || cols == 0 ? LA_DT_FLOAT32 : has_int ? LA_DT_INT64 : LA_DT_BOOL;
    uint64_t bad = st->vec.dtype == LA_DT_FLOAT32 ? huge : big;
    if (bad != UINT64_MAX) {
        char at[48];
        snprintf(at, sizeof at, "%llu/%llu", (unsigned long long)(bad >> 32),
                 (unsigned long long)(bad & 0xffffffffu));
        return refuse_overflow(r, st->vec.dtype, name, at);
    }
    if (cols && c->n > UINT64_MAX / cols)
        return la_reader_set_error(r, "%s holds over 2^64 numbers", who);
    st->vec.n = c->n * cols;
    if (too_repetitive(st->vec.n, stored))
        return la_reader_set_error(r, "%s repeats its rows: %llu numbers from %llu stored "
                                   "(over %d times as many, and over 2^24)", who,
                                   (unsigned long long)st->vec.n, (unsigned long long)stored,
                                   PT_REPEAT_MAX);
    st->list = v;
    st->cols = cols;
    st->rows = c->n;
    return 0;
}

/* Audit value v (an array), named name in messages. */
static int take_array(struct la_reader *r, struct pt_state *st, uint32_t v, const char *name)
{
    const struct la_pickle *p = &st->pk;
    int depth = nest_depth(p, v);
    if (!is_array(p, v, 1))
        return la_reader_set_error(r, "'%.100s' is a %s, not a tensor or a list of numbers", name,
                                   described(p, v));
    snprintf(st->name, sizeof st->name, "%s", name);
    if (p->v[v].kind == LA_PV_TENSOR) {
        st->t = &p->t[p->v[v].i];
        return 0;
    }
    char who[112];
    if (depth > 2)
        return la_reader_set_error(r, "%s is a list of lists nested %d deep (torch.tensor makes "
                                   "a %d-D tensor of it): lists of numbers and lists of them "
                                   "are read; save torch.tensor(x)", shown(name, who, sizeof who),
                                   depth, depth);
    if (depth == 2)
        return take_matrix(r, st, v, name);
    st->list = v;
    st->rows = 0;
    la_pickle_vector(p, v, &st->vec);
    if (st->vec.overflow_at == UINT64_MAX)
        return 0;
    char at[24];
    snprintf(at, sizeof at, "%llu", (unsigned long long)st->vec.overflow_at);
    return refuse_overflow(r, st->vec.dtype, name, at);
}

static int choose_array(struct la_reader *r, struct pt_state *st)
{
    const struct la_pickle *p = &st->pk;
    const char *want = array_name(r);
    if (!want && is_array(p, p->root, 1))
        return take_array(r, st, p->root, "");
    if (!is_container(p, p->root))
        return la_reader_set_error(r, "the file holds a %s, not %s", described(p, p->root),
                                   want ? "a dict, list or tuple (drop --array)"
                                        : "a tensor or a list of numbers");
    struct search s = { .p = p, .best_rank = SIZE_MAX };
    if (!(s.seen = calloc(p->nv, 1)))
        return la_reader_set_error(r, "out of memory");
    s.seen[p->root] = 1;
    search_in(&s, p->root, s.path, 0, 0);
    free(s.seen);
    if (want) {
        uint32_t v = resolve(r, p, want, s.names);
        return v == UINT32_MAX ? -1 : take_array(r, st, v, want);
    }
    const char *kind = la_pickle_kind_name(p->v[p->root].kind);
    if (s.found == 0)
        return la_reader_set_error(r, "no tensors or lists of numbers in the %s", kind);
    if (s.found == 1)
        return take_array(r, st, s.last, s.last_path);
    if (s.best_rank == SIZE_MAX || s.best_ties)
        return la_reader_set_error(r, "several arrays (%s): choose one with --array", s.names);
    return take_array(r, st, s.best, s.best_path);
}

// ---- the tensor's extent --------------------------------------------------

/* Every element the view reaches lies inside its storage. */
static int check_extent(struct la_reader *r, struct pt_state *st, uint64_t numel)
{
    const struct la_pv_tensor *t = st->t;
    uint64_t count = 1, last = t->offset;
    for (int k = 0; k < t->ndim; k++) {
        if (t->shape[k] && count > UINT64_MAX / t->shape[k])
            return la_reader_set_error(r, "tensor size overflows 64 bits");
        count *= t->shape[k];
    }
    for (int k = 0; k < t->ndim && count; k++) {
        uint64_t reach = t->shape[k] - 1;
        if (t->stride[k] && reach > (UINT64_MAX - last) / t->stride[k])
            return la_reader_set_error(r, "tensor strides overflow 64 bits");
        last += reach * t->stride[k];
    }
    if (count && last >= numel)
        return la_reader_set_error(r, "tensor reaches element %llu of a storage of %llu "
                                   "(the pickle lies)", (unsigned long long)last,
                                   (unsigned long long)numel);
    if (too_repetitive(count, numel)) {
        char who[112];
        return la_reader_set_error(r, "%s%s is a view of %llu elements over a storage of %llu "
                                   "(expand() or overlapping strides repeat its values over %d "
                                   "times, beyond 2^24 elements): audit the tensor it was "
                                   "expanded from", *st->name ? "tensor " : "the tensor",
                                   *st->name ? shown(st->name, who, sizeof who) : "",
                                   (unsigned long long)count, (unsigned long long)numel,
                                   PT_REPEAT_MAX);
    }
    st->count = count;
    return 0;
}

/* Strides of a C-contiguous tensor; dimensions of size 1 may have any stride. */
static int contiguous(const struct la_pv_tensor *t)
{
    uint64_t want = 1;
    for (int k = t->ndim; k-- > 0;) {
        if (t->shape[k] != 1 && t->stride[k] != want)
            return 0;
        want *= t->shape[k];
    }
    return 1;
}

static int open_storage(struct la_reader *r, struct pt_state *st, const char *prefix, size_t plen)
{
    const struct la_pv *s = &st->pk.v[st->t->storage];
    char rest[80], name[LA_ZIP_SHOWN_LEN];
    snprintf(rest, sizeof rest, "/data/%s", s->s);
    const struct la_zip_member *m = find_member(&st->zip, prefix, plen, rest);
    if (!m)
        return la_reader_set_error(r, "no member data/%.40s for the tensor's storage", s->s);
    st->dtype = s->dtype;
    st->bf16 = s->bf16;
    st->esize = s->bf16 ? 2 : la_dtype_info(s->dtype)->size;
    if (s->numel > UINT64_MAX / st->esize || m->usize != s->numel * st->esize)
        return la_reader_set_error(r, "member '%s' holds %llu bytes, not the %llu elements of "
                                   "%u bytes the pickle says", la_zip_shown(m->name, name),
                                   (unsigned long long)m->usize, (unsigned long long)s->numel,
                                   st->esize);
    if (check_extent(r, st, s->numel) != 0 || la_zip_locate(r, &st->zip, m) != 0
        || la_zip_start(&st->zip, r->err, sizeof r->err) != 0)
        return -1;
    st->sequential = st->t->offset == 0 && st->count == s->numel && contiguous(st->t);
    return 0;
}

/* A view: map the stored member and check its CRC-32 before gathering. */
static int map_storage(struct la_reader *r, struct pt_state *st)
{
    const struct la_zip *z = &st->zip;
    char name[LA_ZIP_SHOWN_LEN];
    if (z->chosen->method != 0)
        return la_reader_set_error(r, "member '%s': a view into a compressed storage "
                                   "(torch.save stores them uncompressed)",
                                   la_zip_shown(z->chosen->name, name));
    st->mapped = 1;
    if (la_zip_crc_whole(&st->zip, r->err, sizeof r->err) != 0 || z->chosen->usize == 0)
        return z->chosen->usize == 0 ? 0 : -1;
    if (z->chosen->usize > SIZE_MAX / 2)
        return la_reader_set_error(r, "storage too large to map");
    if (!(st->data = la_map_guarded(z->fd, z->data_off, z->chosen->usize, &st->map)))
        return la_reader_set_error(r, "cannot map the storage (mmap refused, or too many "
                                   "files mapped at once)");
    return 0;
}

/* The tensor as one run of the plain file: a stored member, C-contiguous,
 * host byte order, a dtype read as it lies. la_zip_locate() put the member's
 * bytes before the central directory and open_storage() made the tensor fit
 * its storage, so the run lies inside the file. */
static void offer_run(struct la_reader *r, struct pt_state *st)
{
    const struct la_pv *s = &st->pk.v[st->t->storage];
    const struct la_zip *z = &st->zip;
    if (la_source_plain_fd(r->src) < 0 || z->chosen->method != 0 || st->swap || st->bf16
        || st->dtype == LA_DT_BOOL || !contiguous(st->t) || st->t->offset > s->numel
        || st->count > s->numel - st->t->offset)
        return;
    uint64_t start = z->data_off + st->t->offset * st->esize;
    if (start % st->esize != 0 || start + st->count * st->esize > z->cd_off)
        return;
    r->has_run = 1;
    r->run = (struct la_file_run){ z->fd, start, st->count, st->dtype };
}

// ---- the reader ------------------------------------------------------------

static int refuse_legacy(struct la_reader *r)
{
    size_t len = 0;
    const unsigned char *head = la_source_peek(r->src, &len);
    if (len >= sizeof legacy_magic && !memcmp(head, legacy_magic, sizeof legacy_magic))
        return la_reader_set_error(r, "the legacy torch.save format (before PyTorch 1.6, or "
                                   "_use_new_zipfile_serialization=False): load it and save "
                                   "it again with torch.save");
    if (len < 4 || memcmp(head, "PK\3\4", 4) != 0)
        return la_reader_set_error(r, "not a torch.save file (no zip archive)");
    return 0;
}

/* A list or tuple of numbers: a vector of the dtype torch.tensor gives it. */
static int open_list(struct la_reader *r, struct pt_state *st)
{
    st->dtype = st->vec.dtype;
    st->esize = la_dtype_info(st->dtype)->size;
    st->count = st->vec.n;
    if (!(st->raw = malloc(PT_CHUNK)))
        return la_reader_set_error(r, "out of memory");
    r->info.dtype = st->dtype;
    r->info.ndim = st->rows ? 2 : 1;
    r->info.shape[0] = st->rows ? st->rows : st->vec.n;
    r->info.shape[1] = st->cols;
    r->info.shape_known = 1;
    return 0;
}

static int pt_open(struct la_reader *r)
{
    struct pt_state *st = calloc(1, sizeof *st);
    size_t plen = 0;
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    st->zip.fd = -1;
    if (refuse_legacy(r) != 0 || la_zip_open(r, &st->zip) != 0 || read_pickle(r, st, &plen) != 0)
        return -1;
    char prefix[LA_ZIP_SHOWN_LEN];
    snprintf(prefix, sizeof prefix, "%.*s", (int)plen, find_pickle(&st->zip, &plen)->name);
    if (choose_array(r, st) != 0)
        return -1;
    if (!st->t)
        return open_list(r, st);
    if (read_byteorder(r, st, prefix, plen) != 0 || open_storage(r, st, prefix, plen) != 0)
        return -1;
    offer_run(r, st);
    if (!st->sequential && !r->has_run && map_storage(r, st) != 0)
        return -1;
    st->raw = malloc(PT_CHUNK);
    st->wide = st->bf16 ? malloc(PT_CHUNK * 2) : NULL;
    if (!st->raw || (st->bf16 && !st->wide))
        return la_reader_set_error(r, "out of memory");
    r->info.dtype = st->dtype;
    r->info.ndim = st->t->ndim;
    memcpy(r->info.shape, st->t->shape, (size_t)st->t->ndim * sizeof *st->t->shape);
    r->info.shape_known = 1;
    return 0;
}

/* n elements in C order from the mapped storage, at the multi-index st->idx. */
static void gather(struct pt_state *st, size_t n)
{
    const struct la_pv_tensor *t = st->t;
    const unsigned sz = st->esize;
    unsigned char *dst = st->raw;
    if (t->ndim == 0) {
        memcpy(dst, st->data + t->offset * sz, sz);
        return;
    }
    const int last = t->ndim - 1;
    for (size_t i = 0; i < n;) {
        uint64_t off = t->offset;
        for (int k = 0; k < t->ndim; k++)
            off += st->idx[k] * t->stride[k];
        uint64_t run = t->shape[last] - st->idx[last];
        run = run < n - i ? run : n - i;
        const unsigned char *src = st->data + off * sz;
        const size_t step = (size_t)t->stride[last] * sz;
        for (uint64_t k = 0; k < run; k++, dst += sz, src += step)
            memcpy(dst, src, sz);
        i += (size_t)run;
        st->idx[last] += run;
        for (int k = last; k > 0 && st->idx[k] == t->shape[k]; k--) {
            st->idx[k] = 0;
            st->idx[k - 1]++;
        }
    }
}

/* n elements in file order through the member. @return 0, or -1 with r->err. */
static int pull(struct la_reader *r, struct pt_state *st, size_t n)
{
    char err[LA_ERR_LEN];
    size_t want = n * st->esize, have = 0;
    while (have < want) {
        ssize_t got = la_zip_pull(&st->zip, st->raw + have, want - have, err, sizeof err);
        if (got < 0)
            return la_reader_set_error(r, "storage: %s", err);
        if (got == 0)
            return la_reader_set_error(r, "storage ends after %llu of %llu elements",
                                       (unsigned long long)(st->done + have / st->esize),
                                       (unsigned long long)st->count);
        have += (size_t)got;
    }
    if (st->done + n == st->count) {     /* one more pull checks the CRC-32 */
        unsigned char extra;
        ssize_t got = la_zip_pull(&st->zip, &extra, 1, err, sizeof err);
        if (got != 0)
            return la_reader_set_error(r, "storage: %s", got < 0 ? err : "longer than its tensor");
    }
    return 0;
}

/* n values of the list (or its rows) from st->done on into st->raw. */
static void list_values(struct pt_state *st, size_t n)
{
    const struct la_pv *c = &st->pk.v[st->list];
    unsigned char *dst = st->raw;
    if (!st->rows) {
        la_pickle_vector_get(&st->pk, st->list, &st->vec, st->done, n, dst);
        return;
    }
    for (uint64_t at = st->done, end = st->done + n; at < end;) {
        uint64_t row = at / st->cols, col = at % st->cols;
        size_t k = (size_t)(st->cols - col < end - at ? st->cols - col : end - at);
        la_pickle_vector_get(&st->pk, c->items[row], &st->vec, col, k, dst);
        dst += k * st->esize;
        at += k;
    }
}

static int pt_next(struct la_reader *r, struct la_chunk *out)
{
    struct pt_state *st = r->state;
    if (st->done == st->count)
        return 0;
    uint64_t left = st->count - st->done;
    size_t n = PT_CHUNK / st->esize;
    n = left < n ? (size_t)left : n;
    if (!st->t) {
        list_values(st, n);
        *out = (struct la_chunk){ st->dtype, st->raw, n, st->done, NULL };
        st->done += n;
        return 1;
    }
    if (st->sequential) {
        if (pull(r, st, n) != 0)
            return -1;
    } else {
        if (!st->mapped && map_storage(r, st) != 0)   /* a run was offered, and declined */
            return -1;
        gather(st, n);
        int64_t fault = la_guard_fault(st->map.base);
        if (fault >= 0)
            return la_reader_set_error(r, "byte %lld: file shrank while being read",
                                       (long long)fault);
    }
    if (st->swap)
        la_byteswap(st->raw, n, st->esize);
    if (st->dtype == LA_DT_BOOL)
        la_bool_normalize(st->raw, n);
    if (st->bf16)
        la_bf16_to_f32(st->raw, st->wide, n);
    *out = (struct la_chunk){ st->dtype, st->bf16 ? st->wide : st->raw, n, st->done, NULL };
    st->done += n;
    return 1;
}

static void pt_close(struct la_reader *r)
{
    struct pt_state *st = r->state;
    if (!st)
        return;
    la_unmap_guarded(&st->map);
    free(st->raw);
    free(st->wide);
    la_pickle_free(&st->pk);
    la_zip_close(&st->zip);
    free(st);
    r->state = NULL;
}

/** la_pt_magic() : a zip whose first member is PREFIX/data.pkl (torch.save
 *  writes it first), or the legacy format's pickle, which the reader refuses by name. */
int la_pt_magic(const unsigned char *head, size_t len)
{
    if (len >= sizeof legacy_magic && !memcmp(head, legacy_magic, sizeof legacy_magic))
        return 1;
    const char *name, *slash;
    size_t n;
    if (la_zip_first_member(head, len, &name, &n) != LA_ZIP_HEAD_NAMED || n < 10)
        return 0;
    slash = memchr(name, '/', n);
    return slash && slash > name && (size_t)(name + n - slash) == 9
           && !memcmp(slash, "/data.pkl", 9);
}

const struct la_reader_ops la_reader_pt = { pt_open, pt_next, pt_close };
