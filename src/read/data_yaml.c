/* data_yaml.c - a YOLO dataset's data.yaml: `nc` and `names` (class_meta.h).
 *
 * As Ultralytics' check_det_dataset reads them: `names` is a list, or a
 * mapping of class index to name whose keys must be 0..n-1
 * (check_class_names: "N-class dataset requires class indices 0-(N-1)");
 * `nc` and the number of names must agree ("'names' length L and 'nc: N'
 * must match"); `nc` alone stands for class_0 .. class_(nc-1). Both
 * contradictions are kept as the file's problem (a finding), not refused:
 * the file was read.
 *
 * Read with libyaml's event parser, which never expands an alias: a
 * "billion laughs" document costs its own bytes, no more. Aliases where nc
 * or a name should be are refused (Ultralytics' safe_load would follow them;
 * a data.yaml has no reason to hold one), and so is a document of more than
 * MAX_ALIASES aliases or nested deeper than MAX_DEPTH. */
#include "class_meta.h"

#include "config.h"   /* HAVE_YAML */
#include "reader.h"   /* la_one_line */

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* strtoull */
#include <string.h>   /* strcmp */

#define DATA_YAML_MAX (16u << 20)

#if HAVE_YAML
#include <yaml.h>

#define MAX_DEPTH 64
#define MAX_ALIASES 1000

struct yaml_walk {
    yaml_parser_t parser;
    yaml_event_t ev;
    int have_ev;
    unsigned aliases;
    char *err;
    size_t errlen;
};

/* The next event, counting aliases. @return 1, or 0 with err. */
static int next_event(struct yaml_walk *w)
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
    if (w->ev.type == YAML_ALIAS_EVENT && ++w->aliases > MAX_ALIASES) {
        snprintf(w->err, w->errlen, "line %lu: more than %d aliases (a YAML bomb?)",
                 (unsigned long)w->ev.start_mark.line + 1, MAX_ALIASES);
        return 0;
    }
    return 1;
}

static unsigned long line_of(const struct yaml_walk *w)
{
    return (unsigned long)w->ev.start_mark.line + 1;
}

/* Skip the node whose first event is the current one. */
static int skip_node(struct yaml_walk *w)
{
    int depth = 0;
    do {
        yaml_event_type_t t = w->ev.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (++depth > MAX_DEPTH) {
                snprintf(w->err, w->errlen, "line %lu: nested deeper than %d", line_of(w),
                         MAX_DEPTH);
                return 0;
            }
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        if (depth == 0)
            return 1;
    } while (next_event(w));
    return 0;
}

/* The current event as a scalar's text, or NULL (an alias, a list). */
static const char *scalar(const struct yaml_walk *w, size_t *len)
{
    if (w->ev.type != YAML_SCALAR_EVENT)
        return NULL;
    *len = w->ev.data.scalar.length;
    return (const char *)w->ev.data.scalar.value;
}

static int whole(const char *s, uint64_t *v)
{
    char *end;
    if (!*s || *s == '-' || *s == '+')
        return 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || x >= LA_META_MAX_COUNT)
        return 0;
    *v = x;
    return 1;
}

static int read_nc(struct yaml_walk *w, struct la_class_meta *m)
{
    size_t len;
    const char *s = scalar(w, &len);
    uint64_t n;
    if (!s || !whole(s, &n)) {
        snprintf(w->err, w->errlen, "line %lu: nc is %s, not a class count", line_of(w),
                 w->ev.type == YAML_ALIAS_EVENT ? "an alias" : s ? "not a whole number" : "a list");
        return 0;
    }
    m->has_n = 1;
    m->n = n;
    m->key = "nc";
    return 1;
}

/* names as a list: each scalar in turn. @return the count, or -1. */
static int64_t read_name_list(struct yaml_walk *w, struct la_class_meta *m)
{
    int64_t count = 0;
    while (next_event(w) && w->ev.type != YAML_SEQUENCE_END_EVENT) {
        size_t len;
        const char *s = scalar(w, &len);
        if (!s) {
            snprintf(w->err, w->errlen, "line %lu: names[%lld] is %s, not a name", line_of(w),
                     (long long)count, w->ev.type == YAML_ALIAS_EVENT ? "an alias" : "a list");
            return -1;
        }
        if (la_class_meta_set_name(m, (uint64_t)count, s, len) != 0) {
            snprintf(w->err, w->errlen, "out of memory");
            return -1;
        }
        count++;
    }
    return w->have_ev && w->ev.type == YAML_SEQUENCE_END_EVENT ? count : -1;
}

/* names as a mapping of index to name. @return the count, or -1. */
static int64_t read_name_map(struct yaml_walk *w, struct la_class_meta *m, uint64_t *top)
{
    int64_t count = 0;
    *top = 0;
    while (next_event(w) && w->ev.type != YAML_MAPPING_END_EVENT) {
        size_t len;
        const char *k = scalar(w, &len);
        uint64_t id;
        if (!k || !whole(k, &id)) {
            snprintf(w->err, w->errlen, "line %lu: a names key is not a class index",
                     line_of(w));
            return -1;
        }
        if (!next_event(w))
            return -1;
        const char *s = scalar(w, &len);
        if (!s) {
            snprintf(w->err, w->errlen, "line %lu: names[%llu] is not a name", line_of(w),
                     (unsigned long long)id);
            return -1;
        }
        if (la_class_meta_set_name(m, id, s, len) != 0) {
            snprintf(w->err, w->errlen, "out of memory");
            return -1;
        }
        *top = id + 1 > *top ? id + 1 : *top;
        count++;
    }
    return w->have_ev && w->ev.type == YAML_MAPPING_END_EVENT ? count : -1;
}

static int read_names(struct yaml_walk *w, struct la_class_meta *m, int64_t *count)
{
    uint64_t top = 0;
    if (w->ev.type == YAML_SEQUENCE_START_EVENT)
        *count = read_name_list(w, m);
    else if (w->ev.type == YAML_MAPPING_START_EVENT) {
        *count = read_name_map(w, m, &top);
        if (*count >= 0 && top != (uint64_t)*count)
            snprintf(m->problem, sizeof m->problem, "names has %lld entries but indices up "
                     "to %llu (Ultralytics: \"%lld-class dataset requires class indices "
                     "0-%lld\")", (long long)*count, (unsigned long long)top - 1,
                     (long long)*count, (long long)*count - 1);
    } else {
        snprintf(w->err, w->errlen, "line %lu: names is %s, not a list or a mapping",
                 line_of(w), w->ev.type == YAML_ALIAS_EVENT ? "an alias" : "a scalar");
        return 0;
    }
    return *count >= 0;
}

/* The top mapping's keys: nc and names read, the rest skipped. */
static int read_top(struct yaml_walk *w, struct la_class_meta *m, int64_t *names)
{
    while (next_event(w) && w->ev.type != YAML_MAPPING_END_EVENT) {
        size_t len;
        const char *k = scalar(w, &len);
        char key[8] = "";
        if (k && len < sizeof key)
            memcpy(key, k, len + 1);
        if (!k && !skip_node(w))
            return 0;
        if (!next_event(w))
            return 0;
        int ok = strcmp(key, "nc") == 0 ? read_nc(w, m)
               : strcmp(key, "names") == 0 ? read_names(w, m, names) : skip_node(w);
        if (!ok)
            return 0;
    }
    return w->have_ev;
}

static int read_document(struct yaml_walk *w, struct la_class_meta *m)
{
    int64_t names = -1;
    while (next_event(w) && w->ev.type != YAML_MAPPING_START_EVENT)
        if (w->ev.type != YAML_STREAM_START_EVENT && w->ev.type != YAML_DOCUMENT_START_EVENT) {
            snprintf(w->err, w->errlen, "line %lu: not a mapping of nc, names, ...", line_of(w));
            return 0;
        }
    if (!w->have_ev || !read_top(w, m, &names))
        return 0;
    if (names >= 0 && m->has_n && (uint64_t)names != m->n)
        snprintf(m->problem, sizeof m->problem, "nc: %llu but names lists %lld (Ultralytics' "
                 "check_det_dataset: \"'names' length %lld and 'nc: %llu' must match\")",
                 (unsigned long long)m->n, (long long)names, (long long)names,
                 (unsigned long long)m->n);
    if (names >= 0 && !m->has_n) {
        m->has_n = 1;
        m->n = (uint64_t)names;
        m->key = "names";
    }
    if (!m->has_n) {
        snprintf(w->err, w->errlen, "neither nc nor names: no class count");
        return 0;
    }
    return 1;
}

int la_data_yaml_parse(const unsigned char *text, size_t len, struct la_class_meta *m,
                       char *err, size_t errlen)
{
    struct yaml_walk w = { .err = err, .errlen = errlen };
    if (!yaml_parser_initialize(&w.parser)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&w.parser, text, len);
    int ok = read_document(&w, m);
    if (w.have_ev)
        yaml_event_delete(&w.ev);
    yaml_parser_delete(&w.parser);
    if (!ok)
        la_class_meta_free(m);
    la_one_line(ok ? m->problem : err);   /* a name may hold a newline */
    return ok ? 0 : -1;
}

#else /* !HAVE_YAML */

int la_data_yaml_parse(const unsigned char *text, size_t len, struct la_class_meta *m,
                       char *err, size_t errlen)
{
    (void)text, (void)len, (void)m;
    snprintf(err, errlen, "not read: this build has no libyaml (libyaml-dev)");
    return -2;
}

#endif

int la_data_yaml_read(const char *path, struct la_class_meta *m, char *err, size_t errlen)
{
    char *text;
    size_t len;
    char why[400] = "";
    if (la_read_small_file(path, DATA_YAML_MAX, &text, &len, err, errlen) != 0)
        return -1;
    int rc = la_data_yaml_parse((const unsigned char *)text, len, m, why, sizeof why);
    free(text);
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, why);
    else
        snprintf(m->path, sizeof m->path, "%s", path);
    return rc;
}
