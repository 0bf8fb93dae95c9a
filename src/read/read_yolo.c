/* read_yolo.c - --format=yolo: a folder of YOLO label files, or one file.
 *
 * Each .txt file is one sample (its image's labels; an empty file is an image
 * with no object, as Ultralytics reads it); each non-blank line is one element,
 * `class cx cy w h`, or `class x1 y1 x2 y2 ...` for a polygon. The class goes
 * to the scan (class < N, with -n as the data.yaml's nc); what Ultralytics'
 * verify_image_label rejects is checked here, each problem named by its file
 * and line: coordinates outside [0, 1] and widths or heights <= 0
 * (degenerate-box; Ultralytics then drops all the image's labels), a field
 * count other than 5 or 1 + an even count >= 6 (unparsable), and duplicate
 * lines, compared as Ultralytics compares them, as float32 rows
 * (duplicate-label: it removes them with a warning).
 *
 * The folder is walked as torchvision walks one (walk.h); files not ending in
 * .txt are not label files: they are counted and named in the report. */
#include "label_items.h"
#include "label_notes.h"
#include "reader.h"
#include "walk.h"
#include "util.h"   /* la_grow_n */

#include <errno.h>    /* errno */
#include <stdatomic.h> /* the scan thread reads first_index while files are read */
#include <stdarg.h>   /* va_list */
#include <math.h>     /* isfinite */
#include <stdio.h>    /* fopen */
#include <stdlib.h>   /* strtod, qsort */
#include <string.h>   /* strcmp, strerror */
#include <sys/stat.h> /* stat */

#define MAX_FILE_BYTES (64u << 20)   /* one label file; larger is refused */
#define NAMED_SKIPPED 10             /* non-label files named in the text report */
#define BATCH_ITEMS 8192             /* labels handed over at a time */
#define ULTRA_CORRUPT "Ultralytics: ignoring corrupt image/label: non-normalized or out of bounds coordinates"

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

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* The next non-blank line of buf at *pos: its start, length and 1-based number. */
static int next_line(const char *buf, size_t len, size_t *pos, uint64_t *lineno,
                     const char **s, size_t *n)
{
    while (*pos < len) {
        const char *start = buf + *pos;
        const char *nl = memchr(start, '\n', len - *pos);
        size_t k = nl ? (size_t)(nl - start) : len - *pos;
        *pos += k + (nl != NULL);
        (*lineno)++;
        size_t i = 0;
        while (i < k && is_space(start[i]))
            i++;
        if (i < k) {
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
    while (*at < n && is_space(s[*at]))
        (*at)++;
    if (*at >= n)
        return 0;
    *fs = *at;
    while (*at < n && !is_space(s[*at]))
        (*at)++;
    *fl = *at - *fs;
    return 1;
}

/* A field as a number, as Python's float(): the whole field or nothing. */
static int parse_number(const char *s, size_t n, double *v)
{
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    *v = strtod(tmp, &end);
    return end == tmp + n;
}

struct line_ctx {
    struct la_reader *r;
    struct yolo_state *t;
    const char *file;
    uint64_t sample, lineno;
};

static int problem(struct line_ctx *c, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int problem(struct line_ctx *c, const char *code, const char *fmt, ...)
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
    }
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

/* The coordinates' problems: outside [0, 1], or a box's w or h <= 0. */
static int check_coords(struct line_ctx *c, const float *v, size_t nf)
{
    for (size_t i = 1; i < nf; i++)
        if (!(v[i] >= 0.0f && v[i] <= 1.0f))
            return problem(c, "degenerate-box", "coordinate %zu is %g, outside [0, 1]", i,
                           (double)v[i]);
    if (nf == 5 && !(v[3] > 0.0f && v[4] > 0.0f))
        return problem(c, "degenerate-box", "%s %g <= 0", v[3] > 0.0f ? "height" : "width",
                       (double)(v[3] > 0.0f ? v[4] : v[3]));
    return 0;
}

/* One line: its class to the items, its problems to the notes. */
static int parse_line(struct line_ctx *c, const char *s, size_t n)
{
    struct yolo_state *t = c->t;
    size_t at = 0, fs, fl, nf = 0, first = t->rows_len;
    size_t cls_s = 0, cls_l = 0;
    int rc = 0;
    while (rc == 0 && next_field(s, n, &at, &fs, &fl)) {
        double v;
        if (nf == 0)
            cls_s = fs, cls_l = fl;
        if (!parse_number(s + fs, fl, &v)) {
            t->rows_len = first;
            if (problem(c, "unparsable", "field %zu '%.*s' is not a number", nf + 1,
                        (int)(fl > 40 ? 40 : fl), s + fs) != 0)
                return -1;
            return la_items_push_text(&t->items, s + fs, fl);
        }
        rc = push_row_value(t, (float)v);
        nf++;
    }
    if (rc != 0)
        return -1;
    if (nf != 5 && !(nf >= 7 && nf % 2 == 1)) {
        t->rows_len = first;
        if (problem(c, "unparsable", "%zu fields: a box is 'class cx cy w h' (5), a polygon "
                    "a class and 3 or more x y pairs", nf) != 0)
            return -1;
        while (n > 0 && is_space(s[n - 1]))
            n--;
        return la_items_push_text(&t->items, s, n);   /* the line is the unparsable cell */
    }
    if (check_coords(c, t->rows + first, nf) != 0 || push_row(t, first, nf, c->lineno) != 0)
        return -1;
    double cls = 0;
    parse_number(s + cls_s, cls_l, &cls);
    if (cls > -9.2e18 && cls < 9.2e18 && cls == (double)(int64_t)cls)   /* NaN fails the range first */
        return la_items_push_int(&t->items, (int64_t)cls);
    /* Ultralytics reads the class as float32 and truncates it: 1.5 becomes 1 silently */
    if (problem(c, "unparsable", "class %.*s is not an integer", (int)(cls_l > 40 ? 40 : cls_l),
                s + cls_s) != 0)
        return -1;
    return la_items_push_text(&t->items, s + cls_s, cls_l);
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
        if (problem(c, "duplicate-label", "the same as line %llu",
                    (unsigned long long)t->row[k].line) != 0)
            return -1;
    }
    t->index = saved;
    return 0;
}

/* Read the next label file into the items. @return 0, or -1 with r->err. */
static int read_file(struct la_reader *r, struct yolo_state *t)
{
    struct yolo_places *p = t->places;
    size_t f = t->next_file++;
    atomic_store_explicit(&p->first_index[f], t->index, memory_order_relaxed);
    free(t->buf);
    t->buf = NULL;
    if (slurp(p->files[f], &t->buf, &t->len, r->err, sizeof r->err) != 0)
        return -1;
    struct line_ctx c = { r, t, p->files[f], f, 0 };
    const char *s;
    size_t n, pos = 0;
    t->rows_len = t->n_rows = 0;
    while (next_line(t->buf, t->len, &pos, &c.lineno, &s, &n)) {
        if (parse_line(&c, s, n) != 0)
            return la_reader_set_error(r, "out of memory");
        t->index++;
        t->lines++;
    }
    if (find_duplicates(&c) != 0)
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
    uint64_t boxes = la_notes_count(n, "degenerate-box"), dups = la_notes_count(n, "duplicate-label");
    if (boxes)
        la_notes_finding(n, 1, "degenerate-box", ULTRA_CORRUPT,
                         "%llu %s with a coordinate outside [0, 1] or a width or height <= 0",
                         (unsigned long long)boxes, plural(boxes, "label line", "label lines"));
    if (dups)
        la_notes_finding(n, 0, "duplicate-label", NULL,
                         "%llu duplicate label %s: Ultralytics removes them with a warning",
                         (unsigned long long)dups, plural(dups, "line", "lines"));
    cJSON_AddNumberToObject(n->json, "label_files", (double)t->places->n_files);
    cJSON_AddNumberToObject(n->json, "lines", (double)t->lines);
    cJSON_AddNumberToObject(n->json, "not_label_files", (double)t->skipped);
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
        size_t len, pos = 0, ln;
        uint64_t lineno = 0, k = index[i] - p->first_index[lo];
        const char *s;
        if (p->n_files == 0 || slurp(p->files[lo], &buf, &len, err, sizeof err) != 0)
            continue;
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
        if (la_notes_problem(n, "at", index[i], lo, where, "", o) != 0)
            return -1;
    }
    return 0;
}

const struct la_reader_ops la_reader_yolo = { yolo_open, yolo_next, yolo_close };
