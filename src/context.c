/* context.c - see context.h. */
#include "context.h"

#include <string.h> /* memset */

/* The per-element rule the scan backends apply, from the context's N. */
static void set_rule(struct la_report_ctx *ctx)
{
    const struct la_config *cfg = ctx->cfg;
    memset(&ctx->rule, 0, sizeof ctx->rule);
    ctx->rule.bce = cfg->loss == LA_LOSS_BCE;
    ctx->rule.has_ignore = !ctx->rule.bce && cfg->has_ignore_index;
    ctx->rule.ignore = cfg->ignore_index;
    ctx->rule.has_upper = !ctx->rule.bce && ctx->has_num_classes;
    ctx->rule.upper = ctx->num_classes;
}

void la_report_ctx_init(struct la_report_ctx *ctx, const struct la_config *cfg,
                        const char *split)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->cfg = cfg;
    ctx->format = cfg->format;
    ctx->has_num_classes = cfg->has_num_classes;
    ctx->num_classes = cfg->num_classes;
    ctx->has_vocab_size = cfg->has_vocab_size;
    ctx->vocab_size = cfg->vocab_size;
    ctx->max_report = la_config_max_report(cfg);
    ctx->split = split;
    la_read_opts_of(cfg, &ctx->read);
    ctx->read.split = split;
    set_rule(ctx);
}

void la_report_ctx_set_classes(struct la_report_ctx *ctx, uint64_t n, const char *from,
                               bool vocab)
{
    ctx->has_num_classes = true;
    ctx->num_classes = (int64_t)n;
    ctx->num_classes_from = from;
    if (vocab) {
        ctx->has_vocab_size = true;
        ctx->vocab_size = (int64_t)n;
        ctx->read.vocab_size = ctx->vocab_size;
    }
    set_rule(ctx);
}

void la_read_opts_of(const struct la_config *cfg, struct la_read_opts *opts)
{
    *opts = cfg->read;
    opts->threads = cfg->threads;
    opts->vocab_size = cfg->has_vocab_size ? cfg->vocab_size : 0;
    opts->seq_len = cfg->seq_len;
    opts->glob = cfg->glob;
    opts->split = NULL;         /* a report's (context.h) */
    opts->columns = cfg->column_plan;
}

uint64_t la_config_max_report(const struct la_config *cfg)
{
    if (cfg->has_max_report)
        return cfg->max_report;
    return cfg->json ? 1000 : 10;
}
