/* report_annotations.c - --annotations: the findings where a CI system shows
 * them beside the file in a pull or merge request.
 *
 *   github       GitHub Actions workflow commands, one line each:
 *                ::error file=F,line=L,title=CODE::MESSAGE
 *   gitlab:FILE  a GitLab Code Quality report (a JSON array), written atomically.
 * Both may be given.
 *
 * GitHub shows at most 10 error, 10 warning and 10 notice annotations of a
 * step and drops the rest (actions/toolkit's documented limit). So GitHub
 * gets one annotation per file and finding, errors first: its message, its
 * first bad entries (at their lines for csv/tsv/text and JSON Lines,
 * line_map.c), the fix and the PyTorch error it prevents; the annotation sits at the first entry's
 * line. Past the limit the last one of a severity sums up the others. With
 * GITHUB_STEP_SUMMARY set, a Markdown table of every file and finding is
 * appended to that file (the job's summary page).
 *
 * GitLab's report has no such limit: one annotation for each of the first
 * --max-report bad entries, then one per finding (the notes of ci_notes.h,
 * which SARIF writes too). A file that could not be read gets one error, at
 * the line its message names, if any. Arrays have no lines: their
 * annotations name the file. */
#include "context.h"  /* la_config_max_report */
#include "report.h"

#include <cjson/cJSON.h> /* cJSON_* */
#include <stdlib.h>      /* calloc, free, getenv */
#include <string.h>      /* strcmp */

#include "atomic_file.h"
#include "ci_notes.h"
#include "msg.h"
#include "utf8.h"

// ---- GitLab Code Quality ----------------------------------------------------------

/* A fingerprint GitLab can follow from run to run: FNV-1a over what the
 * annotation is about (file, code, entry), twice with two seeds: 32 hex digits. */
static void fingerprint(const struct la_ci_note *n, char out[33])
{
    uint64_t h[2] = { 14695981039346656037ull, 1099511628211ull * 31 };
    char key[32];
    snprintf(key, sizeof key, "%llu", (unsigned long long)n->key);
    const char *parts[] = { n->path, n->title, key };
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
            for (const unsigned char *p = (const unsigned char *)parts[i]; ; p++) {
                h[k] = (h[k] ^ *p) * 1099511628211ull;
                if (!*p)
                    break;
            }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
}

static void add_clean_string(cJSON *o, const char *key, const char *s)
{
    char *clean = la_utf8_clean(s);
    cJSON_AddStringToObject(o, key, clean ? clean : "");
    free(clean);
}

static int gitlab_note(void *ctx, const struct la_ci_note *n)
{
    cJSON *a = ctx, *o = cJSON_CreateObject();
    char fp[33];
    fingerprint(n, fp);
    add_clean_string(o, "description", n->message);
    cJSON_AddStringToObject(o, "check_name", n->title);
    cJSON_AddStringToObject(o, "fingerprint", fp);
    /* GitLab's scale: info, minor, major, critical, blocker */
    cJSON_AddStringToObject(o, "severity", strcmp(n->severity, "error") == 0 ? "major"
                                           : strcmp(n->severity, "notice") == 0 ? "info"
                                                                                : "minor");
    cJSON *loc = cJSON_AddObjectToObject(o, "location");
    add_clean_string(loc, "path", n->path);
    cJSON *lines = cJSON_AddObjectToObject(loc, "lines");
    cJSON_AddNumberToObject(lines, "begin", n->line ? (double)n->line : 1);
    cJSON_AddItemToArray(a, o);
    return 0;
}

static int write_gitlab(const struct la_file_report *files, int n, const struct la_config *cfg,
                        const struct la_splits *splits)
{
    cJSON *a = cJSON_CreateArray();
    la_ci_notes(files, n, cfg, gitlab_note, a);
    la_ci_split_notes(splits, gitlab_note, a);
    char *printed = cJSON_Print(a), err[LA_ERR_LEN];
    cJSON_Delete(a);
    char *text = printed ? la_escape_dup(printed, LA_ESC_JSON) : NULL;   /* DEL as \u007f */
    free(printed);
    int rc = -1;
    if (!text)
        la_err(cfg->annotations_file, "out of memory");
    else if ((rc = la_atomic_write(cfg->annotations_file, text, strlen(text), err, sizeof err)) != 0)
        la_err(cfg->annotations_file, "%s", err);
    free(text);
    return rc;
}

int la_report_annotations(const struct la_file_report *files, int n, const struct la_config *cfg,
                          const struct la_splits *splits)
{
    int rc = 0;
    if ((cfg->annotations & LA_ANNOT_GITLAB) && write_gitlab(files, n, cfg, splits) != 0)
        rc = -1;
    if ((cfg->annotations & LA_ANNOT_GITHUB) && la_report_github(files, n, cfg, splits) != 0)
        rc = -1;
    return rc;
}
