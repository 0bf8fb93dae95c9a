/* pairs.c - see pairs.h. */
#include "config.h"           /* HAVE_NIFTI */
#include "pairs.h"
#include "pair_list.h"       /* la_pairs: what the report keeps */
#include "msg.h"             /* la_verbose */
#include "read/image_size.h" /* la_image_size: the header alone */
#if HAVE_NIFTI
#include "read/nifti_geometry.h" /* a NIfTI grid, from its header */
#endif
#include "read/walk.h"       /* la_walk_tree: the images below their folder */
#include "util.h"            /* la_is_directory */
#include "label_notes.h"     /* COCO's image entries */

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, qsort, bsearch */
#include <string.h>  /* strcmp, strlen */
#include <unistd.h>  /* access */

/* A folder of labels and the folder of their images, as the layouts name them. */
static const struct { const char *labels, *images; } g_folders[] = {
    { "labels", "images" },               /* YOLO */
    { "SegmentationClass", "JPEGImages" },   /* Pascal VOC */
    { "SegmentationObject", "JPEGImages" },
    { "gtFine", "leftImg8bit" },          /* Cityscapes */
    { "annotations", "images" },          /* ADE20K */
    { "labelsTr", "imagesTr" },           /* nnU-Net */
    { "labelsTs", "imagesTs" },
};

/* What a layout adds to the stem of one side, taken off to pair them. */
static const char *const g_image_suffixes[] = { "_leftImg8bit", NULL };
static const char *const g_label_suffixes[] = { "_gtFine_labelIds", "_gtFine_trainIds",
                                                "_gtFine_color", "_gtFine_instanceIds", NULL };

/* The images' folder of labels_dir: its last component a layout's labels
 * folder made that layout's images folder, where that is a folder. */
static int images_dir_of(const char *labels_dir, char *out, size_t len)
{
    for (size_t k = 0; k < sizeof g_folders / sizeof *g_folders; k++) {
        size_t n = strlen(g_folders[k].labels);
        const char *hit = NULL;
        for (const char *at = strstr(labels_dir, g_folders[k].labels); at;
             at = strstr(at + 1, g_folders[k].labels))
            if ((at == labels_dir || at[-1] == '/') && (at[n] == '/' || at[n] == '\0'))
                hit = at;
        if (!hit)
            continue;
        snprintf(out, len, "%.*s%s%s", (int)(hit - labels_dir), labels_dir, g_folders[k].images,
                 hit + n);
        if (la_is_directory(out))
            return 1;
    }
    return 0;
}

/* rel without its extension (.nii.gz as one) and a layout's suffix; an
 * image of nnU-Net's also without its channel (_0000). */
static void key_of(const char *rel, int image, int channels, char *key, size_t len)
{
    snprintf(key, len, "%s", rel);
    char *slash = strrchr(key, '/'), *dot = strrchr(slash ? slash : key, '.');
    if (dot && dot > (slash ? slash + 1 : key)) {
        *dot = '\0';
        if (strcmp(dot + 1, "gz") == 0 && (dot = strrchr(slash ? slash : key, '.')) &&
            strcmp(dot, ".nii") == 0)
            *dot = '\0';
    }
    size_t n = strlen(key);
    for (const char *const *s = image ? g_image_suffixes : g_label_suffixes; *s; s++) {
        size_t k = strlen(*s);
        if (n > k && strcmp(key + n - k, *s) == 0) {
            key[n -= k] = '\0';
            break;
        }
    }
    if (image && channels && n > 5 && key[n - 5] == '_' &&
        strspn(key + n - 4, "0123456789") == 4)
        key[n - 5] = '\0';
}

struct image {
    char *key;
    const char *path;      /* in the walk */
    int used;
};

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct image *)a)->key, ((const struct image *)b)->key);
}

static int is_nifti(const char *name)
{
    size_t len = strlen(name);
    return (len > 4 && !strcmp(name + len - 4, ".nii")) ||
           (len > 7 && !strcmp(name + len - 7, ".nii.gz"));
}

/* The images below dir, keyed and sorted (nnU-Net's channels: one key). */
static struct image *images_below(struct la_walk *w, const char *dir, int channels, size_t *n)
{
    char err[256];
    *n = 0;
    if (la_walk_tree(dir, w, err, sizeof err) != 0)
        return NULL;
    struct image *v = calloc(w->n_files ? w->n_files : 1, sizeof *v);
    size_t skip = strlen(dir) + 1;
    for (size_t i = 0; v && i < w->n_files; i++) {
        const char *rel = w->files[i] + skip;
        if (!la_image_name(rel) && !is_nifti(rel))
            continue;
        char key[4096];
        key_of(rel, 1, channels, key, sizeof key);
        if (!(v[*n].key = strdup(key)))
            break;
        v[(*n)++].path = w->files[i];
    }
    if (v)
        qsort(v, *n, sizeof *v, by_key);
    return v;
}

/* One label source against its image: the sizes, where both are known. */
static void check_size(struct la_pairs *p, const struct la_source_info *src, struct image *img)
{
    struct la_image_size sz;
    char err[256];
    if (src->ndim < 2 || !la_image_name(img->path))
        return;                 /* a YOLO file, a NIfTI volume: no size to hold to it */
    int rc = la_image_size(img->path, &sz, err, sizeof err);
    p->header_bytes += sz.bytes_read;
    if (rc == -2)
        return;                 /* this build reads no such header: said by --version */
    if (rc != 0) {
        p->unreadable++;
        la_pairs_note(p, LA_PAIR_UNREADABLE, src->path, img->path, 0, 0, 0, 0, err);
        return;
    }
    uint64_t h = src->inner[0], w = src->inner[1];
    if (h == sz.height && w == sz.width)
        return;
    p->size_mismatch++;
    la_pairs_note(p, LA_PAIR_SIZE, src->path, img->path, w, h, sz.width, sz.height, NULL);
}

/* A NIfTI label against one of its images (each channel of nnU-Net's):
 * their grids, as nnU-Net's check_cases compares them. A label is counted
 * once, by the worst of its channels; each channel off its grid is listed. */
static void check_geometry(struct la_pairs *p, const struct la_source_info *src,
                           struct image *img, int *counted)
{
#if HAVE_NIFTI
    if (!is_nifti(src->path) || !is_nifti(img->path))
        return;
    struct la_nifti_geometry label, image;
    char err[256], why[256];
    if (la_nifti_geometry(img->path, &image, err, sizeof err) != 0) {
        p->unreadable++;
        la_pairs_note(p, LA_PAIR_UNREADABLE, src->path, img->path, 0, 0, 0, 0, err);
        return;
    }
    if (la_nifti_geometry(src->path, &label, err, sizeof err) != 0)
        return;                 /* the label's own read said why */
    int level = la_nifti_differs(&label, &image, why, sizeof why);
    if (!level)
        return;
    if (*counted < 1)
        p->geometry_mismatch++;
    if (level == 2 && *counted < 2)
        p->geometry_refused++;
    if (level > *counted)
        *counted = level;
    size_t kept = p->n_bad;
    la_pairs_note(p, LA_PAIR_GEOMETRY, src->path, img->path, 0, 0, 0, 0, why);
    if (p->n_bad > kept)
        p->bad[kept].refused = level == 2;
#else
    (void)p, (void)src, (void)img, (void)counted;
#endif
}

/* The findings of p: each names its count and where; the text, the JSON
 * and the CI outputs list the bad pairs themselves (pair_list.h). */
static void add_findings(struct la_file_report *r, const struct la_pairs *p)
{
    if (p->size_mismatch && p->coco) {
        struct la_finding *f = la_report_add_finding(
            r, LA_F_SIZE_MISMATCH, "%llu %s not the width x height %s COCO entry states",
            (unsigned long long)p->size_mismatch, p->size_mismatch == 1 ? "image is" : "images are",
            p->size_mismatch == 1 ? "its" : "their");
        if (f) {
            f->prevents = "detectron2: SizeMismatchError: Mismatched image shape, got (w, h), "
                          "expect (W, H). Please check the width/height in your annotation.";
            snprintf(f->hint, sizeof f->hint, "write each image's true width and height into "
                     "its entry (PIL: Image.open(p).size), or re-export the image");
        }
    } else if (p->size_mismatch)
        la_report_add_finding(r, LA_F_SIZE_MISMATCH, "%llu %s of another size than %s image",
                              (unsigned long long)p->size_mismatch,
                              p->size_mismatch == 1 ? "mask is" : "masks are",
                              p->size_mismatch == 1 ? "its" : "their");
    if (p->geometry_mismatch) {
        uint64_t n = p->geometry_mismatch, refused = p->geometry_refused;
        struct la_finding *f = la_report_add_finding(
            r, LA_F_GEOMETRY_MISMATCH, "%llu NIfTI %s off %s image's grid: %llu in shape or "
            "spacing (nnU-Net refuses the dataset), %llu in origin or direction only "
            "(nnU-Net warns)", (unsigned long long)n, n == 1 ? "label is" : "labels are",
            n == 1 ? "its" : "their", (unsigned long long)refused,
            (unsigned long long)(n - refused));
        if (f && !refused)
            f->severity = LA_SEV_WARNING;
    }
    uint64_t lone = p->segmentation ? p->unlabeled : 0;
    char labels[128] = "", images[128] = "";
    if (p->orphans)
        snprintf(labels, sizeof labels, "%llu %s no image", (unsigned long long)p->orphans,
                 p->orphans == 1 ? "label has" : "labels have");
    if (lone)
        snprintf(images, sizeof images, "%llu %s no mask", (unsigned long long)lone,
                 lone == 1 ? "image has" : "images have");
    if (p->orphans && p->coco)
        snprintf(labels, sizeof labels, "%llu COCO image %s no file",
                 (unsigned long long)p->orphans, p->orphans == 1 ? "entry has" : "entries have");
    if (p->orphans || lone)
        la_report_add_finding(r, LA_F_MISSING_PAIR, "%s%s%s in %s%s", labels,
                              labels[0] && images[0] ? " and " : "", images, p->images_dir,
                              p->orphans ? ": a label without its image never trains" : "");
    if (!p->segmentation && p->unlabeled)
        la_report_add_finding(r, LA_F_UNLABELED_IMAGES, "%llu of %llu images in %s %s no label "
                              "file: Ultralytics trains %s as background images",
                              (unsigned long long)p->unlabeled, (unsigned long long)p->images,
                              p->images_dir, p->unlabeled == 1 ? "has" : "have",
                              p->unlabeled == 1 ? "it" : "them");
    if (p->unreadable)
        la_report_add_finding(r, LA_F_UNLOADABLE_IMAGE, "%llu %s header cannot be read",
                              (unsigned long long)p->unreadable,
                              p->unreadable == 1 ? "image's" : "images'");
}

/* Pair each source of r with its image among v; the rest of v is unlabeled. */
static void pair_sources(struct la_file_report *r, const char *labels_dir, struct image *v,
                         size_t n, struct la_pairs *p)
{
    const struct la_dataset *d = la_report_sources(r);
    size_t skip = strlen(labels_dir);
    for (size_t i = 0; i < d->n_src; i++) {
        const struct la_source_info *src = &d->src[i];
        const char *rel = strncmp(src->path, labels_dir, skip) == 0 && src->path[skip] == '/'
                          ? src->path + skip + 1 : src->path;
        char key[4096];
        key_of(rel, 0, 0, key, sizeof key);
        struct image want = { .key = key }, *img = bsearch(&want, v, n, sizeof *v, by_key);
        if (!img) {
            p->orphans++;
            la_pairs_note(p, LA_PAIR_NO_IMAGE, src->path, NULL, 0, 0, 0, 0, NULL);
            continue;
        }
        while (img > v && strcmp(img[-1].key, key) == 0)
            img--;              /* nnU-Net's channels: each is this label's */
        int off_grid = 0;
        for (; img < v + n && strcmp(img->key, key) == 0; img++) {
            if (!img->used && p->segmentation) {
                check_size(p, src, img);
                check_geometry(p, src, img, &off_grid);
            }
            img->used = 1;
        }
        p->paired++;
    }
    for (size_t k = 0; k < n; k++)
        if (!v[k].used) {
            p->unlabeled++;
            if (p->segmentation)
                la_pairs_note(p, LA_PAIR_NO_LABEL, NULL, v[k].path, 0, 0, 0, 0, NULL);
        }
}

// ---- COCO: each image entry against its file -------------------------------------------

/* Whether one of the first entries' files lies in dir: a folder that holds
 * none of them is not where the JSON's images are (the JSON audited alone). */
static int holds_entries(const char *dir, const struct la_notes *n)
{
    for (size_t i = 0; i < n->n_image_entries && i < 16; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, n->image_entries[i].file);
        if (access(path, F_OK) == 0)
            return 1;
    }
    return 0;
}

/* The folder path is in ("." for none), and its last component. */
static void folder_of(const char *path, char *out, size_t len, const char **last)
{
    snprintf(out, len, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(out, len, ".");
    slash = strrchr(out, '/');
    *last = slash ? slash + 1 : out;
}

/* The images of a COCO JSON: --images, else where the layout keeps them:
 * ROOT/annotations/instances_val2017.json's ROOT/val2017 (or
 * ROOT/images/val2017, ROOT/images), else the JSON's own folder; a folder
 * only where it holds some of the entries' files. */
static int coco_images_dir(const struct la_report_ctx *ctx, const char *json,
                           const struct la_notes *n, char *out, size_t len)
{
    if (ctx->cfg->images)
        return snprintf(out, len, "%s", ctx->cfg->images), 1;
    char dir[4096], root[4096], split[256] = "";
    const char *last, *up;
    folder_of(json, dir, sizeof dir, &last);
    const char *base = strrchr(json, '/') ? strrchr(json, '/') + 1 : json;
    const char *under = strrchr(base, '_');    /* instances_val2017.json: val2017 */
    if (under && strlen(under + 1) < sizeof split) {
        snprintf(split, sizeof split, "%s", under + 1);
        char *dot = strrchr(split, '.');
        if (dot)
            *dot = '\0';
    }
    if (strcmp(last, "annotations") == 0) {
        folder_of(dir, root, sizeof root, &up);
        char candidates[3][8192];
        snprintf(candidates[0], sizeof candidates[0], "%s/%s", root, split);
        snprintf(candidates[1], sizeof candidates[1], "%s/images/%s", root, split);
        snprintf(candidates[2], sizeof candidates[2], "%s/images", root);
        for (int k = split[0] ? 0 : 2; k < 3; k++)
            if (la_is_directory(candidates[k]) && holds_entries(candidates[k], n))
                return snprintf(out, len, "%s", candidates[k]), 1;
    }
    snprintf(out, len, "%s", dir);
    return holds_entries(out, n);
}

/* detectron2's check_image_size: an entry stating a width or a height is
 * held to its file's (PIL's size: no EXIF rotation); a missing file is a
 * missing pair (the loader's FileNotFoundError). */
static void check_coco_entries(const struct la_notes *n, const char *json, const char *dir,
                               struct la_pairs *p)
{
    for (size_t i = 0; i < n->n_image_entries; i++) {
        const struct la_image_entry *e = &n->image_entries[i];
        char path[8192], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->file);
        p->images++;
        if (access(path, F_OK) != 0) {
            p->orphans++;
            la_pairs_note(p, LA_PAIR_NO_IMAGE, json, path, 0, 0, 0, 0, NULL);
            continue;
        }
        p->paired++;
        struct la_image_size sz;
        int rc = la_image_size(path, &sz, err, sizeof err);
        p->header_bytes += sz.bytes_read;
        if (rc == -2)
            continue;
        if (rc != 0) {
            p->unreadable++;
            la_pairs_note(p, LA_PAIR_UNREADABLE, json, path, 0, 0, 0, 0, err);
            continue;
        }
        if ((e->width <= 0 && e->height <= 0) ||
            (e->width == (double)sz.width && e->height == (double)sz.height))
            continue;
        p->size_mismatch++;
        la_pairs_note(p, LA_PAIR_SIZE, json, path, e->width > 0 ? (uint64_t)e->width : 0,
                      e->height > 0 ? (uint64_t)e->height : 0, sz.width, sz.height, NULL);
    }
}

/* An empty account of pairs with the images in dir, or NULL out of memory. */
static struct la_pairs *new_pairs(const struct la_report_ctx *ctx, const char *dir)
{
    struct la_pairs *p = calloc(1, sizeof *p);
    if (!p || !(p->images_dir = strdup(dir))) {
        free(p);
        return NULL;
    }
    p->cap = ctx->max_report;
    return p;
}

static void pair_coco(const struct la_report_ctx *ctx, struct la_file_report *r)
{
    char dir[4096];
    if (!coco_images_dir(ctx, r->path, r->notes, dir, sizeof dir))
        return;
    struct la_pairs *p = new_pairs(ctx, dir);
    if (!p)
        return;
    p->coco = 1;
    check_coco_entries(r->notes, r->path, dir, p);
    la_verbose(r->path, "its %llu image entries held to the files in %s, %llu bytes of "
               "headers read", (unsigned long long)p->images, dir,
               (unsigned long long)p->header_bytes);
    r->pairs = p;
    add_findings(r, p);
}

void la_pair_images(const struct la_report_ctx *ctx, const char *labels_dir,
                    struct la_file_report *r)
{
    char dir[4096];
    const char *given = ctx->cfg->images;
    if (r->read_ok && !r->pairs && r->notes && r->notes->n_image_entries) {
        pair_coco(ctx, r);
        return;
    }
    const struct la_dataset *d = la_report_sources(r);
    if (!r->read_ok || !d || !d->n_src || !labels_dir)
        return;
    if (given)
        snprintf(dir, sizeof dir, "%s", given);
    else if (!images_dir_of(labels_dir, dir, sizeof dir))
        return;
    struct la_pairs *p = new_pairs(ctx, dir);
    if (!p)
        return;
    p->segmentation = r->info.format != LA_FMT_YOLO;
    int channels = strstr(dir, "imagesT") != NULL;   /* nnU-Net's _0000 */
    struct la_walk w = { 0 };
    size_t n;
    struct image *v = images_below(&w, dir, channels, &n);
    p->images = n;
    if (v)
        pair_sources(r, labels_dir, v, n, p);
    la_verbose(r->path, "paired with the images in %s: %llu of %llu images, %llu bytes of "
               "headers read", dir, (unsigned long long)p->paired, (unsigned long long)n,
               (unsigned long long)p->header_bytes);
    for (size_t k = 0; v && k < n; k++)
        free(v[k].key);
    free(v);
    la_walk_free(&w);
    r->pairs = p;
    add_findings(r, p);
}
