/* class_count.c - see class_count.h. */
#include "class_count.h"

#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* calloc, free */
#include <string.h>   /* strcmp, strrchr */
#include <sys/stat.h> /* stat */

#include "file_report.h"     /* la_file_report: r->classes */
#include "formats.h"         /* la_format_by_name */
#include "label_notes.h"
#include "msg.h"             /* la_verbose */
#include "options.h"
#include "context.h"
#include "read/class_meta.h"
#include "read/walk.h"       /* la_path_join */
#include "util.h"     /* la_is_directory, la_is_regular_file */

#define FOLDERS_FROM LA_CLASSES_FROM_FOLDERS
#define COCO_FROM "COCO categories"      /* read_coco.c's classes_from */
#define PARENTS 2               /* data.yaml and dataset.json: the folder and 2 above it */


int la_class_count_folders(const struct la_notes *n)
{
    return !n->classes_from || strcmp(n->classes_from, FOLDERS_FROM) == 0;
}

struct la_class_source *la_class_count_add_source(struct la_class_count *cc, int rank,
                                                  uint64_t n, const char *path,
                                                  const char *kind, const char *what)
{
    if (cc->n_src >= LA_CLASS_SOURCES)
        return NULL;
    struct la_class_source *s = &cc->src[cc->n_src++];
    *s = (struct la_class_source){ .n = n, .rank = rank };
    snprintf(s->from, sizeof s->from, "%s%s", kind, what);
    snprintf(s->path, sizeof s->path, "%s", path ? path : "");
    return s;
}

static void add_problem(struct la_class_count *cc, const char *path, const char *problem)
{
    if (!problem[0] || cc->n_problems >= 2)
        return;
    const char *base = strrchr(path, '/');
    snprintf(cc->problems[cc->n_problems++], sizeof cc->problems[0], "%.200s: %.300s",
             base ? base + 1 : path, problem);
}

// ---- which number of the model: its head's or its embedding's ----------------------

/* Whether the labels are token ids: --vocab-size, a column of them, a token
 * format (the report's: --format, or its folder's layout). */
static int labels_are_token_ids(const struct la_config *cfg, enum la_format format)
{
    static const char *const columns[] = { "input_ids", "token_ids", "tokens" };
    static const char *const formats[] = { "megatron", "mds", "litdata" };
    if (cfg->has_vocab_size)
        return 1;
    for (size_t i = 0; cfg->read.column && i < sizeof columns / sizeof *columns; i++)
        if (strcmp(cfg->read.column, columns[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        enum la_format f = la_format_by_name(formats[i]);
        if (f != LA_FMT_NONE && format == f)
            return 1;
    }
    return 0;
}

static void add_model(struct la_class_count *cc, const struct la_config *cfg,
                      enum la_format format)
{
    const struct la_model *m = cfg->model_info;
    if (!m)
        return;
    cc->model = m;
    cc->vocab = !m->is_head || labels_are_token_ids(cfg, format);
    if (!cc->vocab) {
        la_class_count_add_source(cc, 1, m->head.n, m->head.path, "model config.json ",
                                  m->head.key);
        add_problem(cc, m->head.path, m->head.problem);
    } else if (m->has_vocab_size) {
        la_class_count_add_source(cc, 1, m->vocab_size, m->head.path, "model config.json ",
                   m->vocab_key ? m->vocab_key : "vocab_size");
    } else if (m->has_tokenizer) {
        la_class_count_add_source(cc, 1, m->tokenizer_vocab, m->tokenizer_path, "model ",
                   "tokenizer.json vocabulary");
    }
}

// ---- metadata beside the data ---------------------------------------------------------

/* The folder above dir, as text ("a/b" -> "a", "b" -> ".", "." -> ".."). */
static char *parent_of(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    const char *slash = memrchr(dir, '/', n);
    if (!slash) {
        if (n == 1 && dir[0] == '.')
            return strdup("..");
        if (n >= 2 && dir[n - 1] == '.' && dir[n - 2] == '.' && (n == 2 || dir[n - 3] == '/'))
            return la_path_join(dir, "..");
        return strdup(".");
    }
    if (n >= 2 && dir[n - 1] == '.' && dir[n - 2] == '.' && dir[n - 3] == '/')
        return la_path_join(dir, "..");
    return slash == dir ? strdup("/") : strndup(dir, (size_t)(slash - dir));
}

/* name in path's folder or the PARENTS above it, where also holds (when not
 * NULL) a folder of that name. @return the file's path, malloc'd, or NULL. */
static char *find_beside(const char *path, const char *const *names, const char *also)
{
    char *dir = la_is_directory(path) ? strdup(path) : parent_of(path);
    for (int up = 0; dir && up <= PARENTS; up++) {
        for (size_t i = 0; names[i]; i++) {
            char *f = la_path_join(dir, names[i]);
            char *d = also ? la_path_join(dir, also) : NULL;
            int found = f && la_is_regular_file(f) && (!also || (d && la_is_directory(d)));
            free(d);
            if (found) {
                free(dir);
                return f;
            }
            free(f);
        }
        char *up_dir = parent_of(dir);
        free(dir);
        dir = up_dir;
    }
    free(dir);
    return NULL;
}

/* Read the metadata file at file with read(); @return 0, or -1 with err. */
static int add_meta(struct la_class_count *cc, const char *file, int given,
                    int (*read)(const char *, struct la_class_meta *, char *, size_t),
                    const char *kind, char *err, size_t errlen)
{
    struct la_class_meta *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = read(file, m, err, errlen);
    if (rc == -2 && !given) {      /* a build without its library: said with -v */
        snprintf(cc->note, sizeof cc->note, "%s", err);
        err[0] = '\0';
        free(m);
        return 0;
    }
    if (rc != 0) {
        free(m);
        return -1;
    }
    cc->meta = m;
    la_class_count_add_source(cc, 2, m->n, m->path, kind, m->key);
    add_problem(cc, m->path, m->problem);
    return 0;
}

/* Whether path is an nnU-Net raw dataset's labels: its labelsTr or labelsTs
 * folder, a file in one, or the dataset's folder (holding labelsTr). Any
 * other file leaves a dataset.json above it alone. */
static int in_nnunet_labels(const char *path)
{
    char *dir = la_is_directory(path) ? strdup(path) : parent_of(path);
    char *labels = dir ? la_path_join(dir, "labelsTr") : NULL;
    int yes = labels && la_is_directory(labels);
    if (dir && !yes) {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = '\0';
        const char *base = strrchr(dir, '/');
        base = base ? base + 1 : dir;
        yes = strcmp(base, "labelsTr") == 0 || strcmp(base, "labelsTs") == 0;
    }
    free(labels);
    free(dir);
    return yes;
}

static int add_metadata(struct la_class_count *cc, const struct la_config *cfg,
                        enum la_format format, const char *path, char *err, size_t errlen)
{
    static const char *const yaml_names[] = { "data.yaml", "data.yml", NULL };
    static const char *const nnunet_names[] = { "dataset.json", NULL };
    if (cfg->data_yaml)
        return add_meta(cc, cfg->data_yaml, 1, la_data_yaml_read, "data.yaml ", err, errlen);
    char *found = NULL;
    int rc = 0;
    if (strcmp(path, "-") == 0)
        return 0;       /* standard input lies beside nothing */
    if (format == la_format_by_name("yolo") && (found = find_beside(path, yaml_names, NULL)))
        rc = add_meta(cc, found, 0, la_data_yaml_read, "data.yaml ", err, errlen);
    else if (in_nnunet_labels(path) && (found = find_beside(path, nnunet_names, "labelsTr")))
        rc = add_meta(cc, found, 0, la_nnunet_read, "nnU-Net dataset.json ", err, errlen);
    free(found);
    return rc;
}

// ---- resolution --------------------------------------------------------------------

/* The first source of the best rank (they are added in rank order but for
 * the reader's, which comes last with rank 2). */
static int choose(const struct la_class_count *cc)
{
    int best = -1;
    for (size_t i = 0; i < cc->n_src; i++)
        if (best < 0 || cc->src[i].rank < cc->src[best].rank)
            best = (int)i;
    return best;
}

struct la_class_count *la_class_count_new(const struct la_report_ctx *ctx, const char *path,
                                          char *err, size_t errlen)
{
    const struct la_config *cfg = ctx->cfg;     /* the command line's -n, --model */
    struct la_class_count *cc = calloc(1, sizeof *cc);
    err[0] = '\0';
    if (!cc) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (cfg->has_num_classes)
        la_class_count_add_source(cc, 0, (uint64_t)cfg->num_classes, NULL, "-n", "");
    if (cfg->has_vocab_size)
        la_class_count_add_source(cc, 0, (uint64_t)cfg->vocab_size, NULL, "--vocab-size", "");
    add_model(cc, cfg, ctx->format);
    if (path && add_metadata(cc, cfg, ctx->format, path, err, errlen) != 0) {
        la_class_count_free(cc);
        return NULL;
    }
    cc->chosen = choose(cc);
    if (cc->note[0])
        la_verbose(path, "%s", cc->note);
    if (cc->meta)
        la_verbose(path, "class count from %s: %llu", cc->meta->path,
                   (unsigned long long)cc->meta->n);
    return cc;
}

void la_class_count_free(struct la_class_count *cc)
{
    if (!cc)
        return;
    if (cc->meta)
        la_class_meta_free(cc->meta);
    free(cc->meta);
    for (size_t i = 0; i < cc->n_report_names; i++)
        free(cc->report_names[i]);
    free(cc->report_names);
    free(cc);
}

void la_class_count_apply(const struct la_class_count *cc, struct la_report_ctx *ctx)
{
    ctx->classes = cc;
    if (!cc || cc->chosen < 0 || cc->src[cc->chosen].rank == 0)
        return;
    const struct la_class_source *s = &cc->src[cc->chosen];
    /* a model's embedding: --vocab-size's wording and rules apply */
    la_report_ctx_set_classes(ctx, s->n, s->from, cc->vocab);
}

const struct la_report_ctx *la_class_count_notes_ctx(const struct la_notes *notes,
                                                     const struct la_report_ctx *ctx,
                                                     struct la_report_ctx *with)
{
    if (ctx->has_num_classes || ctx->has_vocab_size || !notes || !notes->has_classes ||
        !notes->classes_from || notes->classes == 0 || notes->classes > LA_META_MAX_COUNT)
        return ctx;
    *with = *ctx;
    la_report_ctx_set_classes(with, notes->classes, notes->classes_from, false);
    return with;
}

void la_class_count_give(struct la_class_count *cc, struct la_file_report *r)
{
    la_class_count_free(r->classes);
    r->classes = cc;
    r->classes_free = la_class_count_free;
}

int la_class_count_from_source(const struct la_class_count *cc)
{
    return cc && cc->chosen >= 0 && cc->src[cc->chosen].rank > 0;
}

int la_class_count_from_file(const struct la_class_count *cc)
{
    return la_class_count_from_source(cc) && cc->src[cc->chosen].path[0];
}

// ---- after the audit: the reader's classes ---------------------------------------

static void add_notes_source(struct la_class_count *cc, const struct la_notes *n)
{
    if (!n || !n->has_classes || !n->classes_from)
        return;
    for (size_t i = 0; i < cc->n_src; i++)
        if (cc->src[i].rank == 2 && strcmp(cc->src[i].from, n->classes_from) == 0)
            return;         /* audited again (the GPU fell back): already there */
    struct la_class_source *s = la_class_count_add_source(cc, 2, n->classes, NULL,
                                                         n->classes_from, "");
    /* -n meets the class folders in class-count, and COCO's categories in
     * out-of-range and unknown-category (ids with gaps: -n 80 for 91 ids) */
    if (s)
        s->folders = strcmp(n->classes_from, FOLDERS_FROM) == 0 ||
                     strcmp(n->classes_from, COCO_FROM) == 0;
}

void la_class_count_take_notes(struct la_class_count *cc, const struct la_notes *n)
{
    add_notes_source(cc, n);
    cc->chosen = choose(cc);
}

// ---- the classes' names ------------------------------------------------------------

static const char *name_in(char *const *names, size_t n, uint64_t c)
{
    return names && c < n ? names[c] : NULL;
}

/* The names a source gives, in the order of preference: the chosen source's first. */
static const char *source_name(const struct la_class_count *cc, const struct la_notes *notes,
                               const struct la_class_source *s, uint64_t c)
{
    if (s->rank == 1 && cc->model && !cc->vocab)
        return name_in(cc->model->head.names, cc->model->head.n_names, c);
    if (s->rank == 2 && cc->meta && strcmp(s->path, cc->meta->path) == 0 && s->path[0])
        return name_in(cc->meta->names, cc->meta->n_names, c);
    if (s->rank == 2 && notes && notes->classes_from && strcmp(s->from, notes->classes_from) == 0)
        return name_in(notes->class_names, notes->n_class_names, c);
    return NULL;
}

const char *la_class_count_name(const struct la_class_count *cc, const struct la_notes *notes,
                                uint64_t c)
{
    if (!cc) {
        if (notes && notes->classes_from)
            return name_in(notes->class_names, notes->n_class_names, c);
        return NULL;
    }
    if (cc->report_names)
        return c < cc->n_report_names ? cc->report_names[c] : NULL;
    const char *name = NULL;
    if (cc->chosen >= 0)
        name = source_name(cc, notes, &cc->src[cc->chosen], c);
    for (size_t i = 0; !name && i < cc->n_src; i++)
        name = source_name(cc, notes, &cc->src[i], c);
    if (!name && notes && notes->classes_from)
        name = name_in(notes->class_names, notes->n_class_names, c);
    return name;
}

/* The rank of a source by its words, as la_class_count_new and the readers
 * name them: the command line's, a model's, else the dataset's metadata. */
int la_class_count_rank_of(const char *from)
{
    if (strcmp(from, "-n") == 0 || strcmp(from, "--vocab-size") == 0)
        return 0;
    return strncmp(from, "model ", 6) == 0 ? 1 : 2;
}
