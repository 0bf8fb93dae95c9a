/* jsonl_columns.h - every column the model indexes (columns.h), for
 * --format=jsonl: the record's top-level keys that the plan names, each
 * captured while yajl reads it and handed to the check when the record ends.
 *
 * The reader (read_jsonl.c) calls these from its yajl callbacks with the
 * depth relative to the record's keys: 0 for a key's value, 1 for an item of
 * a list. What a column holds:
 *   - an integer (a scalar row) or a flat list of integers (a list row); a
 *     boolean counts as 0 or 1, as the Arrow reader widens a bool column;
 *   - null, or a missing key: a null row (load_dataset("json") fills None);
 *   - anything else (a float, even 2.0: json.loads reads it as a float, and
 *     torch.tensor of it is a FloatTensor an embedding refuses; an integer
 *     past int64; a string, an object, a nested list, a null item): the row
 *     is non-integer, reported as such (an error naming the column, the row
 *     and its line), and goes to the check as a null row. The label key
 *     (the scan's own column, which reports its values itself) keeps its
 *     length: such items count as 0 there, for lengths only.
 * The columns checked are the plan's keys of the first record, in its key
 * order (as Arrow fixes a schema); a key that only later records have is
 * not read. A column is a list column or a scalar one by its first non-null
 * row: a later row of the other shape is an error (pyarrow.json, and so
 * load_dataset("json"), refuses such a file).
 *
 * Memory: a record's values are held until it ends, at most
 * LA_JSONL_COLUMN_VALUES of them over its columns. */
#ifndef LA_JSONL_COLUMNS_H
#define LA_JSONL_COLUMNS_H

#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint64_t */

struct la_column_plan;
struct la_notes;
struct la_jsonl_columns;

#define LA_JSONL_COLUMN_VALUES ((size_t)16 << 20)

/** la_jsonl_columns_new() : the capture of plan's columns. @return NULL out of memory. */
struct la_jsonl_columns *la_jsonl_columns_new(const struct la_column_plan *plan);

/** la_jsonl_columns_key() : a key of the record (its keys' depth) starts a value. */
void la_jsonl_columns_key(struct la_jsonl_columns *c, const unsigned char *k, size_t n);

/** la_jsonl_columns_value() : a value starts at depth (0: a key's value, 1:
 *  an item of a list, deeper: inside one); first: its kind, '0' a number
 *  (text s[0..n)), 'b' a boolean (s "true"/"false"), 'n' null, '"' a string,
 *  '[' '{' a container. @return 0, or -1 with why (too many values, out of
 *  memory). */
int la_jsonl_columns_value(struct la_jsonl_columns *c, int depth, char first, const char *s,
                           size_t n, char *why, size_t whylen);

/** la_jsonl_columns_close() : a container closed, leaving depth. */
void la_jsonl_columns_close(struct la_jsonl_columns *c, int depth);

/** la_jsonl_columns_record() : the record `row` (from 0), which began on
 *  line, ended; label_key: the scan's column (NULL: not known). The first
 *  record fixes the columns. @return 0, or -1 with why (a column changed
 *  shape, out of memory). */
int la_jsonl_columns_record(struct la_jsonl_columns *c, uint64_t row, uint64_t line,
                            const char *label_key, char *why, size_t whylen);

/** la_jsonl_columns_finish() : the findings and JSON into notes (once, at the
 *  end of the file). @return 0, or -1 out of memory. */
int la_jsonl_columns_finish(struct la_jsonl_columns *c, struct la_notes *notes);

void la_jsonl_columns_free(struct la_jsonl_columns *c);

#endif
