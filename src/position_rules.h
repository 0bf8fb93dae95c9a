/* position_rules.h - what a model's config means for the columns beside its
 * labels: how long a row may be (a learned absolute position table, or none),
 * which table token_type_ids index, and whether `labels` is paired with
 * input_ids element by element.
 *
 * The rules are transformers' modeling code, family by family (the table in
 * position_rules.c names the class each row follows); tests/gen/
 * gen_column_verdicts.py holds them to a forward pass of a tiny model of
 * each type. */
#ifndef LA_POSITION_RULES_H
#define LA_POSITION_RULES_H

#include <stdint.h> /* int64_t */

struct la_model;

enum la_length_rule {
    LA_LEN_NONE,      /* nothing known: lengths are not held to a limit */
    LA_LEN_ERROR,     /* a learned (or precomputed) table: the forward pass fails past it */
    LA_LEN_WARNING,   /* rotary, relative, ALiBi: no crash, positions never trained */
};

struct la_model_rules {
    const char *family;            /* the model_type as the table knows it, or NULL */
    enum la_length_rule length;
    int64_t length_limit;          /* with length: rows of at most this many tokens */
    char length_why[256];          /* "bert: learned absolute positions, max_position_embeddings 512" */
    int count_non_pad;             /* RoBERTa-style: positions count the tokens that are not pad */
    int64_t pad_id;
    int64_t type_bound;            /* token_type_ids in [0, type_bound); -1: not an input */
    const char *type_table;        /* what type_bound is: "type_vocab_size", "vocab_size" */
    int64_t position_bound;        /* position_ids in [0, position_bound); -1: not checked */
    int64_t position_table;        /* the learned table's rows (RoBERTa: a row longer is
                                      refused when no token_type_ids are given), or -1 */
    int positions_within_row;      /* position_ids below the row's length (a rotary cache
                                      sliced to it: Qwen2, Phi in transformers 4.44) */
    int labels_paired;             /* a list of labels is one per token of input_ids */
    int seq2seq;                   /* labels are the decoder's: of their own length */
};

/** la_model_rules_of() : the rules of model m (NULL: --vocab-size alone: a
 *  causal language model of unknown positions), vocab the id bound. */
void la_model_rules_of(const struct la_model *m, int64_t vocab, struct la_model_rules *out);

#endif
