/* report_junit.c - --junit=FILE: the audit as JUnit XML, the format Jenkins,
 * GitLab and GitHub test reporters read.
 *
 * One <testsuite name="labelaudit"> per run; one <testcase> per file and
 * check, classname the file's path. A finding at or above --fail-on is a
 * <failure> (type = its code), one below it goes to <system-out>; a file that
 * could not be read is an <error> of its "read" check, its other checks
 * <skipped>. The file is built in memory and written atomically. */
#include "context.h"  /* la_config_max_report */
#include "report.h"

#include <stdlib.h> /* free */
#include <string.h> /* strchr, strcmp */

#include "atomic_file.h"
#include "ci_notes.h"
#include "ci_path.h"
#include "msg.h"
#include "utf8.h"

/* The checks, in report order, and the finding codes each one covers. A code
 * not listed here (a newer finding) becomes a check of its own name. */
struct check {
    const char *name;
    const char *codes[4];
};

static const struct check checks[] = {
    { "empty",    { "empty" } },
    { "parse",    { "unparsable" } },
    { "finite",   { "non-finite" } },
    { "integer",  { "non-integer" } },
    { "range",    { "out-of-range", "one-based", "ignore-like-value", "label-gap" } },
    { "dtype",    { "float-labels", "int-labels-dtype" } },
    { "classes",  { "missing-classes" } },
    { "batching", { "tiny-last-batch", "no-batches" } },
};
#define N_CHECKS (sizeof checks / sizeof checks[0])

static const struct check *check_of(const char *code)
{
    for (size_t i = 0; i < N_CHECKS; i++)
        for (size_t k = 0; k < 4 && checks[i].codes[k]; k++)
            if (strcmp(checks[i].codes[k], code) == 0)
                return &checks[i];
    return NULL;
}

/* XML text or attribute value: the five entities, tab, LF and CR as
 * references, and the other control bytes, which XML 1.0 cannot hold at all,
 * as a visible \xNN; bytes that are not UTF-8 as U+FFFD. */
static void put_xml(FILE *out, const char *s)
{
    la_fputs_escape(s, out, LA_ESC_XML);
}

/* The classname: the file's path as the CI names it (ci_path.h). */
static void put_path(FILE *out, const struct la_file_report *r)
{
    char path[4096];
    put_xml(out, la_ci_path(r->path, path, sizeof path));
}

static int counts_as_failure(const struct la_finding *f, const struct la_config *cfg)
{
    return f->severity != LA_SEV_NOTICE &&
           (cfg->fail_on == LA_FAIL_WARNING ||
            (cfg->fail_on == LA_FAIL_ERROR && f->severity == LA_SEV_ERROR));
}

/* Why a check did not run on a readable file, or NULL when it did. */
static const char *skip_reason(const struct la_file_report *r, const struct la_config *cfg,
                               const char *check)
{
    int bce = cfg->loss == LA_LOSS_BCE;
    if (!strcmp(check, "batching") && !r->has_batching)
        return "no --batch-size: the batching simulation did not run";
    if (bce && (!strcmp(check, "integer") || !strcmp(check, "classes") || !strcmp(check, "dtype")))
        return "not a check of --loss=bce";
    if (!strcmp(check, "classes") && r->vocabulary != LA_VOCAB_NONE)
        return "token data: ids are checked against the vocabulary, not classes (--vocab-size)";
    if (!strcmp(check, "classes") && !r->has_hist)
        return "the number of classes is unknown (pass -n)";
    return NULL;
}

struct tally {
    unsigned tests, failures, errors, skipped;
};

/* Whether finding f belongs to the testcase: check name, or a code of its own. */
static int belongs(const struct la_finding *f, const char *name, const char *code)
{
    const char *fc = la_finding_code_name(f->code);
    const struct check *c = check_of(fc);
    return code ? strcmp(fc, code) == 0 : c && strcmp(c->name, name) == 0;
}

/* The body lists the finding's first entries, as the text report does. */
static void put_failure(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                        const struct la_finding *f)
{
    char entries[8192];
    uint64_t line;
    fprintf(out, "      <failure type=\"%s\" message=\"", la_finding_code_name(f->code));
    put_xml(out, f->message);
    fputs("\">", out);
    put_xml(out, f->message);
    if (la_ci_entries(r, cfg, f->code, la_config_max_report(cfg), "  ", entries, sizeof entries,
                      &line) || entries[0]) {
        for (char *line_start = entries, *nl; line_start; line_start = nl ? nl + 1 : NULL) {
            if ((nl = strchr(line_start, '\n')))
                *nl = '\0';
            fputc('\n', out);      /* a line of its own, as the text report has it */
            put_xml(out, line_start);
        }
    }
    if (f->hint[0]) {
        fputs("\nfix: ", out);
        put_xml(out, f->hint);
    }
    if (f->prevents) {
        fputs("\nprevents: ", out);
        put_xml(out, f->prevents);
    }
    fputs("</failure>\n", out);
}

/* The findings below --fail-on, in one <system-out>. */
static void put_notes(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                      const char *name, const char *code)
{
    const char *sep = "      <system-out>";
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct la_finding *f = &r->findings[i];
        if (!belongs(f, name, code) || counts_as_failure(f, cfg))
            continue;
        fprintf(out, "%s%s [%s]: ", sep, la_severity_name(f->severity),
                la_finding_code_name(f->code));
        put_xml(out, f->message);
        sep = "\n";
    }
    fputs("</system-out>\n", out);
}

/* One testcase: the findings of r that belong to check name (or, for a
 * finding no check covers, to its own code). */
static void put_testcase(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                         const char *name, const char *code, struct tally *t)
{
    unsigned failures = 0, notes = 0;
    for (size_t i = 0; i < r->n_findings; i++)
        if (belongs(&r->findings[i], name, code))
            counts_as_failure(&r->findings[i], cfg) ? failures++ : notes++;
    const char *skip = failures || notes || code ? NULL : skip_reason(r, cfg, name);
    t->tests++;
    t->failures += failures > 0;
    t->skipped += skip != NULL;
    fputs("    <testcase classname=\"", out);
    put_path(out, r);
    fprintf(out, "\" name=\"%s\"", name);
    if (!failures && !notes && !skip) {
        fputs("/>\n", out);
        return;
    }
    fputs(">\n", out);
    for (size_t i = 0; i < r->n_findings; i++)
        if (belongs(&r->findings[i], name, code) && counts_as_failure(&r->findings[i], cfg))
            put_failure(out, r, cfg, &r->findings[i]);
    if (notes)
        put_notes(out, r, cfg, name, code);
    if (skip) {
        fputs("      <skipped message=\"", out);
        put_xml(out, skip);
        fputs("\"/>\n", out);
    }
    fputs("    </testcase>\n", out);
}

static void put_unreadable(FILE *out, const struct la_file_report *r, struct tally *t)
{
    fputs("    <testcase classname=\"", out);
    put_path(out, r);
    fputs("\" name=\"read\">\n      <error type=\"unreadable\" message=\"", out);
    put_xml(out, r->error);
    fputs("\"/>\n    </testcase>\n", out);
    t->tests++;
    t->errors++;
    for (size_t i = 0; i < N_CHECKS; i++) {
        fputs("    <testcase classname=\"", out);
        put_path(out, r);
        fprintf(out, "\" name=\"%s\">\n      <skipped message=\"the file could not be read\"/>\n"
                     "    </testcase>\n", checks[i].name);
        t->tests++;
        t->skipped++;
    }
}

static void put_file(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                     struct tally *t)
{
    if (!r->read_ok) {
        put_unreadable(out, r, t);
        return;
    }
    fputs("    <testcase classname=\"", out);
    put_path(out, r);
    fputs("\" name=\"read\"/>\n", out);
    t->tests++;
    for (size_t i = 0; i < N_CHECKS; i++)
        put_testcase(out, r, cfg, checks[i].name, NULL, t);
    for (size_t i = 0; i < r->n_findings; i++) {   /* codes no check covers */
        const char *fc = la_finding_code_name(r->findings[i].code);
        if (!check_of(fc))
            put_testcase(out, r, cfg, fc, fc, t);
    }
}

/* The checks between splits: a testcase each, classname "splits", failed by
 * each finding of its code that counts as a failure (the rest as output). */
static void put_splits(FILE *out, const struct la_splits *s, const struct la_config *cfg,
                       struct tally *t)
{
    static const enum la_code codes[] = { LA_F_SPLIT_OVERLAP, LA_F_CLASS_UNSEEN_IN_TRAIN,
                                          LA_F_LABEL_DRIFT };
    for (size_t c = 0; s && s->n > 1 && c < sizeof codes / sizeof *codes; c++) {
        int failed = 0, said = 0;
        fprintf(out, "    <testcase classname=\"splits\" name=\"%s\">\n",
                la_finding_code_name(codes[c]));
        for (size_t i = 0; i < s->n_findings; i++) {     /* the failures, then the rest */
            const struct la_finding *f = &s->findings[i];
            if (f->code != codes[c] || !counts_as_failure(f, cfg))
                continue;
            failed = 1;
            fprintf(out, "      <failure type=\"%s\" message=\"", la_finding_code_name(f->code));
            put_xml(out, f->message);
            fputs("\">", out);
            put_xml(out, f->message);
            fputs("</failure>\n", out);
        }
        for (size_t i = 0; i < s->n_findings; i++) {
            const struct la_finding *f = &s->findings[i];
            if (f->code != codes[c] || counts_as_failure(f, cfg))
                continue;
            fputs(said++ ? "\n" : "      <system-out>", out);
            put_xml(out, f->message);
        }
        if (said)
            fputs("</system-out>\n", out);
        fputs("    </testcase>\n", out);
        t->tests++;
        t->failures += failed;
    }
}

int la_report_junit(const struct la_file_report *files, int n, const struct la_config *cfg,
                    const struct la_splits *splits)
{
    char *body = NULL, *doc = NULL;
    size_t body_len = 0, doc_len = 0;
    struct tally t = { 0 };
    FILE *out = open_memstream(&body, &body_len);
    if (!out) {
        la_err(cfg->junit, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++)
        put_file(out, &files[i], cfg, &t);
    put_splits(out, splits, cfg, &t);
    int bad = fclose(out) != 0;
    /* the counts lead the suite, so the body is written first */
    FILE *whole = bad ? NULL : open_memstream(&doc, &doc_len);
    if (whole) {
        fprintf(whole, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
                       "  <testsuite name=\"labelaudit\" tests=\"%u\" failures=\"%u\" "
                       "errors=\"%u\" skipped=\"%u\">\n%s  </testsuite>\n</testsuites>\n",
                t.tests, t.failures, t.errors, t.skipped, body);
        bad = fclose(whole) != 0;
    }
    free(body);
    char err[LA_ERR_LEN];
    int rc = -1;
    if (!whole || bad)
        la_err(cfg->junit, "out of memory");
    else if ((rc = la_atomic_write(cfg->junit, doc, doc_len, err, sizeof err)) != 0)
        la_err(cfg->junit, "%s", err);
    free(doc);
    return rc;
}
