/* class_count.h - the class count N, from where it is written: -n (or
 * --vocab-size), the model's config.json (--model), the dataset's metadata
 * (a YOLO data.yaml, an nnU-Net dataset.json, and what a reader finds in its
 * input: ImageFolder's class folders, COCO's categories, a Hugging Face
 * ClassLabel), else the labels' max + 1 as a suggestion.
 *
 * The first of those that states a number is the N the labels are checked
 * against; every other source that states one is compared with it, and a
 * disagreement is class-count-mismatch (an ImageFolder's folders against -n
 * stay the class-count finding they always were). The model's number is its
 * head's (num_labels, id2label) when it has one and the labels are class
 * labels; its embedding's (vocab_size) when it is a language model, or the
 * labels are token ids (an input_ids column, a token format, --vocab-size):
 * then the tokenizer.json beside it is held to vocab_size, and the ids to
 * the tokenizer's vocabulary (vocab-mismatch).
 *
 * One la_class_count per report: plan.c makes it before the labels are
 * read (la_class_count_new: the files it finds beside them), gives its N to
 * the report's context (la_class_count_apply, context.h), and after the
 * audit hands it the reader's notes and the report (la_class_count_finish),
 * which then owns it. This file is the model: the sources and the choice;
 * their findings are class_findings.h's, the reports' words class_report.h's,
 * and --merge reads a shard report's sources back itself (merge.c). */
#ifndef LA_CLASS_COUNT_H
#define LA_CLASS_COUNT_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

struct la_report_ctx;
struct la_file_report;
struct la_notes;
struct la_model;

/* What the report says of N: its source in words, as the JSON's
 * num_classes_from gives it ("model config.json num_labels"). */
#define LA_FROM_LEN 160

struct la_class_source {
    char from[LA_FROM_LEN];     /* "model config.json num_labels" */
    char path[1024];            /* the file that says it, or "" (-n) */
    uint64_t n;
    int rank;                   /* 0 command line, 1 model, 2 dataset metadata */
    int folders;                /* the reader's own classes that its findings hold to -n
                                   (ImageFolder's folders: class-count; COCO's categories) */
};

#define LA_CLASS_SOURCES 6

struct la_class_count {
    struct la_class_source src[LA_CLASS_SOURCES];
    size_t n_src;
    int chosen;                 /* the source N came from, or -1 (none: max + 1) */
    int vocab;                  /* the model's number is its embedding's (token ids) */
    const struct la_model *model;   /* --model, or NULL (main's) */
    struct la_class_meta *meta;     /* data.yaml or dataset.json beside the data, or NULL */
    char problems[2][512];      /* what a source contradicts in itself ("nc: 3 but ...") */
    size_t n_problems;
    char note[512];             /* a metadata file not read, and why (-v), or "" */
    /* --merge: the class names a shard report gave (NULL entries where it
     * had none), which stand for the model's and the metadata's; or NULL */
    char **report_names;
    size_t n_report_names;
};

/** la_class_count_new() : the sources known before the labels are read: -n,
 *  the model, and the metadata found beside path (a data.yaml for --format
 *  yolo or --data-yaml; a dataset.json of an nnU-Net folder). @return NULL
 *  out of memory, or when a metadata file cannot be read (err says which
 *  and why: the report is then unreadable). */
struct la_class_count *la_class_count_new(const struct la_report_ctx *ctx, const char *path,
                                          char *err, size_t errlen);
void la_class_count_free(struct la_class_count *cc);

/** la_class_count_apply() : the report's context (plan.c's, while it builds
 *  it) gets cc and the N chosen (where -n did not give one), with its source
 *  and, for token ids, --vocab-size's rules. */
void la_class_count_apply(const struct la_class_count *cc, struct la_report_ctx *ctx);

/** la_class_count_notes_ctx() : for a reader that found its classes while
 *  opening (notes->has_classes with classes_from), where nothing in ctx gave
 *  N: with, ctx with that N; else ctx itself. */
const struct la_report_ctx *la_class_count_notes_ctx(const struct la_notes *notes,
                                                     const struct la_report_ctx *ctx,
                                                     struct la_report_ctx *with);

/** la_class_count_give() : r owns cc from now on (r->classes, freed with r). */
void la_class_count_give(struct la_class_count *cc, struct la_file_report *r);

/** la_class_count_take_notes() : after the audit, the reader's classes
 *  (notes: ImageFolder's folders, COCO's categories, a ClassLabel) as one
 *  more source, and N chosen again. The findings and the hand-over to the
 *  report are class_findings.h's (la_class_count_finish). */
void la_class_count_take_notes(struct la_class_count *cc, const struct la_notes *notes);

/** la_class_count_add_source() : a source of rank (0 the command line, 1 a
 *  model, 2 the dataset's metadata or the reader) saying n, its words kind
 *  then what; NULL when cc holds LA_CLASS_SOURCES already. */
struct la_class_source *la_class_count_add_source(struct la_class_count *cc, int rank,
                                                  uint64_t n, const char *path,
                                                  const char *kind, const char *what);

/** la_class_count_rank_of() : the rank of a source by its words, as
 *  la_class_count_new and the readers word them (a --merge'd report's). */
int la_class_count_rank_of(const char *from);

/** la_class_count_name() : class c's name from the source that names it
 *  (the model's id2label, data.yaml's names, dataset.json's labels, the
 *  reader's class folders or categories), or NULL. */
const char *la_class_count_name(const struct la_class_count *cc, const struct la_notes *notes,
                                uint64_t c);

/** la_class_count_folders() : whether notes' classes are ImageFolder's class
 *  folders (or a reader's that does not say), which -n meets in class-count. */
int la_class_count_folders(const struct la_notes *n);

/** la_class_count_from_source() : whether N came from a source other than -n. */
int la_class_count_from_source(const struct la_class_count *cc);
/** la_class_count_from_file() : ... from a file beside the labels (a model,
 *  a data.yaml, a dataset.json), not the labels' own (class folders, COCO
 *  categories), where the text report still suggests -n. */
int la_class_count_from_file(const struct la_class_count *cc);

#endif
