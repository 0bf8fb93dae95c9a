/* arrow_module.c - the Parquet and Arrow readers of the format table, loaded
 * at run time from labelaudit-arrow.so (arrow_module.h says why).
 *
 * la_reader_arrow and la_reader_hf_dataset stand in for the module's ops:
 * their open() loads the module once (the first Parquet, Arrow or `datasets`
 * file of the run, on whichever thread gets there first) and hands on;
 * next() and close() call the module's. Where the module cannot be loaded,
 * open() fails with one line saying where it looked, what the loader said
 * (a missing or mismatched libarrow names itself) and how to fix it: those
 * files are refused by name, exit 3, and every other file is still read. */
#include "config.h"

#include "arrow_module.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LA_PKGLIBDIR
#define LA_PKGLIBDIR "/usr/local/lib/labelaudit"
#endif
#ifndef ARROW_FOUND_IN
#define ARROW_FOUND_IN "pyarrow"
#endif

/* Linked in directly (the fuzz targets build read_arrow.cc into themselves):
 * then no module is loaded. In the binary this stays NULL. */
extern const struct la_arrow_module la_arrow_module_entry __attribute__((weak));

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct la_arrow_module *loaded;
static char load_error[LA_ERR_LEN];

/* The folder of the running binary, or "" where /proc says nothing. */
static void binary_dir(char *dir, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", dir, cap - 1);
    dir[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
}

/* The first candidate that exists, in the order arrow_module.h gives;
 * 0 and *path empty when none does. */
static int find_module(char *path, size_t cap)
{
    const char *env = getenv("LABELAUDIT_ARROW_MODULE");
    if (env && *env) {
        snprintf(path, cap, "%s", env);
        return access(path, R_OK) == 0;
    }
    char dir[PATH_MAX];
    binary_dir(dir, sizeof dir);
    if (*dir) {
        snprintf(path, cap, "%s/" LA_ARROW_MODULE_NAME, dir);   /* the build tree, a wheel */
        if (access(path, R_OK) == 0)
            return 1;
        snprintf(path, cap, "%s/../lib/labelaudit/" LA_ARROW_MODULE_NAME, dir);   /* installed */
        if (access(path, R_OK) == 0)
            return 1;
    }
    snprintf(path, cap, "%s/%s", LA_PKGLIBDIR, LA_ARROW_MODULE_NAME);
    return access(path, R_OK) == 0;
}

/* The module's entry, checked against this build; NULL with load_error set. */
static const struct la_arrow_module *open_module(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error,
                 "cannot load the Parquet/Arrow module (%.200s; it needs the Arrow libraries of "
                 ARROW_FOUND_IN ", which it was built with: install that pyarrow, or build labelaudit again)",
                 dlerror());
        return NULL;
    }
    const struct la_arrow_module *m = dlsym(h, "la_arrow_module_entry");
    if (!m || m->abi != LA_ARROW_MODULE_ABI || strcmp(m->version, PACKAGE_VERSION) != 0) {
        snprintf(load_error, sizeof load_error,
                 "the Parquet/Arrow module %.200s is not of this build (labelaudit " PACKAGE_VERSION
                 "): install the module built with this binary", path);
        dlclose(h);
        return NULL;
    }
    return m;   /* never closed: its ops serve the rest of the run */
}

static void load(void)
{
    if (&la_arrow_module_entry) {
        loaded = &la_arrow_module_entry;
        return;
    }
    char path[PATH_MAX + 64];
    if (!find_module(path, sizeof path)) {
        snprintf(load_error, sizeof load_error,
                 "the Parquet/Arrow module " LA_ARROW_MODULE_NAME " is missing (looked for %.200s "
                 "and beside the binary): reinstall labelaudit, or set LABELAUDIT_ARROW_MODULE to it",
                 path);
        return;
    }
    loaded = open_module(path);
}

/* The loaded module, NULL with *why set where it cannot be. */
static const struct la_arrow_module *module(const char **why)
{
    pthread_once(&load_once, load);
    *why = load_error;
    return loaded;
}

static int arrow_open(struct la_reader *r)
{
    const char *why;
    const struct la_arrow_module *m = module(&why);
    return m ? m->file->open(r) : la_reader_set_error(r, "%s", why);
}

static int folder_open(struct la_reader *r)
{
    const char *why;
    const struct la_arrow_module *m = module(&why);
    return m ? m->folder->open(r) : la_reader_set_error(r, "%s", why);
}

/* next() and close() come after a successful open(), so the module is there;
 * close() also follows a failed one, where it may not be. */
static int arrow_next(struct la_reader *r, struct la_chunk *out) { return loaded->file->next(r, out); }
static int folder_next(struct la_reader *r, struct la_chunk *out) { return loaded->folder->next(r, out); }

static void arrow_close(struct la_reader *r)
{
    if (loaded)
        loaded->file->close(r);
}

static void folder_close(struct la_reader *r)
{
    if (loaded)
        loaded->folder->close(r);
}

const struct la_reader_ops la_reader_arrow = { arrow_open, arrow_next, arrow_close };
const struct la_reader_ops la_reader_hf_dataset = { folder_open, folder_next, folder_close };
