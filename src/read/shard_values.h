/* shard_values.h - the item encodings both shard readers (mds, litdata) read
 * beyond plain arrays: a pickle (through pickle.h, which never runs one:
 * an int or a list of ints, anything else refused by name) and JSON. */
#ifndef LA_SHARD_VALUES_H
#define LA_SHARD_VALUES_H

#include "pickle.h"
#include "shards.h"

#define LA_SHARD_SCRATCH_MAX ((size_t)1 << 30)

/* What the decoders keep between calls: the pickle read, the values built. */
struct la_shard_scratch {
    struct la_pickle pickle;
    void *buf;
    size_t cap;
};

void la_shard_scratch_free(struct la_shard_scratch *sc);

/** la_shard_pickle() : an int, or a list or tuple of numbers, pickled. Any
 *  callable other than the few plain data needs is refused by name (pickle.h).
 *  @return 0, or -1 with a reason in why. */
int la_shard_pickle(struct la_shard_scratch *sc, const unsigned char *data, size_t len,
                    struct la_shard_values *out, char *why, size_t whylen);

/** la_shard_json() : a JSON number or a list of numbers and booleans, as
 *  torch.tensor(json.loads(...)) types it: float64 when one is spelled as a
 *  float (2.0), bool when all are booleans, else int64 (true is 1).
 *  @return 0, or -1 with a reason in why. */
int la_shard_json(struct la_shard_scratch *sc, const unsigned char *data, size_t len,
                  struct la_shard_values *out, char *why, size_t whylen);

/** la_shard_pick_column() : the column of names[0..n) that want names
 *  (exactly, then ignoring case, then as a 1-based number), or with want NULL the
 *  first of the default names (label, labels, target, ..., input_ids,
 *  tokens). @return its index, or -1. */
long la_shard_pick_column(const char *const *names, size_t n, const char *want);

/** la_shard_column_list() : "a, b, c" into buf, for messages. */
void la_shard_column_list(const char *const *names, size_t n, char *buf, size_t len);

#endif
