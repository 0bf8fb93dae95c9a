/* findings.h - the SPEC's finding codes and what is constant about each: its
 * spelling, severity, the PyTorch error it prevents and its fix. One table
 * (findings.c's g_findings) indexed by enum la_code holds them, so a code
 * has exactly one spelling and a reader that names a code that does not
 * exist does not compile. This header depends on nothing else of ours: the
 * readers' notes (label_notes.h) name their findings with it. */
#ifndef LA_FINDINGS_H
#define LA_FINDINGS_H

/* A notice is said and counted apart: no --fail-on level fails on it. */
enum la_severity { LA_SEV_WARNING, LA_SEV_ERROR, LA_SEV_NOTICE };

/* The errors users search for, in PyTorch's own words. */
#define PREVENTS_NLL "nll_loss_forward_reduce_cuda_kernel_2d: Assertion `t >= 0 && " \
                     "t < n_classes` failed (on the CPU: IndexError: Target is out of bounds)"
#define PREVENTS_BCE "Loss.cu: Assertion `target_val >= zero && target_val <= one` failed " \
                     "(on the CPU: all elements of target should be between 0 and 1)"
/* PyTorch 1.x words it the first way, 2.x the second; T is torch's name of the dtype. */
#define PREVENTS_INT_DTYPE(T) "expected scalar type Long but found " T " (PyTorch 2: " \
                              "expected target dtype to be Long or Byte, but got " T ")"
#define PREVENTS_PARSE "ValueError: could not convert string to float"
/* An id at or past the embedding's rows (nn.Embedding, F.embedding). */
#define PREVENTS_EMBEDDING "indexSelectLargeIndex: ... Assertion `srcIndex < srcSelectDimSize` " \
                           "failed (on the CPU: IndexError: index out of range in self)"
#define PREVENTS_NAN_LOSS "loss is nan (a mean over zero targets: every label of the batch " \
                          "is ignore_index)"
/* A float dtype as torch names it: torch.as_tensor keeps NumPy's float64. */
#define PREVENTS_FLOAT PREVENTS_INT_DTYPE("Float")
#define FIX_INT64 "store them as int64 (y.astype(np.int64)), or convert in the Dataset " \
                  "(torch.as_tensor(y, dtype=torch.long))"
#define PREVENTS_BATCHNORM "Expected more than 1 value per channel when training"


/* The SPEC's stable codes, each a row of the table. */
enum la_code {
    LA_F_OUT_OF_RANGE, LA_F_NON_FINITE, LA_F_NON_INTEGER, LA_F_UNPARSABLE, LA_F_EMPTY,
    LA_F_FLOAT_LABELS, LA_F_ONE_BASED, LA_F_IGNORE_LIKE_VALUE, LA_F_MISSING_CLASSES,
    LA_F_TINY_LAST_BATCH, LA_F_NO_BATCHES, LA_F_INT_LABELS_DTYPE,
    /* segmentation masks that need a remap */
    LA_F_LABEL_GAP, LA_F_LABELIDS_NOT_TRAINIDS, LA_F_REDUCE_ZERO_LABEL,
    /* found by the imagefolder, coco and yolo readers (label_notes.h); the
     * report prints the readers' problems of the codes from here on */
    LA_F_HIDDEN_CLASS_FOLDER, LA_F_EMPTY_CLASS_FOLDER, LA_F_CLASS_COUNT, LA_F_UNKNOWN_CATEGORY,
    LA_F_DEGENERATE_BOX, LA_F_BOX_OUTSIDE_IMAGE, LA_F_DUPLICATE_LABEL,
    LA_F_MISSING_LABEL,          /* wds: a sample with no label member */
    LA_F_AMBIGUOUS_HEADER,       /* csv: pandas' default header, or a row of numbers? */
    LA_F_UNLOADABLE_IMAGE,       /* imagefolder: a sample its loader cannot open */
    LA_F_DTYPE_TOO_NARROW,       /* the vocabulary (or N) does not fit the stored dtype */
    LA_F_ALL_IGNORED,            /* samples whose every target is the ignore index */
    LA_F_CLASS_COUNT_MISMATCH,   /* two sources of N disagree (class_count.c) */
    LA_F_VOCAB_MISMATCH,         /* tokenizer vs vocab_size, ids vs tokenizer */
    /* across the splits of a dataset (split_checks.h): the dataset's findings */
    LA_F_SPLIT_OVERLAP, LA_F_CLASS_UNSEEN_IN_TRAIN, LA_F_LABEL_DRIFT,
    /* a label against its image (pairs.h) */
    LA_F_SIZE_MISMATCH, LA_F_MISSING_PAIR, LA_F_UNLABELED_IMAGES, LA_F_GEOMETRY_MISMATCH,
    /* the columns beside the labels (columns.h) */
    LA_F_SEQ_TOO_LONG, LA_F_LENGTH_MISMATCH, LA_F_MASK_VALUES,
    LA_F_COUNT,
    /* not a finding: a reader's problem that only names the place of one of
     * the scan's bad entries (label_notes.h's locate), "at" in the JSON */
    LA_P_AT
};

#include <stdarg.h> /* va_list */
#include <stddef.h> /* size_t */
#include <stdint.h> /* int64_t, uint64_t */

#define LA_MSG_LEN 512
#define LA_REMAP_MAX 8    /* a label-gap remap names at most this many values */

/* A finding: the one type the readers' notes (label_notes.h), the
 * diagnoses and the reports all pass. */
struct la_finding {
    enum la_severity severity;
    enum la_code code;
    char message[LA_MSG_LEN];     /* one line, for people */
    const char *prevents;         /* the PyTorch error in users' words, or NULL */
    char hint[LA_MSG_LEN];        /* the fix, or "" ("labels look 1-based: subtract 1") */
    /* ignore-like-value: the value to pass as --ignore-index */
    int has_suggested_ignore;
    int64_t suggested_ignore;
    /* label-gap: the remap its hint suggests, from[i] -> to[i] (--fix applies it) */
    int n_remap;
    int64_t remap_from[LA_REMAP_MAX], remap_to[LA_REMAP_MAX];
    /* a reader's, in a dataset (la_notes_fold): the sources that had it, and
     * the problems of its code in all of them but the first */
    size_t sources;
    uint64_t more;
    /* the column it is of, where it is not the file's label column (JSON
     * findings[].column), or "" */
    char column[64];
    /* where the file's rows are lines (jsonl, csv): the line of its first bad
     * row, which the CI outputs point at; 0: none (a dataset's fold drops it:
     * the line is of one of its files) */
    uint64_t line;
};

struct la_code_def {
    const char *name;             /* "out-of-range": the JSON's "code" */
    enum la_severity severity;
    /* The PyTorch error in users' words; NULL where there is none, or where
     * it depends on the loss, the dtype or the reader (which then give it). */
    const char *prevents;
    const char *fix;              /* the hint when it is always the same, else NULL */
};

/** la_finding_code_name() : "out-of-range", ...; "at" for LA_P_AT. */
const char *la_finding_code_name(enum la_code code);

/** la_finding_def() : the table's row of code (its prevents and fix as the
 *  table gives them; a finding may carry its own). */
const struct la_code_def *la_finding_def(enum la_code code);

/** la_finding_code_by_name() : the finding code spelled name, or LA_F_COUNT
 *  when none is ("at" is none). */
enum la_code la_finding_code_by_name(const char *name);

const char *la_severity_name(enum la_severity sev);

/** la_finding_vset() : *f as a finding of code: its table row's severity,
 *  prevents and fix, and the message from fmt. */
void la_finding_vset(struct la_finding *f, enum la_code code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
