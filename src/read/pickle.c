/* pickle.c - a strict, never-executing reader of torch.save's pickles: see pickle.h.
 *
 * The machine is Python's (pickletools documents it): a stack of values, a
 * stack of marks, a memo. Values live in one growing array and are referred
 * to by index, so DUP, memo gets and shared containers copy nothing. */
#include "pickle.h"

#include <math.h>   /* ldexp */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* malloc, realloc, free */
#include <string.h> /* memcpy, strcmp, memchr */

#define MAX_STACK (1u << 20)
#define MAX_MEMO (1u << 20)
#define MAX_MARKS 4096
#define NO_VALUE UINT32_MAX

/* The callables a saved tensor uses; GLOBAL of anything else is refused. */
enum callable { CALL_REBUILD_V2, CALL_REBUILD, CALL_ORDERED_DICT, CALL_STORAGE };

static const struct {
    const char *module, *name;
    enum la_dtype dtype;
    int bf16;
} storages[] = {
    { "torch", "BoolStorage", LA_DT_BOOL, 0 },     { "torch", "ByteStorage", LA_DT_UINT8, 0 },
    { "torch", "CharStorage", LA_DT_INT8, 0 },     { "torch", "ShortStorage", LA_DT_INT16, 0 },
    { "torch", "IntStorage", LA_DT_INT32, 0 },     { "torch", "LongStorage", LA_DT_INT64, 0 },
    { "torch", "HalfStorage", LA_DT_FLOAT16, 0 },  { "torch", "BFloat16Storage", LA_DT_FLOAT32, 1 },
    { "torch", "FloatStorage", LA_DT_FLOAT32, 0 }, { "torch", "DoubleStorage", LA_DT_FLOAT64, 0 },
};

struct machine {
    struct la_pickle *p;
    const unsigned char *data;
    size_t len, pos, op_at;
    uint32_t *stack;
    size_t sp, scap;
    size_t marks[MAX_MARKS];
    size_t nmarks;
    uint32_t *memo;
    size_t memocap;
    uint32_t memo_next;          /* MEMOIZE's next key */
};

static int fail(struct machine *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct machine *m, const char *fmt, ...)
{
    int k = snprintf(m->p->err, sizeof m->p->err, "byte %zu: ", m->op_at);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->p->err + k, sizeof m->p->err - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

const char *la_pickle_kind_name(enum la_pv_kind k)
{
    static const char *const names[] = { "None", "bool", "int", "float", "str", "tuple",
                                         "list", "dict", "callable", "storage", "tensor" };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "value";
}

// ---- values ---------------------------------------------------------------

/* A new value of kind k. @return its index, or NO_VALUE (p->err set through m). */
static uint32_t new_value(struct machine *m, enum la_pv_kind k)
{
    struct la_pickle *p = m->p;
    if (p->nv >= LA_PICKLE_MAX_VALUES)
        return fail(m, "pickle holds over %u values (a label file's holds a few)",
                    LA_PICKLE_MAX_VALUES), NO_VALUE;
    if (p->nv == p->vcap) {
        uint32_t cap = p->vcap ? p->vcap * 2 : 64;
        struct la_pv *v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return fail(m, "out of memory"), NO_VALUE;
        p->v = v;
        p->vcap = cap;
    }
    p->v[p->nv] = (struct la_pv){ .kind = k };
    return p->nv++;
}

static int add_item(struct machine *m, uint32_t container, uint32_t item)
{
    struct la_pv *c = &m->p->v[container];
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 4;
        uint32_t *items = realloc(c->items, cap * sizeof *items);
        if (!items)
            return fail(m, "out of memory");
        c->items = items;
        c->cap = cap;
    }
    c->items[c->n++] = item;
    return 0;
}

// ---- the stacks and the memo -------------------------------------------

static int push(struct machine *m, uint32_t v)
{
    if (v == NO_VALUE)
        return -1;
    if (m->sp == m->scap) {
        size_t cap = m->scap ? m->scap * 2 : 64;
        uint32_t *s = cap <= MAX_STACK ? realloc(m->stack, cap * sizeof *s) : NULL;
        if (!s)
            return fail(m, "pickle stack over %u values", MAX_STACK);
        m->stack = s;
        m->scap = cap;
    }
    m->stack[m->sp++] = v;
    return 0;
}

/* Push v again (DUP, a memo get): it is then referred to more than once. */
static int push_shared(struct machine *m, uint32_t v)
{
    m->p->v[v].pinned = 1;
    return push(m, v);
}

/* The stack's floor: values below the last mark belong to an outer level. */
static size_t floor_of(const struct machine *m)
{
    return m->nmarks ? m->marks[m->nmarks - 1] : 0;
}

static int pop(struct machine *m, uint32_t *v)
{
    if (m->sp <= floor_of(m))
        return fail(m, "pickle pops an empty stack");
    *v = m->stack[--m->sp];
    return 0;
}

static int top(struct machine *m, uint32_t *v)
{
    if (m->sp <= floor_of(m))
        return fail(m, "pickle reads an empty stack");
    *v = m->stack[m->sp - 1];
    return 0;
}

/* Pop to the last mark: the values above it are stack[*from .. m->sp). */
static int pop_mark(struct machine *m, size_t *from)
{
    if (!m->nmarks)
        return fail(m, "pickle has no mark to pop to");
    *from = m->marks[--m->nmarks];
    return 0;
}

static int memo_put(struct machine *m, uint64_t key)
{
    uint32_t v = 0;
    if (top(m, &v) != 0)
        return -1;
    if (key >= MAX_MEMO)
        return fail(m, "pickle memo key %llu is over %u", (unsigned long long)key, MAX_MEMO);
    if (key >= m->memocap) {
        size_t cap = m->memocap ? m->memocap : 64;
        while (cap <= key)
            cap *= 2;
        uint32_t *memo = realloc(m->memo, cap * sizeof *memo);
        if (!memo)
            return fail(m, "out of memory");
        for (size_t i = m->memocap; i < cap; i++)
            memo[i] = NO_VALUE;
        m->memo = memo;
        m->memocap = cap;
    }
    m->memo[key] = v;
    m->p->v[v].pinned = 1;
    return 0;
}

static int memo_get(struct machine *m, uint64_t key)
{
    if (key >= m->memocap || m->memo[key] == NO_VALUE)
        return fail(m, "pickle gets memo key %llu, never put", (unsigned long long)key);
    return push_shared(m, m->memo[key]);
}

// ---- reading operands ---------------------------------------------------------

static int need(struct machine *m, size_t n)
{
    if (n > m->len - m->pos)
        return fail(m, "pickle ends inside an opcode's operand (truncated)");
    return 0;
}

static uint64_t le(const unsigned char *b, unsigned n)
{
    uint64_t x = 0;
    for (unsigned i = n; i-- > 0;)
        x = x << 8 | b[i];
    return x;
}

/* An unsigned little-endian operand of n bytes. */
static int arg(struct machine *m, unsigned n, uint64_t *out)
{
    if (need(m, n) != 0)
        return -1;
    *out = le(m->data + m->pos, n);
    m->pos += n;
    return 0;
}

static uint32_t new_int(struct machine *m, int64_t i)
{
    uint32_t v = new_value(m, LA_PV_INT);
    if (v != NO_VALUE)
        m->p->v[v].i = i;
    return v;
}

/* Byte i of the magnitude of the two's-complement integer b[0..n), whose
 * lowest non-zero byte is b[low]: -x is ~x + 1, whose carry stops there. */
static unsigned magnitude_byte(const unsigned char *b, uint64_t i, int neg, uint64_t low)
{
    if (!neg)
        return b[i];
    return i < low ? 0 : i == low ? (unsigned char)-b[i] : (unsigned char)~b[i];
}

/* An integer beyond 64 bits (magnitude bytes [0, hi), bit length `bits`)
 * rounded to a double as Python's float(x) rounds it:
 * to nearest, ties to even, from its top 64 bits and whether any bit below
 * them is set. inf beyond a double's range. */
static double long_to_double(const unsigned char *b, uint64_t hi, uint64_t bits, int neg,
                             uint64_t low)
{
    uint64_t i = hi - 1, w = magnitude_byte(b, i, neg, low);
    unsigned have = (unsigned)(bits - 8 * i);   /* the top byte's bits */
    int sticky = 0;
    while (have + 8 <= 64) {
        w = w << 8 | magnitude_byte(b, --i, neg, low);
        have += 8;
    }
    if (have < 64) {                             /* the high bits of one more byte */
        unsigned r = 64 - have, byte = magnitude_byte(b, --i, neg, low);
        w = w << r | byte >> (8 - r);
        sticky = (byte & ((1u << (8 - r)) - 1)) != 0;
    }
    while (!sticky && i > 0)
        sticky = magnitude_byte(b, --i, neg, low) != 0;
    uint64_t mant = w >> 11, rest = w & 0x7ff;
    if (rest > 0x400 || (rest == 0x400 && (sticky || (mant & 1))))
        mant++;
    double d = ldexp((double)mant, (int)(bits - 53 < 4096 ? bits - 53 : 4096));
    return neg ? -d : d;
}

/* LONG1, LONG4: a two's-complement little-endian integer of n bytes. One that
 * fits in int64 is an int; a larger one (a Python int) is an int marked big,
 * which only a float32 vector can hold (la_pickle_vector). */
static int op_long(struct machine *m, unsigned lenbytes)
{
    uint64_t n = 0, low = 0, hi = 0;
    if (arg(m, lenbytes, &n) != 0 || need(m, n) != 0)
        return -1;
    const unsigned char *b = m->data + m->pos;
    int neg = n > 0 && (b[n - 1] & 0x80);
    m->pos += n;
    while (low < n && b[low] == 0)
        low++;
    for (hi = n; hi > 0 && magnitude_byte(b, hi - 1, neg, low) == 0;)
        hi--;
    unsigned top = hi ? magnitude_byte(b, hi - 1, neg, low) : 0, tb = 0;
    while (top >> tb)
        tb++;
    uint64_t bits = hi ? 8 * (hi - 1) + tb : 0;
    int is_min = neg && bits == 64 && low == hi - 1 && top == 0x80;   /* -2^63 */
    if (bits <= 63 || is_min) {
        uint64_t x = 0;
        for (uint64_t i = hi; i-- > 0;)
            x = x << 8 | magnitude_byte(b, i, neg, low);
        return push(m, new_int(m, is_min ? INT64_MIN : neg ? -(int64_t)x : (int64_t)x));
    }
    uint32_t v = new_value(m, LA_PV_INT);
    if (v != NO_VALUE) {
        double d = long_to_double(b, hi, bits, neg, low);
        m->p->v[v].f = d;
        m->p->v[v].i = neg ? INT64_MIN : INT64_MAX;
        m->p->v[v].big = isinf(d) ? 2 : 1;
    }
    return push(m, v);
}

/* A string operand of n bytes: a str value (bytes with a NUL are refused). */
static int op_string(struct machine *m, unsigned lenbytes)
{
    uint64_t n = 0;
    if (arg(m, lenbytes, &n) != 0 || need(m, n) != 0)
        return -1;
    if (memchr(m->data + m->pos, 0, n))
        return fail(m, "pickle string holds a NUL byte");
    uint32_t v = new_value(m, LA_PV_STR);
    char *s = v == NO_VALUE ? NULL : malloc(n + 1);
    if (v != NO_VALUE && !s)
        return fail(m, "out of memory");
    if (s) {
        memcpy(s, m->data + m->pos, n);
        s[n] = '\0';
        m->p->v[v].s = s;
    }
    m->pos += n;
    return push(m, v);
}

static int op_float(struct machine *m)
{
    uint64_t bits = 0;
    if (need(m, 8) != 0)
        return -1;
    for (int i = 0; i < 8; i++)                  /* big-endian IEEE 754 */
        bits = bits << 8 | m->data[m->pos + i];
    m->pos += 8;
    uint32_t v = new_value(m, LA_PV_FLOAT);
    if (v != NO_VALUE)
        memcpy(&m->p->v[v].f, &bits, sizeof bits);
    return push(m, v);
}

// ---- callables ---------------------------------------------------------

/* The callable module.name, if allowed; else the refusal naming it. */
static int global(struct machine *m, const char *module, const char *name)
{
    int64_t which = -1, st = -1;
    if (!strcmp(module, "torch._utils") && !strcmp(name, "_rebuild_tensor_v2"))
        which = CALL_REBUILD_V2;
    else if (!strcmp(module, "torch._utils") && !strcmp(name, "_rebuild_tensor"))
        which = CALL_REBUILD;
    else if (!strcmp(module, "collections") && !strcmp(name, "OrderedDict"))
        which = CALL_ORDERED_DICT;
    for (size_t i = 0; which < 0 && i < sizeof storages / sizeof *storages; i++)
        if (!strcmp(module, storages[i].module) && !strcmp(name, storages[i].name))
            which = CALL_STORAGE, st = (int64_t)i;
    if (which < 0)
        return fail(m, "pickle calls %.60s.%.60s: only tensors and dicts, lists and tuples "
                    "of them are read (the pickle is never run)", module, name);
    uint32_t v = new_value(m, LA_PV_GLOBAL);
    if (v != NO_VALUE) {
        m->p->v[v].i = which;
        m->p->v[v].numel = (uint64_t)st;         /* the storages[] row */
    }
    return push(m, v);
}

/* GLOBAL: "module\nname\n" as operands. */
static int op_global(struct machine *m)
{
    char module[128], name[128];
    char *parts[2] = { module, name };
    for (int k = 0; k < 2; k++) {
        const unsigned char *nl = memchr(m->data + m->pos, '\n', m->len - m->pos);
        size_t n = nl ? (size_t)(nl - (m->data + m->pos)) : 0;
        if (!nl)
            return fail(m, "pickle ends inside an opcode's operand (truncated)");
        if (n >= sizeof module)
            return fail(m, "pickle GLOBAL with an over-long name");
        memcpy(parts[k], m->data + m->pos, n);
        parts[k][n] = '\0';
        for (size_t i = 0; i < n; i++)           /* names go into one-line messages */
            if ((unsigned char)parts[k][i] < 0x20 || parts[k][i] == 0x7f)
                parts[k][i] = '?';
        m->pos += n + 1;
    }
    return global(m, module, name);
}

static int op_stack_global(struct machine *m)
{
    uint32_t mod = 0, name = 0;
    if (pop(m, &name) != 0 || pop(m, &mod) != 0)
        return -1;
    const struct la_pv *a = &m->p->v[mod], *b = &m->p->v[name];
    if (a->kind != LA_PV_STR || b->kind != LA_PV_STR)
        return fail(m, "pickle STACK_GLOBAL of a non-string");
    char module[128], nm[128];
    snprintf(module, sizeof module, "%s", a->s);
    snprintf(nm, sizeof nm, "%s", b->s);
    for (char *c = module; *c; c++)
        *c = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
    for (char *c = nm; *c; c++)
        *c = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
    return global(m, module, nm);
}

static int is_int(const struct la_pickle *p, uint32_t v, int64_t min)
{
    return p->v[v].kind == LA_PV_INT && !p->v[v].big && p->v[v].i >= min;
}

/* BINPERSID's ('storage', torch.XStorage, key, location, numel). */
static int op_persid(struct machine *m)
{
    struct la_pickle *p = m->p;
    uint32_t pid = 0;
    if (pop(m, &pid) != 0)
        return -1;
    const struct la_pv *t = &p->v[pid];
    if (t->kind != LA_PV_TUPLE || t->n != 5 || p->v[t->items[0]].kind != LA_PV_STR
        || strcmp(p->v[t->items[0]].s, "storage") != 0)
        return fail(m, "pickle persistent id is not a ('storage', ...) tuple");
    const struct la_pv *type = &p->v[t->items[1]], *key = &p->v[t->items[2]];
    if (type->kind != LA_PV_GLOBAL || type->i != CALL_STORAGE || key->kind != LA_PV_STR
        || !is_int(p, t->items[4], 0))
        return fail(m, "pickle storage with a bad type, key or size");
    for (const char *c = key->s; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || *c == '_'))
            return fail(m, "pickle storage key '%.40s' is not a plain name", key->s);
    uint32_t v = new_value(m, LA_PV_STORAGE);
    if (v == NO_VALUE)
        return -1;
    t = &p->v[pid];                              /* new_value may have moved p->v */
    struct la_pv *s = &p->v[v];
    s->dtype = storages[p->v[t->items[1]].numel].dtype;
    s->bf16 = storages[p->v[t->items[1]].numel].bf16;
    s->numel = (uint64_t)p->v[t->items[4]].i;
    s->s = strdup(p->v[t->items[2]].s);
    if (!s->s)
        return fail(m, "out of memory");
    return push(m, v);
}

/* A tuple of n non-negative ints into out[]. */
static int int_tuple(struct machine *m, uint32_t v, uint64_t *out, int *n)
{
    const struct la_pv *t = &m->p->v[v];
    if (t->kind != LA_PV_TUPLE || t->n > LA_PICKLE_MAX_DIMS)
        return fail(m, "tensor size or stride is not a tuple of at most %d ints",
                    LA_PICKLE_MAX_DIMS);
    for (uint32_t i = 0; i < t->n; i++) {
        if (!is_int(m->p, t->items[i], 0))
            return fail(m, "tensor size or stride holds a negative or non-int value");
        out[i] = (uint64_t)m->p->v[t->items[i]].i;
    }
    *n = (int)t->n;
    return 0;
}

/* _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) */
static int rebuild_tensor(struct machine *m, uint32_t args)
{
    struct la_pickle *p = m->p;
    const struct la_pv *a = &p->v[args];
    struct la_pv_tensor t = { 0 };
    int nstride = 0;
    if (a->n < 4 || p->v[a->items[0]].kind != LA_PV_STORAGE || !is_int(p, a->items[1], 0))
        return fail(m, "tensor rebuilt from a bad storage or offset");
    t.storage = a->items[0];
    t.offset = (uint64_t)p->v[a->items[1]].i;
    if (int_tuple(m, a->items[2], t.shape, &t.ndim) != 0
        || int_tuple(m, a->items[3], t.stride, &nstride) != 0)
        return -1;
    if (nstride != t.ndim)
        return fail(m, "tensor with %d sizes and %d strides", t.ndim, nstride);
    if (p->nt == p->tcap) {
        uint32_t cap = p->tcap ? p->tcap * 2 : 8;
        struct la_pv_tensor *ts = realloc(p->t, cap * sizeof *ts);
        if (!ts)
            return fail(m, "out of memory");
        p->t = ts;
        p->tcap = cap;
    }
    uint32_t v = new_value(m, LA_PV_TENSOR);
    if (v == NO_VALUE)
        return -1;
    p->t[p->nt] = t;
    p->v[v].i = p->nt++;
    return push(m, v);
}

static int op_reduce(struct machine *m)
{
    uint32_t args = 0, fn = 0;
    if (pop(m, &args) != 0 || pop(m, &fn) != 0)
        return -1;
    const struct la_pv *f = &m->p->v[fn];
    if (m->p->v[args].kind != LA_PV_TUPLE)
        return fail(m, "pickle REDUCE without an argument tuple");
    if (f->kind != LA_PV_GLOBAL || f->i == CALL_STORAGE)
        return fail(m, "pickle calls a %s", la_pickle_kind_name(f->kind));
    if (f->i == CALL_ORDERED_DICT) {
        if (m->p->v[args].n != 0)
            return fail(m, "pickle calls OrderedDict with arguments");
        return push(m, new_value(m, LA_PV_DICT));
    }
    return rebuild_tensor(m, args);
}

// ---- containers -----------------------------------------------------------

/* A tuple of stack[from .. sp), which are popped. */
static int collect(struct machine *m, enum la_pv_kind k, size_t from)
{
    uint32_t v = new_value(m, k);
    if (v == NO_VALUE)
        return -1;
    for (size_t i = from; i < m->sp; i++)
        if (add_item(m, v, m->stack[i]) != 0)
            return -1;
    m->sp = from;
    return push(m, v);
}

static int op_tuple_n(struct machine *m, size_t n)
{
    if (m->sp - floor_of(m) < n)
        return fail(m, "pickle builds a tuple from an empty stack");
    return collect(m, LA_PV_TUPLE, m->sp - n);
}

static int is_number(const struct la_pv *x)
{
    return x->kind == LA_PV_BOOL || x->kind == LA_PV_INT || x->kind == LA_PV_FLOAT;
}

/* From now on every slot of nums holds a double. */
static void slots_to_double(struct la_pv_numbers *nums)
{
    for (uint64_t i = 0; !nums->as_double && i < nums->n; i++)
        nums->slot[i].f = (double)nums->slot[i].i;
    nums->as_double = 1;
}

/* Number x (a value index) packed at the end of list c: see la_pv_numbers. */
static int pack_number(struct machine *m, uint32_t c, uint32_t x)
{
    struct la_pv_numbers *nums = m->p->v[c].nums;
    if (!nums) {
        if (!(nums = m->p->v[c].nums = calloc(1, sizeof *nums)))
            return fail(m, "out of memory");
        nums->big_at = nums->huge_at = UINT64_MAX;
    }
    if (nums->n == nums->cap) {
        uint64_t cap = nums->cap ? nums->cap * 2 : 16;
        union la_pv_slot *slot = cap <= SIZE_MAX / sizeof *slot
                                     ? realloc(nums->slot, (size_t)cap * sizeof *slot) : NULL;
        if (!slot)
            return fail(m, "out of memory");
        nums->slot = slot;
        nums->cap = cap;
    }
    struct la_pv *v = &m->p->v[x];
    if (v->kind == LA_PV_FLOAT || v->big)
        slots_to_double(nums);
    if (v->big && nums->big_at == UINT64_MAX)
        nums->big_at = nums->n;
    if (v->big == 2 && nums->huge_at == UINT64_MAX)
        nums->huge_at = nums->n;
    nums->has_int |= v->kind == LA_PV_INT;
    nums->has_float |= v->kind == LA_PV_FLOAT;
    union la_pv_slot *slot = &nums->slot[nums->n++];
    if (nums->as_double)
        slot->f = v->kind == LA_PV_FLOAT || v->big ? v->f : (double)v->i;
    else
        slot->i = v->i;
    v->dead = !v->pinned;                        /* its one reference was the stack's */
    return 0;
}

/* List c holds something besides numbers: its packed numbers become values
 * again, items before it (their kinds as the packing left them: a float
 * list's ints are floats now, which only messages could tell). */
static int unpack_numbers(struct machine *m, uint32_t c)
{
    struct la_pv_numbers *nums = m->p->v[c].nums;
    m->p->v[c].nums = NULL;
    int rc = 0;
    for (uint64_t i = 0; nums && rc == 0 && i < nums->n; i++) {
        enum la_pv_kind k = nums->as_double ? LA_PV_FLOAT : nums->has_int ? LA_PV_INT : LA_PV_BOOL;
        uint32_t v = new_value(m, k);
        if (v == NO_VALUE)
            rc = -1;
        else {
            m->p->v[v].i = nums->slot[i].i;
            m->p->v[v].f = nums->slot[i].f;
            rc = add_item(m, c, v);
        }
    }
    if (nums)
        free(nums->slot);
    free(nums);
    return rc;
}

/* Item x at the end of list c: packed while c holds numbers only. */
static int append(struct machine *m, uint32_t c, uint32_t x)
{
    if (is_number(&m->p->v[x]) && m->p->v[c].n == 0)
        return pack_number(m, c, x);
    if (m->p->v[c].nums && unpack_numbers(m, c) != 0)
        return -1;
    return add_item(m, c, x);
}

/* Values packed into lists and referred to no more are dropped from the end
 * of the value array: a list of 10^7 numbers, appended in batches of 1000,
 * leaves no more than a batch of values behind at a time. */
static void reclaim(struct la_pickle *p)
{
    while (p->nv > 0 && p->v[p->nv - 1].dead)
        p->nv--;
}

/* APPEND(S)/SETITEM(S): stack[from .. sp) into the container below from. */
static int extend(struct machine *m, size_t from, int pairs)
{
    if (from == 0)
        return fail(m, "pickle appends to nothing");
    uint32_t c = m->stack[from - 1];
    enum la_pv_kind want = pairs ? LA_PV_DICT : LA_PV_LIST;
    if (m->p->v[c].kind != want)
        return fail(m, "pickle %s a %s", pairs ? "sets items of" : "appends to",
                    la_pickle_kind_name(m->p->v[c].kind));
    if (pairs && (m->sp - from) % 2)
        return fail(m, "pickle SETITEMS with a key and no value");
    for (size_t i = from; i < m->sp; i++) {
        if (pairs && !((i - from) % 2)) {
            enum la_pv_kind k = m->p->v[m->stack[i]].kind;
            if (k != LA_PV_STR && (k != LA_PV_INT || m->p->v[m->stack[i]].big))
                return fail(m, "dict key is a %s (only str and 64-bit int keys are read)",
                            la_pickle_kind_name(k));
        }
        if ((pairs ? add_item(m, c, m->stack[i]) : append(m, c, m->stack[i])) != 0)
            return -1;
    }
    m->sp = from;
    reclaim(m->p);
    return 0;
}

static int op_extend_mark(struct machine *m, int pairs)
{
    size_t from = 0;
    if (pop_mark(m, &from) != 0)
        return -1;
    if (from <= floor_of(m))                     /* the container lies below the mark */
        return fail(m, "pickle appends to nothing");
    return extend(m, from, pairs);
}

static int op_extend_one(struct machine *m, int pairs)
{
    size_t n = pairs ? 2 : 1;
    if (m->sp - floor_of(m) < n + 1)
        return fail(m, "pickle %s with too few values", pairs ? "SETITEM" : "APPEND");
    return extend(m, m->sp - n, pairs);
}

static int op_mark(struct machine *m)
{
    if (m->nmarks == MAX_MARKS)
        return fail(m, "pickle nests over %u marks", MAX_MARKS);
    m->marks[m->nmarks++] = m->sp;
    return 0;
}

static int op_collect_mark(struct machine *m, enum la_pv_kind k)
{
    size_t from = 0;
    if (pop_mark(m, &from) != 0)
        return -1;
    if (k == LA_PV_TUPLE)
        return collect(m, k, from);
    uint32_t d = new_value(m, k);
    if (push(m, d) != 0)
        return -1;
    /* DICT, LIST: the container then its items; rotate it below them and extend. */
    memmove(m->stack + from + 1, m->stack + from, (m->sp - 1 - from) * sizeof *m->stack);
    m->stack[from] = d;
    return extend(m, from + 1, k == LA_PV_DICT);
}

// ---- the loop -----------------------------------------------------------------

static int step(struct machine *m, unsigned char op, int *stop)
{
    uint64_t x = 0;
    uint32_t v = 0;
    size_t from = 0;
    switch (op) {
    case 0x80: return arg(m, 1, &x) != 0 ? -1 : x >= 2 && x <= 5 ? 0
                    : fail(m, "pickle protocol %llu (torch.save writes 2)", (unsigned long long)x);
    case 0x95: return arg(m, 8, &x);                          /* FRAME: a hint */
    case '.': *stop = 1; return 0;                            /* STOP */
    case '(': return op_mark(m);
    case '0': return pop(m, &v);                              /* POP */
    case '1': return pop_mark(m, &from) != 0 ? -1 : (m->sp = from, 0);   /* POP_MARK */
    case '2': return top(m, &v) != 0 ? -1 : push_shared(m, v);   /* DUP */
    case 'N': return push(m, new_value(m, LA_PV_NONE));
    case 0x88: case 0x89:                                     /* NEWTRUE, NEWFALSE */
        if ((v = new_value(m, LA_PV_BOOL)) != NO_VALUE)
            m->p->v[v].i = op == 0x88;
        return push(m, v);
    case 'J': return arg(m, 4, &x) != 0 ? -1 : push(m, new_int(m, (int32_t)(uint32_t)x));
    case 'K': return arg(m, 1, &x) != 0 ? -1 : push(m, new_int(m, (int64_t)x));
    case 'M': return arg(m, 2, &x) != 0 ? -1 : push(m, new_int(m, (int64_t)x));
    case 0x8a: return op_long(m, 1);
    case 0x8b: return op_long(m, 4);
    case 'G': return op_float(m);
    case 'X': return op_string(m, 4);                         /* BINUNICODE */
    case 0x8c: return op_string(m, 1);                        /* SHORT_BINUNICODE */
    case 0x8d: return op_string(m, 8);                        /* BINUNICODE8 */
    case 'T': return op_string(m, 4);                         /* BINSTRING */
    case 'U': return op_string(m, 1);                         /* SHORT_BINSTRING */
    case 'c': return op_global(m);
    case 0x93: return op_stack_global(m);
    case 'q': return arg(m, 1, &x) != 0 ? -1 : memo_put(m, x);    /* BINPUT */
    case 'r': return arg(m, 4, &x) != 0 ? -1 : memo_put(m, x);    /* LONG_BINPUT */
    case 0x94: return memo_put(m, m->memo_next++);                 /* MEMOIZE */
    case 'h': return arg(m, 1, &x) != 0 ? -1 : memo_get(m, x);    /* BINGET */
    case 'j': return arg(m, 4, &x) != 0 ? -1 : memo_get(m, x);    /* LONG_BINGET */
    case 'Q': return op_persid(m);
    case 'R': return op_reduce(m);
    case ')': return push(m, new_value(m, LA_PV_TUPLE));
    case 't': return op_collect_mark(m, LA_PV_TUPLE);
    case 0x85: return op_tuple_n(m, 1);
    case 0x86: return op_tuple_n(m, 2);
    case 0x87: return op_tuple_n(m, 3);
    case ']': return push(m, new_value(m, LA_PV_LIST));
    case 'l': return op_collect_mark(m, LA_PV_LIST);
    case 'a': return op_extend_one(m, 0);
    case 'e': return op_extend_mark(m, 0);
    case '}': return push(m, new_value(m, LA_PV_DICT));
    case 'd': return op_collect_mark(m, LA_PV_DICT);
    case 's': return op_extend_one(m, 1);
    case 'u': return op_extend_mark(m, 1);
    case 'b': return fail(m, "pickle sets an object's state (BUILD): not a plain tensor");
    case 0x81: case 0x92: return fail(m, "pickle creates an object (NEWOBJ): not a tensor");
    case 'i': case 'o': return fail(m, "pickle creates an object (INST/OBJ): not a tensor");
    case 'P': return fail(m, "pickle uses a text persistent id (PERSID): not torch.save's");
    default:
        if (op >= 0x20 && op < 0x7f)
            return fail(m, "pickle opcode '%c' (0x%02x) is not one a saved tensor uses", op, op);
        return fail(m, "pickle opcode 0x%02x is not one a saved tensor uses", op);
    }
}

int la_pickle_load(struct la_pickle *p, const unsigned char *data, size_t len)
{
    struct machine m = { .p = p, .data = data, .len = len };
    int stop = 0, rc = 0;
    p->root = NO_VALUE;
    while (!stop && rc == 0) {
        m.op_at = m.pos;
        if (m.pos >= len) {
            rc = fail(&m, "pickle ends without STOP (truncated)");
            break;
        }
        rc = step(&m, data[m.pos++], &stop);
    }
    m.op_at = m.pos;
    if (rc == 0 && (m.sp != 1 || m.nmarks))
        rc = fail(&m, "pickle stops with %zu values and %zu marks on its stack", m.sp, m.nmarks);
    if (rc == 0 && m.pos != len)
        rc = fail(&m, "%zu bytes after the pickle's STOP", len - m.pos);
    if (rc == 0)
        p->root = m.stack[0];
    free(m.stack);
    free(m.memo);
    return rc;
}

// ---- lists and tuples of numbers -----------------------------------------

/* torch.tensor's dtype for the numbers seen and its first refused item. */
static void vector_of(struct la_pv_vector *out, uint64_t n, int has_int, int has_float,
                      uint64_t big_at, uint64_t huge_at)
{
    out->n = n;
    out->dtype = has_float || n == 0 ? LA_DT_FLOAT32 : has_int ? LA_DT_INT64 : LA_DT_BOOL;
    out->overflow_at = out->dtype == LA_DT_FLOAT32 ? huge_at : big_at;
    out->big_at = big_at;
    out->huge_at = huge_at;
}

int la_pickle_vector(const struct la_pickle *p, uint32_t v, struct la_pv_vector *out)
{
    const struct la_pv *c = &p->v[v];
    if (c->kind != LA_PV_LIST && c->kind != LA_PV_TUPLE)
        return 0;
    if (c->nums) {
        const struct la_pv_numbers *nums = c->nums;
        vector_of(out, nums->n, nums->has_int, nums->has_float, nums->big_at, nums->huge_at);
        return 1;
    }
    int has_int = 0, has_float = 0;
    uint64_t big_at = UINT64_MAX, huge_at = UINT64_MAX;
    for (uint32_t i = 0; i < c->n; i++) {
        const struct la_pv *x = &p->v[c->items[i]];
        if (!is_number(x))
            return 0;
        has_int |= x->kind == LA_PV_INT;
        has_float |= x->kind == LA_PV_FLOAT;
        if (x->big && big_at == UINT64_MAX)
            big_at = i;
        if (x->big == 2 && huge_at == UINT64_MAX)
            huge_at = i;
    }
    vector_of(out, c->n, has_int, has_float, big_at, huge_at);
    return 1;
}

/* Item i of vector c as a double or an int64, whichever it holds. */
static union la_pv_slot vector_item(const struct la_pickle *p, const struct la_pv *c, uint64_t i,
                                    int *is_double)
{
    if (c->nums) {
        *is_double = c->nums->as_double;
        return c->nums->slot[i];
    }
    const struct la_pv *x = &p->v[c->items[i]];
    *is_double = x->kind == LA_PV_FLOAT || x->big;
    return *is_double ? (union la_pv_slot){ .f = x->f } : (union la_pv_slot){ .i = x->i };
}

void la_pickle_vector_get(const struct la_pickle *p, uint32_t v, const struct la_pv_vector *vec,
                          uint64_t from, size_t n, void *out)
{
    const struct la_pv *c = &p->v[v];
    for (size_t k = 0; k < n; k++) {
        int is_double = 0;
        union la_pv_slot x = vector_item(p, c, from + k, &is_double);
        if (vec->dtype == LA_DT_FLOAT32)         /* float(x), then rounded to float32 */
            ((float *)out)[k] = (float)(is_double ? x.f : (double)x.i);
        else if (vec->dtype == LA_DT_INT64)
            ((int64_t *)out)[k] = x.i;
        else
            ((unsigned char *)out)[k] = x.i != 0;
    }
}

void la_pickle_free(struct la_pickle *p)
{
    for (uint32_t i = 0; i < p->nv; i++) {
        free(p->v[i].s);
        free(p->v[i].items);
        if (p->v[i].nums)
            free(p->v[i].nums->slot);
        free(p->v[i].nums);
    }
    free(p->v);
    free(p->t);
    memset(p, 0, sizeof *p);
}
