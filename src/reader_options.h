/* reader_options.h - the options that readers read, as one table.
 *
 * A reader's option (wds's --key, raw's --dtype, csv's --delimiter, ...) is a
 * row of la_read_options[] (reader_options.c): its name, its argument, its
 * --help text, the formats that read it, the values a shell completes, and
 * how its argument is parsed into which member of struct la_read_opts.
 * options.c builds getopt's table, the "Reading input" part of --help and the
 * parsing from these rows; tests/cli/completions.sh checks the completions
 * against them (tests/unit/test_reader_options --dump prints them). So a new
 * format's option is one member of la_read_opts (reader.h) and one row here. */
#ifndef LA_READER_OPTIONS_H
#define LA_READER_OPTIONS_H

#include <stddef.h> /* size_t, offsetof */
#include <stdio.h>  /* FILE */
#include "reader.h" /* struct la_read_opts */

/* How an option's argument becomes a value in struct la_read_opts. */
enum la_read_option_kind {
    LA_ROPT_TEXT,    /* const char *: the argument as given ("" included) */
    LA_ROPT_NAME,    /* const char *: the argument, which may not be empty */
    LA_ROPT_SET,     /* no argument: int = .value (--header, --no-header) */
    LA_ROPT_COUNT,   /* uint64_t: an integer in [0, INT64_MAX] */
    LA_ROPT_CHAR,    /* char: one character; "tab" and "\t" are a tab */
    LA_ROPT_DTYPE,   /* enum la_dtype, by the names .values lists (dtype.h) */
    LA_ROPT_CHOICE,  /* int: the position of the argument in .values */
};

/* A member of la_read_opts no option sets (see .given). */
#define LA_ROPT_NO_FIELD ((size_t)-1)

/* At most this many rows (getopt_long's table in options.c is sized by it). */
#define LA_MAX_READ_OPTIONS 64

struct la_read_option {
    const char *name;        /* the long option, without "--": "key" */
    char short_name;         /* 'c' for -c, or 0 */
    const char *arg;         /* what --help calls its argument ("EXT"); NULL: none */
    /* --help's text, lines split by '\n' (--help wraps nothing: 80 columns
     * at most, tests/cli/docs.sh checks); NULL: shown on the row above's
     * line, as "--header, --no-header" share one */
    const char *help;
    const char *formats;     /* the formats that read it, as --format names them */
    /* The words a shell offers for its argument, space-separated; NULL: none
     * (a name or a number). CHOICE and DTYPE: the only ones accepted, and what
     * the usage error lists. */
    const char *values;
    /* NAME: what an empty argument was expected to be, for the usage error */
    const char *expected;
    enum la_read_option_kind kind;
    size_t field;            /* offsetof(struct la_read_opts, the member it sets) */
    size_t given;            /* an int member set to 1 when it is given, or LA_ROPT_NO_FIELD */
    int value;               /* SET: the value it stores */
    /* The format it names by being given (--dtype: raw, --field: jsonl), for
     * a file whose content and name say none; LA_FMT_NONE: it names none */
    enum la_format implies;
};

extern const struct la_read_option la_read_options[];
extern const size_t la_n_read_options;

/** la_read_options_implied() : the format that the rows given in opts name
 *  (.implies), or LA_FMT_NONE where they name none, or two different ones. */
enum la_format la_read_options_implied(const struct la_read_opts *opts);

/** la_read_options_help() : the rows' lines of --help's "Reading input". */
void la_read_options_help(FILE *out);

#endif
