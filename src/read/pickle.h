/* pickle.h - a strict reader of the pickles torch.save writes, that never runs them.
 *
 * torch.load executes the pickle inside a .pt file: any callable it names is
 * called. This reader knows only the opcodes of protocols 2 to 5 that plain
 * data needs and the few callables a saved tensor uses
 * (torch._utils._rebuild_tensor_v2, the torch.*Storage types through
 * persistent ids, collections.OrderedDict); it builds a tree of plain values
 * and refuses anything else, naming what it met ("os.system"). Memory is
 * bounded by the pickle's length: values are shared, never copied, so a
 * "billion laughs" pickle costs what its bytes do. */
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

struct la_pv {
    enum la_pv_kind kind;
    int64_t i;                   /* bool, int; global: which callable; tensor: index into tensors */
    double f;
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

/** la_pickle_kind_name() : "tensor", "dict", ... for messages. */
const char *la_pickle_kind_name(enum la_pv_kind k);

void la_pickle_free(struct la_pickle *p);

#endif
