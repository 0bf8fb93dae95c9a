/* input_detect.c - which format a source is read as: magic bytes (formats.c's
 * table), then what the options imply, then the name, then the content
 * (la_source_format, la_detect_format); and the refusal of binary data that
 * is not labels, or of a format this build lacks. */
#include "input_source.h"

#include <stdio.h>     /* snprintf */
#include <string.h>    /* memcmp */

#include "msg.h"        /* la_verbose: -v says what decided */
#include "context.h"    /* the report's --format and the options that imply one */
#include "reader.h"     /* la_reader_for_format: is a detected format built in */
#include "reader_options.h" /* la_read_options_implied */
#include "util.h"     /* la_name_ends_in */

// ---- format detection ---------------------------------------------------------

/* The content's kind of table: a tab before any comma on the first line makes a tsv. */
static enum la_format table_from_content(const unsigned char *head, size_t len,
                                         enum la_format other)
{
    for (size_t i = 0; i < len && head[i] != '\n'; i++) {
        if (head[i] == '\t')
            return LA_FMT_TSV;
        if (head[i] == ',')
            return LA_FMT_CSV;
    }
    return other;
}

/* A table for sure (-c or --header without -d): csv or tsv, by the name, else
 * the content; or a file of records whose -c names a key (a .jsonl). */
static enum la_format table_format(const char *path, const unsigned char *head, size_t len)
{
    enum la_format by_name = la_format_by_extension(path);
    if (la_format_has(by_name, LA_FMTF_TABLE) || la_format_has(by_name, LA_FMTF_KEYED))
        return by_name;
    return table_from_content(head, len, LA_FMT_CSV);
}

/* What the options imply: a format, LA_FMT_NONE for nothing, or IMPLIED_TABLE. */
#define IMPLIED_TABLE LA_FMT_COUNT

/* magic bytes, then what the options imply, then the name, then the content;
 * *why says which of them decided (for -v) */
static enum la_format detect(const char *path, const unsigned char *head, size_t len,
                             enum la_format forced, enum la_format implied, const char **why)
{
    *why = "--format";
    if (forced != LA_FMT_AUTO)
        return forced;
    *why = "magic bytes";
    enum la_format f = la_format_by_magic(head, len);
    if (f != LA_FMT_NONE)
        return f;
    *why = "zip magic bytes and the name";
    if (len >= 4 && memcmp(head, "PK\x03\x04", 4) == 0)
        return la_name_ends_in(path, ".npz") ? LA_FMT_NPZ : LA_FMT_NONE; /* a plain zip */
    *why = "-c, --header or --no-header imply a table, the name or first line which";
    if (implied == IMPLIED_TABLE)
        return table_format(path, head, len);
    *why = implied == LA_FMT_RAW ? "--dtype or --endian imply raw"
         : implied == LA_FMT_CSV || implied == LA_FMT_TSV ? "-d implies a table"
         : "an option that only its reader reads implies it (--field: jsonl)";
    if (implied != LA_FMT_NONE)
        return implied;
    *why = "the file name";
    if ((f = la_format_by_extension(path)) != LA_FMT_NONE)
        return f;
    /* content: a delimiter on the first line makes it a table */
    f = table_from_content(head, len, LA_FMT_TEXT);
    *why = f == LA_FMT_TEXT ? "the content: no delimiter on its first line"
                            : "the content: a delimiter on its first line";
    return f;
}

enum la_format la_detect_format(const char *path, const unsigned char *head, size_t len,
                                enum la_format forced)
{
    const char *why;
    return detect(path, head, len, forced, LA_FMT_NONE, &why);
}

/* The format the options given imply, or LA_FMT_NONE: -d names csv (tsv for
 * a tab), -c and --header/--no-header a table (csv or tsv: see table_format),
 * the rows of reader_options.c that name a format theirs (--dtype and
 * --endian raw, --field jsonl); two kinds at once, nothing, since a run over
 * several files may need both. */
static enum la_format implied_format(const struct la_report_ctx *ctx)
{
    int table = ctx->read.delimiter || ctx->read.column || ctx->read.header != LA_AUTO;
    enum la_format named = la_read_options_implied(&ctx->read);
    if (table == (named != LA_FMT_NONE))
        return LA_FMT_NONE;
    if (named != LA_FMT_NONE)
        return named;
    if (!ctx->read.delimiter)
        return IMPLIED_TABLE;
    return ctx->read.delimiter == '\t' ? LA_FMT_TSV : LA_FMT_CSV;
}

/* The message that refuses a file no reader of this build reads: one whose
 * format is configured out (with a way to export it, where there is one), or
 * binary data that is not labels. */
static void refuse(const struct la_source *s, enum la_format f, const char *looks_like,
                   const char *fix, char *err, size_t errlen)
{
    const struct la_format_def *d = la_format_def(f);
    if (looks_like || !d) {
        snprintf(err, errlen, "not a label file (looks like %s)%s%s",
                 looks_like ? looks_like : "binary data",
                 fix ? ": " : "", fix ? fix : "");
        return;
    }
    /* the command reads the file itself: a compressed one by its name would fail */
    int compressed = s->codec != LA_CODEC_PLAIN;
    char cmd[LA_ERR_LEN];
    la_export_command(f, compressed ? "-" : s->path, cmd, sizeof cmd);
    snprintf(err, errlen, "%s file, but this labelaudit was built without %s%s%s",
             la_format_name(f), d->library ? d->library : "its reader",
             !*cmd ? "" : compressed ? "; decompress it, then export the label column: "
                                     : "; export the label column: ", cmd);
}

enum la_format la_source_format(struct la_source *s, const struct la_report_ctx *ctx,
                                char *err, size_t errlen)
{
    enum la_format forced = ctx ? ctx->format : LA_FMT_AUTO;
    const char *why;
    enum la_format f = detect(s->path, s->peek, s->peek_len, forced,
                              ctx && forced == LA_FMT_AUTO ? implied_format(ctx) : LA_FMT_NONE,
                              &why);
    if (s->codec != LA_CODEC_PLAIN)
        la_verbose(s->path, "%s-compressed (magic bytes): %s decompresses it",
                   la_codecs[s->codec].name, la_source_decoder_name(s));
    /* Binary data is never parsed as text, whatever the name or --format say:
     * a zip no format claims (or any named .zip), NUL bytes, a known magic. */
    char kind[64];
    const char *fix = NULL, *looks_like = NULL;
    enum la_format by_magic = la_format_by_magic(s->peek, s->peek_len);
    if (la_format_has(f, LA_FMTF_TEXT) && by_magic != LA_FMT_NONE) {  /* --format=csv */
        snprintf(kind, sizeof kind, "%s data, by its magic bytes", la_format_name(by_magic));
        looks_like = kind;
        fix = "leave --format out";
    } else if (f == LA_FMT_NONE || la_format_has(f, LA_FMTF_TEXT) ||
               (forced == LA_FMT_AUTO && f == LA_FMT_NPZ && la_name_ends_in(s->path, ".zip"))) {
        looks_like = la_foreign_kind(s->peek, s->peek_len, &fix, kind, sizeof kind);
    }
    if (looks_like || !la_reader_for_format(f)) {
        refuse(s, f, looks_like, fix, err, errlen);
        return LA_FMT_NONE;
    }
    if (la_format_has(f, LA_FMTF_TEXT) && la_source_text_mode(s, err, errlen) != 0)
        return LA_FMT_NONE;
    la_verbose(s->path, "format %s (%s)", la_format_name(f), why);
    return f;
}
