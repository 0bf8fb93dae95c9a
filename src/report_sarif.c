/* report_sarif.c - --sarif=FILE: the findings as a SARIF 2.1.0 log (OASIS),
 * the format GitHub code scanning and every SARIF viewer read, and the way
 * past GitHub's 10 annotations of a step.
 *
 * One run of the tool "labelaudit"; one rule per finding code (and one for a
 * file that could not be read), its help the PyTorch error it prevents and
 * its fix; one result per note of ci_notes.h: each of a file's first
 * --max-report bad entries, then each finding. A result has a physical
 * location (the file, relative to the workspace, and the line for csv, tsv
 * and text) and, for an entry of a file without lines, a logical one (its
 * sample and index). Written atomically, as --junit is. */
#include "report.h"

#include <cjson/cJSON.h> /* cJSON_* */
#include <stdlib.h>      /* free */
#include <stdio.h>       /* snprintf, sprintf */
#include <string.h>      /* strchr, strlen */

#include "atomic_file.h"
#include "ci_notes.h"
#include "config.h"      /* PACKAGE_VERSION */
#include "msg.h"
#include "utf8.h"

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/" \
                     "sarif-schema-2.1.0.json"
#define UNREADABLE_RULE LA_F_COUNT   /* the rule after the finding codes */
/* The man page as HTML (mandoc -Thtml man/labelaudit.1), beside the project's
 * page; its sections are anchors (#FINDINGS), its entries are not stably so. */
#define LA_MAN_URI PACKAGE_URL "/labelaudit.1.html"

/* What a SARIF viewer shows of each rule beside a result: the code's full
 * description (as the man page's FINDINGS gives it), the usual fix for a code
 * whose row in diagnose.c's table has none that is always the same, and a
 * topic among its tags. A designated initializer per code: one added to
 * findings.h without its row here leaves a NULL that tests/outputs/sarif.sh
 * finds. The row after the codes is the unreadable file's. */
struct la_rule_doc {
    const char *what;     /* fullDescription */
    const char *fix;      /* the fix, where the code's table row has none */
    const char *topic;    /* a tag: "range", "segmentation", "detection", ... */
};

static const struct la_rule_doc g_docs[LA_F_COUNT + 1] = {
    [LA_F_OUT_OF_RANGE] = { "A class label below 0 (other than the ignore index) or at or above "
        "the number of classes N; a bce target outside [0, 1]; with --vocab-size, a token id "
        "outside [0, V).", "remap the labels into [0, N), or raise N to the model's outputs",
        "range" },
    [LA_F_NON_FINITE] = { "NaN or +-Inf in a label.",
        "drop or fill the samples whose label is NaN or infinite", "values" },
    [LA_F_NON_INTEGER] = { "A ce/nll class label with a fractional part.",
        "round or map the labels to integer classes, then store them as int64", "dtype" },
    [LA_F_UNPARSABLE] = { "A CSV or text cell that is not a number, empty cells included.",
        "fill or drop the empty and non-numeric cells, or name the label column with -c",
        "values" },
    [LA_F_EMPTY] = { "A file or dataset with no labels at all (0 bytes, a header only, a "
        "zero-length array).", "check that the file was written whole and that -c names "
        "the label column", "values" },
    [LA_F_FLOAT_LABELS] = { "Integer-valued class labels stored as floats: the loss wants "
        "int64 class indices.", NULL, "dtype" },
    [LA_F_ONE_BASED] = { "Labels 1..N where 0..N-1 is expected: every label is one too high "
        "and N is out of range.", "subtract 1 from every label", "range" },
    [LA_F_IGNORE_LIKE_VALUE] = { "Most out-of-range values are one value (255, -1) that "
        "looks like an ignore index.", "pass that value as ignore_index to the loss "
        "(and --ignore-index here)", "range" },
    [LA_F_MISSING_CLASSES] = { "Classes in [0, N) that never occur in the labels.",
        "check the split and N; a class that never occurs is never learned", "classes" },
    [LA_F_TINY_LAST_BATCH] = { "The last batch of an epoch holds a single sample: BatchNorm "
        "in training raises on it.", "drop_last=True, or a batch size that leaves a larger "
        "last batch (the report suggests some)", "batching" },
    [LA_F_NO_BATCHES] = { "The DataLoader yields no batch at all (drop_last with fewer "
        "samples per rank than the batch size).", "a smaller batch size, or drop_last=False",
        "batching" },
    [LA_F_INT_LABELS_DTYPE] = { "Class labels stored as an integer dtype other than int64 "
        "(int8 ... uint64, bool): the loss wants int64.", NULL, "dtype" },
    [LA_F_LABEL_GAP] = { "The out-of-range values are a few distinct values, exactly as many "
        "as the classes in [0, N) that never occur (BraTS labels 0, 1, 2, 4 with N = 4).",
        "remap the values as the message suggests (4 -> 3)", "range" },
    [LA_F_LABELIDS_NOT_TRAINIDS] = { "Masks with -n 19 whose values run over 0..33: "
        "Cityscapes labelIds, not trainIds.", NULL, "segmentation" },
    [LA_F_REDUCE_ZERO_LABEL] = { "Masks whose values run 0..N with 0 frequent: 0 marks "
        "\"other\" (ADE20K).", NULL, "segmentation" },
    [LA_F_HIDDEN_CLASS_FOLDER] = { "An ImageFolder class folder whose name starts with '.': "
        "it becomes a class and shifts every label.", "remove the hidden folder "
        "(.ipynb_checkpoints, .DS_Store's kin) from the dataset root", "folders" },
    [LA_F_EMPTY_CLASS_FOLDER] = { "An ImageFolder class folder with no image.",
        "remove the empty folder or put its images in it", "folders" },
    [LA_F_CLASS_COUNT] = { "An ImageFolder with a number of class folders different from -n.",
        NULL, "folders" },
    [LA_F_UNKNOWN_CATEGORY] = { "A COCO annotation whose category_id is not among the "
        "categories, or whose image_id is not among the images.", "add the category or "
        "image, or drop the annotation", "detection" },
    [LA_F_DEGENERATE_BOX] = { "A box with width or height <= 0; YOLO coordinates outside "
        "[0, 1].", "drop or fix the boxes the message lists", "detection" },
    [LA_F_BOX_OUTSIDE_IMAGE] = { "A box that reaches past its image's width or height.",
        "clip the box to the image", "detection" },
    [LA_F_DUPLICATE_LABEL] = { "The same box and class twice for one image.",
        "drop the repeated line or annotation", "detection" },
    [LA_F_MISSING_LABEL] = { "A WebDataset sample, or an image of a folder, with no label.",
        "add the label, or leave the sample out of the dataset", "values" },
    [LA_F_AMBIGUOUS_HEADER] = { "A CSV whose first row could be a header or data.", NULL,
        "values" },
    [LA_F_UNLOADABLE_IMAGE] = { "An image of an ImageFolder that its loader cannot open.",
        "replace or remove the file", "folders" },
    [LA_F_DTYPE_TOO_NARROW] = { "The vocabulary (or N) does not fit the dtype the ids are "
        "stored in.", "store the ids in a wider dtype (uint32 past 65535 ids)", "tokens" },
    [LA_F_ALL_IGNORED] = { "Samples whose every target is the ignore index: their loss is a "
        "mean over zero targets.", NULL, "tokens" },
    [LA_F_CLASS_COUNT_MISMATCH] = { "Two sources of the number of classes disagree (-n, the "
        "model's config, the dataset's metadata).", "make the model's head and the dataset's "
        "classes agree (num_labels, ClassLabel names, data.yaml nc)", "classes" },
    [LA_F_VOCAB_MISMATCH] = { "The tokenizer's vocabulary and the model's vocab_size "
        "disagree, or ids reach past the tokenizer.", NULL, "tokens" },
    [LA_F_SPLIT_OVERLAP] = { "The same file in two splits of the dataset: the model is "
        "evaluated on samples it trained on.", NULL, "splits" },
    [LA_F_CLASS_UNSEEN_IN_TRAIN] = { "A class that a validation or test split holds and "
        "train never does.", NULL, "splits" },
    [LA_F_LABEL_DRIFT] = { "A split's class distribution differs from train's (total "
        "variation distance and a chi-square test).", NULL, "splits" },
    [LA_F_SIZE_MISMATCH] = { "A mask of another height and width than the image it labels.",
        NULL, "pairs" },
    [LA_F_MISSING_PAIR] = { "A label file with no image, or in a segmentation set an image "
        "with no mask.", NULL, "pairs" },
    [LA_F_GEOMETRY_MISMATCH] = { "A NIfTI label whose shape, spacing, origin or direction "
        "differs from its image's (nnU-Net's verify_dataset_integrity).", NULL, "pairs" },
    [LA_F_UNLABELED_IMAGES] = { "Images with no label file: YOLO's background images.",
        "none where they are background images (Ultralytics advises 0-10% of them); else "
        "write their label files", "pairs" },
    [LA_F_SEQ_TOO_LONG] = { "A row longer than the model's learned position table (a "
        "warning where positions are rotary, relative or ALiBi: never trained past it).",
        "truncate when tokenizing (truncation=True, max_length=the limit), or drop the rows",
        "columns" },
    [LA_F_LENGTH_MISMATCH] = { "In one row, labels, attention_mask, token_type_ids or "
        "position_ids of another length than input_ids.", "tokenize the columns of a row in one "
        "call, so that their lists are as long as its input_ids", "columns" },
    [LA_F_MASK_VALUES] = { "An attention_mask holding values other than 0 and 1.",
        "1 for a token to attend to, 0 for padding", "columns" },
    [LA_F_COUNT] = { "A file that could not be read: not a label file, cut short, or "
        "malformed.", "the message names what could not be read, and where", "input" },
};

static void add_text(cJSON *o, const char *key, const char *text)
{
    char *clean = la_utf8_clean(text);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(o, key), "text", clean ? clean : "");
    free(clean);
}

/* The help a viewer shows under a result: the fix and what it prevents, as
 * text and as Markdown. */
static void add_help(cJSON *r, const char *id, const char *prevents, const char *fix)
{
    char text[2 * LA_MSG_LEN + 256], md[2 * LA_MSG_LEN + 256];
    snprintf(text, sizeof text, "%s%s%s%s%s%sSee man labelaudit, FINDINGS: %s.",
             fix ? "Fix: " : "", fix ? fix : "", fix ? ".\n" : "",
             prevents ? "Prevents: " : "", prevents ? prevents : "", prevents ? ".\n" : "", id);
    snprintf(md, sizeof md, "%s%s%s%s%s%sSee `man labelaudit`, FINDINGS: **%s**.",
             fix ? "**Fix:** " : "", fix ? fix : "", fix ? ".\n\n" : "",
             prevents ? "**Prevents:** " : "", prevents ? prevents : "",
             prevents ? ".\n\n" : "", id);
    cJSON *help = cJSON_AddObjectToObject(r, "help");
    char *clean = la_utf8_clean(text);
    cJSON_AddStringToObject(help, "text", clean ? clean : "");
    free(clean);
    clean = la_utf8_clean(md);
    cJSON_AddStringToObject(help, "markdown", clean ? clean : "");
    free(clean);
}

static cJSON *rule(const char *id, const char *level, const char *prevents, const char *fix,
                   const struct la_rule_doc *doc)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "id", id);
    add_text(r, "shortDescription", id);
    add_text(r, "fullDescription", doc->what);
    add_help(r, id, prevents, fix ? fix : doc->fix);
    cJSON_AddStringToObject(r, "helpUri", LA_MAN_URI "#FINDINGS");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "defaultConfiguration"), "level", level);
    cJSON *tags = cJSON_AddArrayToObject(cJSON_AddObjectToObject(r, "properties"), "tags");
    cJSON_AddItemToArray(tags, cJSON_CreateString("labels"));
    cJSON_AddItemToArray(tags, cJSON_CreateString(strcmp(level, "error") == 0 ? "correctness"
                                                                              : "data-quality"));
    cJSON_AddItemToArray(tags, cJSON_CreateString(doc->topic));
    return r;
}

/* SARIF's level of a severity: a notice is a "note". */
static const char *sarif_level(const char *severity)
{
    return strcmp(severity, "notice") == 0 ? "note" : severity;
}

static cJSON *rules(void)
{
    cJSON *a = cJSON_CreateArray();
    for (int c = 0; c < LA_F_COUNT; c++) {
        const struct la_code_def *def = la_finding_def((enum la_code)c);
        cJSON_AddItemToArray(a, rule(def->name, sarif_level(la_severity_name(def->severity)),
                                     def->prevents,
                                     def->fix, &g_docs[c]));
    }
    cJSON_AddItemToArray(a, rule("unreadable", "error", NULL, NULL, &g_docs[LA_F_COUNT]));
    return a;
}

/* A path as a URI reference: unreserved bytes and '/' as they are, the rest
 * %XX (a space, '#', '%', bytes that are not ASCII); an absolute path as file://. */
static char *uri_of(const char *path)
{
    size_t n = strlen(path);
    char *uri = malloc(3 * n + 8), *o = uri;
    if (!uri)
        return NULL;
    if (path[0] == '/')
        o += sprintf(o, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            *o++ = (char)*p;
        else
            o += sprintf(o, "%%%02X", *p);
    *o = '\0';
    return uri;
}

static cJSON *location(const struct la_ci_note *n)
{
    cJSON *loc = cJSON_CreateObject(), *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
    char *uri = uri_of(n->path);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(phys, "artifactLocation"), "uri",
                            uri ? uri : "");
    free(uri);
    if (n->line)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(phys, "region"), "startLine",
                                (double)n->line);
    if (n->is_entry && !n->line) {      /* no lines: the sample and the index say where */
        char name[288];
        if (n->place)
            snprintf(name, sizeof name, "%s", n->place);
        else if (n->flat || n->sample == LA_NO_SAMPLE)
            snprintf(name, sizeof name, "index %llu", (unsigned long long)n->index);
        else
            snprintf(name, sizeof name, "sample %llu, index %llu",
                     (unsigned long long)n->sample, (unsigned long long)n->index);
        cJSON *logical = cJSON_CreateObject();
        cJSON_AddStringToObject(logical, "name", name);
        cJSON_AddStringToObject(logical, "kind", "element");
        cJSON *list = cJSON_AddArrayToObject(loc, "logicalLocations");
        cJSON_AddItemToArray(list, logical);
    }
    return loc;
}

static int sarif_result(void *ctx, const struct la_ci_note *n)
{
    cJSON *results = ctx, *r = cJSON_CreateObject();
    enum la_code code = la_finding_code_by_name(n->title);
    cJSON_AddStringToObject(r, "ruleId", n->title);
    cJSON_AddNumberToObject(r, "ruleIndex", code == LA_F_COUNT ? UNREADABLE_RULE : code);
    cJSON_AddStringToObject(r, "level", sarif_level(n->severity));
    add_text(r, "message", n->message);
    cJSON *locs = cJSON_AddArrayToObject(r, "locations");
    cJSON_AddItemToArray(locs, location(n));
    cJSON *props = n->prevents || (n->column && n->column[0])
                       ? cJSON_AddObjectToObject(r, "properties") : NULL;
    if (n->prevents) {                  /* this finding's own (it depends on --loss, the dtype) */
        char *clean = la_utf8_clean(n->prevents);
        cJSON_AddStringToObject(props, "prevents", clean ? clean : "");
        free(clean);
    }
    if (n->column && n->column[0]) {    /* the column it is of: input_ids, token_type_ids */
        char *clean = la_utf8_clean(n->column);
        cJSON_AddStringToObject(props, "column", clean ? clean : "");
        free(clean);
    }
    cJSON_AddItemToArray(results, r);
    return 0;
}

static char *sarif_document(const struct la_file_report *files, int n, const struct la_config *cfg,
                            const struct la_splits *splits)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "$schema", SARIF_SCHEMA);
    cJSON_AddStringToObject(doc, "version", "2.1.0");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "runs"), run);
    cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
    cJSON_AddStringToObject(driver, "name", "labelaudit");
    cJSON_AddStringToObject(driver, "version", PACKAGE_VERSION);
    cJSON_AddStringToObject(driver, "semanticVersion", PACKAGE_VERSION);
    cJSON_AddStringToObject(driver, "informationUri", PACKAGE_URL);
    cJSON_AddItemToObject(driver, "rules", rules());
    cJSON *results = cJSON_AddArrayToObject(run, "results");
    la_ci_notes(files, n, cfg, sarif_result, results);
    la_ci_split_notes(splits, sarif_result, results);
    char *printed = cJSON_Print(doc);
    cJSON_Delete(doc);
    char *text = printed ? la_escape_dup(printed, LA_ESC_JSON) : NULL;   /* DEL as \u007f */
    free(printed);
    return text;
}

int la_report_sarif(const struct la_file_report *files, int n, const struct la_config *cfg,
                    const struct la_splits *splits)
{
    char *text = sarif_document(files, n, cfg, splits), err[LA_ERR_LEN];
    int rc = -1;
    if (!text)
        la_err(cfg->sarif, "out of memory");
    else if ((rc = la_atomic_write(cfg->sarif, text, strlen(text), err, sizeof err)) != 0)
        la_err(cfg->sarif, "%s", err);
    free(text);
    return rc;
}
