/* tokenizer_json.c - the vocabulary of a Hugging Face tokenizer.json: how
 * many rows an embedding needs for every id the tokenizer can produce.
 *
 * That is the highest id, plus one, of the model's own vocabulary
 * (`model.vocab`: an object of token -> id for BPE, WordPiece and
 * WordLevel; a list of [token, score] pairs for Unigram, where the id is the
 * position) and of `added_tokens` (objects with an "id"), as the tokenizers
 * library numbers them. Added tokens past the model config's vocab_size are
 * the classic bug of a tokenizer extended without resize_token_embeddings.
 *
 * A tokenizer.json is tens of MB (a 256k vocabulary): it is streamed through
 * yajl a buffer at a time, keeping two numbers, so memory does not grow with
 * it; a file above TOKENIZER_MAX, or nested deeper than MAX_DEPTH (no
 * tokenizer.json is nested past 6), is refused with the reason. */
#include "class_meta.h"

#include "config.h"   /* HAVE_YAJL */
#include "reader.h"   /* la_one_line */

#include <errno.h>    /* errno */
#include <stdio.h>    /* fopen, snprintf */
#include <stdlib.h>   /* malloc */
#include <string.h>   /* memcmp, strerror */
#include <sys/stat.h> /* fstat */

#if HAVE_YAJL
#include <yajl/yajl_parse.h>

#define TOKENIZER_MAX ((uint64_t)256 << 20)
#define MAX_DEPTH 64
#define CHUNK (64u << 10)

/* Where in the document the parser is: the containers open at each depth and
 * the key last read in each object. Only the first three levels matter. */
enum place { P_OTHER, P_MODEL, P_VOCAB_MAP, P_VOCAB_LIST, P_ADDED, P_ADDED_TOKEN };

struct tok_state {
    int depth;                     /* containers open */
    enum place place[MAX_DEPTH + 1];
    char key[4][16];               /* the key last read at depths 1..3 ("" for others) */
    uint64_t vocab_top;            /* highest id + 1 seen in model.vocab */
    uint64_t list_len;             /* entries of a Unigram vocab list */
    uint64_t added, added_top;     /* added_tokens entries, their highest id + 1 */
    int in_added_id;               /* the next value is an added token's "id" */
    char why[200];                 /* why the parse was cancelled */
};

static enum place place_here(const struct tok_state *t) { return t->place[t->depth]; }

/* An id: a whole number below LA_META_MAX_COUNT. */
static int read_id(struct tok_state *t, const char *s, size_t len, uint64_t *id)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf) {
        snprintf(t->why, sizeof t->why, "an id of %zu digits", len);
        return 0;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (*end || errno || buf[0] == '-' || v >= LA_META_MAX_COUNT) {
        snprintf(t->why, sizeof t->why, "id %s is not a token id (a whole number of 0 to 2^40)",
                 buf);
        return 0;
    }
    *id = v;
    return 1;
}

static int on_number(void *ctx, const char *s, size_t len)
{
    struct tok_state *t = ctx;
    uint64_t id;
    if (place_here(t) == P_VOCAB_MAP) {
        if (!read_id(t, s, len, &id))
            return 0;
        t->vocab_top = id + 1 > t->vocab_top ? id + 1 : t->vocab_top;
    } else if (place_here(t) == P_ADDED_TOKEN && t->in_added_id) {
        if (!read_id(t, s, len, &id))
            return 0;
        t->added_top = id + 1 > t->added_top ? id + 1 : t->added_top;
    }
    t->in_added_id = 0;
    return 1;
}

static int on_scalar(void *ctx)
{
    struct tok_state *t = ctx;
    if (place_here(t) == P_VOCAB_MAP) {
        snprintf(t->why, sizeof t->why, "model.vocab holds a value that is not an id");
        return 0;
    }
    t->in_added_id = 0;
    return 1;
}

static int on_null(void *ctx) { return on_scalar(ctx); }
static int on_bool(void *ctx, int b) { (void)b; return on_scalar(ctx); }
static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    (void)s, (void)len;
    return on_scalar(ctx);
}

/* The place a container opened here takes. */
static enum place child_place(const struct tok_state *t, int is_map)
{
    const char *key = t->depth >= 1 && t->depth <= 3 ? t->key[t->depth] : "";
    switch (place_here(t)) {
    case P_OTHER:
        if (t->depth == 1 && strcmp(key, "model") == 0 && is_map)
            return P_MODEL;
        if (t->depth == 1 && strcmp(key, "added_tokens") == 0 && !is_map)
            return P_ADDED;
        return P_OTHER;
    case P_MODEL:
        return strcmp(key, "vocab") == 0 ? (is_map ? P_VOCAB_MAP : P_VOCAB_LIST) : P_OTHER;
    case P_ADDED:
        return is_map ? P_ADDED_TOKEN : P_OTHER;
    default:
        return P_OTHER;
    }
}

static int open_container(struct tok_state *t, int is_map)
{
    if (t->depth >= MAX_DEPTH) {
        snprintf(t->why, sizeof t->why, "nested deeper than %d (no tokenizer.json is)", MAX_DEPTH);
        return 0;
    }
    if (place_here(t) == P_VOCAB_MAP) {
        snprintf(t->why, sizeof t->why, "model.vocab holds a value that is not an id");
        return 0;
    }
    if (place_here(t) == P_VOCAB_LIST)
        t->list_len++;      /* a Unigram [token, score] pair: its id is its position */
    if (place_here(t) == P_ADDED && is_map)
        t->added++;
    enum place p = t->depth == 0 ? P_OTHER : child_place(t, is_map);
    t->depth++;
    t->place[t->depth] = p;
    if (t->depth <= 3)
        t->key[t->depth][0] = '\0';
    t->in_added_id = 0;
    return 1;
}

static int on_start_map(void *ctx) { return open_container(ctx, 1); }
static int on_start_array(void *ctx) { return open_container(ctx, 0); }

static int on_end(void *ctx)
{
    struct tok_state *t = ctx;
    if (place_here(t) == P_VOCAB_LIST && t->list_len > t->vocab_top)
        t->vocab_top = t->list_len;
    t->depth--;
    t->in_added_id = 0;
    return 1;
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
    struct tok_state *t = ctx;
    if (t->depth >= 1 && t->depth <= 3) {
        size_t n = len < sizeof t->key[0] - 1 ? len : sizeof t->key[0] - 1;
        memcpy(t->key[t->depth], s, n);
        t->key[t->depth][n] = '\0';
        if (len >= sizeof t->key[0] - 1)
            t->key[t->depth][0] = '\0';   /* a long key is none of ours */
    }
    t->in_added_id = place_here(t) == P_ADDED_TOKEN && len == 2 && memcmp(s, "id", 2) == 0;
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null, .yajl_boolean = on_bool, .yajl_number = on_number,
    .yajl_string = on_string, .yajl_start_map = on_start_map, .yajl_map_key = on_key,
    .yajl_end_map = on_end, .yajl_start_array = on_start_array, .yajl_end_array = on_end,
};

/* A parse error's words, with the byte where it lies. */
static void parse_error(yajl_handle h, struct tok_state *t, uint64_t at, const unsigned char *b,
                        size_t n, char *err, size_t errlen)
{
    if (t->why[0]) {
        snprintf(err, errlen, "byte %llu: %s", (unsigned long long)at, t->why);
        return;
    }
    unsigned char *e = yajl_get_error(h, 0, b, n);
    size_t len = e ? strlen((const char *)e) : 0;
    while (len && (e[len - 1] == '\n' || e[len - 1] == ' '))
        e[--len] = '\0';       /* yajl ends its words with a newline */
    snprintf(err, errlen, "byte %llu: not JSON (%s)", (unsigned long long)at,
             e ? (const char *)e : "parse error");
    if (e)
        yajl_free_error(h, e);
}

/* Feed n bytes; @return 0, or -1 with err. */
static int feed(yajl_handle h, struct tok_state *t, const unsigned char *b, size_t n,
                uint64_t offset, char *err, size_t errlen)
{
    if (yajl_parse(h, b, n) == yajl_status_ok)
        return 0;
    parse_error(h, t, offset + yajl_get_bytes_consumed(h), b, n, err, errlen);
    return -1;
}

static void tok_result(const struct tok_state *t, struct la_model *m)
{
    m->has_tokenizer = 1;
    m->tokenizer_base = t->vocab_top;
    m->tokenizer_added = t->added;
    m->tokenizer_vocab = t->added_top > t->vocab_top ? t->added_top : t->vocab_top;
}

/* Stream src (a FILE or, with f NULL, the bytes text[0..len)). */
static int tok_stream(FILE *f, const unsigned char *text, size_t len, struct la_model *m,
                      char *err, size_t errlen)
{
    struct tok_state *t = calloc(1, sizeof *t);
    unsigned char *buf = f ? malloc(CHUNK) : NULL;
    yajl_handle h = t ? yajl_alloc(&callbacks, NULL, t) : NULL;
    int rc = -1;
    if (!t || !h || (f && !buf)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    uint64_t offset = 0;
    if (!f)
        rc = feed(h, t, text, len, 0, err, errlen);
    else
        for (size_t n; (n = fread(buf, 1, CHUNK, f)) > 0; offset += n)
            if ((rc = feed(h, t, buf, n, offset, err, errlen)) != 0)
                goto out;
    if (f && ferror(f)) {
        snprintf(err, errlen, "read error: %s", strerror(errno));
        rc = -1;
        goto out;
    }
    if (yajl_complete_parse(h) != yajl_status_ok) {
        parse_error(h, t, offset, NULL, 0, err, errlen);
        rc = -1;
        goto out;
    }
    rc = 0;
    if (t->vocab_top == 0 && t->added == 0) {
        snprintf(err, errlen, "no model.vocab and no added_tokens: not a tokenizer.json");
        rc = -1;
    } else {
        tok_result(t, m);
    }
out:
    if (h)
        yajl_free(h);
    free(buf);
    free(t);
    return rc;
}

int la_tokenizer_parse(const unsigned char *text, size_t len, struct la_model *m, char *err,
                       size_t errlen)
{
    int rc = tok_stream(NULL, text, len, m, err, errlen);
    if (rc)
        la_one_line(err);       /* yajl's own words end in a newline */
    return rc;
}

int la_tokenizer_read(const char *path, struct la_model *m, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char why[400] = "";
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    if ((uint64_t)st.st_size > TOKENIZER_MAX) {
        snprintf(err, errlen, "%s: %.1f MiB, more than the %llu MiB a tokenizer.json is "
                 "believed to hold", path, (double)st.st_size / (1 << 20),
                 (unsigned long long)(TOKENIZER_MAX >> 20));
        fclose(f);
        return -1;
    }
    int rc = tok_stream(f, NULL, 0, m, why, sizeof why);
    fclose(f);
    la_one_line(why);
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}

#else /* !HAVE_YAJL */

int la_tokenizer_parse(const unsigned char *text, size_t len, struct la_model *m, char *err,
                       size_t errlen)
{
    (void)text, (void)len, (void)m;
    snprintf(err, errlen, "tokenizer.json not read: this build has no yajl (libyajl-dev)");
    return -2;
}

int la_tokenizer_read(const char *path, struct la_model *m, char *err, size_t errlen)
{
    (void)m;
    snprintf(err, errlen, "%s not read: this build has no yajl (libyajl-dev)", path);
    return -2;
}

#endif
