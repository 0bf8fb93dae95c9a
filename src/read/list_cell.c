/* list_cell.c - see list_cell.h. Separators are Python's (", ") or numpy's
 * (runs of spaces, newlines where numpy wrapped the line at 75 columns):
 * whitespace, with at most one comma between two items. Every item is
 * checked: digits only after an optional sign, within int64. */
#include "list_cell.h"

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* realloc, free */
#include <string.h>  /* memcmp */


static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && is_space(*p))
        p++;
    return p;
}

/* The end of the token at p: up to whitespace, a comma or a bracket. */
static const char *token_end(const char *p, const char *end)
{
    while (p < end && !is_space(*p) && *p != ',' && *p != '[' && *p != ']')
        p++;
    return p;
}

static int word_is(const char *p, size_t n, const char *w)
{
    return n == strlen(w) && memcmp(p, w, n) == 0;
}

/* One integer token p[0..n): digits after an optional sign, within int64;
 * Python's and numpy's True and False (a bool mask column) are 1 and 0.
 * @return 0, or -1 with why. */
static int parse_int(const char *p, size_t n, int64_t *out, char *why, size_t whylen)
{
    if (word_is(p, n, "True") || word_is(p, n, "False")) {
        *out = *p == 'T';
        return 0;
    }
    size_t i = n && (*p == '-' || *p == '+');
    int neg = n && *p == '-';
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t k = i; k < n; k++) {
        unsigned d = (unsigned char)p[k] - '0';
        if (d > 9 || v > (lim - d) / 10) {
            snprintf(why, whylen, "'%.*s' is not an integer%s", (int)(n < 40 ? n : 40), p,
                     d > 9 ? "" : " within int64");
            return -1;
        }
        v = v * 10 + d;
    }
    if (i == n) {
        snprintf(why, whylen, "'%.*s' is not an integer", (int)(n < 40 ? n : 40), p);
        return -1;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int push(struct la_int_list *out, int64_t v)
{
    if (out->n == out->cap) {
        size_t cap = out->cap ? 2 * out->cap : 64;
        int64_t *grown = realloc(out->v, cap * sizeof *grown);
        if (!grown)
            return -1;
        out->v = grown, out->cap = cap;
    }
    out->v[out->n++] = v;
    return 0;
}

/* The items of a list whose '[' is behind p, up to its ']'. */
static enum la_cell_form parse_items(const char *p, const char *end, struct la_int_list *out,
                                     char *why, size_t whylen)
{
    int comma_ok = 0;                 /* an item came before: a comma may follow */
    for (;;) {
        p = skip_space(p, end);
        if (p == end) {
            snprintf(why, whylen, "a list left open (no ']')");
            return LA_FORM_BAD;
        }
        if (*p == ']')
            break;
        if (*p == ',' && comma_ok) {
            comma_ok = 0;
            p++;
            continue;
        }
        if (*p == '[' || *p == ',') {
            snprintf(why, whylen, *p == '[' ? "a list of lists (one list of integers a cell)"
                                            : "a comma without an item before it");
            return LA_FORM_BAD;
        }
        const char *t = token_end(p, end);
        int64_t v;
        if (word_is(p, (size_t)(t - p), "...")) {
            snprintf(why, whylen, "numpy summarized this list ('...': over 1000 items, the "
                     "middle ones left out of the file); write it with "
                     "np.set_printoptions(threshold=sys.maxsize), or as Python lists");
            return LA_FORM_BAD;
        }
        if (parse_int(p, (size_t)(t - p), &v, why, whylen) != 0)
            return LA_FORM_BAD;
        if (push(out, v) != 0) {
            snprintf(why, whylen, "out of memory");
            return LA_FORM_BAD;
        }
        comma_ok = 1;
        p = t;
    }
    if (skip_space(p + 1, end) != end) {
        snprintf(why, whylen, "text after the list's ']'");
        return LA_FORM_BAD;
    }
    return LA_FORM_LIST;
}

enum la_cell_form la_list_cell_parse(const char *p, size_t len, struct la_int_list *out,
                                     char *why, size_t whylen)
{
    const char *end = p + len;
    out->n = 0;
    p = skip_space(p, end);
    while (end > p && is_space(end[-1]))
        end--;
    if (p == end)
        return LA_FORM_NULL;
    if (*p == '[')
        return parse_items(p + 1, end, out, why, whylen);
    int64_t v;
    if (parse_int(p, (size_t)(end - p), &v, why, whylen) != 0)
        return LA_FORM_BAD;
    if (push(out, v) != 0) {
        snprintf(why, whylen, "out of memory");
        return LA_FORM_BAD;
    }
    return LA_FORM_SCALAR;
}

void la_int_list_free(struct la_int_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
