/* ci_notes.c - the CI notes (ci_notes.h): a report's findings as the
 * entries and places the CI outputs name (GitHub and GitLab annotations,
 * SARIF, JUnit bodies, the HTML page's entries): a table's rows at their
 * lines (line_map.c), a folder's files, a mask's first bad pixel. Kept apart
 * from report_annotations.c, which dispatches --annotations to the GitHub
 * writer (report_github.c) that reads these notes, so no two render files
 * call each other. */
#include "ci_notes.h"
#include "pair_list.h" /* la_pair_describe: a label against its image */

#include <stdlib.h>      /* calloc, free */
#include <string.h>      /* strcmp */

#include "context.h"  /* la_config_max_report */
#include "report.h"
#include "ci_path.h"
#include "label_notes.h" /* la_notes_where */
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
    const char *where = la_notes_where(r->notes, b->index);   /* yolo, coco: a line, an id */
    if (r->dataset && r->info.ndim < 2) {   /* a folder of CSVs, --concat: the file, its row */
        const struct la_source_info *src = la_dataset_source_of_index(r->dataset, b->index);
        char path[4096];
        la_ci_path(src->path, path, sizeof path);
        snprintf(buf, len, "%s %s %llu%s%s", path,
                 la_format_has(src->format, LA_FMTF_TEXT) ? "row" : "index",
                 (unsigned long long)(b->index - src->first_index), where && where[0] ? ", " : "",
                 where ? where : "");
    } else if (where && where[0])
        snprintf(buf, len, "index %llu, %s", index, where);
    else if (r->info.ndim >= 2)
        snprintf(buf, len, "sample %llu, index %llu", (unsigned long long)b->sample, index);
    else if (r->info.line_records && line)
        la_line_record(b, line, buf, len);
    else if (is_table(r) && line)
        snprintf(buf, len, "row %llu (line %llu)", (unsigned long long)la_line_row(r, b),
                 (unsigned long long)line);
    else if (!is_table(r) && b->sample != b->index && b->sample != LA_NO_SAMPLE)
        snprintf(buf, len, "index %llu (sample %llu)", index,   /* a token list's row */
                 (unsigned long long)b->sample);
    else
        snprintf(buf, len, "%s %llu", is_table(r) ? "row" : "index", index);
}

// ---- masks and volumes: one note per bad image, named by its file ---------------

/* A place inside a sample as people name a pixel: "x 44, y 1" for an image
 * (NumPy's [y, x]), "(z, y, x)" in NumPy's order for other shapes. */
static void format_pixel(const uint64_t *at, int n, char *buf, size_t len)
{
    if (n == 2) {
        snprintf(buf, len, "x %llu, y %llu", (unsigned long long)at[1],
                 (unsigned long long)at[0]);
        return;
    }
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int k = 0; k < n && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%llu", k ? ", " : "",
                                 (unsigned long long)at[k]);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/* The place of flat index inside its sample of a file that is not a dataset. */
static int inner_of(const struct la_file_report *r, uint64_t index, uint64_t *at)
{
    uint64_t rest = index % (r->stats.sample_stride ? r->stats.sample_stride : 1);
    int first = r->info.one_sample ? 0 : 1, n = r->info.ndim - first;
    for (int d = r->info.ndim - 1; d >= first; d--) {
        uint64_t dim = r->info.shape[d] ? r->info.shape[d] : 1;
        at[d - first] = rest % dim;
        rest /= dim;
    }
    return n > 0 ? n : 0;
}

/* A bad sample's file (relative to the workspace) and where in it its first
 * bad entry lies: "x 44, y 1", or "sample 3, x 4, y 5" in a stack of masks. */
static void group_place(const struct la_file_report *r, const struct la_bad_group *g,
                        char *path, size_t plen, char *at, size_t alen, int *dtype)
{
    uint64_t pos[LA_MAX_DIMS];
    int n;
    char pixel[160];
    uint64_t sample = g->sample, samples = r->samples;
    if (r->dataset) {
        const struct la_source_info *src = la_dataset_source_of(r->dataset, g->sample);
        la_ci_path(src->path, path, plen);
        la_dataset_at(src, g->first_index, pos, &n);
        sample -= src->first_sample;
        samples = src->samples;
        *dtype = src->dtype;
    } else {
        la_ci_path(r->path, path, plen);
        n = inner_of(r, g->first_index, pos);
        samples = r->info.one_sample ? 1 : samples;
        *dtype = r->info.dtype;
    }
    format_pixel(pos, n, pixel, sizeof pixel);
    if (samples > 1)
        snprintf(at, alen, "sample %llu, %s", (unsigned long long)sample, pixel);
    else
        snprintf(at, alen, "%s", pixel);
}

/* "255", "255, 0": a group's distinct bad values. */
static void group_values(const struct la_bad_group *g, int dtype, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < g->n_values && used < len; k++) {
        char val[96];
        if (g->texts[k])
            snprintf(val, sizeof val, "\"%.80s\"", g->texts[k]);
        else
            la_format_num(g->values[k], dtype, val, sizeof val);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", val);
    }
    if (g->mixed && g->n_values < 2 && used < len)
        snprintf(buf + used, len - used, ", ...");
}

/* The first bad sample's file of a finding of code, or NULL (no groups, none). */
static const char *group_path(const struct la_file_report *r, enum la_code code, char *buf,
                              size_t len)
{
    if (!la_report_by_sample(r) || la_finding_entries(&r->stats, code) == 0)
        return NULL;
    for (size_t i = 0; i < r->stats.n_groups; i++)
        if (la_bad_belongs(code, r->stats.groups[i].first_verdict)) {
            char at[256];
            int dtype;
            group_place(r, &r->stats.groups[i], buf, len, at, sizeof at, &dtype);
            return buf;
        }
    return NULL;
}

/* The first bad pair of a pairs.c finding: its label file, else its image. */
static const struct la_pair_bad *first_pair(const struct la_file_report *r, enum la_code code)
{
    for (size_t i = 0; r->pairs && i < r->pairs->n_bad; i++)
        if (la_pair_code(r->pairs->bad[i].kind) == code)
            return &r->pairs->bad[i];
    return NULL;
}

const char *la_ci_finding_path(const struct la_file_report *r, enum la_code code, char *buf,
                               size_t len)
{
    const struct la_pair_bad *b = first_pair(r, code);
    if (b)
        return la_ci_path(b->file ? b->file : b->image, buf, len);
    return group_path(r, code, buf, len) ? buf : la_ci_path(r->path, buf, len);
}

/* la_ci_entries() for the findings of pairs.c: one line per bad pair. */
static size_t pair_entries(const struct la_pairs *p, enum la_code code, uint64_t max,
                           const char *indent, char *buf, size_t len)
{
    size_t n = 0, used = 0;
    for (size_t i = 0; i < p->n_bad && n < max && used < len; i++)
        if (la_pair_code(p->bad[i].kind) == code) {
            char what[3 * 4096];
            la_pair_describe(&p->bad[i], what, sizeof what);
            used += (size_t)snprintf(buf + used, len - used, "%s%s%s", n++ ? "\n" : "", indent,
                                     what);
        }
    return n;
}

/* la_ci_entries() for masks: one line per bad sample, its file first. */
static size_t group_entries(const struct la_file_report *r, enum la_code code, uint64_t max,
                            const char *indent, char *buf, size_t len)
{
    const struct la_stats *s = &r->stats;
    size_t n = 0, used = 0;
    for (size_t i = 0; i < s->n_groups && n < max && used < len; i++) {
        const struct la_bad_group *g = &s->groups[i];
        if (!la_bad_belongs(code, g->first_verdict))
            continue;
        char path[4096], at[256], vals[256];
        int dtype;
        group_place(r, g, path, sizeof path, at, sizeof at, &dtype);
        group_values(g, dtype, vals, sizeof vals);
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s%llu invalid, %s %s, the "
                                 "first at %s", n ? "\n" : "", indent,
                                 r->dataset ? path : "", r->dataset ? ": " : "",   /* its file */
                                 (unsigned long long)g->count,
                                 g->n_values == 1 && !g->mixed ? "value" : "values", vals, at);
        n++;
    }
    if (la_finding_entries(s, code) && s->bad_samples > n && used < len)
        snprintf(buf + used, len - used, "%s%s... %llu more bad %s", n ? "\n" : "", indent,
                 (unsigned long long)(s->bad_samples - n),
                 s->bad_samples - n == 1 ? "sample" : "samples");
    return n;
}

/* What a file's CI notes list of its bad entries (la_stats_shown: each
 * distinct value first, then the other entries), with the entries each line
 * names (places) and their physical lines. */
struct shown {
    struct la_shown *lines;
    size_t n;
    struct la_bad *places;
    size_t *first;            /* lines[i]'s first place */
    uint64_t *line_of;        /* a place's line, 0 where unknown */
    uint64_t entries;
};

static void shown_free(struct shown *sh)
{
    free(sh->lines);
    free(sh->places);
    free(sh->first);
    free(sh->line_of);
}

/* At most max lines of the entries of the verdicts in mask, a value's line
 * naming its first `named` places (la_stats_shown). @return 0, or -1 out of
 * memory. */
static int shown_pick(struct shown *sh, const struct la_file_report *r,
                      const struct la_config *cfg, unsigned mask, uint64_t max, int named)
{
    const struct la_stats *s = &r->stats;
    size_t cap = s->values.n + s->n_bad;
    cap = cap < max ? cap : (size_t)max;
    size_t room = cap ? cap * LA_BAD_VALUE_FIRST : 1;
    *sh = (struct shown){ calloc(cap ? cap : 1, sizeof *sh->lines), 0,
                          calloc(room, sizeof *sh->places), calloc(cap ? cap : 1, sizeof *sh->first),
                          calloc(room, sizeof *sh->line_of), 0 };
    if (!sh->lines || !sh->places || !sh->first || !sh->line_of) {
        shown_free(sh);
        return -1;
    }
    sh->n = la_stats_shown(s, mask, cap, named, sh->lines, &sh->entries);
    size_t np = la_stats_shown_places(sh->lines, sh->n, sh->places);
    for (size_t i = 0, p = 0; i < sh->n; i++) {
        sh->first[i] = p;
        p += sh->lines[i].value ? (size_t)sh->lines[i].value->n_first : 1;
    }
    uint64_t *rows = calloc(np ? np : 1, sizeof *rows);
    if (!rows) {
        shown_free(sh);
        return -1;
    }
    for (size_t i = 0; i < np; i++)
        rows[i] = la_line_row(r, &sh->places[i]);
    if (np && r->info.ndim < 2)
        la_line_map_any(r, cfg, rows, np, sh->line_of);
    free(rows);
    return 0;
}

/* "5, 40 times: row 4 (line 6), row 9 (line 11), row 14 (line 16), ...": a
 * distinct value's line, its places from places[]. */
static void describe_value(const struct la_file_report *r, const struct la_bad_value *x,
                           const struct la_bad *places, const uint64_t *lines, int named,
                           char *buf, size_t len)
{
    char val[96];
    format_value(r, &places[0], val, sizeof val);
    size_t used = named ? (size_t)snprintf(buf, len, "value %s, ", val) : 0;
    if (len)
        buf[used] = '\0';
    if (x->count == 1)
        used += (size_t)snprintf(buf + used, len - used, "once: ");
    else
        used += (size_t)snprintf(buf + used, len - used, "%llu times: ",
                                 (unsigned long long)x->count);
    for (int k = 0; k < x->n_first && used < len; k++) {
        char pos[4400];
        describe_position(r, &places[k], lines[k], pos, sizeof pos);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", pos);
    }
    if (x->count > (uint64_t)x->n_first && used < len)
        snprintf(buf + used, len - used, ", ...");
}

size_t la_ci_entries(const struct la_file_report *r, const struct la_config *cfg,
                     enum la_code code, uint64_t max, const char *indent, char *buf, size_t len,
                     uint64_t *first_line)
{
    size_t used = 0;
    *first_line = 0;
    if (len)
        buf[0] = '\0';
    if (first_pair(r, code))
        return len ? pair_entries(r->pairs, code, max, indent, buf, len) : 0;
    if (la_report_by_sample(r))
        return len ? group_entries(r, code, max, indent, buf, len) : 0;
    struct shown sh;
    if (shown_pick(&sh, r, cfg, la_code_verdicts(code), max, LA_BAD_VALUE_FIRST) != 0)
        return 0;
    for (size_t i = 0; i < sh.n && used < len; i++) {
        const struct la_bad *b = &sh.places[sh.first[i]];
        const uint64_t *line = &sh.line_of[sh.first[i]];
        char what[4600], pos[4400], val[96];
        if (sh.lines[i].value) {
            describe_value(r, sh.lines[i].value, b, line, 1, what, sizeof what);
        } else {
            describe_position(r, b, *line, pos, sizeof pos);
            format_value(r, b, val, sizeof val);
            snprintf(what, sizeof what, "%s: %s", pos, val);
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s", i ? "\n" : "", indent, what);
    }
    uint64_t total = la_finding_entries(&r->stats, code);
    if (total > sh.entries && used < len)
        snprintf(buf + used, len - used, "%s%s... %llu more", sh.n ? "\n" : "", indent,
                 (unsigned long long)(total - sh.entries));
    if (sh.n)
        *first_line = sh.line_of[0];
    size_t n = sh.n;
    shown_free(&sh);
    return n;
}

/* Masks: one note per bad sample (the first --max-report), at its file. */
static int note_groups(const struct la_file_report *r, const struct la_config *cfg,
                       la_ci_sink sink, void *ctx)
{
    const struct la_stats *s = &r->stats;
    uint64_t max = la_config_max_report(cfg);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < s->n_groups && i < max; i++) {
        const struct la_bad_group *g = &s->groups[i];
        char path[4096], at[200], vals[128], what[LA_MSG_LEN];
        int dtype;
        group_place(r, g, path, sizeof path, at, sizeof at, &dtype);
        group_values(g, dtype, vals, sizeof vals);
        struct la_bad first = { g->first_index, g->sample, g->first_verdict, g->first_value,
                                g->n_values ? g->texts[0] : NULL };
        describe_entry(r, cfg, &first, what, sizeof what);
        struct la_ci_note note = { .severity = "error", .title = verdict_code(g->first_verdict),
                                   .path = path, .key = g->first_index, .is_entry = 1,
                                   .index = g->first_index, .sample = g->sample, .place = at,
                                   .hint = "" };
        snprintf(note.message, sizeof note.message, "%llu invalid (%s %s), the first at %s: %s",
                 (unsigned long long)g->count, g->n_values == 1 && !g->mixed ? "value" : "values",
                 vals, at, what);
        rc = sink(ctx, &note);
    }
    return rc;
}

/* One note's message: the entry ("label 10 outside [0, 10)"), after its
 * place where the note has no line; a distinct value's line adds its count
 * and first places. */
static void entry_message(const struct la_file_report *r, const struct la_config *cfg,
                          const struct la_bad *b, uint64_t line, const struct la_bad_value *x,
                          const struct la_bad *places, const uint64_t *lines, char *buf,
                          size_t len)
{
    char what[LA_MSG_LEN];
    describe_entry(r, cfg, b, what, sizeof what);
    if (x && x->count > 1) {   /* "... (40 times: row 4 (line 6), row 9 (line 11), ...)" */
        size_t used = (size_t)snprintf(buf, len, "%s (", what);
        if (used + 2 < len) {
            describe_value(r, x, places, lines, 0, buf + used, len - used - 1);
            used += strlen(buf + used);
            snprintf(buf + used, len - used, ")");
        }
        return;
    }
    if (line && b->index != b->sample && r->info.line_records)
        snprintf(buf, len, "index %llu: %s", (unsigned long long)b->index, what);   /* a list's item */
    else if (line)
        snprintf(buf, len, "%s", what);
    else if (r->info.ndim >= 2)
        snprintf(buf, len, "sample %llu, index %llu: %s", (unsigned long long)b->sample,
                 (unsigned long long)b->index, what);
    else
        snprintf(buf, len, "%s %llu: %s", is_table(r) ? "row" : "index",
                 (unsigned long long)b->index, what);
}

/* The first --max-report bad entries, each at its line where the file has
 * lines: each distinct value first (a note at its first place, with its
 * count), then the other entries, a value's later first places among them. */
static int note_entries(const struct la_file_report *r, const struct la_config *cfg,
                        const char *path, la_ci_sink sink, void *ctx)
{
    uint64_t max = la_config_max_report(cfg);
    if (r->stats.n_bad == 0 || max == 0)
        return 0;
    if (la_report_by_sample(r))
        return note_groups(r, cfg, sink, ctx);
    struct shown sh;
    if (shown_pick(&sh, r, cfg, la_bad_verdicts(), max, 1) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sh.n; i++) {
        const struct la_bad *b = &sh.places[sh.first[i]];
        const uint64_t *line = &sh.line_of[sh.first[i]];
        struct la_ci_note note = { .severity = "error", .title = verdict_code(b->verdict),
                                   .path = path, .line = *line, .key = b->index,
                                   .is_entry = 1, .index = b->index, .sample = b->sample,
                                   .flat = r->info.ndim < 2, .hint = "" };
        entry_message(r, cfg, b, *line, sh.lines[i].value, b, line, note.message,
                      sizeof note.message);
        rc = sink(ctx, &note);
    }
    shown_free(&sh);
    return rc;
}

/* "line 17: ..." from a reader's message: where an unreadable file went wrong. */
static uint64_t line_of_error(const char *error)
{
    unsigned long long line;
    return sscanf(error, "line %llu:", &line) == 1 ? (uint64_t)line : 0;
}

/* A bad pair as a note of its own, at its label file (or its image). */
static int note_pair(const struct la_pair_bad *b, size_t i, la_ci_sink sink, void *ctx)
{
    char path[4096];
    enum la_code code = la_pair_code(b->kind);
    const struct la_code_def *def = la_finding_def(code);
    struct la_ci_note note = { .severity = la_severity_name(def->severity),
                               .title = la_finding_code_name(code),
                               .path = la_ci_path(b->file ? b->file : b->image, path, sizeof path),
                               .key = UINT64_MAX / 2 - i, .hint = def->fix ? def->fix : "",
                               .prevents = def->prevents };
    la_pair_describe(b, note.message, sizeof note.message);
    size_t used = strlen(note.message);
    if (def->fix && used < sizeof note.message)
        snprintf(note.message + used, sizeof note.message - used, "; fix: %s", def->fix);
    return sink(ctx, &note);
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
    for (size_t i = 0; rc == 0 && r->pairs && i < r->pairs->n_bad; i++)
        rc = note_pair(&r->pairs->bad[i], i, sink, ctx);
    for (size_t i = 0; rc == 0 && i < r->n_findings; i++) {
        const struct la_finding *f = &r->findings[i];
        if (first_pair(r, f->code))
            continue;           /* told pair by pair above, each at its own file */
        char at_file[4096];
        const char *where = group_path(r, f->code, at_file, sizeof at_file);
        struct la_ci_note note = { .severity = la_severity_name(f->severity),
                                   .title = la_finding_code_name(f->code),
                                   .path = where ? where : path,
                                   .line = where ? 0 : f->line,
                                   .key = UINT64_MAX - i, .hint = f->hint,
                                   .prevents = f->prevents, .column = f->column };
        snprintf(note.message, sizeof note.message, "%s%s%s", f->message,
                 f->hint[0] ? "; fix: " : "", f->hint);
        rc = sink(ctx, &note);
    }
    return rc;
}

const char *la_ci_split_path(const struct la_splits *s, size_t i, char *buf, size_t len)
{
    const char *name = s->between[i][0];
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->v[k].name, name) == 0 && s->v[k].root)
            return la_ci_path(s->v[k].root, buf, len);
    snprintf(buf, len, "%s", name);
    return buf;
}

int la_ci_split_notes(const struct la_splits *s, la_ci_sink sink, void *ctx)
{
    for (size_t i = 0; s && i < s->n_findings; i++) {
        const struct la_finding *f = &s->findings[i];
        char path[4096];
        struct la_ci_note note = { .severity = la_severity_name(f->severity),
                                   .title = la_finding_code_name(f->code),
                                   .path = la_ci_split_path(s, i, path, sizeof path),
                                   .key = UINT64_MAX - i, .hint = f->hint,
                                   .prevents = f->prevents };
        snprintf(note.message, sizeof note.message, "%s%s%s", f->message,
                 f->hint[0] ? "; fix: " : "", f->hint);
        int rc = sink(ctx, &note);
        if (rc != 0)
            return rc;
    }
    return 0;
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
