/* batching.c - PyTorch's DistributedSampler and DataLoader arithmetic.
 *
 * Given S samples and the loader's settings: how many samples each rank gets,
 * how many batches that makes, how big the last one is, and which nearby batch
 * sizes avoid a tiny last batch. Integer arithmetic on uint64_t only, so no
 * input near 2^64 overflows; no I/O, no allocation. The formulas are SPEC.md's
 * "Batching simulation", which are torch/utils/data/distributed.py's. */

#include <inttypes.h> /* PRIu64 */
#include <stdarg.h>   /* va_list for the text appender */
#include <stdio.h>    /* vsnprintf */

#include "batching.h"

// ---- arithmetic

/* How far the suggestion search looks on each side of B. Every candidate costs
 * two divisions, and for a huge B only the nearest sizes are worth naming. */
#define SCAN_LIMIT 256

/* ceil(a / b). Not (a + b - 1) / b, which overflows near 2^64. */
static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Samples each rank gets from DistributedSampler(num_replicas=w), and how many
 * the sampler repeats (padded) or drops (dropped) across the whole dataset.
 * PyTorch's drop_last branch is math.ceil((S - W) / W) when S % W != 0, which is
 * exactly floor(S / W): that needs no signed S - W (negative for S < W, where
 * Python's ceil gives 0, as floor does) and no float rounding above 2^53.
 * w == 1 lands in the rem == 0 branch: no sampler, every sample once. */
static uint64_t sampler_per_rank(uint64_t s, uint64_t w, int drop_last,
                                 uint64_t *padded, uint64_t *dropped)
{
    uint64_t rem = s % w;

    *padded = 0;
    *dropped = 0;
    if (rem == 0)
        return s / w;
    if (drop_last) {
        *dropped = rem;
        return s / w;
    }
    /* ceil(S / W) * W - S, without forming the product (it can exceed 2^64). */
    *padded = w - rem;
    return ceil_div(s, w);
}

/* Size of the last of ceil(spr / b) batches; 0 when there is none. */
static uint64_t last_of(uint64_t spr, uint64_t b)
{
    if (spr == 0)
        return 0;
    return spr % b != 0 ? spr % b : b;
}

/* What the DataLoader makes of one rank's spr samples in batches of b. */
struct loader_result {
    uint64_t batches;
    uint64_t last;              /* 0 when there are no batches */
    uint64_t dropped;           /* by drop_last */
};

static struct loader_result run_loader(uint64_t spr, uint64_t b, int drop_last)
{
    if (drop_last)
        return (struct loader_result){ spr / b, spr / b > 0 ? b : 0, spr % b };
    return (struct loader_result){ ceil_div(spr, b), last_of(spr, b), 0 };
}

/* The DataLoader over one rank's spr samples. */
static void loader(struct la_batching *r)
{
    struct loader_result l = run_loader(r->samples_per_rank, r->p.batch_size, r->p.drop_last);

    r->batches_per_rank = l.batches;
    r->last_batch = l.last;
    r->dropped_by_loader = l.dropped;
}

// ---- suggestions

/* Whether batch size c, simulated with the run's own drop_last over the same
 * rank, fixes the finding: at least one batch, and none of fewer than
 * min_batch samples. Every batch but the last holds c >= last, so the last one
 * decides; with drop_last every batch holds c, so c fixes it exactly when
 * min_batch <= c <= spr. *last is the candidate's last batch. */
static int fixes(const struct la_batching *r, uint64_t c, uint64_t *last)
{
    struct loader_result l = run_loader(r->samples_per_rank, c, r->p.drop_last);

    *last = l.last;
    return l.batches > 0 && l.last >= r->p.min_batch;
}

/* The nearest sizes on one side of B (below it when !above) within a factor of
 * two, B / 2 <= B' <= 2B, that fix the finding; nearest first, at most max.
 * Returns how many were found. */
static size_t scan_side(const struct la_batching *r, int above,
                        struct la_batch_suggestion *out, size_t max)
{
    uint64_t b = r->p.batch_size;
    /* Below: 2 (b - d) >= b means d <= b / 2, which also keeps b' >= 1.
     * Above: d <= b, and b + d must not wrap around. */
    uint64_t reach = above ? (b <= UINT64_MAX - b ? b : UINT64_MAX - b) : b / 2;
    size_t n = 0;

    if (reach > SCAN_LIMIT)
        reach = SCAN_LIMIT;
    for (uint64_t d = 1; d <= reach && n < max; d++) {
        uint64_t c = above ? b + d : b - d, last;

        if (fixes(r, c, &last)) {
            out[n].batch_size = c;
            out[n].last_batch = last;
            n++;
        }
    }
    return n;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Up to LA_MAX_SUGGESTIONS sizes, half from each side of B when both sides have
 * them (a user may prefer to grow or to shrink the batch), the rest from
 * whichever side has more; then ordered by distance to B, the smaller on ties. */
static void suggest(struct la_batching *r)
{
    struct la_batch_suggestion lo[LA_MAX_SUGGESTIONS], hi[LA_MAX_SUGGESTIONS];
    uint64_t b = r->p.batch_size;
    size_t nlo = scan_side(r, 0, lo, LA_MAX_SUGGESTIONS);
    size_t nhi = scan_side(r, 1, hi, LA_MAX_SUGGESTIONS);
    size_t half = LA_MAX_SUGGESTIONS / 2;
    size_t klo = nlo < half ? nlo : half, khi = nhi < half ? nhi : half;
    size_t i = 0, j = 0;

    while (klo + khi < LA_MAX_SUGGESTIONS && (klo < nlo || khi < nhi)) {
        if (khi == nhi || (klo < nlo && distance(lo[klo].batch_size, b)
                                         <= distance(hi[khi].batch_size, b)))
            klo++;
        else
            khi++;
    }
    r->n_suggestions = 0;
    while (i < klo || j < khi) {
        int take_lo = j == khi || (i < klo && distance(lo[i].batch_size, b)
                                              <= distance(hi[j].batch_size, b));

        r->suggestions[r->n_suggestions++] = take_lo ? lo[i++] : hi[j++];
    }
}

// ---- entry point

void la_batching_compute(uint64_t samples, const struct la_batch_params *p,
                         struct la_batching *out)
{
    *out = (struct la_batching){ .samples = samples, .p = *p };
    /* The contract says B, W >= 1; a zero would divide by zero, so read it as 1
     * rather than crash on a caller's bug. */
    if (out->p.batch_size == 0)
        out->p.batch_size = 1;
    if (out->p.world_size == 0)
        out->p.world_size = 1;

    out->samples_per_rank = sampler_per_rank(samples, out->p.world_size,
                                             out->p.sampler_drop_last,
                                             &out->padded, &out->dropped_by_sampler);
    loader(out);
    out->no_batches = out->batches_per_rank == 0;
    out->tiny_last_batch = out->last_batch > 0 && out->last_batch < out->p.min_batch;
    if (out->tiny_last_batch)
        suggest(out);
}

// ---- text for the report

/* How many suggestions the paragraph names; the JSON report carries them all. */
#define DESCRIBE_SUGGESTIONS 3

/* A bounded appender with snprintf's contract: pos counts every byte the whole
 * paragraph needs, buf receives what fits and stays NUL-terminated. */
struct text {
    char *buf;
    size_t len;
    size_t pos;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(struct text *t, const char *fmt, ...)
{
    size_t room = t->pos < t->len ? t->len - t->pos : 0;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(room > 0 ? t->buf + t->pos : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->pos += (size_t)n;
}

/* "1 sample" or "3 samples". */
static void put_count(struct text *t, uint64_t n, const char *one, const char *many)
{
    put(t, "%" PRIu64 " %s", n, n == 1 ? one : many);
}

/* "1041 samples on 8 ranks, batch 8, drop_last=True" */
static void put_head(struct text *t, const struct la_batching *b)
{
    put_count(t, b->samples, "sample", "samples");
    if (b->p.world_size > 1)
        put(t, " on %" PRIu64 " ranks", b->p.world_size);
    put(t, ", batch %" PRIu64 "%s", b->p.batch_size, b->p.drop_last ? ", drop_last=True" : "");
}

/* What DistributedSampler does to make S divide evenly by W. A padded sample is
 * an index repeated from the start of the dataset; with fewer samples than
 * ranks, some are repeated more than once. */
static void put_sampler(struct text *t, const struct la_batching *b)
{
    if (b->padded > 0) {
        put(t, " DistributedSampler pads ");
        put_count(t, b->padded, "sample", "samples");
        put(t, ": %s seen %s per epoch.", b->padded == 1 ? "it is" : "they are",
            b->padded <= b->samples ? "twice" : "more than once");
    } else if (b->dropped_by_sampler > 0) {
        put(t, " DistributedSampler(drop_last=True) drops %s",
            b->samples_per_rank == 0 ? "all " : "");
        put_count(t, b->dropped_by_sampler, "sample", "samples");
        put(t, " per epoch.");
    }
    put(t, " Each rank gets ");
    put_count(t, b->samples_per_rank, "sample", "samples");
    put(t, ":");
}

/* The epoch is empty: the sampler left the ranks nothing, or drop_last threw
 * away the one short batch each rank had. */
static void put_empty(struct text *t, const struct la_batching *b)
{
    uint64_t spr = b->samples_per_rank;

    if (spr == 0) {
        put(t, " no batches -- the epoch trains on nothing.");
        if (b->dropped_by_sampler > 0)
            put(t, " Fix: DistributedSampler(drop_last=False), or at most %" PRIu64 " ranks.",
                b->samples);
        return;
    }
    put(t, " 0 batches, fewer samples per rank than one batch:"
           " with drop_last=True the epoch trains on nothing.");
    if (spr >= b->p.min_batch)
        put(t, " Fix: batch_size %" PRIu64 " or less, or drop_last=False (one batch of %"
               PRIu64 ").", spr, spr);
    else
        put(t, " Too few samples per rank for a batch of --min-batch=%" PRIu64 ".",
            b->p.min_batch);
}

/* Why a tiny batch matters: one sample is the BatchNorm crash users search
 * for. In training mode BatchNorm1d on (N, C) features, and BatchNorm2d over
 * 1x1 feature maps (after global pooling), need more than one value per
 * channel; over larger maps, or a sequence, they run on a batch of one
 * (checked with Debian's PyTorch 1.13: tests/batching/tiny-batch-gate.sh records it). */
static void put_tiny_reason(struct text *t, const struct la_batching *b, const char *which)
{
    if (b->last_batch == 1)
        put(t, " -- in training, BatchNorm1d on (N, C) features and BatchNorm2d on 1x1 maps "
               "fail on %s.", which);
    else
        put(t, " -- fewer than --min-batch=%" PRIu64 ".", b->p.min_batch);
}

/* "131 batches, the last holds 1 sample", or with drop_last "130 batches of 8"
 * and what the loader throws away. */
static void put_batches(struct text *t, const struct la_batching *b)
{
    put(t, " ");
    put_count(t, b->batches_per_rank, "batch", "batches");
    if (!b->p.drop_last) {
        put(t, ", the last holds ");
        put_count(t, b->last_batch, "sample", "samples");
        if (b->tiny_last_batch)
            put_tiny_reason(t, b, "it");
        else
            put(t, ".");
        return;
    }
    put(t, " of %" PRIu64, b->p.batch_size);
    if (b->tiny_last_batch)
        put_tiny_reason(t, b, "every one");
    else
        put(t, ".");
    if (b->dropped_by_loader > 0) {
        put(t, " drop_last=True drops ");
        put_count(t, b->dropped_by_loader, "sample", "samples");
        put(t, " per epoch%s.", b->p.world_size > 1 ? " on each rank" : "");
    }
}

/* "Fix: drop_last=True (drops 1 sample per epoch), or batch_size 7 (last 5),
 * 9 (last 6) or 6 (last 3)." drop_last is offered only when it helps: not when
 * it is already on, not when B itself is below min_batch (every full batch would
 * be tiny too), and not when the tiny batch is a rank's only one (dropping it
 * leaves the epoch empty). */
static void put_fix(struct text *t, const struct la_batching *b)
{
    size_t n = b->n_suggestions < DESCRIBE_SUGGESTIONS ? b->n_suggestions
                                                       : DESCRIBE_SUGGESTIONS;
    int drop = !b->p.drop_last && b->batches_per_rank > 1 && b->p.batch_size >= b->p.min_batch;

    if (!drop && n == 0) {
        put(t, " No batch size within a factor of two of %" PRIu64 " avoids it.",
            b->p.batch_size);
        return;
    }
    put(t, " Fix: ");
    if (drop) {
        put(t, "drop_last=True (drops ");
        put_count(t, b->last_batch, "sample", "samples");
        put(t, " per epoch%s)%s", b->p.world_size > 1 ? " on each rank" : "",
            n > 0 ? ", or " : "");
    }
    for (size_t i = 0; i < n; i++) {
        const struct la_batch_suggestion *s = &b->suggestions[i];

        put(t, "%s%" PRIu64 " (last %" PRIu64 ")",
            i == 0 ? "batch_size " : i + 1 == n ? " or " : ", ", s->batch_size, s->last_batch);
    }
    put(t, ".");
}

size_t la_batching_describe(const struct la_batching *b, char *buf, size_t len)
{
    struct text t = { buf, len, 0 };

    if (buf != NULL && len > 0)
        buf[0] = '\0';
    put_head(&t, b);
    if (b->samples == 0) {
        put(&t, ": no batches -- the epoch trains on nothing.");
        return t.pos;
    }
    if (b->p.world_size > 1) {
        put(&t, ".");
        put_sampler(&t, b);
    } else
        put(&t, ":");
    if (b->no_batches) {
        put_empty(&t, b);
        return t.pos;
    }
    put_batches(&t, b);
    if (b->tiny_last_batch)
        put_fix(&t, b);
    return t.pos;
}
