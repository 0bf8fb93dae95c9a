/* json_literals.c - the bare NaN, Infinity and -Infinity of Python's JSON
 * rewritten as numbers yajl accepts (json_literals.h says how and why). */
#include "json_literals.h"
#include "util.h"     /* la_grow_n */

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* free */
#include <string.h>   /* memset */

static const struct { const char *word, *as; } literals[] = {
    { "NaN", "0  " }, { "Infinity", "1       " }, { "-Infinity", "-1       " },
};

void la_json_literals_init(struct la_json_literals *s)
{
    memset(s, 0, sizeof *s);
    s->at_start = 1;
}

void la_json_literals_free(struct la_json_literals *s)
{
    free(s->marks);
    s->marks = NULL;
}

/* A byte that ends a token outside a string: JSON's whitespace and structure. */
static int ends_token(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':' ||
           c == '[' || c == ']' || c == '{' || c == '}' || c == '"';
}

/* The number just begun is a literal: its count goes in the queue. */
static int mark(struct la_json_literals *s)
{
    if (s->head == s->tail)
        s->head = s->tail = 0;
    if (la_grow_n(&s->marks, &s->cap, s->tail + 1, sizeof *s->marks, 64) != 0) {
        s->oom = 1;
        return -1;
    }
    s->marks[s->tail++] = s->numbers;
    return 0;
}

/* The refusal of a token that begins like a literal and is none: its bytes
 * matched (start[0..len)), then c. */
static int refuse(struct la_json_literals *s, const char *start, unsigned len, unsigned char c)
{
    char then[16];
    if (c == '\n')
        snprintf(then, sizeof then, "the line's end");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(then, sizeof then, "'%c'", c);
    else
        snprintf(then, sizeof then, "byte 0x%02x", c);
    snprintf(s->why, sizeof s->why, "\"%.*s\" then %s is not JSON (the bare words read are "
             "NaN, Infinity and -Infinity, as json.dumps writes floats)", (int)len, start, then);
    return -1;
}

/* A byte outside a string where a token starts. */
static int token_starts(struct la_json_literals *s, unsigned char *c)
{
    if (*c == '-' || (*c >= '0' && *c <= '9')) {
        s->numbers++;
        s->minus = *c == '-';
    } else if (*c == 'N' || *c == 'I') {
        s->numbers++;
        s->lit = *c == 'N' ? 1 : 2;
        s->pos = 1;
        if (mark(s) != 0)
            return -1;
        *c = (unsigned char)literals[s->lit - 1].as[0];
    }
    return 0;
}

/* A byte of a literal being matched (its first already is). */
static int literal_byte(struct la_json_literals *s, unsigned char *c)
{
    const char *w = literals[s->lit - 1].word;
    if ((unsigned char)w[s->pos] != *c)
        return refuse(s, w, s->pos, *c);
    *c = (unsigned char)literals[s->lit - 1].as[s->pos];
    if (w[++s->pos] == '\0')
        s->ended = s->lit, s->lit = 0;
    return 0;
}

/* An 'N' or 'I' after a number's '-': -Infinity, or refused. */
static int after_minus(struct la_json_literals *s, unsigned char *c)
{
    if (*c == 'N') {
        snprintf(s->why, sizeof s->why, "-NaN is not JSON (pyarrow reads it, pandas and "
                 "Python's json refuse it; json.dumps writes NaN)");
        return -1;
    }
    s->lit = 3;
    s->pos = 2;
    if (mark(s) != 0)
        return -1;
    *c = (unsigned char)literals[2].as[1];
    return 0;
}

/* One byte outside a string. */
static int outside_string(struct la_json_literals *s, unsigned char *c)
{
    if (s->lit)
        return literal_byte(s, c);
    if (s->ended) {   /* "NaNx": the literal runs on */
        const char *w = literals[s->ended - 1].word;
        s->ended = 0;
        if (!ends_token(*c))
            return refuse(s, w, (unsigned)strlen(w), *c);
    }
    if (s->minus) {
        s->minus = 0;
        if (*c == 'N' || *c == 'I')
            return after_minus(s, c);
    }
    if (ends_token(*c)) {
        s->in_string = *c == '"';
        s->at_start = 1;
        return 0;
    }
    int start = s->at_start;
    s->at_start = 0;
    return start ? token_starts(s, c) : 0;
}

size_t la_json_literals_scan(struct la_json_literals *s, unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s->in_string) {
            if (s->escape)
                s->escape = 0;
            else if (b[i] == '\\')
                s->escape = 1;
            else if (b[i] == '"')
                s->in_string = 0, s->at_start = 1;
            continue;
        }
        if (outside_string(s, &b[i]) != 0)
            return i;
    }
    return n;
}

const char *la_json_literals_number(struct la_json_literals *s, const char *text, size_t *n)
{
    s->seen++;
    if (s->head == s->tail || s->marks[s->head] != s->seen)
        return text;
    s->head++;
    const char *w = text[0] == '0' ? "NaN" : text[0] == '1' ? "Infinity" : "-Infinity";
    *n = strlen(w);
    return w;
}
