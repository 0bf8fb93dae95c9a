/* batching.c - PyTorch's DistributedSampler and DataLoader arithmetic.
 *
 * Given S samples and the loader's settings: how many samples each rank gets,
 * how many batches that makes, how big the last one is, and which nearby batch
 * sizes avoid a tiny last batch. Integer arithmetic on uint64_t only, so no
 * input near 2^64 overflows; no I/O, no allocation. The formulas are SPEC.md's
 * "Batching simulation", which are torch/utils/data/distributed.py's. */

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

/* The DataLoader over one rank's spr samples. */
static void loader(struct la_batching *r)
{
    uint64_t spr = r->samples_per_rank, b = r->p.batch_size;

    if (r->p.drop_last) {
        r->batches_per_rank = spr / b;
        r->last_batch = r->batches_per_rank > 0 ? b : 0;
        r->dropped_by_loader = spr % b;
    } else {
        r->batches_per_rank = ceil_div(spr, b);
        r->last_batch = last_of(spr, b);
        r->dropped_by_loader = 0;
    }
}

// ---- suggestions

/* A candidate fixes the finding when its last batch holds at least min_batch.
 * SPEC.md also accepts a "full" last batch; a full batch of B' >= M samples
 * passes this test anyway, and a full batch of B' < M would raise the same
 * tiny-last-batch finding again, so it is not worth suggesting. */
static int fixes(uint64_t last, uint64_t min_batch)
{
    return last >= min_batch;
}

/* The nearest sizes on one side of b (below it when !above) within a factor of
 * two, b / 2 <= b' <= 2b, that fix the finding; nearest first, at most max.
 * Returns how many were found. */
static size_t scan_side(uint64_t spr, uint64_t b, uint64_t min_batch, int above,
                        struct la_batch_suggestion *out, size_t max)
{
    /* Below: 2 (b - d) >= b means d <= b / 2, which also keeps b' >= 1.
     * Above: d <= b, and b + d must not wrap around. */
    uint64_t reach = above ? (b <= UINT64_MAX - b ? b : UINT64_MAX - b) : b / 2;
    size_t n = 0;

    if (reach > SCAN_LIMIT)
        reach = SCAN_LIMIT;
    for (uint64_t d = 1; d <= reach && n < max; d++) {
        uint64_t c = above ? b + d : b - d;
        uint64_t last = last_of(spr, c);

        if (fixes(last, min_batch)) {
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
    uint64_t b = r->p.batch_size, m = r->p.min_batch, spr = r->samples_per_rank;
    size_t nlo = scan_side(spr, b, m, 0, lo, LA_MAX_SUGGESTIONS);
    size_t nhi = scan_side(spr, b, m, 1, hi, LA_MAX_SUGGESTIONS);
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
