/* split_overlap.c - see split_overlap.h. */
#include "split_overlap.h"

#include <ftw.h>     /* nftw: a walk that keeps no list of paths */
#include <stdio.h>   /* fopen, fread, snprintf */
#include <stdlib.h>  /* qsort, bsearch, realloc */
#include <string.h>  /* strlen, memcmp */

#define WALK_FDS 32

/* FNV-1a, 64 bits: the key of a path or of a file's bytes. Not a secure
 * hash: two splits are not adversaries, and at 10^7 files a chance match
 * of two keys is about 1 in 10^5. */
static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
#define FNV_START 0xcbf29ce484222325ull

/* The key of a file's bytes (its length first), or -1 when it cannot be read. */
static int content_key(const char *path, uint64_t *key)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char buf[1 << 16];
    uint64_t h = FNV_START, len = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        h = fnv1a(h, buf, got);
        len += got;
    }
    int bad = ferror(f);
    fclose(f);
    *key = fnv1a(h, (const unsigned char *)&len, sizeof len);
    return bad ? -1 : 0;
}

/* nftw's callback has no argument of its own: the walk's state, one walk
 * at a time (the run's main thread does them all). */
static struct walk {
    size_t root_len;
    int by_content;
    struct la_split_keys *keys;
    /* la_split_overlap's second walk: the keys to find, and what it found */
    const struct la_split_keys *find;
    const char *other;
    struct la_overlap *o;
} g_walk;

/* dir's length without its trailing slashes: paths below it go on with "/". */
static size_t trimmed_len(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return n;
}

/* A file directly in the split folder that describes the split rather
 * than being one of its samples: a README, a data.yaml, Ultralytics'
 * labels.cache, a class list, a `datasets` folder's own JSON. */
static int split_metadata(const char *rel)
{
    static const char *const names[] = { "data.yaml", "data.yml", "classes.txt", "labels.txt",
                                         "dataset.json", "dataset_info.json", "state.json",
                                         "dataset_dict.json", NULL };
    if (strchr(rel, '/'))
        return 0;
    size_t n = strlen(rel);
    if (strncmp(rel, "README", 6) == 0 || strncmp(rel, "LICENSE", 7) == 0 ||
        (n > 6 && strcmp(rel + n - 6, ".cache") == 0))
        return 1;
    for (const char *const *k = names; *k; k++)
        if (strcmp(rel, *k) == 0)
            return 1;
    return 0;
}

static int hidden(const char *path, size_t root_len)
{
    for (const char *p = path + root_len; *p; p++)
        if (p[0] == '/' && p[1] == '.')
            return 1;
    return 0;
}

/* path below the walk's root, without the slashes between. */
static const char *below_root(const char *path)
{
    const char *rel = path + g_walk.root_len;
    while (*rel == '/')
        rel++;
    return rel;
}

/* Left out of the comparison: hidden files and the split's own metadata. */
static int not_a_sample(const char *path)
{
    return hidden(path, g_walk.root_len) || split_metadata(below_root(path));
}

static int key_of(const char *path, uint64_t *key)
{
    const char *rel = below_root(path);
    if (!g_walk.by_content) {
        *key = fnv1a(FNV_START, (const unsigned char *)rel, strlen(rel));
        return 0;
    }
    return content_key(path, key);
}

static int add_key(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    struct la_split_keys *k = g_walk.keys;
    if (type != FTW_F || not_a_sample(path))
        return 0;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 1024;
        uint64_t *more = realloc(k->keys, cap * sizeof *more);
        if (!more)
            return k->failed = 1;
        k->keys = more;
        k->cap = cap;
    }
    if (key_of(path, &k->keys[k->n]) != 0)
        return k->failed = 1;
    k->n++;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int la_split_keys_of(const char *dir, int by_content, struct la_split_keys *k)
{
    *k = (struct la_split_keys){ 0 };
    g_walk = (struct walk){ .root_len = trimmed_len(dir), .by_content = by_content, .keys = k };
    if (nftw(dir, add_key, WALK_FDS, 0) != 0)
        k->failed = 1;
    if (k->n)
        qsort(k->keys, k->n, sizeof *k->keys, by_key);
    return k->failed ? -1 : 0;
}

/* Whether files x and y hold the same bytes. */
static int same_bytes(const char *x, const char *y)
{
    FILE *f = fopen(x, "rb"), *g = fopen(y, "rb");
    int same = f && g;
    unsigned char a[1 << 15], b[1 << 15];
    while (same) {
        size_t n = fread(a, 1, sizeof a, f), m = fread(b, 1, sizeof b, g);
        same = n == m && memcmp(a, b, n) == 0 && !ferror(f) && !ferror(g);
        if (n == 0)
            break;
    }
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    return same;
}

/* rel among o's examples if it is one of the smallest paths met: the same
 * examples whatever order the file system lists a folder in. */
static void keep_example(struct la_overlap *o, const char *rel)
{
    size_t at = o->n_examples;
    while (at > 0 && strcmp(rel, o->examples[at - 1]) < 0)
        at--;
    if (at >= LA_OVERLAP_EXAMPLES)
        return;
    size_t last = o->n_examples < LA_OVERLAP_EXAMPLES ? o->n_examples++ : LA_OVERLAP_EXAMPLES - 1;
    memmove(o->examples[at + 1], o->examples[at], (last - at) * sizeof o->examples[0]);
    snprintf(o->examples[at], sizeof o->examples[0], "%s", rel);
}

/* The second walk, over split a: each file whose key b holds too is a
 * match, confirmed by its bytes where the key is its path. */
static int note_match(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    uint64_t key;
    if (type != FTW_F || not_a_sample(path) || key_of(path, &key) != 0 ||
        !bsearch(&key, g_walk.find->keys, g_walk.find->n, sizeof key, by_key))
        return 0;
    const char *rel = below_root(path);
    if (!g_walk.by_content) {
        char twin[8192];
        snprintf(twin, sizeof twin, "%.*s/%s", (int)trimmed_len(g_walk.other), g_walk.other,
                 rel);
        if (!same_bytes(path, twin))
            return 0;
    }
    keep_example(g_walk.o, rel);
    g_walk.o->count++;
    return 0;
}

/* Whether sorted a and b share a key: the second walk only where they do. */
static int any_common(const struct la_split_keys *a, const struct la_split_keys *b)
{
    for (size_t i = 0, j = 0; i < a->n && j < b->n;)
        if (a->keys[i] == b->keys[j])
            return 1;
        else if (a->keys[i] < b->keys[j])
            i++;
        else
            j++;
    return 0;
}

void la_split_overlap(const char *a, const struct la_split_keys *ka, const char *b,
                      const struct la_split_keys *kb, int by_content, struct la_overlap *o)
{
    *o = (struct la_overlap){ 0 };
    if (!any_common(ka, kb))
        return;
    g_walk = (struct walk){ .root_len = trimmed_len(a), .by_content = by_content, .find = kb,
                            .other = b, .o = o };
    nftw(a, note_match, WALK_FDS, 0);
}

void la_split_keys_free(struct la_split_keys *k)
{
    free(k->keys);
    *k = (struct la_split_keys){ 0 };
}
