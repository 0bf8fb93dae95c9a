/* config_file.c - .labelaudit.yaml into entries (config_file.h): what is
 * found where, and the shape of the file. options.c decides what a key
 * means; a key this file keeps is any scalar key. */
#include "config_file.h"

#include "config.h"   /* HAVE_YAML */

#include <errno.h>    /* errno */
#include <limits.h>   /* PATH_MAX */
#include <stdio.h>    /* snprintf, FILE */
#include <stdlib.h>   /* malloc, realloc, free */
#include <string.h>   /* strlen, memcpy, strerror */
#include <sys/stat.h> /* stat */
#include <unistd.h>   /* getcwd */

void la_config_file_free(struct la_cfg_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->e[i].key);
        free(f->e[i].value);
    }
    free(f->e);
    for (size_t s = 0; s < f->n_sec; s++) {
        for (size_t i = 0; i < f->sec[s].n; i++) {
            free(f->sec[s].e[i].key);
            free(f->sec[s].e[i].value);
        }
        free(f->sec[s].e);
        free(f->sec[s].path);
    }
    free(f->sec);
    *f = (struct la_cfg_file){ 0 };
}

// ---- where it is -------------------------------------------------------------------

static int exists(const char *dir, const char *name, int want_file)
{
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && (!want_file || S_ISREG(st.st_mode));
}

const char *la_config_file_find(char *buf, size_t len)
{
    char dir[PATH_MAX], up[PATH_MAX] = "";
    if (!getcwd(dir, sizeof dir))
        return NULL;
    for (size_t used = 0;;) {
        if (exists(dir, LA_CONFIG_FILE_NAME, 1)) {
            snprintf(buf, len, "%s" LA_CONFIG_FILE_NAME, up);
            return buf;
        }
        char *slash = strrchr(dir, '/');
        /* .git (a folder, or a worktree's file) marks the repository's root */
        if (exists(dir, ".git", 0) || !slash || slash == dir || used + 4 > sizeof up)
            return NULL;
        *slash = '\0';
        used += (size_t)snprintf(up + used, sizeof up - used, "../");
    }
}

int la_config_file_read(const char *path, struct la_cfg_file *out, char *err, size_t errlen)
{
    *out = (struct la_cfg_file){ 0 };
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    char *text = malloc(LA_CONFIG_FILE_MAX + 1);
    size_t n = text ? fread(text, 1, LA_CONFIG_FILE_MAX + 1, f) : 0;
    int failed = !text || ferror(f);
    fclose(f);
    int rc = -1;
    if (failed)
        snprintf(err, errlen, "%s", text ? "read error" : "out of memory");
    else if (n > LA_CONFIG_FILE_MAX)
        snprintf(err, errlen, "larger than %u bytes: not a config file", LA_CONFIG_FILE_MAX);
    else
        rc = la_config_file_parse(text, n, out, err, errlen);
    free(text);
    return rc;
}

#if HAVE_YAML
#include <yaml.h>

struct walk {
    yaml_parser_t parser;
    yaml_event_t ev;
    int have_ev;
    char *err;
    size_t errlen;
};

static unsigned long line_of(const struct walk *w)
{
    return (unsigned long)w->ev.start_mark.line + 1;
}

static int fail(struct walk *w, const char *why)
{
    snprintf(w->err, w->errlen, "line %lu: %s", line_of(w), why);
    return 0;
}

/* The next event; an alias is refused where it stands. @return 1, or 0 with err. */
static int next(struct walk *w)
{
    if (w->have_ev)
        yaml_event_delete(&w->ev);
    w->have_ev = 0;
    if (!yaml_parser_parse(&w->parser, &w->ev)) {
        snprintf(w->err, w->errlen, "line %lu: not YAML (%s)",
                 (unsigned long)w->parser.problem_mark.line + 1,
                 w->parser.problem ? w->parser.problem : "parse error");
        return 0;
    }
    w->have_ev = 1;
    if (w->ev.type == YAML_ALIAS_EVENT)
        return fail(w, "an alias (*name): write the value itself");
    return 1;
}

static char *scalar_dup(const struct walk *w)
{
    size_t n = w->ev.data.scalar.length;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, w->ev.data.scalar.value, n);
        s[n] = '\0';
    }
    return s;
}

static int add(struct walk *w, struct la_cfg_entry **e, size_t *n, const char *key,
               unsigned long line)
{
    struct la_cfg_entry *grown = realloc(*e, (*n + 1) * sizeof **e);
    if (!grown)
        return fail(w, "out of memory");
    *e = grown;
    char *k = malloc(strlen(key) + 1), *v = scalar_dup(w);
    if (!k || !v || memchr(w->ev.data.scalar.value, '\0', w->ev.data.scalar.length)) {
        free(k);
        free(v);
        return fail(w, k && v ? "a NUL byte in a value" : "out of memory");
    }
    strcpy(k, key);
    (*e)[(*n)++] = (struct la_cfg_entry){ k, v, line };
    return 1;
}

/* The value of key (the current event): a scalar, or a list of scalars
 * (the option once per item). */
static int value(struct walk *w, struct la_cfg_entry **e, size_t *n, const char *key,
                 unsigned long line)
{
    if (w->ev.type == YAML_SCALAR_EVENT)
        return add(w, e, n, key, line);
    if (w->ev.type != YAML_SEQUENCE_START_EVENT) {
        char why[256];
        snprintf(why, sizeof why, "'%.100s' takes a value or a list of values, not a mapping",
                 key);
        return fail(w, why);
    }
    while (next(w) && w->ev.type != YAML_SEQUENCE_END_EVENT)
        if (w->ev.type != YAML_SCALAR_EVENT || !add(w, e, n, key, line_of(w)))
            return w->ev.type == YAML_SCALAR_EVENT ? 0 : fail(w, "a list of lists or mappings");
    return w->have_ev && w->ev.type == YAML_SEQUENCE_END_EVENT;
}

/* A mapping of options (the current event opened it) up to its end. in_section:
 * no "paths" inside. */
static int options(struct walk *w, struct la_cfg_file *f, struct la_cfg_entry **e, size_t *n,
                   int in_section);

static int sections(struct walk *w, struct la_cfg_file *f)
{
    if (w->ev.type != YAML_MAPPING_START_EVENT)
        return fail(w, "'paths' is a mapping of a path to its options");
    while (next(w) && w->ev.type != YAML_MAPPING_END_EVENT) {
        if (w->ev.type != YAML_SCALAR_EVENT || w->ev.data.scalar.length == 0)
            return fail(w, "a path under 'paths' is a non-empty string");
        struct la_cfg_section *grown = realloc(f->sec, (f->n_sec + 1) * sizeof *f->sec);
        if (!grown)
            return fail(w, "out of memory");
        f->sec = grown;
        struct la_cfg_section *s = &f->sec[f->n_sec];
        *s = (struct la_cfg_section){ scalar_dup(w), line_of(w), NULL, 0 };
        if (!s->path)
            return fail(w, "out of memory");
        f->n_sec++;
        if (!next(w))
            return 0;
        if (w->ev.type != YAML_MAPPING_START_EVENT)
            return fail(w, "a path's section is a mapping of options");
        if (!options(w, f, &s->e, &s->n, 1))
            return 0;
    }
    return w->have_ev && w->ev.type == YAML_MAPPING_END_EVENT;
}

static int options(struct walk *w, struct la_cfg_file *f, struct la_cfg_entry **e, size_t *n,
                   int in_section)
{
    while (next(w) && w->ev.type != YAML_MAPPING_END_EVENT) {
        if (w->ev.type != YAML_SCALAR_EVENT)
            return fail(w, "a key is a long option's name (num-classes), not a list or mapping");
        char key[128];
        unsigned long line = line_of(w);
        snprintf(key, sizeof key, "%.*s", (int)(w->ev.data.scalar.length < 127
                                                    ? w->ev.data.scalar.length : 127),
                 (const char *)w->ev.data.scalar.value);
        if (!next(w))
            return 0;
        if (strcmp(key, "paths") == 0 && !in_section) {
            if (!sections(w, f))
                return 0;
        } else if (strcmp(key, "paths") == 0) {
            return fail(w, "'paths' inside a path's section");
        } else if (!value(w, e, n, key, line)) {
            return 0;
        }
    }
    return w->have_ev && w->ev.type == YAML_MAPPING_END_EVENT;
}

/* stream, document, the top mapping (or nothing: an empty file), end. */
static int document(struct walk *w, struct la_cfg_file *f)
{
    if (!next(w) || w->ev.type != YAML_STREAM_START_EVENT || !next(w))
        return 0;
    if (w->ev.type == YAML_STREAM_END_EVENT)
        return 1;                                 /* an empty file: no options */
    if (!next(w))
        return 0;
    if (w->ev.type == YAML_SCALAR_EVENT && w->ev.data.scalar.length == 0)
        return next(w) && next(w);                /* only comments: an empty document */
    if (w->ev.type != YAML_MAPPING_START_EVENT)
        return fail(w, "the file is a mapping of long option names to values");
    if (!options(w, f, &f->e, &f->n, 0) || !next(w) || w->ev.type != YAML_DOCUMENT_END_EVENT ||
        !next(w))
        return 0;
    if (w->ev.type != YAML_STREAM_END_EVENT)
        return fail(w, "more than one document (---)");
    return 1;
}

int la_config_file_parse(const char *text, size_t len, struct la_cfg_file *out, char *err,
                         size_t errlen)
{
    *out = (struct la_cfg_file){ 0 };
    struct walk w = { .err = err, .errlen = errlen };
    if (errlen)
        err[0] = '\0';
    if (!yaml_parser_initialize(&w.parser)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&w.parser, (const unsigned char *)text, len);
    int ok = document(&w, out);
    if (w.have_ev)
        yaml_event_delete(&w.ev);
    yaml_parser_delete(&w.parser);
    if (!ok) {
        if (errlen && !err[0])
            snprintf(err, errlen, "not YAML");
        la_config_file_free(out);
        return -1;
    }
    return 0;
}

#else

int la_config_file_parse(const char *text, size_t len, struct la_cfg_file *out, char *err,
                         size_t errlen)
{
    (void)text;
    (void)len;
    *out = (struct la_cfg_file){ 0 };
    snprintf(err, errlen, "this labelaudit was built without libyaml (libyaml-dev): it cannot "
                          "read it (--no-config runs without it)");
    return -1;
}

#endif
