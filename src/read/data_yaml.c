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
#include <math.h>     /* isfinite, floor, NAN */
#include <stdlib.h>   /* strtod */
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

// ---- a scalar as PyYAML's SafeLoader types it (YAML 1.1) -----------------------------

enum ykind { Y_NULL, Y_BOOL, Y_INT, Y_FLOAT, Y_STR, Y_TAGGED };

struct yval {
    enum ykind kind;
    int64_t i;          /* Y_BOOL, Y_INT (saturated at +-2^62: no count is that big) */
    double f;           /* Y_FLOAT, or NAN for .inf and .nan */
    int bad;            /* Y_INT its constructor refuses: int("", 2) for 0b_ */
};

static int is_one_of(const char *s, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && memcmp(*words, s, n) == 0)
            return 1;
    return 0;
}

static int digit_value(char c, int base)
{
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    return d < base ? d : -1;
}

static int64_t grow(int64_t v, int base, int d)
{
    return v > ((int64_t)1 << 62) / base ? (int64_t)1 << 62 : v * base + d;
}

/* [0-5]?[0-9] from s[*i]: a sexagesimal part. */
static int sexa_part(const char *s, size_t n, size_t *i, int64_t *part)
{
    size_t k = *i;
    if (k + 1 < n && s[k] >= '0' && s[k] <= '5' && s[k + 1] >= '0' && s[k + 1] <= '9') {
        *part = (s[k] - '0') * 10 + (s[k + 1] - '0');
        *i = k + 2;
        return 1;
    }
    if (k < n && s[k] >= '0' && s[k] <= '9') {
        *part = s[k] - '0';
        *i = k + 1;
        return 1;
    }
    return 0;
}

/* PyYAML's int resolver and constructor: 0b1010, 010 (octal), 0x0a, 1_0,
 * 1:30 (sexagesimal, 90), a sign. @return 1 an int, 0 not one. */
static int yaml11_int(const char *s, size_t n, struct yval *y)
{
    size_t i = 0;
    int neg = n && s[0] == '-';
    if (n && (s[0] == '-' || s[0] == '+'))
        i++;
    if (i >= n || s[i] < '0' || s[i] > '9')
        return 0;
    int base = 10, digits = 0;
    if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'b' || s[i + 1] == 'x')) {
        base = s[i + 1] == 'b' ? 2 : 16;
        i += 2;
        if (i == n)
            return 0;                    /* "0b" alone: a string */
    } else if (s[i] == '0')
        base = 8, i++;                   /* "0" alone is 0, in any base */
    int64_t v = 0;
    for (; i < n && s[i] != ':'; i++) {
        if (s[i] == '_')
            continue;
        int d = digit_value(s[i], base);
        if (d < 0)
            return 0;
        v = grow(v, base, d);
        digits++;
    }
    if (i < n) {                         /* 1:30: [1-9][0-9_]*(:[0-5]?[0-9])+ */
        if (base != 10)
            return 0;
        while (i < n) {
            int64_t part;
            if (s[i++] != ':' || !sexa_part(s, n, &i, &part))
                return 0;
            v = grow(v, 60, 0) + part;
        }
    }
    y->kind = Y_INT;
    y->bad = (base == 2 || base == 16) && !digits;
    y->i = neg ? -v : v;
    return 1;
}

/* [0-9_]* from s[*i]; @return how many digits. */
static size_t digits_(const char *s, size_t n, size_t *i)
{
    size_t d = 0;
    for (; *i < n && ((s[*i] >= '0' && s[*i] <= '9') || s[*i] == '_'); (*i)++)
        d += s[*i] != '_';
    return d;
}

/* PyYAML's float resolver and constructor: 3.0, 10., .5, 1.0e+1, 1:30.0
 * (90.0), .inf, .nan (f is NAN for both: no count). */
static int yaml11_float(const char *s, size_t n, struct yval *y)
{
    static const char *const inf[] = { ".inf", ".Inf", ".INF", NULL };
    static const char *const nan[] = { ".nan", ".NaN", ".NAN", NULL };
    size_t i = n && (s[0] == '-' || s[0] == '+');
    int special = is_one_of(s + i, n - i, inf) || (i == 0 && is_one_of(s, n, nan));
    int sexa = 0;
    if (!special) {
        size_t lead = digits_(s, n, &i);
        if (lead && i < n && s[i] == ':') {          /* [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* */
            int64_t part;
            while (i < n && s[i] == ':' && (i++, sexa_part(s, n, &i, &part)))
                sexa = 1;
            if (!sexa || i >= n || s[i] != '.')
                return 0;
        } else if (!lead && (i != 0 || i >= n || s[i] != '.' || i + 1 >= n ||
                             s[i + 1] < '0' || s[i + 1] > '9'))
            return 0;                                /* .5 takes no sign */
        if (i >= n || s[i++] != '.')
            return 0;
        digits_(s, n, &i);
        if (!sexa && i < n) {                        /* [eE][-+][0-9]+ */
            if ((s[i] != 'e' && s[i] != 'E') || i + 2 >= n || (s[i + 1] != '-' && s[i + 1] != '+'))
                return 0;
            for (i += 2; i < n && s[i] >= '0' && s[i] <= '9'; i++)
                ;
            if (s[i - 1] < '0' || s[i - 1] > '9')
                return 0;
        }
        if (i != n)
            return 0;
    }
    y->kind = Y_FLOAT;
    y->f = NAN;
    if (!special) {
        char buf[64];
        size_t k = 0;
        for (size_t j = 0; j < n && k + 1 < sizeof buf; j++)
            if (s[j] != '_')
                buf[k++] = s[j];
        buf[k] = '\0';
        int neg = buf[0] == '-';
        char *p = buf + (buf[0] == '-' || buf[0] == '+');
        double v = strtod(p, &p);        /* 1:30.0: each part * 60 ** place */
        while (*p == ':')
            v = v * 60 + strtod(p + 1, &p);
        y->f = neg ? -v : v;
    }
    return 1;
}

/* The current scalar as PyYAML's SafeLoader makes it. A quoted or block
 * scalar is a str; a plain one is resolved: null, bool, int, float, else
 * str. An explicit tag other than !!str is not read (Y_TAGGED). */
static struct yval resolve(const struct yaml_walk *w, const char *s, size_t n)
{
    static const char *const nulls[] = { "~", "null", "Null", "NULL", "", NULL };
    static const char *const yes[] = { "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On",
                                       "ON", NULL };
    static const char *const no[] = { "no", "No", "NO", "false", "False", "FALSE", "off", "Off",
                                      "OFF", NULL };
    struct yval y = { .kind = Y_STR };
    const char *tag = (const char *)w->ev.data.scalar.tag;
    if (tag)
        y.kind = strcmp(tag, "tag:yaml.org,2002:str") == 0 ? Y_STR : Y_TAGGED;
    else if (w->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        ;
    else if (is_one_of(s, n, nulls))
        y.kind = Y_NULL;
    else if (is_one_of(s, n, yes) || is_one_of(s, n, no))
        y.kind = Y_BOOL, y.i = is_one_of(s, n, yes);
    else if (!yaml11_int(s, n, &y))
        yaml11_float(s, n, &y);
    return y;
}

/* Python's float() of a str: blanks around, a sign, digits with single
 * underscores between them, a '.', an exponent. @return 1 and *f, or 0
 * where float() raises ValueError (and for inf, nan and non-ASCII digits,
 * which are no class count anyway). */
static int py_float(const char *s, size_t n, double *f)
{
    char buf[80];
    size_t k = 0, i = 0;
    while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
        i++;
    while (n > i && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r')))
        n--;
    for (; i < n; i++) {
        int digit_before = k && buf[k - 1] >= '0' && buf[k - 1] <= '9';
        if (s[i] == '_' && digit_before && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
            continue;
        if (!strchr("0123456789.eE+-", s[i]) || !s[i] || k + 1 >= sizeof buf)
            return 0;
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    char *end;
    *f = strtod(buf, &end);
    return k && *end == '\0';
}

// ---- nc and names, as Ultralytics' check_det_dataset takes them -----------------------

/* What the document's keys held; a later key of the same name replaces an
 * earlier one, as in PyYAML's dict. */
struct top {
    int has_nc;
    int64_t nc;
    char nc_err[160];      /* why nc is no count, or "" */
    int64_t names;         /* entries in names; -1 absent or null */
    char names_err[160];
};

/* "None" as a top-level value is null to Ultralytics' YAML.load. */
static int is_none(const struct yval *y, const char *s, size_t n)
{
    return y->kind == Y_NULL || (y->kind == Y_STR && n == 4 && memcmp(s, "None", 4) == 0);
}

/* nc as check_det_dataset: an int (a bool is one), else float(nc) when it is
 * a whole number ('10', 10.0); else "'nc: X' must be an integer". */
static void read_nc(struct yaml_walk *w, struct top *t)
{
    size_t len;
    const char *s = scalar(w, &len);
    struct yval y = s ? resolve(w, s, len) : (struct yval){ .kind = Y_TAGGED };
    double f = NAN;
    t->has_nc = 1;
    t->nc_err[0] = '\0';
    if (y.kind == Y_INT || y.kind == Y_BOOL) {
        if (y.bad)
            snprintf(t->nc_err, sizeof t->nc_err, "line %lu: nc is not a number (PyYAML: "
                     "ValueError)", line_of(w));
        else if (y.i >= (int64_t)LA_META_MAX_COUNT)   /* (a huge one saturates here) */
            snprintf(t->nc_err, sizeof t->nc_err, "line %lu: nc is past 2^40, not a class "
                     "count", line_of(w));
        t->nc = y.i;
        return;
    }
    if (y.kind == Y_FLOAT)
        f = y.f;
    else if (y.kind == Y_STR && !is_none(&y, s, len) && !py_float(s, len, &f))
        f = NAN;
    if (isfinite(f) && f == floor(f) && fabs(f) < (double)LA_META_MAX_COUNT) {
        t->nc = (int64_t)f;
        return;
    }
    snprintf(t->nc_err, sizeof t->nc_err, "line %lu: nc is %s, not a class count (Ultralytics: "
             "\"must be an integer\")", line_of(w),
             w->ev.type == YAML_ALIAS_EVENT ? "an alias" : !s ? "a list or a mapping"
             : is_none(&y, s, len) ? "null" : y.kind == Y_TAGGED ? "a tagged value"
             : "not a whole number");
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

/* A names key as check_class_names' int(k): of an int (010 is 8), a bool, a
 * whole float, or a str ('01' is 1). @return 1 and *id, or 0. */
static int name_key(const struct yaml_walk *w, const char *s, size_t len, int64_t *id)
{
    struct yval y = resolve(w, s, len);
    if ((y.kind == Y_INT && !y.bad) || y.kind == Y_BOOL)
        *id = y.i;
    else if (y.kind == Y_FLOAT && isfinite(y.f) && y.f == floor(y.f) && fabs(y.f) < 1e18)
        *id = (int64_t)y.f;
    else if (y.kind != Y_STR || la_py_int(s, len, id) != 0)
        return 0;
    return *id >= 0 && (uint64_t)*id < LA_META_MAX_COUNT;
}

/* names as a mapping of index to name. @return the count, or -1. */
static int64_t read_name_map(struct yaml_walk *w, struct la_class_meta *m, uint64_t *top)
{
    int64_t count = 0;
    *top = 0;
    while (next_event(w) && w->ev.type != YAML_MAPPING_END_EVENT) {
        size_t len;
        const char *k = scalar(w, &len);
        int64_t id;
        if (!k || !name_key(w, k, len, &id)) {
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
        /* {int(k): v}: 0 and '0', or a key given twice, are one entry */
        int again = (uint64_t)id < m->n_names && m->names[id];
        if (la_class_meta_set_name(m, (uint64_t)id, s, len) != 0) {
            snprintf(w->err, w->errlen, "out of memory");
            return -1;
        }
        *top = (uint64_t)id + 1 > *top ? (uint64_t)id + 1 : *top;
        count += !again;
    }
    return w->have_ev && w->ev.type == YAML_MAPPING_END_EVENT ? count : -1;
}

static int read_names(struct yaml_walk *w, struct la_class_meta *m, struct top *t)
{
    uint64_t top = 0;
    la_class_meta_free(m);              /* names given twice: the last, as PyYAML keeps it */
    m->problem[0] = '\0';
    t->names = -1;
    t->names_err[0] = '\0';
    size_t len;
    const char *s = scalar(w, &len);
    if (w->ev.type == YAML_SEQUENCE_START_EVENT)
        t->names = read_name_list(w, m);
    else if (w->ev.type == YAML_MAPPING_START_EVENT) {
        t->names = read_name_map(w, m, &top);
        if (t->names >= 0 && top != (uint64_t)t->names)
            snprintf(m->problem, sizeof m->problem, "names has %lld entries but indices up "
                     "to %llu (Ultralytics: \"%lld-class dataset requires class indices "
                     "0-%lld\")", (long long)t->names, (unsigned long long)top - 1,
                     (long long)t->names, (long long)t->names - 1);
    } else if (s) {
        struct yval y = resolve(w, s, len);
        if (is_none(&y, s, len))
            return 1;                   /* names: null, as no names: nc's class_0 ... */
        snprintf(t->names_err, sizeof t->names_err, "line %lu: names is a scalar, not a list "
                 "or a mapping", line_of(w));
        return 1;
    } else {
        snprintf(w->err, w->errlen, "line %lu: names is an alias, not a list or a mapping",
                 line_of(w));
        return 0;
    }
    return t->names >= 0;
}

/* A string value into buf (a YOLO split's folder); a list or a mapping
 * (several folders) is skipped and leaves buf "". */
static int read_path_value(struct yaml_walk *w, char *buf, size_t len)
{
    size_t n;
    static const char *const nulls[] = { "~", "null", "Null", "NULL", NULL };
    const char *s = w->ev.type == YAML_SCALAR_EVENT ? scalar(w, &n) : NULL;
    if (s && n < len && !is_one_of(s, n, nulls) && !memchr(s, '\0', n))
        memcpy(buf, s, n + 1);
    return skip_node(w);
}

/* The top mapping's keys: nc and names read, path and the splits' folders
 * kept, the rest skipped. */
static int read_top(struct yaml_walk *w, struct la_class_meta *m, struct top *t)
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
        int ok = 1;
        static const char *const splits[] = { "train", "val", "test" };
        int split = -1;
        for (int i = 0; i < 3; i++)
            split = strcmp(key, splits[i]) == 0 ? i : split;
        if (strcmp(key, "nc") == 0) {
            read_nc(w, t);
            ok = skip_node(w);
        } else if (strcmp(key, "path") == 0)
            ok = read_path_value(w, m->yolo_path, sizeof m->yolo_path);
        else if (split >= 0)
            ok = read_path_value(w, m->yolo_split[split], sizeof m->yolo_split[split]);
        else
            ok = strcmp(key, "names") == 0 ? read_names(w, m, t) : skip_node(w);
        if (!ok)
            return 0;
    }
    return w->have_ev;
}

/* One document, as PyYAML's safe_load wants ("expected a single document"). */
static int only_document(struct yaml_walk *w)
{
    while (next_event(w) && w->ev.type != YAML_STREAM_END_EVENT)
        if (w->ev.type == YAML_DOCUMENT_START_EVENT) {
            snprintf(w->err, w->errlen, "line %lu: a second YAML document (PyYAML's safe_load, "
                     "and so Ultralytics: \"expected a single document in the stream\")",
                     line_of(w));
            return 0;
        }
    return w->have_ev;
}

static int read_document(struct yaml_walk *w, struct la_class_meta *m)
{
    struct top t = { .names = -1 };
    while (next_event(w) && w->ev.type != YAML_MAPPING_START_EVENT)
        if (w->ev.type != YAML_STREAM_START_EVENT && w->ev.type != YAML_DOCUMENT_START_EVENT) {
            snprintf(w->err, w->errlen, "line %lu: not a mapping of nc, names, ...", line_of(w));
            return 0;
        }
    if (!w->have_ev || !read_top(w, m, &t) || !only_document(w))
        return 0;
    const char *why = t.names_err[0] ? t.names_err : t.has_nc ? t.nc_err : "";
    if (!why[0] && t.names < 0 && !t.has_nc)
        why = "neither nc nor names: no class count";
    else if (!why[0] && t.nc < 0)
        why = "nc is negative: no class count";
    if (why[0]) {
        snprintf(w->err, w->errlen, "%s", why);
        return 0;
    }
    if (t.names >= 0 && t.has_nc && t.names != t.nc)
        snprintf(m->problem, sizeof m->problem, "nc: %lld but names lists %lld (Ultralytics' "
                 "check_det_dataset: \"'names' length %lld and 'nc: %lld' must match\")",
                 (long long)t.nc, (long long)t.names, (long long)t.names, (long long)t.nc);
    m->has_n = 1;
    m->n = t.has_nc ? (uint64_t)t.nc : (uint64_t)t.names;
    m->key = t.has_nc ? "nc" : "names";
    if (m->n == 0) {
        snprintf(w->err, w->errlen, "no classes (Ultralytics: \"0-class dataset, at least one "
                 "class name is required\")");
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
