/* label_notes.c - the findings and problems a reader reports beside its values. */
#include "label_notes.h"
#include "dataset.h" /* la_dataset_free */
#include "msg.h"   /* la_fputs_escaped */
#include "util.h"  /* la_grow_n */

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp */

struct la_notes *la_notes_new(size_t cap)
{
    struct la_notes *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->cap = cap;   /* a limit, not a size: the list grows as problems come */
    return n;
}

void la_notes_free(struct la_notes *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n_problems; i++)
        cJSON_Delete(n->problems[i].json);
    for (size_t i = 0; i < n->n_lines; i++)
        free(n->lines[i]);
    free(n->lines);
    free(n->problems);
    cJSON_Delete(n->json);
    la_dataset_free(n->sources);
    if (n->free_ctx)
        n->free_ctx(n->ctx);
    free(n);
}

static void tally(struct la_notes *n, const char *code)
{
    for (size_t i = 0; i < n->n_tally; i++)
        if (strcmp(n->tally[i].code, code) == 0) {
            n->tally[i].count++;
            return;
        }
    if (n->n_tally < LA_NOTES_MAX_FINDINGS) {
        n->tally[n->n_tally].code = code;
        n->tally[n->n_tally++].count = 1;
    }
}

uint64_t la_notes_count(const struct la_notes *n, const char *code)
{
    for (size_t i = 0; n && i < n->n_tally; i++)
        if (strcmp(n->tally[i].code, code) == 0)
            return n->tally[i].count;
    return 0;
}

/* The JSON entry of a problem made from its fields. */
static cJSON *problem_json(const struct la_note *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "code", p->code);
    cJSON_AddNumberToObject(o, "index", (double)p->index);
    cJSON_AddNumberToObject(o, "sample", (double)p->sample);
    cJSON_AddStringToObject(o, "where", p->where);
    cJSON_AddStringToObject(o, "what", p->what);
    return o;
}

int la_notes_problem(struct la_notes *n, const char *code, uint64_t index, uint64_t sample,
                     const char *where, const char *what, cJSON *json)
{
    int place = strcmp(code, "at") == 0;
    if (!place) {
        n->problems_total++;
        tally(n, code);
    }
    /* up to cap problems of the reader's own and cap places of the scan's bad entries */
    if ((place ? n->n_problems - n->n_own : n->n_own) >= n->cap) {
        cJSON_Delete(json);
        return 0;
    }
    if (la_grow_n(&n->problems, &n->cap_problems, n->n_problems + 1, sizeof *n->problems, 16) != 0) {
        cJSON_Delete(json);
        return -1;
    }
    n->n_own += !place;
    struct la_note *p = &n->problems[n->n_problems];
    *p = (struct la_note){ .code = code, .index = index, .sample = sample };
    snprintf(p->where, sizeof p->where, "%s", where);
    snprintf(p->what, sizeof p->what, "%s", what);
    p->json = json ? json : problem_json(p);
    if (!p->json)
        return -1;
    if (json) {   /* the reader's own fields first, then the common ones */
        cJSON_AddStringToObject(json, "code", code);
        cJSON_AddStringToObject(json, "what", what);
    }
    n->n_problems++;
    return 0;
}

struct la_note_finding *la_notes_finding(struct la_notes *n, int error, const char *code,
                                         const char *prevents, const char *fmt, ...)
{
    static struct la_note_finding dropped;   /* written to, never read */
    if (n->n_findings >= LA_NOTES_MAX_FINDINGS)
        return &dropped;
    struct la_note_finding *f = &n->findings[n->n_findings++];
    *f = (struct la_note_finding){ .error = error, .code = code, .prevents = prevents };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return f;
}

int la_notes_line(struct la_notes *n, const char *fmt, ...)
{
    char **grown = realloc(n->lines, (n->n_lines + 1) * sizeof *grown);
    if (!grown)
        return -1;
    n->lines = grown;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *line = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!line)
        return -1;
    va_start(ap, fmt);
    vsnprintf(line, (size_t)len + 1, fmt, ap);
    va_end(ap);
    n->lines[n->n_lines++] = line;
    return 0;
}

const struct la_note *la_notes_find(const struct la_notes *n, uint64_t index, const char *code)
{
    for (size_t i = 0; n && i < n->n_problems; i++)
        if (n->problems[i].index == index && strcmp(n->problems[i].code, code) == 0)
            return &n->problems[i];
    return NULL;
}

// ---- for the reports -------------------------------------------------------------

const char *la_notes_where(const struct la_notes *n, uint64_t index)
{
    const struct la_note *p = la_notes_find(n, index, "at");
    return p ? p->where : NULL;
}

void la_notes_print_lines(FILE *out, const struct la_notes *n)
{
    for (size_t i = 0; n && i < n->n_lines; i++) {
        la_fputs_escaped(n->lines[i], out);
        fputc('\n', out);
    }
}

void la_notes_print_problems(FILE *out, const struct la_notes *n, const char *code,
                             uint64_t max_report)
{
    uint64_t shown = 0;
    for (size_t i = 0; n && i < n->n_problems && shown < max_report; i++) {
        const struct la_note *p = &n->problems[i];
        if (strcmp(p->code, code) != 0)
            continue;
        fputs("      ", out);
        la_fputs_escaped(p->where, out);
        fputs(": ", out);
        la_fputs_escaped(p->what, out);
        fputc('\n', out);
        shown++;
    }
    uint64_t total = la_notes_count(n, code);
    if (total > shown)
        fprintf(out, "      ... %llu more (--max-report or --json list them)\n",
                (unsigned long long)(total - shown));
}

void la_notes_json_bad(const struct la_notes *n, uint64_t index, cJSON *entry)
{
    const struct la_note *p = la_notes_find(n, index, "at");
    if (!p || !p->json)
        return;
    for (const cJSON *f = p->json->child; f; f = f->next) {
        if (strcmp(f->string, "index") == 0 || strcmp(f->string, "code") == 0 ||
            strcmp(f->string, "what") == 0)
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(entry, f->string);   /* sample: the file's, the image's */
        cJSON_AddItemToObject(entry, f->string, cJSON_Duplicate(f, 1));
    }
}

void la_notes_json_add(const struct la_notes *n, const char *format, cJSON *file)
{
    if (!n || !n->json)
        return;
    cJSON *o = cJSON_Duplicate(n->json, 1);
    cJSON *list = cJSON_AddArrayToObject(o, "problems");
    for (size_t i = 0; i < n->n_problems; i++)
        if (strcmp(n->problems[i].code, "at") != 0)
            cJSON_AddItemToArray(list, cJSON_Duplicate(n->problems[i].json, 1));
    cJSON_AddNumberToObject(o, "problems_total", (double)n->problems_total);
    cJSON_AddBoolToObject(o, "problems_truncated", n->problems_total > n->n_own);
    cJSON_AddItemToObject(file, format, o);
}
