/* split_folders.c - see split_folders.h. */
#include "split_folders.h"
#include "layouts.h"        /* la_layout: which layout a root is */
#include "read/class_meta.h" /* la_data_yaml_read: YOLO's splits */
#include "read/hf_splits.h" /* la_split_order, la_hf_splits_free, LA_HF_SPLIT_MAX */
#include "read/walk.h"      /* la_path_join */
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
    if (others || n < 2) {      /* class folders, one of them named test; or one
                                   split alone (Cityscapes' gtFine/train): not splits */
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

// ---- the splits of layouts ---------------------------------------------------------

struct found { char **names, **paths; int n; };

/* Split name with its labels at path (taken over); -1 out of memory. */
static int found_add(struct found *f, const char *name, char *path)
{
    char **n = path ? realloc(f->names, (size_t)(f->n + 1) * sizeof *n) : NULL;
    f->names = n ? n : f->names;
    char **p = n ? realloc(f->paths, (size_t)(f->n + 1) * sizeof *p) : NULL;
    f->paths = p ? p : f->paths;
    char *copy = p ? strdup(name) : NULL;
    if (!copy) {
        free(path);
        return -1;
    }
    f->names[f->n] = copy;
    f->paths[f->n++] = path;
    return 0;
}

/* Where Ultralytics looks for the labels of the images in dir: the last
 * "images" component of the path made "labels" (img2label_paths). */
static char *labels_of_images(const char *dir)
{
    char *p = strdup(dir), *hit = NULL;
    for (char *at = p ? strstr(p, "images") : NULL; at; at = strstr(at + 1, "images"))
        if ((at == p || at[-1] == '/') && (at[6] == '/' || at[6] == '\0'))
            hit = at;
    if (hit)
        memcpy(hit, "labels", 6);
    return p;
}

/* YOLO: data.yaml's train/val/test image folders, each its labels' folder. */
static int yolo_splits(const char *root, struct found *f)
{
    static const char *const keys[] = { "train", "val", "test" };
    char yaml[4096], err[512];
    struct la_class_meta m = { 0 };
    snprintf(yaml, sizeof yaml, "%s/data.yaml", root);
    if (!la_is_regular_file(yaml))
        snprintf(yaml, sizeof yaml, "%s/data.yml", root);
    if (!la_is_regular_file(yaml) || la_data_yaml_read(yaml, &m, err, sizeof err) != 0)
        return 0;           /* the class count says why it cannot be read */
    char base[4096];
    const char *rel = m.yolo_path;
    while (rel[0] == '.' && (rel[1] == '/' || rel[1] == '\0'))
        rel += rel[1] ? 2 : 1;  /* "path: ." is the data.yaml's folder */
    if (rel[0] == '/')
        snprintf(base, sizeof base, "%s", rel);
    else
        snprintf(base, sizeof base, "%s%s%s", root, rel[0] ? "/" : "", rel);
    int rc = 0;
    for (int i = 0; rc == 0 && i < 3; i++) {
        const char *dir = m.yolo_split[i];
        if (!dir[0])
            continue;
        char images[8192];
        snprintf(images, sizeof images, "%s%s%s", dir[0] == '/' ? "" : base,
                 dir[0] == '/' ? "" : "/", dir);
        if (!la_is_directory(images) && strncmp(dir, "../", 3) == 0)   /* Roboflow's exports */
            snprintf(images, sizeof images, "%s/%s", base, dir + 3);
        char *labels = labels_of_images(images);
        if (labels && !la_is_directory(labels)) {
            free(labels);   /* no labels there: not a split of this tree */
            continue;
        }
        rc = found_add(f, keys[i], labels);
    }
    la_class_meta_free(&m);
    return rc;
}

/* prefix/NAME for each split folder below prefix. */
static int subfolder_splits(const char *prefix, struct found *f)
{
    char **names, why[256];
    int k = la_split_folders(prefix, &names, why, sizeof why), rc = 0;
    for (int i = 0; i < k; i++) {
        if (rc == 0)
            rc = found_add(f, names[i], la_path_join(prefix, names[i]));
        free(names[i]);
    }
    free(k > 0 ? names : NULL);
    return k < 0 ? -1 : rc;
}

/* COCO: annotations/instances_train*.json as train, instances_val*.json as val. */
static int coco_splits(const char *root, struct found *f)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/annotations", root);
    DIR *dp = opendir(dir);
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && dp && (e = readdir(dp))) {
        const char *n = e->d_name, *split = !strncmp(n, "instances_train", 15) ? "train"
                                          : !strncmp(n, "instances_val", 13) ? "val" : NULL;
        size_t len = strlen(n);
        if (split && len > 5 && strcmp(n + len - 5, ".json") == 0)
            rc = found_add(f, split, la_path_join(dir, n));
    }
    if (dp)
        closedir(dp);
    return rc;
}

/* The splits found, as la_layout_splits gives them: two at least, each
 * name once, in la_split_order's order. */
static int finish(struct found *f, char ***names, char ***paths)
{
    for (int i = 1; i < f->n; i++)      /* val: images/train, as tutorials write it: one split */
        for (int j = 0; j < i; j++)
            if (strcmp(f->paths[i], f->paths[j]) == 0) {
                free(f->names[i]);
                free(f->paths[i]);
                memmove(&f->names[i], &f->names[i + 1], (size_t)(f->n - i - 1) * sizeof *f->names);
                memmove(&f->paths[i], &f->paths[i + 1], (size_t)(f->n - i - 1) * sizeof *f->paths);
                f->n--, i--;
                break;
            }
    int dup = 0;
    for (int i = 0; i < f->n; i++)
        for (int j = i + 1; j < f->n; j++)
            dup |= strcmp(f->names[i], f->names[j]) == 0 && strcmp(f->paths[i], f->paths[j]) != 0;
    if (f->n < 2 || dup) {      /* one split is the dataset; two train files: say nothing */
        la_hf_splits_free(f->names, f->n);
        la_hf_splits_free(f->paths, f->n);
        return 0;
    }
    for (int i = 1; i < f->n; i++)      /* insertion sort: names and paths together */
        for (int j = i; j > 0 && la_split_order(&f->names[j - 1], &f->names[j]) > 0; j--) {
            char *t = f->names[j]; f->names[j] = f->names[j - 1]; f->names[j - 1] = t;
            t = f->paths[j]; f->paths[j] = f->paths[j - 1]; f->paths[j - 1] = t;
        }
    *names = f->names;
    *paths = f->paths;
    return f->n;
}

int la_layout_splits(const char *root, const struct la_layout *l, char ***names,
                     char ***paths)
{
    struct found f = { 0 };
    int rc = 0;
    *names = *paths = NULL;
    char p[4096];
    if (l->format == LA_FMT_YOLO) {
        rc = yolo_splits(root, &f);
        snprintf(p, sizeof p, "%s/labels", root);
        if (rc == 0 && f.n == 0 && la_is_directory(p))
            rc = subfolder_splits(p, &f);
    } else if (l->format == LA_FMT_COCO) {
        rc = coco_splits(root, &f);
    } else if (l->labels && strcmp(l->labels, "labelsTr") == 0) {   /* nnU-Net */
        snprintf(p, sizeof p, "%s/labelsTs", root);
        if (la_is_directory(p)) {
            rc = found_add(&f, "train", la_path_join(root, "labelsTr"));
            if (rc == 0)
                rc = found_add(&f, "test", strdup(p));
        }
    }
    if (rc != 0) {
        la_hf_splits_free(f.names, f.n);
        la_hf_splits_free(f.paths, f.n);
        return -1;
    }
    return finish(&f, names, paths);
}
