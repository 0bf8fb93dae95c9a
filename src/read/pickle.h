/* pickle.h - a strict reader of the pickles torch.save writes, that never runs them.
 *
 * torch.load executes the pickle inside a .pt file: any callable it names is
 * called. This reader knows only the opcodes of protocols 2 to 5 that plain
 * data needs and the few callables a saved tensor uses
 * (torch._utils._rebuild_tensor_v2, the torch.*Storage types through
 * persistent ids, collections.OrderedDict); it builds a tree of plain values
 * and refuses anything else, naming what it met ("os.system"). Memory is
 * bounded by the pickle's length: values are shared, never copied, so a
 * "billion laughs" pickle costs what its bytes do.
 *
 * A list of plain numbers (torch.save(dataset.targets), CIFAR's labels) keeps
 * them packed, 8 bytes each, while it holds nothing else: a list of 10^7
 * labels costs a vector of them, not 10^7 values. */
#ifndef LA_PICKLE_H
#define LA_PICKLE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */
#include "dtype.h"

#define LA_PICKLE_MAX_DIMS 32
#define LA_PICKLE_MAX_VALUES (1u << 20)

enum la_pv_kind {
    LA_PV_NONE, LA_PV_BOOL, LA_PV_INT, LA_PV_FLOAT, LA_PV_STR,
    LA_PV_TUPLE, LA_PV_LIST, LA_PV_DICT,   /* dict: items are key, value, key, value ... */
    LA_PV_GLOBAL,                          /* one of the allowed callables */
    LA_PV_STORAGE,                         /* a persistent id: ('storage', type, key, loc, numel) */
    LA_PV_TENSOR,
};

struct la_pv_tensor {
    uint32_t storage;            /* value index of its LA_PV_STORAGE */
    uint64_t offset;             /* in elements */
    int ndim;
    uint64_t shape[LA_PICKLE_MAX_DIMS];
    uint64_t stride[LA_PICKLE_MAX_DIMS];   /* in elements */
};

/* A list's numbers, packed (see above). A slot holds an int64 (bools as 0
 * and 1) until a float, or an int beyond int64, is met; from then on every
 * slot holds a double, the value float(x) gives in Python. */
union la_pv_slot {
    int64_t i;
    double f;
};

struct la_pv_numbers {
    union la_pv_slot *slot;
    uint64_t n, cap;
    int has_int, has_float;      /* bools only while both are 0 */
    int as_double;
    uint64_t big_at;             /* the first int beyond int64, or UINT64_MAX */
    uint64_t huge_at;            /* the first int beyond a double's range, or UINT64_MAX */
};

/* What torch.tensor(x) makes of a list or tuple x of numbers: a vector of
 * dtype bool (bools only), int64 (an int among them) or float32 (a float
 * among them: torch's default dtype; an empty list too). */
struct la_pv_vector {
    uint64_t n;
    enum la_dtype dtype;
    /* The first item torch.tensor refuses, or UINT64_MAX: an int beyond int64
     * in an int64 vector ("Overflow when unpacking long"), or beyond a
     * double's range in a float32 one ("int too large to convert to float"). */
    uint64_t overflow_at;
    uint64_t big_at, huge_at;    /* the first int beyond int64, beyond a double */
};

struct la_pv {
    enum la_pv_kind kind;
    int64_t i;                   /* bool, int; global: which callable; tensor: index into tensors */
    double f;                    /* float; an int beyond int64 (big): its value as a double */
    unsigned char big;           /* int: beyond int64; 2: beyond a double too (f is inf) */
    unsigned char pinned;        /* in the memo or DUP'd: referred to more than once */
    unsigned char dead;          /* a number packed into a list, referred to no more */
    struct la_pv_numbers *nums;  /* list: its numbers while it holds nothing else */
    char *s;                     /* str; storage: its key ("0") */
    uint32_t *items;             /* tuple, list, dict */
    uint32_t n, cap;
    enum la_dtype dtype;         /* storage */
    int bf16;                    /* storage: bfloat16 (read as float32) */
    uint64_t numel;              /* storage */
};

struct la_pickle {
    struct la_pv *v;
    uint32_t nv, vcap;
    struct la_pv_tensor *t;
    uint32_t nt, tcap;
    uint32_t root;
    char err[256];
};

/** la_pickle_load() : read the pickle data[0..len) into p (zeroed by the caller).
 *  @return 0, or -1 with p->err ("byte 12: pickle calls os.system ..."). */
int la_pickle_load(struct la_pickle *p, const unsigned char *data, size_t len);

/** la_pickle_vector() : whether value v is a list or tuple of numbers only
 *  (bool, int, float; empty included), and if so what torch.tensor makes of
 *  it. @return 1 with *out filled, or 0. */
int la_pickle_vector(const struct la_pickle *p, uint32_t v, struct la_pv_vector *out);

/** la_pickle_vector_get() : items [from, from + n) of the vector v (as
 *  la_pickle_vector described it in *vec) into out, in vec->dtype: bool as
 *  bytes 0 and 1, int64, float32 (rounded from the double, as torch does). */
void la_pickle_vector_get(const struct la_pickle *p, uint32_t v, const struct la_pv_vector *vec,
                          uint64_t from, size_t n, void *out);

/** la_pickle_kind_name() : "tensor", "dict", ... for messages. */
const char *la_pickle_kind_name(enum la_pv_kind k);

void la_pickle_free(struct la_pickle *p);

#endif
