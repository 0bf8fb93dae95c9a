/* shard_frames.c - LitData's framed zstd chunks: see shard_frames.h. */
#include "config.h"    /* HAVE_ZSTD */
#include "shard_frames.h"
#include "input.h"     /* la_source_read_full */
#include "util.h"      /* la_grow */

#include <stdio.h>     /* snprintf */
#include <stdlib.h>    /* malloc, free */
#include <string.h>    /* memcmp, memset */
#ifdef HAVE_ZSTD
#include <zstd.h>      /* ZSTD_decompress */
#endif

#define PREFIX 24
#define FRAME_ENTRY 24

static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int la_shard_frames_is(const unsigned char *b)
{
    return memcmp(b, "LDFZ01\0\0", 8) == 0;
}

void la_shard_frames_free(struct la_shard_frames *f)
{
    free(f->offsets);
    free(f->frames);
    free(f->in);
    free(f->out);
    memset(f, 0, sizeof *f);
}

/* n bytes of src into buf. @return 0, or -1 with why. */
static int read_n(struct la_source *src, void *buf, size_t n, uint64_t *pos, const char *what,
                  char *why, size_t whylen)
{
    ssize_t got = la_source_read_full(src, buf, n);
    if (got < 0 || (size_t)got < n) {
        snprintf(why, whylen, "byte %llu: %s", (unsigned long long)(*pos + (got > 0 ? (uint64_t)got : 0)),
                 got < 0 ? la_source_error(src) : what);
        return -1;
    }
    *pos += n;
    return 0;
}

/* The item offsets: from 0, in order, each item within the limit. */
static int check_offsets(const struct la_shard_frames *f, char *why, size_t whylen)
{
    if (f->offsets[0] != 0) {
        snprintf(why, whylen, "byte %d: the first item starts at %lu, not 0", PREFIX,
                 (unsigned long)f->offsets[0]);
        return -1;
    }
    for (uint64_t i = 0; i < f->count; i++)
        if (f->offsets[i + 1] < f->offsets[i] || f->offsets[i + 1] - f->offsets[i] > f->item_max) {
            snprintf(why, whylen, "byte %llu: item %llu's end (%lu) is %s", (unsigned long long)
                     (PREFIX + 4 * (i + 1)), (unsigned long long)i, (unsigned long)f->offsets[i + 1],
                     f->offsets[i + 1] < f->offsets[i] ? "before its start" : "past the item limit");
            return -1;
        }
    return 0;
}

/* Frame k's entry: its items, its place right after the one before, its sizes. */
static int check_frame(const struct la_shard_frames *f, uint64_t k, uint64_t at, int64_t size,
                       char *why, size_t whylen)
{
    const struct la_shard_frame *fr = &f->frames[k];
    uint64_t first = k * f->rows, n = f->count - first < f->rows ? f->count - first : f->rows;
    const char *bad = fr->first != first || fr->n != n ? "does not hold the items its place says"
                    : fr->at != at ? "does not start where the one before ends"
                    : fr->packed == 0 ? "is empty"
                    : size >= 0 && fr->at + fr->packed > (uint64_t)size ? "runs past the file's end (truncated chunk)"
                    : fr->size != f->offsets[first + n] - f->offsets[first] ? "inflates to other than its items' bytes"
                    : fr->size > LA_SHARD_FRAME_MAX ? "inflates past the frame limit" : NULL;
    if (bad)
        snprintf(why, whylen, "byte %llu: zstd frame %llu (%lu items from item %lu, at byte %llu, "
                 "%lu bytes) %s", (unsigned long long)(PREFIX + 4 * (f->count + 1) + FRAME_ENTRY * k),
                 (unsigned long long)k, (unsigned long)fr->n, (unsigned long)fr->first,
                 (unsigned long long)fr->at,
                 (unsigned long)fr->packed, bad);
    return bad ? -1 : 0;
}

static int read_frame_table(struct la_shard_frames *f, struct la_source *src, int64_t size,
                            uint64_t *pos, char *why, size_t whylen)
{
    unsigned char e[FRAME_ENTRY];
    uint64_t at = PREFIX + 4 * (f->count + 1) + FRAME_ENTRY * f->n_frames;
    for (uint64_t k = 0; k < f->n_frames; k++) {
        if (read_n(src, e, sizeof e, pos, "the file ends inside the frame table", why, whylen) != 0)
            return -1;
        f->frames[k] = (struct la_shard_frame){ u32(e), u32(e + 4),
                                                u32(e + 8) | (uint64_t)u32(e + 12) << 32,
                                                u32(e + 16), u32(e + 20) };
        if (check_frame(f, k, at, size, why, whylen) != 0)
            return -1;
        at += f->frames[k].packed;
    }
    return 0;
}

int la_shard_frames_open(struct la_shard_frames *f, struct la_source *src, int64_t size,
                         uint64_t count, uint32_t item_max, uint64_t *pos, char *why, size_t whylen)
{
    unsigned char h[PREFIX - 8];
    la_shard_frames_free(f);
    f->item_max = item_max;
    if (read_n(src, h, sizeof h, pos, "the file ends inside the framed header", why, whylen) != 0)
        return -1;
    unsigned version = h[0] | h[1] << 8;
    f->count = u32(h + 4);
    f->rows = u32(h + 8);
    f->n_frames = u32(h + 12);
    const char *bad = version != 1 ? "not version 1 of litdata's framed zstd"
                    : f->count != count ? "a count of items other than index.json's"
                    : f->count == 0 || f->rows == 0 ? "no items, or frames of none"
                    : f->n_frames != (f->count + f->rows - 1) / f->rows ? "a count of frames its items do not make"
                    : size >= 0 && PREFIX + 4 * (f->count + 1) + FRAME_ENTRY * f->n_frames > (uint64_t)size
                    ? "tables that run past the file's end (truncated chunk)" : NULL;
    if (bad) {
        snprintf(why, whylen, "byte 8: a framed zstd header (version %u, %llu items, frames of "
                 "%llu, %llu frames) with %s", version, (unsigned long long)f->count,
                 (unsigned long long)f->rows, (unsigned long long)f->n_frames, bad);
        return -1;
    }
    if (!(f->offsets = malloc(4 * ((size_t)f->count + 1))) ||
        !(f->frames = malloc(sizeof *f->frames * (size_t)f->n_frames))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (read_n(src, f->offsets, 4 * ((size_t)f->count + 1), pos,
               "the file ends inside the offsets table", why, whylen) != 0)
        return -1;
    for (uint64_t i = 0; i <= f->count; i++)
        f->offsets[i] = u32((const unsigned char *)&f->offsets[i]);
    if (check_offsets(f, why, whylen) != 0 || read_frame_table(f, src, size, pos, why, whylen) != 0)
        return -1;
    f->cur = f->n_frames;
    return 0;
}

/* Read and inflate frame k, the next in the file. */
static int inflate_frame(struct la_shard_frames *f, struct la_source *src, uint64_t k,
                         uint64_t *pos, char *why, size_t whylen)
{
    const struct la_shard_frame *fr = &f->frames[k];
    if (la_grow(&f->in, &f->in_cap, fr->packed, 4096) != 0 ||
        la_grow(&f->out, &f->out_cap, fr->size ? fr->size : 1, 4096) != 0) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (read_n(src, f->in, fr->packed, pos, "the file ends inside a zstd frame (truncated chunk)",
               why, whylen) != 0)
        return -1;
#ifdef HAVE_ZSTD
    size_t got = ZSTD_decompress(f->out, fr->size, f->in, fr->packed);
    if (ZSTD_isError(got) || got != fr->size) {
        snprintf(why, whylen, "byte %llu: zstd frame %llu: %s", (unsigned long long)fr->at,
                 (unsigned long long)k, ZSTD_isError(got) ? ZSTD_getErrorName(got)
                 : "it inflates to other than the bytes its entry says");
        return -1;
    }
    f->cur = k;
    return 0;
#else
    snprintf(why, whylen, "zstd frames, and this build has no libzstd (libzstd-dev)");
    return -1;
#endif
}

int la_shard_frames_item(struct la_shard_frames *f, struct la_source *src, uint64_t i,
                         const unsigned char **p, size_t *len, uint64_t *pos,
                         char *why, size_t whylen)
{
    uint64_t k = i / f->rows;
    if (k != f->cur && inflate_frame(f, src, k, pos, why, whylen) != 0)
        return -1;
    uint32_t base = f->offsets[f->frames[k].first];
    *p = f->out + (f->offsets[i] - base);
    *len = f->offsets[i + 1] - f->offsets[i];
    return 0;
}
