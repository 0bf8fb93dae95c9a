/* options.c - the command line: getopt_long table, checked parsers, --help, --version.
 *
 * Parsers never exit; la_options_parse() reports a usage error once, in the GNU
 * form, and main() turns it into exit status 2. */
#include "options.h"

#include <ctype.h>   /* isalnum */
#include <errno.h>   /* errno */
#include <fnmatch.h> /* fnmatch: a section's path as a glob */
#include <getopt.h>  /* getopt_long */
#include <limits.h>  /* PATH_MAX */
#include <stdarg.h>  /* va_list */
#include <stdio.h>   /* printf, fprintf */
#include <stdlib.h>  /* exit */
#include <string.h>  /* strcmp */
#include <unistd.h>  /* getcwd */

#include "config.h"  /* PACKAGE_VERSION, HAVE_CUDA */
#include "config_file.h" /* .labelaudit.yaml */
#include "dtype.h"
#include "codecs.h"  /* la_decompressors */
#include "reader_options.h"
#include "util.h"

enum long_only {
    OPT_LOSS = 256, OPT_IGNORE_INDEX, OPT_FORMAT, OPT_DROP_LAST, OPT_WORLD_SIZE, OPT_SAMPLER_DROP_LAST,
    OPT_MIN_BATCH, OPT_BACKEND, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_JSON, OPT_MAX_REPORT,
    OPT_INDICES_OUT, OPT_FAIL_ON, OPT_COLOR,
    OPT_HISTOGRAM, OPT_JUNIT, OPT_ANNOTATIONS, OPT_HTML, OPT_OVERLAYS, OPT_SARIF,
    OPT_CONCAT, OPT_GLOB, OPT_MERGE, OPT_CONCISE, OPT_SPLIT, OPT_DRIFT_THRESHOLD, OPT_OVERLAP,
    OPT_IMAGES,
    OPT_VOCAB_SIZE, OPT_SEQ_LEN, OPT_COLUMNS, OPT_MODEL, OPT_DATA_YAML, OPT_NO_CONFIG,
    OPT_FIX, OPT_FIX_DROP, OPT_FIX_MAP, OPT_FIX_IGNORE,
    /* row i of reader_options.c's table without a short name is OPT_READ + i */
    OPT_READ = 1024,
};

/* Where getopt's table takes reader_options.c's rows: after --format, as
 * --help lists them. */
#define READ_OPTIONS_HERE { "", no_argument, NULL, 0 }

static const struct option command_options[] = {
    { "num-classes", required_argument, NULL, 'n' },
    { "loss", required_argument, NULL, OPT_LOSS },
    { "ignore-index", required_argument, NULL, OPT_IGNORE_INDEX },
    { "vocab-size", required_argument, NULL, OPT_VOCAB_SIZE },
    { "seq-len", required_argument, NULL, OPT_SEQ_LEN },
    { "columns", required_argument, NULL, OPT_COLUMNS },
    { "model", required_argument, NULL, OPT_MODEL },
    { "data-yaml", required_argument, NULL, OPT_DATA_YAML },
    { "format", required_argument, NULL, OPT_FORMAT },
    READ_OPTIONS_HERE,
    { "batch-size", required_argument, NULL, 'b' },
    { "drop-last", no_argument, NULL, OPT_DROP_LAST },
    { "world-size", required_argument, NULL, OPT_WORLD_SIZE },
    { "sampler-drop-last", no_argument, NULL, OPT_SAMPLER_DROP_LAST },
    { "min-batch", required_argument, NULL, OPT_MIN_BATCH },
    { "backend", required_argument, NULL, OPT_BACKEND },
    { "threads", required_argument, NULL, 'j' },
    { "progress", no_argument, NULL, OPT_PROGRESS },
    { "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
    { "json", no_argument, NULL, OPT_JSON },
    { "concise", no_argument, NULL, OPT_CONCISE },
    { "max-report", required_argument, NULL, OPT_MAX_REPORT },
    { "indices-out", required_argument, NULL, OPT_INDICES_OUT },
    { "fail-on", required_argument, NULL, OPT_FAIL_ON },
    { "quiet", no_argument, NULL, 'q' },
    { "verbose", no_argument, NULL, 'v' },
    { "color", required_argument, NULL, OPT_COLOR },
    { "colour", required_argument, NULL, OPT_COLOR },
    { "histogram", no_argument, NULL, OPT_HISTOGRAM },
    { "junit", required_argument, NULL, OPT_JUNIT },
    { "annotations", required_argument, NULL, OPT_ANNOTATIONS },
    { "html", required_argument, NULL, OPT_HTML },
    { "overlays", required_argument, NULL, OPT_OVERLAYS },
    { "sarif", required_argument, NULL, OPT_SARIF },
    { "fix", required_argument, NULL, OPT_FIX },
    { "fix-drop", no_argument, NULL, OPT_FIX_DROP },
    { "fix-map", required_argument, NULL, OPT_FIX_MAP },
    { "fix-ignore", required_argument, NULL, OPT_FIX_IGNORE },
    { "concat", no_argument, NULL, OPT_CONCAT },
    { "glob", required_argument, NULL, OPT_GLOB },
    { "merge", no_argument, NULL, OPT_MERGE },
    { "split", required_argument, NULL, OPT_SPLIT },
    { "drift-threshold", required_argument, NULL, OPT_DRIFT_THRESHOLD },
    { "overlap", required_argument, NULL, OPT_OVERLAP },
    { "images", required_argument, NULL, OPT_IMAGES },
    { "no-config", no_argument, NULL, OPT_NO_CONFIG },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

/* getopt_long's table and short options: command_options with the rows of
 * reader_options.c's table where READ_OPTIONS_HERE stands. */
#define N_COMMAND_OPTIONS (sizeof command_options / sizeof command_options[0])
#define MAX_READ_OPTIONS LA_MAX_READ_OPTIONS
static struct option getopt_table[N_COMMAND_OPTIONS + MAX_READ_OPTIONS];
static char getopt_shorts[sizeof "n:b:j:qvhV" + 2 * MAX_READ_OPTIONS];

/* Row r of reader_options.c's table as getopt_long's row; its short option
 * (with ':' when it takes an argument) appended to getopt_shorts. */
static struct option getopt_row(size_t r)
{
    const struct la_read_option *o = &la_read_options[r];
    if (o->short_name) {
        size_t end = strlen(getopt_shorts);
        getopt_shorts[end] = o->short_name;
        getopt_shorts[end + 1] = o->arg ? ':' : '\0';
        getopt_shorts[end + 2] = '\0';
    }
    return (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
                            o->short_name ? o->short_name : OPT_READ + (int)r };
}

static void build_getopt_table(void)
{
    size_t n = 0;
    strcpy(getopt_shorts, "n:b:j:qvhV");
    for (size_t i = 0; i < N_COMMAND_OPTIONS; i++) {
        if (!command_options[i].name || *command_options[i].name)
            getopt_table[n++] = command_options[i];
        else
            for (size_t r = 0; r < la_n_read_options && r < MAX_READ_OPTIONS; r++)
                getopt_table[n++] = getopt_row(r);
    }
}

/* --help up to "Reading input": what is checked and how the FILEs are read. */
static void usage_input(FILE *out)
{
    fprintf(out, "Usage: labelaudit [OPTION]... FILE...\n"
          "Audit ML label files before training: find the labels that would make PyTorch\n"
          "fail (class targets outside [0, N), BCE targets outside [0, 1], NaN, a tiny\n"
          "last batch). FILE may be - for standard input; compressed files are read\n"
          "transparently (this build: %s).\n"
          "\n"
          "What is checked:\n"
          "  -n, --num-classes=N        class labels must lie in [0, N)\n"
          "      --loss=ce|nll|bce      ce/nll: integer class targets (default ce);\n"
          "                             bce: every value finite and in [0, 1]\n"
          "      --ignore-index=V|none  a ce/nll target equal to V is skipped\n"
          "                             (default -100)\n"
          "      --vocab-size=V         token ids must lie in [0, V): the embedding's\n"
          "                             rows (-n V worded for language models)\n"
          "      --seq-len=L            a flat token stream's samples are blocks of L ids\n"
          "      --model=PATH           a Hugging Face model folder or its config.json:\n"
          "                             N is its num_labels (a head) or vocab_size\n"
          "      --columns=A,B,...      the columns beside the labels checked against the\n"
          "                             tables they index (input_ids, token_type_ids,\n"
          "                             position_ids, attention_mask; NAME=ROLE); default\n"
          "                             with --model or --vocab-size: all of them\n"
          "      --data-yaml=FILE       a YOLO data.yaml whose nc/names give N (default:\n"
          "                             the data.yaml beside a --format yolo folder)\n"
          "\n"
          "Reading input:\n"
          "      --format=FMT           auto, or a format --version lists (default auto)\n",
          la_decompressors());
    la_read_options_help(out);
    fprintf(out,
          "      --concat               all FILEs are one dataset, in order (ConcatDataset)\n"
          "      --glob=PATTERN         in a directory FILE, audit only the files whose\n"
          "                             relative path matches PATTERN (fnmatch)\n"
          "      --merge                the FILEs are --json reports of consecutive shards:\n"
          "                             print the report --concat over them would print\n"
          "      --split=NAME=PATH      PATH is split NAME of the dataset (repeatable); the\n"
          "                             splits are also checked against each other\n"
          "      --drift-threshold=D    label-drift past total variation distance D\n"
          "                             (default 0.1)\n"
          "      --overlap=path|hash    split-overlap: the same file path below the split\n"
          "                             folders (default), or the same content\n"
          "      --images=DIR           the images of a folder's masks or label files\n"
          "                             (default: where its layout keeps them)\n"
          "\n");
}

/* --help from "Batching simulation" on: the options that shape the run and its output. */
static void usage_run(FILE *out)
{
    fprintf(out,
          "Batching simulation:\n"
          "  -b, --batch-size=B         simulate DataLoader(batch_size=B)\n"
          "      --drop-last            DataLoader(drop_last=True)\n"
          "      --world-size=W         simulate DistributedSampler(num_replicas=W)\n"
          "      --sampler-drop-last    DistributedSampler(drop_last=True)\n"
          "      --min-batch=M          a batch of fewer than M samples is a finding\n"
          "                             (default 2)\n"
          "\n"
          "Performance:\n"
          "      --backend=auto|cpu|gpu\n"
          "                             scan on a CUDA GPU or the CPU (default auto)\n"
          "  -j, --threads=N            CPU threads (default: all online CPUs)\n"
          "      --progress, --no-progress\n"
          "                             progress bar on standard error\n"
          "\n"
          "Output:\n"
          "      --json                 one JSON document on standard output\n"
          "      --concise              one line per finding: PATH:LINE: error: [code] ...\n"
          "      --max-report=K         list at most K bad entries per file\n"
          "                             (default 10, or 1000 with --json)\n"
          "      --indices-out=FILE     write every bad entry as PATH<TAB>INDEX<TAB>VALUE\n"
          "      --fail-on=LEVEL        error, warning or never: what makes the exit\n"
          "                             status 1 (default error; warning also fails on\n"
          "                             a last batch of one)\n"
          "  -q, --quiet                print nothing; the exit status answers\n"
          "  -v, --verbose              say on standard error how each file is read and why\n"
          "                             (format, decompressor, mapped or reader thread,\n"
          "                             CSV fast path or libcsv, GPU or CPU)\n"
          "      --color=WHEN           auto, always or never (honours NO_COLOR)\n"
          "      --histogram            draw the class histogram as bars in the text\n"
          "                             report, with the class weights ready to paste\n"
          "      --junit=FILE           also write a JUnit XML report (a testcase per file\n"
          "                             and check) for CI test reporters\n"
          "      --annotations=WHERE    github: GitHub Actions annotations on standard\n"
          "                             output (standard error with --json);\n"
          "                             gitlab:FILE: a GitLab Code Quality report\n"
          "                             (both may be given)\n"
          "      --sarif=FILE           also write a SARIF 2.1.0 log, for GitHub code\n"
          "                             scanning and SARIF viewers\n"
          "      --html=FILE            also write one self-contained HTML page: findings,\n"
          "                             histogram chart, batching, bad masks as pictures\n"
          "      --overlays=DIR         one PNG per bad mask in DIR (new files only), the\n"
          "                             mask's classes in colour, its bad pixels magenta\n"
          "\n"
          "Corrected copies:\n"
          "      --fix=DIR              write a corrected copy of each file whose findings\n"
          "                             have one mechanical fix under DIR (new files\n"
          "                             only), DIR/fixes.json, and audit the copies\n"
          "      --fix-drop             leave out the samples no rule fixes (out of range,\n"
          "                             NaN, ...); DIR/dropped.txt lists them\n"
          "      --fix-map=FILE         map old labels to new: a JSON object or a CSV of\n"
          "                             old,new rows (instead of the automatic rules)\n"
          "      --fix-ignore=V         ignore-like values become V (default: the\n"
          "                             --ignore-index); V equal to them keeps them\n"
          "\n"
          "      --no-config            read no .labelaudit.yaml (else the nearest one\n"
          "                             from here up to the repository's root gives\n"
          "                             defaults: long option names as keys)\n"
          "  -h, --help                 show this help and exit\n"
          "  -V, --version              show the version and exit\n"
          "\n"
          "Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage error,\n"
          "3 an input could not be read.\n"
          "Full documentation: man labelaudit\n");
}

static void usage(FILE *out)
{
    usage_input(out);
    usage_run(out);
}

/* The image headers whose size pairs.c reads: those this build has a library for. */
static const char *image_headers(void)
{
    static char list[128];
    static const struct { const char *name; int built; } kinds[] = {
#ifdef HAVE_SPNG
        { "png", 1 },
#else
        { "png", 0 },
#endif
#ifdef HAVE_JPEG
        { "jpeg", 1 },
#else
        { "jpeg", 0 },
#endif
#ifdef HAVE_TIFF
        { "tiff", 1 },
#else
        { "tiff", 0 },
#endif
#ifdef HAVE_WEBP
        { "webp", 1 },
#else
        { "webp", 0 },
#endif
        { "bmp", 1 },
    };
    size_t used = 0, absent = 0;
    for (int pass = 1; pass >= 0; pass--)        /* the built ones, then the others */
        for (size_t i = 0; i < sizeof kinds / sizeof *kinds && used < sizeof list; i++) {
            if (kinds[i].built != pass)
                continue;
            const char *sep = !pass && !absent++ ? " (not built: " : used ? " " : "";
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", sep, kinds[i].name);
        }
    if (absent && used < sizeof list)
        snprintf(list + used, sizeof list - used, ")");
    return list;
}

static void version(void)
{
#ifdef HAVE_CUDA
    const char *cuda = "yes";
#else
    const char *cuda = "no";
#endif
    char built[512], absent[512];
    la_formats_list(built, sizeof built, 1, " ");
    la_formats_list(absent, sizeof absent, 0, " ");
#if defined HAVE_HDF5 && defined HAVE_LIBDEFLATE
    const char *h5_gzip = "HDF5 gzip chunks: libdeflate\n";
#elif defined HAVE_HDF5
    const char *h5_gzip = "HDF5 gzip chunks: zlib (not built: libdeflate)\n";
#else
    const char *h5_gzip = "";
#endif
#ifdef HAVE_ISAL
    const char *gzip = "gzip inflated by: ISA-L\n";
#else
    const char *gzip = "gzip inflated by: zlib (not built: ISA-L)\n";
#endif
#if defined HAVE_YAML && defined HAVE_YAJL
    const char *meta = "config.json, dataset.json, data.yaml (libyaml), tokenizer.json (yajl)";
#elif defined HAVE_YAML
    const char *meta = "config.json, dataset.json, data.yaml (libyaml) (not built: tokenizer.json)";
#elif defined HAVE_YAJL
    const char *meta = "config.json, dataset.json, tokenizer.json (yajl) (not built: data.yaml)";
#else
    const char *meta = "config.json, dataset.json (not built: data.yaml, tokenizer.json)";
#endif
#ifdef HAVE_ARROW
    const char *arrow = "Parquet and Arrow read by: Apache Arrow (" ARROW_FOUND_IN "), in the module "
                        "labelaudit-arrow.so, loaded at run time\n";
#else
    const char *arrow = "";
#endif
    printf("labelaudit %s\n"
           "CUDA backend: %s\n"
           "Decompression: %s\n"
           "Formats: %s%s%s%s\n"
           "Class-count metadata: %s\n"
           "Image sizes (pairs): %s\n"
           "%s%s%s"
           "Copyright (c) 2026 the labelaudit authors. MIT licence: see COPYING.\n",
           PACKAGE_VERSION, cuda, la_decompressors(), built,
           *absent ? " (not built: " : "", absent, *absent ? ")" : "", meta, image_headers(),
           gzip, h5_gzip, arrow);
}

/* A usage error: one GNU-style line plus the pointer to --help. */
static enum la_opterr bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* While a config file's entry is applied: "FILE:LINE", which a usage error names. */
static char g_from[PATH_MAX + 64];

static enum la_opterr bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "labelaudit: %s%s", g_from, g_from[0] ? ": " : "");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'labelaudit --help' for more information.\n");
    return LA_OPT_USAGE;
}

/* --format names the input's format; shellcheck's and hadolint's --format
 * names the output's: say which option that is here. NULL when it is none. */
static const char *output_option_for(const char *arg)
{
    static const char *const outputs[][2] = {
        { "json", "--json" }, { "sarif", "--sarif=FILE" }, { "github", "--annotations=github" },
        { "gitlab", "--annotations=gitlab:FILE" }, { "junit", "--junit=FILE" },
        { "checkstyle", "--junit=FILE" },
    };
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++)
        if (strcmp(arg, outputs[i][0]) == 0)
            return outputs[i][1];
    return NULL;
}

/* --format=NAME: auto or a row of the format table that this build reads. */
static enum la_opterr parse_format(const char *arg, struct la_config *cfg)
{
    char names[512];
    enum la_format f = la_format_by_name(arg);
    const char *output = f == LA_FMT_NONE ? output_option_for(arg) : NULL;
    if (output)
        return bad("invalid --format '%s': --format is the input's format; did you mean %s?",
                   arg, output);
    if (f == LA_FMT_NONE)
        return bad("invalid --format '%s' (expected auto, %s)", arg,
                   la_formats_list(names, sizeof names, 1, ", "));
    if (f != LA_FMT_AUTO && !la_reader_for_format(f))
        return bad("--format=%s: this labelaudit was built without %s", arg,
                   la_format_def(f)->library ? la_format_def(f)->library : "it");
    cfg->format = f;
    return LA_OPT_OK;
}

/* One of the words in choices (NULL-terminated); @return its position or -1. */
static int pick(const char *arg, const char *const *choices)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(arg, choices[i]) == 0)
            return i;
    return -1;
}

/* Whether arg is written as an integer (an optional sign, then digits), whatever
 * its size: such an argument that does not parse is out of range, not a typo. */
static int integer_text(const char *arg)
{
    if (*arg == '+' || *arg == '-')
        arg++;
    if (!*arg)
        return 0;
    for (; *arg; arg++)
        if (*arg < '0' || *arg > '9')
            return 0;
    return 1;
}

/* --NAME=ARG as an integer in [min, max]. A usage error says "out of range" for
 * a number too large (-b 9223372036854775808), and what was expected for
 * anything else (a word, a sign where none fits, a number below min). */
static enum la_opterr parse_count(const char *name, const char *arg, uint64_t min, uint64_t max,
                                  const char *expected, uint64_t *out)
{
    uint64_t u = 0;
    int parsed = la_strtou64(arg, &u) == 0;

    if (parsed && u >= min && u <= max) {
        *out = u;
        return LA_OPT_OK;
    }
    if (integer_text(arg) && *arg != '-' && (!parsed || u > max))
        return bad("invalid --%s '%s' (out of range: at most %llu)", name, arg,
                   (unsigned long long)max);
    return bad("invalid --%s '%s' (expected %s)", name, arg, expected);
}

static enum la_opterr parse_choice(int opt, const char *arg, struct la_config *cfg)
{
    static const char *const losses[] = { "ce", "nll", "bce", NULL };
    static const char *const levels[] = { "error", "warning", "never", NULL };
    static const char *const backends[] = { "auto", "cpu", "gpu", NULL };
    static const char *const colors[] = { "never", "always", "auto", NULL };
    static const char *const overlaps[] = { "path", "hash", NULL };
    int k;
    switch (opt) {
    case OPT_LOSS:
        if ((k = pick(arg, losses)) < 0)
            return bad("invalid --loss '%s' (expected ce, nll or bce)", arg);
        cfg->loss = (enum la_loss)k;
        return LA_OPT_OK;
    case OPT_FORMAT:
        return parse_format(arg, cfg);
    case OPT_FAIL_ON:
        if ((k = pick(arg, levels)) < 0)
            return bad("invalid --fail-on '%s' (expected error, warning or never)", arg);
        cfg->fail_on = (enum la_fail_on)k;
        return LA_OPT_OK;
    case OPT_BACKEND:
        if ((k = pick(arg, backends)) < 0)
            return bad("invalid --backend '%s' (expected auto, cpu or gpu)", arg);
        cfg->backend = (enum la_backend_choice)k;
        return LA_OPT_OK;
    case OPT_COLOR:
        if ((k = pick(arg, colors)) < 0)
            return bad("invalid --color '%s' (expected auto, always or never)", arg);
        cfg->color = k == 2 ? LA_AUTO : k;
        return LA_OPT_OK;
    case OPT_OVERLAP:
        if ((k = pick(arg, overlaps)) < 0)
            return bad("invalid --overlap '%s' (expected path or hash)", arg);
        cfg->overlap_by_content = k == 1;
        return LA_OPT_OK;
    }
    return LA_OPT_OK;
}

static enum la_opterr parse_number_option(int opt, const char *arg, struct la_config *cfg)
{
    const uint64_t most = (uint64_t)INT64_MAX;
    uint64_t u;
    switch (opt) {
    case 'n':
        if (parse_count("num-classes", arg, 1, most, "a positive integer", &u) != LA_OPT_OK)
            return LA_OPT_USAGE;
        cfg->has_num_classes = true;
        cfg->num_classes = (int64_t)u;
        return LA_OPT_OK;
    case OPT_IGNORE_INDEX:
        if (strcmp(arg, "none") == 0) {
            cfg->has_ignore_index = false;
            return LA_OPT_OK;
        }
        if (la_strtoi64(arg, &cfg->ignore_index) != 0)
            return integer_text(arg)
                ? bad("invalid --ignore-index '%s' (out of range: %lld to %lld)", arg,
                      (long long)INT64_MIN, (long long)INT64_MAX)
                : bad("invalid --ignore-index '%s' (expected an integer or none)", arg);
        cfg->has_ignore_index = true;
        cfg->ignore_index_given = true;
        return LA_OPT_OK;
    case OPT_VOCAB_SIZE:
        if (parse_count("vocab-size", arg, 1, most, "a positive integer", &u) != LA_OPT_OK)
            return LA_OPT_USAGE;
        cfg->has_vocab_size = true;
        cfg->vocab_size = (int64_t)u;
        return LA_OPT_OK;
    case OPT_FIX_IGNORE:
        if (la_strtoi64(arg, &cfg->fix_ignore) != 0)
            return bad("invalid --fix-ignore '%s' (expected an integer)", arg);
        cfg->has_fix_ignore = true;
        return LA_OPT_OK;
    case OPT_SEQ_LEN:
        return parse_count("seq-len", arg, 1, most, "a positive integer", &cfg->seq_len);
    case 'b':
        cfg->has_batch_size = true;
        return parse_count("batch-size", arg, 1, most, "a positive integer", &cfg->batch_size);
    case OPT_WORLD_SIZE:
        return parse_count("world-size", arg, 1, most, "a positive integer", &cfg->world_size);
    case OPT_MIN_BATCH:
        return parse_count("min-batch", arg, 0, most, "a non-negative integer", &cfg->min_batch);
    case 'j':
        if (parse_count("threads", arg, 1, 1024, "1 to 1024", &u) != LA_OPT_OK)
            return LA_OPT_USAGE;
        cfg->threads = (int)u;
        return LA_OPT_OK;
    case OPT_MAX_REPORT:
        cfg->has_max_report = true;
        return parse_count("max-report", arg, 0, most, "a non-negative integer",
                           &cfg->max_report);
    }
    return LA_OPT_OK;
}

/* "little or big": the words of a row's values, for its usage error. */
static const char *words_or(const char *values, char *buf, size_t len)
{
    const char *last = strrchr(values, ' ');
    snprintf(buf, len, "%.*s or %s", last ? (int)(last - values) : 0, values,
             last ? last + 1 : values);
    return last ? buf : values;
}

/* The position of arg among a row's space-separated values, or -1. */
static int value_position(const char *values, const char *arg)
{
    size_t n = strlen(arg);
    for (int k = 0; *values; k++) {
        size_t w = strcspn(values, " ");
        if (w == n && strncmp(values, arg, n) == 0)
            return k;
        values += w + (values[w] == ' ');
    }
    return -1;
}

/* --NAME=ARG of a row of reader_options.c's table, into cfg->read. */
static enum la_opterr parse_read_option(const struct la_read_option *o, const char *arg,
                                        struct la_config *cfg)
{
    char *field = (char *)&cfg->read + o->field, words[256];
    enum la_dtype dt;
    int k;
    switch (o->kind) {
    case LA_ROPT_NAME:
        if (!*arg)
            return bad("invalid --%s '%s' (expected %s)", o->name, arg, o->expected);
        /* fall through */
    case LA_ROPT_TEXT:
        memcpy(field, &arg, sizeof arg);
        break;
    case LA_ROPT_SET:
        memcpy(field, &o->value, sizeof o->value);
        break;
    case LA_ROPT_COUNT:
        if (parse_count(o->name, arg, 0, (uint64_t)INT64_MAX, "a non-negative integer",
                        (uint64_t *)(void *)field) != LA_OPT_OK)
            return LA_OPT_USAGE;
        break;
    case LA_ROPT_CHAR:
        if (strcmp(arg, "\\t") == 0 || strcmp(arg, "tab") == 0)
            arg = "\t";
        if (strlen(arg) != 1 || arg[0] == '"' || arg[0] == '\n' || arg[0] == '\r')
            return bad("invalid --%s '%s' (expected one character)", o->name, arg);
        *field = arg[0];
        break;
    case LA_ROPT_DTYPE:
        if (la_dtype_from_name(arg, &dt) != 0)
            return bad("invalid --%s '%s' (expected %s)", o->name, arg,
                       words_or(o->values, words, sizeof words));
        memcpy(field, &dt, sizeof dt);
        break;
    case LA_ROPT_CHOICE:
        if ((k = value_position(o->values, arg)) < 0)
            return bad("invalid --%s '%s' (expected %s)", o->name, arg,
                       words_or(o->values, words, sizeof words));
        memcpy(field, &k, sizeof k);
        break;
    }
    if (o->given != LA_ROPT_NO_FIELD)
        *(int *)(void *)((char *)&cfg->read + o->given) = 1;
    return LA_OPT_OK;
}

/* The row of reader_options.c's table that getopt_long returned as opt, or NULL. */
static const struct la_read_option *read_option_of(int opt)
{
    if (opt >= OPT_READ && (size_t)(opt - OPT_READ) < la_n_read_options)
        return &la_read_options[opt - OPT_READ];
    for (size_t i = 0; opt > 0 && opt < 128 && i < la_n_read_options; i++)
        if (la_read_options[i].short_name == opt)
            return &la_read_options[i];
    return NULL;
}

/* --annotations=github or gitlab:FILE; given twice, both (one GitLab file). */
static enum la_opterr parse_annotations(const char *arg, struct la_config *cfg)
{
    if (strcmp(arg, "github") == 0) {
        cfg->annotations |= LA_ANNOT_GITHUB;
        return LA_OPT_OK;
    }
    if (strncmp(arg, "gitlab:", 7) == 0 && arg[7]) {
        cfg->annotations |= LA_ANNOT_GITLAB;
        cfg->annotations_file = arg + 7;
        return LA_OPT_OK;
    }
    return bad("invalid --annotations '%s' (expected github or gitlab:FILE)", arg);
}

static void set_defaults(struct la_config *cfg)
{
    *cfg = (struct la_config){ 0 };
    cfg->loss = LA_LOSS_CE;
    cfg->has_ignore_index = true;
    cfg->ignore_index = -100;
    cfg->format = LA_FMT_AUTO;
    cfg->read = *la_read_opts_or_default(NULL);
    cfg->world_size = 1;
    cfg->min_batch = 2;
    cfg->backend = LA_BACKEND_AUTO;
    cfg->progress = LA_AUTO;
    cfg->color = LA_AUTO;
    cfg->fail_on = LA_FAIL_ERROR;
    cfg->drift_threshold = 0.1;
}

/* --split NAME=PATH: a split's name as datasets allows it (\w+), then its FILE. */
static enum la_opterr parse_split(const char *arg, struct la_config *cfg)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : 0;
    int name_ok = n > 0 && n < 128;
    for (size_t i = 0; name_ok && i < n; i++)
        name_ok = isalnum((unsigned char)arg[i]) || arg[i] == '_' || arg[i] == '-' ||
                  arg[i] == '.';
    if (!name_ok || !eq[1])
        return bad("invalid --split '%s' (expected NAME=PATH, NAME of letters, digits, "
                   "'_', '-' or '.')", arg);
    if (cfg->n_split_args >= LA_MAX_SPLIT_ARGS)
        return bad("more than %d --split options", LA_MAX_SPLIT_ARGS);
    cfg->split_args[cfg->n_split_args++] = arg;
    return LA_OPT_OK;
}

/* --drift-threshold D: a total variation distance, in [0, 1]. */
static enum la_opterr parse_drift_threshold(const char *arg, struct la_config *cfg)
{
    char *end;
    errno = 0;
    double d = strtod(arg, &end);
    if (end == arg || *end || errno || !(d >= 0 && d <= 1))
        return bad("invalid --drift-threshold '%s' (expected a number in [0, 1])", arg);
    cfg->drift_threshold = d;
    return LA_OPT_OK;
}

static enum la_opterr apply(int opt, const char *arg, struct la_config *cfg)
{
    const struct la_read_option *read = read_option_of(opt);
    if (read)
        return parse_read_option(read, arg, cfg);
    switch (opt) {
    case OPT_MODEL:             cfg->model = arg; return LA_OPT_OK;
    case OPT_COLUMNS:           cfg->columns = arg; return LA_OPT_OK;
    case OPT_DATA_YAML:         cfg->data_yaml = arg; return LA_OPT_OK;
    case OPT_DROP_LAST:         cfg->drop_last = true; return LA_OPT_OK;
    case OPT_SAMPLER_DROP_LAST: cfg->sampler_drop_last = true; return LA_OPT_OK;
    case OPT_PROGRESS:          cfg->progress = LA_YES; return LA_OPT_OK;
    case OPT_NO_PROGRESS:       cfg->progress = LA_NO; return LA_OPT_OK;
    case OPT_JSON:              cfg->json = true; return LA_OPT_OK;
    case OPT_CONCISE:           cfg->concise = true; return LA_OPT_OK;
    case OPT_INDICES_OUT:       cfg->indices_out = arg; return LA_OPT_OK;
    case OPT_HISTOGRAM:         cfg->histogram = true; return LA_OPT_OK;
    case OPT_CONCAT:            cfg->concat = true; return LA_OPT_OK;
    case OPT_GLOB:              cfg->glob = arg; return LA_OPT_OK;
    case OPT_MERGE:             cfg->merge = true; return LA_OPT_OK;
    case OPT_SPLIT:             return parse_split(arg, cfg);
    case OPT_IMAGES:            cfg->images = arg; return LA_OPT_OK;
    case OPT_DRIFT_THRESHOLD:   return parse_drift_threshold(arg, cfg);
    case OPT_JUNIT:             cfg->junit = arg; return LA_OPT_OK;
    case OPT_HTML:              cfg->html = arg; return LA_OPT_OK;
    case OPT_OVERLAYS:          cfg->overlays = arg; return LA_OPT_OK;
    case OPT_SARIF:             cfg->sarif = arg; return LA_OPT_OK;
    case OPT_FIX:               cfg->fix_dir = arg; return LA_OPT_OK;
    case OPT_FIX_DROP:          cfg->fix_drop = true; return LA_OPT_OK;
    case OPT_FIX_MAP:           cfg->fix_map = arg; return LA_OPT_OK;
    case OPT_ANNOTATIONS:       return parse_annotations(arg, cfg);
    case OPT_NO_CONFIG:         return LA_OPT_OK;   /* the first pass took it */
    case 'q':                   cfg->quiet = true; return LA_OPT_OK;
    case 'v':                   cfg->verbose = true; return LA_OPT_OK;
    case 'h':                   usage(stdout); return LA_OPT_EXIT_OK;
    case 'V':                   version(); return LA_OPT_EXIT_OK;
    case 'n': case 'b': case 'j': case OPT_IGNORE_INDEX: case OPT_WORLD_SIZE:
    case OPT_MIN_BATCH: case OPT_MAX_REPORT: case OPT_VOCAB_SIZE: case OPT_SEQ_LEN:
    case OPT_FIX_IGNORE:
        return parse_number_option(opt, arg, cfg);
    case OPT_LOSS: case OPT_FORMAT: case OPT_FAIL_ON: case OPT_BACKEND:
    case OPT_COLOR: case OPT_OVERLAP:
        return parse_choice(opt, arg, cfg);
    }
    /* getopt_long already printed what was wrong */
    fprintf(stderr, "Try 'labelaudit --help' for more information.\n");
    return LA_OPT_USAGE;
}

/* The batching options that only shape the simulation -b asks for. */
static const int batching_only[] = { OPT_WORLD_SIZE, OPT_DROP_LAST, OPT_SAMPLER_DROP_LAST,
                                     OPT_MIN_BATCH };
#define N_BATCHING_ONLY (sizeof batching_only / sizeof *batching_only)

static void note_batching_option(int opt, bool given[N_BATCHING_ONLY])
{
    for (size_t i = 0; i < N_BATCHING_ONLY; i++)
        if (batching_only[i] == opt)
            given[i] = true;
}

/* --world-size and the rest without -b: nothing is simulated, so say so on
 * standard error (a note: the run and its exit status are unchanged), rather
 * than let a user believe the batching was checked. */
static void note_no_batch_size(const bool given[N_BATCHING_ONLY], const struct la_config *cfg)
{
    static const char *const names[N_BATCHING_ONLY] = { "--world-size", "--drop-last",
                                                        "--sampler-drop-last", "--min-batch" };
    size_t n = 0, shown = 0;

    for (size_t i = 0; i < N_BATCHING_ONLY; i++)
        n += given[i];
    if (n == 0 || cfg->has_batch_size || cfg->quiet)
        return;
    fprintf(stderr, "labelaudit: note: ");
    for (size_t i = 0; i < N_BATCHING_ONLY; i++)
        if (given[i])
            fprintf(stderr, "%s%s", shown++ == 0 ? "" : shown == n ? " and " : ", ", names[i]);
    fprintf(stderr, " %s nothing without -b/--batch-size (no batching is simulated)\n",
            n == 1 ? "does" : "do");
}

/* --vocab-size V is -n V for the embedding: the range check is the same, so
 * V becomes the class count (the JSON's num_classes, the --merge checks).
 * Both given must agree: an embedding has one number of rows. */
static enum la_opterr take_vocab_size(struct la_config *cfg)
{
    if (!cfg->has_vocab_size)
        return LA_OPT_OK;
    if (cfg->loss == LA_LOSS_BCE)
        return bad("%s", "--vocab-size checks token ids (class targets): not with --loss=bce");
    if (cfg->has_num_classes && cfg->num_classes != cfg->vocab_size)
        return bad("--num-classes=%lld and --vocab-size=%lld disagree (an embedding has one "
                   "number of rows: give one of them)", (long long)cfg->num_classes,
                   (long long)cfg->vocab_size);
    cfg->has_num_classes = true;
    cfg->num_classes = cfg->vocab_size;
    return LA_OPT_OK;
}

// ---- .labelaudit.yaml: its entries through apply(), before the command line -------

/* Its options, kept for the run: cfg points into their values. */
static struct la_cfg_file g_file;
static char g_file_path[PATH_MAX];

static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(b), row[64], prev;
    if (n >= 64)
        return 64;
    for (size_t j = 0; j <= n; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t keep = row[j], sub = prev + (a[i - 1] != b[j - 1]);
            size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = keep;
        }
    }
    return row[n];
}

/* A key that is not a long option: said with the nearest one, if near. */
static enum la_opterr unknown_key(const char *key)
{
    const char *best = NULL;
    size_t best_d = 3;          /* at most 2 edits away, "num-clases", "fail_on" */
    for (size_t i = 0; getopt_table[i].name; i++) {
        size_t d = edit_distance(key, getopt_table[i].name);
        if (d < best_d && strcmp(getopt_table[i].name, "help") != 0 &&
            strcmp(getopt_table[i].name, "version") != 0 &&
            strcmp(getopt_table[i].name, "no-config") != 0)
            best_d = d, best = getopt_table[i].name;
    }
    if (best)
        return bad("unknown key '%s' (did you mean '%s'?)", key, best);
    return bad("unknown key '%s' (keys are long option names: labelaudit --help)", key);
}

/* Keys whose value is a path: relative to the config file's folder, as the
 * file was written from there (ruff and pytest resolve theirs so too). */
static int is_path_key(const char *key)
{
    static const char *const keys[] = { "model", "data-yaml", "junit", "html", "overlays",
                                        "sarif", "indices-out", "images", "fix", "fix-map",
                                        NULL };
    for (const char *const *k = keys; *k; k++)
        if (strcmp(*k, key) == 0)
            return 1;
    return 0;
}

/* The config file's folder as a prefix ("", "../../"). */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

static enum la_opterr apply_entry(struct la_cfg_entry *e, struct la_config *cfg,
                                  bool batching_given[N_BATCHING_ONLY])
{
    snprintf(g_from, sizeof g_from, "%s:%lu", g_file_path, e->line);
    const struct option *row = NULL;
    for (size_t i = 0; getopt_table[i].name && !row; i++)
        if (strcmp(getopt_table[i].name, e->key) == 0)
            row = &getopt_table[i];
    if (!row || row->val == 'h' || row->val == 'V' || row->val == OPT_NO_CONFIG)
        return unknown_key(e->key);
    if (row->has_arg == no_argument) {      /* histogram: true; false is not giving it */
        if (pick(e->value, (const char *const[]){ "false", "no", "off", NULL }) >= 0)
            return LA_OPT_OK;
        if (pick(e->value, (const char *const[]){ "true", "yes", "on", NULL }) < 0)
            return bad("'%s' is true or false, not '%s'", e->key, e->value);
        note_batching_option(row->val, batching_given);
        return apply(row->val, NULL, cfg);
    }
    size_t dl = dir_len(g_file_path);
    if (is_path_key(e->key) && dl && e->value[0] != '/' && strcmp(e->value, "-") != 0) {
        char *joined = malloc(dl + strlen(e->value) + 1);
        if (!joined)
            return bad("%s", "out of memory");
        memcpy(joined, g_file_path, dl);
        strcpy(joined + dl, e->value);
        free(e->value);
        e->value = joined;
    }
    note_batching_option(row->val, batching_given);
    return apply(row->val, e->value, cfg);
}

/* An absolute form of path, whether or not it exists (a glob does not). */
static void absolute(const char *path, char *buf, size_t len)
{
    char cwd[PATH_MAX];
    if (realpath(path, buf) && strlen(buf) < len)
        return;
    int n = path[0] == '/' || !getcwd(cwd, sizeof cwd) ? snprintf(buf, len, "%s", path)
                                                       : snprintf(buf, len, "%s/%s", cwd, path);
    if (n < 0 || (size_t)n >= len)
        buf[0] = '\0';            /* too long to be a path: it matches nothing */
}

/* Whether FILE lies at or below the section's path, or matches it as a glob. */
static int in_section(const char *file, const struct la_cfg_section *sec)
{
    char where[2 * PATH_MAX + 8], at[PATH_MAX], f[PATH_MAX];
    size_t dl = dir_len(g_file_path);
    if (strcmp(file, "-") == 0)
        return 0;
    snprintf(where, sizeof where, "%.*s%s", sec->path[0] == '/' ? 0 : (int)dl, g_file_path,
             sec->path);
    absolute(where, at, sizeof at);
    absolute(file, f, sizeof f);
    size_t n = strlen(at);
    while (n > 1 && at[n - 1] == '/')
        at[--n] = '\0';
    return (strncmp(f, at, n) == 0 && (f[n] == '\0' || f[n] == '/')) ||
           fnmatch(at, f, FNM_PATHNAME) == 0 || fnmatch(at, f, FNM_PATHNAME | FNM_LEADING_DIR) == 0;
}

/* The file's options, then each section every FILE lies in; a section that
 * holds some FILEs and not others is refused: one run has one set of options. */
static enum la_opterr apply_config_file(char **files, int nfiles, struct la_config *cfg,
                                        bool batching_given[N_BATCHING_ONLY])
{
    char err[512];
    if (!la_config_file_find(g_file_path, sizeof g_file_path))
        return LA_OPT_OK;
    if (la_config_file_read(g_file_path, &g_file, err, sizeof err) != 0) {
        unsigned long line = 0;
        const char *why = sscanf(err, "line %lu: ", &line) == 1 ? strstr(err, ": ") + 2 : err;
        if (line)
            snprintf(g_from, sizeof g_from, "%s:%lu", g_file_path, line);
        else
            snprintf(g_from, sizeof g_from, "%s", g_file_path);
        return bad("%s", why);
    }
    cfg->config_file = g_file_path;
    enum la_opterr rc = LA_OPT_OK;
    for (size_t i = 0; rc == LA_OPT_OK && i < g_file.n; i++)
        rc = apply_entry(&g_file.e[i], cfg, batching_given);
    for (size_t s = 0; rc == LA_OPT_OK && s < g_file.n_sec; s++) {
        const struct la_cfg_section *sec = &g_file.sec[s];
        int in = 0, out = -1;
        for (int k = 0; k < nfiles; k++)
            in_section(files[k], sec) ? in++ : (out = out < 0 ? k : out);
        if (in == 0)
            continue;
        if (out >= 0) {
            snprintf(g_from, sizeof g_from, "%s:%lu", g_file_path, sec->line);
            rc = bad("section '%s' holds some FILEs, not '%s': audit them in separate runs "
                     "(or --no-config)", sec->path, files[out]);
            break;
        }
        for (size_t i = 0; rc == LA_OPT_OK && i < sec->n; i++)
            rc = apply_entry(&sec->e[i], cfg, batching_given);
    }
    g_from[0] = '\0';
    return rc;
}

/* The first pass over argv, which prints nothing: whether --no-config (or
 * --help, --version: they need no file) is given, and the FILE operands
 * (getopt_long moves them to the end). */
static int first_pass(int argc, char **argv, int *first_file)
{
    int opt, skip = 0;
    opterr = 0;
    optind = 0;
    while ((opt = getopt_long(argc, argv, getopt_shorts, getopt_table, NULL)) != -1)
        skip |= opt == OPT_NO_CONFIG || opt == 'h' || opt == 'V';
    *first_file = optind;
    optind = 0;
    opterr = 1;
    return skip;
}

enum la_opterr la_options_parse(int argc, char **argv, struct la_config *cfg)
{
    bool batching_given[N_BATCHING_ONLY] = { false };

    set_defaults(cfg);
    if (argc > 1 && strcmp(argv[1], "--formats-needed") == 0) {   /* for the tests: not in --help */
        la_formats_needed(argv + 2, argc - 2, stdout);
        return LA_OPT_EXIT_OK;
    }
    build_getopt_table();
    int first_file;
    if (!first_pass(argc, argv, &first_file)) {
        enum la_opterr rc = apply_config_file(argv + first_file, argc - first_file, cfg,
                                              batching_given);
        if (rc != LA_OPT_OK)
            return rc;
    }
    int opt;
    while ((opt = getopt_long(argc, argv, getopt_shorts, getopt_table, NULL)) != -1) {
        enum la_opterr rc = apply(opt, optarg, cfg);
        if (rc != LA_OPT_OK)
            return rc;
        note_batching_option(opt, batching_given);
    }
    if (cfg->loss == LA_LOSS_BCE)
        cfg->has_ignore_index = false;  /* BCELoss has no ignore_index */
    if (take_vocab_size(cfg) != LA_OPT_OK)
        return LA_OPT_USAGE;
    if (!cfg->fix_dir && (cfg->fix_drop || cfg->fix_map || cfg->has_fix_ignore))
        return bad("%s needs --fix=DIR", cfg->fix_drop ? "--fix-drop"
                                         : cfg->fix_map ? "--fix-map" : "--fix-ignore");
    if (cfg->fix_dir && cfg->merge)
        return bad("%s", "--fix and --merge: --merge reads reports, which have no labels to fix");
    if (cfg->concise && cfg->json)     /* two reports on one standard output */
        return bad("%s", "--concise and --json: choose one");
    if (la_format_has(cfg->format, LA_FMTF_NEEDS_DTYPE) && !cfg->read.has_dtype)
        return bad("--format=%s needs --dtype (int8 ... float64, bool)",
                   la_format_name(cfg->format));
    if (cfg->n_split_args && (cfg->concat || cfg->merge))
        return bad("--split and --%s: choose one (a split is a report of its own)",
                   cfg->concat ? "concat" : "merge");
    if (optind >= argc && !cfg->n_split_args)
        return bad("%s", "missing FILE operand (use - for standard input)");
    cfg->files = argv + optind;
    cfg->nfiles = argc - optind;
    note_no_batch_size(batching_given, cfg);
    return LA_OPT_OK;
}
