/* report_annotations.c - --annotations: the findings where a CI system shows
 * them beside the file in a pull or merge request.
 *
 *   github       GitHub Actions workflow commands, one line each:
 *                ::error file=F,line=L,title=CODE::MESSAGE
 *   gitlab:FILE  a GitLab Code Quality report (a JSON array), written atomically.
 *
 * Per file: one annotation for each of the first --max-report bad entries, at
 * its physical line for csv/tsv/text (line_map.c), then one summary
 * annotation per finding; a file that could not be read gets one error (at
 * the line its message names, if any). Arrays have no lines: their
 * annotations name the file. */
#include "report.h"

#include <cjson/cJSON.h> /* cJSON_* */
#include <stdlib.h>      /* calloc, free */
#include <string.h>      /* strcmp */

#include "atomic_file.h"
#include "line_map.h"
#include "msg.h"
#include "utf8.h"

/* One annotation, whatever the CI system. */
struct note {
    const char *severity;     /* "error" or "warning" */
    const char *title;        /* the finding's code */
    const char *path;
    uint64_t line;            /* 0: the file as a whole */
    uint64_t key;             /* what makes it unique within the file (a bad entry's index) */
    char message[2 * LA_MSG_LEN + 16];
};

typedef int (*note_sink)(void *ctx, const struct note *n);

// ---- what is annotated --------------------------------------------------------

static const char *verdict_code(int verdict)
{
    switch (verdict) {
    case LA_V_NON_FINITE:  return la_finding_code_name(LA_F_NON_FINITE);
    case LA_V_NON_INTEGER: return la_finding_code_name(LA_F_NON_INTEGER);
    case LA_V_UNPARSABLE:  return la_finding_code_name(LA_F_UNPARSABLE);
    default:               return la_finding_code_name(LA_F_OUT_OF_RANGE);
    }
}

static int is_table(const struct la_file_report *r)
{
    return la_format_has(r->info.format, LA_FMTF_TEXT);   /* entries have line numbers */
}

/* "label 10 outside [0, 10)", "target nan is not finite", ... */
static void describe_entry(const struct la_file_report *r, const struct la_config *cfg,
                           const struct la_bad *b, char *buf, size_t len)
{
    const char *what = cfg->loss == LA_LOSS_BCE ? "target" : "label";
    char val[96];
    if (b->text)
        snprintf(val, sizeof val, "\"%.80s\"", b->text);
    else
        la_format_num(b->value, r->info.dtype, val, sizeof val);
    switch (b->verdict) {
    case LA_V_NON_FINITE:
        snprintf(buf, len, "%s %s is not finite", what, val);
        break;
    case LA_V_NON_INTEGER:
        snprintf(buf, len, "%s %s is not an integer class", what, val);
        break;
    case LA_V_UNPARSABLE:
        snprintf(buf, len, "cell %s is not a number", val);
        break;
    default:
        if (cfg->loss == LA_LOSS_BCE)
            snprintf(buf, len, "target %s outside [0, 1]", val);
        else if (cfg->has_num_classes)
            snprintf(buf, len, "label %s outside [0, %lld)", val, (long long)cfg->num_classes);
        else
            snprintf(buf, len, "label %s below 0", val);
    }
}

/* The first --max-report bad entries, each at its line where the file has lines. */
static int note_entries(const struct la_file_report *r, const struct la_config *cfg,
                        note_sink sink, void *ctx)
{
    size_t n = r->stats.n_bad;
    uint64_t max = la_config_max_report(cfg);
    n = n < max ? n : (size_t)max;
    if (n == 0)
        return 0;
    uint64_t *rows = calloc(n, sizeof *rows), *lines = calloc(n, sizeof *lines);
    int rc = rows && lines ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rows[i] = r->stats.bad[i].index;
    if (rc == 0 && r->info.ndim < 2)
        la_line_map(r, cfg, rows, n, lines);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct la_bad *b = &r->stats.bad[i];
        struct note note = { "error", verdict_code(b->verdict), r->path, lines[i], b->index, "" };
        char what[LA_MSG_LEN];
        describe_entry(r, cfg, b, what, sizeof what);
        if (lines[i])
            snprintf(note.message, sizeof note.message, "%s", what);
        else if (r->info.ndim >= 2)
            snprintf(note.message, sizeof note.message, "sample %llu, index %llu: %s",
                     (unsigned long long)b->sample, (unsigned long long)b->index, what);
        else
            snprintf(note.message, sizeof note.message, "%s %llu: %s",
                     is_table(r) ? "row" : "index", (unsigned long long)b->index, what);
        rc = sink(ctx, &note);
    }
    free(rows);
    free(lines);
    return rc;
}

/* "line 17: ..." from a reader's message: where an unreadable file went wrong. */
static uint64_t line_of_error(const char *error)
{
    unsigned long long line;
    return sscanf(error, "line %llu:", &line) == 1 ? (uint64_t)line : 0;
}

static int note_file(const struct la_file_report *r, const struct la_config *cfg,
                     note_sink sink, void *ctx)
{
    if (!r->read_ok) {
        struct note note = { "error", "unreadable", r->path, line_of_error(r->error), 0, "" };
        snprintf(note.message, sizeof note.message, "%s", r->error);
        return sink(ctx, &note);
    }
    if (note_entries(r, cfg, sink, ctx) != 0)
        return -1;
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct la_finding *f = &r->findings[i];
        struct note note = { la_severity_name(f->severity), la_finding_code_name(f->code),
                             r->path, 0, UINT64_MAX - i, "" };
        snprintf(note.message, sizeof note.message, "%s%s%s", f->message,
                 f->hint[0] ? "; fix: " : "", f->hint);
        if (sink(ctx, &note) != 0)
            return -1;
    }
    return 0;
}

static int note_all(const struct la_file_report *files, int n, const struct la_config *cfg,
                    note_sink sink, void *ctx)
{
    for (int i = 0; i < n; i++)
        if (note_file(&files[i], cfg, sink, ctx) != 0)
            return -1;
    return 0;
}

// ---- GitHub workflow commands ---------------------------------------------------

/* GitHub's escaping: %, CR and LF in the message; also ':' and ',' in a
 * property, where they would end the value; the other control bytes as \xNN
 * (GitHub decodes no other %XX, and its log would obey an escape sequence).
 * Text from the input is made valid UTF-8. */
static void put_escaped(FILE *out, const char *s, int property)
{
    la_fputs_escape(s, out, property ? LA_ESC_GITHUB_PROPERTY : LA_ESC_GITHUB_MESSAGE);
}

static int github_note(void *ctx, const struct note *n)
{
    FILE *out = ctx;
    fprintf(out, "::%s file=", n->severity);
    put_escaped(out, n->path, 1);
    if (n->line)
        fprintf(out, ",line=%llu", (unsigned long long)n->line);
    fputs(",title=", out);
    put_escaped(out, n->title, 1);
    fputs("::", out);
    put_escaped(out, n->message, 0);
    fputc('\n', out);
    return ferror(out) ? -1 : 0;
}

// ---- GitLab Code Quality ----------------------------------------------------------

/* A fingerprint GitLab can follow from run to run: FNV-1a over what the
 * annotation is about (file, code, entry), twice with two seeds: 32 hex digits. */
static void fingerprint(const struct note *n, char out[33])
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

static int gitlab_note(void *ctx, const struct note *n)
{
    cJSON *a = ctx, *o = cJSON_CreateObject();
    char fp[33];
    fingerprint(n, fp);
    add_clean_string(o, "description", n->message);
    cJSON_AddStringToObject(o, "check_name", n->title);
    cJSON_AddStringToObject(o, "fingerprint", fp);
    /* GitLab's scale: info, minor, major, critical, blocker */
    cJSON_AddStringToObject(o, "severity", strcmp(n->severity, "error") == 0 ? "major" : "minor");
    cJSON *loc = cJSON_AddObjectToObject(o, "location");
    add_clean_string(loc, "path", n->path);
    cJSON *lines = cJSON_AddObjectToObject(loc, "lines");
    cJSON_AddNumberToObject(lines, "begin", n->line ? (double)n->line : 1);
    cJSON_AddItemToArray(a, o);
    return 0;
}

static int write_gitlab(const struct la_file_report *files, int n, const struct la_config *cfg)
{
    cJSON *a = cJSON_CreateArray();
    note_all(files, n, cfg, gitlab_note, a);
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

int la_report_annotations(const struct la_file_report *files, int n, const struct la_config *cfg)
{
    if (cfg->annotations == LA_ANNOT_GITLAB)
        return write_gitlab(files, n, cfg);
    if (cfg->annotations != LA_ANNOT_GITHUB)
        return 0;
    FILE *out = cfg->json ? stderr : stdout;   /* never inside the JSON document */
    if (note_all(files, n, cfg, github_note, out) != 0 || fflush(out) != 0) {
        la_err(NULL, "write error: annotations");
        return -1;
    }
    return 0;
}
