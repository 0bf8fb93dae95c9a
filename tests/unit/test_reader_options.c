/* test_reader_options.c - reader_options.c's table is sound and options.c
 * parses every row into the member it names.
 *
 * With --dump it prints the table instead, one row a line, for the shell
 * tests that check the completions against it (tests/cli/completions.sh):
 *   NAME<TAB>SHORT<TAB>ARG<TAB>VALUES<TAB>FORMATS   ("-" for none) */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <string.h>

#include "context.h"  /* la_read_opts_of, la_config_max_report */
#include "formats.h"
#include "options.h"
#include "reader_options.h"
#include "tap.h"

static const char *or_dash(const char *s) { return s && *s ? s : "-"; }

static int dump(void)
{
    for (size_t i = 0; i < la_n_read_options; i++) {
        const struct la_read_option *o = &la_read_options[i];
        char shortname[2] = { o->short_name, '\0' };
        printf("%s\t%s\t%s\t%s\t%s\n", o->name, or_dash(shortname), or_dash(o->arg),
               or_dash(o->values), or_dash(o->formats));
    }
    return 0;
}

/* Every word of a row's formats is a format of the table. */
static int formats_known(const char *formats)
{
    char name[32];
    while (*formats) {
        size_t n = strcspn(formats, " ");
        snprintf(name, sizeof name, "%.*s", (int)n, formats);
        if (la_format_by_name(name) == LA_FMT_NONE || la_format_by_name(name) == LA_FMT_AUTO)
            return 0;
        formats += n + (formats[n] == ' ');
    }
    return 1;
}

static void test_rows(void)
{
    TAP_OK(la_n_read_options > 0 && la_n_read_options <= LA_MAX_READ_OPTIONS,
           "%zu rows, at most %d", la_n_read_options, LA_MAX_READ_OPTIONS);
    TAP_OK(la_read_options[0].help != NULL, "the first row has its own --help line");
    for (size_t i = 0; i < la_n_read_options; i++) {
        const struct la_read_option *o = &la_read_options[i];
        int unique = 1;
        for (size_t j = 0; j < i; j++)
            unique &= strcmp(o->name, la_read_options[j].name) != 0
                   && (!o->short_name || o->short_name != la_read_options[j].short_name);
        TAP_OK(unique, "--%s: its long and short names are no other row's", o->name);
        TAP_OK(o->formats && *o->formats && formats_known(o->formats),
               "--%s: read by formats the table knows (%s)", o->name, or_dash(o->formats));
        int needs_values = o->kind == LA_ROPT_CHOICE || o->kind == LA_ROPT_DTYPE;
        TAP_OK(!needs_values || (o->values && *o->values), "--%s: its values are listed", o->name);
        TAP_OK((o->kind == LA_ROPT_SET) == !o->arg, "--%s: an argument exactly when it takes one",
               o->name);
        TAP_OK(o->kind != LA_ROPT_NAME || o->expected, "--%s: says what an empty one should be",
               o->name);
    }
}

/* la_options_parse of "labelaudit ARG FILE" into *cfg. @return its answer. */
static enum la_opterr parse(const char *arg, struct la_config *cfg)
{
    char prog[] = "labelaudit", file[] = "x.csv", a[64];
    snprintf(a, sizeof a, "%s", arg);
    char *argv[] = { prog, a, file, NULL };
    optind = 1;
    return la_options_parse(3, argv, cfg);
}

static void test_parsing(void)
{
    struct la_config c;
    TAP_OK(parse("--key=json", &c) == LA_OPT_OK && strcmp(c.read.key, "json") == 0,
           "--key=json sets read.key");
    TAP_OK(parse("--no-header", &c) == LA_OPT_OK && c.read.header == LA_NO, "--no-header: LA_NO");
    TAP_OK(parse("--header", &c) == LA_OPT_OK && c.read.header == LA_YES, "--header: LA_YES");
    TAP_OK(parse("x", &c) == LA_OPT_OK && c.read.header == LA_AUTO && !c.read.column,
           "no option: the defaults (header guessed, no column)");
    TAP_OK(parse("-dtab", &c) == LA_OPT_OK && c.read.delimiter == '\t', "-d tab is a tab");
    TAP_OK(parse("-c2", &c) == LA_OPT_OK && strcmp(c.read.column, "2") == 0, "-c2: column 2");
    TAP_OK(parse("--skip-rows=7", &c) == LA_OPT_OK && c.read.skip_rows == 7, "--skip-rows=7");
    TAP_OK(parse("--endian=big", &c) == LA_OPT_OK && c.read.big_endian && c.read.has_endian,
           "--endian=big: big, and given");
    TAP_OK(parse("--endian=little", &c) == LA_OPT_OK && !c.read.big_endian && c.read.has_endian,
           "--endian=little: little, and given");
    TAP_OK(parse("--dtype=uint16", &c) == LA_OPT_OK && c.read.dtype == LA_DT_UINT16
           && c.read.has_dtype, "--dtype=uint16, and given");
    TAP_OK(parse("--array=/y", &c) == LA_OPT_OK && strcmp(c.read.array, "/y") == 0, "--array=/y");
    struct la_read_opts o;
    c.threads = 3;
    la_read_opts_of(&c, &o);
    TAP_OK(o.threads == 3 && strcmp(o.array, "/y") == 0, "la_read_opts_of: the rows and -j");
    TAP_OK(la_read_options_implied(&c.read) == LA_FMT_NONE, "--array implies no format");
    TAP_OK(parse("--endian=big", &c) == LA_OPT_OK && la_read_options_implied(&c.read) == LA_FMT_RAW,
           "--endian implies raw");
    TAP_OK(parse("--field=data", &c) == LA_OPT_OK
           && la_read_options_implied(&c.read) == LA_FMT_JSONL, "--field implies jsonl");
    c.read.has_dtype = 1;
    TAP_OK(la_read_options_implied(&c.read) == LA_FMT_NONE, "--field and --dtype: no one format");
    TAP_OK(parse("--endian=middle", &c) == LA_OPT_USAGE, "--endian=middle is a usage error");
    TAP_OK(parse("--column=", &c) == LA_OPT_USAGE, "an empty --column is a usage error");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--dump") == 0)
        return dump();
    test_rows();
    test_parsing();
    return tap_done();
}
