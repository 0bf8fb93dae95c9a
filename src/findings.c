/* findings.c - see findings.h: the one table of finding codes. It sits
 * under the report model (file_report.c adds findings with its rows) and
 * knows nothing of the stages that find them. */
#include "findings.h"

#include <stdio.h>  /* snprintf, vsnprintf */
#include <string.h> /* strcmp */

#define ERR LA_SEV_ERROR
#define WARN LA_SEV_WARNING
#define NOTICE LA_SEV_NOTICE

/* Every finding code, with what is the same each time it is found. With
 * --loss bce, out-of-range and non-finite prevent BCE's error instead of the
 * class losses' given here; int-labels-dtype's error names the dtype; the
 * readers word their codes' prevents and hints (label_notes.h). */
static const struct la_code_def g_findings[LA_F_COUNT] = {
    [LA_F_OUT_OF_RANGE] = { "out-of-range", ERR, PREVENTS_NLL, NULL },
    [LA_F_NON_FINITE] = { "non-finite", ERR, PREVENTS_NLL, NULL },
    [LA_F_NON_INTEGER] = { "non-integer", ERR, PREVENTS_FLOAT, NULL },
    [LA_F_UNPARSABLE] = { "unparsable", ERR, PREVENTS_PARSE, NULL },
    [LA_F_EMPTY] = { "empty", ERR, NULL, NULL },
    [LA_F_FLOAT_LABELS] = { "float-labels", WARN, PREVENTS_FLOAT, FIX_INT64 },
    [LA_F_ONE_BASED] = { "one-based", WARN, PREVENTS_NLL, NULL },
    [LA_F_IGNORE_LIKE_VALUE] = { "ignore-like-value", WARN, PREVENTS_NLL, NULL },
    [LA_F_MISSING_CLASSES] = { "missing-classes", WARN, NULL, NULL },
    [LA_F_TINY_LAST_BATCH] = { "tiny-last-batch", WARN, PREVENTS_BATCHNORM, NULL },
    [LA_F_NO_BATCHES] = { "no-batches", WARN, NULL, NULL },
    [LA_F_INT_LABELS_DTYPE] = { "int-labels-dtype", WARN, NULL, FIX_INT64 },
    [LA_F_LABEL_GAP] = { "label-gap", WARN, PREVENTS_NLL, NULL },
    [LA_F_LABELIDS_NOT_TRAINIDS] = { "labelids-not-trainids", WARN, PREVENTS_NLL,
        "train on the trainIds masks (cityscapesscripts' createTrainIdLabelImgs makes "
        "them), with --ignore-index 255" },
    [LA_F_REDUCE_ZERO_LABEL] = { "reduce-zero-label", WARN, PREVENTS_NLL,
        "reduce_zero_label: map 0 -> 255 and c -> c-1, then --ignore-index 255 "
        "(mmsegmentation: reduce_zero_label=True)" },
    [LA_F_HIDDEN_CLASS_FOLDER] = { "hidden-class-folder", ERR, NULL, NULL },
    [LA_F_EMPTY_CLASS_FOLDER] = { "empty-class-folder", ERR, NULL, NULL },
    [LA_F_CLASS_COUNT] = { "class-count", ERR, PREVENTS_NLL,
        "torchvision makes a class of every sub-folder of the root: look for a stray or "
        "missing one in the class_to_idx above" },
    [LA_F_UNKNOWN_CATEGORY] = { "unknown-category", ERR, NULL, NULL },
    [LA_F_DEGENERATE_BOX] = { "degenerate-box", ERR, NULL, NULL },
    [LA_F_BOX_OUTSIDE_IMAGE] = { "box-outside-image", WARN, NULL, NULL },
    [LA_F_DUPLICATE_LABEL] = { "duplicate-label", WARN, NULL, NULL },
    [LA_F_MISSING_LABEL] = { "missing-label", ERR, NULL, NULL },
    [LA_F_AMBIGUOUS_HEADER] = { "ambiguous-header", WARN, NULL,
        "--no-header if there is no header (np.savetxt writes none), --header if pandas "
        "wrote it" },
    [LA_F_UNLOADABLE_IMAGE] = { "unloadable-image", ERR, NULL, NULL },
    [LA_F_DTYPE_TOO_NARROW] = { "dtype-too-narrow", ERR, PREVENTS_EMBEDDING, NULL },
    [LA_F_ALL_IGNORED] = { "all-ignored", WARN, PREVENTS_NAN_LOSS,
        "drop these samples (a prompt longer than the block leaves no answer token), or "
        "cut them so that each keeps some target" },
    [LA_F_CLASS_COUNT_MISMATCH] = { "class-count-mismatch", ERR, PREVENTS_NLL, NULL },
    [LA_F_VOCAB_MISMATCH] = { "vocab-mismatch", ERR, PREVENTS_EMBEDDING,
        "model.resize_token_embeddings(len(tokenizer)) after adding tokens, and save the "
        "model's config with it" },
    [LA_F_SPLIT_OVERLAP] = { "split-overlap", ERR, NULL,
        "keep each sample in one split: remove these files from one of the two" },
    [LA_F_CLASS_UNSEEN_IN_TRAIN] = { "class-unseen-in-train", WARN, NULL,
        "move some of its samples to train, or check that these labels are right" },
    [LA_F_LABEL_DRIFT] = { "label-drift", WARN, NULL,
        "split the dataset again with a stratified split (sklearn's train_test_split("
        "stratify=y)), or check that both splits are drawn from the same data" },
    [LA_F_SIZE_MISMATCH] = { "size-mismatch", ERR, "albumentations: \"Height and Width of "
        "image, mask or masks should be equal\"; the loss: \"The size of tensor a must match "
        "the size of tensor b\"", "resize the mask with nearest-neighbour interpolation "
        "(PIL's Image.NEAREST), or re-export it from the image it labels" },
    [LA_F_MISSING_PAIR] = { "missing-pair", ERR, NULL,
        "restore the missing file, or remove its partner from the dataset" },
    [LA_F_UNLABELED_IMAGES] = { "unlabeled-images", NOTICE, NULL, NULL },
    /* a warning where only the origin or direction differ: nnU-Net warns, trains on */
    [LA_F_GEOMETRY_MISMATCH] = { "geometry-mismatch", ERR, "nnU-Net's "
        "verify_dataset_integrity: \"Error: Shape mismatch between segmentation and "
        "corresponding images\" / \"Spacing mismatch\" (RuntimeError: Some images have errors)",
        "resample the label onto its image's grid (nearest neighbour), or, where only the "
        "header is wrong, save it with the image's affine and header (nibabel: "
        "nib.Nifti1Image(seg, img.affine, img.header))" },
    /* seq-too-long is a warning where no table is indexed (columns.c says which) */
    [LA_F_SEQ_TOO_LONG] = { "seq-too-long", ERR, NULL, NULL },
    [LA_F_LENGTH_MISMATCH] = { "length-mismatch", ERR, NULL, NULL },
    [LA_F_MASK_VALUES] = { "mask-values", WARN, NULL, NULL },
};

#undef ERR
#undef WARN
#undef NOTICE

const char *la_finding_code_name(enum la_code code)
{
    return code == LA_P_AT ? "at" : g_findings[code].name;
}

const struct la_code_def *la_finding_def(enum la_code code) { return &g_findings[code]; }

enum la_code la_finding_code_by_name(const char *name)
{
    int code = 0;
    while (code < LA_F_COUNT && strcmp(g_findings[code].name, name) != 0)
        code++;
    return (enum la_code)code;
}

const char *la_severity_name(enum la_severity sev)
{
    return sev == LA_SEV_ERROR ? "error" : sev == LA_SEV_NOTICE ? "notice" : "warning";
}

void la_finding_vset(struct la_finding *f, enum la_code code, const char *fmt, va_list ap)
{
    const struct la_code_def *def = la_finding_def(code);
    *f = (struct la_finding){ .severity = def->severity, .code = code,
                              .prevents = def->prevents };
    if (def->fix)
        snprintf(f->hint, sizeof f->hint, "%s", def->fix);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
}
