/* read_jsonl.c - --format=jsonl: JSON Lines, as pandas.read_json(lines=True)
 * and Hugging Face's load_dataset("json") read them and Dataset.to_json()
 * writes them; with --field=NAME, one JSON document whose key NAME holds the
 * array of records (load_dataset("json", field=NAME): SQuAD-style files).
 *
 * One record (a JSON object) is one sample. Its label key (-c NAME, else the
 * default label names that csv and Arrow use: la_label_name_rank) holds an
 * integer (int64), a float (the dtype becomes float64, as in csv), a boolean
 * (bool, as Arrow reads a boolean column), or a list of them: the record is
 * then one sample of its items, as an Arrow list<int> row is. A null is
 * unparsable "null" (Arrow's text for a null), a missing key unparsable ""
 * (csv's for a row without the label cell: pandas reads both as NaN), a
 * string its text, an object or a nested list its JSON (cut short).
 *
 * Blank lines are no records and a last line may lack its newline, as in
 * pandas, which joins the lines into one array: so a record must end on its
 * line, and a line hold one record. A line that is not JSON, or not an
 * object, is an error naming it.
 *
 * Files are streamed through yajl a line at a time (a long line in pieces)
 * in bounded memory: the labels of the bytes read so far wait in a queue
 * until next() hands them out, a record's own until it ends (a key given
 * twice counts the last, as Python's json does; the first record's better
 * named key may come after a worse one). Strings longer than MAX_STRING and
 * nesting deeper than MAX_DEPTH are refused before yajl would buffer or
 * stack them. The bare NaN, Infinity and -Infinity that json.dumps writes
 * (and pyarrow.json, pandas and json.loads read as floats) are made numbers
 * yajl accepts before it sees them (json_literals.c), so a float label NaN
 * or infinite is non-finite, as a csv "nan" is.
 *
 * With a column plan (--model, --vocab-size, --columns: columns.h), the
 * record's other keys that the model indexes are captured beside the label,
 * each held until its record ends and then checked (jsonl_columns.h: the
 * first record's keys fix the columns; a missing key or null is a null row;
 * a float or other non-integer value is a non-integer error). */
#include "config.h"   /* HAVE_YAJL */
#include "cells.h"    /* la_utf8_cut, LA_CELL_TEXT_MAX */
#include "json_literals.h" /* Python's NaN and Infinity, ahead of yajl */
#include "columns.h"  /* struct la_column_plan: --model, --vocab-size */
#include "jsonl_columns.h" /* every column the model indexes */
#include "label_notes.h"
#include "reader.h"
#include "sample_map.h" /* the record of each element, for the scan's thread */
#include "util.h"     /* la_parse_number */

#include <stdarg.h>   /* va_list */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, realloc, free */
#include <string.h>   /* memchr, memcmp, memcpy, memmove */
#include <strings.h>  /* strncasecmp */

#if HAVE_YAJL
#include <yajl/yajl_parse.h>

#define READ_LEN (1u << 20)
#define MAX_STRING (16u << 20)    /* one JSON token; a longer one is refused */
#define MAX_DEPTH 512
#define HOLD_MAX ((size_t)1 << 20) /* a record's items held back before they go out */
#define NO_RANK 0x7fffffff
#define CHUNK_MAX 65536           /* values a chunk hands out */
#define KEYS_LEN 200              /* the first record's keys, for a message */

enum kind { K_INT, K_FLOAT, K_BOOL, K_TEXT };
enum capture { C_NONE, C_VALUE, C_LIST };   /* where the label's value is being read */
enum { SAW_INT = 1, SAW_FLOAT = 2, SAW_BOOL = 4 };

union value { int64_t i; double f; };

/* The reader's state, by concern: each part is the state of one of them,
 * named where it is used (t->in.line, t->q.vals). */
struct jsonl {
    struct la_reader *r;
    yajl_handle h;
    int oom;
    char why[200];                /* a reason to cancel the parse */
    /* the bytes fed to yajl, and the token guard ahead of it */
    struct {
        unsigned char *buf;
        size_t len;
        int eof;                  /* 1: the source ended; 2: and the parse */
        uint64_t line;            /* 1 + LF bytes fed */
        int line_values;          /* JSON Lines: values begun on this line */
        int in_string, escape;    /* the token guard, ahead of yajl, */
        int cut_line;             /* on a line the end of a block cut */
        int started;              /* a block was read: a BOM can only be at the first */
        int skip_lf;              /* the last block ended in a CR, ended as a line: an
                                     LF first in this one is its CRLF's */
        uint64_t token_len;
        int depth;
        uint64_t offset;          /* the file's byte at buf[0] */
        struct la_json_literals lit;  /* NaN and Infinity, rewritten ahead of yajl */
    } in;
    /* the document: JSON Lines, or one JSON document whose --field holds the records */
    struct {
        const char *field;        /* --field, or NULL: JSON Lines */
        int rec_depth;            /* the depth of a record's keys: 1, or 3 with --field */
        int field_key, in_field, field_seen;
        uint64_t records;
    } doc;
    /* the record being read */
    struct {
        int in_record, label_seen, early;
        enum capture capture;
        int rank;                 /* of the key whose value is held */
        char cur_key[sizeof ((struct la_array_info *)0)->column];
        uint64_t rec_keys, rec_items;
        size_t rec_start, rec_text;   /* where its items and texts start in the queue */
        uint64_t line;            /* where it began */
    } rec;
    /* the plan's other columns (jsonl_columns.h), or NULL: none to check */
    struct la_jsonl_columns *cols;
    int cols_done;                /* their findings are in the notes */
    /* an object or nested list rendered as text */
    struct {
        int render_depth;         /* 0: none */
        char text[LA_CELL_TEXT_MAX + 1];
        size_t text_len;
    } render;
    /* the label key, once a record named it */
    struct {
        int decided;
        char key[sizeof ((struct la_array_info *)0)->column];
        size_t key_len;
        char keys[KEYS_LEN];      /* the first record's keys */
        int keys_done;
        char doc_keys[KEYS_LEN];  /* --field: the document's */
    } label;
    /* the queue: [head, done) of ended records, [done, tail) of this one */
    struct {
        union value *vals;
        unsigned char *bools, *kinds;
        size_t *text_at;
        size_t head, done, tail, cap;
        char *texts;
        size_t text_used, text_cap;
        uint64_t head_index;      /* element index of vals[head] */
        unsigned saw, rec_saw;    /* SAW_* of the items handed out, of this record's */
        struct la_sample_map *map;    /* each record's first element, started as it begins */
        uint64_t elements;
    } q;
};

static int set_why(struct jsonl *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_why(struct jsonl *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->why, sizeof t->why, fmt, ap);
    va_end(ap);
    return 0;   /* cancels the parse */
}

static const char *kind_name(char first)
{
    return first == '[' ? "an array" : first == '"' ? "a string" : first == 'n' ? "null"
         : first == 'b' ? "a boolean" : first == '{' ? "an object" : "a number";
}

// ---- the queue -------------------------------------------------------------------

static int grow(struct jsonl *t)
{
    if (t->q.tail < t->q.cap)
        return 0;
    size_t cap = t->q.cap ? t->q.cap * 2 : 4096;
    union value *v = realloc(t->q.vals, cap * sizeof *v);
    if (v)
        t->q.vals = v;
    unsigned char *b = realloc(t->q.bools, cap);
    if (b)
        t->q.bools = b;
    unsigned char *k = realloc(t->q.kinds, cap);
    if (k)
        t->q.kinds = k;
    size_t *at = realloc(t->q.text_at, cap * sizeof *at);
    if (at)
        t->q.text_at = at;
    if (!v || !b || !k || !at)
        return t->oom = 1, -1;
    t->q.cap = cap;
    return 0;
}

/* A record whose items would outgrow HOLD_MAX hands them out before it ends. */
static int push(struct jsonl *t, enum kind kind)
{
    if (t->q.tail - t->q.done >= HOLD_MAX) {
        t->q.done = t->rec.rec_start = t->q.tail;
        t->rec.rec_text = t->q.text_used;
        t->rec.early = 1;
        t->q.saw |= t->q.rec_saw;
    }
    if (grow(t) != 0)
        return -1;
    t->q.kinds[t->q.tail] = (unsigned char)kind;
    t->rec.rec_items++;
    return 0;
}

static int push_number(struct jsonl *t, const char *s, size_t n)
{
    struct la_num num;
    enum la_cell c = la_parse_number(s, n, &num);   /* 1.0 a float, as pandas reads it */
    if (push(t, c == LA_CELL_INT ? K_INT : K_FLOAT) != 0)
        return -1;
    if (c == LA_CELL_INT)
        t->q.vals[t->q.tail].i = num.v.i;
    else
        t->q.vals[t->q.tail].f = c == LA_CELL_FLOAT ? num.v.f : 0;
    t->q.rec_saw |= c == LA_CELL_INT ? SAW_INT : SAW_FLOAT;
    t->q.tail++;
    return 0;
}

static int push_bool(struct jsonl *t, int b)
{
    if (push(t, K_BOOL) != 0)
        return -1;
    t->q.bools[t->q.tail++] = b ? 1 : 0;
    t->q.rec_saw |= SAW_BOOL;
    return 0;
}

static int push_text(struct jsonl *t, const char *s, size_t n)
{
    n = la_utf8_cut(s, n, LA_CELL_TEXT_MAX);
    if (la_grow_n(&t->q.texts, &t->q.text_cap, t->q.text_used + n + 1, 1, 4096) != 0)
        return t->oom = 1, -1;
    if (push(t, K_TEXT) != 0)
        return -1;
    memcpy(t->q.texts + t->q.text_used, s, n);
    t->q.texts[t->q.text_used + n] = '\0';
    t->q.text_at[t->q.tail++] = t->q.text_used;
    t->q.text_used += n + 1;
    return 0;
}

/* The record's items so far are dropped: its label comes later. @return 0, or
 * -1 when they went out already (a list longer than HOLD_MAX). */
static int roll_back(struct jsonl *t)
{
    if (t->rec.early)
        return -1;
    t->q.tail = t->rec.rec_start;
    t->q.text_used = t->rec.rec_text;
    t->rec.rec_items = 0;
    t->q.rec_saw = 0;
    return 0;
}

/* Once every handed-out item is consumed, the record in progress moves to the front. */
static void compact(struct jsonl *t)
{
    if (t->q.head < t->q.done)
        return;
    size_t from = t->q.done, n = t->q.tail - from;
    size_t text_from = n && t->rec.rec_text < t->q.text_used ? t->rec.rec_text : t->q.text_used;
    if (n) {   /* (memmove of NULL buffers, even of 0 bytes, is undefined) */
        memmove(t->q.vals, t->q.vals + from, n * sizeof *t->q.vals);
        memmove(t->q.bools, t->q.bools + from, n);
        memmove(t->q.kinds, t->q.kinds + from, n);
        memmove(t->q.text_at, t->q.text_at + from, n * sizeof *t->q.text_at);
    }
    for (size_t i = 0; i < n; i++)
        if (t->q.kinds[i] == K_TEXT)
            t->q.text_at[i] -= text_from;
    if (t->q.text_used > text_from)
        memmove(t->q.texts, t->q.texts + text_from, t->q.text_used - text_from);
    t->q.text_used -= text_from;
    t->rec.rec_text = t->rec.rec_text >= text_from ? t->rec.rec_text - text_from : 0;
    t->rec.rec_start = t->rec.rec_start >= from ? t->rec.rec_start - from : 0;
    t->q.head = t->q.done = 0;
    t->q.tail = n;
}

/* The next run of one kind of the handed-out items. @return 1, or 0 when none. */
static int take(struct jsonl *t, struct la_chunk *out)
{
    if (t->q.head >= t->q.done)
        return 0;
    size_t at = t->q.head, end = at + 1;
    enum kind k = (enum kind)t->q.kinds[at];
    if (k == K_TEXT) {
        *out = (struct la_chunk){ LA_DT_INT64, NULL, 1, t->q.head_index, t->q.texts + t->q.text_at[at] };
    } else {
        while (end < t->q.done && end - at < CHUNK_MAX && t->q.kinds[end] == k)
            end++;
        const void *v = k == K_BOOL ? (const void *)(t->q.bools + at) : (const void *)(t->q.vals + at);
        *out = (struct la_chunk){ k == K_INT ? LA_DT_INT64 : k == K_FLOAT ? LA_DT_FLOAT64
                                                                          : LA_DT_BOOL,
                                  v, end - at, t->q.head_index, NULL };
    }
    t->q.head_index += end - at;
    t->q.head = end;
    return 1;
}

// ---- records ---------------------------------------------------------------------

/* A record starts: its first element goes into the map now, before a long
 * record's items go out ahead of its end (push). @return 0, or -1 out of memory. */
static int begin_record(struct jsonl *t)
{
    if (la_sample_map_start(t->q.map, t->q.elements) != 0)
        return t->oom = 1, -1;
    t->rec.in_record = 1;
    t->rec.label_seen = t->rec.early = 0;
    t->rec.capture = C_NONE;
    t->rec.rank = NO_RANK;
    t->rec.rec_keys = t->rec.rec_items = 0;
    t->q.rec_saw = 0;
    t->rec.rec_start = t->q.tail;
    t->rec.rec_text = t->q.text_used;
    t->rec.line = t->in.line;
    return 0;
}

/* The record's label decided, its items handed out, its sample counted. */
static int end_record(struct jsonl *t)
{
    const struct la_read_opts *o = la_read_opts_or_default(t->r->opts);
    t->rec.in_record = 0;
    t->label.keys_done |= t->rec.rec_keys > 0;
    if (!t->label.decided && t->rec.label_seen) {
        if (!o->column && t->rec.rank == NO_RANK - 1 && t->rec.rec_keys > 1)
            return set_why(t, "no label key (the keys are %s): name it with -c", t->label.keys);
        memcpy(t->label.key, t->rec.cur_key, sizeof t->label.key);
        t->label.key_len = strlen(t->label.key);
        t->label.decided = 1;
        snprintf(t->r->info.column, sizeof t->r->info.column, "%s", t->label.key);
        t->r->info.has_column = 1;
    }
    /* --field's records may share and span lines: rows named without one */
    if (t->cols && la_jsonl_columns_record(t->cols, t->doc.records,
                                           t->doc.field ? 0 : t->rec.line,
                                           t->label.decided ? t->label.key : NULL, t->why,
                                           sizeof t->why) != 0)
        return 0;
    if (!t->rec.label_seen && push_text(t, "", 0) != 0)   /* no label: csv's empty cell */
        return 0;
    t->q.elements += t->rec.rec_items;
    t->doc.records++;
    t->q.done = t->q.tail;
    t->q.saw |= t->q.rec_saw;
    return 1;
}

/* Where key k[0..n) ranks as the label key: 0 best, NO_RANK not at all. */
static int rank_of(const struct jsonl *t, const unsigned char *k, size_t n)
{
    const struct la_read_opts *o = la_read_opts_or_default(t->r->opts);
    const char *s = (const char *)k;
    if (o->column) {   /* exact, else case-insensitive, as for csv's -c: in each record */
        size_t len = strlen(o->column);
        return len != n ? NO_RANK : memcmp(o->column, s, n) == 0 ? 0
             : strncasecmp(o->column, s, n) == 0 ? 1 : NO_RANK;
    }
    if (t->label.decided)    /* the name the first record's keys chose, as a column's */
        return t->label.key_len == n && memcmp(t->label.key, s, n) == 0 ? 0 : NO_RANK;
    int rank = la_label_name_rank(s, n);
    if (rank >= 0)
        return rank;
    if (o->vocab_size > 0 && n == 9 && memcmp(s, "input_ids", 9) == 0)
        return NO_RANK - 2;                /* token ids, as the Arrow reader takes them */
    return NO_RANK - 1;                    /* a record's only key is its label (Arrow's rule) */
}

static void note_key(char *keys, const unsigned char *k, size_t n)
{
    size_t used = strlen(keys);
    if (used + 4 < KEYS_LEN)
        snprintf(keys + used, KEYS_LEN - used, "%s%.*s", used ? ", " : "",
                 (int)(n < 64 ? n : 64), (const char *)k);
}

/* A key of the record: whether its value is the label's. */
static int record_key(struct jsonl *t, const unsigned char *k, size_t n)
{
    if (t->cols)
        la_jsonl_columns_key(t->cols, k, n);
    t->rec.rec_keys++;
    if (!t->label.keys_done)
        note_key(t->label.keys, k, n);
    t->rec.capture = C_NONE;
    int rank = rank_of(t, k, n);
    if (rank == NO_RANK || n >= sizeof t->rec.cur_key)
        return 1;
    int same = t->rec.label_seen && strlen(t->rec.cur_key) == n && memcmp(t->rec.cur_key, k, n) == 0;
    if (t->rec.label_seen && rank >= t->rec.rank && !same)
        return 1;                          /* a worse name, or an equal one after it */
    if (t->rec.label_seen && roll_back(t) != 0)
        return set_why(t, "key \"%.*s\" names the label after a list of over %zu items "
                       "under an earlier key was read", (int)(n < 64 ? n : 64), (const char *)k,
                       HOLD_MAX);
    t->rec.label_seen = 1;
    t->rec.rank = rank;
    memcpy(t->rec.cur_key, k, n);
    t->rec.cur_key[n] = '\0';
    t->rec.capture = C_VALUE;
    return 1;
}

// ---- rendering an object or a nested list as text --------------------------------------

static void render(struct jsonl *t, const char *s, size_t n, int is_value)
{
    char last = t->render.text_len ? t->render.text[t->render.text_len - 1] : '{';
    if (is_value && last != '{' && last != '[' && last != ':' && t->render.text_len < LA_CELL_TEXT_MAX)
        t->render.text[t->render.text_len++] = ',';
    size_t room = LA_CELL_TEXT_MAX - t->render.text_len;
    n = la_utf8_cut(s, n, room);
    memcpy(t->render.text + t->render.text_len, s, n);
    t->render.text_len += n;
}

static void render_string(struct jsonl *t, const unsigned char *s, size_t n, const char *after)
{
    render(t, "\"", 1, 1);
    render(t, (const char *)s, n, 0);
    render(t, "\"", 1, 0);
    render(t, after, strlen(after), 0);
}

// ---- yajl's callbacks ----------------------------------------------------------------

/* A value (first: its kind, '{' '[' '"' 'n' 'b' or '0') starts at t->in.depth.
 * @return 1 when the label takes it as a scalar, 0 when not, -1 to cancel. */
static int value_starts(struct jsonl *t, char first)
{
    int d = t->in.depth;
    if (t->render.render_depth)
        return 0;
    if (!t->doc.field && d == 0) {
        if (++t->in.line_values > 1)
            return set_why(t, "more than one JSON value on the line"), -1;
        if (first != '{')
            return set_why(t, "not a JSON object but %s", kind_name(first)), -1;
        return 0;
    }
    if (t->doc.field && d == 0 && first != '{')
        return set_why(t, "the document is not a JSON object but %s", kind_name(first)), -1;
    if (t->doc.field && d == 1 && t->doc.field_key && first != '[')
        return set_why(t, "\"%s\" is not an array but %s", t->doc.field, kind_name(first)), -1;
    if (t->doc.field && d == 2 && t->doc.in_field && first != '{')
        return set_why(t, "\"%s\"[%llu] is not an object but %s", t->doc.field,
                       (unsigned long long)t->doc.records, kind_name(first)), -1;
    int label = (d == t->doc.rec_depth && t->rec.capture == C_VALUE) ||
                (d == t->doc.rec_depth + 1 && t->rec.capture == C_LIST);
    if (!t->rec.in_record || !label)
        return 0;
    if (first == '[' && t->rec.capture == C_VALUE) {
        t->rec.capture = C_LIST;
        return 0;
    }
    if (first == '[' || first == '{') {    /* one item, shown as its JSON */
        t->render.render_depth = d + 1;
        t->render.text_len = 0;
        return 0;
    }
    return 1;
}

/* After a scalar: the label's value is read unless it is a list. */
static void scalar_done(struct jsonl *t)
{
    if (t->rec.capture == C_VALUE && t->in.depth == t->doc.rec_depth)
        t->rec.capture = C_NONE;
}

/* A value starts (as value_starts): the plan's columns see those of the
 * record's keys, whatever the label capture does with them. @return 0, or -1
 * to cancel (t->why). */
static int cols_value(struct jsonl *t, char first, const char *s, size_t n)
{
    if (!t->cols || !t->rec.in_record || t->in.depth < t->doc.rec_depth)
        return 0;
    return la_jsonl_columns_value(t->cols, t->in.depth - t->doc.rec_depth, first, s, n, t->why,
                                  sizeof t->why);
}

static int on_scalar(struct jsonl *t, char first, const char *text, size_t n)
{
    if (cols_value(t, first, text, n) != 0)
        return 0;
    int rc = value_starts(t, first);
    if (rc < 0)
        return 0;
    if (t->render.render_depth)
        render(t, text, n, 1);
    else if (rc == 1 && (first == '0' ? push_number(t, text, n)
                         : first == 'b' ? push_bool(t, text[0] == 't')
                         : push_text(t, text, n)) != 0)
        return 0;
    scalar_done(t);
    return 1;
}

static int on_null(void *ctx) { return on_scalar(ctx, 'n', "null", 4); }
static int on_bool(void *ctx, int b) { return on_scalar(ctx, 'b', b ? "true" : "false", b ? 4 : 5); }
static int on_number(void *ctx, const char *s, size_t n)
{
    struct jsonl *t = ctx;
    s = la_json_literals_number(&t->in.lit, s, &n);   /* "NaN" where the file said it */
    return on_scalar(t, '0', s, n);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    struct jsonl *t = ctx;
    if (t->render.render_depth) {
        if (cols_value(t, '"', (const char *)s, n) != 0)
            return 0;
        render_string(t, s, n, "");
        scalar_done(t);
        return 1;
    }
    return on_scalar(t, '"', (const char *)s, n);
}

static int open_container(struct jsonl *t, int is_map)
{
    if (cols_value(t, is_map ? '{' : '[', NULL, 0) != 0)
        return 0;
    if (value_starts(t, is_map ? '{' : '[') < 0)
        return 0;
    if (t->render.render_depth)
        render(t, is_map ? "{" : "[", 1, 1);
    if (++t->in.depth > MAX_DEPTH)
        return set_why(t, "nested deeper than %d levels", MAX_DEPTH);
    if (!t->doc.field && t->in.depth == 1 && begin_record(t) != 0)
        return 0;
    if (t->doc.field && t->in.depth == 2 && t->doc.field_key) {
        t->doc.in_field = t->doc.field_seen = 1;
        t->doc.field_key = 0;
    }
    if (t->doc.field && t->in.depth == 3 && t->doc.in_field && begin_record(t) != 0)
        return 0;
    return 1;
}

static int on_start_map(void *ctx) { return open_container(ctx, 1); }
static int on_start_array(void *ctx) { return open_container(ctx, 0); }

static int close_container(struct jsonl *t, int is_map)
{
    t->in.depth--;
    if (t->cols && t->rec.in_record && t->in.depth >= t->doc.rec_depth)
        la_jsonl_columns_close(t->cols, t->in.depth - t->doc.rec_depth);
    if (t->render.render_depth) {
        render(t, is_map ? "}" : "]", 1, 0);
        if (t->in.depth + 1 > t->render.render_depth)
            return 1;
        t->render.render_depth = 0;
        if (push_text(t, t->render.text, t->render.text_len) != 0)
            return 0;
        scalar_done(t);
        return 1;
    }
    if (t->rec.capture == C_LIST && t->in.depth == t->doc.rec_depth)
        t->rec.capture = C_NONE;
    if (t->rec.in_record && t->in.depth == t->doc.rec_depth - 1)
        return end_record(t);
    if (t->doc.field && t->in.depth == 1 && t->doc.in_field)
        t->doc.in_field = 0;
    return 1;
}

static int on_end_map(void *ctx) { return close_container(ctx, 1); }
static int on_end_array(void *ctx) { return close_container(ctx, 0); }

static int on_key(void *ctx, const unsigned char *k, size_t n)
{
    struct jsonl *t = ctx;
    if (t->render.render_depth) {
        render_string(t, k, n, ":");
        return 1;
    }
    if (t->doc.field && t->in.depth == 1) {
        note_key(t->label.doc_keys, k, n);
        t->doc.field_key = strlen(t->doc.field) == n && memcmp(t->doc.field, k, n) == 0;
        if (t->doc.field_key && t->doc.field_seen)   /* json keeps the last: its records are read */
            return set_why(t, "the key \"%s\" is given twice", t->doc.field);
        return 1;
    }
    if (t->rec.in_record && t->in.depth == t->doc.rec_depth)
        return record_key(t, k, n);
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null, .yajl_boolean = on_bool, .yajl_number = on_number,
    .yajl_string = on_string, .yajl_start_map = on_start_map, .yajl_map_key = on_key,
    .yajl_end_map = on_end_map, .yajl_start_array = on_start_array, .yajl_end_array = on_end_array,
};

// ---- the stream --------------------------------------------------------------------

/* The token guard: how far into b[0..n) every token (a string, a number, a
 * literal) stays under MAX_STRING bytes, which yajl would buffer whole. */
static size_t guard_tokens(struct jsonl *t, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = b[i];
        if (t->in.in_string) {
            if (t->in.escape)
                t->in.escape = 0;
            else if (c == '\\')
                t->in.escape = 1;
            else if (c == '"')
                t->in.in_string = 0;
        } else if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']' || c == ',' ||
                   c == ':' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            t->in.in_string = c == '"';
            t->in.token_len = 0;
            continue;
        }
        if (++t->in.token_len > MAX_STRING)
            return i;
    }
    return n;
}

static int parse_failed(struct la_reader *r, struct jsonl *t, const unsigned char *b, size_t n)
{
    if (t->oom)
        return la_reader_set_error(r, "out of memory");
    if (t->why[0])
        return la_reader_set_error(r, "line %llu: %s", (unsigned long long)t->in.line, t->why);
    unsigned char *e = yajl_get_error(t->h, 0, b, n);
    char *nl = e ? strchr((char *)e, '\n') : NULL;
    if (nl)
        *nl = '\0';
    la_reader_set_error(r, "line %llu: not valid JSON (yajl: %s)", (unsigned long long)t->in.line,
                        e ? (char *)e : "error");
    if (e)
        yajl_free_error(t->h, e);
    return -1;
}

/* A line ended: in JSON Lines its record (if any) ended with it. */
static int line_ended(struct la_reader *r, struct jsonl *t)
{
    if (!t->doc.field && t->in.depth > 0)
        return la_reader_set_error(r, "line %llu: the object does not end on its line "
                                   "(JSON Lines holds one a line)", (unsigned long long)t->in.line);
    t->in.line++;
    t->in.line_values = 0;
    return 0;
}

/* Python's bare literals in p[0..n), the file's bytes from byte at, made
 * numbers for yajl (json_literals.h); what looks like one and is none is
 * refused at its byte. */
static int rewrite_literals(struct la_reader *r, struct jsonl *t, unsigned char *p, size_t n,
                            uint64_t at)
{
    size_t bad = la_json_literals_scan(&t->in.lit, p, n);
    if (bad == n)
        return 0;
    if (t->in.lit.oom)
        return la_reader_set_error(r, "out of memory");
    return la_reader_set_error(r, "line %llu, byte %llu: %s", (unsigned long long)t->in.line,
                               (unsigned long long)(at + bad), t->in.lit.why);
}

/* One piece of a line (up to and with its LF, if it has one), the file's
 * bytes from byte at, to yajl. An LF ends every token (JSON strings hold
 * none), so yajl keeps a token between calls only on a line cut by the end
 * of a block: the guard reads those lines alone, from their start. */
static int parse_piece(struct la_reader *r, struct jsonl *t, unsigned char *p, size_t n,
                       uint64_t at)
{
    int ends = p[n - 1] == '\n';
    if (rewrite_literals(r, t, p, n, at) != 0)
        return -1;
    if (!ends && !t->in.cut_line)
        t->in.in_string = t->in.escape = 0, t->in.token_len = 0;
    if ((!ends || t->in.cut_line) && guard_tokens(t, p, n) < n)
        return la_reader_set_error(r, "line %llu: a JSON token longer than %u MiB",
                                   (unsigned long long)t->in.line, MAX_STRING >> 20);
    t->in.cut_line = !ends;
    if (yajl_parse(t->h, p, n) != yajl_status_ok)
        return parse_failed(r, t, p, n);
    return ends ? line_ended(r, t) : 0;
}

/* The end of the input: the last record ends, --field's array was there. */
static int parse_end(struct la_reader *r, struct jsonl *t)
{
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    /* JSON Lines: a newline ends a last number, and nothing is left open (yajl
     * would call blank lines at the end a value cut short); a literal the
     * file cut short is refused */
    unsigned char nl = '\n';
    if (rewrite_literals(r, t, &nl, 1, t->in.offset) != 0)
        return -1;
    if (!t->doc.field && yajl_parse(t->h, (const unsigned char *)"\n", 1) != yajl_status_ok)
        return parse_failed(r, t, (const unsigned char *)"\n", 1);
    if (!t->doc.field && t->in.depth > 0)
        return la_reader_set_error(r, "line %llu: not valid JSON (the file ends inside an object)",
                                   (unsigned long long)t->in.line);
    if (t->doc.field && yajl_complete_parse(t->h) != yajl_status_ok)
        return parse_failed(r, t, NULL, 0);
    if (t->doc.field && !t->doc.field_seen)
        return la_reader_set_error(r, "no key \"%s\" in the document's object (its keys: %s)",
                                   t->doc.field, t->label.doc_keys[0] ? t->label.doc_keys : "none");
    if (o->column && !t->label.decided && t->doc.records)
        return la_reader_set_error(r, "no record has the key \"%s\" (line 1's keys: %s)",
                                   o->column, t->label.keys[0] ? t->label.keys : "none");
    return 0;
}

/* Where the block's own bytes start, and its lone CRs made line ends, as
 * pyarrow.json (load_dataset("json")) reads them: a UTF-8 BOM at the start
 * of the file is skipped, and a CR not followed by an LF (old Mac line ends)
 * ends its line. A raw CR is no part of any JSON token, so nothing else
 * changes. */
static size_t line_ends(struct jsonl *t, unsigned char *b, size_t n)
{
    size_t at = 0;
    if (t->in.skip_lf && b[0] == '\n')
        at = 1;
    t->in.skip_lf = 0;
    if (!t->in.started && n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
        at = 3;
    t->in.started = 1;
    for (unsigned char *cr = memchr(b + at, '\r', n - at); cr;
         cr = memchr(cr + 1, '\r', (size_t)(b + n - cr - 1))) {
        if (cr + 1 == b + n)
            t->in.skip_lf = 1;   /* the block ends here: its LF, if any, comes next */
        else if (cr[1] == '\n')
            continue;
        *cr = '\n';
    }
    return at;
}

/* Read and parse the next block. @return 1, 0 at the end, -1 with r->err. */
static int feed(struct la_reader *r, struct jsonl *t)
{
    if (t->in.eof)
        return 0;
    ssize_t got = la_source_read(r->src, t->in.buf, READ_LEN);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    if (got == 0) {
        t->in.eof = 1;
        return parse_end(r, t) != 0 ? -1 : 0;
    }
    for (size_t n = (size_t)got, at = line_ends(t, t->in.buf, n); at < n;) {
        const unsigned char *nl = memchr(t->in.buf + at, '\n', n - at);
        size_t end = nl ? (size_t)(nl - t->in.buf) + 1 : n;
        if (parse_piece(r, t, t->in.buf + at, end - at, t->in.offset + at) != 0)
            return -1;
        at = end;
    }
    t->in.offset += (uint64_t)got;
    return 1;
}

// ---- the reader ----------------------------------------------------------------------

static void update_dtype(struct la_reader *r, const struct jsonl *t)
{
    r->info.dtype = t->q.saw & SAW_FLOAT ? LA_DT_FLOAT64
                  : t->q.saw == SAW_BOOL ? LA_DT_BOOL : LA_DT_INT64;
}

static int jsonl_open(struct la_reader *r)
{
    struct jsonl *t = calloc(1, sizeof *t);
    r->state = t;
    if (!t || !(t->in.buf = malloc(READ_LEN)) || !(t->q.map = la_sample_map_new()))
        return la_reader_set_error(r, "out of memory");
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    t->r = r;
    t->in.line = 1;
    t->doc.field = o->field;
    t->doc.rec_depth = t->doc.field ? 3 : 1;
    la_json_literals_init(&t->in.lit);
    if (!(t->h = yajl_alloc(&callbacks, NULL, t)))
        return la_reader_set_error(r, "out of memory");
    if (o->columns && o->columns->n && r->notes && !(t->cols = la_jsonl_columns_new(o->columns)))
        return la_reader_set_error(r, "out of memory");
    if (!t->doc.field)
        yajl_config(t->h, yajl_allow_multiple_values, 1);
    r->info.dtype = LA_DT_INT64;
    r->info.ndim = 1;
    r->info.line_records = !t->doc.field;   /* --field's records may span or share lines */
    if (r->notes) {   /* a record of a list is one sample of its items */
        r->notes->sample_of = la_sample_map_sample_of;
        r->notes->sample_passed = la_sample_map_passed;
        r->notes->sample_ctx = t->q.map;
        r->notes->samples_ordered = 1;
        r->notes->has_samples = 1;
    }
    int rc = 1;   /* read on until the label key is known: the report names it */
    while (!t->label.decided && t->q.done - t->q.head < HOLD_MAX && (rc = feed(r, t)) == 1)
        ;
    update_dtype(r, t);
    return rc < 0 ? -1 : 0;
}

static int jsonl_next(struct la_reader *r, struct la_chunk *out)
{
    struct jsonl *t = r->state;
    int rc = 1;
    if (!take(t, out)) {
        compact(t);
        while ((rc = feed(r, t)) == 1 && t->q.head == t->q.done)
            ;
        if (rc < 0)
            return -1;
        if (!take(t, out))
            rc = 0;
    }
    la_sample_map_publish(t->q.map);   /* the records of the items out, before they go */
    update_dtype(r, t);
    if (rc == 0 && r->notes)
        r->notes->samples = t->doc.records;
    if (rc == 0 && t->cols && !t->cols_done) {   /* the file read: the other columns' findings */
        t->cols_done = 1;
        if (la_jsonl_columns_finish(t->cols, r->notes) != 0)
            return la_reader_set_error(r, "out of memory");
    }
    return rc != 0;
}

static void jsonl_close(struct la_reader *r)
{
    struct jsonl *t = r->state;
    if (t) {
        if (t->h)
            yajl_free(t->h);
        free(t->in.buf);
        free(t->q.vals);
        free(t->q.bools);
        free(t->q.kinds);
        free(t->q.text_at);
        free(t->q.texts);
        la_json_literals_free(&t->in.lit);
        la_jsonl_columns_free(t->cols);
        if (r->notes && t->q.map && r->notes->sample_ctx == t->q.map && !r->notes->ctx) {
            r->notes->ctx = t->q.map;        /* the scan's sample_of reads it: it lives with the notes */
            r->notes->free_ctx = la_sample_map_free;
        } else {
            la_sample_map_free(t->q.map);
        }
    }
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_jsonl = { jsonl_open, jsonl_next, jsonl_close };

#else /* !HAVE_YAJL: formats.c lists jsonl as absent */
typedef int la_jsonl_absent;   /* ISO C wants a translation unit to declare something */
#endif
