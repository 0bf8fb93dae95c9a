/* position_rules.c - see position_rules.h: one row per model family, read
 * off transformers' modeling_*.py. */
#include "position_rules.h"

#include <stdio.h>  /* snprintf */
#include <string.h> /* strcmp */

#include "read/class_meta.h" /* struct la_model */

enum positions {
    POS_ABSOLUTE,      /* nn.Embedding(max_position_embeddings): IndexError or a size mismatch past it */
    POS_ROBERTA,       /* the same, but positions start at padding_idx + 1 and skip pads */
    POS_TABLE,         /* a precomputed rotary table of n_positions (GPT-J): IndexError past it */
    POS_RELATIVE,      /* rotary, relative, ALiBi: nothing to index past */
    POS_ROW_CACHE,     /* rotary, its cos/sin cache sliced to the row's length and
                          indexed by position_ids (Qwen2, Phi in transformers 4.44) */
    POS_DEBERTA,       /* absolute when position_biased_input, else relative */
};

enum token_types {
    TYPES_TABLE,       /* nn.Embedding(type_vocab_size) */
    TYPES_WORDS,       /* GPT-2 and kin embed token types with the word embedding */
    TYPES_NONE,        /* forward() takes no token_type_ids (Trainer drops the column) */
    TYPES_IF_ANY,      /* DeBERTa: a table only when type_vocab_size > 0 */
};

struct family {
    const char *model_type;
    enum positions positions;
    enum token_types types;
    int64_t default_positions;     /* the config class's default, where the config is silent */
    int64_t default_types;
    int seq2seq;
};

static const struct family g_families[] = {
    /* BertEmbeddings: position_embeddings(position_ids[:, :seq_len]) */
    { "bert", POS_ABSOLUTE, TYPES_TABLE, 512, 2, 0 },
    { "albert", POS_ABSOLUTE, TYPES_TABLE, 512, 2, 0 },
    { "electra", POS_ABSOLUTE, TYPES_TABLE, 512, 2, 0 },
    /* RobertaEmbeddings: create_position_ids_from_input_ids, from padding_idx + 1 */
    { "roberta", POS_ROBERTA, TYPES_TABLE, 512, 2, 0 },
    { "xlm-roberta", POS_ROBERTA, TYPES_TABLE, 512, 2, 0 },
    { "camembert", POS_ROBERTA, TYPES_TABLE, 512, 2, 0 },
    { "distilbert", POS_ABSOLUTE, TYPES_NONE, 512, 0, 0 },
    { "deberta-v2", POS_DEBERTA, TYPES_IF_ANY, 512, 0, 0 },
    { "deberta", POS_DEBERTA, TYPES_IF_ANY, 512, 0, 0 },
    /* GPT2Model: wpe(position_ids), token_type_embeds = wte(token_type_ids) */
    { "gpt2", POS_ABSOLUTE, TYPES_WORDS, 1024, 0, 0 },
    { "gpt_neo", POS_ABSOLUTE, TYPES_WORDS, 2048, 0, 0 },
    /* GPTJ: embed_positions = create_sinusoidal_positions(n_positions) */
    { "gptj", POS_TABLE, TYPES_WORDS, 2048, 0, 0 },
    /* OPTLearnedPositionalEmbedding and BartLearnedPositionalEmbedding: the
     * table has max_position_embeddings + 2 rows and an offset of 2 */
    { "opt", POS_ABSOLUTE, TYPES_NONE, 2048, 0, 0 },
    { "bart", POS_ABSOLUTE, TYPES_NONE, 1024, 0, 1 },
    { "mbart", POS_ABSOLUTE, TYPES_NONE, 1024, 0, 1 },
    { "t5", POS_RELATIVE, TYPES_NONE, -1, 0, 1 },
    { "mt5", POS_RELATIVE, TYPES_NONE, -1, 0, 1 },
    { "llama", POS_RELATIVE, TYPES_NONE, 2048, 0, 0 },
    { "mistral", POS_RELATIVE, TYPES_NONE, 131072, 0, 0 },
    { "mixtral", POS_RELATIVE, TYPES_NONE, 131072, 0, 0 },
    { "qwen2", POS_ROW_CACHE, TYPES_NONE, 32768, 0, 0 },
    { "qwen3", POS_RELATIVE, TYPES_NONE, 32768, 0, 0 },
    { "gemma", POS_RELATIVE, TYPES_NONE, 8192, 0, 0 },
    { "gemma2", POS_RELATIVE, TYPES_NONE, 8192, 0, 0 },
    { "phi", POS_ROW_CACHE, TYPES_NONE, 2048, 0, 0 },
    { "phi3", POS_RELATIVE, TYPES_NONE, 4096, 0, 0 },
    { "bloom", POS_RELATIVE, TYPES_NONE, -1, 0, 0 },   /* ALiBi */
    { "falcon", POS_RELATIVE, TYPES_NONE, 2048, 0, 0 },
};

static const struct family *family_of(const char *model_type)
{
    for (size_t i = 0; i < sizeof g_families / sizeof *g_families; i++)
        if (strcmp(g_families[i].model_type, model_type) == 0)
            return &g_families[i];
    return NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A head with one label per sequence (not per token): its labels are not
 * paired with input_ids. */
static int sequence_head(const char *arch)
{
    return ends_with(arch, "ForSequenceClassification") || ends_with(arch, "ForMultipleChoice") ||
           ends_with(arch, "ForQuestionAnswering");
}

static void set_positions(const struct family *f, const struct la_model_tables *t,
                          struct la_model_rules *r)
{
    int64_t table = t->max_positions >= 0 ? t->max_positions : f->default_positions;
    const char *key = t->max_positions >= 0 ? t->max_positions_key
                                            : "the config class's default positions";
    enum positions p = f->positions;
    if (p == POS_DEBERTA)   /* DebertaV2Config's default is True; v3 checkpoints say false */
        p = t->position_biased_input == 0 ? POS_RELATIVE : POS_ABSOLUTE;
    if (table < 0)
        return;
    r->length_limit = table;
    r->position_table = table;
    switch (p) {
    case POS_ABSOLUTE:
        r->length = LA_LEN_ERROR;
        r->position_bound = table;
        snprintf(r->length_why, sizeof r->length_why, "%s: learned absolute positions, %s %lld",
                 f->model_type, key, (long long)table);
        break;
    case POS_ROBERTA:
        r->length = LA_LEN_ERROR;
        r->position_bound = table;
        r->count_non_pad = 1;
        r->pad_id = t->pad_token_id >= 0 ? t->pad_token_id : 1;
        r->length_limit = table - (r->pad_id + 1);
        snprintf(r->length_why, sizeof r->length_why, "%s: learned absolute positions from "
                 "padding_idx + 1 = %lld, %s %lld: %lld usable", f->model_type,
                 (long long)r->pad_id + 1, key, (long long)table, (long long)r->length_limit);
        break;
    case POS_TABLE:
        r->length = LA_LEN_ERROR;
        r->position_bound = table;
        snprintf(r->length_why, sizeof r->length_why, "%s: a rotary table precomputed to %s "
                 "%lld", f->model_type, key, (long long)table);
        break;
    case POS_ROW_CACHE:
        r->positions_within_row = 1;
        /* fall through */
    case POS_RELATIVE:
    case POS_DEBERTA:
        r->position_table = -1;
        r->length = LA_LEN_WARNING;
        snprintf(r->length_why, sizeof r->length_why, "%s: no position table (rotary, relative "
                 "or ALiBi), trained to %s %lld", f->model_type, key, (long long)table);
        break;
    }
}

static void set_types(const struct family *f, const struct la_model_tables *t, int64_t vocab,
                      struct la_model_rules *r)
{
    int64_t types = t->type_vocab_size >= 0 ? t->type_vocab_size : f->default_types;
    switch (f->types) {
    case TYPES_TABLE:
        r->type_bound = types, r->type_table = "type_vocab_size";
        break;
    case TYPES_IF_ANY:
        if (types > 0)
            r->type_bound = types, r->type_table = "type_vocab_size";
        break;
    case TYPES_WORDS:
        r->type_bound = vocab, r->type_table = "vocab_size (token types index the word embedding)";
        break;
    case TYPES_NONE:
        break;
    }
}

void la_model_rules_of(const struct la_model *m, int64_t vocab, struct la_model_rules *out)
{
    memset(out, 0, sizeof *out);
    out->type_bound = -1;
    out->position_bound = -1;
    out->position_table = -1;
    out->labels_paired = 1;
    if (!m)
        return;
    const struct la_model_tables *t = &m->tables;
    out->labels_paired = !sequence_head(m->architecture);
    const struct family *f = family_of(t->model_type);
    if (!f) {
        /* an unknown family: its stated type table is still a table */
        if (t->type_vocab_size > 0)
            out->type_bound = t->type_vocab_size, out->type_table = "type_vocab_size";
        return;
    }
    out->family = f->model_type;
    out->seq2seq = f->seq2seq;
    if (f->seq2seq)
        out->labels_paired = 0;
    set_positions(f, t, out);
    set_types(f, t, vocab, out);
}
