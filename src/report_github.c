/* report_github.c - --annotations=github: GitHub Actions workflow commands,
 * within what GitHub shows, and the job summary (report_annotations.c says
 * what goes where).
 *
 * GitHub shows 10 error, 10 warning and 10 notice annotations of a step and
 * drops the others, silently. One annotation per file and finding, errors
 * first, keeps the files and their fixes in sight: with more than 10 of a
 * severity, the first 9 are written and the 10th names the rest. */
#include "context.h"  /* la_config_max_report */
#include "report.h"

#include <errno.h>  /* errno */
#include <stdio.h>  /* fprintf, sscanf */
#include <stdlib.h> /* free */
#include <string.h> /* strchr, strlen, strncmp */

#include "ci_notes.h"
#include "ci_path.h"
#include "msg.h"
#include "outputs.h"   /* la_outputs_step_summary */
#include "utf8.h"

#define GITHUB_LIMIT 10              /* annotations of one severity per step */
#define GITHUB_ENTRIES 10            /* bad entries in one annotation's message */
#define GITHUB_MESSAGE 8192

/* What one pass over the files (one severity) has written so far. */
struct github {
    FILE *out;
    const struct la_config *cfg;
    enum la_severity pass;
    uint64_t total, written;         /* annotations of this severity; written so far */
    char rest[1024];                 /* the ones past the limit, named */
    size_t rest_len;
};

/* GitHub's escaping: %, CR and LF in the message; also ':' and ',' in a
 * property, where they would end the value; the other control bytes as \xNN
 * (GitHub decodes no other %XX, and its log would obey an escape sequence).
 * Text from the input is made valid UTF-8. */
static void put_escaped(FILE *out, const char *s, int property)
{
    la_fputs_escape(s, out, property ? LA_ESC_GITHUB_PROPERTY : LA_ESC_GITHUB_MESSAGE);
}

static void put_command(FILE *out, const char *severity, const char *path, uint64_t line,
                        const char *title, const char *message)
{
    fprintf(out, "::%s ", severity);
    if (path) {
        fputs("file=", out);
        put_escaped(out, path, 1);
        if (line)
            fprintf(out, ",line=%llu", (unsigned long long)line);
        fputc(',', out);
    }
    fputs("title=", out);
    put_escaped(out, title, 1);
    fputs("::", out);
    put_escaped(out, message, 0);
    fputc('\n', out);
}

/* The last two words of s up to end: what "they look 1-based" and "labels
 * look 1-based" share. */
static const char *last_words(const char *s, size_t end)
{
    size_t spaces = 0, i = end;
    while (i > 0 && !(s[i - 1] == ' ' && ++spaces == 2))
        i--;
    return s + i;
}

/* The fix without a leading clause that says again what the message ends
 * with ("labels look 1-based: subtract 1" after "... they look 1-based"). */
static const char *fix_of(const char *message, const char *hint)
{
    const char *colon = strstr(hint, ": ");
    if (!colon)
        return hint;
    const char *said = last_words(hint, (size_t)(colon - hint));
    size_t n = (size_t)(colon - said), len = strlen(message);
    return len >= n && strncmp(message + len - n, said, n) == 0 ? colon + 2 : hint;
}

/* The finding's message, its first entries, its fix and what it prevents. */
static void compose(const struct la_file_report *r, const struct la_config *cfg,
                    const struct la_finding *f, char *msg, size_t len, uint64_t *line)
{
    char entries[4096];
    uint64_t max = la_config_max_report(cfg);
    la_ci_entries(r, cfg, f->code, max < GITHUB_ENTRIES ? max : GITHUB_ENTRIES, "  ", entries,
                  sizeof entries, line);
    size_t used = (size_t)snprintf(msg, len, "%s", f->message);
    if (entries[0] && used < len)
        used += (size_t)snprintf(msg + used, len - used, "\n%s", entries);
    if (f->hint[0] && used < len)
        used += (size_t)snprintf(msg + used, len - used, "\nfix: %s", fix_of(f->message, f->hint));
    if (f->prevents && used < len)
        snprintf(msg + used, len - used, "\nprevents: %s", f->prevents);
}

/* One annotation of the pass, or its name in the sum past the limit. */
static void annotate(struct github *g, const char *path, uint64_t line, const char *title,
                     const char *message)
{
    g->written++;
    if (g->total <= GITHUB_LIMIT || g->written < GITHUB_LIMIT) {
        put_command(g->out, la_severity_name(g->pass), path, line, title, message);
        return;
    }
    if (g->rest_len < sizeof g->rest)
        g->rest_len += (size_t)snprintf(g->rest + g->rest_len, sizeof g->rest - g->rest_len,
                                        "%s%s [%s]", g->rest_len ? ", " : "", path, title);
}

static void annotate_file(struct github *g, const struct la_file_report *r)
{
    char path[4096], msg[GITHUB_MESSAGE];
    la_ci_path(r->path, path, sizeof path);
    if (!r->read_ok) {
        unsigned long long line = 0;
        if (g->pass == LA_SEV_ERROR)
            annotate(g, path, sscanf(r->error, "line %llu:", &line) == 1 ? line : 0,
                     "unreadable", r->error);
        return;
    }
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct la_finding *f = &r->findings[i];
        uint64_t line = 0;
        if (f->severity != g->pass)
            continue;
        compose(r, g->cfg, f, msg, sizeof msg, &line);
        la_ci_finding_path(r, f->code, path, sizeof path);  /* a mask folder: its first bad PNG */
        annotate(g, path, line, la_finding_code_name(f->code), msg);
    }
}

static uint64_t count_of(const struct la_file_report *files, int n, enum la_severity sev)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (!files[i].read_ok) {
            total += sev == LA_SEV_ERROR;
            continue;
        }
        for (size_t k = 0; k < files[i].n_findings; k++)
            total += files[i].findings[k].severity == sev;
    }
    return total;
}

/* The findings between splits of this pass's severity, after the files'. */
static void annotate_splits(struct github *g, const struct la_splits *s)
{
    for (size_t i = 0; s && i < s->n_findings; i++) {
        const struct la_finding *f = &s->findings[i];
        char path[4096], msg[GITHUB_MESSAGE];
        if (f->severity != g->pass)
            continue;
        snprintf(msg, sizeof msg, "%s%s%s", f->message, f->hint[0] ? "\nfix: " : "", f->hint);
        annotate(g, la_ci_split_path(s, i, path, sizeof path), 0, la_finding_code_name(f->code),
                 msg);
    }
}

static uint64_t split_count_of(const struct la_splits *s, enum la_severity sev)
{
    uint64_t total = 0;
    for (size_t i = 0; s && i < s->n_findings; i++)
        total += s->findings[i].severity == sev;
    return total;
}

static void github_pass(FILE *out, const struct la_file_report *files, int n,
                        const struct la_config *cfg, const struct la_splits *splits,
                        enum la_severity sev)
{
    struct github g = { out, cfg, sev, count_of(files, n, sev) + split_count_of(splits, sev), 0,
                        "", 0 };
    for (int i = 0; i < n; i++)
        annotate_file(&g, &files[i]);
    annotate_splits(&g, splits);
    if (g.total <= GITHUB_LIMIT)
        return;
    char msg[sizeof g.rest + 256];
    const char *name = sev == LA_SEV_ERROR ? "errors" : sev == LA_SEV_NOTICE ? "notices"
                                                                             : "warnings";
    snprintf(msg, sizeof msg, "%llu more %s than GitHub shows (%d per step): %s%s\n"
             "the report, --sarif=FILE and --junit=FILE list them all",
             (unsigned long long)(g.total - (GITHUB_LIMIT - 1)), name, GITHUB_LIMIT, g.rest,
             g.rest_len >= sizeof g.rest ? ", ..." : "");
    put_command(out, la_severity_name(sev), NULL, 0, "labelaudit", msg);
}

// ---- the job summary: GITHUB_STEP_SUMMARY ----------------------------------------

/* Markdown table cell text: HTML's entities (GitHub renders them), and the
 * characters that would end the cell or start emphasis, a link or code. */
static void put_cell(FILE *out, const char *s)
{
    char *x = la_escape_dup(s, LA_ESC_XML);
    for (const char *p = x ? x : ""; *p; p++) {
        if (strchr("|*_`[]\\", *p))
            fputc('\\', out);
        fputc(*p, out);
    }
    free(x);
}

static void summary_row(FILE *out, const char *path, const char *severity, const char *code,
                        const char *message, const char *hint, const char *prevents)
{
    fputs("| ", out);
    put_cell(out, path);
    fputs(" | ", out);
    if (severity) {
        fprintf(out, "**%s** %s: ", severity, code);
        put_cell(out, message);
    } else {
        fputs("ok", out);
    }
    fputs(" | ", out);
    put_cell(out, hint ? hint : "");
    fputs(" | ", out);
    put_cell(out, prevents ? prevents : "");
    fputs(" |\n", out);
}

static void summary_file(FILE *out, const struct la_file_report *r)
{
    char path[4096];
    la_ci_path(r->path, path, sizeof path);
    if (!r->read_ok) {
        summary_row(out, path, "error", "unreadable", r->error, NULL, NULL);
        return;
    }
    if (r->n_findings == 0)
        summary_row(out, path, NULL, NULL, NULL, NULL, NULL);
    for (int pass = LA_SEV_ERROR; pass >= LA_SEV_WARNING; pass--)
        for (size_t i = 0; i < r->n_findings; i++) {
            const struct la_finding *f = &r->findings[i];
            if ((int)f->severity == pass)
                summary_row(out, path, la_severity_name(f->severity),
                            la_finding_code_name(f->code), f->message, f->hint, f->prevents);
        }
}

/* Appended, as GitHub asks: every step of the job writes its part. */
static int write_step_summary(const char *file, const struct la_file_report *files, int n)
{
    FILE *out = fopen(file, "a");
    if (!out) {
        la_err(file, "cannot append the job summary (GITHUB_STEP_SUMMARY): %s", strerror(errno));
        return -1;
    }
    uint64_t errors = count_of(files, n, LA_SEV_ERROR), warnings = count_of(files, n, LA_SEV_WARNING);
    fprintf(out, "### labelaudit: %d %s, %llu %s, %llu %s\n\n"
                 "| file | finding | fix | prevents (PyTorch) |\n|---|---|---|---|\n",
            n, n == 1 ? "file" : "files", (unsigned long long)errors,
            errors == 1 ? "error" : "errors", (unsigned long long)warnings,
            warnings == 1 ? "warning" : "warnings");
    for (int i = 0; i < n; i++)
        summary_file(out, &files[i]);
    fputc('\n', out);
    if (fclose(out) != 0) {
        la_err(file, "write error: the job summary (GITHUB_STEP_SUMMARY)");
        return -1;
    }
    return 0;
}

int la_report_github(const struct la_file_report *files, int n, const struct la_config *cfg,
                     const struct la_splits *splits)
{
    FILE *out = cfg->json ? stderr : stdout;   /* never inside the JSON document */
    github_pass(out, files, n, cfg, splits, LA_SEV_ERROR);
    github_pass(out, files, n, cfg, splits, LA_SEV_WARNING);
    github_pass(out, files, n, cfg, splits, LA_SEV_NOTICE);
    if (fflush(out) != 0 || ferror(out)) {
        la_err(NULL, "write error: annotations");
        return -1;
    }
    const char *summary = la_outputs_step_summary(cfg);   /* checked: not an input */
    return summary ? write_step_summary(summary, files, n) : 0;
}
