/* audit.c - see audit.h. */
#include "audit.h"

#include <stdio.h>  /* snprintf */
#include <string.h> /* memset */

#include "msg.h"

struct la_rule la_rule_from_config(const struct la_config *cfg)
{
    struct la_rule r = { 0 };
    r.bce = cfg->loss == LA_LOSS_BCE;
    r.has_ignore = !r.bce && cfg->has_ignore_index;
    r.ignore = cfg->ignore_index;
    r.has_upper = !r.bce && cfg->has_num_classes;
    r.upper = cfg->num_classes;
    return r;
}

/* Elements per sample: the product of every axis but the first. */
static uint64_t sample_stride(const struct la_array_info *info)
{
    uint64_t stride = 1;
    for (int d = 1; d < info->ndim; d++)
        if (__builtin_mul_overflow(stride, info->shape[d], &stride))
            return 1;
    return stride ? stride : 1;
}

static int init_stats(struct la_file_report *r, const struct la_config *cfg,
                      struct la_indices_out *io)
{
    uint64_t hist_len = 0;
    if (cfg->loss != LA_LOSS_BCE)
        hist_len = !cfg->has_num_classes ? LA_HIST_MAX
                 : (uint64_t)cfg->num_classes <= LA_HIST_MAX ? (uint64_t)cfg->num_classes : 0;
    int64_t above_base = cfg->loss == LA_LOSS_BCE ? 1 : cfg->has_num_classes ? cfg->num_classes : 0;
    uint64_t cap = la_config_max_report(cfg);
    if (la_stats_init(&r->stats, sample_stride(&r->info), cap > 1u << 24 ? 1u << 24 : cap,
                      hist_len, above_base) != 0)
        return -1;
    if (io) {
        la_indices_out_begin_file(io, r->path, r->info.dtype);
        r->stats.sink = la_indices_out_sink;
        r->stats.sink_ctx = io;
    }
    return 0;
}

/* Pull every chunk and fold it. @return 0, -1 on a read error (r->error), -2 on a scan error. */
static int scan_all(struct la_reader *rd, struct la_file_report *r, const struct la_config *cfg,
                    struct la_scan_backend *b)
{
    struct la_rule rule = la_rule_from_config(cfg);
    struct la_progress prog;
    la_progress_begin(&prog, cfg, r->path, la_source_file_size(rd->src));
    struct la_chunk chunk;
    int rc;
    while ((rc = rd->ops->next(rd, &chunk)) == 1) {
        if (chunk.unparsable) {
            la_stats_add_unparsable(&r->stats, chunk.first_index, chunk.unparsable);
        } else if (b->ops->scan(b, &chunk, &rule, &r->stats, r->error, sizeof r->error) != 0) {
            la_progress_end(&prog);
            return -2;
        }
        la_progress_update(&prog, la_source_raw_offset(rd->src));
    }
    la_progress_end(&prog);
    if (rc < 0) {
        snprintf(r->error, sizeof r->error, "%s", rd->err);
        return -1;
    }
    return 0;
}

static void finish_layout(struct la_file_report *r)
{
    if (!r->info.shape_known && r->info.ndim <= 1) {
        r->info.ndim = 1;
        r->info.shape[0] = r->stats.count;
    }
    r->samples = r->info.ndim == 0 ? 1 : r->info.shape[0];
}

int la_audit_file(const char *path, const struct la_config *cfg, struct la_scan_backend *b,
                  struct la_indices_out *io, struct la_file_report *r)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    struct la_reader rd = { 0 };
    rd.cfg = cfg;
    if (la_source_open(path, &rd.src, r->error, sizeof r->error) != 0)
        return 0;
    size_t head_len;
    const unsigned char *head = la_source_peek(rd.src, &head_len);
    const char *format = la_detect_format(path, head, head_len, cfg->format);
    rd.ops = la_reader_for_format(format);
    rd.info.format = format;
    int rc = 0;
    if (rd.ops->open(&rd) != 0) {
        snprintf(r->error, sizeof r->error, "%s", rd.err);
        r->info = rd.info;
        goto done;
    }
    r->info = rd.info;
    if (init_stats(r, cfg, io) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    int scanned = scan_all(&rd, r, cfg, b);
    r->info = rd.info;          /* csv/text learn their dtype while reading */
    if (scanned == -2)
        rc = -1;
    if (scanned != 0)
        goto done;
    finish_layout(r);
    r->read_ok = 1;
    la_diagnose(r, cfg);
done:
    if (rd.ops && rd.ops->close)
        rd.ops->close(&rd);
    la_source_close(rd.src);
    return rc;
}

void la_file_report_free(struct la_file_report *r)
{
    la_stats_free(&r->stats);
}
