/* model_config.c - a Hugging Face model's config.json: the class count of its
 * head and the rows of its embedding (class_meta.h).
 *
 * As transformers' PretrainedConfig reads them (checked with transformers
 * 5.24's AutoConfig): `num_labels` wins over `id2label` when both are given
 * and disagree (the names are then dropped: it makes LABEL_0 ...); without
 * num_labels the head has len(id2label) outputs, whatever its ids; an
 * id2label key that is not an integer is a ValueError, a num_labels that is
 * not an integer a TypeError; a negative one gives an empty head, and one of
 * 2^63 makes it build a dict of that many entries (it hangs). Those are
 * refused here with the reason. Without either, a config whose architectures
 * name a classification head has transformers' default of 2 labels; any
 * other is a language model, and its vocab_size (or text_config's) is the
 * count. config.json is small: read whole with cJSON, up to CONFIG_MAX. */
#include "class_meta.h"

#include <cjson/cJSON.h>
#include <errno.h>    /* errno */
#include <math.h>     /* floor */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* free, strtoll */
#include <string.h>   /* strlen, strcmp */
#include <sys/stat.h> /* stat */

#include "walk.h"     /* la_path_join */
#include "reader.h"   /* la_one_line: the file's own text in a message */

#define CONFIG_MAX (16u << 20)          /* a config.json of more is not one */
#define HEAD_MAX ((uint64_t)1 << 31)    /* outputs of a classification head */

void la_class_meta_free(struct la_class_meta *m)
{
    for (size_t i = 0; i < m->n_names; i++)
        free(m->names[i]);
    free(m->names);
    m->names = NULL;
    m->n_names = 0;
}

int la_class_meta_set_name(struct la_class_meta *m, uint64_t c, const char *name, size_t len)
{
    if (c >= LA_META_MAX_NAMES)
        return 0;                       /* counted, not named */
    if (c >= m->n_names) {
        size_t n = (size_t)c + 1;
        char **v = realloc(m->names, n * sizeof *v);
        if (!v)
            return -1;
        memset(v + m->n_names, 0, (n - m->n_names) * sizeof *v);
        m->names = v;
        m->n_names = n;
    }
    free(m->names[c]);
    if (!(m->names[c] = malloc(len + 1)))
        return -1;
    memcpy(m->names[c], name, len);
    m->names[c][len] = '\0';
    return 0;
}

int la_read_small_file(const char *path, size_t cap, char **text, size_t *len, char *err,
                       size_t errlen)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > cap) {
        snprintf(err, errlen, "%s: %s", path, S_ISREG(st.st_mode) ? "too big for what it "
                 "should hold (more than the bytes believed)" : "not a regular file");
        fclose(f);
        return -1;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

/* A JSON number that is a whole count in [lo, hi]. */
static int whole_in(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
           v->valuedouble >= lo && v->valuedouble <= hi;
}

static const char *json_kind(const cJSON *v)
{
    return cJSON_IsString(v) ? "a string" : cJSON_IsNumber(v) ? "a number"
         : cJSON_IsBool(v) ? "a boolean" : cJSON_IsNull(v) ? "null"
         : cJSON_IsArray(v) ? "an array" : "an object";
}

/* num_labels: a positive whole number of at most HEAD_MAX. */
static int read_num_labels(const cJSON *v, struct la_model *m, char *err, size_t errlen)
{
    if (!cJSON_IsNumber(v)) {
        snprintf(err, errlen, "num_labels is %s, not a number (transformers: TypeError)",
                 json_kind(v));
        return -1;
    }
    if (!whole_in(v, 1, (double)HEAD_MAX)) {
        snprintf(err, errlen, "num_labels %.17g is not a class count of 1 to %llu "
                 "(transformers: %s)", v->valuedouble, (unsigned long long)HEAD_MAX,
                 v->valuedouble != floor(v->valuedouble) ? "TypeError"
                 : v->valuedouble < 1 ? "a head of no outputs" : "it hangs building id2label");
        return -1;
    }
    m->head.has_n = 1;
    m->head.n = (uint64_t)v->valuedouble;
    m->head.key = "num_labels";
    return 0;
}

/* An id2label key: a decimal integer, as Python's int() reads it. */
static int label_id(const char *key, int64_t *id)
{
    char *end;
    errno = 0;
    long long v = strtoll(key, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    if (end == key || *end || errno)
        return -1;
    *id = v;
    return 0;
}

/* id2label: the names, and where their ids leave gaps. */
static int read_id2label(const cJSON *map, struct la_model *m, char *err, size_t errlen)
{
    if (!cJSON_IsObject(map)) {
        snprintf(err, errlen, "id2label is %s, not an object", json_kind(map));
        return -1;
    }
    struct la_class_meta names = { 0 };
    uint64_t count = 0;
    int64_t top = -1;
    for (const cJSON *e = map->child; e; e = e->next, count++) {
        int64_t id;
        if (label_id(e->string, &id) != 0) {
            snprintf(err, errlen, "id2label key \"%.64s\" is not an integer (transformers: "
                     "ValueError: invalid literal for int())", e->string);
            la_class_meta_free(&names);
            return -1;
        }
        top = id > top ? id : top;
        const char *name = cJSON_IsString(e) ? e->valuestring : NULL;
        if (id >= 0 && name && la_class_meta_set_name(&names, (uint64_t)id, name, strlen(name)) != 0) {
            snprintf(err, errlen, "out of memory");
            la_class_meta_free(&names);
            return -1;
        }
    }
    if (m->head.has_n && count != m->head.n) {
        snprintf(m->head.problem, sizeof m->head.problem, "num_labels %llu but id2label has "
                 "%llu entries (transformers uses num_labels and drops the names)",
                 (unsigned long long)m->head.n, (unsigned long long)count);
        la_class_meta_free(&names);
        return 0;
    }
    if (count && (uint64_t)(top + 1) != count)
        snprintf(m->head.problem, sizeof m->head.problem, "id2label has %llu entries but its "
                 "ids run to %lld: the head has %llu outputs, so the ids past %llu are out "
                 "of range", (unsigned long long)count, (long long)top,
                 (unsigned long long)count, (unsigned long long)count - 1);
    m->head.names = names.names;
    m->head.n_names = names.n_names;
    if (!m->head.has_n && count) {
        m->head.has_n = 1;
        m->head.n = count;
        m->head.key = "id2label";
    }
    return 0;
}

/* Whether architectures[0] is a model with a classification head. */
static int names_a_head(const char *arch)
{
    static const char *const heads[] = {
        "ForSequenceClassification", "ForTokenClassification", "ForImageClassification",
        "ForAudioClassification", "ForVideoClassification", "ForSemanticSegmentation",
        "ForMultipleChoice", "ForObjectDetection", "ForAudioFrameClassification",
        "ImageClassification",
    };
    size_t n = strlen(arch);
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
        size_t k = strlen(heads[i]);
        if (n >= k && strcmp(arch + n - k, heads[i]) == 0)
            return 1;
    }
    return 0;
}

static int read_vocab_size(const cJSON *root, struct la_model *m, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "vocab_size");
    if (!v || cJSON_IsNull(v)) {
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(root, "text_config");
        v = cJSON_IsObject(text) ? cJSON_GetObjectItemCaseSensitive(text, "vocab_size") : NULL;
    }
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!whole_in(v, 1, (double)LA_META_MAX_COUNT)) {
        if (cJSON_IsNumber(v))
            snprintf(err, errlen, "vocab_size %.17g is not a count of embedding rows",
                     v->valuedouble);
        else
            snprintf(err, errlen, "vocab_size is %s, not a count of embedding rows",
                     json_kind(v));
        return -1;
    }
    m->has_vocab_size = 1;
    m->vocab_size = (uint64_t)v->valuedouble;
    return 0;
}

static int parse_config(const char *text, size_t len, struct la_model *m, char *err,
                        size_t errlen)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "%s", root ? "not a JSON object" : "not JSON (or nested too deep)");
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(root, "architectures");
    if (cJSON_IsArray(arch) && cJSON_IsString(arch->child))
        snprintf(m->architecture, sizeof m->architecture, "%s", arch->child->valuestring);
    const cJSON *nl = cJSON_GetObjectItemCaseSensitive(root, "num_labels");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(root, "id2label");
    int rc = 0;
    if (nl && !cJSON_IsNull(nl))
        rc = read_num_labels(nl, m, err, errlen);
    if (rc == 0 && ids && !cJSON_IsNull(ids))
        rc = read_id2label(ids, m, err, errlen);
    if (rc == 0)
        rc = read_vocab_size(root, m, err, errlen);
    cJSON_Delete(root);
    if (rc != 0)
        return -1;
    m->is_head = m->head.has_n || names_a_head(m->architecture);
    if (m->is_head && !m->head.has_n) {   /* PretrainedConfig's default */
        m->head.has_n = 1;
        m->head.n = 2;
        m->head.key = "num_labels (transformers' default)";
    }
    if (!m->is_head && !m->has_vocab_size) {
        snprintf(err, errlen, "neither num_labels, id2label nor vocab_size: no class count");
        return -1;
    }
    return 0;
}

/* Every message one line: a key the file gives may hold a newline. */
int la_model_config_parse(const char *text, size_t len, struct la_model *m, char *err,
                          size_t errlen)
{
    int rc = parse_config(text, len, m, err, errlen);
    la_one_line(rc ? err : m->head.problem);
    return rc;
}

/* The folder and config.json of path, which names either. */
static int config_path(const char *path, char **config, char **dir)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        *config = la_path_join(path, "config.json");
        *dir = strdup(path);
    } else {
        const char *slash = strrchr(path, '/');
        *config = strdup(path);
        *dir = slash ? strndup(path, (size_t)(slash - path + (slash == path))) : strdup(".");
    }
    return *config && *dir ? 0 : -1;
}

static int read_tokenizer_beside(const char *dir, struct la_model *m, char *err, size_t errlen)
{
    char *tok = la_path_join(dir, "tokenizer.json");
    struct stat st;
    if (!tok) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    if (stat(tok, &st) == 0) {
        snprintf(m->tokenizer_path, sizeof m->tokenizer_path, "%s", tok);
        rc = la_tokenizer_read(tok, m, err, errlen);
        if (rc == -2) {     /* a build without yajl: say so, audit without it */
            snprintf(m->tokenizer_note, sizeof m->tokenizer_note, "%s", err);
            err[0] = '\0';
            rc = 0;
        }
    }
    free(tok);
    return rc;
}

int la_model_read(const char *path, struct la_model *m, char *err, size_t errlen)
{
    char *config = NULL, *dir = NULL, *text = NULL, why[400] = "";
    size_t len = 0;
    memset(m, 0, sizeof *m);
    int rc = -1;
    if (config_path(path, &config, &dir) != 0)
        snprintf(err, errlen, "out of memory");
    else if (la_read_small_file(config, CONFIG_MAX, &text, &len, err, errlen) != 0)
        ;
    else if (la_model_config_parse(text, len, m, why, sizeof why) != 0)
        snprintf(err, errlen, "%s: %s", config, why);
    else
        rc = read_tokenizer_beside(dir, m, err, errlen);
    if (rc == 0)
        snprintf(m->head.path, sizeof m->head.path, "%s", config);
    free(text);
    free(config);
    free(dir);
    if (rc != 0)
        la_model_free(m);
    return rc;
}

void la_model_free(struct la_model *m)
{
    la_class_meta_free(&m->head);
}
