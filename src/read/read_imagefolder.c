/* read_imagefolder.c - --format=imagefolder: torchvision's ImageFolder.
 *
 * The labels are the folders, exactly as torchvision.datasets.ImageFolder
 * makes them (torchvision/datasets/folder.py):
 *   find_classes: sorted(entry.name for entry in os.scandir(root) if entry.is_dir())
 *     - every immediate sub-folder, links to folders and hidden ones included
 *       (a stray .ipynb_checkpoints becomes class 0 and shifts every label);
 *   make_dataset: for each class, in that order, for root, _, fnames in
 *     sorted(os.walk(class_dir, followlinks=True)), for fname in sorted(fnames):
 *     the file is a sample when path.lower().endswith(IMG_EXTENSIONS);
 *     a class with no such file raises FileNotFoundError ("Found no valid
 *     file for the classes ...").
 * Each image is one sample whose label is its class index; the values go to
 * the scan in torchvision's sample order (one run per class). Files that are
 * not images are skipped, as torchvision skips them, but named in the report;
 * so are files lying in the root itself, outside any class.
 *
 * os.walk lists as a file every entry that is not a folder (links followed):
 * a dangling link, a FIFO, a socket. torchvision counts those named like
 * images as samples, and its loader (open(path, "rb")) fails on them only
 * when the epoch reaches them: FileNotFoundError, or a FIFO's open() that
 * waits for a writer and hangs the epoch; a file without read permission
 * raises PermissionError. Each is counted as torchvision counts it and named
 * as an unloadable-image error. */
#include "label_notes.h"
#include "reader.h"
#include "walk.h"

#include <ctype.h>    /* tolower */
#include <dirent.h>   /* opendir */
#include <errno.h>    /* errno */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* calloc */
#include <string.h>   /* strlen, strerror */
#include <sys/stat.h> /* stat */
#include <unistd.h>   /* access, geteuid */

#define RUN_LEN 65536                /* values per chunk */
#define NAMED_TEXT 10                /* files named in the text report per kind */
#define NAMED_CLASSES 30             /* classes shown in the text report's class_to_idx */

/* torchvision.datasets.folder.IMG_EXTENSIONS */
static const char *const img_extensions[] = {
    ".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp",
};
#define EXTENSIONS_TEXT ".jpg, .jpeg, .png, .ppm, .bmp, .pgm, .tif, .tiff, .webp"

struct folder_state {
    char **classes;
    long n_classes;
    uint64_t *samples;       /* per class */
    long cls;                /* the class whose run next() hands out */
    uint64_t left, index;    /* of that run; the next element index */
    int64_t run[RUN_LEN];
    uint64_t not_images;     /* files skipped for their extension */
    cJSON *not_images_json;
    uint64_t images;         /* samples counted so far: the next one's index */
    uint64_t unloadable;     /* samples torchvision's loader cannot open */
};

/* has_file_allowed_extension: path.lower().endswith(extensions); ASCII
 * lowering, since no other character lowers to the letters of these. */
static int is_image(const char *path)
{
    size_t n = strlen(path);
    for (size_t e = 0; e < sizeof img_extensions / sizeof *img_extensions; e++) {
        size_t k = strlen(img_extensions[e]), i = 0;
        while (k <= n && i < k && tolower((unsigned char)path[n - k + i]) == img_extensions[e][i])
            i++;
        if (k <= n && i == k)
            return 1;
    }
    return 0;
}

static int name_file(struct la_reader *r, struct folder_state *t, const char *why, uint64_t nth,
                     const char *path)
{
    if (t->not_images_json && (size_t)cJSON_GetArraySize(t->not_images_json) < r->notes->cap)
        cJSON_AddItemToArray(t->not_images_json, cJSON_CreateString(path));
    if (nth < NAMED_TEXT)
        return la_notes_line(r->notes, "  %s, skipped: %s", why, path);
    return 0;
}

/* What a file type makes of the loader's open(), or NULL for a regular file. */
static const char *type_problem(mode_t type)
{
    if (S_ISFIFO(type))
        return "a FIFO: the loader's open() waits for a writer, and the epoch hangs";
    if (S_ISSOCK(type))
        return "a socket (OSError: No such device or address)";
    if (S_ISCHR(type) || S_ISBLK(type))
        return "a device, not an image file";
    return S_ISREG(type) ? NULL : "not a regular file";
}

/* Why torchvision's loader cannot open the sample at path, or NULL when it
 * can (its contents are no label's business). readdir's d_type answers for
 * all but links (and file systems that leave it out), which need a stat();
 * a regular file's permission is asked of the kernel (access) only when not
 * root, for whom every file is readable. */
static const char *unloadable(const char *path, unsigned char d_type, char *buf, size_t len)
{
    struct stat st;
    if (d_type != DT_LNK && d_type != DT_UNKNOWN)
        st.st_mode = DTTOIF(d_type);
    else if (stat(path, &st) != 0) {   /* Python names the errno as open() would raise it */
        int e = errno;
        const char *raised = e == ENOENT ? "FileNotFoundError"
                           : e == EACCES || e == EPERM ? "PermissionError" : "OSError";
        struct stat lst;
        int dangling = e == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
        snprintf(buf, len, "%s (%s)", dangling ? "a dangling symbolic link" : strerror(e), raised);
        return buf;
    }
    const char *why = type_problem(st.st_mode);
    if (why)
        return why;
    if (geteuid() != 0 && access(path, R_OK) != 0) {
        snprintf(buf, len, "%s (PermissionError)", strerror(errno));
        return buf;
    }
    return NULL;
}

/* A sample the loader cannot open: counted (torchvision counts it), named. */
static int note_unloadable(struct la_reader *r, struct folder_state *t, const char *path,
                           const char *why)
{
    t->unloadable++;
    char where[LA_NOTE_LEN];
    snprintf(where, sizeof where, "%s", path);
    la_one_line(where);
    return la_notes_problem(r->notes, LA_F_UNLOADABLE_IMAGE, t->images, t->images, where, why, NULL);
}

/* One class folder: count its images, name the rest. @return 0, or -1 with r->err. */
static int count_class(struct la_reader *r, struct folder_state *t, long c)
{
    char *dir = la_path_join(r->path, t->classes[c]);
    struct la_walk w;
    if (!dir)
        return la_reader_set_error(r, "out of memory");
    int rc = la_walk_tree(dir, &w, r->err, sizeof r->err);
    free(dir);
    if (rc != 0)
        return -1;
    for (size_t i = 0; rc == 0 && i < w.n_files; i++) {
        char buf[LA_NOTE_LEN];
        const char *why;
        if (!is_image(w.files[i])) {
            rc = name_file(r, t, "not an image (torchvision's IMG_EXTENSIONS)", t->not_images++,
                           w.files[i]);
            continue;
        }
        if ((why = unloadable(w.files[i], w.types[i], buf, sizeof buf)) != NULL)
            rc = note_unloadable(r, t, w.files[i], why);
        t->samples[c]++;
        t->images++;
    }
    for (size_t i = 0; rc == 0 && i < w.n_problems; i++)
        rc = la_notes_line(r->notes, "  not walked: %s", w.problems[i]);
    la_walk_free(&w);
    return rc == 0 ? 0 : la_reader_set_error(r, "out of memory");
}

/* Files in the root itself belong to no class: torchvision never looks at them. */
static int root_files(struct la_reader *r)
{
    DIR *d = opendir(r->path);
    struct dirent *e;
    uint64_t n = 0;
    int rc = 0;
    while (rc == 0 && d && (e = readdir(d)) != NULL) {
        char *full = la_path_join(r->path, e->d_name);
        struct stat st;
        if (!full)
            rc = -1;
        else if (stat(full, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = n++ < NAMED_TEXT ? la_notes_line(r->notes, "  not in a class folder, ignored: %s",
                                                 full) : 0;
        free(full);
    }
    if (d)
        closedir(d);
    if (rc == 0 && n > NAMED_TEXT)
        rc = la_notes_line(r->notes, "  ... and %llu more files not in a class folder",
                           (unsigned long long)(n - NAMED_TEXT));
    cJSON_AddNumberToObject(r->notes->json, "files_outside_classes", (double)n);
    return rc;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* class_to_idx and the samples per class, for both reports. */
static int describe(struct la_reader *r, struct folder_state *t)
{
    struct la_notes *n = r->notes;
    cJSON *map = cJSON_AddObjectToObject(n->json, "class_to_idx");
    cJSON *counts = cJSON_AddArrayToObject(n->json, "samples_per_class");
    char line[1024];
    size_t used = 0;
    line[0] = '\0';
    for (long c = 0; c < t->n_classes; c++) {
        cJSON_AddNumberToObject(map, t->classes[c], (double)c);
        cJSON_AddItemToArray(counts, cJSON_CreateNumber((double)t->samples[c]));
        if (c < NAMED_CLASSES && used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s'%s': %ld (%llu)",
                                     c ? ", " : "", t->classes[c], c,
                                     (unsigned long long)t->samples[c]);
    }
    cJSON_AddNumberToObject(n->json, "not_images", (double)t->not_images);
    return la_notes_line(n, "  class_to_idx (samples): {%s%s}", line,
                         t->n_classes > NAMED_CLASSES ? ", ..." : "");
}

/* hidden-class-folder and empty-class-folder. */
static void folder_findings(struct la_reader *r, struct folder_state *t)
{
    char hidden[400] = "", empty[400] = "";
    size_t nh = 0, ne = 0, uh = 0, ue = 0;
    for (long c = 0; c < t->n_classes; c++) {
        if (t->classes[c][0] == '.' && uh < sizeof hidden)
            uh += (size_t)snprintf(hidden + uh, sizeof hidden - uh, "%s'%s' (class %ld)",
                                   nh++ ? ", " : "", t->classes[c], c);
        if (t->samples[c] == 0 && ue < sizeof empty)
            ue += (size_t)snprintf(empty + ue, sizeof empty - ue, "%s%s", ne++ ? ", " : "",
                                   t->classes[c]);
    }
    if (nh)
        snprintf(la_notes_finding(r->notes, LA_F_HIDDEN_CLASS_FOLDER, NULL,
                                  "hidden %s %s: torchvision makes %s, and every class after "
                                  "it shifts", plural(nh, "folder", "folders"), hidden,
                                  plural(nh, "it a class", "each a class"))->hint,
                 sizeof ((struct la_finding *)0)->hint, "delete it or move it out of the dataset root");
    if (ne)
        la_notes_finding(r->notes, LA_F_EMPTY_CLASS_FOLDER,
                         "FileNotFoundError: Found no valid file for the classes ...",
                         "no image in the class %s %s (supported extensions are: %s)",
                         plural(ne, "folder", "folders"), empty, EXTENSIONS_TEXT);
}


/* The class folders' names, as the class names of the report (the notes
 * outlive the reader). */
static int keep_class_names(struct la_notes *n, char *const *classes, long count)
{
    if (count <= 0)
        return 0;
    if (!(n->class_names = calloc((size_t)count, sizeof *n->class_names)))
        return -1;
    n->n_class_names = (size_t)count;
    for (long c = 0; c < count; c++)
        if (!(n->class_names[c] = strdup(classes[c])))
            return -1;
    return 0;
}

static int folder_open(struct la_reader *r)
{
    struct folder_state *t = calloc(1, sizeof *t);
    r->state = t;
    if (!t || !r->notes || !(r->notes->json = cJSON_CreateObject()))
        return la_reader_set_error(r, "out of memory");
    t->n_classes = la_walk_subdirs(r->path, &t->classes, r->err, sizeof r->err);
    if (t->n_classes < 0)
        return -1;
    t->samples = calloc((size_t)t->n_classes + 1, sizeof *t->samples);
    t->not_images_json = cJSON_AddArrayToObject(r->notes->json, "not_images_named");
    if (!t->samples)
        return la_reader_set_error(r, "out of memory");
    uint64_t total = 0;
    for (long c = 0; c < t->n_classes; c++) {
        if (count_class(r, t, c) != 0)
            return -1;
        total += t->samples[c];
    }
    if (t->not_images > NAMED_TEXT &&
        la_notes_line(r->notes, "  ... and %llu more files that are not images",
                      (unsigned long long)(t->not_images - NAMED_TEXT)) != 0)
        return la_reader_set_error(r, "out of memory");
    if (root_files(r) != 0 || describe(r, t) != 0)
        return la_reader_set_error(r, "out of memory");
    if (t->n_classes == 0 && la_notes_line(r->notes, "  no class folder (torchvision: "
                                           "\"Couldn't find any class folder\")") != 0)
        return la_reader_set_error(r, "out of memory");
    folder_findings(r, t);
    if (t->unloadable)
        snprintf(la_notes_finding(r->notes, LA_F_UNLOADABLE_IMAGE,
                                  "FileNotFoundError or PermissionError in the DataLoader, "
                                  "when the epoch reaches it (a FIFO: the epoch hangs)",
                                  "%llu %s that torchvision counts as %s but its loader cannot "
                                  "open", (unsigned long long)t->unloadable,
                                  plural(t->unloadable, "image file", "image files"),
                                  plural(t->unloadable, "a sample", "samples"))->hint,
                 sizeof ((struct la_finding *)0)->hint,
                 "remove them or repair the links (the JSON's problems list their paths)");
    r->notes->has_classes = 1;
    r->notes->classes = (uint64_t)t->n_classes;
    r->notes->classes_from = LA_CLASSES_FROM_FOLDERS;
    if (keep_class_names(r->notes, t->classes, t->n_classes) != 0)
        return la_reader_set_error(r, "out of memory");
    t->cls = -1;
    r->info.dtype = LA_DT_INT64;
    r->info.ndim = 1;
    r->info.shape[0] = total;
    r->info.shape_known = 1;
    return 0;
}

static int folder_next(struct la_reader *r, struct la_chunk *out)
{
    struct folder_state *t = r->state;
    while (t->left == 0) {
        if (++t->cls >= t->n_classes)
            return 0;
        t->left = t->samples[t->cls];
    }
    size_t n = t->left < RUN_LEN ? (size_t)t->left : RUN_LEN;
    for (size_t i = 0; i < n; i++)
        t->run[i] = t->cls;
    *out = (struct la_chunk){ .dtype = LA_DT_INT64, .values = t->run, .count = n,
                              .first_index = t->index };
    t->index += n;
    t->left -= n;
    return 1;
}

static void folder_close(struct la_reader *r)
{
    struct folder_state *t = r->state;
    if (t) {
        la_walk_free_names(t->classes, t->n_classes);
        free(t->samples);
    }
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_imagefolder = { folder_open, folder_next, folder_close };
