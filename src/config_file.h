/* config_file.h - the project config file, .labelaudit.yaml, as ruff's
 * pyproject section and pytest.ini are found: from the current directory up
 * to the repository's root (the directory holding .git), the nearest one.
 *
 *     num-classes: 10            # a long option's name, and its value
 *     fail-on: warning
 *     histogram: true            # an option without a value: true, or false (not given)
 *     annotations: [github, gitlab:cq.json]   # a list: the option once per item
 *     paths:                     # sections for datasets with their own N
 *       data/masks:              # a FILE at or below this path (or matching it as a glob)
 *         num-classes: 21
 *         ignore-index: 255
 *
 * This file only reads the YAML into entries (key, value, line); options.c
 * applies them through the same table and parsers as the command line, which
 * then wins. Read with libyaml's event parser, which never expands an alias
 * (refused here: a config file has no use for one); nesting is bounded by the
 * shape itself. */
#ifndef LA_CONFIG_FILE_H
#define LA_CONFIG_FILE_H

#include <stddef.h> /* size_t */

#define LA_CONFIG_FILE_NAME ".labelaudit.yaml"
#define LA_CONFIG_FILE_MAX (1u << 20)   /* a config file past 1 MiB is not one */

struct la_cfg_entry {
    char *key;
    char *value;        /* the scalar's text as written ("10", "true", "models/bert") */
    unsigned long line;
};

struct la_cfg_section {
    char *path;         /* as written: relative to the config file's folder */
    unsigned long line;
    struct la_cfg_entry *e;
    size_t n;
};

struct la_cfg_file {
    struct la_cfg_entry *e;     /* the top level's options */
    size_t n;
    struct la_cfg_section *sec; /* paths: */
    size_t n_sec;
};

/** la_config_file_parse() : text (len bytes) into *out. @return 0, or -1
 *  with "line N: why" in err (out is then empty). */
int la_config_file_parse(const char *text, size_t len, struct la_cfg_file *out, char *err,
                         size_t errlen);

void la_config_file_free(struct la_cfg_file *f);

/** la_config_file_find() : the nearest .labelaudit.yaml from the current
 *  directory up, stopping at the directory that holds .git (the repository's
 *  root) or at /; its path relative to the current directory
 *  (".labelaudit.yaml", "../../.labelaudit.yaml") in buf. @return buf, or
 *  NULL when there is none. */
const char *la_config_file_find(char *buf, size_t len);

/** la_config_file_read() : parse the file at path; errors as "why" or "line N: why".
 *  @return 0, or -1. */
int la_config_file_read(const char *path, struct la_cfg_file *out, char *err, size_t errlen);

#endif
