/* audit.c - see audit.h.
 *
 * Reading and scanning overlap. A file run (plain .npy, raw: reader.h) goes
 * to the backend whole when it can take it (the CPU backend: each thread reads
 * its own share a window at a time, scan.h); else it is mapped a window at a
 * time (window.h) and scanned in place by the backend's threads. Every other input is
 * read by a reader thread that copies each chunk into a small ring, while
 * this thread scans the previous one. */
#include "audit.h"
#include "pool.h"   /* la_thread_create: the reader thread is one of -j */

#include <fcntl.h>    /* posix_fadvise */
#include <pthread.h>  /* pthread_create, pthread_cond_wait */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, free */
#include <string.h>   /* memset, memcpy, strerror */
#include <errno.h>    /* errno */
#include <ctype.h>    /* tolower */
#include <sys/stat.h> /* fstat */

#include "window.h" /* a file run a mapped window at a time */
#include "msg.h"
#include "util.h"   /* la_mul_overflow, la_grow */
#include "ring.h"   /* the reader thread hands chunks over */
#include "class_count.h" /* N from a reader's own classes */
#include "context.h"
#include "columns.h" /* --seq-len's blocks against the position table; the plan: a CSV
                       checking more columns leaves notes */

/* Whether --seq-len cuts this file into blocks: a flat stream of ids (one
 * axis, one element a sample, no reader's own samples). */
static int cut_in_blocks(const struct la_array_info *info, const struct la_report_ctx *ctx,
                         const struct la_notes *notes)
{
    return ctx->cfg->seq_len > 0 && info->ndim <= 1 && !info->one_sample &&
           !(notes && (notes->sample_of || notes->has_samples));
}

/* Elements per sample: the product of every axis but the first (of all, when
 * the file is one sample: an image, a volume); --seq-len's for a stream. */
static uint64_t sample_stride(const struct la_array_info *info, const struct la_report_ctx *ctx,
                              const struct la_notes *notes)
{
    if (cut_in_blocks(info, ctx, notes))
        return ctx->cfg->seq_len;
    uint64_t stride = 1;
    for (int d = info->one_sample ? 0 : 1; d < info->ndim; d++)
        if (la_mul_overflow(stride, info->shape[d], &stride))
            return 1;
    return stride ? stride : 1;
}

/* The column names of labels, as opposed to the ids fed to the embedding. */
static int labels_column(const struct la_array_info *info)
{
    if (!info->column[0])
        return 0;
    char name[sizeof info->column];
    size_t i = 0;
    for (; info->column[i] && i + 1 < sizeof name; i++)
        name[i] = (char)tolower((unsigned char)info->column[i]);
    name[i] = '\0';
    return strstr(name, "label") || strstr(name, "target") || strcmp(name, "y") == 0;
}

/* --array's name, as a column's: an .npz member or a tensor named labels. */
static int labels_array(const struct la_report_ctx *ctx)
{
    struct la_array_info named = { 0 };
    if (!ctx->read.array)
        return 0;
    snprintf(named.column, sizeof named.column, "%s", ctx->read.array);
    return labels_column(&named);
}

int la_token_ids(const struct la_report_ctx *ctx, const struct la_array_info *info)
{
    return ctx->has_vocab_size && !labels_column(info) && !labels_array(ctx);
}

enum la_vocabulary la_vocabulary_of(const struct la_report_ctx *ctx,
                                    const struct la_array_info *info)
{
    int tokens = la_format_has(info->format, LA_FMTF_TOKENS) || info->token_stream;
    if (!ctx->has_vocab_size && !tokens)
        return LA_VOCAB_NONE;
    return labels_column(info) || labels_array(ctx) ? LA_VOCAB_LABELS : LA_VOCAB_IDS;
}

int la_ignore_is_an_id(const struct la_report_ctx *ctx, const struct la_array_info *info)
{
    return la_token_ids(ctx, info) && ctx->cfg->has_ignore_index &&
           !ctx->cfg->ignore_index_given;
}

struct la_rule la_rule_for_file(const struct la_report_ctx *ctx, const struct la_array_info *info)
{
    struct la_rule r = ctx->rule;
    if (la_ignore_is_an_id(ctx, info) || info->no_ignore)
        r.has_ignore = 0;
    return r;
}

int la_stats_init_for(struct la_stats *s, const struct la_report_ctx *ctx, uint64_t sample_stride)
{
    uint64_t hist_len = 0;
    /* token ids: no histogram over the vocabulary unless asked for (it would
     * cost a counter per id and say nothing the range check does not) */
    if (ctx->has_vocab_size && !ctx->cfg->histogram)
        ;
    else if (ctx->cfg->loss != LA_LOSS_BCE)
        hist_len = !ctx->has_num_classes ? LA_HIST_MAX
                 : (uint64_t)ctx->num_classes <= LA_HIST_MAX ? (uint64_t)ctx->num_classes : 0;
    int64_t above_base = ctx->cfg->loss == LA_LOSS_BCE ? 1
                       : ctx->has_num_classes ? ctx->num_classes : 0;
    uint64_t cap = ctx->max_report;
    return la_stats_init(s, sample_stride, cap > 1u << 24 ? 1u << 24 : cap, hist_len, above_base);
}

static int init_stats(struct la_file_report *r, const struct la_report_ctx *ctx,
                      struct la_indices_out *io, const struct la_notes *notes)
{
    r->seq_len = cut_in_blocks(&r->info, ctx, notes) ? ctx->cfg->seq_len : 0;
    r->token_ids = la_token_ids(ctx, &r->info);
    r->vocabulary = la_vocabulary_of(ctx, &r->info);
    r->ignore_off = la_ignore_is_an_id(ctx, &r->info);
    if (la_stats_init_for(&r->stats, ctx, sample_stride(&r->info, ctx, notes)) != 0)
        return -1;
    if (la_pos_counts_start(&r->pos, ctx->cfg, &r->info) != 0)
        return -1;
    struct la_rule rule = la_rule_for_file(ctx, &r->info);
    uint64_t stride = r->stats.sample_stride;
    /* a reader's samples of contiguous elements (list rows, records, items,
     * sequences): counted by its map, each sample's end where sample_end
     * says or where the map's sample changes */
    int by_map = notes && notes->sample_of && notes->samples_ordered;
    la_ignored_samples_start(&r->ignored_samples, rule.has_ignore, rule.ignore, r->info.dtype,
                             by_map ? 0 : stride, by_map ? notes->sample_of : NULL,
                             by_map ? notes->sample_end : NULL,
                             by_map ? notes->sample_ctx : NULL, ctx->max_report);
    if (io) {
        la_indices_out_begin_file(io, r->path, r->info.dtype);
        r->stats.sink = la_indices_out_sink;
        r->stats.sink_ctx = io;
    }
    return 0;
}

// ---- file runs: mapped windows, scanned in place ------------------------------

/* Scan rd->run window by window. @return 0, -1 on a read error, -2 on a scan error. */
static int scan_run(struct la_reader *rd, struct la_file_report *r, const struct la_rule *rule,
                    struct la_scan_backend *b, struct la_progress *prog)
{
    const struct la_file_run *run = &rd->run;
    size_t esz = la_dtype_info(run->dtype)->size;
    size_t size = b->window_bytes ? b->window_bytes : LA_WINDOW_BYTES;
    /* the backend's threads read their own shares; per-column counts need
     * the values in order, so they keep the windows */
    if (b->ops->scan_run && !r->pos.cols && !r->ignored_samples.active) {
        int rc = b->ops->scan_run(b, run, rule, &r->stats, prog, r->error, sizeof r->error);
        if (rc != 1) {
            la_verbose(r->path, "read in place: %llu values from byte %llu, each thread "
                       "reading its own share %.3g MiB at a time (pread)",
                       (unsigned long long)run->count, (unsigned long long)run->offset,
                       (double)LA_WINDOW_COPY_BYTES / (1 << 20));
            return rc;
        }
    }
    int rc = 0;
    la_verbose(r->path, "read in place: %llu values from byte %llu, mapped %.3g MiB at a time "
               "and scanned there (no copy)", (unsigned long long)run->count,
               (unsigned long long)run->offset, (double)size / (1 << 20));
    posix_fadvise(run->fd, (off_t)run->offset, 0, POSIX_FADV_SEQUENTIAL);
    struct la_window w = { 0 };
    struct la_window_failure fail = { 0 };
    for (uint64_t done = 0; done < run->count && rc == 0;) {
        uint64_t n = size / esz;
        n = n < run->count - done ? n : run->count - done;
        uint64_t off = run->offset + done * esz;
        uint64_t preads = w.preads;
        const char *values = la_window_open(&w, run->fd, off, (size_t)n * esz, &fail);
        if (w.preads == 1 && preads == 0)
            la_verbose(r->path, "byte %llu: mmap refused: read with pread from here",
                       (unsigned long long)off);
        if (!values) {
            rc = -1;
            break;
        }
        struct la_chunk chunk = { run->dtype, values, (size_t)n, done, NULL };
        if (b->ops->scan(b, &chunk, rule, &r->stats, r->error, sizeof r->error) != 0)
            rc = -2;
        la_pos_counts_fold(&r->pos, &chunk);
        la_ignored_samples_fold(&r->ignored_samples, &chunk);
        if (la_window_close(&w, &fail) != 0)
            rc = -1;        /* the scan's own error, if any, was about zeros */
        done += n;
        la_progress_update(prog, off + n * esz);
    }
    if (rc == -1)
        la_window_failure_text(&fail, r->error, sizeof r->error);
    la_window_free(&w);
    return rc;
}

// ---- everything else: a reader thread and a ring of chunk copies ------------------

#define RING_SLOTS 3
/* Files of at most this many bytes of values are read on the scanning thread. */
#define SERIAL_MAX_BYTES ((size_t)1 << 20)

struct slot {
    struct la_chunk chunk;      /* values or unparsable point into the copies below */
    void *values;
    size_t cap;
    char *text;
    size_t text_cap;
    uint64_t raw_offset;        /* file bytes consumed when the chunk was read */
};

struct piped {
    struct la_ring ring;
    struct slot slot[RING_SLOTS];
    int rc;                     /* the reader's last next(), once the ring is done */
    int oom;
    struct la_reader *rd;
};


/* Bytes of the source read so far, for --progress (none for the readers that open their path). */
static uint64_t read_offset(const struct la_reader *rd)
{
    return rd->src ? la_source_raw_offset(rd->src) : 0;
}

/* Copy chunk c into s, growing its buffers. @return 0, or -1 when out of memory. */
static int slot_fill(struct slot *s, const struct la_chunk *c, uint64_t raw_offset)
{
    s->chunk = *c;
    s->raw_offset = raw_offset;
    if (c->unparsable) {
        size_t n = strlen(c->unparsable) + 1;
        if (la_grow(&s->text, &s->text_cap, n, 256) != 0)
            return -1;
        memcpy(s->text, c->unparsable, n);
        s->chunk.unparsable = s->text;
        return 0;
    }
    size_t bytes = c->count * la_dtype_info(c->dtype)->size;
    if (la_grow(&s->values, &s->cap, bytes, 1 << 16) != 0)
        return -1;
    memcpy(s->values, c->values, bytes);
    s->chunk.values = s->values;
    return 0;
}

static void *reader_main(void *arg)
{
    struct piped *g = arg;
    struct la_reader *rd = g->rd;
    long k;
    while ((k = la_ring_wait_free(&g->ring)) >= 0) {
        struct la_chunk c;
        g->rc = rd->ops->next(rd, &c);
        g->oom = g->rc == 1 && slot_fill(&g->slot[k], &c, read_offset(rd)) != 0;
        if (g->rc != 1 || g->oom)
            break;
        la_ring_fill(&g->ring, 1);
    }
    la_ring_fill(&g->ring, 0);
    return NULL;
}

/* Fold one chunk. @return 0, or -2 when the backend failed. */
static int scan_chunk(const struct la_chunk *c, struct la_file_report *r,
                      const struct la_rule *rule, struct la_scan_backend *b)
{
    la_pos_counts_fold(&r->pos, c);
    la_ignored_samples_fold(&r->ignored_samples, c);
    if (c->unparsable) {
        la_stats_add_unparsable(&r->stats, c->first_index, c->unparsable);
        return 0;
    }
    return b->ops->scan(b, c, rule, &r->stats, r->error, sizeof r->error) != 0 ? -2 : 0;
}

/* After chunk c: the reader's map of samples may drop what lies before its end. */
static void chunk_passed(const struct la_reader *rd, const struct la_chunk *c)
{
    if (rd->notes && rd->notes->sample_passed)
        rd->notes->sample_passed(rd->notes->sample_ctx, c->first_index + c->count);
}

/* Scan chunks as the reader thread hands them over. @return as scan_run. */
static int scan_piped(struct piped *g, struct la_file_report *r, const struct la_rule *rule,
                      struct la_scan_backend *b, struct la_progress *prog)
{
    long k;
    while ((k = la_ring_wait_filled(&g->ring)) >= 0) {
        struct slot *s = &g->slot[k];
        int rc = scan_chunk(&s->chunk, r, rule, b);
        chunk_passed(g->rd, &s->chunk);
        la_progress_update(prog, s->raw_offset);
        if (rc != 0) {
            la_ring_quit(&g->ring);   /* the scan failed: the reader stops early */
            return rc;
        }
        la_ring_take(&g->ring);
    }
    return 0;
}

/* Pull chunks on this thread alone: the fallback when no thread can start. */
static int scan_serial(struct la_reader *rd, struct la_file_report *r,
                       const struct la_rule *rule, struct la_scan_backend *b,
                       struct la_progress *prog)
{
    struct la_chunk chunk;
    int rc;
    while ((rc = rd->ops->next(rd, &chunk)) == 1) {
        if (scan_chunk(&chunk, r, rule, b) != 0)
            return -2;
        chunk_passed(rd, &chunk);
        la_progress_update(prog, read_offset(rd));
    }
    if (rc < 0) {
        snprintf(r->error, sizeof r->error, "%s", rd->err);
        return -1;
    }
    return 0;
}

/* Why a file is not mapped and scanned in place, for -v. */
static const char *why_not_in_place(const struct la_reader *rd)
{
    if (!rd->src)
        return "its reader opens the path itself";
    if (la_source_is_compressed(rd->src))
        return "compressed: its bytes are not the values";
    if (la_source_plain_fd(rd->src) < 0)
        return "not a regular file, or transcoded";
    return "the values are parsed or converted, not read as they lie";
}

static int scan_threaded(struct la_reader *rd, struct la_file_report *r,
                         const struct la_rule *rule, struct la_scan_backend *b,
                         struct la_progress *prog)
{
    struct piped g = { .rd = rd };
    pthread_t tid;
    la_ring_init(&g.ring, RING_SLOTS);
    if (la_thread_create(&tid, reader_main, &g) != 0) {
        la_ring_destroy(&g.ring);
        la_verbose(r->path, "no reader thread could start: read and scanned on one thread");
        return scan_serial(rd, r, rule, b, prog);
    }
    la_verbose(r->path, "a reader thread copies chunks into a ring of %d (%s)", RING_SLOTS,
               why_not_in_place(rd));
    int rc = scan_piped(&g, r, rule, b, prog);
    la_thread_join(tid);         /* after this, rd (its err and info) is ours again */
    la_ring_destroy(&g.ring);
    for (int i = 0; i < RING_SLOTS; i++) {
        free(g.slot[i].values);
        free(g.slot[i].text);
    }
    if (rc == 0 && g.oom) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    if (rc == 0 && g.rc < 0) {
        snprintf(r->error, sizeof r->error, "%s", rd->err);
        return -1;
    }
    return rc;
}

/* The readers that know more than a flat index (a file and line, an
 * annotation's id) name the place of each bad entry the scan kept. */
static int locate_bad(struct la_reader *rd, struct la_file_report *r)
{
    if (!rd->notes || !rd->notes->locate || r->stats.n_bad == 0)
        return 0;
    uint64_t *index = malloc(r->stats.n_bad * sizeof *index);
    if (!index) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < r->stats.n_bad; i++)
        index[i] = r->stats.bad[i].index;
    int rc = rd->notes->locate(rd->notes, index, r->stats.n_bad);
    free(index);
    if (rc != 0)
        snprintf(r->error, sizeof r->error, "out of memory");
    return rc;
}

/* Whether the reader said its values' count (a mask image's, a volume's) and
 * they are few enough to come in a chunk or a few: a reader thread would
 * have nothing to do while this one scans, and starting it and handing each
 * chunk over (a copy) cost more than it saves. A folder of 512 x 512 masks is
 * such a folder: its files take turns on the threads already. */
static int fits_one_chunk(const struct la_array_info *info)
{
    if (!info->shape_known || info->ndim < 1)
        return 0;
    uint64_t bytes = la_dtype_info(info->dtype)->size;
    for (int d = 0; d < info->ndim; d++)
        if (la_mul_overflow(bytes, info->shape[d], &bytes))
            return 0;
    return bytes <= SERIAL_MAX_BYTES;
}

/* Read and fold every value. @return 0, -1 on a read error (r->error), -2 on a scan error. */
static int scan_all(struct la_reader *rd, struct la_file_report *r,
                    const struct la_report_ctx *ctx,
                    struct la_scan_backend *b)
{
    struct la_rule rule = la_rule_for_file(ctx, &rd->info);
    struct la_progress prog;
    la_progress_begin(&prog, ctx->cfg, r->path, (rd->src ? la_source_file_size(rd->src) : 0));
    int serial = !rd->has_run && (fits_one_chunk(&rd->info) || rd->threads_itself);
    if (serial && rd->threads_itself)
        la_verbose(r->path, "read and scanned on this thread: its reader takes the threads "
                   "of -j itself, no reader thread (%s)", why_not_in_place(rd));
    else if (serial)
        la_verbose(r->path, "read and scanned on one thread, few values: no reader thread (%s)",
                   why_not_in_place(rd));
    int rc = rd->has_run ? scan_run(rd, r, &rule, b, &prog)
           : serial ? scan_serial(rd, r, &rule, b, &prog)
                    : scan_threaded(rd, r, &rule, b, &prog);
    la_progress_end(&prog);
    return rc;
}

static void finish_layout(struct la_file_report *r)
{
    if (r->notes && r->notes->has_samples) {   /* wds: the keys, labelled or not */
        r->info.ndim = 1;
        r->info.shape[0] = r->notes->samples;
        r->info.shape_known = 1;
    }
    if (!r->info.shape_known && r->info.ndim <= 1) {
        r->info.ndim = 1;
        r->info.shape[0] = r->stats.count;
    }
    r->samples = r->info.ndim == 0 || r->info.one_sample ? 1 : r->info.shape[0];
    if (r->seq_len)   /* the last block may be short: it is read, so it is a sample */
        r->samples = r->info.shape[0] / r->seq_len + (r->info.shape[0] % r->seq_len != 0);
}

/* --seq-len's blocks against the model's position table (columns.h). A
 * raw stream has no notes of its own: the finding is given some. The blocks
 * may be fed whole or shifted into x and y (LA_FEED_EITHER: columns.h says
 * which severity each gets). @return 0, or -1 out of memory. */
static int check_blocks(struct la_file_report *r, const struct la_report_ctx *ctx)
{
    const struct la_column_plan *plan = ctx->read.columns;
    if (!r->seq_len || (r->notes && r->notes->blocks_checked) ||
        !la_column_blocks_checked(plan, r->seq_len, LA_FEED_EITHER))
        return 0;
    if (!r->notes && !(r->notes = la_notes_new(ctx->max_report)))
        return -1;
    uint64_t tail = r->info.shape[0] % r->seq_len;
    return la_column_check_blocks(plan, r->seq_len, r->samples, tail ? tail : r->seq_len,
                                  LA_FEED_EITHER, r->notes);
}

/* A file of 0 bytes (after gunzip): read, and empty. */
static void read_nothing(struct la_file_report *r, const struct la_report_ctx *ctx,
                         enum la_format format)
{
    r->info.format = format;
    r->info.dtype = ctx->read.has_dtype ? ctx->read.dtype : LA_DT_INT64;
    r->info.ndim = 1;
    r->info.shape_known = 1;
    if (init_stats(r, ctx, NULL, NULL) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return;
    }
    finish_layout(r);
    r->read_ok = 1;
    la_diagnose(r, ctx);
}

static void shrank(struct la_file_report *r, uint64_t at)
{
    snprintf(r->error, sizeof r->error, "byte %llu: file shrank while being read",
             (unsigned long long)at);
}

/* A regular file rewritten while it was read (np.save over it, a log appended
 * to) gave a mix of old and new bytes, or a short read that looked like a
 * truncated file: compare its size and time of change with those at the start.
 * @return 0 if unchanged, else -1 with r->error. */
static int changed_while_read(int fd, const struct stat *before, struct la_file_report *r)
{
    struct stat now;
    if (fd < 0 || fstat(fd, &now) != 0)
        return 0;
    if (now.st_size < before->st_size) {
        shrank(r, (uint64_t)now.st_size);
        return -1;
    }
    if (now.st_size != before->st_size || now.st_mtim.tv_sec != before->st_mtim.tv_sec ||
        now.st_mtim.tv_nsec != before->st_mtim.tv_nsec) {
        snprintf(r->error, sizeof r->error, "file changed while being read");
        return -1;
    }
    return 0;
}

/* Held while a reader of a format flagged LA_FMTF_SERIAL (libmatio's,
 * libhdf5's) has its file open: a folder's files are audited on several
 * threads (dataset.c), and these readers take turns, from open to close.
 * One lock for both: a MATLAB v7.3 file is read through libhdf5 too. */
static pthread_mutex_t g_serial_readers = PTHREAD_MUTEX_INITIALIZER;

/* A source's reader as the audit opens it, for la_audit_file and for the
 * look --backend=auto takes at the inputs (la_auto_hint_of). */
struct opened {
    struct la_reader rd;
    struct la_read_opts opts;   /* rd.opts points here */
    enum la_format format;      /* --format, or detected; LA_FMT_NONE: refused */
    int fd;                     /* the plain file's descriptor, or -1 */
    struct stat before;         /* its state before a byte was read */
    int empty;                  /* 0 bytes (after decompression) */
    int serial;                 /* holds g_serial_readers */
};

/* Open path's source (unless its reader opens the path itself), tell its
 * format, and give a reader that leaves notes (label_notes.h) their room.
 * @return 0, or -1 with the reason in err (o is then closed by close_opened). */
static int open_source(const char *path, const struct la_report_ctx *ctx, struct opened *o,
                       char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->opts = ctx->read;
    o->rd.opts = &o->opts;
    o->rd.path = path;
    /* imagefolder, coco, yolo open the path themselves (a folder; a file read twice) */
    int by_path = la_format_has(ctx->format, LA_FMTF_PATH);
    if (by_path) {
        o->format = ctx->format;
        la_verbose(path, "format %s (--format): its reader opens the path itself",
                   la_format_name(o->format));
    } else {
        if (la_source_open(path, &o->rd.src, err, errlen) != 0)
            return -1;
        o->fd = la_source_plain_fd(o->rd.src);
        if (o->fd >= 0 && fstat(o->fd, &o->before) != 0)
            o->fd = -1;
        size_t head_len = 1;
        la_source_peek(o->rd.src, &head_len);
        o->empty = head_len == 0;
        o->format = la_source_format(o->rd.src, ctx, err, errlen);
    }
    if (o->format == LA_FMT_NONE)   /* a zip archive, UTF-32 text: refused by name */
        return -1;
    int notes = by_path || la_format_has(o->format, LA_FMTF_NOTES)   /* wds: missing-label */
                || (la_format_has(o->format, LA_FMTF_TABLE) && o->opts.columns
                    && o->opts.columns->n);   /* csv: the columns beside the label's */
    if (notes && !(o->rd.notes = la_notes_new(ctx->max_report))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* Run the reader's open() on o's source, taking a serial reader's turn first.
 * @return 0, or -1 with the reason in o->rd.err. */
static int open_reader(struct opened *o)
{
    o->rd.ops = la_reader_for_format(o->format);
    o->rd.info.format = o->format;
    if (!o->rd.ops) {           /* a folder found to be of a format this build lacks */
        const struct la_format_def *d = la_format_def(o->format);
        snprintf(o->rd.err, sizeof o->rd.err, "%s folder, but this labelaudit was built without %s",
                 la_format_name(o->format), d && d->library ? d->library : "its reader");
        return -1;
    }
    if ((o->serial = la_format_has(o->format, LA_FMTF_SERIAL)))
        pthread_mutex_lock(&g_serial_readers);
    return o->rd.ops->open(&o->rd);
}

static void close_opened(struct opened *o)
{
    if (o->rd.ops && o->rd.ops->close)
        o->rd.ops->close(&o->rd);
    if (o->serial)
        pthread_mutex_unlock(&g_serial_readers);
    la_source_close(o->rd.src);
    la_notes_free(o->rd.notes);
    memset(o, 0, sizeof *o);
}

/* Scan o's open reader into r and diagnose it. @return 0, or -1 when the scan
 * backend failed (r->error says why; r->read_ok stays 0 on any failure). */
static int audit_opened(struct opened *o, const struct la_report_ctx *ctx,
                        struct la_scan_backend *b, struct la_indices_out *io,
                        struct la_file_report *r)
{
    struct la_reader *rd = &o->rd;
    /* a reader that found its classes while opening (ImageFolder's folders,
     * COCO's categories, a ClassLabel) gives N where nothing above did */
    struct la_report_ctx with_classes;
    ctx = la_class_count_notes_ctx(rd->notes, ctx, &with_classes);
    struct la_notes *nt = rd->notes;   /* yolo, coco: a sample is a file, an image */
    if (init_stats(r, ctx, io, rd->notes) != 0 ||
        (nt && nt->sample_of && la_stats_map_samples(&r->stats, nt->sample_of, nt->sample_ctx,
                                                     r->info.shape[0], nt->samples_ordered) != 0)) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return 0;
    }
    int scanned = scan_all(rd, r, ctx, b);
    r->info = rd->info;          /* csv/text learn their dtype while reading */
    if (scanned != 0)
        return scanned == -2 ? -1 : 0;
    if (locate_bad(rd, r) != 0)
        return 0;
    la_ignored_samples_end(&r->ignored_samples);
    r->notes = rd->notes;        /* the report outlives the reader */
    rd->notes = NULL;
    finish_layout(r);
    if (check_blocks(r, ctx) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return 0;
    }
    r->read_ok = 1;
    r->stats.ambiguous_headers = r->info.header_guessed && r->info.header_present &&
                                 r->info.header_ambiguous_row[0];
    la_diagnose(r, ctx);
    return 0;
}

int la_audit_file(const char *path, const struct la_report_ctx *ctx, struct la_scan_backend *b,
                  struct la_indices_out *io, struct la_file_report *r)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    struct opened o;
    int rc = 0;
    if (open_source(path, ctx, &o, r->error, sizeof r->error) != 0)
        goto done;
    if (o.empty) {              /* 0 bytes hold no labels in any format: `empty`, not unreadable */
        read_nothing(r, ctx, o.format);
        goto done;
    }
    if (open_reader(&o) != 0) {
        snprintf(r->error, sizeof r->error, "%s", o.rd.err);
        r->info = o.rd.info;
        goto done;
    }
    r->info = o.rd.info;
    rc = audit_opened(&o, ctx, b, io, r);
done:
    /* whatever went right or wrong was about other bytes than the file's own */
    if (rc == 0 && changed_while_read(o.fd, &o.before, r) != 0)
        r->read_ok = 0;
    close_opened(&o);
    return rc;
}

// ---- what --backend=auto decides from ------------------------------------------

/* Add one regular file of size bytes to h, as its reader's open() found it:
 * read in place when it offers a run (reader.h), its dtype saying whether it
 * holds floats. The rest of such a file counts with the run when the run is
 * most of it (a header, metadata); else it is other arrays, scanned by no one.
 * Only the formats whose readers may offer runs (LA_FMTF_IN_PLACE) are opened:
 * the others' bytes are parsed whatever they hold. */
static void hint_file(const struct la_report_ctx *ctx, const char *path, int64_t size,
                      struct la_auto_hint *h)
{
    char err[LA_ERR_LEN];
    struct opened o;
    int64_t run = -1;
    la_verbose_hold(1);         /* the audit says how each file is read, once */
    if (open_source(path, ctx, &o, err, sizeof err) == 0 && !o.empty &&
        la_format_has(o.format, LA_FMTF_IN_PLACE) && open_reader(&o) == 0 && o.rd.has_run) {
        uint64_t bytes;
        if (!la_mul_overflow(o.rd.run.count, la_dtype_info(o.rd.run.dtype)->size, &bytes))
            run = bytes < (uint64_t)size ? (int64_t)bytes : size;
    }
    la_verbose_hold(0);
    if (run < 0) {
        h->parsed_bytes += size;   /* parsed, inflated, refused or unreadable alike */
    } else {
        int64_t in_place = run >= size - run ? size : run;
        h->in_place_bytes += in_place;
        h->in_place_float_bytes += la_dtype_is_float(o.rd.run.dtype) ? in_place : 0;
        h->other_bytes += size - in_place;
    }
    close_opened(&o);
}

void la_auto_hint_of(const struct la_config *cfg, struct la_auto_hint *h)
{
    struct la_report_ctx ctx;   /* the options' alone: files opened as a report opens them */
    la_report_ctx_init(&ctx, cfg, NULL);
    memset(h, 0, sizeof *h);
    int64_t total = 0;
    for (int i = 0; i < cfg->nfiles; i++) {
        struct stat st;
        if (strcmp(cfg->files[i], "-") == 0 || stat(cfg->files[i], &st) != 0 ||
            !S_ISREG(st.st_mode))
            h->unknown = 1;
        else
            total += (int64_t)st.st_size;
    }
    if (cfg->backend != LA_BACKEND_AUTO || h->unknown || total < (int64_t)LA_GPU_MIN_BYTES) {
        h->parsed_bytes = total; /* too little to matter: nothing is opened */
        return;
    }
    for (int i = 0; i < cfg->nfiles; i++) {
        struct stat st;
        if (stat(cfg->files[i], &st) == 0)
            hint_file(&ctx, cfg->files[i], (int64_t)st.st_size, h);
    }
}
