/* reader_options.c - the table of the options readers read (reader_options.h).
 *
 * Rows are in --help's order. A reader reads its option from r->opts (the
 * member .field names), never from argv: options.c parses every row alike. */
#include "reader_options.h"

#include <stdio.h>  /* fprintf, snprintf */
#include <string.h> /* strcspn */

#define FIELD(member) offsetof(struct la_read_opts, member)
#define DTYPES "int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64 bool"

const struct la_read_option la_read_options[] = {
    { .name = "column", .short_name = 'c', .arg = "NAME|NUMBER",
      .help = "the CSV/TSV label column (default: label, labels,\n"
              "target, targets, class, y, class_id, ... as the\n"
              "man page lists them, else the last column)",
      .formats = "csv tsv parquet arrow hf-dataset mds litdata jsonl",
      .expected = "a name or a 1-based number",
      .kind = LA_ROPT_NAME, .field = FIELD(column), .given = LA_ROPT_NO_FIELD },
    { .name = "header",
      .help = "whether the first CSV row is a header\n(default: guess)",
      .formats = "csv tsv",
      .kind = LA_ROPT_SET, .field = FIELD(header), .given = LA_ROPT_NO_FIELD, .value = LA_YES },
    { .name = "no-header", .formats = "csv tsv",
      .kind = LA_ROPT_SET, .field = FIELD(header), .given = LA_ROPT_NO_FIELD, .value = LA_NO },
    { .name = "skip-rows", .arg = "K",
      .help = "skip K lines at the start of a CSV\n(pandas' skiprows)",
      .formats = "csv tsv",
      .kind = LA_ROPT_COUNT, .field = FIELD(skip_rows), .given = LA_ROPT_NO_FIELD },
    { .name = "delimiter", .short_name = 'd', .arg = "C",
      .help = "CSV field delimiter (default ',' or tab for .tsv)",
      .formats = "csv tsv",
      .kind = LA_ROPT_CHAR, .field = FIELD(delimiter), .given = LA_ROPT_NO_FIELD },
    { .name = "dtype", .arg = "T",
      .help = "raw element type: int8 uint8 int16 uint16 int32\n"
              "uint32 int64 uint64 float16 float32 float64 bool",
      .formats = "raw", .values = DTYPES,
      .kind = LA_ROPT_DTYPE, .field = FIELD(dtype), .given = FIELD(has_dtype),
      .implies = LA_FMT_RAW },
    { .name = "endian", .arg = "little|big",
      .help = "raw byte order (default little)",
      .formats = "raw", .values = "little big",
      .kind = LA_ROPT_CHOICE, .field = FIELD(big_endian), .given = FIELD(has_endian),
      .implies = LA_FMT_RAW },
    { .name = "array", .arg = "NAME",
      .help = "the array to audit: npz member, .pt key, tensor,\n"
              ".mat variable, HDF5 dataset path",
      .formats = "npz pt safetensors mat hdf5",
      .kind = LA_ROPT_TEXT, .field = FIELD(array), .given = LA_ROPT_NO_FIELD },
    { .name = "key", .arg = "EXT",
      .help = "wds: the member holding each sample's label\n"
              "(default: cls, else label, target, idx)",
      .formats = "wds", .values = "cls label target idx",
      .kind = LA_ROPT_TEXT, .field = FIELD(key), .given = LA_ROPT_NO_FIELD },
    { .name = "field", .arg = "NAME",
      .help = "jsonl: one JSON document whose key NAME holds\n"
              "the records (datasets' field=)",
      .formats = "jsonl",
      .kind = LA_ROPT_TEXT, .field = FIELD(field), .given = LA_ROPT_NO_FIELD,
      .implies = LA_FMT_JSONL },
};
const size_t la_n_read_options = sizeof la_read_options / sizeof la_read_options[0];

/* Whether row o was given: its "given" member, else a text it set. */
static int row_given(const struct la_read_option *o, const struct la_read_opts *opts)
{
    const char *base = (const char *)opts;
    if (o->given != LA_ROPT_NO_FIELD)
        return *(const int *)(const void *)(base + o->given) != 0;
    if (o->kind == LA_ROPT_TEXT || o->kind == LA_ROPT_NAME)
        return *(const char *const *)(const void *)(base + o->field) != NULL;
    return 0;   /* a row that implies a format says how it is seen given */
}

enum la_format la_read_options_implied(const struct la_read_opts *opts)
{
    enum la_format named = LA_FMT_NONE;
    for (size_t i = 0; i < la_n_read_options; i++) {
        const struct la_read_option *o = &la_read_options[i];
        if (o->implies == LA_FMT_NONE || !row_given(o, opts))
            continue;
        if (named != LA_FMT_NONE && named != o->implies)
            return LA_FMT_NONE;
        named = o->implies;
    }
    return named;
}

/* --help's columns: options from column 2 (long ones from 6), text from 29 */
#define HELP_INDENT 29

/* "  -c, --column=NAME|NUMBER", "      --header, --no-header": the option
 * column of row i's line, which the rows after it without help text share.
 * @return the rows it names. */
static size_t option_column(size_t i, char *buf, size_t len)
{
    const struct la_read_option *o = &la_read_options[i];
    size_t n = 0;
    int used = o->short_name ? snprintf(buf, len, "  -%c, ", o->short_name)
                             : snprintf(buf, len, "      ");
    do {
        o = &la_read_options[i + n];
        if (used >= 0 && (size_t)used < len)
            used += snprintf(buf + used, len - (size_t)used, "%s--%s%s%s", n ? ", " : "",
                             o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
        n++;
    } while (i + n < la_n_read_options && !la_read_options[i + n].help);
    return n;
}

void la_read_options_help(FILE *out)
{
    char column[160];
    for (size_t i = 0; i < la_n_read_options;) {
        const char *line = la_read_options[i].help;
        i += option_column(i, column, sizeof column);
        /* the text starts on the option's line where two spaces still fit */
        int indent = HELP_INDENT - fprintf(out, "%s", column);
        if (indent < 2) {
            fprintf(out, "\n");
            indent = HELP_INDENT;
        }
        while (*line) {
            size_t n = strcspn(line, "\n");
            fprintf(out, "%*s%.*s\n", indent, "", (int)n, line);
            line += n + (line[n] == '\n');
            indent = HELP_INDENT;
        }
    }
}
