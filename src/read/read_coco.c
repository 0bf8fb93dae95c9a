/* read_coco.c - --format=coco: COCO-style detection JSON (instances_*.json).
 *
 * One annotation = one element (its category_id goes to the scan, so
 * category_id < N with -n counting background as torchvision's detection
 * models do); its image = its sample (samples: the images, for batching).
 * Files reach 500 MB, so they are streamed through yajl in bounded memory:
 * only the ids (and sizes) of images and categories are kept, never the
 * annotations. Annotations may come before images and categories in the file,
 * so it is read twice: open() keeps the images and categories, next() streams
 * the annotations and checks each against them. Hence a path that can be read
 * twice: not standard input (compressed files are fine: each pass
 * decompresses again). A top-level key given twice is read as Python's json
 * reads it: the last value counts (pass 1 reads the whole top level, so pass 2
 * knows which "annotations" list is the last); a last value that is not a
 * list is refused by name, as pycocotools fails on it.
 *
 * Checked per annotation, each problem named by the annotation's ordinal, id
 * and image_id: a category_id or image_id that `categories` or `images` lack
 * (unknown-category), a bbox [x, y, w, h] with w or h <= 0 or not 4 numbers
 * (degenerate-box: torchvision raises "All bounding boxes should have
 * positive height and width"), a box reaching outside its image
 * (box-outside-image, a warning), a category_id that is not a number (a
 * string "3": unparsable). Strings longer than MAX_STRING and nesting deeper
 * than MAX_DEPTH are refused before yajl would buffer or stack them. */
#include "config.h"   /* HAVE_YAJL */
#include "label_items.h"
#include "label_notes.h"
#include "reader.h"
#include "util.h"      /* la_grow_n */

#include <errno.h>  /* errno */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtoll, strtod, bsearch */
#include <string.h> /* memcmp */

#if HAVE_YAJL
#include <yajl/yajl_parse.h>

#define READ_LEN (1u << 20)
#define MAX_STRING (16u << 20)    /* one JSON string; a longer one is refused */
#define MAX_DEPTH 512
#define NAMED_GAPS 40
#define PREVENTS_BOX "ValueError: All bounding boxes should have positive height and width"

enum section { S_OTHER, S_IMAGES, S_CATEGORIES, S_ANNOTATIONS };
enum field { F_OTHER, F_ID, F_IMAGE_ID, F_CATEGORY_ID, F_BBOX, F_WIDTH, F_HEIGHT, F_NAME,
             F_FILE_NAME };
enum cat_kind { CAT_MISSING, CAT_INT, CAT_TEXT };

struct image { int64_t id; uint64_t ordinal; double width, height; };

/* The image ordinal of each annotation (the scan's sample: coco_sample_of),
 * UINT32_MAX for none. Pass 2 appends on the reader thread while the scan
 * thread reads the entries already handed over, so the entries never move:
 * blocks that stay put, their pointers in a table sized at open. 4 bytes an
 * annotation (3.4 MB for COCO train2017's 860,000); annotations past
 * SAMPLE_BLOCKS blocks (2^32) count in no sample. */
#define SAMPLE_BLOCK ((size_t)1 << 16)
#define SAMPLE_BLOCKS ((size_t)1 << 16)
struct sample_map { uint32_t *block[SAMPLE_BLOCKS]; };
struct category { int64_t id; uint64_t count; char *name; };

/* The record being read: an image, a category or an annotation. */
struct record {
    int has_id, has_image_id, id_text, image_id_text;
    int64_t id, image_id;
    enum cat_kind cat;
    int64_t cat_i;
    char cat_text[48];
    int cat_is_string;
    double bbox[4];
    int n_bbox, bbox_bad, has_bbox;
    double width, height;
    char *name;
};

struct coco_state {
    int pass;                     /* 1: images, categories; 2: annotations */
    int depth;
    enum section section;         /* of the top-level key being read */
    enum field field;             /* of the record key being read */
    struct record rec;
    struct image *images;
    size_t n_images, cap_images;
    struct category *cats;
    size_t n_cats, cap_cats;
    uint64_t annotation_lists;    /* "annotations" keys: pass 1 counts them all */
    uint64_t annotation_key;      /* passes 2 and 3: the ordinal of the one being read */
    char kind[4];                 /* per section, its last value's first byte: '[' a list */
    uint64_t index;               /* annotations so far */
    struct la_items items;
    struct sample_map *samples;
    struct la_reader *r;
    int oom;
    char why[160];                /* a reason to cancel the parse */
    /* the stream */
    struct la_source *src;
    yajl_handle h;
    unsigned char *buf;
    uint64_t offset;              /* bytes fed before buf */
    int eof;
    int in_string, escape;        /* the string guard, ahead of yajl */
    uint64_t string_len;
    struct skip {                 /* pass 1 steps over "annotations" without yajl */
        int active, started, in_string, escape;
        uint64_t depth;
        char first;               /* the value's first byte */
    } skip;
    size_t base;                  /* where in buf the current handle's bytes start */
    const uint64_t *wanted;       /* pass 3: the scan's bad entries, ascending */
    size_t count_wanted, n_wanted;
};

static int set_why(struct coco_state *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_why(struct coco_state *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->why, sizeof t->why, fmt, ap);
    va_end(ap);
    return 0;   /* cancels the parse */
}

// ---- the records -------------------------------------------------------------

static int in_record(const struct coco_state *t) { return t->depth == 3 && t->section != S_OTHER; }

static int by_image_id(const void *a, const void *b)
{
    int64_t x = ((const struct image *)a)->id, y = ((const struct image *)b)->id;
    return x < y ? -1 : x > y;
}

static int by_category_id(const void *a, const void *b)
{
    int64_t x = ((const struct category *)a)->id, y = ((const struct category *)b)->id;
    return x < y ? -1 : x > y;
}

static int keep_image(struct coco_state *t)
{
    if (!t->rec.has_id)
        return 1;   /* an image without a usable id can be named by no annotation */
    if (la_grow_n(&t->images, &t->cap_images, t->n_images + 1, sizeof *t->images, 1024) != 0)
        return t->oom = 1, 0;
    t->images[t->n_images] = (struct image){ t->rec.id, t->n_images, t->rec.width, t->rec.height };
    t->n_images++;
    if (t->rec.name && t->r->notes &&
        la_notes_add_image_entry(t->r->notes, t->rec.name, t->rec.width, t->rec.height) != 0)
        return t->oom = 1, 0;
    free(t->rec.name);
    t->rec.name = NULL;
    return 1;
}

static int keep_category(struct coco_state *t)
{
    if (!t->rec.has_id)
        return 1;
    if (la_grow_n(&t->cats, &t->cap_cats, t->n_cats + 1, sizeof *t->cats, 128) != 0)
        return t->oom = 1, 0;
    t->cats[t->n_cats++] = (struct category){ t->rec.id, 0, t->rec.name };
    t->rec.name = NULL;
    return 1;
}

static int problem(struct coco_state *t, const struct image *img, enum la_code code,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A problem of the current annotation, named by its ordinal, id and image_id. */
static int problem(struct coco_state *t, const struct image *img, enum la_code code,
                   const char *fmt, ...)
{
    const struct record *a = &t->rec;
    char what[LA_NOTE_LEN], where[LA_NOTE_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "annotation %llu (id %lld, image_id %lld)",
             (unsigned long long)t->index, (long long)a->id, (long long)a->image_id);
    uint64_t sample = img ? img->ordinal : 0;
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddNumberToObject(o, "index", (double)t->index);
        if (img)
            cJSON_AddNumberToObject(o, "sample", (double)sample);
        cJSON_AddItemToObject(o, "id", a->has_id ? cJSON_CreateNumber((double)a->id) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "image_id", a->has_image_id ? cJSON_CreateNumber((double)a->image_id)
                                                             : cJSON_CreateNull());
    }
    if (la_notes_problem(t->r->notes, code, t->index, sample, where, what, o) != 0)
        t->oom = 1;
    return !t->oom;
}

/* The current annotation's image ordinal into the sample map. @return 0, or -1 out of memory. */
static int note_sample(struct coco_state *t, const struct image *img)
{
    size_t k = (size_t)(t->index / SAMPLE_BLOCK);
    if (k >= SAMPLE_BLOCKS)
        return 0;
    uint32_t **b = &t->samples->block[k];
    if (!*b && !(*b = malloc(SAMPLE_BLOCK * sizeof **b)))
        return -1;
    (*b)[t->index % SAMPLE_BLOCK] = img && img->ordinal < UINT32_MAX ? (uint32_t)img->ordinal
                                                                     : UINT32_MAX;
    return 0;
}

/* The scan's sample of an annotation: its image's ordinal (la_sample_of). */
static uint64_t coco_sample_of(void *ctx, uint64_t index)
{
    const struct sample_map *m = ctx;
    size_t k = (size_t)(index / SAMPLE_BLOCK);
    uint32_t v = k < SAMPLE_BLOCKS && m->block[k] ? m->block[k][index % SAMPLE_BLOCK] : UINT32_MAX;
    return v == UINT32_MAX ? LA_NO_SAMPLE : v;
}

static void check_box(struct coco_state *t, const struct image *img)
{
    const struct record *a = &t->rec;
    const double *b = a->bbox;
    if (a->n_bbox != 4 || a->bbox_bad) {
        problem(t, img, LA_F_DEGENERATE_BOX, "bbox is not [x, y, width, height] of 4 numbers");
        return;
    }
    if (!(b[2] > 0 && b[3] > 0)) {
        problem(t, img, LA_F_DEGENERATE_BOX, "bbox [%g, %g, %g, %g]: %s <= 0", b[0], b[1], b[2], b[3],
                b[2] > 0 ? "height" : "width");
        return;
    }
    if (img && img->width > 0 && img->height > 0 &&
        (b[0] < 0 || b[1] < 0 || b[0] + b[2] > img->width || b[1] + b[3] > img->height))
        problem(t, img, LA_F_BOX_OUTSIDE_IMAGE, "bbox [%g, %g, %g, %g] reaches outside the %gx%g image",
                b[0], b[1], b[2], b[3], img->width, img->height);
}

/* One annotation read whole: its category to the items, its problems to the notes. */
static int end_annotation(struct coco_state *t)
{
    struct record *a = &t->rec;
    struct image key = { .id = a->image_id };
    struct category ckey = { .id = a->cat_i };
    const struct image *img = a->has_image_id && t->n_images   /* bsearch(NULL, 0) is undefined */
        ? bsearch(&key, t->images, t->n_images, sizeof key, by_image_id) : NULL;
    struct category *cat = a->cat == CAT_INT && t->n_cats
        ? bsearch(&ckey, t->cats, t->n_cats, sizeof ckey, by_category_id) : NULL;
    if (cat)
        cat->count++;
    if (a->cat == CAT_INT && !cat)
        problem(t, img, LA_F_UNKNOWN_CATEGORY, "category_id %lld is not among the categories",
                (long long)a->cat_i);
    if (!img && a->has_image_id)
        problem(t, NULL, LA_F_UNKNOWN_CATEGORY, "image_id %lld is not among the images",
                (long long)a->image_id);
    else if (!img)
        problem(t, NULL, LA_F_UNKNOWN_CATEGORY, "no image_id (an integer)");
    check_box(t, img);
    int rc = note_sample(t, img);
    if (rc == 0 && a->cat == CAT_INT)
        rc = la_items_push_int(&t->items, a->cat_i);
    else if (rc == 0) {
        const char *text = a->cat == CAT_TEXT ? a->cat_text : "(no category_id)";
        problem(t, img, LA_F_UNPARSABLE, a->cat_is_string ? "category_id \"%s\" is a string, not a number"
                                                       : "category_id %s is not a number", text);
        rc = la_items_push_text(&t->items, text, strlen(text));
    }
    t->index++;
    return rc == 0 ? 1 : (t->oom = 1, 0);
}

/* Pass 3: an annotation the scan found bad gets its id and image_id. */
static int place_annotation(struct coco_state *t)
{
    const struct record *a = &t->rec;
    if (t->n_wanted < t->count_wanted && t->wanted[t->n_wanted] == t->index) {
        struct image key = { .id = a->image_id };
        const struct image *img = a->has_image_id && t->n_images
            ? bsearch(&key, t->images, t->n_images, sizeof key, by_image_id) : NULL;
        char where[LA_NOTE_LEN];
        snprintf(where, sizeof where, "annotation id %lld, image_id %lld", (long long)a->id,
                 (long long)a->image_id);
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddItemToObject(o, "sample", img ? cJSON_CreateNumber((double)img->ordinal)
                                                   : cJSON_CreateNull());   /* no such image */
            cJSON_AddItemToObject(o, "id", a->has_id ? cJSON_CreateNumber((double)a->id)
                                                     : cJSON_CreateNull());
            cJSON_AddItemToObject(o, "image_id", a->has_image_id
                                  ? cJSON_CreateNumber((double)a->image_id) : cJSON_CreateNull());
        }
        if (la_notes_problem(t->r->notes, LA_P_AT, t->index, img ? img->ordinal : 0, where, "", o) != 0)
            return t->oom = 1, 0;
        while (t->n_wanted < t->count_wanted && t->wanted[t->n_wanted] == t->index)
            t->n_wanted++;
    }
    t->index++;
    return 1;
}

static int end_record(struct coco_state *t)
{
    int rc = 1;
    if (t->pass == 1 && t->section == S_IMAGES)
        rc = keep_image(t);
    else if (t->pass == 1 && t->section == S_CATEGORIES)
        rc = keep_category(t);
    else if (t->pass == 2 && t->section == S_ANNOTATIONS)
        rc = end_annotation(t);
    else if (t->pass == 3 && t->section == S_ANNOTATIONS)
        rc = place_annotation(t);
    free(t->rec.name);
    t->rec = (struct record){ 0 };
    return rc;
}

// ---- yajl's callbacks ----------------------------------------------------------

/* A record's number field: an integer (as text, so huge ones do not fail), or a float. */
static void number_field(struct coco_state *t, const char *s, size_t n)
{
    char tmp[64];
    struct record *a = &t->rec;
    if (t->field == F_OTHER || t->field == F_BBOX || t->field == F_NAME)
        return;   /* area, iscrowd, ...: not read */
    if (n >= sizeof tmp)
        n = sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    long long i = strtoll(tmp, &end, 10);
    int is_int = *end == '\0' && errno == 0;
    double f = strtod(tmp, NULL);
    switch (t->field) {
    case F_ID: a->has_id = is_int; a->id = i; break;
    case F_IMAGE_ID: a->has_image_id = is_int; a->image_id = i; break;
    case F_CATEGORY_ID:
        a->cat = is_int ? CAT_INT : CAT_TEXT;   /* 1.5 is no category: unparsable */
        a->cat_i = i;
        snprintf(a->cat_text, sizeof a->cat_text, "%.40s", tmp);
        break;
    case F_WIDTH: a->width = f; break;
    case F_HEIGHT: a->height = f; break;
    default: break;
    }
}

/* What a top-level section's value is: its first byte ('[' a list). */
static void note_kind(struct coco_state *t, char first)
{
    if (t->depth == 1 && t->section != S_OTHER)
        t->kind[t->section] = first;
}

static int on_number(void *ctx, const char *s, size_t n)
{
    struct coco_state *t = ctx;
    note_kind(t, '0');
    if (in_record(t))
        number_field(t, s, n);
    else if (t->depth == 4 && t->field == F_BBOX) {
        char tmp[64];
        size_t k = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
        memcpy(tmp, s, k);
        tmp[k] = '\0';
        if (t->rec.n_bbox < 4)
            t->rec.bbox[t->rec.n_bbox] = strtod(tmp, NULL);
        t->rec.n_bbox++;
    }
    return 1;
}

/* Anything but a number where the bbox wants one. */
static void not_a_number(struct coco_state *t, const char *text, size_t n)
{
    if (t->depth == 4 && t->field == F_BBOX) {
        t->rec.bbox_bad = 1;
        t->rec.n_bbox++;
    }
    if (!in_record(t))
        return;
    if (t->field == F_CATEGORY_ID) {
        t->rec.cat = CAT_TEXT;
        snprintf(t->rec.cat_text, sizeof t->rec.cat_text, "%.*s", (int)(n > 40 ? 40 : n), text);
    } else if (t->field == F_ID) {
        t->rec.has_id = 0;
    } else if (t->field == F_IMAGE_ID) {
        t->rec.has_image_id = 0;
    }
}

static int on_null(void *ctx) { note_kind(ctx, 'n'); not_a_number(ctx, "null", 4); return 1; }
static int on_bool(void *ctx, int b)
{
    note_kind(ctx, b ? 't' : 'f');
    not_a_number(ctx, b ? "true" : "false", b ? 4 : 5);
    return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    struct coco_state *t = ctx;
    note_kind(t, '"');
    if (in_record(t) && t->field == F_NAME && t->section == S_CATEGORIES && t->pass == 1) {
        free(t->rec.name);
        t->rec.name = strndup((const char *)s, n > 200 ? 200 : n);
    }
    /* an image's file, held to its width and height (pairs.c); a name with a
     * NUL byte names no file */
    if (in_record(t) && t->field == F_FILE_NAME && t->section == S_IMAGES && t->pass == 1 &&
        !memchr(s, '\0', n)) {
        free(t->rec.name);
        t->rec.name = strndup((const char *)s, n > 4000 ? 4000 : n);
    }
    not_a_number(t, (const char *)s, n);   /* "category_id": "3", a number as a string */
    if (in_record(t) && t->field == F_CATEGORY_ID)
        t->rec.cat_is_string = 1;
    return 1;
}

static enum field field_of(const unsigned char *k, size_t n)
{
    static const struct { const char *name; size_t len; enum field f; } names[] = {
        { "id", 2, F_ID }, { "image_id", 8, F_IMAGE_ID }, { "category_id", 11, F_CATEGORY_ID },
        { "bbox", 4, F_BBOX }, { "width", 5, F_WIDTH }, { "height", 6, F_HEIGHT },
        { "name", 4, F_NAME }, { "file_name", 9, F_FILE_NAME },
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].len == n && memcmp(names[i].name, k, n) == 0)
            return names[i].f;
    return F_OTHER;
}

/* The ids looked up by bsearch, once pass 1 has them all. */
static void sort_ids(struct coco_state *t)
{
    if (t->n_images > 1)   /* qsort(NULL, 0) is undefined */
        qsort(t->images, t->n_images, sizeof *t->images, by_image_id);
    if (t->n_cats > 1)
        qsort(t->cats, t->n_cats, sizeof *t->cats, by_category_id);
}

/* Pass 1 meets a section's key again: the earlier value is not the one
 * Python's json keeps. */
static void forget_earlier(struct coco_state *t)
{
    if (t->section == S_IMAGES)
        t->n_images = 0;
    if (t->section == S_CATEGORIES) {
        for (size_t i = 0; i < t->n_cats; i++)
            free(t->cats[i].name);
        t->n_cats = 0;
    }
}

static int on_key(void *ctx, const unsigned char *k, size_t n)
{
    struct coco_state *t = ctx;
    if (t->depth == 1) {
        t->section = n == 6 && !memcmp(k, "images", 6) ? S_IMAGES
                   : n == 10 && !memcmp(k, "categories", 10) ? S_CATEGORIES
                   : n == 11 && !memcmp(k, "annotations", 11) ? S_ANNOTATIONS : S_OTHER;
        if (t->pass == 1)
            forget_earlier(t);
        if (t->pass == 1 && t->section == S_ANNOTATIONS) {
            t->annotation_lists++;
            t->skip = (struct skip){ .active = 1 };   /* feed() steps over the value */
            return 0;
        }
        /* passes 2 and 3 read the last "annotations" only, as json keeps it */
        if (t->section == S_ANNOTATIONS && ++t->annotation_key != t->annotation_lists)
            t->section = S_OTHER;
    } else if (t->depth == 3) {
        t->field = field_of(k, n);
    }
    return 1;
}

static int open_container(struct coco_state *t, int is_map)
{
    if (t->depth == 0 && !is_map)
        return set_why(t, "the top level is an array, not a COCO object");
    note_kind(t, is_map ? '{' : '[');
    if (++t->depth > MAX_DEPTH)
        return set_why(t, "nested deeper than %d levels", MAX_DEPTH);
    if (t->depth == 2 && t->section != S_OTHER && is_map)
        t->section = S_OTHER;   /* "images": {...} is no list of records */
    if (in_record(t) && !is_map) {
        t->section = S_OTHER;   /* an array where a record should be */
    }
    if (t->depth == 4 && t->field == F_BBOX && is_map)
        t->rec.bbox_bad = 1;
    if (t->depth == 4 && t->field == F_BBOX)
        t->rec.has_bbox = 1;
    return 1;
}

static int on_start_map(void *ctx) { return open_container(ctx, 1); }
static int on_start_array(void *ctx) { return open_container(ctx, 0); }

static int on_end(void *ctx)
{
    struct coco_state *t = ctx;
    int rc = 1;
    if (in_record(t))
        rc = end_record(t);
    t->depth--;
    if (t->depth == 3)
        t->field = F_OTHER;
    return rc;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null, .yajl_boolean = on_bool, .yajl_number = on_number,
    .yajl_string = on_string, .yajl_start_map = on_start_map, .yajl_map_key = on_key,
    .yajl_end_map = on_end, .yajl_start_array = on_start_array, .yajl_end_array = on_end,
};

// ---- the stream ----------------------------------------------------------------

/* Byte classes for the two scanners below, so that their inner loops only
 * look up a table: QUOTE and BACKSLASH matter inside strings, the others
 * outside them. */
enum { C_QUOTE = 1, C_BACKSLASH = 2, C_OPEN = 4, C_CLOSE = 8, C_COMMA = 16, C_SPACE = 32,
       C_COLON = 64 };
static const unsigned char byte_class[256] = {
    ['"'] = C_QUOTE, ['\\'] = C_BACKSLASH, ['['] = C_OPEN, ['{'] = C_OPEN, [']'] = C_CLOSE,
    ['}'] = C_CLOSE, [','] = C_COMMA, [' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE,
    ['\n'] = C_SPACE, [':'] = C_COLON,
};
#define IN_STRING_STOP (C_QUOTE | C_BACKSLASH)

/* Inside a string from b[i]: its end (the closing quote's index, with
 * *closed), or n, tracking a backslash that escapes the next byte. */
static size_t string_end(int *escape, const unsigned char *b, size_t i, size_t n, int *closed)
{
    *closed = 0;
    for (; i < n; i++) {
        if (*escape) {
            *escape = 0;
            continue;
        }
        while (i < n && !(byte_class[b[i]] & IN_STRING_STOP))
            i++;
        if (i == n)
            break;
        if (b[i] == '\\') {
            *escape = 1;
        } else {
            *closed = 1;
            return i;
        }
    }
    return n;
}

/* The token guard: how far into buf every token (a string, a number, a
 * literal) stays under MAX_STRING bytes, which yajl would buffer whole. */
static size_t guard_strings(struct coco_state *t, const unsigned char *b, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (t->in_string) {
            int closed;
            size_t end = string_end(&t->escape, b, i, n, &closed);
            t->string_len += end - i;
            if (t->string_len > MAX_STRING)
                return end - (size_t)(t->string_len - MAX_STRING);
            t->in_string = !closed;
            i = end + closed;
            continue;
        }
        size_t start = i;   /* a number or literal runs to the next class byte */
        while (i < n && !byte_class[b[i]])
            i++;
        t->string_len += i - start;
        if (t->string_len > MAX_STRING)
            return i - (size_t)(t->string_len - MAX_STRING);
        if (i < n) {
            t->in_string = b[i] == '"';
            t->string_len = 0;
            i++;
        }
    }
    return n;
}

static int start_pass(struct la_reader *r, struct coco_state *t, int pass)
{
    if (t->h)
        yajl_free(t->h);
    if (t->src)
        la_source_close(t->src);
    t->src = NULL;
    t->h = NULL;
    t->pass = pass;
    t->depth = 0;
    t->section = S_OTHER;
    t->field = F_OTHER;
    t->offset = 0;
    t->eof = 0;
    t->in_string = t->escape = 0;
    t->skip.active = 0;
    t->base = 0;
    t->annotation_key = 0;
    if (la_source_open(r->path, &t->src, r->err, sizeof r->err) != 0)
        return -1;
    if (!(t->h = yajl_alloc(&callbacks, NULL, t)))
        return la_reader_set_error(r, "out of memory");
    return 0;
}

static int parse_failed(struct la_reader *r, struct coco_state *t, const unsigned char *b, size_t n)
{
    uint64_t at = n == 0 ? t->offset   /* at the end of the file: its size */
                         : t->offset + t->base + yajl_get_bytes_consumed(t->h);
    if (t->oom)
        return la_reader_set_error(r, "out of memory");
    if (t->why[0])
        return la_reader_set_error(r, "byte %llu: %s", (unsigned long long)at, t->why);
    unsigned char *e = yajl_get_error(t->h, 0, b, n);
    char *nl = e ? strchr((char *)e, '\n') : NULL;
    if (nl)
        *nl = '\0';
    la_reader_set_error(r, "byte %llu: not valid JSON (yajl: %s)", (unsigned long long)at,
                        e ? (char *)e : "error");
    if (e)
        yajl_free_error(t->h, e);
    return -1;
}

/* Pass 1 wants the images and categories only: the annotations (nearly all
 * of the file) are stepped over by their brackets and quotes, not parsed;
 * pass 2 parses them with yajl, which checks the whole file. @return 1 with
 * *end set where the value ends in b[0..n) (the byte after it), else 0. */
static int skip_value(struct skip *k, const unsigned char *b, size_t n, size_t *end)
{
    for (size_t i = 0; i < n; i++) {
        if (k->in_string) {
            int closed;
            i = string_end(&k->escape, b, i, n, &closed);
            k->in_string = !closed;
            continue;
        }
        if (!k->started) {   /* the ':' and spaces between the key and the value */
            if (byte_class[b[i]] & (C_COLON | C_SPACE))
                continue;
            k->started = 1;
            k->first = (char)b[i];
        }
        while (i < n && !byte_class[b[i]])
            i++;
        if (i == n)
            break;
        unsigned char c = b[i], cls = byte_class[c];
        if (cls & C_QUOTE) {
            k->in_string = 1;
        } else if (cls & C_OPEN) {
            k->depth++;
        } else if (k->depth > 0 && (cls & C_CLOSE)) {
            if (--k->depth == 0) {
                *end = i + 1;   /* the container closed */
                return 1;
            }
        } else if (k->depth == 0 && (cls & (C_COMMA | C_CLOSE))) {
            *end = i;           /* a scalar ended */
            return 1;
        }
    }
    return 0;
}

/* Step over the annotations in buf[from, n); when they end, a new handle
 * goes on from there, as if after {"":0 . *resume: where feed() goes on.
 * @return 0, or -1 with r->err. */
static int skip_annotations(struct la_reader *r, struct coco_state *t, size_t from, size_t n,
                            size_t *resume)
{
    size_t end;
    *resume = n;
    if (!skip_value(&t->skip, t->buf + from, n - from, &end))
        return 0;
    t->skip.active = 0;
    t->kind[S_ANNOTATIONS] = t->skip.first;
    t->in_string = t->escape = 0;   /* the guard goes on outside any token */
    t->string_len = 0;
    yajl_free(t->h);
    if (!(t->h = yajl_alloc(&callbacks, NULL, t)))
        return la_reader_set_error(r, "out of memory");
    t->depth = 0;
    t->section = S_OTHER;
    if (yajl_parse(t->h, (const unsigned char *)"{\"\":0", 5) != yajl_status_ok)
        return la_reader_set_error(r, "internal error: the resumed parse failed");
    *resume = from + end;
    return 0;
}

/* Feed the next block to yajl. @return 1, 0 at the end, -1 with r->err. */
static int feed(struct la_reader *r, struct coco_state *t)
{
    if (t->eof)
        return 0;
    ssize_t got = la_source_read(t->src, t->buf, READ_LEN);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(t->src));
    if (got == 0) {
        t->eof = 1;
        if (t->skip.active)   /* pass 1 was stepping over the annotations */
            return la_reader_set_error(r, "byte %llu: not valid JSON (premature EOF inside "
                                          "\"annotations\")", (unsigned long long)t->offset);
        if (yajl_complete_parse(t->h) != yajl_status_ok)
            return parse_failed(r, t, t->buf, 0);
        return 0;
    }
    size_t n = (size_t)got;
    for (t->base = 0; t->base < n;) {
        if (t->skip.active) {
            if (skip_annotations(r, t, t->base, n, &t->base) != 0)
                return -1;
            continue;
        }
        /* only what yajl is given is guarded: the stepped-over bytes are never buffered */
        size_t upto = t->base + guard_strings(t, t->buf + t->base, n - t->base);
        yajl_status st = yajl_parse(t->h, t->buf + t->base, upto - t->base);
        if (st == yajl_status_client_canceled && t->skip.active) {
            t->base += yajl_get_bytes_consumed(t->h);
            continue;
        }
        if (st != yajl_status_ok)
            return parse_failed(r, t, t->buf + t->base, upto - t->base);
        if (upto < n)
            return la_reader_set_error(r, "byte %llu: a JSON string longer than %u MiB",
                                       (unsigned long long)(t->offset + upto), MAX_STRING >> 20);
        break;
    }
    t->offset += n;
    return 1;
}

// ---- the report ----------------------------------------------------------------

static int describe_categories(struct la_reader *r, struct coco_state *t)
{
    struct la_notes *n = r->notes;
    cJSON *cats = cJSON_AddArrayToObject(n->json, "categories");
    cJSON *gaps = cJSON_AddArrayToObject(n->json, "gaps");
    char gtext[400] = "";
    size_t used = 0, ngaps = 0;
    for (size_t i = 0; i < t->n_cats; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddNumberToObject(c, "id", (double)t->cats[i].id);
        cJSON_AddStringToObject(c, "name", t->cats[i].name ? t->cats[i].name : "");
        cJSON_AddNumberToObject(c, "annotations", (double)t->cats[i].count);
        cJSON_AddItemToArray(cats, c);
        /* ids missing below this one; 0 is torchvision's background, no gap */
        int64_t from = i ? t->cats[i - 1].id + 1 : 1;
        for (int64_t g = from; g < t->cats[i].id && ngaps < 100000; g++, ngaps++) {
            cJSON_AddItemToArray(gaps, cJSON_CreateNumber((double)g));
            if (ngaps < NAMED_GAPS && used < sizeof gtext)
                used += (size_t)snprintf(gtext + used, sizeof gtext - used, "%s%lld",
                                         ngaps ? ", " : "", (long long)g);
        }
    }
    cJSON_AddNumberToObject(n->json, "images", (double)t->n_images);
    cJSON_AddNumberToObject(n->json, "annotations", (double)t->index);
    if (t->n_cats == 0)
        return la_notes_line(n, "  no categories");
    int64_t lo = t->cats[0].id, hi = t->cats[t->n_cats - 1].id;
    if (la_notes_line(n, "  %zu images, %llu annotations, %zu categories with ids %lld..%lld: "
                      "torchvision's num_classes (background included) is %lld",
                      t->n_images, (unsigned long long)t->index, t->n_cats, (long long)lo,
                      (long long)hi, (long long)hi + 1) != 0)
        return -1;
    if (ngaps)
        return la_notes_line(n, "  ids without a category: %s%s", gtext,
                             ngaps > NAMED_GAPS ? ", ..." : "");
    return 0;
}

static void coco_findings(struct la_reader *r)
{
    struct la_notes *n = r->notes;
    uint64_t unknown = la_notes_count(n, LA_F_UNKNOWN_CATEGORY);
    uint64_t boxes = la_notes_count(n, LA_F_DEGENERATE_BOX);
    uint64_t outside = la_notes_count(n, LA_F_BOX_OUTSIDE_IMAGE);
    if (unknown)
        la_notes_finding(n, LA_F_UNKNOWN_CATEGORY, "KeyError (pycocotools, or the dataset's own lookup)",
                         "%llu %s a category_id or image_id that the file does not list",
                         (unsigned long long)unknown, unknown == 1 ? "annotation names" : "annotations name");
    if (boxes)
        la_notes_finding(n, LA_F_DEGENERATE_BOX, PREVENTS_BOX,
                         "%llu %s with a width or height <= 0 (or no [x, y, w, h])",
                         (unsigned long long)boxes, boxes == 1 ? "box" : "boxes");
    if (outside)
        la_notes_finding(n, LA_F_BOX_OUTSIDE_IMAGE, NULL,
                         "%llu %s reaching outside the image's width and height",
                         (unsigned long long)outside, outside == 1 ? "box" : "boxes");
}

// ---- the reader ----------------------------------------------------------------

static int coco_locate(struct la_notes *n, const uint64_t *index, size_t count);
static int third_pass(struct la_reader *r, struct coco_state *t, const uint64_t *index,
                      size_t count);

/* After pass 1: each section's last value is a list, as pycocotools
 * iterates it (over an object's keys it fails: TypeError). */
static int check_sections(struct la_reader *r, struct coco_state *t)
{
    static const char *const name[] = { "", "images", "categories", "annotations" };
    if (!t->annotation_lists)
        return la_reader_set_error(r, "no \"annotations\" list: not a COCO instances file");
    for (int sec = S_IMAGES; sec <= S_ANNOTATIONS; sec++) {
        char k = t->kind[sec];
        if (k && k != '[')
            return la_reader_set_error(r, "\"%s\" is not a list but %s", name[sec],
                                       k == '{' ? "an object" : k == '"' ? "a string"
                                       : k == 'n' ? "null" : k == 't' || k == 'f' ? "a boolean"
                                       : "a number");
    }
    return 0;
}

/* The categories as the class count (the highest id + 1: torchvision's
 * detection models keep class 0 for the background and index their head by
 * category_id) and the class names, for class_count.c. Ids past
 * MAX_NAMED_CATEGORY leave the count unsaid. */
#define MAX_NAMED_CATEGORY (1 << 20)
static int keep_categories(struct la_notes *n, const struct coco_state *t)
{
    if (t->n_cats == 0 || t->cats[0].id < 0 || t->cats[t->n_cats - 1].id >= MAX_NAMED_CATEGORY)
        return 0;
    size_t count = (size_t)t->cats[t->n_cats - 1].id + 1;
    if (!(n->class_names = calloc(count, sizeof *n->class_names)))
        return -1;
    n->n_class_names = count;
    for (size_t i = 0; i < t->n_cats; i++) {
        char **name = &n->class_names[t->cats[i].id];
        if (t->cats[i].name && !*name && !(*name = strdup(t->cats[i].name)))
            return -1;
    }
    n->has_classes = 1;
    n->classes = count;
    n->classes_from = "COCO categories";
    return 0;
}

static int coco_open(struct la_reader *r)
{
    struct coco_state *t = calloc(1, sizeof *t);
    r->state = t;
    if (!t || !(t->buf = malloc(READ_LEN)) || !(t->samples = calloc(1, sizeof *t->samples)) ||
        !r->notes || !(r->notes->json = cJSON_CreateObject()))
        return la_reader_set_error(r, "out of memory");
    t->r = r;
    if (strcmp(r->path, "-") == 0)
        return la_reader_set_error(r, "--format=coco reads the file twice (annotations may come "
                                      "before images and categories): not from standard input");
    if (start_pass(r, t, 1) != 0)
        return -1;
    int rc;
    while ((rc = feed(r, t)) == 1)
        ;
    if (rc < 0 || check_sections(r, t) != 0)
        return -1;
    sort_ids(t);
    if (keep_categories(r->notes, t) != 0)
        return la_reader_set_error(r, "out of memory");
    if (start_pass(r, t, 2) != 0)
        return -1;
    r->notes->ctx = r;           /* locate() runs before close(), on this state */
    r->notes->locate = coco_locate;
    r->notes->sample_of = coco_sample_of;   /* bad_samples counts images, not annotations */
    r->notes->sample_ctx = t->samples;
    r->notes->samples_ordered = 0;          /* an image's annotations lie anywhere */
    r->info.dtype = LA_DT_INT64;
    r->info.no_ignore = 1;   /* a category id is no loss target an ignore index skips */
    r->info.ndim = 1;
    r->info.shape[0] = t->n_images;   /* samples: the images; elements: the annotations */
    r->info.shape_known = 1;
    return 0;
}

static int coco_next(struct la_reader *r, struct la_chunk *out)
{
    struct coco_state *t = r->state;
    if (la_items_take(&t->items, out))
        return 1;
    la_items_reset(&t->items, t->index);
    for (;;) {
        int rc = feed(r, t);
        if (rc < 0)
            return -1;
        if (la_items_take(&t->items, out))
            return 1;
        if (rc == 0)
            break;
    }
    if (t->eof == 1) {   /* once, at the end */
        t->eof = 2;
        coco_findings(r);
        if (describe_categories(r, t) != 0)
            return la_reader_set_error(r, "out of memory");
    }
    return 0;
}

/* A bad entry that is also a problem of the reader's (a category_id no
 * category has: unknown-category) is placed from that problem's fields.
 * @return 1 when placed, 0 when not, -1 out of memory. */
static int place_from_problem(struct la_notes *n, uint64_t index)
{
    for (size_t i = 0; i < n->n_problems; i++) {
        const struct la_note *p = &n->problems[i];
        if (p->index != index || p->code == LA_P_AT || !p->json)
            continue;
        cJSON *o = cJSON_CreateObject();
        const char *keys[] = { "sample", "id", "image_id" };
        for (size_t k = 0; o && k < 3; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(p->json, keys[k]);
            cJSON_AddItemToObject(o, keys[k], v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
        }
        const char *paren = strchr(p->where, '(');   /* "annotation 3 (id 4, image_id 99)" */
        char where[LA_NOTE_LEN];
        snprintf(where, sizeof where, "annotation %.*s", paren ? (int)strcspn(paren + 1, ")") : 0,
                 paren ? paren + 1 : "");
        return la_notes_problem(n, LA_P_AT, index, p->sample, where, "", o) == 0 ? 1 : -1;
    }
    return 0;
}

/* The scan's bad entries by id and image_id: from the problems where they
 * are among them, else a third pass, only for the rest. */
static int coco_locate(struct la_notes *n, const uint64_t *index, size_t count)
{
    struct la_reader *r = n->ctx;
    struct coco_state *t = r->state;
    uint64_t *rest = malloc(count * sizeof *rest);
    size_t n_rest = 0;
    if (!rest)
        return -1;
    for (size_t i = 0; i < count; i++) {
        int placed = place_from_problem(n, index[i]);
        if (placed < 0) {
            free(rest);
            return -1;
        }
        if (!placed)
            rest[n_rest++] = index[i];
    }
    int rc = n_rest ? third_pass(r, t, rest, n_rest) : 0;
    free(rest);
    return rc;
}

/* Pass 3: the annotations at index[0..count), ascending, get their places. */
static int third_pass(struct la_reader *r, struct coco_state *t, const uint64_t *index,
                      size_t count)
{
    t->wanted = index;
    t->count_wanted = count;
    t->n_wanted = 0;
    t->index = 0;
    if (start_pass(r, t, 3) != 0)
        return -1;
    int rc;
    while ((rc = feed(r, t)) == 1 && t->n_wanted < count)
        ;
    return rc < 0 && t->oom ? -1 : 0;   /* a file that changed since: fewer places, no failure */
}

static void coco_close(struct la_reader *r)
{
    struct coco_state *t = r->state;
    if (t) {
        if (t->h)
            yajl_free(t->h);
        if (t->src)
            la_source_close(t->src);
        for (size_t i = 0; i < t->n_cats; i++)
            free(t->cats[i].name);
        free(t->cats);
        free(t->images);
        free(t->rec.name);
        free(t->buf);
        la_items_free(&t->items);
        for (size_t k = 0; t->samples && k < SAMPLE_BLOCKS; k++)
            free(t->samples->block[k]);
        free(t->samples);
    }
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_coco = { coco_open, coco_next, coco_close };

#else /* !HAVE_YAJL: formats.c lists coco as absent */
typedef int la_coco_absent;   /* ISO C wants a translation unit to declare something */
#endif
