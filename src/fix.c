/* fix.c - see fix.h: the rules from a report's findings, the copy's name under
 * DIR, the writer by format, and fixes.json. */
#include "fix.h"

#include <cjson/cJSON.h> /* fixes.json, --fix-map's JSON */
#include <errno.h>    /* errno, EEXIST */
#include <stdarg.h>   /* va_list */
#include <stdio.h>    /* snprintf, fopen */
#include <stdlib.h>   /* malloc, free, realpath, qsort */
#include <string.h>   /* strlen, strcmp, strncmp, strrchr */
#include <sys/stat.h> /* mkdir, stat */

#include "codecs.h"     /* la_codec_of: a compressed input has no writer */
#include "fix_rules.h"
#include "formats.h"    /* la_format_name */
#include "msg.h"        /* la_err */
#include "utf8.h"       /* la_utf8_clean, la_escape_dup */
#include "util.h"       /* la_grow_n, la_strtoi64 */

#define WHY_LEN 240

/* A file --fix looked at: its copy, or why there is none. */
struct entry {
    const char *of;               /* the original's path (the run's argv) */
    char *copy;                   /* the copy's path, or NULL: none written */
    enum la_format format;
    struct la_fix_result made;    /* for the copy's report */
    char rules[128];
    unsigned applied;
    int n_not;                    /* rules not applied, and why */
    enum la_fix_rule not_rule[LA_FIXR_COUNT];
    char not_why[LA_FIXR_COUNT][WHY_LEN];
    char error[LA_ERR_LEN];       /* the copy could not be written: why */
    int audited;                  /* the copy's report was seen: */
    int copy_read;                /*   it was read, */
    unsigned char left[LA_F_COUNT];   /* and the findings it has */
    uint64_t *drops;
    size_t n_drops;
};

struct la_fix {
    const struct la_config *cfg;
    const char *dir;
    struct la_fix_pair *map;
    size_t n_map;
    struct entry *e;
    size_t n, cap;
    size_t *copies;               /* the entries with a copy, in order */
    size_t n_copies, cap_copies;
    int failed;                   /* a copy could not be written */
};

// ---- --fix-map and DIR ---------------------------------------------------------------

static int cmp_pair(const void *a, const void *b)
{
    int64_t x = ((const struct la_fix_pair *)a)->from, y = ((const struct la_fix_pair *)b)->from;
    return x < y ? -1 : x > y;
}

static int add_pair(struct la_fix *fx, size_t *cap, int64_t from, int64_t to)
{
    if (la_grow_n(&fx->map, cap, fx->n_map + 1, sizeof *fx->map, 16) != 0)
        return -1;
    fx->map[fx->n_map++] = (struct la_fix_pair){ from, to };
    return 0;
}

/* The JSON object {"old": new, ...}. */
static int map_from_json(struct la_fix *fx, const char *text, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(text), *it;
    size_t cap = 0;
    int rc = cJSON_IsObject(root) ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "not a JSON object of old: new labels");
    cJSON *pairs = rc == 0 ? root : NULL;
    cJSON_ArrayForEach(it, pairs) {
        int64_t from;
        if (la_strtoi64(it->string, &from) != 0 || !cJSON_IsNumber(it) ||
            it->valuedouble != (double)(int64_t)it->valuedouble) {
            snprintf(err, errlen, "\"%.60s\": keys and values must be integer labels",
                     it->string);
            rc = -1;
            break;
        }
        if (add_pair(fx, &cap, from, (int64_t)it->valuedouble) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
    }
    cJSON_Delete(root);
    return rc;
}

/* The CSV of old,new rows (a first row of words is a header). */
static int map_from_csv(struct la_fix *fx, char *text, char *err, size_t errlen)
{
    size_t cap = 0;
    int line = 0;
    for (char *row = strtok(text, "\r\n"); row; row = strtok(NULL, "\r\n")) {
        line++;
        char *comma = strchr(row, ',');
        int64_t from, to;
        if (comma)
            *comma = '\0';
        if (comma && la_strtoi64(row, &from) == 0 && la_strtoi64(comma + 1, &to) == 0) {
            if (add_pair(fx, &cap, from, to) != 0)
                return snprintf(err, errlen, "out of memory"), -1;
        } else if (line > 1 || !comma) {
            return snprintf(err, errlen, "line %d: expected old,new (two integer labels)", line),
                   -1;
        }
    }
    return 0;
}

static int read_map(struct la_fix *fx, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc = f ? 0 : -1;
    while (rc == 0 && !feof(f)) {
        if (la_grow(&text, &cap, len + 4097, 4096) != 0 || len > (16u << 20)) {
            rc = -1;
            break;
        }
        len += fread(text + len, 1, 4096, f);
        rc = ferror(f) ? -1 : 0;
    }
    if (rc != 0) {
        snprintf(err, errlen, "--fix-map=%s: %s", path, f ? "cannot be read" : strerror(errno));
    } else {
        char why[200] = "";
        text[len] = '\0';
        size_t i = 0;
        while (i < len && strchr(" \t\r\n", text[i]))
            i++;
        rc = text[i] == '{' ? map_from_json(fx, text, why, sizeof why)
                            : map_from_csv(fx, text, why, sizeof why);
        if (rc != 0)
            snprintf(err, errlen, "--fix-map=%s: %s", path, why);
        qsort(fx->map, fx->n_map, sizeof *fx->map, cmp_pair);
        for (size_t k = 1; rc == 0 && k < fx->n_map; k++)
            if (fx->map[k].from == fx->map[k - 1].from) {
                snprintf(err, errlen, "--fix-map=%s: label %lld is mapped twice", path,
                         (long long)fx->map[k].from);
                rc = -1;
            }
    }
    free(text);
    if (f)
        fclose(f);
    return rc;
}

/* mkdir -p of path's folders (all of it when whole). @return 0, or -1 (errno). */
static int make_dirs(char *path, int whole)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
        *p = '/';
        if (rc != 0)
            return -1;
    }
    return whole && mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Whether DIR (resolved) lies in the directory FILE in (resolved), or is it. */
static int inside(const char *dir, const char *in)
{
    size_t n = strlen(in);
    return strncmp(dir, in, n) == 0 && (dir[n] == '\0' || dir[n] == '/' || n == 1);
}

/* path resolved, where its last components do not exist yet: the deepest
 * folder that does, resolved, and the rest as written. NULL: out of memory,
 * or nothing of it resolves. */
static char *resolve_future(const char *path)
{
    char *head = strdup(path), *real = NULL;
    size_t cut = head ? strlen(head) : 0;
    while (head && !(real = realpath(head, NULL))) {
        char *slash = strrchr(head, '/');
        if (!slash || slash == head) {       /* a relative name's first component */
            real = realpath(slash ? "/" : ".", NULL);
            cut = slash ? 1 : 0;
            break;
        }
        *slash = '\0';
        cut = (size_t)(slash - head) + 1;
    }
    char *out = NULL;
    if (real) {
        const char *rest = cut < strlen(path) ? path + cut : "";
        size_t n = strlen(real) + strlen(rest) + 2;
        if ((out = malloc(n)))
            snprintf(out, n, "%s%s%s", real, *rest && strcmp(real, "/") != 0 ? "/" : "", rest);
    }
    free(real);
    free(head);
    return out;
}

/* DIR inside (or equal to) a directory FILE is refused before anything is
 * made; then DIR is made, with its parents. */
static int check_dir(struct la_fix *fx, char *err, size_t errlen)
{
    char *real = resolve_future(fx->dir);
    struct stat st;
    int rc = real ? 0 : (snprintf(err, errlen, "--fix=%s: %s", fx->dir, strerror(errno)), -1);
    for (int i = 0; rc == 0 && i < fx->cfg->nfiles; i++) {
        char *in = realpath(fx->cfg->files[i], NULL);
        if (in && stat(in, &st) == 0 && S_ISDIR(st.st_mode) && inside(real, in)) {
            snprintf(err, errlen, "--fix=%s lies inside the input %s: the copies would become "
                     "its files", fx->dir, fx->cfg->files[i]);
            rc = -1;
        }
        free(in);
    }
    free(real);
    char *dir = rc == 0 ? strdup(fx->dir) : NULL;
    if (rc == 0 && (!dir || make_dirs(dir, 1) != 0)) {
        snprintf(err, errlen, "--fix=%s: %s", fx->dir, dir ? strerror(errno) : "out of memory");
        rc = -1;
    } else if (rc == 0 && (stat(fx->dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        snprintf(err, errlen, "--fix=%s: not a directory", fx->dir);
        rc = -1;
    }
    free(dir);
    return rc;
}

struct la_fix *la_fix_open(const struct la_config *cfg, char *err, size_t errlen)
{
    struct la_fix *fx = calloc(1, sizeof *fx);
    if (!fx) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fx->cfg = cfg;
    fx->dir = cfg->fix_dir;
    if ((cfg->fix_map && read_map(fx, cfg->fix_map, err, errlen) != 0) ||
        check_dir(fx, err, errlen) != 0) {
        free(fx->map);
        free(fx);
        return NULL;
    }
    return fx;
}

// ---- the rules of one file ---------------------------------------------------------

static const struct la_finding *finding(const struct la_file_report *r, enum la_code code)
{
    for (size_t i = 0; i < r->n_findings; i++)
        if (r->findings[i].code == code)
            return &r->findings[i];
    return NULL;
}

static void not_applied(struct entry *e, enum la_fix_rule rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* rule is not applied: said on standard error and in fixes.json. */
static void not_applied(struct entry *e, enum la_fix_rule rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    e->not_rule[e->n_not] = rule;
    vsnprintf(e->not_why[e->n_not], WHY_LEN, fmt, ap);
    va_end(ap);
    la_err(e->of, "--fix: %s not applied: %s", la_fix_rule_name(rule), e->not_why[e->n_not]);
    e->n_not++;
}

static int is_drop_code(enum la_code c)
{
    return c == LA_F_OUT_OF_RANGE || c == LA_F_NON_FINITE || c == LA_F_NON_INTEGER ||
           c == LA_F_UNPARSABLE;
}

/* Whether r has a finding a rule fixes (else --fix leaves the file alone, silently). */
static int fixable(const struct la_fix *fx, const struct la_file_report *r)
{
    if (fx->cfg->fix_map)
        return 1;
    for (size_t i = 0; i < r->n_findings; i++) {
        enum la_code c = r->findings[i].code;
        if (c == LA_F_ONE_BASED || c == LA_F_IGNORE_LIKE_VALUE || c == LA_F_INT_LABELS_DTYPE ||
            (c == LA_F_LABEL_GAP && r->findings[i].n_remap) ||
            (fx->cfg->fix_drop && is_drop_code(c) && !r->findings[i].column[0]))
            return 1;
    }
    return 0;
}

/* Why no writer takes r, or NULL: its format, a folder, standard input, or
 * bytes the writers do not write (compressed, UTF-16). */
static const char *no_writer(const struct la_file_report *r, char *why, size_t len)
{
    enum la_format f = r->info.format;
    if (r->dataset)
        return "--fix writes no copies of a folder's files yet";
    if (strcmp(r->path, "-") == 0)
        return "standard input has no name for its copy";
    if (f != LA_FMT_CSV && f != LA_FMT_TSV && f != LA_FMT_TEXT && f != LA_FMT_NPY &&
        f != LA_FMT_RAW) {
        snprintf(why, len, "--fix has no writer for %s", la_format_name(f));
        return why;
    }
    unsigned char m[LA_CODEC_MAGIC_LEN] = { 0 };
    FILE *in = fopen(r->path, "rb");
    size_t n = in ? fread(m, 1, sizeof m, in) : 0;
    if (in)
        fclose(in);
    enum la_codec codec = la_codec_of(m, n);
    if (codec != LA_CODEC_PLAIN) {
        snprintf(why, len, "--fix has no writer for %s-compressed %s", la_codecs[codec].name,
                 la_format_name(f));
        return why;
    }
    if (n >= 2 && ((m[0] == 0xFF && m[1] == 0xFE) || (m[0] == 0xFE && m[1] == 0xFF)) &&
        f != LA_FMT_NPY && f != LA_FMT_RAW)
        return "--fix has no writer for UTF-16 text";
    return NULL;
}

/* The value rules: --fix-map, or one-based, ignore-like-value and label-gap. */
static void value_rules(struct la_fix *fx, const struct la_file_report *r, struct entry *e,
                        struct la_fix_plan *p)
{
    const struct la_config *cfg = fx->cfg;
    const struct la_finding *f;
    enum la_dtype out = p->out_dtype;
    if (cfg->fix_map) {
        for (size_t k = 0; k < fx->n_map; k++)
            if (!la_fix_fits(fx->map[k].to, out)) {
                not_applied(e, LA_FIXR_MAP, "%lld does not fit %s", (long long)fx->map[k].to,
                            la_dtype_info(out)->name);
                return;
            }
        p->map = fx->map;
        p->n_map = fx->n_map;
        p->rules |= 1u << LA_FIXR_MAP;
        return;
    }
    if (finding(r, LA_F_ONE_BASED))
        p->rules |= 1u << LA_FIXR_ONE_BASED;
    if ((f = finding(r, LA_F_IGNORE_LIKE_VALUE)) && f->has_suggested_ignore) {
        int64_t to = cfg->has_fix_ignore ? cfg->fix_ignore : cfg->ignore_index;
        if (!cfg->has_fix_ignore && !cfg->has_ignore_index)
            not_applied(e, LA_FIXR_IGNORE, "--ignore-index none leaves no value to write");
        else if (to == f->suggested_ignore)
            not_applied(e, LA_FIXR_IGNORE, "--fix-ignore=%lld keeps %lld: pass --ignore-index "
                        "%lld here and ignore_index=%lld to the loss", (long long)to,
                        (long long)to, (long long)to, (long long)to);
        else if (!la_fix_fits(to, out))
            not_applied(e, LA_FIXR_IGNORE, "%lld does not fit %s (keep %lld with --fix-ignore=%lld "
                        "and pass ignore_index=%lld)", (long long)to, la_dtype_info(out)->name,
                        (long long)f->suggested_ignore, (long long)f->suggested_ignore,
                        (long long)f->suggested_ignore);
        else {
            p->rules |= 1u << LA_FIXR_IGNORE;
            p->ignore_from = f->suggested_ignore;
            p->ignore_to = to;
        }
    }
    if ((f = finding(r, LA_F_LABEL_GAP)) && f->n_remap) {
        if (p->rules & (1u << LA_FIXR_ONE_BASED))
            not_applied(e, LA_FIXR_GAP, "one-based's shift is applied instead");
        else {
            p->rules |= 1u << LA_FIXR_GAP;
            p->n_gap = f->n_remap;
            for (int i = 0; i < f->n_remap; i++)
                p->gap[i] = (struct la_fix_pair){ f->remap_from[i], f->remap_to[i] };
        }
    }
}

/* The rules r's copy is made with (p->rules 0: none applies). */
static void plan_rules(struct la_fix *fx, const struct la_report_ctx *ctx,
                       const struct la_file_report *r, struct entry *e, struct la_fix_plan *p)
{
    const struct la_config *cfg = fx->cfg;
    int array = r->info.format == LA_FMT_NPY || r->info.format == LA_FMT_RAW;
    *p = (struct la_fix_plan){ .has_ignore = cfg->has_ignore_index, .ignore = cfg->ignore_index,
                               .rule = ctx->rule };
    p->in_dtype = p->out_dtype = array ? r->info.dtype : LA_DT_INT64;
    if (finding(r, LA_F_INT_LABELS_DTYPE)) {
        if (r->info.format == LA_FMT_NPY)
            p->rules |= 1u << LA_FIXR_INT64, p->out_dtype = LA_DT_INT64;
        else
            not_applied(e, LA_FIXR_INT64, "%s stores no dtype the copy could change",
                        la_format_name(r->info.format));
    }
    if (array && (p->in_dtype == LA_DT_FLOAT16 || p->in_dtype == LA_DT_BOOL)) {
        if (cfg->fix_map || finding(r, LA_F_ONE_BASED) || finding(r, LA_F_IGNORE_LIKE_VALUE) ||
            finding(r, LA_F_LABEL_GAP))
            not_applied(e, cfg->fix_map ? LA_FIXR_MAP : LA_FIXR_ONE_BASED,
                        "no writer for %s values", la_dtype_info(p->in_dtype)->name);
    } else {
        value_rules(fx, r, e, p);
    }
    int bad = 0;
    for (size_t i = 0; i < r->n_findings; i++)
        bad |= is_drop_code(r->findings[i].code);
    if (cfg->fix_drop && bad) {
        if (r->info.one_sample || (array && r->info.fortran_order) || r->seq_len)
            not_applied(e, LA_FIXR_DROP, "%s", r->info.one_sample ? "the file is one sample"
                        : r->seq_len ? "--seq-len's blocks are no samples to leave out"
                                     : "a Fortran-order array's samples are not contiguous");
        else
            p->rules |= 1u << LA_FIXR_DROP;
    }
}

// ---- the copy --------------------------------------------------------------------------

/* The copy's path: DIR/FILE for a relative FILE that stays below its folder
 * ("data/train.csv"), else DIR/its last component. */
static char *copy_path(const char *dir, const char *path)
{
    const char *rel = path;
    while (strncmp(rel, "./", 2) == 0)
        rel += 2;
    int up = rel[0] == '/' || strcmp(rel, "..") == 0 || strncmp(rel, "../", 3) == 0 ||
             strstr(rel, "/../") != NULL;
    if (up) {
        const char *slash = strrchr(rel, '/');
        rel = slash ? slash + 1 : rel;
    }
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", dir, rel);
    return out;
}

static void name_rules(struct entry *e)
{
    size_t n = 0;
    e->rules[0] = '\0';
    for (int k = 0; k < LA_FIXR_COUNT; k++)
        if (e->applied & (1u << k))
            n += (size_t)snprintf(e->rules + n, sizeof e->rules - n, "%s%s", n ? ", " : "",
                                  la_fix_rule_name((enum la_fix_rule)k));
}

/* Write the copy of e by its plan. @return 0, or -1 with e->error set. */
static int write_copy(struct la_fix *fx, const struct la_report_ctx *ctx,
                      const struct la_file_report *r, struct entry *e, const struct la_fix_plan *p)
{
    static struct la_new_file out;      /* its buffer is large: not on the stack */
    char *path = copy_path(fx->dir, r->path);
    if (!path || make_dirs(path, 0) != 0) {
        snprintf(e->error, sizeof e->error, "%s", path ? strerror(errno) : "out of memory");
        free(path);
        return -1;
    }
    if (la_new_file_open(&out, path, e->error, sizeof e->error) != 0) {
        free(path);
        return -1;
    }
    struct la_fix_job j = { .plan = p, .r = r, .read = &ctx->read, .in = r->path, .out = &out };
    int rc = e->format == LA_FMT_NPY || e->format == LA_FMT_RAW ? la_fix_write_array(&j)
                                                                 : la_fix_write_csv(&j);
    if (rc != 0) {
        snprintf(e->error, sizeof e->error, "%s", j.err);
        la_new_file_abort(&out);
    } else {
        rc = la_new_file_commit(&out, e->error, sizeof e->error);
    }
    if (rc != 0) {
        free(path);
        free(j.drops);
        return -1;
    }
    e->copy = path;
    e->made.changed = j.changed;
    e->made.dropped = j.dropped;
    e->drops = j.drops;
    e->n_drops = j.n_drops;
    return 0;
}

int la_fix_file(struct la_fix *fx, const struct la_report_ctx *ctx, const struct la_file_report *r)
{
    if (!r->read_ok || r->fix || !fixable(fx, r))
        return 0;
    if (la_grow_n(&fx->e, &fx->cap, fx->n + 1, sizeof *fx->e, 8) != 0 ||
        la_grow_n(&fx->copies, &fx->cap_copies, fx->n_copies + 1, sizeof *fx->copies, 8) != 0) {
        la_err(r->path, "--fix: out of memory");
        fx->failed = 1;
        return -1;
    }
    struct entry *e = &fx->e[fx->n];
    *e = (struct entry){ .of = r->path, .format = r->info.format };
    char why[WHY_LEN];
    const char *none = no_writer(r, why, sizeof why);
    if (none) {
        la_err(r->path, "%s", none);
        snprintf(e->error, sizeof e->error, "%s", none);
        fx->n++;
        return 0;
    }
    struct la_fix_plan plan;
    plan_rules(fx, ctx, r, e, &plan);
    e->applied = plan.rules;
    name_rules(e);
    fx->n++;
    if (!plan.rules)
        return 0;
    if (write_copy(fx, ctx, r, e, &plan) != 0) {
        la_err(r->path, "--fix: %s", e->error);
        fx->failed = 1;
        return -1;
    }
    e->made.of = r->path;
    e->made.rules = e->rules;
    for (size_t i = 0; i < r->n_findings; i++)
        e->made.had[r->findings[i].code] = 1;
    fx->copies[fx->n_copies++] = fx->n - 1;
    return 0;
}

size_t la_fix_copies(const struct la_fix *fx)
{
    return fx ? fx->n_copies : 0;
}

const char *la_fix_copy(const struct la_fix *fx, size_t i, const struct la_fix_result **made)
{
    const struct entry *e = &fx->e[fx->copies[i]];
    *made = &e->made;
    return e->copy;
}

void la_fix_audited(struct la_fix *fx, size_t i, const struct la_file_report *copy)
{
    struct entry *e = &fx->e[fx->copies[i]];
    e->audited = 1;
    e->copy_read = copy->read_ok;
    for (size_t k = 0; k < copy->n_findings; k++)
        e->left[copy->findings[k].code] = 1;
}

// ---- fixes.json and dropped.txt --------------------------------------------------------

static cJSON *text_item(const char *s)
{
    char *clean = la_utf8_clean(s);
    cJSON *item = cJSON_CreateString(clean ? clean : "");
    free(clean);
    return item;
}

static cJSON *codes(const unsigned char *had, const unsigned char *left, int want_left)
{
    cJSON *a = cJSON_CreateArray();
    for (int c = 0; c < LA_F_COUNT; c++)
        if (had[c] && (left[c] != 0) == want_left)
            cJSON_AddItemToArray(a, cJSON_CreateString(la_finding_code_name((enum la_code)c)));
    return a;
}

static cJSON *entry_json(const struct entry *e)
{
    cJSON *o = cJSON_CreateObject(), *rules = cJSON_CreateArray(), *nots = cJSON_CreateArray();
    cJSON_AddItemToObject(o, "path", text_item(e->of));
    cJSON_AddItemToObject(o, "copy", e->copy ? text_item(e->copy) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "format", cJSON_CreateString(la_format_name(e->format)));
    for (int k = 0; k < LA_FIXR_COUNT; k++)
        if (e->applied & (1u << k))
            cJSON_AddItemToArray(rules, cJSON_CreateString(la_fix_rule_name((enum la_fix_rule)k)));
    cJSON_AddItemToObject(o, "rules", rules);
    cJSON_AddItemToObject(o, "changed", cJSON_CreateNumber((double)e->made.changed));
    cJSON_AddItemToObject(o, "dropped", cJSON_CreateNumber((double)e->made.dropped));
    for (int k = 0; k < e->n_not; k++) {
        cJSON *n = cJSON_CreateObject();
        cJSON_AddItemToObject(n, "rule", cJSON_CreateString(la_fix_rule_name(e->not_rule[k])));
        cJSON_AddItemToObject(n, "why", text_item(e->not_why[k]));
        cJSON_AddItemToArray(nots, n);
    }
    cJSON_AddItemToObject(o, "not_applied", nots);
    cJSON_AddItemToObject(o, "error", e->copy || !e->error[0] ? cJSON_CreateNull()
                                                             : text_item(e->error));
    if (e->audited && e->copy_read) {
        cJSON_AddItemToObject(o, "removed", codes(e->made.had, e->left, 0));
        cJSON_AddItemToObject(o, "remaining", codes(e->made.had, e->left, 1));
        cJSON_AddItemToObject(o, "new", codes(e->left, e->made.had, 0));
    }
    return o;
}

/* DIR/name, written whole as a new file. @return 0, or -1 (said). */
static int write_new(const struct la_fix *fx, const char *name, const char *data, size_t len)
{
    size_t n = strlen(fx->dir) + strlen(name) + 2;
    char *path = malloc(n), err[LA_ERR_LEN];
    if (!path) {
        la_err(fx->dir, "--fix: out of memory");
        return -1;
    }
    snprintf(path, n, "%s/%s", fx->dir, name);
    int rc = la_new_file_write(path, data, len, err, sizeof err);
    if (rc != 0)
        la_err(NULL, "--fix: %s", err);
    free(path);
    return rc;
}

static int write_dropped(const struct la_fix *fx)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    int any = 0;
    for (size_t i = 0; i < fx->n; i++) {
        const struct entry *e = &fx->e[i];
        char *path = e->n_drops ? la_escape_dup(e->of, LA_ESC_TSV) : NULL;
        for (size_t k = 0; k < e->n_drops && path; k++) {
            if (la_grow(&text, &cap, len + strlen(path) + 32, 4096) != 0) {
                free(path);
                free(text);
                la_err(fx->dir, "--fix: out of memory");
                return -1;
            }
            len += (size_t)snprintf(text + len, cap - len, "%s\t%llu\n", path,
                                    (unsigned long long)e->drops[k]);
        }
        any |= e->n_drops > 0;
        free(path);
    }
    int rc = any || fx->cfg->fix_drop ? write_new(fx, "dropped.txt", text ? text : "", len) : 0;
    free(text);
    return rc;
}

int la_fix_close(struct la_fix *fx)
{
    if (!fx)
        return 0;
    cJSON *root = cJSON_CreateObject(), *files = cJSON_CreateArray();
    cJSON_AddItemToObject(root, "schema", cJSON_CreateNumber(1));
    cJSON_AddItemToObject(root, "dir", text_item(fx->dir));
    for (size_t i = 0; i < fx->n; i++)
        cJSON_AddItemToArray(files, entry_json(&fx->e[i]));
    cJSON_AddItemToObject(root, "files", files);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    int rc = fx->failed ? -1 : 0;
    if (!text) {
        la_err(fx->dir, "--fix: out of memory");
        rc = -1;
    } else {
        size_t n = strlen(text);
        text[n] = '\n';      /* cJSON_Print's buffer ends in its NUL: a newline instead */
        if (write_new(fx, "fixes.json", text, n + 1) != 0)
            rc = -1;
        free(text);
    }
    if (write_dropped(fx) != 0)
        rc = -1;
    for (size_t i = 0; i < fx->n; i++) {
        free(fx->e[i].copy);
        free(fx->e[i].drops);
    }
    free(fx->e);
    free(fx->copies);
    free(fx->map);
    free(fx);
    return rc;
}
