/* nnunet_json.c - an nnU-Net raw dataset's dataset.json: its `labels`
 * (class_meta.h).
 *
 * nnU-Net v2 maps names to values ("background": 0, "edema": 1), a region
 * to a list of values ("whole tumor": [1, 2, 3]); v1 maps values, as text,
 * to names ("0": "background"). The masks hold every value named, a
 * region's too (LabelManager.all_labels: BraTS' regions of 1, 2 and 3 are
 * masks of 0..3, though no entry names 1 or 2 alone). nnU-Net's
 * verify_dataset_integrity wants the
 * values to start at 0, the background, and run on without a gap ("Labels
 * must be in consecutive order (0, 1, 2, ...)"): the class count is the
 * highest value + 1, and a set that breaks the rule is kept as the file's
 * problem (a finding). Read whole with cJSON: a dataset.json is small. */
#include "class_meta.h"

#include <cjson/cJSON.h>
#include "reader.h"   /* la_one_line */
#include <math.h>     /* floor */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* free, strtoll */
#include <string.h>   /* strlen */

#define DATASET_JSON_MAX (16u << 20)
#define MAX_LABEL 65535                 /* masks hold uint8 or uint16 values */

/* A label value: a whole number in [0, MAX_LABEL]. */
static int label_value(const cJSON *v, uint64_t *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > MAX_LABEL)
        return 0;
    *out = (uint64_t)v->valuedouble;
    return 1;
}

/* v1's key: "0", "1", ... */
static int text_value(const char *s, uint64_t *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || v < 0 || v > MAX_LABEL)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

/* One entry of labels: its value(s) into seen[], its name into m. */
static int read_entry(const cJSON *e, struct la_class_meta *m, unsigned char *seen, char *err,
                      size_t errlen)
{
    uint64_t v = 0;
    if (cJSON_IsString(e) && text_value(e->string, &v)) {          /* v1 */
        seen[v] = 1;
        return la_class_meta_set_name(m, v, e->valuestring, strlen(e->valuestring));
    }
    if (label_value(e, &v)) {                                       /* v2 */
        seen[v] = 1;
        return la_class_meta_set_name(m, v, e->string, strlen(e->string));
    }
    if (cJSON_IsArray(e) && cJSON_GetArraySize(e) > 0) {           /* a region */
        for (const cJSON *x = e->child; x; x = x->next) {
            if (!label_value(x, &v)) {
                snprintf(err, errlen, "labels \"%.64s\": a region of values that are not "
                         "label values (0 to %d)", e->string, MAX_LABEL);
                return -2;
            }
            seen[v] = 1;      /* LabelManager.all_labels: a region's values are mask values */
        }
        if (cJSON_GetArraySize(e) == 1)          /* "enhancing tumor": [3] names value 3 */
            return la_class_meta_set_name(m, v, e->string, strlen(e->string));
        return 0;
    }
    snprintf(err, errlen, "labels \"%.64s\" is not a label value (0 to %d) or a region",
             e->string, MAX_LABEL);
    return -2;
}

/* The count (highest value + 1) and whether the values run 0, 1, 2, ... */
static void judge_values(const unsigned char *seen, struct la_class_meta *m)
{
    int64_t top = -1;
    uint64_t gaps = 0, first_gap = 0;
    for (int64_t v = 0; v <= MAX_LABEL; v++)
        if (seen[v])
            top = v;
    for (int64_t v = 0; v < top; v++)
        if (!seen[v] && gaps++ == 0)
            first_gap = (uint64_t)v;
    m->has_n = top >= 0;
    m->n = (uint64_t)(top + 1);
    m->key = "labels";
    if (top >= 0 && !seen[0])
        snprintf(m->problem, sizeof m->problem, "labels has no value 0 (nnU-Net: \"The first "
                 "label must be 0 and maps to the background\")");
    else if (gaps)
        snprintf(m->problem, sizeof m->problem, "labels skip %llu value%s (first: %llu) "
                 "below %lld (nnU-Net: \"Labels must be in consecutive order (0, 1, 2, ...)\")",
                 (unsigned long long)gaps, gaps == 1 ? "" : "s", (unsigned long long)first_gap,
                 (long long)top);
}

int la_nnunet_parse(const char *text, size_t len, struct la_class_meta *m, char *err,
                    size_t errlen)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(root, "labels");
    unsigned char *seen = NULL;
    int rc = -1;
    if (!cJSON_IsObject(root))
        snprintf(err, errlen, "%s", root ? "not a JSON object" : "not JSON (or nested too deep)");
    else if (!cJSON_IsObject(labels))
        snprintf(err, errlen, "no \"labels\" object");
    else if (!(seen = calloc(MAX_LABEL + 1, 1)))
        snprintf(err, errlen, "out of memory");
    else
        rc = 0;
    for (const cJSON *e = rc == 0 ? labels->child : NULL; e && rc == 0; e = e->next) {
        rc = read_entry(e, m, seen, err, errlen);
        if (rc == -1)
            snprintf(err, errlen, "out of memory");
    }
    if (rc == 0) {
        judge_values(seen, m);
        if (!m->has_n) {
            snprintf(err, errlen, "\"labels\" holds no label value");
            rc = -1;
        }
    }
    free(seen);
    cJSON_Delete(root);
    if (rc != 0)
        la_class_meta_free(m);
    la_one_line(rc ? err : m->problem);   /* a key the file gives may hold a newline */
    return rc ? -1 : 0;
}

int la_nnunet_read(const char *path, struct la_class_meta *m, char *err, size_t errlen)
{
    char *text;
    size_t len;
    char why[400] = "";
    if (la_read_small_file(path, DATASET_JSON_MAX, &text, &len, err, errlen) != 0)
        return -1;
    int rc = la_nnunet_parse(text, len, m, why, sizeof why);
    free(text);
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, why);
    else
        snprintf(m->path, sizeof m->path, "%s", path);
    return rc;
}
