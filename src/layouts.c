/* layouts.c - the table of folder layouts (see layouts.h), and the looks
 * inside a folder that its rows need where names do not tell. */
#include "layouts.h"
#include "util.h"     /* la_is_directory, la_is_regular_file */

#include <dirent.h>   /* opendir, readdir */
#include <errno.h>    /* errno, ENOENT */
#include <fnmatch.h>  /* fnmatch */
#include <stdio.h>    /* snprintf, fopen */
#include <stdlib.h>   /* strtod */
#include <string.h>   /* strchr, strcmp, strcspn, strlen */
#include <strings.h>  /* strcasecmp */
#include <sys/stat.h> /* stat */

#define LOOK_FILES 8      /* label files a look inside reads the first line of */
#define LOOK_FOLDERS 32   /* class folders a look inside opens */
#define LOOK_ENTRIES 256  /* entries of one folder a look inside goes through */
#define UNCLAIMED_MAX 100000 /* files counted for la_layout_unclaimed: past it, say nothing */

/* Whether an entry of dir matches pat: "x/" a folder, "a/p" p inside the
 * folder a, "p" anything else. */
static int has_entry(const char *dir, const char *pat, size_t n)
{
    size_t slash = 0;
    char head[256], p[4096];
    while (slash < n && pat[slash] != '/')
        slash++;
    if (slash >= sizeof head)
        return 0;
    memcpy(head, pat, slash);
    head[slash] = '\0';
    DIR *dp = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (!found && dp && (e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || fnmatch(head, e->d_name, 0))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (slash >= n)
            found = !la_is_directory(p);
        else if (slash + 1 == n)
            found = la_is_directory(p);
        else
            found = la_is_directory(p) && has_entry(p, pat + slash + 1, n - slash - 1);
    }
    if (dp)
        closedir(dp);
    return found;
}

/* How many of the space-separated patterns in pats dir has an entry for. */
static int count_entries(const char *dir, const char *pats, int *total)
{
    int n = 0;
    *total = 0;
    for (const char *p = pats ? pats : ""; *p;) {
        size_t k = strcspn(p, " ");
        if (k) {
            ++*total;
            n += has_entry(dir, p, k);
        }
        p += k + (p[k] == ' ');
    }
    return n;
}

static int names_match(const struct la_layout *l, const char *dir)
{
    int all, any, none;
    if (!l->all && !l->any)
        return 0;
    return count_entries(dir, l->all, &all) == all &&
           (count_entries(dir, l->any, &any) > 0 || !any) &&
           count_entries(dir, l->none, &none) == 0;
}

// ---- looks inside, where the names do not tell ---------------------------------

/* Whether line is a YOLO label line: an integer class, then 4 numbers (a box)
 * or an even number of 6 or more (a polygon), one of them written with a
 * point, as normalised coordinates are (a 0/1 matrix of integers is not). */
static int yolo_line(char *line)
{
    int fields = 0, point = 0;
    for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n"), fields++) {
        char *end;
        if (fields == 0 && t[strspn(t, "0123456789")] != '\0')
            return 0;
        strtod(t, &end);
        if (*end)
            return 0;
        point |= fields > 0 && strchr(t, '.') != NULL;
    }
    return point && fields >= 5 && fields % 2 == 1;
}

/* The first non-blank line of path as a YOLO line: 1 yes, 0 no, -1 an empty file. */
static int yolo_file(const char *path)
{
    char line[4096];
    FILE *f = fopen(path, "r");
    int rc = -1;
    while (f && rc < 0 && fgets(line, sizeof line, f))
        if (line[strspn(line, " \t\r\n")] != '\0')
            rc = yolo_line(line);
    if (f)
        fclose(f);
    return rc;
}

/* A folder of YOLO label files alone (an Ultralytics labels/ folder, or one of
 * its splits): .txt files (and Ultralytics' .cache beside them) in it or in
 * its sub-folders, the first lines of the first of them YOLO lines. */
static int yolo_look(const char *dir, int depth, int *yes, int *looked)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    int other = 0, entries = 0;
    char p[4096];
    while (!other && dp && (e = readdir(dp)) && entries++ < LOOK_ENTRIES) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (la_is_directory(p))
            other = depth > 0 ? yolo_look(p, depth - 1, yes, looked) : 0;
        else if (n > 6 && strcmp(e->d_name + n - 6, ".cache") == 0)
            continue;
        else if (n <= 4 || strcmp(e->d_name + n - 4, ".txt") != 0)
            other = 1;
        else if (*looked < LOOK_FILES) {
            int y = yolo_file(p);
            *looked += y >= 0;
            *yes += y > 0;
            other = y == 0;
        }
    }
    if (dp)
        closedir(dp);
    return other;
}

static int yolo_labels_alone(const char *path)
{
    int yes = 0, looked = 0;
    return la_is_directory(path) && !yolo_look(path, 1, &yes, &looked) && yes > 0 && yes == looked;
}

/* torchvision's IMG_EXTENSIONS, and whether a mask reader reads the kind. */
static const struct { const char *ext; int mask; } g_images[] = {
    { ".jpg", 0 }, { ".jpeg", 0 }, { ".png", 1 }, { ".ppm", 0 }, { ".bmp", 0 },
    { ".pgm", 0 }, { ".tif", 1 }, { ".tiff", 1 }, { ".webp", 0 },
};

/* 0 not an image by its name, 1 an image a mask reader may read, 2 one no
 * mask is (JPEG, WebP, ..., or a PNG whose header says colour). */
static int image_kind(const char *dir, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof g_images / sizeof g_images[0]; i++) {
        size_t k = strlen(g_images[i].ext);
        if (n <= k || strcasecmp(name + n - k, g_images[i].ext) != 0)
            continue;
        if (!g_images[i].mask)
            return 2;
        char p[4096];
        unsigned char h[26];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        FILE *f = k == 4 && strcasecmp(g_images[i].ext, ".png") == 0 ? fopen(p, "rb") : NULL;
        size_t got = f ? fread(h, 1, sizeof h, f) : 0;
        if (f)
            fclose(f);
        /* IHDR's colour type: 2 RGB, 4 grey and alpha, 6 RGBA */
        return got == sizeof h && memcmp(h, "\x89PNG", 4) == 0 &&
               (h[25] == 2 || h[25] == 4 || h[25] == 6) ? 2 : 1;
    }
    return 0;
}

/* Split names: folders of them are a dataset's splits, not its classes. */
static int split_name(const char *name)
{
    static const char *const splits[] = { "train", "val", "valid", "validation", "test", NULL };
    for (int i = 0; splits[i]; i++)
        if (strcmp(name, splits[i]) == 0)
            return 1;
    return 0;
}

/* The images directly in dir: *kinds |= 1 for one a mask reader may read, 2 for one it cannot. */
static void images_in(const char *dir, int *kinds)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    int entries = 0;
    while (dp && (e = readdir(dp)) && entries++ < LOOK_ENTRIES)
        if (e->d_name[0] != '.') {
            int k = image_kind(dir, e->d_name);
            *kinds |= k == 2 ? 2 : k;
        }
    if (dp)
        closedir(dp);
}

/* A torchvision ImageFolder: only folders in it (hidden ones too: the bug to
 * catch; hidden files left aside), not all named as splits, and images in
 * them that no mask could be (class folders of grey PNGs stay masks, which
 * --format=imagefolder reads as classes). */
static int image_class_folders(const char *path)
{
    DIR *dp = opendir(path);
    struct dirent *e;
    int folders = 0, splits = 0, files = 0, kinds = 0;
    char p[4096];
    while (dp && (e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (!la_is_directory(p)) {
            files += e->d_name[0] != '.';
            continue;
        }
        folders++;
        splits += split_name(e->d_name);
        if (folders <= LOOK_FOLDERS)
            images_in(p, &kinds);
    }
    if (dp)
        closedir(dp);
    return folders > 0 && !files && splits < folders && (kinds & 2);
}

/* A Megatron prefix: no file of that name, PREFIX.idx and PREFIX.bin beside. */
static int megatron_prefix(const char *path)
{
    char p[4096];
    struct stat st;
    if (stat(path, &st) == 0 || errno != ENOENT)
        return 0;
    snprintf(p, sizeof p, "%s.idx", path);
    if (!la_is_regular_file(p))
        return 0;
    snprintf(p, sizeof p, "%s.bin", path);
    return la_is_regular_file(p);
}

// ---- the table -----------------------------------------------------------------

static const struct la_layout g_layouts[] = {
    /* the folders that one reader reads whole */
    { .name = "Hugging Face datasets", .shape = "dataset_info.json + state.json or .arrow shards",
      .all = "dataset_info.json", .any = "state.json *.arrow", .format = LA_FMT_HF_DATASET },
    { .name = "MosaicML streaming", .shape = "index.json + .mds shards",
      .all = "index.json *.mds*", .none = "chunk-*.bin*", .format = LA_FMT_MDS },
    { .name = "LitData", .shape = "index.json + chunk-*.bin",
      .all = "index.json chunk-*.bin*", .none = "*.mds*", .format = LA_FMT_LITDATA },
    /* images and their labels side by side: the labels' folder is audited */
    { .name = "nnU-Net", .shape = "dataset.json + imagesTr/ + labelsTr/",
      .all = "dataset.json labelsTr/", .format = LA_FMT_AUTO, .labels = "labelsTr" },
    { .name = "YOLO", .shape = "images/ + labels/, or data.yaml + labels/, or a folder of YOLO .txt files",
      .all = "labels/", .any = "images/ data.yaml data.yml", .test = yolo_labels_alone,
      .format = LA_FMT_YOLO, .labels = "labels" },
    { .name = "Pascal VOC", .shape = "JPEGImages/ + SegmentationClass/",
      .all = "JPEGImages/ SegmentationClass/", .format = LA_FMT_AUTO,
      .labels = "SegmentationClass" },
    /* torchvision.datasets.Cityscapes' target_type="semantic" */
    { .name = "Cityscapes", .shape = "leftImg8bit/ + gtFine/",
      .all = "leftImg8bit/ gtFine/", .format = LA_FMT_AUTO, .labels = "gtFine",
      .glob = "*_labelIds.png" },
    /* before ADE20K's row: a COCO root may keep images/ beside annotations/ */
    { .name = "COCO", .shape = "annotations/instances_*.json + image folders",
      .all = "annotations/instances_*.json", .format = LA_FMT_COCO, .labels = "annotations",
      .glob = "instances_*.json" },
    { .name = "ADE20K", .shape = "images/ + annotations/",
      .all = "images/ annotations/", .format = LA_FMT_AUTO, .labels = "annotations" },
    { .name = "ImageFolder", .shape = "class folders of images", .test = image_class_folders,
      .format = LA_FMT_IMAGEFOLDER },
    { .name = "Megatron", .shape = "a prefix PREFIX of PREFIX.idx + PREFIX.bin",
      .test = megatron_prefix, .format = LA_FMT_MEGATRON },
};

#define N_LAYOUTS (sizeof g_layouts / sizeof g_layouts[0])

const struct la_layout *la_layouts(size_t *n)
{
    *n = N_LAYOUTS;
    return g_layouts;
}

const struct la_layout *la_layout_of(const char *path)
{
    int dir = strcmp(path, "-") != 0 && la_is_directory(path);
    for (size_t i = 0; i < N_LAYOUTS; i++)
        if ((dir && names_match(&g_layouts[i], path)) ||
            (g_layouts[i].test && g_layouts[i].test(path)))
            return &g_layouts[i];
    return NULL;
}

char *la_layout_labels(const struct la_layout *l, const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", path, l->labels ? l->labels : "");
    if (!l->labels || !la_is_directory(buf))
        snprintf(buf, len, "%s", path);
    return buf;
}

// ---- a folder that is none of them ---------------------------------------------

struct census { unsigned long files, images, mask_images; int kinds; };

static void count_files(const char *dir, struct census *c, int depth)
{
    DIR *dp = depth < 16 ? opendir(dir) : NULL;
    struct dirent *e;
    char p[4096];
    while (dp && c->files <= UNCLAIMED_MAX && (e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (la_is_directory(p)) {
            count_files(p, c, depth + 1);
            continue;
        }
        c->files++;
        int k = image_kind(dir, e->d_name);
        c->images += k == 2;
        c->mask_images += k == 1;
    }
    if (dp)
        closedir(dp);
}

const char *la_layout_unclaimed(const char *path, char *buf, size_t len)
{
    struct census c = { 0, 0, 0, 0 };
    if (!la_is_directory(path))
        return NULL;
    count_files(path, &c, 0);
    if (!c.files || c.files > UNCLAIMED_MAX || c.images != c.files)
        return NULL;
    snprintf(buf, len, "not a label folder (looks like %lu image%s, JPEG or another kind no mask "
             "is, and no labels): --format=imagefolder reads a folder whose sub-folders are the "
             "classes; masks must be lossless (PNG or TIFF)", c.images, c.images == 1 ? "" : "s");
    return buf;
}
