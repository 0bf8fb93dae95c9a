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

static void add_text(cJSON *o, const char *key, const char *text)
{
    char *clean = la_utf8_clean(text);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(o, key), "text", clean ? clean : "");
    free(clean);
}

static cJSON *rule(const char *id, const char *level, const char *prevents, const char *fix)
{
    cJSON *r = cJSON_CreateObject();
    char help[2 * LA_MSG_LEN + 128];
    cJSON_AddStringToObject(r, "id", id);
    snprintf(help, sizeof help, "%s%s%s%s%s%s" "See man labelaudit, FINDINGS: %s.",
             prevents ? "Prevents: " : "", prevents ? prevents : "", prevents ? ".\n" : "",
             fix ? "Fix: " : "", fix ? fix : "", fix ? ".\n" : "", id);
    add_text(r, "shortDescription", id);
    add_text(r, "help", help);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "defaultConfiguration"), "level", level);
    return r;
}

static cJSON *rules(void)
{
    cJSON *a = cJSON_CreateArray();
    for (int c = 0; c < LA_F_COUNT; c++) {
        const struct la_code_def *def = la_finding_def((enum la_code)c);
        cJSON_AddItemToArray(a, rule(def->name, la_severity_name(def->severity), def->prevents,
                                     def->fix));
    }
    cJSON_AddItemToArray(a, rule("unreadable", "error", NULL,
                                 "the message names what could not be read, and where"));
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
        char name[96];
        if (n->flat || n->sample == LA_NO_SAMPLE)
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
    cJSON_AddStringToObject(r, "level", n->severity);
    add_text(r, "message", n->message);
    cJSON *locs = cJSON_AddArrayToObject(r, "locations");
    cJSON_AddItemToArray(locs, location(n));
    if (n->prevents) {                  /* this finding's own (it depends on --loss, the dtype) */
        cJSON *props = cJSON_AddObjectToObject(r, "properties");
        char *clean = la_utf8_clean(n->prevents);
        cJSON_AddStringToObject(props, "prevents", clean ? clean : "");
        free(clean);
    }
    cJSON_AddItemToArray(results, r);
    return 0;
}

static char *sarif_document(const struct la_file_report *files, int n, const struct la_config *cfg)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "$schema", SARIF_SCHEMA);
    cJSON_AddStringToObject(doc, "version", "2.1.0");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "runs"), run);
    cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
    cJSON_AddStringToObject(driver, "name", "labelaudit");
    cJSON_AddStringToObject(driver, "version", PACKAGE_VERSION);
    cJSON_AddItemToObject(driver, "rules", rules());
    la_ci_notes(files, n, cfg, sarif_result, cJSON_AddArrayToObject(run, "results"));
    char *printed = cJSON_Print(doc);
    cJSON_Delete(doc);
    char *text = printed ? la_escape_dup(printed, LA_ESC_JSON) : NULL;   /* DEL as \u007f */
    free(printed);
    return text;
}

int la_report_sarif(const struct la_file_report *files, int n, const struct la_config *cfg)
{
    char *text = sarif_document(files, n, cfg), err[LA_ERR_LEN];
    int rc = -1;
    if (!text)
        la_err(cfg->sarif, "out of memory");
    else if ((rc = la_atomic_write(cfg->sarif, text, strlen(text), err, sizeof err)) != 0)
        la_err(cfg->sarif, "%s", err);
    free(text);
    return rc;
}
