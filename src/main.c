/* main.c - labelaudit's entry point: options, audit each FILE, render, exit status.
 *
 * Knows no format and no backend internals. Exit statuses (SPEC): 0 clean,
 * 1 findings at or above --fail-on, 2 usage error, 3 an input could not be
 * read (the other files are still audited and reported) or the report could
 * not be written. */
#include <errno.h>   /* errno */
#include <fcntl.h>   /* fcntl, open */
#include <signal.h>  /* signal, SIGPIPE, SIGXFSZ */
#include <stdio.h>   /* stdout */
#include <stdlib.h>  /* calloc */
#include <string.h>  /* memset, strerror */

#include "read/class_meta.h" /* la_model_read: --model */
#include "audit.h"   /* la_auto_hint_of */
#include "columns.h" /* la_column_plan_build: --columns */
#include "plan.h"    /* la_audit_each: the reports */
#include "merge.h"
#include "fatal.h"
#include "fix.h"     /* --fix: corrected copies */
#include "msg.h"
#include "options.h"
#include "outputs.h"
#include "pool.h"   /* la_threads_budget: -j is every thread of the run */
#include "report.h"
#include "util.h"

/* Commit --indices-out, or, when skip says why not, remove its temporary file. */
static int close_indices(struct la_indices_out *io, const struct la_config *cfg,
                         const char *skip)
{
    if (!io)
        return 0;
    char err[LA_ERR_LEN];
    int streams = la_indices_out_streams(io);
    if (la_indices_out_close(io, skip == NULL, err, sizeof err) != 0) {
        la_err(cfg->indices_out, "%s", err);
        return -1;
    }
    if (skip)                  /* a stream keeps what it was given: say it is not all */
        la_err(cfg->indices_out, "%s: %s", streams ? "incomplete" : "not written", skip);
    return 0;
}

/* The run's one pipeline: every report is audited, counted in the summary
 * and written to standard output, then the summary; then the outputs that
 * want every report, and --indices-out is committed.
 *
 * A report is written as soon as it is final, then freed: memory does not
 * grow with the number of FILEs. --junit, --sarif, --annotations, --html and
 * --overlays want every report at the end, and a GPU run may fall back to
 * the CPU mid-run (which the JSON's "backend", written first, would miss):
 * those runs keep all reports and write them at the end, and nothing at all
 * when the scan failed. */
struct run {
    const struct la_config *cfg;
    struct la_summary sum;      /* so far */
    int keep;                   /* every report kept, written at the end */
    struct la_file_report *kept;    /* keep: the reports, written of them */
    int written;                /* reports given so far: the FILEs', then --fix's copies' */
    int write_failed;
    struct la_splits splits;    /* each split's sums, as its reports are final */
};

/* Report r, the sum.files-th, to standard output. */
static void write_report(struct run *run, const struct la_file_report *r, int index)
{
    const struct la_config *cfg = run->cfg;
    if (cfg->quiet || run->write_failed)
        return;
    if (cfg->json)
        run->write_failed = la_report_json_file(stdout, r, cfg, index) != 0;
    else if (cfg->concise)
        la_report_concise_file(stdout, r, cfg);
    else
        la_report_text_file(stdout, r, cfg);
    run->write_failed |= ferror(stdout) != 0;
}

static void write_begin(struct run *run)
{
    if (!run->cfg->quiet && run->cfg->json)
        run->write_failed = la_report_json_begin(stdout, run->cfg, run->sum.backend) != 0;
}

static void write_end(struct run *run)
{
    const struct la_config *cfg = run->cfg;
    if (!cfg->quiet && !run->write_failed && !cfg->concise)   /* --concise: findings alone */
        run->write_failed = (cfg->json ? la_report_json_end(stdout, cfg, &run->sum)
                                       : la_report_text_summary(stdout, &run->sum)) != 0;
}

/* Report r written now, or kept for the end. */
static void keep_or_write(struct run *run, struct la_file_report *r)
{
    if (run->keep) {
        run->kept[run->written] = *r;   /* taken over: r is left with nothing to free */
        memset(r, 0, sizeof *r);
    } else {
        write_report(run, r, run->written);
    }
    run->written++;
}

/* la_audit_each's sink: r counted, then written or kept. */
static int take_report(void *ctx, struct la_file_report *r)
{
    struct run *run = ctx;
    if (r->fix) {               /* a corrected copy: shown, but the originals' status stands */
        keep_or_write(run, r);
        return 0;
    }
    uint64_t errors, warnings;
    int status = la_report_exit_status(r, 1, run->cfg, &errors, &warnings);
    run->sum.errors += errors;
    run->sum.warnings += warnings;
    if (status > run->sum.exit_status)     /* 0 < 1 < 3: the worst one wins */
        run->sum.exit_status = status;
    la_splits_add(&run->splits, r);        /* before r is written and freed */
    keep_or_write(run, r);
    run->sum.files++;
    return 0;
}

/* The outputs that want every report: --junit, --sarif and --annotations
 * also when an input could not be read (they say so); the page last, its
 * summary giving the exit status, overlays' failures included. @return 0,
 * or -1 when one could not be written (said on stderr). */
static int write_outputs(struct run *run)
{
    const struct la_config *cfg = run->cfg;
    const struct la_file_report *files = run->kept;
    int n = run->sum.files, rc = 0;
    const struct la_splits *splits = &run->splits;
    if (cfg->junit && la_report_junit(files, n, cfg, splits) != 0)
        rc = -1;
    if (cfg->sarif && la_report_sarif(files, n, cfg, splits) != 0)
        rc = -1;
    if (la_report_annotations(files, n, cfg, splits) != 0)
        rc = -1;
    int ov = cfg->overlays ? la_report_overlays(files, n, cfg) : 0;
    if (ov == -1)
        rc = -1;
    if (rc != 0)
        run->sum.exit_status = LA_EXIT_UNREADABLE;
    else if (ov == -2 && run->sum.exit_status != LA_EXIT_UNREADABLE)
        run->sum.exit_status = LA_EXIT_USAGE;   /* a file of another run in the folder */
    if (cfg->html && la_report_html(files, n, cfg, &run->sum) != 0)
        rc = -1;
    return rc;
}

/* The splits against each other, once every report is in: their findings
 * count in the summary and the exit status as the files' do. */
static void check_splits(struct run *run)
{
    const struct la_config *cfg = run->cfg;
    la_splits_check(&run->splits, cfg);
    uint64_t errors, warnings;
    la_splits_count(&run->splits, &errors, &warnings);
    run->sum.errors += errors;
    run->sum.warnings += warnings;
    int findings = (cfg->fail_on == LA_FAIL_ERROR && errors) ||
                   (cfg->fail_on == LA_FAIL_WARNING && errors + warnings);
    if (findings && run->sum.exit_status < LA_EXIT_FINDINGS)
        run->sum.exit_status = LA_EXIT_FINDINGS;
    if (run->splits.failed) {
        la_err(NULL, "the splits could not be compared (out of memory, or a split's folder "
                     "could not be read)");
        run->sum.exit_status = LA_EXIT_UNREADABLE;
    }
    run->sum.splits = &run->splits;
}

static int run_reports(const struct la_config *cfg, struct la_scan_backend *b,
                       struct la_indices_out *io, struct la_fix *fx)
{
    struct run run = { cfg, { 0, 0, 0, 0, b->ops->name, NULL }, 0, NULL, 0, 0, { 0 } };
    /* reports go out as each file is done, the JSON's "backend" first: not
     * with a backend that --backend=auto may swap for the CPU mid-run */
    run.keep = cfg->junit || cfg->sarif || cfg->annotations != LA_ANNOT_NONE || cfg->html ||
               cfg->overlays || (b->ops->flags & LA_SCANF_FALLIBLE);
    size_t most = (size_t)cfg->nfiles * (fx ? 2 : 1);   /* a copy per FILE at most */
    if (run.keep && !(run.kept = calloc(most ? most : 1, sizeof *run.kept))) {
        la_err(NULL, "out of memory");
        close_indices(io, cfg, "out of memory");
        la_scan_close(b);
        return LA_EXIT_UNREADABLE;
    }
    if (!run.keep)
        write_begin(&run);
    int failed = la_audit_each(cfg, b, io, fx, take_report, &run) != 0;
    run.sum.backend = b->ops->name;     /* the CPU, where the GPU gave way */
    if (failed)
        run.sum.exit_status = LA_EXIT_UNREADABLE;
    else
        check_splits(&run);
    if (run.keep && !failed) {          /* the kept reports, now that all are final */
        write_begin(&run);
        for (int i = 0; i < run.written; i++)
            write_report(&run, &run.kept[i], i);
    }
    if (!run.keep || !failed)
        write_end(&run);
    const char *skip = failed ? "the scan failed"
                     : run.sum.exit_status == LA_EXIT_UNREADABLE ? "an input could not be read"
                     : NULL;
    if ((!run.keep || !failed) && !cfg->quiet &&
        (fflush(stdout) != 0 || ferror(stdout) || run.write_failed)) {
        la_err(NULL, "write error: %s", strerror(errno ? errno : EIO));
        run.sum.exit_status = LA_EXIT_UNREADABLE;
        skip = skip ? skip : "the report could not be written";
    }
    if (run.keep && !failed && write_outputs(&run) != 0)
        run.sum.exit_status = LA_EXIT_UNREADABLE;
    if (close_indices(io, cfg, skip) != 0)
        run.sum.exit_status = LA_EXIT_UNREADABLE;
    if (la_fix_close(fx) != 0)  /* fixes.json; a copy not written is an output not written */
        run.sum.exit_status = LA_EXIT_UNREADABLE;
    for (int i = 0; run.kept && i < run.written; i++)
        la_file_report_free(&run.kept[i]);
    free(run.kept);
    la_splits_free(&run.splits);
    la_scan_close(b);
    return run.sum.exit_status;
}

/* Started with standard input, output or error closed (`labelaudit f >&-`),
 * the next open() would take that descriptor, and the report would be written
 * into the --indices-out file or fail on an input. Hold each closed one with
 * /dev/null opened the wrong way round, so that using it fails (gnulib's
 * stdopen does the same): a closed standard output is a write error. */
static void reserve_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got >= 0 && got != fd)
            close(got);        /* a lower one was free: the loop reached it already */
    }
}

/* The run's options, complete: parsed, then what the run learns before any
 * report (a `datasets` cache folder's splits as FILEs, --merge's checks from
 * the shard reports, -j 0's CPUs, --model read once). The only writer of
 * cfg: from here on it is const. @return -1 to go on, else the exit status. */
static int configure(int argc, char **argv, struct la_config *cfg)
{
    switch (la_options_parse(argc, argv, cfg)) {
    case LA_OPT_EXIT_OK: return fflush(stdout) == 0 ? LA_EXIT_CLEAN : LA_EXIT_UNREADABLE;
    case LA_OPT_USAGE:   return LA_EXIT_USAGE;
    case LA_OPT_OK:      break;
    }
    la_msg_setup(cfg);
    if (cfg->config_file && !cfg->quiet && !cfg->json) {   /* the text report says whose options */
        fputs("config: ", stdout);
        la_fputs_escaped(cfg->config_file, stdout);
        fputc('\n', stdout);
    }
    if (la_outputs_check(cfg) != 0)     /* an output that is an input, or two on one file */
        return LA_EXIT_USAGE;
    if (la_plan_splits(cfg) != 0) {     /* a `datasets` cache folder: a FILE per split */
        la_err(NULL, "out of memory");
        return LA_EXIT_UNREADABLE;
    }
    int merge_rc = cfg->merge ? la_merge_adopt_config(cfg) : 0;  /* the shards' checks */
    if (merge_rc != 0)
        return merge_rc;
    if (cfg->threads == 0)
        cfg->threads = la_online_cpus();
    la_threads_budget(cfg->threads);
    /* --model is read once, before any file: what it states holds for them all;
     * one that cannot be read leaves nothing to check them against */
    static struct la_model model;
    if (cfg->model && !cfg->merge) {
        char err[LA_ERR_LEN];
        if (la_model_read(cfg->model, &model, err, sizeof err) != 0) {
            la_err(NULL, "--model: %s", err);
            return LA_EXIT_UNREADABLE;
        }
        if (model.tokenizer_note[0])
            la_verbose(cfg->model, "%s", model.tokenizer_note);
        cfg->model_info = &model;
    }
    /* the columns beside the labels, each against its table: once, for every report */
    static struct la_column_plan columns;
    char why[LA_ERR_LEN];
    if (la_column_plan_build(cfg, &columns, why, sizeof why) != 0) {
        la_err(NULL, "%s", why);
        return LA_EXIT_USAGE;
    }
    if (columns.n)
        cfg->column_plan = &columns;
    return -1;
}

int main(int argc, char **argv)
{
    argv[0] = "labelaudit";            /* getopt's messages name the tool, not its path */
    signal(SIGPIPE, SIG_IGN);          /* a closed pipe is a write error we report */
    signal(SIGXFSZ, SIG_IGN);          /* so is a file over `ulimit -f`, and the temporary
                                          --indices-out file is removed, not left behind */
    reserve_std_fds();
    la_fatal_setup();                  /* a file cut short under a mapping is an error, not a
                                          crash; a killed run removes its temporary file */
    struct la_config parsed;
    int status = configure(argc, argv, &parsed);
    if (status >= 0)
        return status;
    const struct la_config *cfg = &parsed;   /* frozen: every stage reads it as const */
    char err[LA_ERR_LEN];
    struct la_scan_backend backend = { 0 };
    struct la_auto_hint hint; /* what --backend=auto decides from (scan.h) */
    la_auto_hint_of(cfg, &hint);
    if (la_scan_choose(&backend, cfg->backend, cfg->threads, &hint, err, sizeof err) != 0) {
        la_err(NULL, "--backend=gpu: %s", err);
        return LA_EXIT_UNREADABLE;
    }
    struct la_indices_out *io = NULL;
    if (cfg->indices_out && !(io = la_indices_out_open(cfg->indices_out, err, sizeof err))) {
        la_err(cfg->indices_out, "%s", err);
        la_scan_close(&backend);
        return LA_EXIT_UNREADABLE;
    }
    struct la_fix *fx = NULL;
    if (cfg->fix_dir && !(fx = la_fix_open(cfg, err, sizeof err))) {
        la_err(NULL, "%s", err);
        close_indices(io, cfg, "--fix was refused");
        la_scan_close(&backend);
        return LA_EXIT_USAGE;
    }
    return run_reports(cfg, &backend, io, fx);
}
