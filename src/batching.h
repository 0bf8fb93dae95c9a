/* batching.h - PyTorch's DataLoader and DistributedSampler arithmetic.
 *
 * Pure functions, no I/O: given the number of samples and the loader's
 * settings, how many batches each rank gets and how big the last one is. The
 * formulas are the SPEC's, which are torch.utils.data's. */
#ifndef LA_BATCHING_H
#define LA_BATCHING_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */

struct la_batch_params {
    uint64_t batch_size;        /* B >= 1 */
    int drop_last;              /* DataLoader(drop_last=True) */
    uint64_t world_size;        /* W >= 1; 1 means no DistributedSampler */
    int sampler_drop_last;      /* DistributedSampler(drop_last=True) */
    uint64_t min_batch;         /* a last batch below this is a finding */
};

#define LA_MAX_SUGGESTIONS 6

struct la_batch_suggestion {
    uint64_t batch_size;
    uint64_t last_batch;
};

struct la_batching {
    uint64_t samples;           /* S */
    struct la_batch_params p;
    uint64_t samples_per_rank;
    uint64_t padded;            /* repeated by the sampler, whole dataset */
    uint64_t dropped_by_sampler;/* whole dataset */
    uint64_t batches_per_rank;
    uint64_t last_batch;        /* 0 when there are no batches */
    uint64_t dropped_by_loader; /* per rank */
    int tiny_last_batch;        /* 0 < last_batch < min_batch */
    int no_batches;             /* batches_per_rank == 0 */
    /* Filled when tiny_last_batch: batch sizes near B (within a factor of two),
     * nearest first, that simulated with the same drop_last and sampler give at
     * least one batch and no batch of fewer than min_batch samples (with
     * drop_last: min_batch <= B' <= samples_per_rank). */
    size_t n_suggestions;
    struct la_batch_suggestion suggestions[LA_MAX_SUGGESTIONS];
};

/** la_batching_compute() : the numbers PyTorch gives for S samples. Never overflows. */
void la_batching_compute(uint64_t samples, const struct la_batch_params *p,
                         struct la_batching *out);

/** la_batching_describe() : the text report's paragraph on batching for b, in plain
 *  ASCII: the per-rank numbers, what the sampler pads or drops, a tiny last batch
 *  or an empty epoch, and the fixes. Writes at most len bytes to buf, always
 *  NUL-terminated when len > 0 (buf may be NULL when len is 0).
 *  @return the length of the whole paragraph, as snprintf does: a value >= len
 *  means it was truncated. */
size_t la_batching_describe(const struct la_batching *b, char *buf, size_t len);

#endif
