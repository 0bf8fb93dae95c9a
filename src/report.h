/* report.h - the renderings of the report model: text for people, JSON
 * (schema 1 of the SPEC) for tools, and the files for CI systems and people
 * (JUnit, annotations, an HTML page, mask overlays). None decides anything;
 * diagnose.c did. */
#ifndef LA_REPORT_H
#define LA_REPORT_H

#include <stdio.h> /* FILE */
#include "diagnose.h" /* the report model, la_report_exit_status */
#include "split_checks.h" /* la_splits: the dataset's splits */
#include "verdict.h"  /* LA_V_*: a bad entry's verdict */

/** la_bad_belongs() : whether a bad entry of this verdict is one a finding
 *  of code lists (the renderers list each finding's own entries). */
static inline int la_bad_belongs(enum la_code code, int verdict)
{
    switch (code) {
    case LA_F_OUT_OF_RANGE: return verdict == LA_V_BELOW || verdict == LA_V_ABOVE;
    case LA_F_NON_FINITE:   return verdict == LA_V_NON_FINITE;
    case LA_F_NON_INTEGER:  return verdict == LA_V_NON_INTEGER;
    case LA_F_UNPARSABLE:   return verdict == LA_V_UNPARSABLE;
    default:                return 0;
    }
}

/** la_code_verdicts() : the verdicts (bit 1 << verdict) whose entries a
 *  finding of code lists: la_stats_shown()'s mask. */
static inline unsigned la_code_verdicts(enum la_code code)
{
    unsigned mask = 0;
    for (int v = 0; v < LA_V_COUNT; v++)
        mask |= la_bad_belongs(code, v) ? 1u << v : 0;
    return mask;
}

/** la_bad_verdicts() : the verdicts of every bad entry (what a file's list
 *  of all its entries, the CI notes' and the masks' values, covers). */
static inline unsigned la_bad_verdicts(void)
{
    return la_code_verdicts(LA_F_OUT_OF_RANGE) | la_code_verdicts(LA_F_NON_FINITE) |
           la_code_verdicts(LA_F_NON_INTEGER) | la_code_verdicts(LA_F_UNPARSABLE);
}

/** la_finding_entries() : how many invalid entries a finding of code covers
 *  (they may be more than the list the stats kept). */
static inline uint64_t la_finding_entries(const struct la_stats *s, enum la_code code)
{
    switch (code) {
    case LA_F_OUT_OF_RANGE: return s->n_verdict[LA_V_BELOW] + s->n_verdict[LA_V_ABOVE];
    case LA_F_NON_FINITE:   return s->n_verdict[LA_V_NON_FINITE];
    case LA_F_NON_INTEGER:  return s->n_verdict[LA_V_NON_INTEGER];
    case LA_F_UNPARSABLE:   return s->n_verdict[LA_V_UNPARSABLE];
    default:                return 0;
    }
}

struct la_summary {
    int files;
    uint64_t errors, warnings;
    int exit_status;
    const char *backend;   /* "cpu" or "gpu" */
    const struct la_splits *splits;   /* the splits and the findings between them, or NULL */
};

/** la_report_json() : one JSON document for all files.
 *  @return 0, or -1 when writing failed (out of memory, a write error). */
int la_report_json(FILE *out, const struct la_file_report *files, int n,
                   const struct la_config *cfg, const struct la_summary *sum);

/* The same documents written one report at a time, as each is final (main.c
 * with many FILEs): begin, each file (index from 0), then the end with the
 * summary. @return 0, or -1 on a write error. */
int la_report_json_begin(FILE *out, const struct la_config *cfg, const char *backend);
int la_report_json_file(FILE *out, const struct la_file_report *r, const struct la_config *cfg,
                        int index);
int la_report_json_end(FILE *out, const struct la_config *cfg, const struct la_summary *sum);
void la_report_text_file(FILE *out, const struct la_file_report *r, const struct la_config *cfg);
int la_report_text_summary(FILE *out, const struct la_summary *sum);

/** la_report_concise_file() : --concise: one "path:line: error: [code]
 *  message" line per finding of r (report_concise.c). */
void la_report_concise_file(FILE *out, const struct la_file_report *r,
                            const struct la_config *cfg);
/** la_report_concise() : ... for every report; @return 0, or -1 on a write error. */
int la_report_concise(FILE *out, const struct la_file_report *files, int n,
                      const struct la_config *cfg);

/** la_report_text() : the report a person reads; @return 0, or -1 on a write error. */
int la_report_text(FILE *out, const struct la_file_report *files, int n,
                   const struct la_config *cfg, const struct la_summary *sum);

/** la_report_histogram() : --histogram's bars for one file's classes, and the
 *  class_weights / pos_weight line ready to paste (text report). */
void la_report_histogram(FILE *out, const struct la_file_report *r, const struct la_config *cfg);

/** la_report_junit() : --junit: JUnit XML written atomically to cfg->junit.
 *  @return 0, or -1 after saying on standard error why it was not written. */
int la_report_junit(const struct la_file_report *files, int n, const struct la_config *cfg,
                    const struct la_splits *splits);

/** la_report_annotations() : --annotations: GitHub workflow commands on standard
 *  output (standard error with --json), or the GitLab Code Quality file.
 *  @return 0, or -1 after saying why on standard error. */
int la_report_annotations(const struct la_file_report *files, int n, const struct la_config *cfg,
                          const struct la_splits *splits);

/** la_report_html() : --html: one self-contained HTML page written atomically
 *  to cfg->html (report_html.c). @return 0, or -1 after saying why on standard error. */
int la_report_html(const struct la_file_report *files, int n, const struct la_config *cfg,
                   const struct la_summary *sum);

/** la_report_overlays() : --overlays: one PNG per bad mask (the worst
 *  --max-report of each report) in cfg->overlays, never replacing a file
 *  (overlays.c); one there with the same bytes is kept. @return 0, -2 when a
 *  file there differs (a usage error), or -1 when one was not written (said
 *  on standard error). */
int la_report_overlays(const struct la_file_report *files, int n, const struct la_config *cfg);

/** la_report_github() : --annotations=github: workflow commands within GitHub's
 *  limits, and the job summary where GITHUB_STEP_SUMMARY names one.
 *  @return 0, or -1 after saying why on standard error. */
int la_report_github(const struct la_file_report *files, int n, const struct la_config *cfg,
                     const struct la_splits *splits);

/** la_report_sarif() : --sarif: a SARIF 2.1.0 log written atomically to cfg->sarif.
 *  @return 0, or -1 after saying on standard error why it was not written. */
int la_report_sarif(const struct la_file_report *files, int n, const struct la_config *cfg,
                    const struct la_splits *splits);

/** la_locale_is_utf8() : whether LC_ALL / LC_CTYPE / LANG name UTF-8. */
int la_locale_is_utf8(void);

#endif
