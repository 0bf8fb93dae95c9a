/* test_batching.c - TAP unit test for src/batching.c.
 *
 * The expected numbers come from an independent, deliberately naive model: build
 * the index list of every rank the way DistributedSampler does (pad by repeating
 * from the start, or cut the tail), check all ranks agree, then chunk one rank
 * into batches as the DataLoader does. Plus hand-computed cases, huge values
 * included, and the text of la_batching_describe(): key phrases, plain ASCII,
 * snprintf-style truncation.
 *
 * Build and run standalone:
 *   gcc -std=c11 -Wall -Wextra -Werror -Isrc src/batching.c \
 *       tests/unit/test_batching.c -o /tmp/test_batching && /tmp/test_batching */

#include <inttypes.h> /* PRIu64 */
#include <stdio.h>    /* printf */
#include <stdlib.h>   /* malloc, free */
#include <string.h>   /* strstr */

#include "batching.h"
#include "tap.h"

// ---- the naive model

struct model {
    uint64_t spr, padded, dropped_by_sampler;
    uint64_t batches, last, dropped_by_loader;
    uint64_t smallest;          /* the smallest batch; 0 when there is none */
    int ranks_agree;
};

/* Indices rank r of w sees, as DistributedSampler(shuffle=False) hands them out.
 * Returns a malloc'd array of *n indices. */
static uint64_t *rank_indices(uint64_t s, uint64_t w, int sdl, uint64_t r, uint64_t *n)
{
    uint64_t total = s, *all, *mine;

    if (w > 1 && sdl) {
        while (total % w != 0)   /* cut the tail until it divides evenly */
            total--;
    } else if (w > 1) {
        while (total % w != 0)   /* pad by repeating indices from the start */
            total++;
    }
    all = malloc((total + 1) * sizeof *all);
    mine = malloc((total + 1) * sizeof *mine);
    for (uint64_t i = 0; i < total; i++)
        all[i] = i % (s ? s : 1);
    *n = 0;
    for (uint64_t i = r; i < total; i += w)
        mine[(*n)++] = all[i];
    free(all);
    return mine;
}

static void simulate(uint64_t s, uint64_t b, uint64_t w, int dl, int sdl, struct model *m)
{
    uint64_t n0 = 0, *idx = rank_indices(s, w, sdl, 0, &n0);

    m->ranks_agree = 1;
    for (uint64_t r = 1; r < w; r++) {
        uint64_t n;

        free(rank_indices(s, w, sdl, r, &n));
        m->ranks_agree &= n == n0;
    }
    m->spr = n0;
    m->padded = w * n0 > s ? w * n0 - s : 0;
    m->dropped_by_sampler = s > w * n0 ? s - w * n0 : 0;
    m->batches = m->last = m->dropped_by_loader = m->smallest = 0;
    for (uint64_t i = 0; i < n0; i += b) {
        uint64_t size = n0 - i < b ? n0 - i : b;

        if (dl && size < b) {
            m->dropped_by_loader = size;
            break;
        }
        m->batches++;
        m->last = size;
        if (m->smallest == 0 || size < m->smallest)
            m->smallest = size;
    }
    free(idx);
}

/* PyTorch's own formula for num_samples with drop_last, in signed arithmetic
 * with Python's ceil of a true quotient (C's division truncates toward zero). */
static int64_t python_num_samples(int64_t s, int64_t w, int sdl)
{
    int64_t a = (sdl && s % w != 0) ? s - w : s;
    int64_t q = a / w;

    if (a % w != 0 && a > 0)
        q++;
    return q;
}

// ---- checks against the model

static int same_numbers(const struct la_batching *got, const struct model *m)
{
    return got->samples_per_rank == m->spr && got->padded == m->padded
        && got->dropped_by_sampler == m->dropped_by_sampler
        && got->batches_per_rank == m->batches && got->last_batch == m->last
        && got->dropped_by_loader == m->dropped_by_loader;
}

/* SPEC.md: a batch size fixes a tiny last batch when, run with the same
 * drop_last and sampler, it gives at least one batch and none below min_batch. */
static int model_fixes(uint64_t s, uint64_t c, uint64_t w, int dl, int sdl, uint64_t min_batch,
                       struct model *mc)
{
    simulate(s, c, w, dl, sdl, mc);
    return mc->batches > 0 && mc->smallest >= min_batch;
}

/* Suggestions are checked by brute force over every size in [B/2, 2B]: each one
 * is valid and correct, the order is by distance then size, each side holds the
 * nearest valid sizes of that side, and no side is starved when it has some. */
static int suggestions_ok(const struct la_batching *r, uint64_t s, uint64_t w, int dl, int sdl)
{
    uint64_t b = r->p.batch_size, m = r->p.min_batch;
    size_t valid_lo = 0, valid_hi = 0, got_lo = 0, got_hi = 0;

    if (!r->tiny_last_batch)
        return r->n_suggestions == 0;
    for (uint64_t c = (b + 1) / 2; c <= 2 * b; c++) {
        struct model mc;

        if (c == b)
            continue;
        if (model_fixes(s, c, w, dl, sdl, m, &mc))
            *(c < b ? &valid_lo : &valid_hi) += 1;
    }
    for (size_t i = 0; i < r->n_suggestions; i++) {
        const struct la_batch_suggestion *g = &r->suggestions[i];
        uint64_t d = g->batch_size > b ? g->batch_size - b : b - g->batch_size;
        struct model mc;

        if (!model_fixes(s, g->batch_size, w, dl, sdl, m, &mc) || mc.last != g->last_batch
            || d == 0 || 2 * g->batch_size < b
            || g->batch_size > 2 * b)
            return 0;
        if (i > 0) {
            const struct la_batch_suggestion *p = &r->suggestions[i - 1];
            uint64_t pd = p->batch_size > b ? p->batch_size - b : b - p->batch_size;

            if (pd > d || (pd == d && p->batch_size >= g->batch_size))
                return 0;
        }
        *(g->batch_size < b ? &got_lo : &got_hi) += 1;
    }
    /* Nearest-first on each side: the i-th suggestion below B is the i-th valid
     * size below B, counting down; likewise above. */
    for (size_t side = 0; side < 2; side++) {
        size_t k = 0;

        for (uint64_t d = 1; d <= b && k < (side ? got_hi : got_lo); d++) {
            uint64_t c = side ? b + d : b - d;
            struct model mc;
            int found = 0;

            if (c == 0 || (!side && 2 * c < b))
                break;
            if (!model_fixes(s, c, w, dl, sdl, m, &mc))
                continue;
            for (size_t i = 0; i < r->n_suggestions; i++)
                found |= r->suggestions[i].batch_size == c;
            if (!found)
                return 0;
            k++;
        }
    }
    return r->n_suggestions == (valid_lo + valid_hi < LA_MAX_SUGGESTIONS
                                ? valid_lo + valid_hi : LA_MAX_SUGGESTIONS)
        && got_lo >= (valid_lo < 3 ? valid_lo : 3) && got_hi >= (valid_hi < 3 ? valid_hi : 3);
}

static void generated_cases(void)
{
    static const uint64_t S[] = { 0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 43, 64, 100, 127,
                                  1041 };
    static const uint64_t B[] = { 1, 2, 3, 4, 7, 8, 16, 33 };
    static const uint64_t W[] = { 1, 2, 3, 8 };
    int k = 0;

    for (size_t si = 0; si < sizeof S / sizeof *S; si++)
    for (size_t bi = 0; bi < sizeof B / sizeof *B; bi++)
    for (size_t wi = 0; wi < sizeof W / sizeof *W; wi++)
    for (int dl = 0; dl < 2; dl++)
    for (int sdl = 0; sdl < 2; sdl++, k++) {
        struct la_batch_params p = { B[bi], dl, W[wi], sdl, 2 + (uint64_t)(k % 3) };
        struct la_batching r;
        struct model m;
        int pass;

        la_batching_compute(S[si], &p, &r);
        simulate(S[si], B[bi], W[wi], dl, sdl, &m);
        pass = m.ranks_agree && same_numbers(&r, &m)
            && (W[wi] == 1 || (int64_t)r.samples_per_rank
                == python_num_samples((int64_t)S[si], (int64_t)W[wi], sdl))
            && r.no_batches == (m.batches == 0)
            && r.tiny_last_batch == (m.last > 0 && m.last < p.min_batch)
            && suggestions_ok(&r, S[si], W[wi], dl, sdl);
        tap_ok(pass, "S=%" PRIu64 " B=%" PRIu64 " W=%" PRIu64 " drop_last=%d sampler_drop_last=%d"
           " M=%" PRIu64, S[si], B[bi], W[wi], dl, sdl, p.min_batch);
        if (!pass)
            tap_diag("got spr=%" PRIu64 " pad=%" PRIu64 " sdrop=%" PRIu64 " batches=%" PRIu64
                 " last=%" PRIu64 " ldrop=%" PRIu64 " n_sugg=%zu; model spr=%" PRIu64
                 " pad=%" PRIu64 " sdrop=%" PRIu64 " batches=%" PRIu64 " last=%" PRIu64
                 " ldrop=%" PRIu64, r.samples_per_rank, r.padded, r.dropped_by_sampler,
                 r.batches_per_rank, r.last_batch, r.dropped_by_loader, r.n_suggestions,
                 m.spr, m.padded, m.dropped_by_sampler, m.batches, m.last,
                 m.dropped_by_loader);
    }
}

// ---- hand-written cases

struct expect {
    uint64_t spr, padded, sdrop, batches, last, ldrop;
    int tiny, none;
};

static void check(const char *what, uint64_t s, struct la_batch_params p, struct expect e,
                  struct la_batching *out)
{
    struct la_batching r;

    la_batching_compute(s, &p, &r);
    tap_ok(r.samples_per_rank == e.spr && r.padded == e.padded && r.dropped_by_sampler == e.sdrop
       && r.batches_per_rank == e.batches && r.last_batch == e.last
       && r.dropped_by_loader == e.ldrop && r.tiny_last_batch == e.tiny
       && r.no_batches == e.none && r.samples == s, "%s", what);
    if (out)
        *out = r;
}

static int has_suggestion(const struct la_batching *r, uint64_t b, uint64_t last)
{
    for (size_t i = 0; i < r->n_suggestions; i++)
        if (r->suggestions[i].batch_size == b && r->suggestions[i].last_batch == last)
            return 1;
    return 0;
}

static void hand_cases(void)
{
    const uint64_t p63 = UINT64_C(1) << 63, p32 = UINT64_C(1) << 32;
    struct la_batching r;

    check("1041/8: 131 batches, last 1", 1041, (struct la_batch_params){ 8, 0, 1, 0, 2 },
          (struct expect){ 1041, 0, 0, 131, 1, 0, 1, 0 }, &r);
    tap_ok(has_suggestion(&r, 7, 5) && has_suggestion(&r, 9, 6), "1041/8 suggests 7 (5), 9 (6)");
    tap_ok(r.n_suggestions > 1 && r.suggestions[0].batch_size == 7
       && r.suggestions[1].batch_size == 9, "1041/8: 7 then 9, smaller first on a tie");
    check("1041/8 drop_last: 130 batches, 1 dropped", 1041,
          (struct la_batch_params){ 8, 1, 1, 0, 2 },
          (struct expect){ 1041, 0, 0, 130, 8, 1, 0, 0 }, &r);
    tap_ok(r.n_suggestions == 0, "no suggestions without a tiny last batch");
    check("S<B: one short batch", 5, (struct la_batch_params){ 8, 0, 1, 0, 2 },
          (struct expect){ 5, 0, 0, 1, 5, 0, 0, 0 }, NULL);
    check("S<B drop_last: no batches", 5, (struct la_batch_params){ 8, 1, 1, 0, 2 },
          (struct expect){ 5, 0, 0, 0, 0, 5, 0, 1 }, NULL);
    check("S==0: no batches", 0, (struct la_batch_params){ 8, 0, 1, 0, 2 },
          (struct expect){ 0, 0, 0, 0, 0, 0, 0, 1 }, NULL);
    check("S==0, W=4, sampler drop_last", 0, (struct la_batch_params){ 8, 0, 4, 1, 2 },
          (struct expect){ 0, 0, 0, 0, 0, 0, 0, 1 }, NULL);
    check("S<W padded: 3 on 8 ranks pads 5", 3, (struct la_batch_params){ 4, 0, 8, 0, 2 },
          (struct expect){ 1, 5, 0, 1, 1, 0, 1, 0 }, &r);
    tap_ok(r.n_suggestions == 0, "S<W: a rank of 1 sample has no fix within 2x");
    check("S<W sampler drop_last: every rank empty", 3,
          (struct la_batch_params){ 4, 0, 8, 1, 2 },
          (struct expect){ 0, 0, 3, 0, 0, 0, 0, 1 }, NULL);
    check("B==1: every batch holds 1", 10, (struct la_batch_params){ 1, 0, 1, 0, 2 },
          (struct expect){ 10, 0, 0, 10, 1, 0, 1, 0 }, &r);
    tap_ok(r.n_suggestions == 1 && has_suggestion(&r, 2, 2), "B==1 suggests 2 (last 2)");
    check("W=2: 1041 pads 1", 1041, (struct la_batch_params){ 8, 0, 2, 0, 2 },
          (struct expect){ 521, 1, 0, 66, 1, 0, 1, 0 }, NULL);
    check("W=3: 1041 divides evenly", 1041, (struct la_batch_params){ 8, 0, 3, 0, 2 },
          (struct expect){ 347, 0, 0, 44, 3, 0, 0, 0 }, NULL);
    check("W=8 sampler drop_last: drops 1", 1041, (struct la_batch_params){ 8, 0, 8, 1, 2 },
          (struct expect){ 130, 0, 1, 17, 2, 0, 0, 0 }, NULL);
    check("W=8 padded: 7 repeated", 1041, (struct la_batch_params){ 8, 0, 8, 0, 2 },
          (struct expect){ 131, 7, 0, 17, 3, 0, 0, 0 }, NULL);

    /* Huge values, worked by hand: 2^63 = 2^31 * 2^32, and 2^63 mod 3 = 2. */
    check("S=2^63+5 B=2^32: 2^31+1 batches, last 5", p63 + 5,
          (struct la_batch_params){ p32, 0, 1, 0, 2 },
          (struct expect){ p63 + 5, 0, 0, (p32 >> 1) + 1, 5, 0, 0, 0 }, NULL);
    check("S=2^63+5 B=2^32 M=8: tiny", p63 + 5, (struct la_batch_params){ p32, 0, 1, 0, 8 },
          (struct expect){ p63 + 5, 0, 0, (p32 >> 1) + 1, 5, 0, 1, 0 }, &r);
    /* 2^32 = 1 mod 2^32-1 and -1 mod 2^32+1, so the last batches are 2^31+5, 2^31+6. */
    tap_ok(r.n_suggestions == LA_MAX_SUGGESTIONS
       && r.suggestions[0].batch_size == p32 - 1 && r.suggestions[0].last_batch == (p32 >> 1) + 5
       && r.suggestions[1].batch_size == p32 + 1 && r.suggestions[1].last_batch == (p32 >> 1) + 6,
       "S=2^63+5 B=2^32: suggests 2^32-1 (2^31+5) and 2^32+1 (2^31+6)");
    check("S=2^63+5 B=2^32 drop_last", p63 + 5, (struct la_batch_params){ p32, 1, 1, 0, 2 },
          (struct expect){ p63 + 5, 0, 0, p32 >> 1, p32, 5, 0, 0 }, NULL);
    /* (2^63 + 7) / 3 = 3074457345618258605, so ranks hold 2^63 + 7 and 2 are padding. */
    check("S=2^63+5 W=3 padded 2", p63 + 5, (struct la_batch_params){ p32, 0, 3, 0, 2 },
          (struct expect){ UINT64_C(3074457345618258605), 2, 0,
                           UINT64_C(3074457345618258605) / p32 + 1,
                           UINT64_C(3074457345618258605) % p32, 0, 0, 0 }, NULL);
    check("S=2^63+5 W=3 sampler drop_last drops 1", p63 + 5,
          (struct la_batch_params){ p32, 0, 3, 1, 2 },
          (struct expect){ UINT64_C(3074457345618258604), 0, 1,
                           UINT64_C(3074457345618258604) / p32 + 1,
                           UINT64_C(3074457345618258604) % p32, 0, 0, 0 }, NULL);
    check("S=2^64-1 W=2: ceil without overflow", UINT64_MAX,
          (struct la_batch_params){ UINT64_MAX, 0, 2, 0, 2 },
          (struct expect){ p63, 1, 0, 1, p63, 0, 0, 0 }, NULL);
    check("S=2^64-1 B=2^64-2: last 1", UINT64_MAX,
          (struct la_batch_params){ UINT64_MAX - 1, 0, 1, 0, 2 },
          (struct expect){ UINT64_MAX, 0, 0, 2, 1, 0, 1, 0 }, &r);
    tap_ok(r.n_suggestions >= 1 && r.suggestions[0].batch_size == UINT64_MAX - 2
       && r.suggestions[0].last_batch == 2 && has_suggestion(&r, UINT64_MAX, UINT64_MAX),
       "B near 2^64: 2^64-3 (last 2) and 2^64-1 (full), no wrap-around");
    check("B=2^40 S=2^40+1: last 1", (UINT64_C(1) << 40) + 1,
          (struct la_batch_params){ UINT64_C(1) << 40, 0, 1, 0, 2 },
          (struct expect){ (UINT64_C(1) << 40) + 1, 0, 0, 2, 1, 0, 1, 0 }, &r);
    tap_ok(r.n_suggestions == LA_MAX_SUGGESTIONS && has_suggestion(&r, (UINT64_C(1) << 40) + 1,
                                                               (UINT64_C(1) << 40) + 1),
       "B=2^40: suggestions found quickly, 2^40+1 holds everything");
    /* suggestions simulated with the run's own drop_last. 6
     * gives no batch of 5 samples, 4 gives one of 4; with 43 samples and B = 1,
     * 2 gives 21 batches of 2. */
    check("5/3 drop_last M=4: one batch of 3", 5, (struct la_batch_params){ 3, 1, 1, 0, 4 },
          (struct expect){ 5, 0, 0, 1, 3, 2, 1, 0 }, &r);
    tap_ok(r.n_suggestions == 2 && r.suggestions[0].batch_size == 4
       && r.suggestions[0].last_batch == 4 && has_suggestion(&r, 5, 5),
       "5/3 drop_last M=4: suggests 4 and 5, not 6 (no batch at all)");
    check("43/1 drop_last: 43 batches of 1", 43, (struct la_batch_params){ 1, 1, 1, 0, 2 },
          (struct expect){ 43, 0, 0, 43, 1, 0, 1, 0 }, &r);
    tap_ok(r.n_suggestions == 1 && has_suggestion(&r, 2, 2), "43/1 drop_last: suggests 2");
    check("B=0 read as 1, W=0 read as 1", 3, (struct la_batch_params){ 0, 0, 0, 0, 1 },
          (struct expect){ 3, 0, 0, 3, 1, 0, 0, 0 }, NULL);
}

// ---- la_batching_describe()

/* Describe S samples under p into buf; returns what la_batching_describe said. */
static size_t describe(uint64_t s, struct la_batch_params p, char *buf, size_t len)
{
    struct la_batching r;

    la_batching_compute(s, &p, &r);
    return la_batching_describe(&r, buf, len);
}

/* Every phrase in the NULL-terminated list occurs in text. */
static int has_all(const char *text, const char *const *phrases)
{
    for (; *phrases != NULL; phrases++)
        if (strstr(text, *phrases) == NULL) {
            tap_diag("missing \"%s\" in: %s", *phrases, text);
            return 0;
        }
    return 1;
}

static void describe_phrases(void)
{
    char buf[1024];

    describe(1041, (struct la_batch_params){ 8, 0, 1, 0, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "1041 samples, batch 8", "131 batches",
               "the last holds 1 sample",
               "BatchNorm1d on (N, C) features and BatchNorm2d on 1x1 maps fail on it",
               "Fix: drop_last=True (drops 1 sample per epoch)", "batch_size 7 (last 5)",
               "9 (last 6)", NULL }), "describe 1041/8: tiny last batch and its fixes");
    describe(1041, (struct la_batch_params){ 8, 0, 8, 0, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "on 8 ranks", "DistributedSampler pads 7 samples",
               "they are seen twice per epoch", "Each rank gets 131 samples", "17 batches",
               "the last holds 3 samples", NULL }) && strstr(buf, "Fix") == NULL,
       "describe W=8: per-rank numbers and padding, no fix needed");
    describe(1041, (struct la_batch_params){ 8, 0, 8, 1, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "DistributedSampler(drop_last=True) drops 1 sample",
               "Each rank gets 130 samples", NULL }), "describe W=8: the sampler drops 1");
    describe(1041, (struct la_batch_params){ 8, 0, 2, 0, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "pads 1 sample: it is seen twice",
               "drops 1 sample per epoch on each rank", NULL }), "describe W=2: per-rank fix");
    describe(5, (struct la_batch_params){ 8, 1, 1, 0, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "fewer samples per rank than one batch",
               "with drop_last=True the epoch trains on nothing", NULL }),
       "describe no_batches under drop_last");
    describe(0, (struct la_batch_params){ 8, 0, 1, 0, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "0 samples", "trains on nothing", NULL }),
       "describe S==0");
    describe(3, (struct la_batch_params){ 4, 0, 8, 1, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "drops all 3 samples", "trains on nothing", NULL }),
       "describe S<W with the sampler's drop_last");
    describe(3, (struct la_batch_params){ 4, 0, 8, 0, 2 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "seen more than once", NULL })
       && strstr(buf, "drop_last=True (drops") == NULL,
       "describe S<W padded: no drop_last fix that would empty the epoch");
    describe(1043, (struct la_batch_params){ 8, 0, 1, 0, 4 }, buf, sizeof buf);
    tap_ok(has_all(buf, (const char *const[]){ "the last holds 3 samples", "--min-batch=4", NULL })
       && strstr(buf, "BatchNorm") == NULL, "describe a last batch of 3 below min_batch 4");
}

/* snprintf semantics: the return is the whole length, a short buffer holds a
 * NUL-terminated prefix, and a NULL buffer of length 0 is allowed. */
static void describe_bounds(void)
{
    struct la_batch_params p = { 8, 0, 4, 0, 2 };
    char full[1024], small[10];
    size_t n = describe(1041, p, full, sizeof full);

    tap_ok(n == strlen(full) && n > 0, "describe returns the length written");
    tap_ok(describe(1041, p, NULL, 0) == n, "describe(NULL, 0) returns the length needed");
    tap_ok(describe(1041, p, small, sizeof small) == n && strlen(small) == sizeof small - 1
       && strncmp(small, full, sizeof small - 1) == 0, "describe truncates and terminates");
    tap_ok(describe(1041, p, small, 1) == n && small[0] == '\0', "describe into 1 byte is \"\"");
}

/* Over many settings the paragraph is one line of printable ASCII, ends with a
 * period, and names a fix (or says there is none) whenever the batch is tiny. */
static void describe_everywhere(void)
{
    static const uint64_t S[] = { 0, 1, 3, 9, 17, 100, 1041, UINT64_MAX };
    static const uint64_t B[] = { 1, 2, 3, 8, 33, UINT64_MAX - 1 };
    static const uint64_t W[] = { 1, 2, 8 };
    int bad = 0, cases = 0;

    for (size_t si = 0; si < sizeof S / sizeof *S; si++)
    for (size_t bi = 0; bi < sizeof B / sizeof *B; bi++)
    for (size_t wi = 0; wi < sizeof W / sizeof *W; wi++)
    for (int flags = 0; flags < 4; flags++, cases++) {
        struct la_batch_params p = { B[bi], flags & 1, W[wi], flags >> 1 & 1, 2 };
        struct la_batching r;
        char buf[1024];
        size_t n;

        la_batching_compute(S[si], &p, &r);
        n = la_batching_describe(&r, buf, sizeof buf);
        for (size_t i = 0; i < n && i < sizeof buf; i++)
            bad |= buf[i] < 0x20 || buf[i] > 0x7e;
        bad |= n == 0 || n >= sizeof buf || buf[n - 1] != '.';
        bad |= r.tiny_last_batch && !strstr(buf, "Fix: ") && !strstr(buf, "No batch size");
        bad |= r.no_batches && !strstr(buf, "trains on nothing");
        if (bad) {
            tap_diag("case %d: %s", cases, buf);
            break;
        }
    }
    tap_ok(!bad, "describe: %d settings give one ASCII line with a fix when tiny", cases);
}

int main(void)
{
    /* the plan comes first here, so a case that silently runs no point fails */
    int planned = 17 * 8 * 4 * 2 * 2 + 34 + 9 + 4 + 1;
    printf("1..%d\n", planned);
    generated_cases();
    hand_cases();
    describe_phrases();
    describe_bounds();
    describe_everywhere();
    if (tap_count != planned)
        tap_diag("planned %d tests but ran %d", planned, tap_count);
    return tap_failed == 0 && tap_count == planned ? 0 : 1;
}
