/* json_literals.h - the bare NaN, Infinity and -Infinity of JSON as Python
 * writes it, made numbers yajl accepts.
 *
 * json.dumps writes a float NaN or infinity as these bare words (allow_nan
 * is its default), and pyarrow.json (load_dataset("json")), pandas and
 * json.loads all read them back as floats; yajl refuses them. The pre-lexer
 * sees each block before yajl does, outside strings, and writes each literal
 * over in place as a number of the same length: "0  " for NaN, "1       "
 * for Infinity, "-1       " for -Infinity, so every line and byte stays
 * where it was. It counts the number tokens it passes, so the number
 * callback knows which of yajl's numbers were literals (a "0" of the file
 * and a NaN's "0" differ only in their place in that count).
 *
 * What one library alone reads (pyarrow's -NaN, Inf, -Inf) or none does
 * (Nan, Infinit, NaNx, +Infinity) is refused, naming its byte. */
#ifndef LA_JSON_LITERALS_H
#define LA_JSON_LITERALS_H

#include <stddef.h>
#include <stdint.h>

struct la_json_literals {
    int in_string, escape;    /* where the last byte left the lexer */
    int at_start;             /* the next byte outside a string starts a token */
    int lit;                  /* 0, or the literal being matched (1 + its index) */
    int minus;                /* a token began with '-': a number, or -Infinity */
    int ended;                /* a literal (1 + its index) ended: the next byte must end its token */
    int oom;
    unsigned pos;             /* its bytes matched */
    uint64_t numbers;         /* number tokens begun, literals included */
    uint64_t seen;            /* numbers the parser has taken */
    uint64_t *marks;          /* the counts of the numbers that are literals, in order */
    size_t head, tail, cap;
    char why[160];            /* what was refused */
};

/** la_json_literals_init() : a lexer at the start of a stream. */
void la_json_literals_init(struct la_json_literals *s);

/** la_json_literals_free() : its queue. */
void la_json_literals_free(struct la_json_literals *s);

/** la_json_literals_scan() : rewrite the literals of b[0..n), the stream's
 *  next bytes, in place.
 *  @return n, or the offset in b of a refused byte (s->why says why, or
 *          s->oom: out of memory). */
size_t la_json_literals_scan(struct la_json_literals *s, unsigned char *b, size_t n);

/** la_json_literals_number() : the parser took its next number, s[0..*n):
 *  @return the literal's text ("NaN", "Infinity", "-Infinity") when it was
 *          one (*n set to its length), else the number's own text. */
const char *la_json_literals_number(struct la_json_literals *s, const char *text, size_t *n);

#endif
