/* class_findings.c - see class_findings.h. */
#include "class_findings.h"

#include <stdio.h>  /* snprintf */
#include <string.h> /* strrchr */

#include "class_count.h"     /* the sources, the model */
#include "label_notes.h"     /* the notes' columns: were any checked */
#include "file_report.h"     /* la_report_add_finding */
#include "read/class_meta.h" /* struct la_model */

/* The sources that disagree with the chosen one, in one finding. */
static void diagnose_disagreement(struct la_class_count *cc, struct la_file_report *r)
{
    const struct la_class_source *c = &cc->src[cc->chosen];
    char others[400] = "";
    size_t len = 0, n = 0;
    for (size_t i = 0; i < cc->n_src; i++) {
        const struct la_class_source *s = &cc->src[i];
        if ((int)i == cc->chosen || s->n == c->n || (s->folders && c->rank == 0))
            continue;       /* folders against -n: the class-count finding */
        len += (size_t)snprintf(others + len, len < sizeof others ? sizeof others - len : 0,
                                "%s%s says %llu", n++ ? ", " : "", s->from,
                                (unsigned long long)s->n);
        if (len >= sizeof others)
            len = sizeof others - 1;
    }
    if (!n)
        return;
    struct la_finding *f = la_report_add_finding(r, LA_F_CLASS_COUNT_MISMATCH,
        "%s says %llu classes, but %s: the labels are checked against %llu", c->from,
        (unsigned long long)c->n, others, (unsigned long long)c->n);
    if (f)
        snprintf(f->hint, sizeof f->hint, "make them agree: a head of fewer outputs than a "
                 "label fails in the loss (CUDA: device-side assert), one of more outputs "
                 "trains its extra classes on nothing and raises no error");
}

static void diagnose_problems(const struct la_class_count *cc, struct la_file_report *r)
{
    for (size_t i = 0; i < cc->n_problems; i++) {
        struct la_finding *f = la_report_add_finding(r, LA_F_CLASS_COUNT_MISMATCH, "%s",
                                                     cc->problems[i]);
        if (f)
            snprintf(f->hint, sizeof f->hint, "fix the file so that its counts agree; "
                     "the labels are checked against %llu",
                     cc->chosen >= 0 ? (unsigned long long)cc->src[cc->chosen].n : 0ULL);
    }
}

static int max_as_u64(const struct la_stats *s, uint64_t *out)
{
    if (!s->has_minmax)
        return 0;
    if (s->max.kind == LA_NUM_I64 && s->max.v.i >= 0)
        return *out = (uint64_t)s->max.v.i, 1;
    if (s->max.kind == LA_NUM_U64)
        return *out = s->max.v.u, 1;
    return 0;
}

/* The tokenizer against the embedding, and the ids against the tokenizer. */
static void diagnose_vocab(const struct la_class_count *cc, struct la_file_report *r)
{
    const struct la_model *m = cc->model;
    if (!m || !cc->vocab || !m->has_tokenizer)
        return;
    if (m->has_vocab_size && m->tokenizer_vocab > m->vocab_size)
        la_report_add_finding(r, LA_F_VOCAB_MISMATCH, "the tokenizer's vocabulary has %llu "
            "ids (%llu base, %llu added tokens) but the model's vocab_size is %llu: ids %llu "
            "and up have no embedding row", (unsigned long long)m->tokenizer_vocab,
            (unsigned long long)m->tokenizer_base, (unsigned long long)m->tokenizer_added,
            (unsigned long long)m->vocab_size, (unsigned long long)m->vocab_size);
    uint64_t top;
    if (max_as_u64(&r->stats, &top) && top >= m->tokenizer_vocab &&
        (!m->has_vocab_size || top < m->vocab_size)) {
        struct la_finding *f = la_report_add_finding(r, LA_F_VOCAB_MISMATCH, "ids up to %llu, "
            "but the tokenizer's vocabulary has %llu (ids 0..%llu): the data was tokenized "
            "with another tokenizer, or its ids were shifted", (unsigned long long)top,
            (unsigned long long)m->tokenizer_vocab, (unsigned long long)m->tokenizer_vocab - 1);
        if (f) {
            f->prevents = NULL;    /* inside the embedding: no error, untrained rows */
            snprintf(f->hint, sizeof f->hint, "tokenize the data again with the model's own "
                     "tokenizer (%.400s)", m->tokenizer_path);
        }
    }
}

/* A composite config's own vocab_size against its text model's: the ids were
 * checked against the text model's, where the embedding is built from; the
 * stale number trains nothing wrong, so a warning. */
static void diagnose_stale_vocab(const struct la_class_count *cc, struct la_file_report *r)
{
    const struct la_model *m = cc->model;
    if (!m || !cc->vocab || !m->vocab_problem[0])
        return;
    const char *base = strrchr(m->head.path, '/');
    struct la_finding *f = la_report_add_finding(r, LA_F_CLASS_COUNT_MISMATCH, "%.200s: %.300s",
                                                 base ? base + 1 : m->head.path,
                                                 m->vocab_problem);
    if (f) {
        f->severity = LA_SEV_WARNING;
        f->prevents = NULL;
        snprintf(f->hint, sizeof f->hint, "make the top-level vocab_size agree with the text "
                 "model's, or drop it: code that reads config.vocab_size gets the stale one");
    }
}

/* The same for the tables the columns were checked against (a top-level
 * max_position_embeddings that text_config overrides): said where columns
 * were checked, since only they read those tables. */
static void diagnose_stale_tables(const struct la_class_count *cc, struct la_file_report *r)
{
    const struct la_model *m = cc->model;
    if (!m || !m->tables.problem[0] || !r->notes || !r->notes->columns_json)
        return;
    const char *base = strrchr(m->head.path, '/');
    struct la_finding *f = la_report_add_finding(r, LA_F_CLASS_COUNT_MISMATCH, "%.200s: %.300s",
                                                 base ? base + 1 : m->head.path,
                                                 m->tables.problem);
    if (f) {
        f->severity = LA_SEV_WARNING;
        f->prevents = NULL;
        snprintf(f->hint, sizeof f->hint, "make the top-level value agree with text_config's, "
                 "or drop it: code that reads the top level (a max_length taken from it) gets "
                 "the stale one");
    }
}

void la_class_count_finish(struct la_class_count *cc, struct la_file_report *r)
{
    if (!cc)
        return;
    la_class_count_take_notes(cc, r->notes);
    if (r->read_ok && cc->chosen >= 0) {
        diagnose_problems(cc, r);
        diagnose_disagreement(cc, r);
        diagnose_vocab(cc, r);
        diagnose_stale_vocab(cc, r);
    }
    if (r->read_ok && cc->model)
        diagnose_stale_tables(cc, r);
    la_class_count_give(cc, r);
}

