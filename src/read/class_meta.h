/* class_meta.h - the files that state a class count beside the labels: a
 * Hugging Face model's config.json and tokenizer.json (model_config.c), a
 * YOLO data.yaml (data_yaml.c), an nnU-Net dataset.json (nnunet_json.c).
 *
 * Each reader fills a la_class_meta from one file and knows nothing of the
 * others or of the labels; class_count.c weighs what they state against -n
 * and against each other. A file that cannot be read (not JSON or YAML, a
 * num_labels that is not a count, an id2label key that is not an integer,
 * too big, too deep) is an error with its one-line reason (exit 3); a file
 * that reads but contradicts itself (nc: 3 with four names, an id2label with
 * gaps) is read, and the contradiction is kept in `problem` for the report. */
#ifndef LA_CLASS_META_H
#define LA_CLASS_META_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

/* The most classes whose names are kept (ImageNet-21k has 21,843; a larger
 * table keeps its count but not its names). */
#define LA_META_MAX_NAMES (1u << 20)
/* The largest class count or vocabulary believed: a count beyond is refused. */
#define LA_META_MAX_COUNT ((uint64_t)1 << 40)

struct la_class_meta {
    char path[4096];          /* the file it was read from */
    int has_n;
    uint64_t n;               /* the class count the file states */
    const char *key;          /* what stated it: "nc", "num_labels", "labels" (static) */
    char **names;             /* names[c] of class c, or NULL where it has none; owned */
    size_t n_names;
    char problem[512];        /* "" or what contradicts itself, in words */
    /* a YOLO data.yaml's dataset root and its splits' image folders, as
     * written (path, train, val, test); "" where absent or not one string */
    char yolo_path[1024];
    char yolo_split[3][1024];
};

/* The tables a model's other inputs index (position_rules.c turns them into
 * rules): its text model's, for a composite config (text_config). -1: the
 * config does not say. */
struct la_model_tables {
    char model_type[64];          /* "bert", "roberta", ...; "" when absent */
    int64_t type_vocab_size;
    int64_t max_positions;        /* max_position_embeddings, else n_positions */
    const char *max_positions_key;    /* which of them (static), with "text_config." */
    int64_t pad_token_id;
    int position_biased_input;    /* deberta's: 1 true, 0 false, -1 absent */
    char problem[512];            /* "" or a top-level value a composite's text model overrides */
};

/* What a Hugging Face model folder states. */
struct la_model {
    struct la_class_meta head;    /* num_labels / id2label; head.has_n: there is one */
    int is_head;                  /* a classification head (architectures, or num_labels / id2label given) */
    char architecture[128];       /* architectures[0], or "" */
    int has_vocab_size;
    uint64_t vocab_size;          /* config.json vocab_size (its text model's, when composite) */
    const char *vocab_key;        /* "vocab_size", "text_config.vocab_size", ... (static) */
    int has_tokenizer;
    char tokenizer_path[4096];
    uint64_t tokenizer_vocab;     /* highest id of model.vocab and added_tokens, + 1 */
    uint64_t tokenizer_base;      /* model.vocab's own: highest id + 1 */
    uint64_t tokenizer_added;     /* added_tokens entries */
    char tokenizer_note[256];     /* why tokenizer.json beside it was not read, or "" */
    char vocab_problem[512];      /* "" or a composite config's vocab_size against its text model's */
    struct la_model_tables tables;
};

/** la_class_meta_free() : the names; the struct itself is the caller's. */
void la_class_meta_free(struct la_class_meta *m);

/** la_class_meta_set_name() : a copy of the name for class c, growing names; -1 out of memory. */
int la_class_meta_set_name(struct la_class_meta *m, uint64_t c, const char *name, size_t len);

/** la_model_read() : path is config.json or a folder holding one; a
 *  tokenizer.json beside it is read too (streamed: bounded memory). @return 0,
 *  or -1 with the reason in err ("m/config.json: num_labels -3 is not ..."). */
int la_model_read(const char *path, struct la_model *m, char *err, size_t errlen);
void la_model_free(struct la_model *m);

/** la_tokenizer_read() : the vocabulary of a tokenizer.json (streamed with
 *  yajl). @return 0, or -1 with err; -2 in a build without yajl. */
int la_tokenizer_read(const char *path, struct la_model *m, char *err, size_t errlen);

/** la_data_yaml_read() : YOLO's nc and names. @return 0, -1 with err, -2 without libyaml. */
int la_data_yaml_read(const char *path, struct la_class_meta *m, char *err, size_t errlen);

/** la_nnunet_read() : an nnU-Net dataset.json's labels. @return 0, or -1 with err. */
int la_nnunet_read(const char *path, struct la_class_meta *m, char *err, size_t errlen);

/* For the parsers and the fuzzers: the same, from bytes in memory. */
int la_model_config_parse(const char *text, size_t len, struct la_model *m, char *err,
                          size_t errlen);
int la_tokenizer_parse(const unsigned char *text, size_t len, struct la_model *m, char *err,
                       size_t errlen);
int la_data_yaml_parse(const unsigned char *text, size_t len, struct la_class_meta *m,
                       char *err, size_t errlen);
int la_nnunet_parse(const char *text, size_t len, struct la_class_meta *m, char *err,
                    size_t errlen);

/** la_py_int() : text as Python's int() reads a str: blanks around, a sign,
 *  decimal digits with single underscores between them ("1_0" is 10, "01" is
 *  1). @return 0, -1 where int() raises ValueError, -2 text of other bytes
 *  than ASCII (int() reads other scripts' digits and spaces; refused here). */
int la_py_int(const char *text, size_t len, int64_t *out);

/** la_read_small_file() : a whole file of at most cap bytes, NUL-terminated,
 *  malloc'd. @return 0, or -1 with err ("too big", the errno text). */
int la_read_small_file(const char *path, size_t cap, char **text, size_t *len, char *err,
                       size_t errlen);

#endif
