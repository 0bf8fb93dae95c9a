/* walk.c - os.walk(followlinks=True), sorted as torchvision sorts it. */
#include "walk.h"
#include "util.h" /* la_grow_n */
#include "outputs.h" /* la_output_of_run */

#include <dirent.h>   /* opendir, readdir */
#include <errno.h>    /* errno */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, qsort */
#include <string.h>   /* strcmp, strerror */
#include <sys/stat.h> /* stat */

#define MAX_DEPTH 256   /* deeper trees are a cycle by another name */

/* A growable array of strings. */
struct strs {
    char **v;
    size_t n, cap;
};

static int strs_push(struct strs *s, char *str)
{
    if (!str)
        return -1;
    if (la_grow_n(&s->v, &s->cap, s->n + 1, sizeof *s->v, 16) != 0) {
        free(str);
        return -1;
    }
    s->v[s->n++] = str;
    return 0;
}

static void strs_free(struct strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    *s = (struct strs){ 0 };
}

/* Whether the entry e of the folder is a folder, links followed (as
 * DirEntry.is_dir()): d_type answers without a stat() for all but links and
 * file systems that do not fill it in. */
static int is_dir_entry(const struct dirent *e, const char *full)
{
    struct stat st;
    if (e->d_type == DT_DIR)
        return 1;
    if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
        return 0;
    return stat(full, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *la_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

static char *dup_printf(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 3;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s: %s", a, b);
    return s;
}

/* A file's name as a group keeps it: its d_type in the byte after the
 * terminating NUL, where sorting by name never looks. */
static char *typed_name(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    char *s = malloc(n + 2);
    if (s) {
        memcpy(s, e->d_name, n + 1);
        s[n + 1] = (char)e->d_type;
    }
    return s;
}

/* One folder met on the walk: its path and its files' names, sorted. */
struct group {
    char *dir;
    struct strs names;
};

struct walker {
    struct group *groups;
    size_t n_groups, cap_groups;
    struct strs problems;
    dev_t dev[MAX_DEPTH];   /* the folders on the current path, for cycles */
    ino_t ino[MAX_DEPTH];
};

static int by_dir(const void *a, const void *b)
{
    return strcmp(((const struct group *)a)->dir, ((const struct group *)b)->dir);
}

static struct group *new_group(struct walker *k, const char *dir)
{
    if (la_grow_n(&k->groups, &k->cap_groups, k->n_groups + 1, sizeof *k->groups, 16) != 0)
        return NULL;
    struct group *g = &k->groups[k->n_groups];
    *g = (struct group){ .dir = strdup(dir) };
    if (!g->dir)
        return NULL;
    k->n_groups++;
    return g;
}

static int on_path(const struct walker *k, int depth, const struct stat *st)
{
    for (int i = 0; i < depth; i++)
        if (k->dev[i] == st->st_dev && k->ino[i] == st->st_ino)
            return 1;
    return 0;
}

/* List dir: files into a new group, folders walked after it. @return 0 or -1 (out of memory). */
static int walk_dir(struct walker *k, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)   /* os.walk's onerror is None: the folder is skipped; we name it */
        return strs_push(&k->problems, dup_printf(dir, strerror(errno)));
    struct group *g = new_group(k, dir);
    struct strs subdirs = { 0 };
    int rc = g ? 0 : -1;
    size_t gi = g ? (size_t)(g - k->groups) : 0;   /* groups may move as they grow */
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *full = la_path_join(dir, e->d_name);
        const char *output = NULL;
        int own;
        if (full && is_dir_entry(e, full))
            rc = strs_push(&subdirs, full);
        else if (full && (output = la_output_of_run(full, e->d_name,
                                                    e->d_type == DT_REG ? e->d_ino : 0, &own))) {
            if (!own)           /* named, never read; this run's own temporary file is gone after it */
                rc = strs_push(&k->problems, dup_printf(full, output));
            free(full);
        } else {
            free(full);
            rc = full ? strs_push(&k->groups[gi].names, typed_name(e)) : -1;
        }
    }
    closedir(d);
    if (k->groups[gi].names.n > 1)   /* qsort(NULL, 0) is undefined */
        qsort(k->groups[gi].names.v, k->groups[gi].names.n, sizeof(char *), by_bytes);
    for (size_t i = 0; rc == 0 && i < subdirs.n; i++) {
        struct stat st;
        if (stat(subdirs.v[i], &st) != 0)
            continue;
        if (depth + 1 >= MAX_DEPTH || on_path(k, depth, &st)) {
            rc = strs_push(&k->problems, dup_printf(subdirs.v[i],
                           "a link back to a folder above it (a cycle): not walked again"));
            continue;
        }
        k->dev[depth] = st.st_dev;
        k->ino[depth] = st.st_ino;
        rc = walk_dir(k, subdirs.v[i], depth + 1);
    }
    strs_free(&subdirs);
    return rc;
}

static void free_groups(struct walker *k)
{
    for (size_t i = 0; i < k->n_groups; i++) {
        free(k->groups[i].dir);
        strs_free(&k->groups[i].names);
    }
    free(k->groups);
}

/* The groups in order, each group's files as full paths, and their types. */
static int flatten(struct walker *k, struct strs *files, unsigned char **types)
{
    if (k->n_groups > 1)
        qsort(k->groups, k->n_groups, sizeof *k->groups, by_dir);
    size_t n = 0;
    for (size_t i = 0; i < k->n_groups; i++)
        n += k->groups[i].names.n;
    if (!(*types = malloc(n ? n : 1)))
        return -1;
    for (size_t i = 0; i < k->n_groups; i++)
        for (size_t j = 0; j < k->groups[i].names.n; j++) {
            const char *name = k->groups[i].names.v[j];
            (*types)[files->n] = (unsigned char)name[strlen(name) + 1];
            if (strs_push(files, la_path_join(k->groups[i].dir, name)) != 0)
                return -1;
        }
    return 0;
}

int la_walk_tree(const char *top, struct la_walk *w, char *err, size_t errlen)
{
    *w = (struct la_walk){ 0 };
    struct walker k = { 0 };
    struct stat st;
    if (stat(top, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    k.dev[0] = st.st_dev;
    k.ino[0] = st.st_ino;
    struct strs files = { 0 };
    int rc = walk_dir(&k, top, 1);
    if (rc == 0)
        rc = flatten(&k, &files, &w->types);
    free_groups(&k);
    w->files = files.v;
    w->n_files = files.n;
    w->problems = k.problems.v;
    w->n_problems = k.problems.n;
    if (rc != 0) {
        la_walk_free(w);
        snprintf(err, errlen, "out of memory");
    }
    return rc;
}

long la_walk_subdirs(const char *dir, char ***names, char *err, size_t errlen)
{
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    struct strs found = { 0 };
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *full = la_path_join(dir, e->d_name);
        if (!full)
            rc = -1;
        else if (is_dir_entry(e, full))
            rc = strs_push(&found, strdup(e->d_name));
        free(full);
    }
    closedir(d);
    if (rc != 0) {
        strs_free(&found);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (found.n > 1)
        qsort(found.v, found.n, sizeof(char *), by_bytes);
    *names = found.v;
    return (long)found.n;
}

void la_walk_free_names(char **names, long n)
{
    for (long i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

void la_walk_free(struct la_walk *w)
{
    la_walk_free_names(w->files, (long)w->n_files);
    free(w->types);
    la_walk_free_names(w->problems, (long)w->n_problems);
    *w = (struct la_walk){ 0 };
}
