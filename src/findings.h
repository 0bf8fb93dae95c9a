/* findings.h - the SPEC's finding codes and what is constant about each: its
 * spelling, severity, the PyTorch error it prevents and its fix. One table
 * (diagnose.c's g_findings) indexed by enum la_code holds them, so a code
 * has exactly one spelling and a reader that names a code that does not
 * exist does not compile. This header depends on nothing else of ours: the
 * readers' notes (label_notes.h) name their findings with it. */
#ifndef LA_FINDINGS_H
#define LA_FINDINGS_H

enum la_severity { LA_SEV_WARNING, LA_SEV_ERROR };

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
    LA_F_COUNT
};

struct la_code_def {
    const char *name;             /* "out-of-range": the JSON's "code" */
    enum la_severity severity;
    /* The PyTorch error in users' words; NULL where there is none, or where
     * it depends on the loss, the dtype or the reader (which then give it). */
    const char *prevents;
    const char *fix;              /* the hint when it is always the same, else NULL */
};

/** la_finding_code_name() : "out-of-range", ... */
const char *la_finding_code_name(enum la_code code);

/** la_finding_def() : the table's row of code (its prevents and fix as the
 *  table gives them; a finding may carry its own). */
const struct la_code_def *la_finding_def(enum la_code code);

/** la_finding_code_by_name() : the code spelled name, or LA_F_COUNT when none is. */
enum la_code la_finding_code_by_name(const char *name);

const char *la_severity_name(enum la_severity sev);

#endif
