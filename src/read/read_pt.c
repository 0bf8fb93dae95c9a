/* read_pt.c - tensors saved by torch.save (the zip format of PyTorch 1.6+).
 *
 * A .pt file is a zip archive (zip.c) of PREFIX/data.pkl, a pickle of the
 * saved object, and one member PREFIX/data/KEY per storage. The pickle is
 * read by pickle.c, which never runs it. The tensor chosen (the object itself,
 * or one in a dict, list or tuple: --array) is read as torch would see it:
 * the storage's elements at offset + sum(index[k] * stride[k]), in C order.
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
#define PT_PICKLE_MAX ((uint64_t)16 << 20)

/* The legacy (pre-1.6) format: a bare pickle opening with torch's magic number. */
static const unsigned char legacy_magic[] = {
    0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19
};

struct pt_state {
    struct la_zip zip;
    struct la_pickle pk;
    const struct la_pv_tensor *t;
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

static int read_pickle(struct la_reader *r, struct pt_state *st, size_t *plen)
{
    const struct la_zip_member *m = find_pickle(&st->zip, plen);
    if (is_torchscript(&st->zip))
        return la_reader_set_error(r, "a TorchScript archive (torch.jit.save), not a "
                                   "torch.save file: save the labels with torch.save");
    if (!m)
        return la_reader_set_error(r, "zip archive without a data.pkl member: not a "
                                   "torch.save file");
    unsigned char *pkl = read_member(r, st, m, PT_PICKLE_MAX);
    if (!pkl)
        return -1;
    int rc = la_pickle_load(&st->pk, pkl, (size_t)m->usize);
    free(pkl);
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

/* "key" of a dict item or the index of a list item, for messages. */
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

/* The tensors' names: "a, b, c" cut short to fit. @return how many tensors. */
static uint32_t list_tensors(const struct la_pickle *p, const struct la_pv *c,
                             char *out, size_t cap, uint32_t *only)
{
    uint32_t n = 0;
    size_t len = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < item_count(c); i++) {
        if (p->v[item_value(c, i)].kind != LA_PV_TENSOR)
            continue;
        char name[64];
        item_label(p, c, i, name, sizeof name);
        if (len + strlen(name) + 8 < cap)
            len += (size_t)snprintf(out + len, cap - len, "%s%s", n ? ", " : "", name);
        else if (len + 5 < cap && (len == 0 || out[len - 1] != '.'))
            len += (size_t)snprintf(out + len, cap - len, ", ...");
        *only = item_value(c, i);
        n++;
    }
    return n;
}

/* The item named name: a dict's str key (the last one wins, as in a dict),
 * or a list's or tuple's index. @return its value, or UINT32_MAX. */
static uint32_t find_item(const struct la_pickle *p, const struct la_pv *c, const char *name)
{
    uint32_t hit = UINT32_MAX;
    char label[64];
    for (uint32_t i = 0; i < item_count(c); i++) {
        item_label(p, c, i, label, sizeof label);
        if (!strcmp(label, name))
            hit = item_value(c, i);
    }
    return hit;
}

static int choose_tensor(struct la_reader *r, struct pt_state *st)
{
    static const char *const preferred[] = { "labels", "label", "y", "targets" };
    const struct la_pickle *p = &st->pk;
    const struct la_pv *root = &p->v[p->root];
    const char *want = array_name(r);
    uint32_t v = UINT32_MAX;
    char names[300];
    if (root->kind == LA_PV_TENSOR && !want)
        v = p->root;
    else if (root->kind != LA_PV_DICT && root->kind != LA_PV_LIST && root->kind != LA_PV_TUPLE)
        return la_reader_set_error(r, "the file holds a %s, not %s", la_pickle_kind_name(root->kind),
                                   want ? "a dict, list or tuple (drop --array)" : "a tensor");
    else {
        uint32_t tensors = list_tensors(p, root, names, sizeof names, &v);
        if (want) {
            v = find_item(p, root, want);
            if (v == UINT32_MAX)
                return la_reader_set_error(r, "no item '%.100s' in the %s (tensors: %s)", want,
                                           la_pickle_kind_name(root->kind), names);
        } else if (tensors != 1) {
            v = UINT32_MAX;
            for (size_t i = 0; i < sizeof preferred / sizeof *preferred && tensors; i++)
                if ((v = find_item(p, root, preferred[i])) != UINT32_MAX
                    && p->v[v].kind == LA_PV_TENSOR)
                    break;
            if (tensors == 0)
                return la_reader_set_error(r, "no tensors in the %s", la_pickle_kind_name(root->kind));
            if (v == UINT32_MAX || p->v[v].kind != LA_PV_TENSOR)
                return la_reader_set_error(r, "several tensors (%s): choose one with --array", names);
        }
    }
    if (p->v[v].kind != LA_PV_TENSOR)
        return la_reader_set_error(r, "'%.100s' is a %s, not a tensor", want,
                                   la_pickle_kind_name(p->v[v].kind));
    st->t = &p->t[p->v[v].i];
    return 0;
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
    if (read_byteorder(r, st, prefix, plen) != 0 || choose_tensor(r, st) != 0
        || open_storage(r, st, prefix, plen) != 0)
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

static int pt_next(struct la_reader *r, struct la_chunk *out)
{
    struct pt_state *st = r->state;
    if (st->done == st->count)
        return 0;
    uint64_t left = st->count - st->done;
    size_t n = PT_CHUNK / st->esize;
    n = left < n ? (size_t)left : n;
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
    if (len < 30 || memcmp(head, "PK\3\4", 4) != 0)
        return 0;
    size_t n = (size_t)head[26] | (size_t)head[27] << 8;
    if (30 + n > len || n < 10)
        return 0;
    const char *name = (const char *)head + 30, *slash = memchr(name, '/', n);
    return slash && slash > name && (size_t)(name + n - slash) == 9
           && !memcmp(slash, "/data.pkl", 9);
}

const struct la_reader_ops la_reader_pt = { pt_open, pt_next, pt_close };
