/* split_folders.c - see split_folders.h. */
#include "split_folders.h"
#include "read/hf_splits.h" /* la_split_order, la_hf_splits_free, LA_HF_SPLIT_MAX */
#include "util.h"           /* la_is_directory, la_is_regular_file */

#include <cjson/cJSON.h>
#include <dirent.h>  /* opendir, readdir */
#include <stdio.h>   /* snprintf, fopen */
#include <stdlib.h>  /* malloc, qsort */
#include <string.h>  /* strcmp, strdup */

#define DICT_JSON_MAX (1 << 20) /* dataset_dict.json names splits: a few bytes each */

/* The folder names a dataset's splits go by (SPEC "Splits"). */
static int split_folder_name(const char *name)
{
    static const char *const names[] = { "train", "val", "valid", "validation", "test" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* names[n] = a copy of s, growing names; @return 0, or -1 out of memory. */
static int add_name(char ***names, int *n, const char *s)
{
    char **more = realloc(*names, (size_t)(*n + 1) * sizeof **names);
    if (!more)
        return -1;
    *names = more;
    if (!(more[*n] = strdup(s)))
        return -1;
    ++*n;
    return 0;
}

/* The whole of a small file, NUL-terminated, or NULL (why says so). */
static char *slurp(const char *path, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(DICT_JSON_MAX + 1) : NULL;
    size_t got = text ? fread(text, 1, DICT_JSON_MAX + 1, f) : 0;
    int bad = !f || !text || ferror(f) || got > DICT_JSON_MAX;
    if (f)
        fclose(f);
    if (bad) {
        snprintf(why, whylen, "%s: %s", path,
                 !f || !text ? "cannot be read" : got > DICT_JSON_MAX ? "over 1 MiB" : "read error");
        free(text);
        return NULL;
    }
    text[got] = '\0';
    return text;
}

/* A DatasetDict's splits: dataset_dict.json's "splits", each a folder of
 * root (DatasetDict.load_from_disk opens root/NAME for each). */
static int dict_splits(const char *root, const char *json_path, char ***names, char *why,
                       size_t whylen)
{
    char *text = slurp(json_path, why, whylen);
    if (!text)
        return -2;
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const cJSON *splits = cJSON_GetObjectItemCaseSensitive(doc, "splits");
    if (!cJSON_IsArray(splits)) {
        snprintf(why, whylen, "%s: %s", json_path,
                 doc ? "no \"splits\" list (DatasetDict.save_to_disk writes one)" : "not JSON");
        cJSON_Delete(doc);
        return -2;
    }
    int n = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, splits) {
        char dir[4096];
        if (!cJSON_IsString(s) || !*s->valuestring || strchr(s->valuestring, '/') ||
            strlen(s->valuestring) >= LA_HF_SPLIT_MAX || s->valuestring[0] == '.') {
            snprintf(why, whylen, "%s: a split name that is not a folder's", json_path);
            la_hf_splits_free(*names, n);
            *names = NULL;
            cJSON_Delete(doc);
            return -2;
        }
        snprintf(dir, sizeof dir, "%s/%s", root, s->valuestring);
        if (la_is_directory(dir) && add_name(names, &n, s->valuestring) != 0) {
            la_hf_splits_free(*names, n);
            *names = NULL;
            cJSON_Delete(doc);
            return -1;
        }
    }
    cJSON_Delete(doc);
    return n;
}

/* root's folders when each one not hidden has a split's name. */
static int named_splits(const char *root, char ***names)
{
    DIR *dp = opendir(root);
    if (!dp)
        return 0;
    int n = 0, others = 0;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(dp)) && !others) {
        if (e->d_name[0] == '.')
            continue;           /* hidden ones: no split, no class either */
        snprintf(p, sizeof p, "%s/%s", root, e->d_name);
        if (!la_is_directory(p))
            continue;           /* a README, a data.yaml: beside the splits */
        if (!split_folder_name(e->d_name))
            others = 1;
        else if (add_name(names, &n, e->d_name) != 0) {
            closedir(dp);
            la_hf_splits_free(*names, n);
            *names = NULL;
            return -1;
        }
    }
    closedir(dp);
    if (others) {               /* class folders, one of them named test: not splits */
        la_hf_splits_free(*names, n);
            *names = NULL;
        return 0;
    }
    return n;
}

int la_split_folders(const char *root, char ***names, char *why, size_t whylen)
{
    char p[4096];
    *names = NULL;
    if (!la_is_directory(root))
        return 0;
    snprintf(p, sizeof p, "%s/dataset_dict.json", root);
    int n = la_is_regular_file(p) ? dict_splits(root, p, names, why, whylen)
                                  : named_splits(root, names);
    if (n <= 0) {
        if (n == 0)
            la_hf_splits_free(*names, 0);
        *names = NULL;
        return n;
    }
    qsort(*names, (size_t)n, sizeof **names, la_split_order);
    return n;
}
