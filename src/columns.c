/* columns.c - see columns.h: the plan (which column indexes which table) and
 * the row-by-row check of every column a model reads. */
#include "columns.h"

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, free */
#include <string.h>  /* strcmp, strchr */

#include <cjson/cJSON.h>
#include "findings.h"
#include "label_notes.h"
#include "options.h"          /* struct la_config */
#include "read/class_meta.h"  /* struct la_model */

/* The default names, each with the role it plays (SPEC's column table). */
static const struct { const char *name; enum la_column_role role; } g_known[] = {
    { "input_ids", LA_COL_INPUT_IDS },
    { "decoder_input_ids", LA_COL_DECODER_IDS },
    { "labels", LA_COL_LABELS },
    { "label", LA_COL_LABELS },
    { "token_type_ids", LA_COL_TOKEN_TYPES },
    { "position_ids", LA_COL_POSITIONS },
    { "attention_mask", LA_COL_MASK },
    { "decoder_attention_mask", LA_COL_MASK },
};

#define KNOWN (sizeof g_known / sizeof *g_known)

static int role_of(const char *name, size_t len, enum la_column_role *role)
{
    for (size_t i = 0; i < KNOWN; i++)
        if (strlen(g_known[i].name) == len && strncmp(g_known[i].name, name, len) == 0)
            return *role = g_known[i].role, 0;
    return -1;
}

/* A rule's table: its bound and what the bound is, from the model's rules. */
static void set_table(struct la_column_rule *c, int64_t vocab, const struct la_model_rules *m)
{
    c->bound = -1;
    c->table = NULL;
    switch (c->role) {
    case LA_COL_INPUT_IDS:
    case LA_COL_DECODER_IDS:
        if (vocab > 0)
            c->bound = vocab, c->table = "vocab_size";
        break;
    case LA_COL_TOKEN_TYPES:
        c->bound = m->type_bound, c->table = m->type_table;
        break;
    case LA_COL_POSITIONS:
        if (m->position_bound > 0)
            c->bound = m->position_bound, c->table = "the position table";
        else if (m->positions_within_row)
            c->table = "the row's length: transformers 4.44 slices the rotary cache to it";
        break;
    case LA_COL_MASK:
        c->bound = 2, c->table = "0 and 1";
        break;
    case LA_COL_LABELS:
        break;
    }
}

static int add_rule(struct la_column_plan *p, const char *name, size_t len,
                    enum la_column_role role, int64_t vocab)
{
    if (p->n >= LA_COLUMNS_MAX || len >= LA_COLUMN_NAME)
        return -1;
    struct la_column_rule *c = &p->cols[p->n++];
    memcpy(c->name, name, len);
    c->name[len] = '\0';
    c->role = role;
    set_table(c, vocab, &p->model);
    return 0;
}

/* --columns=a,b,NAME=ROLE: each entry a default name, or a column of the
 * file given the role of one. */
static int plan_named(struct la_column_plan *p, const char *list, int64_t vocab, char *err,
                      size_t errlen)
{
    for (const char *s = list; *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        size_t name_len = eq ? (size_t)(eq - s) : len;
        const char *role_name = eq ? eq + 1 : s;
        size_t role_len = eq ? len - name_len - 1 : len;
        enum la_column_role role;
        if (name_len == 0 || role_of(role_name, role_len, &role) != 0) {
            snprintf(err, errlen, "--columns: '%.*s' is not a column whose table labelaudit "
                     "knows (input_ids, decoder_input_ids, labels, token_type_ids, position_ids, "
                     "attention_mask; NAME=ROLE gives a column one of those roles)",
                     (int)(len > 100 ? 100 : len), s);
            return -1;
        }
        if (add_rule(p, s, name_len, role, vocab) != 0) {
            snprintf(err, errlen, "--columns: at most %d columns of names under %d bytes",
                     LA_COLUMNS_MAX, LA_COLUMN_NAME);
            return -1;
        }
        s += len + (end != NULL);
    }
    return 0;
}

int la_column_plan_build(const struct la_config *cfg, struct la_column_plan *p, char *err,
                         size_t errlen)
{
    memset(p, 0, sizeof *p);
    const struct la_model *m = cfg->model_info;
    int64_t vocab = cfg->has_vocab_size ? cfg->vocab_size
                  : m && m->has_vocab_size ? (int64_t)m->vocab_size : 0;
    bool wanted = cfg->columns || (!cfg->read.column && (m || cfg->has_vocab_size));
    if (!wanted)
        return 0;
    la_model_rules_of(m, vocab, &p->model);
    if (cfg->columns)
        return plan_named(p, cfg->columns, vocab, err, errlen);
    for (size_t i = 0; i < KNOWN; i++) {
        /* a column the model's forward() does not take is not its input */
        if (g_known[i].role == LA_COL_TOKEN_TYPES && m && p->model.family &&
            p->model.type_bound < 0)
            continue;
        add_rule(p, g_known[i].name, strlen(g_known[i].name), g_known[i].role, vocab);
    }
    return 0;
}

int la_column_plan_find(const struct la_column_plan *p, const char *name)
{
    for (size_t i = 0; p && i < p->n; i++)
        if (strcmp(p->cols[i].name, name) == 0)
            return (int)i;
    return -1;
}

// ---- the check ------------------------------------------------------------------------

#define KEEP 100   /* bad rows kept per column and for lengths: the JSON's lists */

struct bad_value { uint64_t row, line; int64_t value; };
struct bad_length { uint64_t row, line, length, ids_length; int col; };

struct column_stats {
    const struct la_column_rule *rule;
    char dtype[32];
    int list;
    uint64_t count, invalid, bad_rows;
    int64_t min, max;
    struct bad_value bad[KEEP];
    size_t n_bad;
    uint64_t row_len, row_non_pad;   /* this row's */
    int64_t row_max;
    int row_null, row_bad;
};

struct la_column_check {
    const struct la_column_plan *plan;
    size_t n;
    struct column_stats col[LA_COLUMNS_MAX];
    int primary, ids;                 /* indices in col, or -1 */
    int positions;                    /* the position_ids column, or -1 */
    int has_types;                    /* a token_type_ids column is given */
    uint64_t line;                    /* the line of the row being fed (jsonl, csv), or 0 */
    uint64_t rows, max_len, too_long, mismatched;
    struct bad_length too_long_at[KEEP], mismatch_at[KEEP];
    size_t n_too_long, n_mismatch;
    const char *unit;                 /* what the reports call a row: "row", "sequence" */
    int stream;                       /* la_column_check_stream's: lengths only */
    const char *soft;                 /* its fix where a sample past the limit is no crash */
    struct la_column_rule stream_rule;
};

struct la_column_check *la_column_check_new(const struct la_column_plan *plan,
                                            const int *present, size_t n, int primary)
{
    struct la_column_check *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->plan = plan;
    c->unit = "row";
    c->primary = c->ids = c->positions = -1;
    for (size_t i = 0; i < n && i < LA_COLUMNS_MAX; i++) {
        c->col[i].rule = &plan->cols[present[i]];
        if (present[i] == primary)
            c->primary = (int)i;
        if (c->ids < 0 && c->col[i].rule->role == LA_COL_INPUT_IDS)
            c->ids = (int)i;
        if (c->positions < 0 && c->col[i].rule->role == LA_COL_POSITIONS)
            c->positions = (int)i;
        c->has_types |= c->col[i].rule->role == LA_COL_TOKEN_TYPES;
    }
    c->n = n < LA_COLUMNS_MAX ? n : LA_COLUMNS_MAX;
    return c;
}

void la_column_check_dtype(struct la_column_check *c, size_t i, const char *dtype,
                           int list_column)
{
    snprintf(c->col[i].dtype, sizeof c->col[i].dtype, "%s", dtype);
    c->col[i].list = list_column;
}

void la_column_check_line(struct la_column_check *c, uint64_t line)
{
    c->line = line;
}

void la_column_check_unit(struct la_column_check *c, const char *unit)
{
    c->unit = unit;
}

void la_column_check_values(struct la_column_check *c, size_t i, uint64_t row,
                            const int64_t *v, size_t n)
{
    struct column_stats *s = &c->col[i];
    const struct la_column_rule *rule = s->rule;
    const struct la_model_rules *m = &c->plan->model;
    s->row_len = n;
    s->row_null = v == NULL;
    s->row_non_pad = 0;
    s->row_bad = 0;
    s->row_max = 0;
    int checked = rule->bound > 0 && (int)i != c->primary;
    if (n == 0)
        return;
    /* The row's least, greatest, non-pad and out-of-table counts in locals,
     * without a branch per value (the compiler vectorizes it): this loop is
     * every value of every column a model indexes, and the branchy one with
     * its stores to *s took an eighth of a Parquet run. The bad values are
     * found by a second loop, only in a row that has one. */
    int64_t lo = v[0], hi = v[0], pad = m->pad_id;
    uint64_t non_pad = 0, bad = 0;
    if (checked) {
        uint64_t ub = (uint64_t)rule->bound;   /* x < 0 || x >= bound, bound > 0 */
        for (size_t k = 0; k < n; k++) {
            int64_t x = v[k];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            non_pad += x != pad;
            bad += (uint64_t)x >= ub;
        }
    } else {
        for (size_t k = 0; k < n; k++) {
            int64_t x = v[k];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            non_pad += x != pad;
        }
    }
    if (s->count == 0 || lo < s->min)
        s->min = lo;
    if (s->count == 0 || hi > s->max)
        s->max = hi;
    s->count += n;
    s->row_max = hi;
    s->row_non_pad = non_pad;
    if (bad) {
        s->invalid += bad;
        s->row_bad = 1;
        for (size_t k = 0; k < n && s->n_bad < KEEP; k++)
            if (v[k] < 0 || v[k] >= rule->bound)
                s->bad[s->n_bad++] = (struct bad_value){ .row = row, .line = c->line, .value = v[k] };
    }
    s->bad_rows += s->row_bad;
}

static void keep_length(struct bad_length *at, size_t *n, uint64_t row, uint64_t line,
                        uint64_t len, uint64_t ids_len, int col)
{
    if (*n < KEEP)
        at[(*n)++] = (struct bad_length){ .row = row, .line = line, .length = len,
                                          .ids_length = ids_len, .col = col };
}

/* Whether column s is paired element by element with input_ids. */
static int paired(const struct la_column_check *c, const struct column_stats *s)
{
    switch (s->rule->role) {
    case LA_COL_TOKEN_TYPES:
    case LA_COL_POSITIONS:
    case LA_COL_MASK:
        return strncmp(s->rule->name, "decoder_", 8) != 0;
    case LA_COL_LABELS:
        return s->list && c->plan->model.labels_paired;
    default:
        return 0;
    }
}

/* The length a row's positions reach: RoBERTa-style embeddings skip pads. */
static uint64_t position_length(const struct la_column_check *c, const struct column_stats *s)
{
    return c->plan->model.count_non_pad && s->rule->role == LA_COL_INPUT_IDS ? s->row_non_pad
                                                                             : s->row_len;
}

/* Whether a row of ids column s is past the model's positions. Given
 * position_ids replace the model's own count: their values are checked
 * instead. RoBERTa-style: the tokens that are not pads, and without
 * token_type_ids the row itself against the table (its buffered zeros are
 * as long as the table). */
static int past_positions(const struct la_column_check *c, const struct column_stats *s,
                          uint64_t *len)
{
    const struct la_model_rules *m = &c->plan->model;
    *len = position_length(c, s);
    if (m->length == LA_LEN_NONE || c->positions >= 0)
        return 0;
    if (*len > (uint64_t)m->length_limit)
        return 1;
    if (m->count_non_pad && !c->has_types && s->row_len > (uint64_t)m->position_table)
        return *len = s->row_len, 1;
    return 0;
}

/* position_ids at or past the row's length, where the rotary cache is cut to it. */
static void positions_in_row(struct la_column_check *c, uint64_t row)
{
    if (!c->plan->model.positions_within_row || c->positions < 0 || c->ids < 0)
        return;
    struct column_stats *p = &c->col[c->positions];
    const struct column_stats *ids = &c->col[c->ids];
    if (p->row_null || ids->row_null || p->row_len == 0 ||
        p->row_max < (int64_t)ids->row_len)
        return;
    p->invalid++;
    p->bad_rows++;
    if (p->n_bad < KEEP)
        p->bad[p->n_bad++] = (struct bad_value){ .row = row, .line = c->line, .value = p->row_max };
}

void la_column_check_row(struct la_column_check *c, uint64_t row)
{
    const struct la_model_rules *m = &c->plan->model;
    c->rows++;
    positions_in_row(c, row);
    int long_col = -1;
    uint64_t long_len = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct column_stats *s = &c->col[i];
        if (s->row_null || !s->list)
            continue;
        /* the encoder's ids, and a seq2seq decoder's (BART's decoder has its
         * own table of the same size) */
        int limited = s->rule->role == LA_COL_INPUT_IDS ||
                      (m->seq2seq && (s->rule->role == LA_COL_DECODER_IDS ||
                                      s->rule->role == LA_COL_LABELS));
        if (!limited)
            continue;
        if (s->row_len > c->max_len)
            c->max_len = s->row_len;
        uint64_t len;
        if (past_positions(c, s, &len) && len > long_len)
            long_col = (int)i, long_len = len;
    }
    if (long_col >= 0) {
        c->too_long++;
        keep_length(c->too_long_at, &c->n_too_long, row, c->line, long_len, long_len, long_col);
    }
    if (c->ids < 0 || c->col[c->ids].row_null)
        return;
    uint64_t want = c->col[c->ids].row_len;
    for (size_t i = 0; i < c->n; i++) {
        const struct column_stats *s = &c->col[i];
        if ((int)i != c->ids && !s->row_null && paired(c, s) && s->row_len != want) {
            c->mismatched++;
            keep_length(c->mismatch_at, &c->n_mismatch, row, c->line, s->row_len, want, (int)i);
            break;
        }
    }
}

// ---- the findings -----------------------------------------------------------------------

/* "rows 3, 17, 20 and 4 more", from the kept rows ("sequences 3, ..."). */
static void rows_text(char *out, size_t size, const char *unit, const uint64_t *rows, size_t kept,
                      uint64_t total)
{
    size_t used = (size_t)snprintf(out, size, "%s%s", unit, total == 1 ? "" : "s");
    size_t shown = kept < 5 ? kept : 5;
    for (size_t i = 0; i < shown && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s %llu", i ? "," : "",
                                 (unsigned long long)rows[i]);
    if (total > shown && used < size)
        snprintf(out + used, size - used, " and %llu more", (unsigned long long)(total - shown));
}

/* "row 3", or "row 3, line 5" where rows have lines (jsonl, csv). */
static const char *row_at(char *out, size_t size, const char *unit, uint64_t row, uint64_t line)
{
    if (line)
        snprintf(out, size, "%s %llu, line %llu", unit, (unsigned long long)row,
                 (unsigned long long)line);
    else
        snprintf(out, size, "%s %llu", unit, (unsigned long long)row);
    return out;
}

static struct la_finding *column_finding(struct la_notes *n, enum la_code code,
                                         const char *prevents, const char *column,
                                         uint64_t line)
{
    struct la_finding *f = la_notes_finding(n, code, prevents, "%s", "");
    snprintf(f->column, sizeof f->column, "%s", column);
    f->line = line;
    return f;
}

static const char *role_hint(enum la_column_role role)
{
    switch (role) {
    case LA_COL_TOKEN_TYPES:
        return "token_type_ids index the token-type embedding: build them with the model's own "
               "tokenizer (return_token_type_ids), or leave them out";
    case LA_COL_POSITIONS:
        return "position_ids index the position table: leave them out and let the model count, "
               "or truncate the rows";
    default:
        return "ids past the embedding: tokenize with the model's own tokenizer, or "
               "model.resize_token_embeddings(len(tokenizer)) after adding tokens";
    }
}

static void value_findings(const struct la_column_check *c, struct la_notes *n)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct column_stats *s = &c->col[i];
        if (!s->invalid)
            continue;
        uint64_t rows[KEEP];
        size_t k = 0;
        for (size_t j = 0; j < s->n_bad; j++)
            if (k == 0 || rows[k - 1] != s->bad[j].row)
                rows[k++] = s->bad[j].row;
        char where[160], at[64];
        rows_text(where, sizeof where, c->unit, rows, k, s->bad_rows);
        row_at(at, sizeof at, c->unit, s->bad[0].row, s->bad[0].line);
        int mask = s->rule->role == LA_COL_MASK;
        struct la_finding *f = column_finding(n, mask ? LA_F_MASK_VALUES : LA_F_OUT_OF_RANGE,
                                              mask ? NULL : PREVENTS_EMBEDDING, s->rule->name,
                                              s->bad[0].line);
        if (mask) {
            snprintf(f->message, sizeof f->message, "column '%s': %llu value%s other than 0 and 1, "
                     "%s (%s: %lld)", s->rule->name, (unsigned long long)s->invalid,
                     s->invalid == 1 ? "" : "s", where, at, (long long)s->bad[0].value);
            snprintf(f->hint, sizeof f->hint, "attention_mask is 1 for a token to attend to and "
                     "0 for padding: other values scale the attention silently");
            continue;
        }
        if (s->rule->bound > 0)
            snprintf(f->message, sizeof f->message, "column '%s': %llu value%s outside [0, %lld) "
                     "(%s), %s (%s: %lld)", s->rule->name, (unsigned long long)s->invalid,
                     s->invalid == 1 ? "" : "s", (long long)s->rule->bound, s->rule->table,
                     where, at, (long long)s->bad[0].value);
        else
            snprintf(f->message, sizeof f->message, "column '%s': %llu row%s reaching past "
                     "%s, %s (%s: %lld)", s->rule->name, (unsigned long long)s->bad_rows,
                     s->bad_rows == 1 ? "" : "s", s->rule->table, where, at,
                     (long long)s->bad[0].value);
        snprintf(f->hint, sizeof f->hint, "%s", role_hint(s->rule->role));
    }
}

/* seq-too-long, with the severity the model's rule gives a row past its
 * limit (error: the forward pass raises; warning: positions never trained). */
static struct la_finding *too_long_finding(struct la_notes *n, int error, const char *column,
                                          uint64_t line)
{
    struct la_finding *f = column_finding(
        n, LA_F_SEQ_TOO_LONG, error ? "IndexError: index out of range in self (on CUDA: "
                                      "srcIndex < srcSelectDimSize)" : NULL, column, line);
    f->severity = error ? LA_SEV_ERROR : LA_SEV_WARNING;
    return f;
}

static void length_findings(const struct la_column_check *c, struct la_notes *n)
{
    const struct la_model_rules *m = &c->plan->model;
    uint64_t rows[KEEP];
    char where[160], at[64];
    if (c->too_long) {
        for (size_t j = 0; j < c->n_too_long; j++)
            rows[j] = c->too_long_at[j].row;
        rows_text(where, sizeof where, c->unit, rows, c->n_too_long, c->too_long);
        const struct bad_length *b = &c->too_long_at[0];
        int error = m->length == LA_LEN_ERROR && !c->soft;
        struct la_finding *f = too_long_finding(n, error, c->col[b->col].rule->name, b->line);
        snprintf(f->message, sizeof f->message, "column '%s': %llu %s%s longer than %lld tokens "
                 "(%.150s), %.120s (%s: %llu tokens)", c->col[b->col].rule->name,
                 (unsigned long long)c->too_long, c->unit,
                 c->too_long == 1 ? "" : "s", (long long)m->length_limit, m->length_why, where,
                 row_at(at, sizeof at, c->unit, b->row, b->line), (unsigned long long)b->length);
        if (c->soft)
            snprintf(f->hint, sizeof f->hint, "%s", c->soft);
        else if (error)
            snprintf(f->hint, sizeof f->hint, "truncate when tokenizing (tokenizer(..., "
                     "truncation=True, max_length=%lld)), or drop these %ss",
                     (long long)m->length_limit, c->unit);
        else
            snprintf(f->hint, sizeof f->hint, "positions past %lld were never trained: "
                     "truncate, or extend the context (rope_scaling)",
                     (long long)m->length_limit);
    }
    if (c->mismatched) {
        for (size_t j = 0; j < c->n_mismatch; j++)
            rows[j] = c->mismatch_at[j].row;
        rows_text(where, sizeof where, c->unit, rows, c->n_mismatch, c->mismatched);
        const struct bad_length *b = &c->mismatch_at[0];
        const char *name = c->col[b->col].rule->name;
        struct la_finding *f = column_finding(
            n, LA_F_LENGTH_MISMATCH, "Expected input batch_size (A) to match target batch_size "
            "(B); the collator's \"expected sequence of length\"", name, b->line);
        snprintf(f->message, sizeof f->message, "column '%s': %llu row%s of another length than "
                 "input_ids, %s (%s: %s has %llu, input_ids has %llu)", name,
                 (unsigned long long)c->mismatched, c->mismatched == 1 ? "" : "s", where,
                 row_at(at, sizeof at, c->unit, b->row, b->line), name, (unsigned long long)b->length,
                 (unsigned long long)b->ids_length);
        snprintf(f->hint, sizeof f->hint, "align them in one tokenizer call (word labels "
                 "through word_ids(), -100 for special tokens), so that each row's lists are as "
                 "long as its input_ids");
    }
}

// ---- the JSON and the text lines ----------------------------------------------------------

static cJSON *u64(uint64_t v) { return cJSON_CreateNumber((double)v); }

static cJSON *column_json(const struct column_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->rule->name);
    cJSON_AddItemToObject(o, "table", s->rule->table ? cJSON_CreateString(s->rule->table)
                                                     : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "bound", s->rule->bound > 0 ? u64((uint64_t)s->rule->bound)
                                                         : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "dtype", s->dtype);
    cJSON_AddItemToObject(o, "count", u64(s->count));
    cJSON_AddItemToObject(o, "min", s->count ? cJSON_CreateNumber((double)s->min)
                                             : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "max", s->count ? cJSON_CreateNumber((double)s->max)
                                             : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "invalid", u64(s->invalid));
    cJSON *bad = cJSON_AddArrayToObject(o, "bad");
    for (size_t j = 0; j < s->n_bad; j++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "sample", u64(s->bad[j].row));
        if (s->bad[j].line)
            cJSON_AddItemToObject(e, "line", u64(s->bad[j].line));
        cJSON_AddItemToObject(e, "value", cJSON_CreateNumber((double)s->bad[j].value));
        cJSON_AddItemToArray(bad, e);
    }
    cJSON_AddItemToObject(o, "bad_samples", u64(s->bad_rows));
    return o;
}

static void add_lengths(cJSON *bad, const struct la_column_check *c, const struct bad_length *at,
                        size_t n, const char *kind)
{
    for (size_t j = 0; j < n; j++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "sample", u64(at[j].row));
        if (at[j].line)
            cJSON_AddItemToObject(e, "line", u64(at[j].line));
        cJSON_AddItemToObject(e, "length", u64(at[j].length));
        if (c->col[at[j].col].rule->name[0])   /* a stream's values are the file's own */
            cJSON_AddStringToObject(e, "column", c->col[at[j].col].rule->name);
        cJSON_AddStringToObject(e, "kind", kind);
        cJSON_AddItemToArray(bad, e);
    }
}

static cJSON *lengths_json(const struct la_column_check *c)
{
    const struct la_model_rules *m = &c->plan->model;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "max", u64(c->max_len));
    cJSON_AddItemToObject(o, "limit", m->length != LA_LEN_NONE ? u64((uint64_t)m->length_limit)
                                                               : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "limit_from", m->length != LA_LEN_NONE
                                               ? cJSON_CreateString(m->length_why)
                                               : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "too_long", u64(c->too_long));
    cJSON_AddItemToObject(o, "mismatched", u64(c->mismatched));
    cJSON *bad = cJSON_AddArrayToObject(o, "bad");
    add_lengths(bad, c, c->too_long_at, c->n_too_long, "too-long");
    add_lengths(bad, c, c->mismatch_at, c->n_mismatch, "mismatch");
    return o;
}

static void text_lines(const struct la_column_check *c, struct la_notes *n)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct column_stats *s = &c->col[i];
        if ((int)i == c->primary)
            continue;
        char table[96] = "";
        if (s->rule->bound > 0 && s->rule->role != LA_COL_MASK)
            snprintf(table, sizeof table, ", against %s %lld", s->rule->table,
                     (long long)s->rule->bound);
        else if (s->rule->role == LA_COL_MASK)
            snprintf(table, sizeof table, ", 0 and 1");
        la_notes_line(n, "column '%s': %s%s, %llu values, range %lld..%lld%s: %s", s->rule->name,
                      s->dtype, s->list ? " lists" : "", (unsigned long long)s->count,
                      (long long)s->min, (long long)s->max, table,
                      s->invalid ? "bad" : s->rule->bound > 0 ? "ok" : "lengths only");
    }
    const struct la_model_rules *m = &c->plan->model;
    if (c->ids >= 0)
        la_notes_line(n, "lengths: longest %s %llu tokens%s%s%s", c->unit,
                      (unsigned long long)c->max_len,
                      m->length != LA_LEN_NONE ? " (limit: " : "",
                      m->length != LA_LEN_NONE ? m->length_why : "",
                      m->length != LA_LEN_NONE ? ")" : "");
}

int la_column_check_finish(struct la_column_check *c, struct la_notes *n)
{
    if (!c)
        return 0;
    value_findings(c, n);
    length_findings(c, n);
    text_lines(c, n);
    cJSON *cols = cJSON_CreateArray();
    for (size_t i = 0; cols && i < c->n; i++)
        if ((int)i != c->primary)
            cJSON_AddItemToArray(cols, column_json(&c->col[i]));
    cJSON_Delete(n->columns_json);
    cJSON_Delete(n->lengths_json);
    n->columns_json = c->stream ? NULL : cols;   /* a stream has no other columns */
    n->lengths_json = c->ids >= 0 ? lengths_json(c) : NULL;
    int ok = cols != NULL;
    if (c->stream)
        cJSON_Delete(cols);
    la_column_check_free(c);
    return ok ? 0 : -1;
}

void la_column_check_free(struct la_column_check *c)
{
    free(c);
}

// ---- token streams --------------------------------------------------------------------

struct la_column_check *la_column_check_stream(const struct la_column_plan *plan,
                                               const char *column, const char *unit,
                                               const char *soft)
{
    if (!plan || plan->model.length == LA_LEN_NONE)
        return NULL;
    struct la_column_check *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->plan = plan;
    c->unit = unit;
    c->stream = 1;
    c->soft = soft;
    snprintf(c->stream_rule.name, sizeof c->stream_rule.name, "%s", column);
    c->stream_rule.role = LA_COL_INPUT_IDS;
    c->stream_rule.bound = -1;     /* the scan checks the values against vocab_size */
    c->col[0].rule = &c->stream_rule;
    c->col[0].list = 1;
    c->n = 1;
    c->primary = c->ids = 0;       /* its values are the scan's: lengths only here */
    c->positions = -1;
    return c;
}

int la_column_plan_ids(const struct la_column_plan *plan, const char *name)
{
    int i = la_column_plan_find(plan, name);
    if (i < 0)
        return 0;
    return plan->cols[i].role == LA_COL_INPUT_IDS;
}

void la_column_check_length(struct la_column_check *c, uint64_t row, uint64_t len)
{
    struct column_stats *s = &c->col[0];
    s->row_len = len;
    /* pads are not told apart (the values are not here): a pretraining
     * stream has none, and RoBERTa-style counting then takes every token */
    s->row_non_pad = len;
    s->row_null = 0;
    la_column_check_row(c, row);
}

/* The positions a block of `block` ids feeds the model, at most. */
static uint64_t block_positions(uint64_t block, enum la_block_feed feed)
{
    return feed == LA_FEED_SHIFTED && block > 0 ? block - 1 : block;
}

/* ... and at least: a raw stream's block may be a shifted window. */
static uint64_t block_positions_min(uint64_t block, enum la_block_feed feed)
{
    return feed == LA_FEED_WHOLE || block == 0 ? block : block - 1;
}

int la_column_blocks_checked(const struct la_column_plan *plan, uint64_t block,
                             enum la_block_feed feed)
{
    return plan && plan->model.length != LA_LEN_NONE &&
           block_positions(block, feed) > (uint64_t)plan->model.length_limit;
}

/* The blocks past the limit: every full block, and a short last one as well
 * where it is past too. */
static uint64_t blocks_past(uint64_t block, uint64_t blocks, uint64_t last,
                            enum la_block_feed feed, uint64_t limit)
{
    if (blocks == 0)
        return 0;
    uint64_t full = last == block ? blocks : blocks - 1;
    return full + (last != block && block_positions(last, feed) > limit);
}

static cJSON *blocks_json(const struct la_model_rules *m, uint64_t block, uint64_t past,
                          enum la_block_feed feed)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "max", u64(block));
    cJSON_AddItemToObject(o, "limit", u64((uint64_t)m->length_limit));
    cJSON_AddStringToObject(o, "limit_from", m->length_why);
    cJSON_AddItemToObject(o, "block", u64(block));
    cJSON_AddItemToObject(o, "positions", u64(block_positions(block, feed)));
    cJSON_AddItemToObject(o, "too_long", u64(past));
    cJSON_AddItemToObject(o, "mismatched", u64(0));
    cJSON_AddArrayToObject(o, "bad");   /* every block is alike: none listed */
    return o;
}

int la_column_check_blocks(const struct la_column_plan *plan, uint64_t block, uint64_t blocks,
                           uint64_t last, enum la_block_feed feed, struct la_notes *n)
{
    if (!la_column_blocks_checked(plan, block, feed) || !n)
        return 0;
    const struct la_model_rules *m = &plan->model;
    long long limit = (long long)m->length_limit;
    uint64_t past = blocks_past(block, blocks, last, feed, (uint64_t)limit);
    uint64_t least = block_positions_min(block, feed);
    /* fed whole or as a window shifted into x and y, a block one past the
     * table fits the second way only: no certain crash */
    int one_past = least <= (uint64_t)limit;
    int error = m->length == LA_LEN_ERROR && !one_past;
    struct la_finding *f = too_long_finding(n, error, "", 0);
    if (one_past)
        snprintf(f->message, sizeof f->message, "--seq-len %llu: %llu block%s one token longer "
                 "than %lld (%.150s): past the table where a block is fed whole (group_texts, "
                 "nanoGPT's block_size), within it as a window shifted into x and y",
                 (unsigned long long)block, (unsigned long long)past, past == 1 ? "" : "s", limit,
                 m->length_why);
    else
        snprintf(f->message, sizeof f->message, "--seq-len %llu: %llu block%s feeding %s%llu "
                 "positions, more than %lld (%.150s)", (unsigned long long)block,
                 (unsigned long long)past, past == 1 ? "" : "s",
                 feed == LA_FEED_EITHER ? "at least " : "", (unsigned long long)least, limit,
                 m->length_why);
    if (m->length == LA_LEN_ERROR && feed == LA_FEED_WHOLE)
        snprintf(f->hint, sizeof f->hint, "a --seq-length of at most %lld fits the position "
                 "table (samples of %lld + 1 ids), or a model of a longer context", limit, limit);
    else if (m->length == LA_LEN_ERROR)
        snprintf(f->hint, sizeof f->hint, "blocks of at most %lld tokens fit the position table "
                 "(%lld + 1 where the loader shifts x and y): a smaller block_size, or a model "
                 "of a longer context", limit, limit);
    else
        snprintf(f->hint, sizeof f->hint, "positions past %lld were never trained: a block_size "
                 "of at most %lld, or extend the context (rope_scaling)", limit, limit);
    cJSON_Delete(n->lengths_json);
    n->lengths_json = blocks_json(m, block, past, feed);
    if (!n->lengths_json)
        return -1;
    return la_notes_line(n, "lengths: --seq-len blocks of %llu tokens (limit: %s)",
                         (unsigned long long)block, m->length_why);
}
