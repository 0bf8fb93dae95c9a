/* test_batching_torch.c - TAP: src/batching.c against PyTorch's own DataLoader.
 *
 * tests/data/batching-torch.tsv was made by tests/gen/gen_batching_table.py, which
 * runs each case through torch.utils.data.DataLoader and DistributedSampler
 * and lists, when the last batch is tiny, every batch size within a factor of
 * two that fixes it under the same settings. Per line, one TAP point: the
 * numbers la_batching_compute() gives must be torch's, and its suggestions
 * must be fixes by torch's account, as many as there are (at most
 * LA_MAX_SUGGESTIONS), the nearest of each side, nearest first.
 *
 * Reads $srcdir/tests/data/batching-torch.tsv, or the path given as argv[1]. */

#include <inttypes.h> /* SCNu64, PRIu64 */
#include <stdio.h>    /* fopen, fgets, sscanf */
#include <stdlib.h>   /* getenv, strtoull */
#include <string.h>   /* strchr */

#include "batching.h"
#include "tap.h"

/* Every fix torch found for one case: size and last batch. */
#define MAX_FIXES 64

struct fixes {
    size_t n;
    uint64_t size[MAX_FIXES], last[MAX_FIXES];
};

struct table_case {
    uint64_t s, b, w, m;
    int dl, sdl;
    uint64_t spr, padded, sdrop, batches, last, ldrop;
    struct fixes fix;
};

/* "4:4,5:5" or "-". @return 0, or -1 on a malformed list. */
static int parse_fixes(const char *text, struct fixes *f)
{
    f->n = 0;
    if (strcmp(text, "-") == 0)
        return 0;
    for (const char *p = text; *p;) {
        char *end;

        if (f->n == MAX_FIXES)
            return -1;
        f->size[f->n] = strtoull(p, &end, 10);
        if (*end != ':')
            return -1;
        f->last[f->n] = strtoull(end + 1, &end, 10);
        f->n++;
        if (*end != ',' && *end != '\0')
            return -1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static int parse_line(const char *line, struct table_case *c)
{
    char fix[1024];

    if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %d %d %" SCNu64 " %" SCNu64
                     " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %1023s",
               &c->s, &c->b, &c->w, &c->dl, &c->sdl, &c->m, &c->spr, &c->padded, &c->sdrop,
               &c->batches, &c->last, &c->ldrop, fix) != 13)
        return -1;
    return parse_fixes(fix, &c->fix);
}

static uint64_t distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* Position of size in torch's fixes, or -1. */
static int fix_index(const struct fixes *f, uint64_t size)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->size[i] == size)
            return (int)i;
    return -1;
}

/* The suggestions are torch's fixes: right last batch, ordered by distance to B
 * (the smaller on a tie), as many as there are up to the cap, each side's
 * nearest ones, and no side left out while it has some (up to half the cap). */
static int suggestions_match(const struct la_batching *r, const struct table_case *c,
                             const char **why)
{
    size_t want = c->fix.n < LA_MAX_SUGGESTIONS ? c->fix.n : LA_MAX_SUGGESTIONS;
    size_t lo = 0, hi = 0, fix_lo = 0, fix_hi = 0;

    if (r->n_suggestions != want)
        return *why = "number of suggestions", 0;
    for (size_t i = 0; i < r->n_suggestions; i++) {
        const struct la_batch_suggestion *g = &r->suggestions[i];
        int k = fix_index(&c->fix, g->batch_size);

        if (k < 0 || c->fix.last[k] != g->last_batch)
            return *why = "a suggestion torch does not accept", 0;
        if (i > 0) {
            uint64_t pd = distance(r->suggestions[i - 1].batch_size, c->b);
            uint64_t d = distance(g->batch_size, c->b);

            if (pd > d || (pd == d && r->suggestions[i - 1].batch_size > g->batch_size))
                return *why = "order", 0;
        }
        *(g->batch_size < c->b ? &lo : &hi) += 1;
    }
    for (size_t k = 0; k < c->fix.n; k++)
        *(c->fix.size[k] < c->b ? &fix_lo : &fix_hi) += 1;
    /* torch's list is ascending: below B the nearest are its last lo entries,
     * above B its first hi entries after the ones below */
    for (size_t k = 0; k < lo; k++) {
        int found = 0;
        for (size_t i = 0; i < r->n_suggestions; i++)
            found |= r->suggestions[i].batch_size == c->fix.size[fix_lo - 1 - k];
        if (!found)
            return *why = "not the nearest below B", 0;
    }
    for (size_t k = 0; k < hi; k++) {
        int found = 0;
        for (size_t i = 0; i < r->n_suggestions; i++)
            found |= r->suggestions[i].batch_size == c->fix.size[fix_lo + k];
        if (!found)
            return *why = "not the nearest above B", 0;
    }
    if (lo < (fix_lo < 3 ? fix_lo : 3) || hi < (fix_hi < 3 ? fix_hi : 3))
        return *why = "a side left out", 0;
    return 1;
}

static void check_case(const struct table_case *c)
{
    struct la_batch_params p = { c->b, c->dl, c->w, c->sdl, c->m };
    struct la_batching r;
    const char *why = NULL;
    int pass;

    la_batching_compute(c->s, &p, &r);
    pass = r.samples_per_rank == c->spr && r.padded == c->padded
        && r.dropped_by_sampler == c->sdrop && r.batches_per_rank == c->batches
        && r.last_batch == c->last && r.dropped_by_loader == c->ldrop;
    if (!pass)
        why = "numbers";
    else if (r.no_batches != (c->batches == 0) || r.tiny_last_batch != (c->last > 0 && c->last < c->m))
        pass = 0, why = "finding";
    else
        pass = suggestions_match(&r, c, &why);
    tap_ok(pass, "torch: S=%" PRIu64 " B=%" PRIu64 " W=%" PRIu64 " drop_last=%d"
           " sampler_drop_last=%d M=%" PRIu64, c->s, c->b, c->w, c->dl, c->sdl, c->m);
    if (!pass) {
        tap_diag("%s: got spr=%" PRIu64 " pad=%" PRIu64 " sdrop=%" PRIu64 " batches=%" PRIu64
                 " last=%" PRIu64 " ldrop=%" PRIu64 " and %zu suggestions:", why,
                 r.samples_per_rank, r.padded, r.dropped_by_sampler, r.batches_per_rank,
                 r.last_batch, r.dropped_by_loader, r.n_suggestions);
        for (size_t i = 0; i < r.n_suggestions; i++)
            tap_diag("  %" PRIu64 " (last %" PRIu64 ")", r.suggestions[i].batch_size,
                     r.suggestions[i].last_batch);
    }
}

int main(int argc, char **argv)
{
    char path[4096], line[2048];
    const char *srcdir = getenv("srcdir");
    FILE *f;
    int cases = 0;

    if (argc > 1)
        snprintf(path, sizeof path, "%s", argv[1]);
    else
        snprintf(path, sizeof path, "%s/tests/data/batching-torch.tsv", srcdir ? srcdir : ".");
    if (!(f = fopen(path, "r"))) {
        tap_ok(0, "open %s", path);
        return tap_done();
    }
    while (fgets(line, sizeof line, f)) {
        struct table_case c;

        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (parse_line(line, &c) != 0) {
            tap_ok(0, "malformed line: %s", line);
            continue;
        }
        check_case(&c);
        cases++;
    }
    fclose(f);
    /* a table cut short would pass silently: it holds 6804 cases */
    tap_ok(cases >= 6804, "%d cases read from %s", cases, path);
    return tap_done();
}
