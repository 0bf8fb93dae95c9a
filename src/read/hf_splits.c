/* hf_splits.c - see hf_splits.h. */
#include "hf_splits.h"

#include <ctype.h>    /* isalnum, isdigit */
#include <dirent.h>   /* opendir, readdir */
#include <fnmatch.h>  /* fnmatch */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* qsort, free */
#include <string.h>   /* strcmp, strdup */
#include <sys/stat.h> /* stat */

/* Whether s[0..n) is "-DIGITS-of-DIGITS" at its end; its start into *at. */
static int shard_suffix(const char *s, size_t n, size_t *at)
{
    size_t i = n, digits = 0;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--, digits++;
    if (!digits || i < 4 || memcmp(s + i - 4, "-of-", 4) != 0)
        return 0;
    i -= 4;
    for (digits = 0; i > 0 && isdigit((unsigned char)s[i - 1]); i--)
        digits++;
    if (!digits || i == 0 || s[i - 1] != '-')
        return 0;
    *at = i - 1;
    return 1;
}

/* datasets' split names: \w+(\.\w+)* */
static int valid_split(const char *s, size_t n)
{
    if (!n || s[0] == '.' || s[n - 1] == '.')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || (s[i] == '.' && s[i + 1] != '.')))
            return 0;
    return 1;
}

int la_hf_split_of(const char *name, char *split, size_t splitlen)
{
    size_t n = strlen(name);
    if (n < 6 || strcmp(name + n - 6, ".arrow") != 0 || strncmp(name, "cache-", 6) == 0)
        return 0;
    n -= 6;
    size_t cut;
    if (shard_suffix(name, n, &cut))
        n = cut;
    size_t dash = n;
    while (dash > 0 && name[dash - 1] != '-')
        dash--;
    if (dash < 2 || !valid_split(name + dash, n - dash) || n - dash >= splitlen)
        return 0;               /* no builder before the '-', or no split after it */
    snprintf(split, splitlen, "%.*s", (int)(n - dash), name + dash);
    return 1;
}

int la_split_rank(const char *s)
{
    static const char *const order[] = { "train", "validation", "valid", "val", "dev", "test" };
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (strcmp(s, order[i]) == 0)
            return (int)i;
    return (int)(sizeof order / sizeof *order);
}

int la_split_order(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int rx = la_split_rank(x), ry = la_split_rank(y);
    return rx != ry ? rx - ry : strcmp(x, y);
}

void la_hf_splits_free(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int la_hf_cache_splits(const char *dir, const char *glob, char ***names)
{
    char path[4096];
    struct stat st;
    *names = NULL;
    snprintf(path, sizeof path, "%s/state.json", dir);
    if (stat(path, &st) == 0)
        return 0;
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    char **v = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    char split[LA_HF_SPLIT_MAX];
    while ((e = readdir(dp))) {
        if (!la_hf_split_of(e->d_name, split, sizeof split) ||
            (glob && fnmatch(glob, e->d_name, 0) != 0))
            continue;
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(v[i], split) == 0;
        if (seen)
            continue;
        if (n == cap) {
            char **w = realloc(v, (size_t)(cap = cap ? 2 * cap : 4) * sizeof *v);
            if (!w)
                goto oom;
            v = w;
        }
        if (!(v[n] = strdup(split)))
            goto oom;
        n++;
    }
    closedir(dp);
    if (n)
        qsort(v, (size_t)n, sizeof *v, la_split_order);
    *names = v;
    return n;
oom:
    closedir(dp);
    la_hf_splits_free(v, n);
    return -1;
}
