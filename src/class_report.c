/* class_report.c - see class_report.h. */
#include "class_report.h"

#include "class_count.h"     /* the sources, la_class_count_name */
#include "file_report.h"
#include "read/class_meta.h" /* struct la_model: the tokenizer */
#include "msg.h"             /* la_fputs_escaped */

#define NAMES_JSON_MAX 65536    /* class_names listed in the JSON up to this many classes */

/* A source beyond -n to speak of: the report then says where N came from. */
static int has_sources(const struct la_class_count *cc)
{
    for (size_t i = 0; cc && i < cc->n_src; i++)
        if (cc->src[i].rank > 0)
            return 1;
    return 0;
}

void la_class_count_text(FILE *out, const struct la_file_report *r)
{
    const struct la_class_count *cc = r->classes;
    if (!la_class_count_from_source(cc) || !r->read_ok)
        return;     /* -n's N: the report says it already */
    const struct la_class_source *c = &cc->src[cc->chosen];
    if (r->vocabulary != LA_VOCAB_NONE)
        fprintf(out, "  vocabulary: %llu token ids, from %s", (unsigned long long)c->n, c->from);
    else
        fprintf(out, "  classes: %llu, from %s", (unsigned long long)c->n, c->from);
    if (c->path[0]) {
        fputs(" (", out);
        la_fputs_escaped(c->path, out);
        fputc(')', out);
    }
    fputc('\n', out);
    const struct la_stats *s = &r->stats;
    int shown = 0;
    for (int k = 0; k < LA_OUTLIER_BINS && shown < 4; k++) {
        if (!s->outlier_above[k] || s->above_base + k < (int64_t)c->n)
            continue;
        uint64_t v = (uint64_t)(s->above_base + k);
        unsigned long long times = (unsigned long long)s->outlier_above[k];
        if (r->vocabulary != LA_VOCAB_NONE) {    /* ids have no names: where they point */
            fprintf(out, "  id %llu (past the vocabulary: %s %llu %s): %llu %s\n",
                    (unsigned long long)v, c->rank == 1 ? "the model's embedding has" : c->from,
                    (unsigned long long)c->n, c->rank == 1 ? "rows" : "ids", times,
                    times == 1 ? "time" : "times");
            shown++;
            continue;
        }
        const char *name = la_class_count_name(cc, r->notes, v);
        fprintf(out, "  class %llu (", (unsigned long long)v);
        if (name)
            la_fputs_escaped(name, out);
        else if (c->rank == 1)
            fprintf(out, "no name; the model has %llu %s", (unsigned long long)c->n,
                    cc->vocab ? "embedding rows" : "outputs");
        else
            fprintf(out, "no name; %s says %llu classes", c->from, (unsigned long long)c->n);
        fprintf(out, "): %llu %s\n", times, times == 1 ? "label" : "labels");
        shown++;
    }
}

static cJSON *names_array(const struct la_file_report *r, uint64_t n)
{
    cJSON *a = cJSON_CreateArray();
    int any = 0;
    for (uint64_t c = 0; a && c < n; c++) {
        const char *name = la_class_count_name(r->classes, r->notes, c);
        any |= name != NULL;
        cJSON_AddItemToArray(a, name ? cJSON_CreateString(name) : cJSON_CreateNull());
    }
    if (!any) {
        cJSON_Delete(a);
        return cJSON_CreateNull();
    }
    return a;
}

void la_class_count_json(const struct la_file_report *r, cJSON *file)
{
    const struct la_class_count *cc = r->classes;
    if (!has_sources(cc) || !r->read_ok)
        return;
    const struct la_class_source *c = cc->chosen >= 0 ? &cc->src[cc->chosen] : NULL;
    cJSON_AddItemToObject(file, "num_classes", c ? cJSON_CreateNumber((double)c->n)
                                                 : cJSON_CreateNull());
    cJSON_AddItemToObject(file, "num_classes_from", c ? cJSON_CreateString(c->from)
                                                      : cJSON_CreateNull());
    cJSON *a = cJSON_AddArrayToObject(file, "class_sources");
    for (size_t i = 0; a && i < cc->n_src; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "from", cc->src[i].from);
        cJSON_AddItemToObject(o, "path", cc->src[i].path[0] ? cJSON_CreateString(cc->src[i].path)
                                                            : cJSON_CreateNull());
        cJSON_AddNumberToObject(o, "num_classes", (double)cc->src[i].n);
        cJSON_AddItemToArray(a, o);
    }
    cJSON_AddItemToObject(file, "class_names", c && c->n <= NAMES_JSON_MAX && !cc->vocab
                                                   ? names_array(r, c->n) : cJSON_CreateNull());
    const struct la_model *m = cc->model;
    if (m && cc->vocab && m->has_tokenizer) {
        cJSON *t = cJSON_AddObjectToObject(file, "tokenizer");
        cJSON_AddStringToObject(t, "path", m->tokenizer_path);
        cJSON_AddNumberToObject(t, "vocabulary", (double)m->tokenizer_vocab);
        cJSON_AddNumberToObject(t, "base", (double)m->tokenizer_base);
        cJSON_AddNumberToObject(t, "added_tokens", (double)m->tokenizer_added);
    }
}
