/* columns.h - every column a model indexes, not only the label column: the
 * plan of which columns are checked against which table (built once per
 * run from --model, --vocab-size and --columns: immutable from then on, so
 * readers on any thread may read it), and the check a multi-column reader
 * feeds row by row (la_column_check), whose findings and JSON land in the
 * file's notes.
 *
 * The label column itself stays the scan's (its values against N, the
 * batching); here it counts for lengths only: `labels` one longer than its
 * `input_ids` is length-mismatch. */
#ifndef LA_COLUMNS_H
#define LA_COLUMNS_H

#include <stddef.h>  /* size_t */
#include <stdint.h>  /* int64_t, uint64_t */

#include "position_rules.h"

struct la_config;
struct la_notes;

enum la_column_role {
    LA_COL_INPUT_IDS,       /* the word embedding: [0, vocab_size) */
    LA_COL_DECODER_IDS,     /* decoder_input_ids: the same table, its own length */
    LA_COL_LABELS,          /* the scan's column: lengths only */
    LA_COL_TOKEN_TYPES,     /* [0, type_vocab_size) */
    LA_COL_POSITIONS,       /* [0, the position table) */
    LA_COL_MASK,            /* attention_mask: 0 and 1 */
};

#define LA_COLUMNS_MAX 16
#define LA_COLUMN_NAME 64

struct la_column_rule {
    char name[LA_COLUMN_NAME];  /* the column's name in the file */
    enum la_column_role role;
    int64_t bound;              /* values in [0, bound); -1: no table (not checked) */
    const char *table;          /* what bound is ("vocab_size"), static; NULL without one */
};

struct la_column_plan {
    struct la_column_rule cols[LA_COLUMNS_MAX];
    size_t n;
    struct la_model_rules model;   /* the row length's limit, token types, pairing */
};

/** la_column_plan_build() : the run's plan, or 0 columns (no --model, no
 *  --vocab-size and no --columns; or -c without --columns: the single-column
 *  audit). @return 0, or -1 with err (a --columns entry of no known role). */
int la_column_plan_build(const struct la_config *cfg, struct la_column_plan *plan, char *err,
                         size_t errlen);

/** la_column_plan_find() : the rule for the column named name, or -1. */
int la_column_plan_find(const struct la_column_plan *plan, const char *name);

struct la_column_check;

/** la_column_check_new() : a check of the plan's columns present[0..n)
 *  (rule indices), primary the scan's own column's rule (or -1).
 *  @return NULL out of memory. */
struct la_column_check *la_column_check_new(const struct la_column_plan *plan,
                                            const int *present, size_t n, int primary);

/** la_column_check_dtype() : the dtype of column i (of present) as the
 *  reader read it ("int64"); list_column: its rows are lists. */
void la_column_check_dtype(struct la_column_check *c, size_t i, const char *dtype,
                           int list_column);

/** la_column_check_line() : the line (from 1) in its file of the row whose
 *  values come next (jsonl, csv: the reports name it); 0: rows have none. */
void la_column_check_line(struct la_column_check *c, uint64_t line);

/** la_column_check_unit() : what the reports call a row ("sample"; "row"
 *  unless told; static). */
void la_column_check_unit(struct la_column_check *c, const char *unit);

/** la_column_check_values() : the values of row `row` in column i; a
 *  scalar column gives n 1. NULL values with n 0: a null row. */
void la_column_check_values(struct la_column_check *c, size_t i, uint64_t row,
                            const int64_t *values, size_t n);

/** la_column_check_row() : after every column of row `row`: its lengths. */
void la_column_check_row(struct la_column_check *c, uint64_t row);

/** la_column_check_finish() : the findings, text lines and the JSON's
 *  `columns` and `lengths` into notes; c is freed. @return 0, or -1 out of
 *  memory. */
int la_column_check_finish(struct la_column_check *c, struct la_notes *notes);

void la_column_check_free(struct la_column_check *c);

/* ---- token streams: samples whose values the scan checks, lengths here ----- */

/** la_column_check_stream() : a check of one stream of ids (Megatron's
 *  sequences, an MDS column of token ids) against the plan's length limit
 *  alone: column names it in the findings ("": the file's own values), unit
 *  ("sequence", "sample") the samples. soft: NULL, or why a sample past the
 *  limit is no crash by itself (a loader that packs samples across them):
 *  then a warning, soft its fix. @return NULL where the plan sets no limit,
 *  or out of memory. */
struct la_column_check *la_column_check_stream(const struct la_column_plan *plan,
                                               const char *column, const char *unit,
                                               const char *soft);

/** la_column_plan_ids() : whether the column named name holds a row's
 *  token ids, whose length is the row's: input_ids (or a column --columns
 *  gives that role; not labels, which may be one per row). */
int la_column_plan_ids(const struct la_column_plan *plan, const char *name);

/** la_column_check_length() : sample row of a stream check holds len ids. */
void la_column_check_length(struct la_column_check *c, uint64_t row, uint64_t len);

/* How a loader feeds a block of --seq-len L ids to the model. */
enum la_block_feed {
    LA_FEED_EITHER,    /* whole (Hugging Face's group_texts, nanoGPT's block_size: L
                          positions) or as a window shifted into x and y (L - 1):
                          a raw stream says not which */
    LA_FEED_SHIFTED,   /* x = block[:-1], y = block[1:]: L - 1 positions (LitData's
                          TokensLoader, which litgpt sizes max_seq_length + 1) */
    LA_FEED_WHOLE,     /* L positions: Megatron's --seq-length, its samples L + 1 ids */
};

/** la_column_check_blocks() : --seq-len's blocks of block ids (blocks of
 *  them, the last last ids long) against the plan's length limit: one
 *  seq-too-long finding into notes where they are past it, the model's
 *  severity where they are past it however fed, a warning where only one
 *  way of LA_FEED_EITHER is. @return 0, or -1 out of memory. */
int la_column_check_blocks(const struct la_column_plan *plan, uint64_t block, uint64_t blocks,
                           uint64_t last, enum la_block_feed feed, struct la_notes *notes);

/** la_column_blocks_checked() : whether the plan holds --seq-len's blocks
 *  of block ids to a limit they pass (la_column_check_blocks reports). */
int la_column_blocks_checked(const struct la_column_plan *plan, uint64_t block,
                             enum la_block_feed feed);

#endif
