/* model_config.c - a Hugging Face model's config.json: the class count of its
 * head and the rows of its embedding (class_meta.h).
 *
 * As transformers' PretrainedConfig reads them (checked with transformers
 * 5.25's AutoConfig: tests/gen/gen_class_verdicts.py): `num_labels` wins over
 * `id2label` when both are given and disagree (the names are then dropped:
 * it makes LABEL_0 ... with range(num_labels)); without num_labels the head
 * has len(id2label) outputs, its keys read by Python's int() ("1_0" is 10,
 * " 1 " is 1, and "01" and "1" are one id). range() takes an int or a bool
 * (true is 1), so a num_labels of 3.0 passes only where id2label already has
 * 3 entries (no range is built), and null, a string or 2.5 is a TypeError;
 * an id2label key int() refuses is a ValueError; a negative num_labels or
 * an empty id2label gives an empty head, and one of 2^63 makes it build a
 * dict of that many entries (it hangs). Those are refused here with the
 * reason. A config that names none of them has transformers' default of 2
 * labels, unless it is a language model: its architectures name one
 * (*ForCausalLM, *LMHeadModel, ...: an id2label left in it is not its head)
 * or it has a vocab_size and no head. A language model's count is the rows
 * of its embedding: the vocab_size of its text model (text_config, decoder,
 * as get_text_config() finds it) when it is composite, which is where the
 * embedding is built from, else its own. config.json is small: read whole
 * with cJSON, up to CONFIG_MAX. */
#include "class_meta.h"

#include <cjson/cJSON.h>
#include <errno.h>    /* errno */
#include <math.h>     /* floor */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* free */
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

/* The last member named key, as Python's json keeps the last of duplicates
 * (cJSON's lookup finds the first). */
static const cJSON *last_item(const cJSON *obj, const char *key)
{
    const cJSON *found = NULL;
    for (const cJSON *e = obj->child; e; e = e->next)
        if (e->string && strcmp(e->string, key) == 0)
            found = e;
    return found;
}

static const char *json_kind(const cJSON *v)
{
    return cJSON_IsString(v) ? "a string" : cJSON_IsNumber(v) ? "a number"
         : cJSON_IsBool(v) ? "a boolean" : cJSON_IsNull(v) ? "null"
         : cJSON_IsArray(v) ? "an array" : "an object";
}

/* num_labels: a positive whole number of at most HEAD_MAX; true is 1, as
 * range(True) is. A JSON number with a fraction or an exponent (3.0) is a
 * Python float: range() refuses it, unless id2label has as many entries and
 * no range is built (ids_count, -1 without id2label; checked by the caller). */
static int read_num_labels(const cJSON *v, struct la_model *m, char *err, size_t errlen)
{
    if (cJSON_IsTrue(v)) {
        m->head.has_n = 1;
        m->head.n = 1;
        m->head.key = "num_labels";
        return 0;
    }
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

static int py_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

int la_py_int(const char *text, size_t len, int64_t *out)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    for (const unsigned char *q = p; q < end; q++)
        if (*q >= 0x80)
            return -2;
    while (p < end && py_space(*p))
        p++;
    while (end > p && py_space(end[-1]))
        end--;
    int neg = p < end && *p == '-';
    if (p < end && (*p == '-' || *p == '+'))
        p++;
    uint64_t v = 0;
    int digits = 0;
    for (; p < end; p++) {
        if (*p == '_' && digits && p + 1 < end && p[1] >= '0' && p[1] <= '9' && p[-1] != '_')
            continue;
        if (*p < '0' || *p > '9')
            return -1;
        v = v >= (UINT64_C(1) << 62) / 10 ? UINT64_C(1) << 62 : v * 10 + (uint64_t)(*p - '0');   /* 2^62: an id no head has */
        digits++;
    }
    if (!digits)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int label_id(const char *key, int64_t *id)
{
    return la_py_int(key, strlen(key), id);
}

/* Whether a key before e reads as the same id (Python's dict keeps one). */
static int id_seen_before(const cJSON *map, const cJSON *e, int64_t id)
{
    for (const cJSON *o = map->child; o != e; o = o->next) {
        int64_t other;
        if (label_id(o->string, &other) == 0 && other == id)
            return 1;
    }
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
    for (const cJSON *e = map->child; e; e = e->next) {
        int64_t id;
        int rc = label_id(e->string, &id);
        if (rc != 0) {
            snprintf(err, errlen, "id2label key \"%.64s\" is not an integer (%s)", e->string,
                     rc == -1 ? "transformers: ValueError: invalid literal for int()"
                     : "labelaudit reads ASCII digits only");
            la_class_meta_free(&names);
            return -1;
        }
        if (!id_seen_before(map, e, id))
            count++;                    /* {int(k): v}: "01" and "1" are one entry */
        top = id > top ? id : top;
        const char *name = cJSON_IsString(e) ? e->valuestring : NULL;
        if (id >= 0 && name && la_class_meta_set_name(&names, (uint64_t)id, name, strlen(name)) != 0) {
            snprintf(err, errlen, "out of memory");
            la_class_meta_free(&names);
            return -1;
        }
    }
    if (!count) {
        snprintf(err, errlen, "id2label is empty: a head of no outputs (transformers: "
                 "num_labels 0)");
        return -1;
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

/* Whether name ends in one of the n suffixes (exactly, case and all). */
static int ends_in_any(const char *name, const char *const *suffixes, size_t n)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(suffixes[i]);
        if (len >= k && strcmp(name + len - k, suffixes[i]) == 0)
            return 1;
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
    return ends_in_any(arch, heads, sizeof heads / sizeof *heads);
}

/* Whether architectures[0] is a language model: its outputs are the
 * vocabulary, whatever id2label a fine-tuning script left in its config. */
static int names_a_language_model(const char *arch)
{
    static const char *const lms[] = {
        "ForCausalLM", "LMHeadModel", "ForMaskedLM", "ForConditionalGeneration",
        "ForSeq2SeqLM", "ForPreTraining",
    };
    return ends_in_any(arch, lms, sizeof lms / sizeof *lms);
}

/* The vocab_size of a composite config's text model, where transformers'
 * get_text_config(decoder=True) looks: the embedding is built from it. */
static const cJSON *text_vocab_size(const cJSON *root, const char **where)
{
    static const char *const subs[] = { "text_config", "decoder", "generator" };
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        const cJSON *sub = last_item(root, subs[i]);
        const cJSON *v = cJSON_IsObject(sub) ? last_item(sub, "vocab_size") : NULL;
        if (v && !cJSON_IsNull(v)) {
            *where = subs[i];
            return v;
        }
    }
    return NULL;
}

static int read_vocab_size(const cJSON *root, struct la_model *m, char *err, size_t errlen)
{
    const char *where = NULL;
    const cJSON *top = last_item(root, "vocab_size");
    const cJSON *v = text_vocab_size(root, &where);
    if (!v)
        v = top;
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
    static const char *const keys[] = { "text_config.vocab_size", "decoder.vocab_size",
                                        "generator.vocab_size" };
    m->has_vocab_size = 1;
    m->vocab_size = (uint64_t)v->valuedouble;
    m->vocab_key = "vocab_size";
    for (size_t i = 0; where && i < sizeof keys / sizeof *keys; i++)
        if (strncmp(keys[i], where, strlen(where)) == 0 && keys[i][strlen(where)] == '.')
            m->vocab_key = keys[i];
    if (v != top && cJSON_IsNumber(top) && top->valuedouble != v->valuedouble)
        snprintf(m->vocab_problem, sizeof m->vocab_problem, "vocab_size %.17g but %s."
                 "vocab_size %llu: the embedding is built from %s, so ids are checked "
                 "against %llu", top->valuedouble, where, (unsigned long long)m->vocab_size,
                 where, (unsigned long long)m->vocab_size);
    return 0;
}

/* A whole number in [lo, hi] under key, in the text model first (sub, a
 * composite's text_config) then the top level; -1 when neither states one.
 * A top-level value the text model overrides is a stale one: said in
 * t->problem, as transformers builds the text model from its own. */
static int64_t table_size(const cJSON *root, const cJSON *sub, const char *key, double lo,
                          struct la_model_tables *t, const char **where)
{
    const cJSON *top = last_item(root, key);
    const cJSON *own = sub ? last_item(sub, key) : NULL;
    *where = "";
    const cJSON *v = own && whole_in(own, lo, 1e15) ? own : top;
    if (!whole_in(v, lo, 1e15))
        return -1;
    *where = v == own ? "text_config." : "";
    if (v == own && whole_in(top, lo, 1e15) && top->valuedouble != own->valuedouble &&
        !t->problem[0])
        snprintf(t->problem, sizeof t->problem, "%s %.17g but text_config.%s %.17g: the text "
                 "model is built from text_config, so its tables are checked against %.17g",
                 key, top->valuedouble, key, own->valuedouble, own->valuedouble);
    return (int64_t)v->valuedouble;
}

/* The tables of the text model: model_type, type_vocab_size, the position
 * table's size, pad_token_id and deberta's position_biased_input. */
static void read_tables(const cJSON *root, struct la_model_tables *t)
{
    static const char *const pos_keys[][2] = {
        { "max_position_embeddings", "text_config.max_position_embeddings" },
        { "n_positions", "text_config.n_positions" },
    };
    const cJSON *sub = last_item(root, "text_config");
    if (!cJSON_IsObject(sub))
        sub = NULL;
    const cJSON *type = sub ? last_item(sub, "model_type") : NULL;
    if (!cJSON_IsString(type))
        type = last_item(root, "model_type");
    if (cJSON_IsString(type))
        snprintf(t->model_type, sizeof t->model_type, "%s", type->valuestring);
    const char *where = "";
    t->type_vocab_size = table_size(root, sub, "type_vocab_size", 0, t, &where);
    t->pad_token_id = table_size(root, sub, "pad_token_id", 0, t, &where);
    t->max_positions = -1;
    for (size_t i = 0; i < 2 && t->max_positions < 0; i++) {
        t->max_positions = table_size(root, sub, pos_keys[i][0], 1, t, &where);
        t->max_positions_key = pos_keys[i][where[0] ? 1 : 0];
    }
    const cJSON *pbi = sub ? last_item(sub, "position_biased_input") : NULL;
    if (!cJSON_IsBool(pbi))
        pbi = last_item(root, "position_biased_input");
    t->position_biased_input = cJSON_IsBool(pbi) ? cJSON_IsTrue(pbi) : -1;
}

static size_t skip_blanks(const char *t, size_t n, size_t i)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* Whether the last value of key in the top object of the JSON text t is a
 * number written with a '.' or an exponent: Python's json makes it a float
 * (3.0), which cJSON's double does not tell from 3. */
static int top_is_float(const char *t, size_t n, const char *key)
{
    size_t klen = strlen(key);
    int depth = 0, is_float = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '{' || t[i] == '[')
            depth++;
        else if (t[i] == '}' || t[i] == ']')
            depth--;
        if (t[i] != '"')
            continue;
        size_t j = i + 1;
        while (j < n && t[j] != '"')
            j += t[j] == '\\' ? 2 : 1;
        size_t k = skip_blanks(t, n, j + 1);
        if (depth == 1 && k < n && t[k] == ':' && j - i - 1 == klen &&
            memcmp(t + i + 1, key, klen) == 0) {
            is_float = 0;
            for (k = skip_blanks(t, n, k + 1); k < n && strchr("+-0123456789.eE", t[k]); k++)
                is_float |= t[k] == '.' || t[k] == 'e' || t[k] == 'E';
        }
        i = j;
    }
    return is_float;
}

/* What range(num_labels) refuses (transformers: TypeError): null, and a float
 * (3.0) unless id2label has as many entries, when no range is built. */
static int check_num_labels(const cJSON *nl, const cJSON *ids, int is_float, char *err,
                            size_t errlen)
{
    if (cJSON_IsNull(nl)) {
        snprintf(err, errlen, "num_labels is null, not a number (transformers: TypeError: "
                 "'NoneType' object cannot be interpreted as an integer)");
        return -1;
    }
    if (cJSON_IsFalse(nl)) {
        snprintf(err, errlen, "num_labels is false, which is 0: a head of no outputs");
        return -1;
    }
    if (is_float && cJSON_IsNumber(nl) &&
        !(cJSON_IsObject(ids) && (double)cJSON_GetArraySize(ids) == nl->valuedouble)) {
        snprintf(err, errlen, "num_labels %.17g%s is a float, not an integer (transformers: "
                 "TypeError: 'float' object cannot be interpreted as an integer)",
                 nl->valuedouble, nl->valuedouble == floor(nl->valuedouble) ? ".0" : "");
        return -1;
    }
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
    const cJSON *arch = last_item(root, "architectures");
    if (cJSON_IsArray(arch) && cJSON_IsString(arch->child))
        snprintf(m->architecture, sizeof m->architecture, "%s", arch->child->valuestring);
    const cJSON *nl = last_item(root, "num_labels");
    const cJSON *ids = last_item(root, "id2label");
    if (cJSON_IsNull(ids))
        ids = NULL;
    int rc = nl ? check_num_labels(nl, ids, top_is_float(text, len, "num_labels"), err, errlen)
                : 0;
    if (rc == 0 && nl)
        rc = read_num_labels(nl, m, err, errlen);
    if (rc == 0 && ids)
        rc = read_id2label(ids, m, err, errlen);
    if (rc == 0)
        rc = read_vocab_size(root, m, err, errlen);
    if (rc == 0)
        read_tables(root, &m->tables);
    cJSON_Delete(root);
    if (rc != 0)
        return -1;
    if (names_a_language_model(m->architecture)) {
        if (!m->has_vocab_size) {
            snprintf(err, errlen, "%s is a language model, but the config has no vocab_size: "
                     "no count of its embedding's rows", m->architecture);
            return -1;
        }
        m->head.problem[0] = '\0';   /* a leftover id2label: not what the model outputs */
        m->is_head = 0;
        return 0;
    }
    m->is_head = m->head.has_n || names_a_head(m->architecture) || !m->has_vocab_size;
    if (m->is_head && !m->head.has_n) {   /* PretrainedConfig's default */
        m->head.has_n = 1;
        m->head.n = 2;
        m->head.key = "num_labels (transformers' default)";
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
