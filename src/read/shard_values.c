/* shard_values.c - the value encodings the mds and litdata readers share:
 * a pickle read by the reader that never runs one (pickle.h), and a JSON
 * number or list of numbers. Each keeps what it decoded in the caller's
 * la_shard_scratch until the next call. */
#include "shard_values.h"
#include "reader.h" /* la_label_name_rank */
#include "util.h"   /* la_grow */

#include <math.h>   /* floor */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* memset, strcmp, strlen */
#include <strings.h> /* strcasecmp */

void la_shard_scratch_free(struct la_shard_scratch *sc)
{
    la_pickle_free(&sc->pickle);
    memset(&sc->pickle, 0, sizeof sc->pickle);
    free(sc->buf);
    sc->buf = NULL;
    sc->cap = 0;
}

static int room(struct la_shard_scratch *sc, uint64_t n, size_t esize, char *why, size_t whylen)
{
    if (n > LA_SHARD_SCRATCH_MAX / esize ||
        la_grow(&sc->buf, &sc->cap, n ? (size_t)n * esize : 1, 256) != 0) {
        snprintf(why, whylen, "%llu values: out of memory", (unsigned long long)n);
        return -1;
    }
    return 0;
}

int la_shard_pickle(struct la_shard_scratch *sc, const unsigned char *data, size_t len,
                    struct la_shard_values *out, char *why, size_t whylen)
{
    la_pickle_free(&sc->pickle);
    memset(&sc->pickle, 0, sizeof sc->pickle);
    struct la_pickle *p = &sc->pickle;
    if (la_pickle_load(p, data, len) != 0) {
        snprintf(why, whylen, "pickle: %s", p->err);
        return -1;
    }
    const struct la_pv *v = &p->v[p->root];
    if ((v->kind == LA_PV_INT && !v->big) || v->kind == LA_PV_BOOL) {
        if (room(sc, 1, 8, why, whylen) != 0)
            return -1;
        memcpy(sc->buf, &v->i, 8);
        *out = (struct la_shard_values){ .dtype = LA_DT_INT64, .values = sc->buf, .n = 1 };
        return 0;
    }
    struct la_pv_vector vec;
    if (!la_pickle_vector(p, p->root, &vec)) {
        snprintf(why, whylen, "the pickle holds a %s (only an int or a list of ints is read)",
                 v->kind == LA_PV_INT ? "int beyond int64" : la_pickle_kind_name(v->kind));
        return -1;
    }
    if (vec.overflow_at != UINT64_MAX) {
        snprintf(why, whylen, "the pickle's item %llu is an int beyond int64",
                 (unsigned long long)vec.overflow_at);
        return -1;
    }
    size_t esize = la_dtype_info(vec.dtype)->size;
    if (room(sc, vec.n, esize, why, whylen) != 0)
        return -1;
    la_pickle_vector_get(p, p->root, &vec, 0, (size_t)vec.n, sc->buf);
    *out = (struct la_shard_values){ .dtype = vec.dtype, .values = sc->buf, .n = vec.n };
    return 0;
}

/* Whether item is a number that int64 holds exactly (a JSON integer). */
static int json_int(const cJSON *item, int64_t *v)
{
    double d = item->valuedouble;
    if (d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return 0;
    *v = (int64_t)d;
    return 1;
}

/* Whether the JSON text (numbers, booleans, brackets: nothing else was
 * accepted) spells a number as a float (2.0, 1e3): Python's json.loads makes
 * it a float, and torch.tensor([1, 2.0]) a float tensor, whatever its value. */
static int float_literal(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] == '.' || ((p[i] == 'e' || p[i] == 'E') && i > 0 && p[i - 1] >= '0' &&
                            p[i - 1] <= '9'))
            return 1;
    return 0;
}

int la_shard_json(struct la_shard_scratch *sc, const unsigned char *data, size_t len,
                  struct la_shard_values *out, char *why, size_t whylen)
{
    cJSON *root = cJSON_ParseWithLength((const char *)data, len);
    if (!root) {
        snprintf(why, whylen, "not valid JSON");
        return -1;
    }
    int is_list = cJSON_IsArray(root);
    uint64_t n = is_list ? (uint64_t)cJSON_GetArraySize(root) : 1;
    int floats = 0, numbers = 0, rc = -1;
    for (const cJSON *it = is_list ? root->child : root; it; it = is_list ? it->next : NULL) {
        int64_t ignored;
        if (!cJSON_IsNumber(it) && !cJSON_IsBool(it)) {
            snprintf(why, whylen, "the JSON holds %s (only a number or a list of numbers is read)",
                     is_list ? "a list of other things" : "no number");
            goto done;
        }
        numbers |= cJSON_IsNumber(it);   /* true, false: 1, 0 (torch: [True, 3] is int64) */
        floats |= cJSON_IsNumber(it) && !json_int(it, &ignored);
    }
    floats |= float_literal(data, len);
    /* only booleans: a bool tensor, as torch.tensor([True, False]) makes */
    enum la_dtype dt = floats ? LA_DT_FLOAT64 : numbers || n == 0 ? LA_DT_INT64 : LA_DT_BOOL;
    if (room(sc, n, 8, why, whylen) != 0)
        goto done;
    uint64_t k = 0;
    for (const cJSON *it = is_list ? root->child : root; it; it = is_list ? it->next : NULL, k++) {
        int64_t v = cJSON_IsTrue(it);
        if (dt == LA_DT_BOOL)
            ((uint8_t *)sc->buf)[k] = (uint8_t)v;
        else if (dt == LA_DT_FLOAT64)
            ((double *)sc->buf)[k] = cJSON_IsBool(it) ? (double)v : it->valuedouble;
        else if (cJSON_IsBool(it) || json_int(it, &v))
            ((int64_t *)sc->buf)[k] = v;
    }
    *out = (struct la_shard_values){ .dtype = dt, .values = sc->buf, .n = n };
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

/* After the default label names (la_label_name_rank): the token columns of a
 * language-model dataset. */
static const char *const token_names[] = { "input_ids", "tokens" };

/* The best-ranked of names by the default label names, then the token names. */
static long pick_default(const char *const *names, size_t n)
{
    long found = -1;
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        int rank = la_label_name_rank(names[i], strlen(names[i]));
        if (rank >= 0 && (best < 0 || rank < best))
            best = rank, found = (long)i;
    }
    for (size_t d = 0; found < 0 && d < sizeof token_names / sizeof token_names[0]; d++)
        for (size_t i = 0; i < n && found < 0; i++)
            if (strcasecmp(names[i], token_names[d]) == 0)
                found = (long)i;
    return found;
}

long la_shard_pick_column(const char *const *names, size_t n, const char *want)
{
    if (want) {
        for (size_t i = 0; i < n; i++)
            if (strcmp(names[i], want) == 0)
                return (long)i;
        for (size_t i = 0; i < n; i++)
            if (strcasecmp(names[i], want) == 0)
                return (long)i;
        uint64_t k;
        if (la_strtou64(want, &k) == 0 && k >= 1 && k <= n)
            return (long)k - 1;         /* 1-based, as for CSV (cut's numbers) */
        return -1;
    }
    return pick_default(names, n);
}

void la_shard_column_list(const char *const *names, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        used += k > 0 ? (size_t)k : 0;
    }
}
