/* read_csv.c - the CSV/TSV reader: one label column out of a delimited file.
 *
 * Rows come from two parsers that must agree byte for byte:
 *   - a fast path for quote-free input: memchr finds the newlines and the
 *     label cell, nothing is copied (10^7 rows in about 0.2 s on one core);
 *   - libcsv (RFC 4180: quoted delimiters, doubled quotes, quoted newlines)
 *     for the rest of the file from the first block that holds a quote, a lone
 *     CR, or a line longer than a block, behind the requote filter that makes
 *     it read quotes as Python does (csv_requote.c). From -j2 on it runs on
 *     every thread (csv_parallel.c): blocks cut where a row surely starts,
 *     each with its own libcsv and filter, their rows taken in file order;
 *     once the label column is known, libcsv is not given the text of other
 *     cells.
 * A regular file is parsed in place, mapped (map_input); a pipe, compressed or
 * UTF-16 input is read a block at a time into a buffer. The parse is the same.
 * All call the same row handlers, so the header guess, the column choice
 * (csv_header.c) and the numbering exist once. Values wait in a bounded "pending" buffer until a
 * run of one kind (int64, float64, one unparsable cell) is complete, then
 * next() hands the run out in place, up to CHUNK values at a time.
 *
 * Where the fast path must behave as libcsv does (the unit test compares them):
 *   - a row ends at LF, CR LF or a lone CR (a lone CR sends the file to libcsv);
 *   - blank lines, and lines of only spaces and tabs, are not rows;
 *   - unquoted cells lose their leading and trailing spaces and tabs, except
 *     the delimiter itself (TSV keeps empty cells between two tabs).
 * Our own rules: a UTF-8 byte order mark at the start is skipped (Excel writes
 * one); once a float cell is seen, later integer cells are stored as float64,
 * as pandas does for a mixed column; line numbers in messages count LF bytes
 * (as grep -n does) and name the line where the row starts.
 *
 * LABELAUDIT_CSV_SLOW=1 in the environment (read by open) sends the whole file
 * through libcsv on one thread, every byte of it: the reference the tests
 * compare the other paths with. LABELAUDIT_CSV_BLOCK=N reads N bytes at a
 * time, so that tests cut small files into many blocks. */
#include "read_csv.h"     /* the reader's state, shared with csv_*.c */

#include "cells.h"   /* la_utf8_cut */
#include "fatal.h"   /* la_map_guarded: a mapped file cut short is reported, not fatal */
#include "msg.h"     /* la_verbose: -v says which parser read which rows */
#include "util.h"

#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* malloc, free, getenv */
#include <string.h>  /* memchr, memcpy, memmove, strcmp */
#include <sys/mman.h> /* madvise */
#include <unistd.h>  /* sysconf */

// ---- pending values

void la_csv_push_bad(struct la_csv *s, const char *p, size_t n)
{
    if (s->blk.part) {
        FAIL(s, "an unparsable cell");   /* stops the part: see FAIL */
        return;
    }
    if (s->pend.tail == s->blk.cap) {
        FAIL(s, "internal error: CSV row buffer overflow");
        return;
    }
    const char *nul = n ? memchr(p, '\0', n) : NULL;   /* the report gets a C string */
    if (nul)
        n = (size_t)(nul - p);
    n = la_utf8_cut(p, n, TEXT_MAX);
    if (la_grow(&s->pend.texts, &s->pend.text_cap, s->pend.text_len + n + 1, 4096) != 0) {
        FAIL(s, "out of memory");
        return;
    }
    if (n)
        memcpy(s->pend.texts + s->pend.text_len, p, n);
    s->pend.texts[s->pend.text_len + n] = '\0';
    s->pend.text_len += n + 1;
    s->pend.kinds[s->pend.tail++] = K_BAD;
    s->pend.brk = 1;
}

/* One data row's label cell. */
void la_csv_push_cell(struct la_csv *s, const char *p, size_t n)
{
    if (s->cols && la_csv_cols_label(s, p, n))
        return;                           /* a list cell: its items are pending */
    struct la_num v;
    enum la_cell c = small_int(p, n, &v.v.i) ? LA_CELL_INT : la_parse_number(p, n, &v);
    size_t t = s->pend.tail;

    if (c == LA_CELL_BAD) {
        la_csv_push_bad(s, p, n);
        return;
    }
    if (t == s->blk.cap) {
        FAIL(s, "internal error: CSV row buffer overflow");
        return;
    }
    if (c == LA_CELL_FLOAT && !s->pend.saw_float) {
        if (s->blk.part) {
            FAIL(s, "the first float");  /* the run breaks here: in order, on this thread */
            return;
        }
        s->pend.saw_float = 1;
        s->r->info.dtype = LA_DT_FLOAT64;
        if (t > s->pend.head)
            s->pend.brk = 1;                  /* the int run before it is complete */
    }
    if (s->pend.saw_float) {
        ((double *)s->pend.vals)[t] = c == LA_CELL_INT ? (double)v.v.i : v.v.f;
        s->pend.kinds[t] = K_FLOAT;
    } else {
        ((int64_t *)s->pend.vals)[t] = v.v.i;
        s->pend.kinds[t] = K_INT;
    }
    s->pend.tail = t + 1;
}

/* A row wider than the first one is what pandas refuses ("Expected 2 fields in
 * line 3, saw 3"): mostly an unquoted delimiter inside a path, which shifts
 * every cell after it, the label's too. A shorter row only lacks cells. */
void la_csv_check_width(struct la_csv *s, size_t cells, unsigned long long line)
{
    if (cells > s->hdr.width)
        FAIL(s, "line %llu: %zu fields, but the first row has %zu (an unquoted "
             "delimiter inside a field?)", line, cells, s->hdr.width);
}

// ---- row handlers shared by both parsers

/* A row has ended (its cells were given to on_field or parsed in place). */
void la_csv_end_row(struct la_csv *s, size_t cells)
{
    if (s->failed)
        return;
    if (!s->hdr.resolved) {
        la_csv_keep_row(s, cells);
        return;
    }
    if (cells <= s->hdr.col)
        la_csv_push_bad(s, "", 0);              /* too short to have the label cell */
    else
        la_csv_check_width(s, cells, current_row_line(s));
    if (s->cols)
        la_csv_cols_row_end(s);
}

// ---- the fast path: quote-free lines, parsed in place

/* The first row: every cell is kept for the header decision. */
static void fast_first_row(struct la_csv *s, const char *p, const char *end)
{
    size_t cells = 0;
    s->at.row_line = s->at.line;
    for (;;) {
        const char *d = memchr(p, s->delim, (size_t)(end - p));
        const char *a = p, *b = d ? d : end;
        trim(s, &a, &b);
        la_csv_row0_add(s, a, (size_t)(b - a));
        cells++;
        if (!d || s->failed)
            break;
        p = d + 1;
    }
    la_csv_end_row(s, cells);
}

/* One line without its LF. Only the label cell is looked at. */
static void fast_line(struct la_csv *s, const char *p, const char *end)
{
    if (end > p && end[-1] == '\r')
        end--;
    if (p == end || (is_pad(s, (unsigned char)*p) && blank_line(s, p, end)))
        return;
    if (!s->hdr.resolved) {
        fast_first_row(s, p, end);
        return;
    }
    for (size_t k = s->hdr.col; k; k--) {
        const char *d = memchr(p, s->delim, (size_t)(end - p));
        if (!d) {
            la_csv_end_row(s, s->hdr.col - k + 1);
            return;
        }
        p = d + 1;
    }
    const char *d = memchr(p, s->delim, (size_t)(end - p));
    if (d) {
        la_csv_check_width(s, s->hdr.col + 1 + count_fields(s, d + 1, end),
                           (unsigned long long)s->at.line);
        end = d;
    }
    trim(s, &p, &end);
    la_csv_push_cell(s, p, (size_t)(end - p));
}

static int run_complete(const struct la_csv *s)
{
    return s->pend.brk || s->pend.tail - s->pend.head >= CHUNK || s->failed;
}

/* Parse the complete lines in buf[pos..len) until the run at head is complete. */
static void fast_parse(struct la_csv *s)
{
    const char *p = s->in.buf + s->in.pos, *end = s->in.buf + s->in.len;
    const char *from = s->in.scan > s->in.pos ? s->in.buf + s->in.scan : p;   /* small reads: no rescan */
    int split = s->hdr.resolved && !s->fast.no_helper;
    while (!run_complete(s) && !s->lib.slow) {   /* slow: the header sent the rest to libcsv */
        if (split && s->at.line >= s->fast.split_after && (size_t)(end - from) >= SPLIT_MIN) {
            const char *last = memrchr(from, '\n', (size_t)(end - from));
            int all = last && la_csv_split_parse(s, &p, last + 1);
            if (p > from)
                from = p;
            if (all)
                continue;
            split = 0;                   /* a line for fast_line, or too few bytes */
        }
        const char *nl = memchr(from, '\n', (size_t)(end - from));
        if (!nl) {
            s->in.scan = s->in.len;
            break;
        }
        fast_line(s, p, nl);
        s->at.line++;
        p = from = nl + 1;
    }
    s->in.pos = (size_t)(p - s->in.buf);
}

/* Whether fresh bytes need libcsv: a quote, or a CR that is not part of CR LF.
 * A CR at the very end is decided by the next read (or ends the last line).
 * @return the first such byte (the quote, when there is one), else NULL. */
static const char *needs_libcsv(const char *p, const char *end)
{
    const char *quote = memchr(p, '"', (size_t)(end - p));
    if (quote)
        return quote;
    for (;;) {
        const char *cr = memchr(p, '\r', (size_t)(end - p));
        if (!cr || cr + 1 == end)
            return NULL;
        if (cr[1] != '\n')
            return cr;
        p = cr + 2;
    }
}

/* The parse leaves the fast path for libcsv (why: at byte at of buf, or NULL):
 * -v says where and why, and where libcsv runs. */
static void go_slow(struct la_csv *s, const char *at, const char *why)
{
    s->lib.slow = 1;
    if (!la_verbose_on())
        return;
    const char *p = s->in.buf + s->in.pos;
    unsigned long long line = s->at.line + (at && at > p ? count_lf(p, (size_t)(at - p)) : 0);
    /* the source's offset is that of buf's end: bytes after decompression */
    unsigned long long byte = la_source_offset(s->r->src) - (s->in.len - (size_t)((at ? at : p) - s->in.buf));
    if (s->in.map.base)
        byte = s->in.map_base + (size_t)((at ? at : p) - s->in.buf);
    la_verbose(s->r->path, "csv: %s at line %llu (byte %llu): libcsv parses from line %llu on, "
               "%s", why, line, byte, (unsigned long long)s->at.line,
               s->blk.no_blocks ? "on one thread" : "in blocks on threads where rows allow");
}

/* The parsed pages of a mapped file that are not given back yet, once
 * GIVE_BACK bytes of them have gathered: *from and the length, which the
 * caller drops (MADV_DONTNEED). Dropping them costs a system call and a TLB
 * flush on every core, so step_publish hands them to the step, whose first
 * thread to take a block drops them while the others parse. @return 0 when
 * none are due. */
size_t la_csv_pages_due(struct la_csv *s, char **from)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t lead = (size_t)(s->in.buf - (char *)s->in.map.base);   /* buf's offset in the mapping */
    size_t parsed = (lead + s->in.pos) / page * page;
    if (!s->in.map.base || parsed < s->in.given_back + GIVE_BACK)
        return 0;
    *from = (char *)s->in.map.base + s->in.given_back;
    size_t len = parsed - s->in.given_back;
    s->in.given_back = parsed;
    return len;
}

/* Feed up to a PIECE of buf[pos..len) to libcsv on this thread; when blocks
 * may follow, stop after the first row that ends in it. */
static void slow_piece(struct la_csv *s)
{
    size_t n = s->in.len - s->in.pos < PIECE ? s->in.len - s->in.pos : PIECE;
    const char *p = s->in.buf + s->in.pos, *end = p + n;
    int to_row_end = la_csv_blocks_wanted(s), got;

    do
        got = la_csv_requote_span(s, &p, end);
    while (got == 1 && !to_row_end);
    if (got < 0)
        return;
    s->blk.at_row_start = got == 1;
    s->in.pos = (size_t)(p - s->in.buf);
    la_csv_requote_flush(s, s->lib.rq.pads);        /* the rows of this PIECE, no more, are pending */
}

/* Feed buf[pos..len) to libcsv until the run is complete: in blocks on every
 * thread where it may, else a PIECE at a time. */
static void slow_parse(struct la_csv *s)
{
    while (s->in.pos < s->in.len && !run_complete(s) && !s->failed) {
        if (la_csv_blocks_wanted(s)) {
            int got = s->blk.at_row_start ? la_csv_blocks_parse(s) : -1;
            if (got > 0)
                continue;
            if (got == 0 && !s->in.eof && s->in.len - s->in.pos < s->blk.block)
                return;                  /* a read first: the block is too small */
        }
        slow_piece(s);
    }
}

/* End of input: the last line may lack its newline. */
static void finish(struct la_csv *s)
{
    if (!s->lib.slow) {
        if (s->in.pos < s->in.len)
            fast_line(s, s->in.buf + s->in.pos, s->in.buf + s->in.len);
        s->in.pos = s->in.len;
    } else if (la_csv_libcsv_end(s) < 0) {
        return;                          /* the error is set */
    }
    if (!s->hdr.resolved && s->hdr.kept.n && !s->failed)
        la_csv_resolve(s);                      /* fewer rows than the guess would compare */
    if (!s->failed)
        la_csv_cols_finish(s);
    s->done = 1;
}

// ---- input

/* Read a plain file in place: map it, guarded (fatal.h), from the source's
 * offset on. Copying it through read() cost a tenth of the parse, on the
 * thread all others wait for at each step; mapped, the parts fault its pages
 * in on their own threads. When mmap is refused, the file is read. */
static void map_input(struct la_csv *s)
{
    int fd = la_source_plain_fd(s->r->src);
    int64_t size = la_source_size(s->r->src);
    uint64_t at = la_source_offset(s->r->src);
    const char *buf;
    if (fd < 0 || size < 0 || (uint64_t)size <= at
        || !(buf = la_map_guarded(fd, at, (uint64_t)size - at, &s->in.map)))
        return;
    madvise(s->in.map.base, s->in.map.len, MADV_SEQUENTIAL);
    s->in.buf = (char *)buf;
    s->in.map_len = (size_t)((uint64_t)size - at);
    s->in.map_base = at;
}

/* The next block of a mapped file (MAP_BLOCKS for libcsv): no copy, len moves on. Parsed
 * pages are dropped now and then, so resident memory stays what reading used.
 * @return the bytes added, 0 at the end, -1 when the file shrank under the
 * mapping (the bytes read past its new end were zeros). */
static ssize_t more_mapped(struct la_csv *s)
{
    char *from;
    int in_blocks = la_csv_steps_in_blocks(s);
    size_t due = in_blocks ? 0 : la_csv_pages_due(s, &from);   /* else the next step's */
    if (due)
        madvise(from, due, MADV_DONTNEED);
    int64_t fault = la_guard_fault(s->in.map.base);
    if (fault >= 0)
        return FAIL(s, "byte %lld: file shrank while being read", (long long)fault);
    size_t step = in_blocks ? MAP_BLOCKS * s->blk.block : s->blk.block;
    size_t n = s->in.map_len - s->in.len < step ? s->in.map_len - s->in.len : step;
    la_source_read_in_place(s->r->src, s->in.map_base + s->in.len + n);
    return (ssize_t)n;
}

/* Read the next block after the unparsed bytes into buf. @return the bytes
 * added, 0 at the end, -1 on a read error. */
static ssize_t more_read(struct la_csv *s)
{
    /* Move the unparsed tail (at most READ_BYTES, see produce) to the front
     * when READ_BYTES no longer fit after it, or when it is shorter than the
     * bytes parsed before it (the partial row a block leaves: the buffer's
     * second half is then never touched). Moving a long tail every time would
     * be quadratic in the line length with small reads from a pipe; this way
     * each move costs at most what was parsed since the last. */
    if (s->in.pos == s->in.len) {
        s->in.pos = s->in.len = s->in.scan = 0;
    } else if (s->in.len > s->blk.block || s->in.len - s->in.pos <= s->in.pos) {
        memmove(s->in.buf, s->in.buf + s->in.pos, s->in.len - s->in.pos);
        s->in.len -= s->in.pos;
        s->in.scan = s->in.scan > s->in.pos ? s->in.scan - s->in.pos : 0;
        s->in.pos = 0;
    }
    ssize_t n = la_source_read(s->r->src, s->in.buf + s->in.len, s->blk.block);
    if (n < 0) {
        const char *why = la_source_error(s->r->src);
        return FAIL(s, "%s", why && *why ? why : "read error");
    }
    return n;
}

/* One more block after the unparsed bytes. @return 0, or -1 on a read error. */
int la_csv_fill(struct la_csv *s)
{
    ssize_t n = s->in.map.base ? more_mapped(s) : more_read(s);
    if (n < 0)
        return -1;
    if (n == 0) {
        s->in.eof = 1;
        return 0;
    }
    size_t from = s->in.len ? s->in.len - 1 : 0;   /* a CR left at the end is decided now */
    s->in.len += (size_t)n;
    const char *at = s->lib.slow ? NULL : needs_libcsv(s->in.buf + from, s->in.buf + s->in.len);
    if (at)
        go_slow(s, at, *at == '"' ? "a quote" : "a CR that ends a line alone");
    return 0;
}

/* Parse until the run at head is complete, the first row is resolved (when
 * asked), or the input ends. @return 0, or -1 with r->err set. */
static int produce(struct la_csv *s, int until_resolved)
{
    s->pend.brk = 0;
    for (;;) {
        if (s->lib.slow)
            slow_parse(s);
        else
            fast_parse(s);
        if (s->failed)
            return -1;
        if (run_complete(s) || (until_resolved && s->hdr.resolved))
            return 0;
        /* the parser needs more bytes; a line longer than a block goes to libcsv,
         * which holds only the cell, so memory stays bounded */
        if (!s->lib.slow && s->in.len - s->in.pos > s->blk.block) {
            go_slow(s, NULL, "a line longer than a read block");
            continue;
        }
        if (s->in.eof) {
            finish(s);
            return s->failed ? -1 : 0;
        }
        if (la_csv_fill(s) < 0)
            return -1;
    }
}

// ---- the reader ops

static void la_csv_close(struct la_reader *r)
{
    struct la_csv *s = r->state;
    if (!s)
        return;
    la_csv_helper_stop(s);
    la_csv_blocks_free(s->blk.blocks);
    la_csv_cols_free(s);
    if (s->lib.parser_live)
        csv_free(&s->lib.parser);
    if (s->in.map.base)
        la_unmap_guarded(&s->in.map);
    else
        free(s->in.buf);
    free(s->pend.vals);
    free(s->pend.kinds);
    free(s->pend.texts);
    free(s->hdr.kept.text);
    free(s->hdr.kept.off);
    free(s);
    r->state = NULL;
}

static unsigned char pick_delimiter(const struct la_reader *r)
{
    if (r->opts && r->opts->delimiter)
        return (unsigned char)r->opts->delimiter;
    return r->info.format == LA_FMT_TSV ? '\t' : ',';
}

static int csv_setup(struct la_reader *r, struct la_csv *s)
{
    const struct la_read_opts *o = r->opts;
    const char *slow = getenv("LABELAUDIT_CSV_SLOW");
    const char *block = getenv("LABELAUDIT_CSV_BLOCK");
    uint64_t num;

    s->r = r;
    s->delim = pick_delimiter(r);
    s->at.line = 1;
    s->lib.slow = s->lib.reference = slow && strcmp(slow, "1") == 0;
    s->fast.no_helper = o && o->threads == 1;
    s->blk.no_blocks = s->lib.slow || !o || o->threads <= 1;   /* the reference stays one thread */
    r->threads_itself = !s->lib.reference && (!s->fast.no_helper || !s->blk.no_blocks);
    s->blk.at_row_start = 1;
    s->blk.cap = PENDING;
    s->blk.block = READ_BYTES;
    if (block && la_strtou64(block, &num) == 0 && num >= 2 && num <= READ_BYTES)
        s->blk.block = (size_t)num;          /* tests: small files cross many block edges */
    s->blk.split_min = s->blk.block / 16 > 2 ? s->blk.block / 16 : 2;
    if (s->delim == '"' || s->delim == '\n' || s->delim == '\r')
        return FAIL(s, "the delimiter cannot be a quote or a newline");
    if (o && o->column && o->header == LA_NO && !la_csv_is_column_number(o->column, &num))
        return FAIL(s, "--column=%.100s names a header cell, but --no-header says there is none",
                    o->column);
    map_input(s);
    if (!s->in.map.base)
        s->in.buf = malloc(2 * s->blk.block);
    s->pend.vals = malloc(PENDING * sizeof(int64_t));
    s->pend.kinds = malloc(PENDING);
    if (!s->in.buf || !s->pend.vals || !s->pend.kinds || la_csv_parser_init(s) != 0)
        return FAIL(s, "out of memory");
    if (s->lib.reference)
        la_verbose(r->path, "csv: libcsv alone on one thread (LABELAUDIT_CSV_SLOW=1)");
    else
        la_verbose(r->path, "csv: fast path (quote-free lines parsed in place)%s",
                   s->fast.no_helper ? " on one thread (-j1)" : "");
    return 0;
}

static void init_info(struct la_reader *r)
{
    r->info.dtype = LA_DT_INT64;
    r->info.ndim = 1;
    r->info.shape[0] = 0;
    r->info.shape_known = 0;
    r->info.column[0] = '\0';
    r->info.has_column = 0;
    r->info.header_present = r->info.header_guessed = 0;
    r->info.header_why = NULL;
    r->info.header_ambiguous_row[0] = '\0';
    r->info.row_samples = r->notes != NULL;   /* see csv_columns.c */
}

/* --skip-rows=K: drop the first K lines, as pandas' skiprows=K does (sklearn's
 * wine_data.csv opens with a line of counts). Lines end at LF, so a quoted
 * newline in them ends one too. @return 0, or -1 on a read error. */
static int skip_lines(struct la_csv *s, uint64_t k)
{
    while (k > 0) {
        const char *p = s->in.buf + s->in.pos;
        const char *nl = memchr(p, '\n', s->in.len - s->in.pos);
        if (nl) {
            s->in.pos = (size_t)(nl + 1 - s->in.buf);
            s->at.line++;
            k--;
        } else if (s->in.eof) {
            s->in.pos = s->in.len;             /* fewer lines than K: no rows at all */
            return 0;
        } else {
            s->in.pos = s->in.len;             /* the line goes on: drop what was read of it */
            if (la_csv_fill(s) < 0)
                return -1;
        }
    }
    s->in.scan = s->in.pos;
    return 0;
}

/* The header decides what row 0 is, so the first row is read before any chunk. */
static int read_first_row(struct la_csv *s)
{
    while (!s->in.eof && s->in.len < 3)        /* the BOM may arrive a byte at a time */
        if (la_csv_fill(s) < 0)
            return -1;
    if (s->in.len >= 3 && memcmp(s->in.buf, "\xEF\xBB\xBF", 3) == 0)
        s->in.pos = 3;
    if (s->r->opts && skip_lines(s, s->r->opts->skip_rows) < 0)
        return -1;
    while (!s->hdr.resolved && !s->done)
        if (produce(s, 1) < 0)
            return -1;
    return 0;
}

static int la_csv_open(struct la_reader *r)
{
    struct la_csv *s = calloc(1, sizeof *s);
    if (!s)
        return la_reader_set_error(r, "out of memory");
    r->state = s;
    init_info(r);
    if (csv_setup(r, s) < 0 || read_first_row(s) < 0) {
        la_csv_close(r);                    /* r->err stays; a later close() does nothing */
        return -1;
    }
    return 0;
}

/* How many of the n kinds at p are k, from the first on. A step adds
 * tens of thousands of rows and this runs after each, so it compares 64 at a
 * time (the OR of eight words' differences, which -O2 vectorizes). */
static size_t same_kind(const unsigned char *p, size_t n, unsigned char k)
{
    const uint64_t all = 0x0101010101010101u * k;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t w[8], diff = 0;
        memcpy(w, p + i, sizeof w);
        for (int j = 0; j < 8; j++)
            diff |= w[j] ^ all;
        if (diff)
            break;
    }
    while (i < n && p[i] == k)
        i++;
    return i;
}

/* The length of the run at head: values of one kind, or one unparsable cell. */
static size_t run_length(const struct la_csv *s)
{
    if (s->pend.head == s->pend.tail)
        return 0;
    unsigned char k = s->pend.kinds[s->pend.head];
    if (k == K_BAD)
        return 1;
    size_t lim = s->pend.tail < s->pend.head + CHUNK ? s->pend.tail : s->pend.head + CHUNK;
    return same_kind(s->pend.kinds + s->pend.head, lim - s->pend.head, k);
}

static void emit(struct la_csv *s, size_t n, struct la_chunk *out)
{
    unsigned char k = s->pend.kinds[s->pend.head];
    out->dtype = k == K_FLOAT || (k == K_BAD && s->pend.saw_float) ? LA_DT_FLOAT64 : LA_DT_INT64;
    out->first_index = s->pend.index;
    out->count = n;
    if (k == K_BAD) {
        out->values = NULL;
        out->unparsable = s->pend.texts + s->pend.text_pos;
        s->pend.text_pos += strlen(out->unparsable) + 1;
    } else {
        out->values = (const char *)s->pend.vals + s->pend.head * sizeof(int64_t);
        out->unparsable = NULL;
    }
    s->pend.head += n;
    s->pend.index += n;
    s->r->info.shape[0] = s->pend.index;
}

/* Move the one incomplete run to the front. No unparsable cell is pending then
 * (one would have completed the run), so the text buffer starts over too. */
static void compact(struct la_csv *s)
{
    size_t n = s->pend.tail - s->pend.head;
    if (s->pend.head) {
        memmove(s->pend.vals, (char *)s->pend.vals + s->pend.head * sizeof(int64_t), n * sizeof(int64_t));
        memmove(s->pend.kinds, s->pend.kinds + s->pend.head, n);
    }
    s->pend.head = 0, s->pend.tail = n;
    s->pend.text_len = s->pend.text_pos = 0;
}

static int la_csv_next(struct la_reader *r, struct la_chunk *out)
{
    struct la_csv *s = r->state;
    for (;;) {
        if (s->failed)
            return -1;
        size_t n = run_length(s);
        if (n && (n == CHUNK || s->pend.head + n < s->pend.tail || s->done
                  || s->pend.kinds[s->pend.head] == K_BAD)) {
            la_csv_cols_publish(s);      /* the rows of these values, before they go out */
            emit(s, n, out);
            return 1;
        }
        if (s->done) {
            r->info.shape_known = 1;
            return 0;
        }
        compact(s);
        if (produce(s, 0) < 0)
            return -1;
    }
}

const struct la_reader_ops la_reader_csv = {
    .open = la_csv_open,
    .next = la_csv_next,
    .close = la_csv_close,
};

