/* read_yolo.c - --format=yolo: a folder of YOLO label files, or one file.
 *
 * Each .txt file is one sample (its image's labels; an empty file is an image
 * with no object, as Ultralytics reads it); each non-blank line is one element,
 * `class cx cy w h`, or `class x1 y1 x2 y2 ...` for a polygon. The class goes
 * to the scan (class < N, with -n as the data.yaml's nc); what Ultralytics'
 * verify_image_label rejects is checked here as it checks it (the file read
 * as Python text, numbers as float() reads them, float32 values), each
 * problem named by its file and line and by whether Ultralytics then drops
 * the image's labels: a box's centre or size outside [0, 1] by more than its
 * 1% margin, or a negative size (degenerate-box; a polygon by its box); a
 * field count other than 5, or in a file with a polygon other than a class
 * and x y pairs, a box there included ("labels mix segment and detection
 * rows"), and a class that is not an integer (unparsable); and duplicate
 * lines, compared as float32 rows (duplicate-label: it removes them with a
 * warning). A zero width or height is a degenerate-box that Ultralytics keeps.
 *
 * The folder is walked as torchvision walks one (walk.h); files not ending in
 * .txt are not label files: they are counted and named in the report. */
#include "file_report.h" /* la_dataset_append: the files as sources */
#include "label_items.h"
#include "label_notes.h"
#include "reader.h"
#include "walk.h"
#include "util.h"   /* la_grow_n */

#include <errno.h>    /* errno */
#include <stdatomic.h> /* the scan thread reads first_index while files are read */
#include <stdarg.h>   /* va_list */
#include <float.h>    /* FLT_MAX */
#include <math.h>     /* isnan, floorf, INFINITY */
#include <stdio.h>    /* fopen */
#include <stdlib.h>   /* strtod, qsort */
#include <string.h>   /* strcmp, strerror */
#include <strings.h>  /* strncasecmp */
#include <sys/stat.h> /* stat */

#define MAX_FILE_BYTES (64u << 20)   /* one label file; larger is refused */
#define NAMED_SKIPPED 10             /* non-label files named in the text report */
#define BATCH_ITEMS 8192             /* labels handed over at a time */
#define ULTRA_CORRUPT "Ultralytics: ignoring corrupt image/label: non-normalized or out of bounds coordinates (or negative label values)"

/* What outlives the reader for locate(): the files and where their elements
 * start. first_index is filled as the files are read, on the reader thread,
 * while the scan thread looks up the file of a bad line (yolo_sample_of):
 * a file not read yet holds LA_NO_SAMPLE, above every index, so the array
 * stays ascending whatever the scan sees of it. */
struct yolo_places {
    char **files;
    size_t n_files;
    _Atomic uint64_t *first_index;
};

struct yolo_state {
    struct yolo_places *places;
    size_t next_file;
    uint64_t index;          /* element index of the next line */
    struct la_items items;
    char *buf;               /* the current file */
    size_t len;
    float *rows;             /* the current file's lines as float32, for duplicates */
    size_t rows_len, rows_cap;
    struct row { size_t at, n; uint64_t index; uint64_t line; } *row;
    size_t n_rows, cap_rows;
    uint64_t lines, skipped;
    uint64_t boxes_dropping, boxes_empty;   /* degenerate-box problems by what Ultralytics does */
    uint64_t mixed_files;                   /* files of polygons and boxes */
    cJSON *skipped_json;
};

static void free_places(void *ctx)
{
    struct yolo_places *p = ctx;
    if (!p)
        return;
    la_walk_free_names(p->files, (long)p->n_files);
    free(p->first_index);
    free(p);
}

/* Read path whole into *buf. @return 0, or -1 with err. */
static int slurp(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    for (size_t got = 1; b && got > 0;) {
        if (n == cap) {
            char *grown = cap >= MAX_FILE_BYTES ? NULL : realloc(b, cap * 2 + 1);
            if (!grown) {
                snprintf(err, errlen, "%s: %s", path, cap >= MAX_FILE_BYTES
                         ? "label file larger than 64 MiB" : "out of memory");
                free(b);
                fclose(f);
                return -1;
            }
            b = grown;
            cap *= 2;
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
    }
    int bad = !b || ferror(f);
    if (bad)
        snprintf(err, errlen, "%s: %s", path, b ? "read error" : "out of memory");
    fclose(f);
    if (bad) {
        free(b);
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

/* Ultralytics reads a label file as Python text: open(encoding="utf-8-sig"),
 * str.splitlines() and str.split(). Their line breaks and their whitespace
 * are Unicode's, not only "\n" and " ": a file of "\r" lines, or fields
 * parted by a no-break space, are read as it reads them. Each returns the
 * byte length of the character at s (of n bytes), or 0. */
static size_t line_break_len(const char *s, size_t n)
{
    unsigned char c = (unsigned char)s[0];
    if (c == '\r')
        return n > 1 && s[1] == '\n' ? 2 : 1;
    if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e))
        return 1;
    if (n >= 2 && c == 0xc2 && (unsigned char)s[1] == 0x85)                    /* U+0085 */
        return 2;
    if (n >= 3 && c == 0xe2 && (unsigned char)s[1] == 0x80 &&
        ((unsigned char)s[2] == 0xa8 || (unsigned char)s[2] == 0xa9))          /* U+2028, U+2029 */
        return 3;
    return 0;
}

static size_t space_len(const char *s, size_t n)
{
    unsigned char c = (unsigned char)s[0], c1 = n > 1 ? (unsigned char)s[1] : 0,
                  c2 = n > 2 ? (unsigned char)s[2] : 0;
    if (c == ' ' || c == '\t' || c == 0x1f)
        return 1;
    size_t brk = line_break_len(s, n);
    if (brk)
        return brk;
    if (c == 0xc2 && c1 == 0xa0)                                               /* U+00A0 */
        return 2;
    if ((c == 0xe1 && c1 == 0x9a && c2 == 0x80) ||                             /* U+1680 */
        (c == 0xe2 && c1 == 0x80 && (c2 <= 0x8a || c2 == 0xaf) && c2 >= 0x80) ||  /* U+2000..200A, 202F */
        (c == 0xe2 && c1 == 0x81 && c2 == 0x9f) ||                             /* U+205F */
        (c == 0xe3 && c1 == 0x80 && c2 == 0x80))                               /* U+3000 */
        return 3;
    return 0;
}

/* Where the text starts: after the byte-order mark that utf-8-sig drops. */
static size_t text_start(const char *buf, size_t len)
{
    return len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

/* The next non-blank line of buf at *pos (a line as str.splitlines() cuts
 * them): its start, length and 1-based number. */
static int next_line(const char *buf, size_t len, size_t *pos, uint64_t *lineno,
                     const char **s, size_t *n)
{
    while (*pos < len) {
        const char *start = buf + *pos;
        size_t k = 0, brk = 0, blank = 1;
        while (k < len - *pos && !(brk = line_break_len(start + k, len - *pos - k))) {
            size_t sp = space_len(start + k, len - *pos - k);
            blank &= sp > 0;
            k += sp ? sp : 1;
        }
        *pos += k + brk;
        (*lineno)++;
        if (!blank) {
            *s = start;
            *n = k;
            return 1;
        }
    }
    return 0;
}

/* The next field of s[0..n) from *at, whitespace-separated as str.split(). */
static int next_field(const char *s, size_t n, size_t *at, size_t *fs, size_t *fl)
{
    size_t sp;
    while (*at < n && (sp = space_len(s + *at, n - *at)))
        *at += sp;
    if (*at >= n)
        return 0;
    *fs = *at;
    while (*at < n && !space_len(s + *at, n - *at))
        (*at)++;
    *fl = *at - *fs;
    return 1;
}

/* The fields of a line, counted up to stop. */
static size_t count_fields(const char *s, size_t n, size_t stop)
{
    size_t at = 0, fs, fl, nf = 0;
    while (nf < stop && next_field(s, n, &at, &fs, &fl))
        nf++;
    return nf;
}

/* Digits with single underscores between them (Python's digitpart) from
 * s[*i]; the digits are copied to out. @return how many digits. */
static size_t digit_part(const char *s, size_t n, size_t *i, char *out, size_t *o)
{
    size_t digits = 0;
    while (*i < n) {
        if (s[*i] >= '0' && s[*i] <= '9') {
            out[(*o)++] = s[(*i)++];
            digits++;
        } else if (s[*i] == '_' && digits && *i + 1 < n && s[*i + 1] >= '0' && s[*i + 1] <= '9') {
            (*i)++;
        } else {
            break;
        }
    }
    return digits;
}

/* A decimal number as Python's float() spells one (digits, '.', an exponent,
 * underscores between digits), copied without its underscores to out for
 * strtod. @return 1, or 0 for what float() refuses: strtod's hexadecimal
 * ("0x1p-1"), "nan(...)", and anything but the whole field. */
static int python_decimal(const char *s, size_t n, char *out)
{
    size_t i = 0, o = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        out[o++] = s[i++];
    size_t mantissa = digit_part(s, n, &i, out, &o);
    if (i < n && s[i] == '.') {
        out[o++] = s[i++];
        mantissa += digit_part(s, n, &i, out, &o);
    }
    if (mantissa == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        out[o++] = s[i++];
        if (i < n && (s[i] == '+' || s[i] == '-'))
            out[o++] = s[i++];
        if (digit_part(s, n, &i, out, &o) == 0)
            return 0;
    }
    out[o] = '\0';
    return i == n;
}

/* inf, infinity and nan in any case, signed or not, as float() reads them. */
static int python_special(const char *s, size_t n, double *v)
{
    int neg = n > 0 && s[0] == '-';
    size_t skip = n > 0 && (s[0] == '-' || s[0] == '+');
    s += skip;
    n -= skip;
    if ((n == 3 && strncasecmp(s, "inf", 3) == 0) || (n == 8 && strncasecmp(s, "infinity", 8) == 0))
        *v = neg ? -INFINITY : INFINITY;
    else if (n == 3 && strncasecmp(s, "nan", 3) == 0)
        *v = NAN;
    else
        return 0;
    return 1;
}

/* A field as a number, as Python's float() (and so numpy's float32 of a
 * string, which calls it) reads one: the whole field or nothing. */
static int parse_number(const char *s, size_t n, double *v)
{
    char small[128];
    if (n == 0)
        return 0;
    if (python_special(s, n, v))
        return 1;
    char *tmp = n < sizeof small ? small : malloc(n + 1);
    int ok = tmp && python_decimal(s, n, tmp);
    if (ok)
        *v = strtod(tmp, NULL);   /* ERANGE: +-HUGE_VAL or a denormal, as float() gives */
    if (tmp != small)
        free(tmp);
    return ok;
}

/* numpy's float32 of a double: past FLT_MAX by half an ulp or more is
 * infinite (a C cast out of float's range is undefined). */
static float to_float32(double v)
{
    const double overflow = 0x1.ffffffp127;   /* FLT_MAX + half its ulp: rounds to inf */
    if (v >= overflow)
        return INFINITY;
    if (v <= -overflow)
        return -INFINITY;
    if (v > FLT_MAX)
        return FLT_MAX;
    if (v < -FLT_MAX)
        return -FLT_MAX;
    return (float)v;
}

struct line_ctx {
    struct la_reader *r;
    struct yolo_state *t;
    const char *file;
    uint64_t sample, lineno;
    int polygons;            /* a line of the file has more than 6 fields */
    int mixed;               /* and another is a box */
};

/* What Ultralytics does with the image of a problem line. */
enum { KEEPS_IMAGE = 0, DROPS_IMAGE = 1 };

static int problem(struct line_ctx *c, enum la_code code, int drops, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int problem(struct line_ctx *c, enum la_code code, int drops, const char *fmt, ...)
{
    char what[LA_NOTE_LEN], where[LA_NOTE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "%s line %llu", c->file, (unsigned long long)c->lineno);
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddNumberToObject(o, "index", (double)c->t->index);
        cJSON_AddNumberToObject(o, "sample", (double)c->sample);
        cJSON_AddStringToObject(o, "file", c->file);
        cJSON_AddNumberToObject(o, "line", (double)c->lineno);
        cJSON_AddBoolToObject(o, "drops_image", drops);
    }
    if (code == LA_F_DEGENERATE_BOX)
        *(drops ? &c->t->boxes_dropping : &c->t->boxes_empty) += 1;
    return la_notes_problem(c->r->notes, code, c->t->index, c->sample, where, what, o);
}

static int push_row_value(struct yolo_state *t, float v)
{
    if (la_grow_n(&t->rows, &t->rows_cap, t->rows_len + 1, sizeof *t->rows, 1024) != 0)
        return -1;
    t->rows[t->rows_len++] = v;
    return 0;
}

static int push_row(struct yolo_state *t, size_t at, size_t n, uint64_t line)
{
    if (la_grow_n(&t->row, &t->cap_rows, t->n_rows + 1, sizeof *t->row, 64) != 0)
        return -1;
    t->row[t->n_rows++] = (struct row){ at, n, t->index, line };
    return 0;
}

/* A polygon's box (cx cy w h), as Ultralytics' segments2boxes makes it in
 * float32: the extremes of its points (NaN if one is NaN, as numpy's min). */
static void polygon_box(const float *xy, size_t points, float box[4])
{
    float lo[2] = { xy[0], xy[1] }, hi[2] = { xy[0], xy[1] };
    for (size_t i = 0; i < points; i++)
        for (int a = 0; a < 2; a++) {
            float v = xy[2 * i + a];
            if (isnan(v) || isnan(lo[a]))
                lo[a] = hi[a] = NAN;
            else if (v < lo[a])
                lo[a] = v;
            else if (v > hi[a])
                hi[a] = v;
        }
    for (int a = 0; a < 2; a++) {
        box[a] = (lo[a] + hi[a]) / 2.0f;
        box[2 + a] = hi[a] - lo[a];
    }
}

/* The box's problems, as verify_image_label finds them with its 1% margin:
 * a value above 1.01, below -0.01, or a negative width or height drop the
 * image's labels (NaN fails each); a zero width or height it keeps, and its
 * augmentation then drops the box without a word. */
static int check_box(struct line_ctx *c, const float b[4], int polygon)
{
    static const char *const name[4] = { "cx", "cy", "width", "height" };
    const char *of = polygon ? "the polygon's box " : "";
    for (int i = 0; i < 4; i++)
        if (!(b[i] <= 1.01f))
            return problem(c, LA_F_DEGENERATE_BOX, DROPS_IMAGE, "%s%s %g, outside [0, 1] by more than "
                           "Ultralytics' 1%%", of, name[i], (double)b[i]);
    for (int i = 0; i < 4; i++)
        if (!(b[i] >= (i < 2 ? -0.01f : 0.0f)))
            return problem(c, LA_F_DEGENERATE_BOX, DROPS_IMAGE, "%s%s %g%s", of, name[i], (double)b[i],
                           i < 2 ? ", outside [0, 1] by more than Ultralytics' 1%" : " < 0");
    if (b[2] == 0.0f || b[3] == 0.0f)
        return problem(c, LA_F_DEGENERATE_BOX, KEEPS_IMAGE, "%s%s 0: Ultralytics keeps the image, "
                       "its augmentation drops the box", of, b[2] == 0.0f ? "width" : "height");
    return 0;
}

/* The field count verify_image_label accepts: in a file of boxes, 5; in a
 * file with a polygon (a line of more than 6 fields), a class and x y pairs
 * (one pair too: a point) and no box. @return 0, or -1 out of memory. */
static int check_field_count(struct line_ctx *c, size_t nf, int *bad)
{
    *bad = 1;
    if (!c->polygons && nf != 5)
        return problem(c, LA_F_UNPARSABLE, DROPS_IMAGE, "%zu fields: a box is 'class cx cy w h' (5), "
                       "a polygon a class and 3 or more x y pairs", nf);
    if (c->polygons && nf == 5 && !c->mixed++ && c->t->mixed_files++ < NAMED_SKIPPED &&
        la_notes_line(c->r->notes, "  %s: labels mix segment and detection rows (Ultralytics drops "
                      "the image's labels)", c->file) != 0)
        return -1;
    if (c->polygons && nf == 5)
        return problem(c, LA_F_UNPARSABLE, DROPS_IMAGE, "labels mix segment and detection rows: a box "
                       "in a file of polygons");
    if (c->polygons && (nf < 3 || nf % 2 == 0))
        return problem(c, LA_F_UNPARSABLE, DROPS_IMAGE, "%zu fields: a polygon is a class and x y pairs",
                       nf);
    *bad = 0;
    return 0;
}

/* The class, as Ultralytics reads it: a float32 that must be an integer
 * (1.00000001 is 1; 1.5 drops the image), to the items. */
static int push_class(struct line_ctx *c, float cls, const char *s, size_t n)
{
    if (cls > -9.2e18f && cls < 9.2e18f && cls == floorf(cls))   /* NaN fails the range first */
        return la_items_push_int(&c->t->items, (int64_t)cls);
    if (problem(c, LA_F_UNPARSABLE, DROPS_IMAGE, "class %.*s is not an integer", (int)(n > 40 ? 40 : n),
                s) != 0)
        return -1;
    return la_items_push_text(&c->t->items, s, n);
}

/* One line: its class to the items, its problems to the notes. */
static int parse_line(struct line_ctx *c, const char *s, size_t n)
{
    struct yolo_state *t = c->t;
    size_t at = 0, fs, fl, nf = 0, first = t->rows_len;
    size_t cls_s = 0, cls_l = 0;
    while (next_field(s, n, &at, &fs, &fl)) {
        double v;
        if (nf == 0)
            cls_s = fs, cls_l = fl;
        if (!parse_number(s + fs, fl, &v)) {
            t->rows_len = first;
            if (problem(c, LA_F_UNPARSABLE, DROPS_IMAGE, "field %zu '%.*s' is not a number", nf + 1,
                        (int)(fl > 40 ? 40 : fl), s + fs) != 0)
                return -1;
            return la_items_push_text(&t->items, s + fs, fl);
        }
        if (push_row_value(t, to_float32(v)) != 0)
            return -1;
        nf++;
    }
    int bad;
    if (check_field_count(c, nf, &bad) != 0)
        return -1;
    if (bad) {
        t->rows_len = first;
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        return la_items_push_text(&t->items, s, n);   /* the line is the unparsable cell */
    }
    float box[4];
    if (nf == 5)
        memcpy(box, t->rows + first + 1, sizeof box);
    else
        polygon_box(t->rows + first + 1, (nf - 1) / 2, box);
    if (check_box(c, box, nf != 5) != 0 || push_row(t, first, nf, c->lineno) != 0)
        return -1;
    return push_class(c, t->rows[first], s + cls_s, cls_l);
}

/* Whether a line of the file has more than 6 fields: Ultralytics then reads
 * every line as a polygon. */
static int has_polygon(const char *buf, size_t len)
{
    size_t pos = text_start(buf, len), n;
    uint64_t lineno = 0;
    const char *s;
    while (next_line(buf, len, &pos, &lineno, &s, &n))
        if (count_fields(s, n, 7) > 6)
            return 1;
    return 0;
}

/* Equal float32 rows, as np.unique(lb, axis=0) finds them. */
static const struct yolo_state *g_sort_state;   /* qsort has no context argument */
static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    for (size_t i = 0; i < x->n; i++) {
        float p = g_sort_state->rows[x->at + i], q = g_sort_state->rows[y->at + i];
        if (p != q)
            return p < q ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

static int rows_equal(const struct yolo_state *t, const struct row *x, const struct row *y)
{
    if (x->n != y->n)
        return 0;
    for (size_t i = 0; i < x->n; i++)
        if (t->rows[x->at + i] != t->rows[y->at + i])
            return 0;
    return 1;
}

static int find_duplicates(struct line_ctx *c)
{
    struct yolo_state *t = c->t;
    if (t->n_rows < 2)
        return 0;
    g_sort_state = t;
    qsort(t->row, t->n_rows, sizeof *t->row, row_cmp);
    uint64_t saved = t->index;
    for (size_t i = 1; i < t->n_rows; i++) {
        size_t k = i;
        while (k > 0 && rows_equal(t, &t->row[k - 1], &t->row[i]))
            k--;
        if (k == i)
            continue;
        c->lineno = t->row[i].line;
        t->index = t->row[i].index;
        if (problem(c, LA_F_DUPLICATE_LABEL, KEEPS_IMAGE, "the same as line %llu",
                    (unsigned long long)t->row[k].line) != 0)
            return -1;
    }
    t->index = saved;
    return 0;
}

/* A folder's file as a source of the dataset the JSON describes: one
 * sample of as many elements as it has lines (a bad entry's "at" is [its
 * line's ordinal among them]). */
static int add_source(struct la_dataset *d, const char *path, uint64_t f, uint64_t first,
                      uint64_t end)
{
    if (!d)
        return 0;   /* one file, not a folder */
    uint64_t lines = end - first;
    struct la_source_info s = { .path = (char *)path, .format = LA_FMT_YOLO, .dtype = LA_DT_INT64,
                                .samples = 1, .first_sample = f, .first_index = first,
                                .count = lines, .ndim = 1, .inner = &lines };
    return la_dataset_append(d, &s);
}

/* Read the next label file into the items. @return 0, or -1 with r->err. */
static int read_file(struct la_reader *r, struct yolo_state *t)
{
    struct yolo_places *p = t->places;
    size_t f = t->next_file++;
    uint64_t first = t->index;
    atomic_store_explicit(&p->first_index[f], t->index, memory_order_relaxed);
    free(t->buf);
    t->buf = NULL;
    if (slurp(p->files[f], &t->buf, &t->len, r->err, sizeof r->err) != 0)
        return -1;
    struct line_ctx c = { .r = r, .t = t, .file = p->files[f], .sample = f,
                          .polygons = has_polygon(t->buf, t->len) };
    const char *s;
    size_t n, pos = text_start(t->buf, t->len);
    t->rows_len = t->n_rows = 0;
    while (next_line(t->buf, t->len, &pos, &c.lineno, &s, &n)) {
        if (parse_line(&c, s, n) != 0)
            return la_reader_set_error(r, "out of memory");
        t->index++;
        t->lines++;
    }
    if (find_duplicates(&c) != 0 ||
        add_source(r->notes->sources, p->files[f], f, first, t->index) != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* At the end: the findings and the summary. */
static int finish(struct la_reader *r, struct yolo_state *t)
{
    struct la_notes *n = r->notes;
    uint64_t dups = la_notes_count(n, LA_F_DUPLICATE_LABEL);
    uint64_t out = t->boxes_dropping, empty = t->boxes_empty;
    if (out)
        la_notes_finding(n, LA_F_DEGENERATE_BOX, ULTRA_CORRUPT,
                         "%llu %s with a coordinate outside [0, 1] by more than Ultralytics' 1%% "
                         "or a negative width or height%s", (unsigned long long)out,
                         plural(out, "label line", "label lines"), empty ? ", and more of width or "
                         "height 0" : "");
    else if (empty)
        la_notes_finding(n, LA_F_DEGENERATE_BOX, NULL,
                         "%llu %s with a width or height 0: Ultralytics' augmentation drops "
                         "such boxes without a word", (unsigned long long)empty,
                         plural(empty, "label line", "label lines"));
    if (dups)
        la_notes_finding(n, LA_F_DUPLICATE_LABEL, NULL,
                         "%llu duplicate label %s: Ultralytics removes them with a warning",
                         (unsigned long long)dups, plural(dups, "line", "lines"));
    cJSON_AddNumberToObject(n->json, "label_files", (double)t->places->n_files);
    cJSON_AddNumberToObject(n->json, "lines", (double)t->lines);
    cJSON_AddNumberToObject(n->json, "not_label_files", (double)t->skipped);
    cJSON_AddNumberToObject(n->json, "mixed_files", (double)t->mixed_files);
    if (t->mixed_files > NAMED_SKIPPED &&
        la_notes_line(n, "  ... and %llu more files that mix segment and detection rows",
                      (unsigned long long)(t->mixed_files - NAMED_SKIPPED)) != 0)
        return la_reader_set_error(r, "out of memory");
    if (la_notes_line(n, "  %zu label %s, %llu %s", t->places->n_files,
                      plural(t->places->n_files, "file", "files"), (unsigned long long)t->lines,
                      plural(t->lines, "line", "lines")) != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

/* The folder's .txt files into places; the others named in the notes. */
static int list_folder(struct la_reader *r, struct yolo_state *t)
{
    struct la_walk w;
    if (la_walk_tree(r->path, &w, r->err, sizeof r->err) != 0)
        return -1;
    struct yolo_places *p = t->places;
    p->files = calloc(w.n_files ? w.n_files : 1, sizeof *p->files);
    int rc = p->files ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < w.n_files; i++) {
        size_t len = strlen(w.files[i]);
        if (len > 4 && strcmp(w.files[i] + len - 4, ".txt") == 0) {
            p->files[p->n_files++] = w.files[i];
            w.files[i] = NULL;
            continue;
        }
        if (t->skipped++ < NAMED_SKIPPED)
            rc = la_notes_line(r->notes, "  not a label file (not .txt), skipped: %s", w.files[i]);
        cJSON_AddItemToArray(t->skipped_json, cJSON_CreateString(w.files[i]));
    }
    for (size_t i = 0; rc == 0 && i < w.n_problems; i++)
        rc = la_notes_line(r->notes, "  not walked: %s", w.problems[i]);
    if (rc == 0 && t->skipped > NAMED_SKIPPED)
        rc = la_notes_line(r->notes, "  ... and %llu more files that are not .txt",
                           (unsigned long long)(t->skipped - NAMED_SKIPPED));
    la_walk_free(&w);
    return rc == 0 ? 0 : la_reader_set_error(r, "out of memory");
}

static int yolo_locate(struct la_notes *n, const uint64_t *index, size_t count);
static uint64_t yolo_sample_of(void *ctx, uint64_t index);

static int yolo_open(struct la_reader *r)
{
    struct yolo_state *t = calloc(1, sizeof *t);
    struct yolo_places *p = calloc(1, sizeof *p);
    r->state = t;
    if (!t || !p || !r->notes || !(r->notes->json = cJSON_CreateObject())) {
        free(p);
        return la_reader_set_error(r, "out of memory");
    }
    r->notes->ctx = t->places = p;
    r->notes->free_ctx = free_places;
    r->notes->locate = yolo_locate;
    r->notes->sample_of = yolo_sample_of;   /* bad_samples counts files, not lines */
    r->notes->sample_ctx = p;
    r->notes->samples_ordered = 1;
    struct stat st;
    if (stat(r->path, &st) != 0)
        return la_reader_set_error(r, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        t->skipped_json = cJSON_AddArrayToObject(r->notes->json, "not_label_files_named");
        if (!(r->notes->sources = calloc(1, sizeof *r->notes->sources)))
            return la_reader_set_error(r, "out of memory");
        if (list_folder(r, t) != 0)
            return -1;
    } else if (!(p->files = calloc(1, sizeof *p->files)) || !(p->files[0] = strdup(r->path))) {
        return la_reader_set_error(r, "out of memory");
    } else {
        p->n_files = 1;
    }
    if (!(p->first_index = calloc(p->n_files ? p->n_files : 1, sizeof *p->first_index)))
        return la_reader_set_error(r, "out of memory");
    for (size_t f = 0; f < p->n_files; f++)
        atomic_init(&p->first_index[f], LA_NO_SAMPLE);
    r->info.dtype = LA_DT_INT64;
    r->info.no_ignore = 1;   /* verify_image_label refuses a negative class, -100 too */
    r->info.ndim = 1;
    r->info.shape[0] = p->n_files;   /* samples: the files; elements: their lines */
    r->info.shape_known = 1;
    return 0;
}

/* The labels of as many files as make BATCH_ITEMS: a chunk per file (most
 * hold a few lines) would hand the scan thread 100,000 tiny chunks. */
static int yolo_next(struct la_reader *r, struct la_chunk *out)
{
    struct yolo_state *t = r->state;
    if (la_items_take(&t->items, out))
        return 1;
    la_items_reset(&t->items, t->index);
    while (t->items.n < BATCH_ITEMS && t->next_file < t->places->n_files)
        if (read_file(r, t) != 0)
            return -1;
    if (la_items_take(&t->items, out))
        return 1;
    if (t->next_file++ == t->places->n_files && finish(r, t) != 0)
        return -1;
    return 0;
}

static void yolo_close(struct la_reader *r)
{
    struct yolo_state *t = r->state;
    if (t) {
        la_items_free(&t->items);
        free(t->buf);
        free(t->rows);
        free(t->row);
    }
    free(t);
    r->state = NULL;
}

/* The file holding the line of element index: the last file whose first
 * index is <= index (an empty file shares its first index with the next). */
static size_t file_of(const struct yolo_places *p, uint64_t index)
{
    size_t lo = 0, hi = p->n_files;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (atomic_load_explicit(&p->first_index[mid], memory_order_relaxed) <= index)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The scan's sample of a line: its file (la_sample_of). */
static uint64_t yolo_sample_of(void *ctx, uint64_t index)
{
    return file_of(ctx, index);
}

/* Where the scan's bad entries lie: the file by its first index, the line by
 * counting the file's non-blank lines again (a few files, at report time). */
static int yolo_locate(struct la_notes *n, const uint64_t *index, size_t count)
{
    struct yolo_places *p = n->ctx;
    for (size_t i = 0; i < count; i++) {
        size_t lo = file_of(p, index[i]);
        char *buf, err[LA_ERR_LEN], where[LA_NOTE_LEN];
        size_t len, pos, ln;
        uint64_t lineno = 0, k = index[i] - p->first_index[lo];
        const char *s;
        if (p->n_files == 0 || slurp(p->files[lo], &buf, &len, err, sizeof err) != 0)
            continue;
        pos = text_start(buf, len);
        while (next_line(buf, len, &pos, &lineno, &s, &ln) && k > 0)
            k--;
        free(buf);
        snprintf(where, sizeof where, "%s line %llu", p->files[lo], (unsigned long long)lineno);
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddNumberToObject(o, "index", (double)index[i]);
            cJSON_AddNumberToObject(o, "sample", (double)lo);
            cJSON_AddStringToObject(o, "file", p->files[lo]);
            cJSON_AddNumberToObject(o, "line", (double)lineno);
        }
        if (la_notes_problem(n, LA_P_AT, index[i], lo, where, "", o) != 0)
            return -1;
    }
    return 0;
}

const struct la_reader_ops la_reader_yolo = { yolo_open, yolo_next, yolo_close };
