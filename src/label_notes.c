/* label_notes.c - the findings and problems a reader reports beside its values. */
#include "label_notes.h"
#include "source_list.h" /* la_dataset_free */
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
    for (size_t i = 0; i < n->n_owned; i++)
        free(n->owned[i]);
    free(n->owned);
    for (size_t i = 0; i < n->n_class_names; i++)
        free(n->class_names[i]);
    free(n->class_names);
    free(n->problems);
    cJSON_Delete(n->json);
    cJSON_Delete(n->columns_json);
    cJSON_Delete(n->lengths_json);
    la_dataset_free(n->sources);
    for (size_t i = 0; i < n->n_image_entries; i++)
        free(n->image_entries[i].file);
    free(n->image_entries);
    if (n->free_ctx)
        n->free_ctx(n->ctx);
    free(n);
}

int la_notes_add_image_entry(struct la_notes *n, const char *file, double width, double height)
{
    /* grown by doubling: COCO train2017 names 118,287 images */
    if ((n->n_image_entries & (n->n_image_entries - 1)) == 0) {
        size_t cap = n->n_image_entries ? 2 * n->n_image_entries : 64;
        struct la_image_entry *v = realloc(n->image_entries, cap * sizeof *v);
        if (!v)
            return -1;
        n->image_entries = v;
    }
    char *copy = strdup(file);
    if (!copy)
        return -1;
    n->image_entries[n->n_image_entries++] =
        (struct la_image_entry){ .file = copy, .width = width, .height = height };
    return 0;
}

static void tally(struct la_notes *n, enum la_code code, uint64_t count)
{
    for (size_t i = 0; i < n->n_tally; i++)
        if (n->tally[i].code == code) {
            n->tally[i].count += count;
            return;
        }
    if (n->n_tally < LA_NOTES_MAX_FINDINGS) {
        n->tally[n->n_tally].code = code;
        n->tally[n->n_tally++].count = count;
    }
}

void la_notes_count_more(struct la_notes *n, enum la_code code, uint64_t count)
{
    tally(n, code, count);
    n->problems_total += count;
}

/* Whether a problem (a place, or one of the reader's own) would be kept. */
static int has_room(const struct la_notes *n, int place)
{
    return (place ? n->n_problems - n->n_own : n->n_own) < n->cap;
}

uint64_t la_notes_count(const struct la_notes *n, enum la_code code)
{
    for (size_t i = 0; n && i < n->n_tally; i++)
        if (n->tally[i].code == code)
            return n->tally[i].count;
    return 0;
}

/* The JSON entry of a problem made from its fields. */
static cJSON *problem_json(const struct la_note *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "code", la_finding_code_name(p->code));
    cJSON_AddNumberToObject(o, "index", (double)p->index);
    cJSON_AddNumberToObject(o, "sample", (double)p->sample);
    cJSON_AddStringToObject(o, "where", p->where);
    cJSON_AddStringToObject(o, "what", p->what);
    return o;
}

int la_notes_problem(struct la_notes *n, enum la_code code, uint64_t index, uint64_t sample,
                     const char *where, const char *what, cJSON *json)
{
    int place = code == LA_P_AT;
    if (!place) {
        n->problems_total++;
        tally(n, code, 1);
    }
    /* up to cap problems of the reader's own and cap places of the scan's bad
     * entries, counted apart: a dataset's places from earlier sources never
     * take an own problem's room, and no sum of caps can overflow */
    if (!has_room(n, place)) {
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
        cJSON_AddStringToObject(json, "code", la_finding_code_name(code));
        cJSON_AddStringToObject(json, "what", what);
    }
    n->n_problems++;
    return 0;
}

struct la_finding *la_notes_finding(struct la_notes *n, enum la_code code,
                                    const char *prevents, const char *fmt, ...)
{
    static struct la_finding dropped;   /* written to, never read */
    if (n->n_findings >= LA_NOTES_MAX_FINDINGS)
        return &dropped;
    struct la_finding *f = &n->findings[n->n_findings++];
    *f = (struct la_finding){ .severity = la_finding_def(code)->severity, .code = code,
                              .prevents = prevents };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return f;
}

const char *la_notes_keep(struct la_notes *n, const char *text)
{
    for (size_t i = 0; i < n->n_owned; i++)
        if (strcmp(n->owned[i], text) == 0)
            return n->owned[i];
    char **grown = realloc(n->owned, (n->n_owned + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    n->owned = grown;
    char *copy = strdup(text);
    if (copy)
        n->owned[n->n_owned++] = copy;
    return copy;
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

const struct la_note *la_notes_find(const struct la_notes *n, uint64_t index, enum la_code code)
{
    for (size_t i = 0; n && i < n->n_problems; i++)
        if (n->problems[i].index == index && n->problems[i].code == code)
            return &n->problems[i];
    return NULL;
}

// ---- for the reports -------------------------------------------------------------

const char *la_notes_where(const struct la_notes *n, uint64_t index)
{
    const struct la_note *p = la_notes_find(n, index, LA_P_AT);
    return p ? p->where : NULL;
}

void la_notes_print_lines(FILE *out, const struct la_notes *n)
{
    for (size_t i = 0; n && i < n->n_lines; i++) {
        /* a line belongs to its file's block: indented as the findings are,
         * whether or not the reader indented it itself */
        if (n->lines[i][0] != ' ')
            fputs("  ", out);
        la_fputs_escaped(n->lines[i], out);
        fputc('\n', out);
    }
}

void la_notes_print_problems(FILE *out, const struct la_notes *n, enum la_code code,
                             uint64_t max_report)
{
    uint64_t shown = 0;
    for (size_t i = 0; n && i < n->n_problems && shown < max_report; i++) {
        const struct la_note *p = &n->problems[i];
        if (p->code != code)
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
    const struct la_note *p = la_notes_find(n, index, LA_P_AT);
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
        if (n->problems[i].code != LA_P_AT)
            cJSON_AddItemToArray(list, cJSON_Duplicate(n->problems[i].json, 1));
    cJSON_AddNumberToObject(o, "problems_total", (double)n->problems_total);
    cJSON_AddBoolToObject(o, "problems_truncated", n->problems_total > n->n_own);
    /* each code's count, those left out of the list too: what --merge folds */
    cJSON *by_code = cJSON_AddObjectToObject(o, "problems_by_code");
    for (size_t i = 0; by_code && i < n->n_tally; i++)
        cJSON_AddNumberToObject(by_code, la_finding_code_name(n->tally[i].code),
                                (double)n->tally[i].count);
    cJSON_AddItemToObject(file, n->json_key ? n->json_key : format, o);
}

// ---- a dataset's notes, folded from its sources' ----------------------------------

/* A problem's JSON at its dataset position, without the fields that
 * la_notes_problem adds again. */
static cJSON *shifted_json(const struct la_note *p, uint64_t index, uint64_t sample,
                           size_t source)
{
    cJSON *o = cJSON_Duplicate(p->json, 1);
    if (!o)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(o, "code");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "what");
    if (cJSON_GetObjectItemCaseSensitive(o, "index"))
        cJSON_ReplaceItemInObjectCaseSensitive(o, "index", cJSON_CreateNumber((double)index));
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "sample")))
        cJSON_ReplaceItemInObjectCaseSensitive(o, "sample", cJSON_CreateNumber((double)sample));
    const cJSON *had = cJSON_GetObjectItemCaseSensitive(o, "source");   /* a merged dataset's */
    if (cJSON_IsNumber(had))
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "source"),
                             had->valuedouble + (double)source);
    else
        cJSON_AddNumberToObject(o, "source", (double)source);
    return o;
}

/* One of from's kept problems, at its dataset position. In the text a place
 * is read without its file, so the source's path comes first unless the
 * reader's place already starts with it (yolo names its label files). */
static int fold_problem(struct la_notes *into, const struct la_note *p,
                        const struct la_notes_shift *sh)
{
    int place = p->code == LA_P_AT;
    uint64_t index = p->index + sh->first_index;
    uint64_t sample = p->sample == LA_NO_SAMPLE ? LA_NO_SAMPLE : p->sample + sh->first_sample;
    if (place && sh->keeps_bad && !sh->keeps_bad(sh->ctx, index))
        return 0;
    if (!has_room(into, place))   /* counted only: nothing to build */
        return la_notes_problem(into, p->code, index, sample, "", "", NULL);
    char where[LA_NOTE_LEN];
    size_t len = sh->path ? strlen(sh->path) : 0;
    int named = place || !sh->path ||
                (strncmp(p->where, sh->path, len) == 0 && p->where[len] == '/');
    if (snprintf(where, sizeof where, "%s%s%s", named ? "" : sh->path, named ? "" : " ",
                 p->where) >= (int)sizeof where)
        where[sizeof where - 1] = '\0';   /* cut to fit (snprintf did), as a reader's own are */
    cJSON *json = shifted_json(p, index, sample, sh->source);
    if (!json)
        return -1;
    return la_notes_problem(into, p->code, index, sample, where, p->what, json);
}

/* from's problems of each code beyond those it kept: counted, not kept; and
 * those counted under no code (a report's problems_total beyond its list). */
static void fold_unkept(struct la_notes *into, const struct la_notes *from)
{
    uint64_t tallied = 0;
    for (size_t i = 0; i < from->n_tally; i++)
        tallied += from->tally[i].count;
    into->problems_total += from->problems_total > tallied ? from->problems_total - tallied : 0;
    for (size_t i = 0; i < from->n_tally; i++) {
        uint64_t kept = 0;
        for (size_t k = 0; k < from->n_problems; k++)
            kept += from->problems[k].code == from->tally[i].code;
        tally(into, from->tally[i].code, from->tally[i].count - kept);
        into->problems_total += from->tally[i].count - kept;
    }
}

static void fold_findings(struct la_notes *into, const struct la_notes *from, const char *path)
{
    for (size_t i = 0; i < from->n_findings; i++) {
        const struct la_finding *f = &from->findings[i];
        struct la_finding *g = NULL;
        for (size_t k = 0; k < into->n_findings && !g; k++)
            if (into->findings[k].code == f->code &&
                strcmp(into->findings[k].column, f->column) == 0)
                g = &into->findings[k];
        size_t sources = f->sources ? f->sources : 1;   /* a merged report's may be several */
        uint64_t problems = la_notes_count(from, f->code);
        if (g) {
            g->sources += sources;
            g->more += problems;
            continue;
        }
        /* a finding with no problem of its own (an ImageFolder's hidden
         * class folder) is the only place that could name its source */
        int named = !path || problems != 0;
        const char *prevents = f->prevents ? la_notes_keep(into, f->prevents) : NULL;
        g = la_notes_finding(into, f->code, prevents, "%s%s%s",
                             named ? "" : path, named ? "" : ": ", f->message);
        snprintf(g->hint, sizeof g->hint, "%s", f->hint);
        memcpy(g->column, f->column, sizeof g->column);
        g->severity = f->severity;
        g->sources = sources;
        g->more = f->more;
    }
}

/* The numbers of the format's object, summed; the first source's object
 * stands until la_notes_fold_end. */
static int fold_json(struct la_notes *into, const struct la_notes *from)
{
    if (!from->json)
        return 0;
    if (!into->json)
        return (into->json = cJSON_Duplicate(from->json, 1)) ? 0 : -1;
    for (cJSON *f = into->json->child; f; f = f->next) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(from->json, f->string);
        if (cJSON_IsNumber(f) && cJSON_IsNumber(g))
            cJSON_SetNumberValue(f, f->valuedouble + g->valuedouble);
    }
    return 0;
}

int la_notes_fold(struct la_notes *into, const struct la_notes *from,
                  const struct la_notes_shift *shift)
{
    into->folded++;
    for (size_t i = 0; i < from->n_problems; i++)
        if (fold_problem(into, &from->problems[i], shift) != 0)
            return -1;
    fold_unkept(into, from);
    fold_findings(into, from, shift->path);
    if (into->folded == 1)      /* one source: its own lines, as audited alone */
        for (size_t i = 0; i < from->n_lines; i++)
            if (la_notes_line(into, "%s", from->lines[i]) != 0)
                return -1;
    return fold_json(into, from);
}

int la_notes_unfold_message(struct la_finding *f)
{
    char *tail = strstr(f->message, ", and ");
    for (char *next; tail && (next = strstr(tail + 1, ", and ")); tail = next)
        ;
    unsigned long long more = 0;
    size_t others = 0;
    int end = 0;
    if (!tail || (sscanf(tail, ", and %llu more in %zu other file%n", &more, &others, &end) < 2 &&
                  sscanf(tail, ", and in %zu other file%n", &others, &end) < 1) || !end)
        return 0;
    const char *rest = tail + end;
    if (strcmp(rest, "") != 0 && strcmp(rest, "s") != 0)
        return 0;
    *tail = '\0';
    f->sources = others + 1;
    f->more = more;
    return 1;
}

void la_notes_fold_end(struct la_notes *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n_findings; i++) {
        struct la_finding *f = &n->findings[i];
        if (f->sources < 2)
            continue;
        char more[96] = "";
        size_t others = f->sources - 1;
        if (f->more)
            snprintf(more, sizeof more, " %llu more", (unsigned long long)f->more);
        size_t len = strlen(f->message);
        snprintf(f->message + len, sizeof f->message - len, ", and%s in %zu other %s", more,
                 others, others == 1 ? "file" : "files");
    }
    if (n->folded < 2)
        return;
    for (size_t i = 0; i < n->n_lines; i++)
        free(n->lines[i]);
    n->n_lines = 0;
    for (cJSON *f = n->json ? n->json->child : NULL, *next; f; f = next) {
        next = f->next;
        if (!cJSON_IsNumber(f))
            cJSON_Delete(cJSON_DetachItemViaPointer(n->json, f));
    }
}
