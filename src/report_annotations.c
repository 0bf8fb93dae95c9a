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
#include "report.h"

#include <cjson/cJSON.h> /* cJSON_* */
#include <stdlib.h>      /* calloc, free, getenv */
#include <string.h>      /* strcmp */

#include "atomic_file.h"
#include "ci_notes.h"
#include "ci_path.h"
#include "line_map.h"
#include "msg.h"
#include "utf8.h"

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

static void format_value(const struct la_file_report *r, const struct la_bad *b, char *val,
                         size_t len)
{
    if (b->text)
        snprintf(val, len, "\"%.80s\"", b->text);
    else
        la_format_num(b->value, r->info.dtype, val, len);
}

/* "label 10 outside [0, 10)", "target nan is not finite", ... */
static void describe_entry(const struct la_file_report *r, const struct la_config *cfg,
                           const struct la_bad *b, char *buf, size_t len)
{
    const char *what = cfg->loss == LA_LOSS_BCE ? "target" : "label";
    char val[96];
    format_value(r, b, val, sizeof val);
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

/* "row 17 (line 19)", "record 17 (line 19)", "row 17", "index 17", "sample 0, index 10". */
static void describe_position(const struct la_file_report *r, const struct la_bad *b,
                              uint64_t line, char *buf, size_t len)
{
    unsigned long long index = b->index;
    if (r->info.ndim >= 2)
        snprintf(buf, len, "sample %llu, index %llu", (unsigned long long)b->sample, index);
    else if (r->info.line_records && line)
        la_line_record(b, line, buf, len);
    else if (is_table(r) && line)
        snprintf(buf, len, "row %llu (line %llu)", index, (unsigned long long)line);
    else
        snprintf(buf, len, "%s %llu", is_table(r) ? "row" : "index", index);
}

/* The lines of the first n entries (0 where unknown); NULL when out of memory. */
static uint64_t *lines_of(const struct la_file_report *r, const struct la_config *cfg,
                          const size_t *which, size_t n)
{
    uint64_t *rows = calloc(n ? n : 1, sizeof *rows), *lines = calloc(n ? n : 1, sizeof *lines);
    if (!rows || !lines) {
        free(rows);
        free(lines);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = la_line_row(r, &r->stats.bad[which ? which[i] : i]);
    if (n && r->info.ndim < 2)
        la_line_map(r, cfg, rows, n, lines);
    free(rows);
    return lines;
}

size_t la_ci_entries(const struct la_file_report *r, const struct la_config *cfg,
                     enum la_code code, uint64_t max, const char *indent, char *buf, size_t len,
                     uint64_t *first_line)
{
    size_t n = 0, used = 0;
    size_t *which = calloc(r->stats.n_bad ? r->stats.n_bad : 1, sizeof *which);
    *first_line = 0;
    if (len)
        buf[0] = '\0';
    if (!which)
        return 0;
    for (size_t i = 0; i < r->stats.n_bad && n < max; i++)
        if (la_bad_belongs(code, r->stats.bad[i].verdict))
            which[n++] = i;
    uint64_t *lines = lines_of(r, cfg, which, n);
    for (size_t i = 0; lines && i < n && used < len; i++) {
        char pos[96], val[96];
        describe_position(r, &r->stats.bad[which[i]], lines[i], pos, sizeof pos);
        format_value(r, &r->stats.bad[which[i]], val, sizeof val);
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s: %s", i ? "\n" : "", indent,
                                 pos, val);
    }
    uint64_t total = la_finding_entries(&r->stats, code);
    if (lines && total > n && used < len)
        snprintf(buf + used, len - used, "%s%s... %llu more", n ? "\n" : "", indent,
                 (unsigned long long)(total - n));
    if (lines && n)
        *first_line = lines[0];
    free(lines);
    free(which);
    return n;
}

/* The first --max-report bad entries, each at its line where the file has lines. */
static int note_entries(const struct la_file_report *r, const struct la_config *cfg,
                        const char *path, la_ci_sink sink, void *ctx)
{
    size_t n = r->stats.n_bad;
    uint64_t max = la_config_max_report(cfg);
    n = n < max ? n : (size_t)max;
    if (n == 0)
        return 0;
    uint64_t *lines = lines_of(r, cfg, NULL, n);
    int rc = lines ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct la_bad *b = &r->stats.bad[i];
        struct la_ci_note note = { .severity = "error", .title = verdict_code(b->verdict),
                                   .path = path, .line = lines[i], .key = b->index,
                                   .is_entry = 1, .index = b->index, .sample = b->sample,
                                   .flat = r->info.ndim < 2, .hint = "" };
        char what[LA_MSG_LEN];
        describe_entry(r, cfg, b, what, sizeof what);
        if (lines[i] && b->index != b->sample && r->info.line_records)
            snprintf(note.message, sizeof note.message, "index %llu: %s",   /* a list's item */
                     (unsigned long long)b->index, what);
        else if (lines[i])
            snprintf(note.message, sizeof note.message, "%s", what);
        else if (r->info.ndim >= 2)
            snprintf(note.message, sizeof note.message, "sample %llu, index %llu: %s",
                     (unsigned long long)b->sample, (unsigned long long)b->index, what);
        else
            snprintf(note.message, sizeof note.message, "%s %llu: %s",
                     is_table(r) ? "row" : "index", (unsigned long long)b->index, what);
        rc = sink(ctx, &note);
    }
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
                     la_ci_sink sink, void *ctx)
{
    char path[4096];
    la_ci_path(r->path, path, sizeof path);
    if (!r->read_ok) {
        struct la_ci_note note = { .severity = "error", .title = "unreadable", .path = path,
                                   .line = line_of_error(r->error), .hint = "" };
        snprintf(note.message, sizeof note.message, "%s", r->error);
        return sink(ctx, &note);
    }
    int rc = note_entries(r, cfg, path, sink, ctx);
    for (size_t i = 0; rc == 0 && i < r->n_findings; i++) {
        const struct la_finding *f = &r->findings[i];
        struct la_ci_note note = { .severity = la_severity_name(f->severity),
                                   .title = la_finding_code_name(f->code), .path = path,
                                   .key = UINT64_MAX - i, .hint = f->hint,
                                   .prevents = f->prevents };
        snprintf(note.message, sizeof note.message, "%s%s%s", f->message,
                 f->hint[0] ? "; fix: " : "", f->hint);
        rc = sink(ctx, &note);
    }
    return rc;
}

int la_ci_notes(const struct la_file_report *files, int n, const struct la_config *cfg,
                la_ci_sink sink, void *ctx)
{
    for (int i = 0; i < n; i++) {
        int rc = note_file(&files[i], cfg, sink, ctx);
        if (rc != 0)
            return rc;
    }
    return 0;
}

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
    la_ci_notes(files, n, cfg, gitlab_note, a);
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
    int rc = 0;
    if ((cfg->annotations & LA_ANNOT_GITLAB) && write_gitlab(files, n, cfg) != 0)
        rc = -1;
    if ((cfg->annotations & LA_ANNOT_GITHUB) && la_report_github(files, n, cfg) != 0)
        rc = -1;
    return rc;
}
