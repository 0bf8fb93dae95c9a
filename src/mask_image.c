/* mask_image.c - see mask_image.h. */
#include "mask_image.h"

#include <errno.h>  /* errno */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc, calloc, qsort */
#include <string.h> /* strcmp, memcpy */
#include <unistd.h> /* pread */

#include "context.h" /* the options' rule and read options */
#include "config.h"  /* HAVE_SPNG */
#include "dataset.h"
#include "input.h"
#include "verdict.h"
#if HAVE_SPNG
#include <spng.h>
#endif

/* A sample larger than this is not drawn: its indices are held whole. */
#define MASK_MAX_VALUES ((uint64_t)1 << 24)
/* Bytes read at once from a file run (a plain .npy). */
#define RUN_PIECE ((size_t)1 << 20)

// ---- which masks -------------------------------------------------------------

/* A file whose samples are masks: two or more axes each, read from a path. */
static int holds_masks(enum la_format f, int sample_ndim, const char *path)
{
    return sample_ndim >= 2 && strcmp(path, "-") != 0 && !la_format_has(f, LA_FMTF_PATH);
}

static int by_bad_desc(const void *a, const void *b)
{
    const struct la_mask_pick *x = a, *y = b;
    if (x->bad != y->bad)
        return x->bad < y->bad ? 1 : -1;
    return x->report_sample < y->report_sample ? -1 : x->report_sample > y->report_sample;
}

/* The kept bad samples (groups) that lie in [first, first + n) of path. */
static size_t picks_of_groups(const struct la_stats *st, const char *path, uint64_t first,
                              uint64_t n, struct la_mask_pick *out)
{
    size_t k = 0;
    for (size_t i = 0; i < st->n_groups; i++) {
        const struct la_bad_group *g = &st->groups[i];
        if (g->sample < first || g->sample - first >= n)
            continue;
        out[k++] = (struct la_mask_pick){ path, g->sample - first, g->sample, g->count, n > 1 };
    }
    return k;
}

long la_mask_worst(const struct la_file_report *r, const struct la_config *cfg,
                   struct la_mask_pick **out)
{
    const struct la_dataset *d = r->dataset;
    size_t cap = r->stats.n_groups + (d ? d->n_src : 0), n = 0;
    *out = NULL;
    if (!r->read_ok || cfg->merge || cap == 0)
        return 0;
    struct la_mask_pick *p = calloc(cap, sizeof *p);
    if (!p)
        return -1;
    if (!d) {
        int ndim = r->info.ndim - (r->info.one_sample ? 0 : 1);
        if (holds_masks(r->info.format, ndim, r->path))
            n = picks_of_groups(&r->stats, r->path, 0, r->samples ? r->samples : 1, p);
    }
    for (size_t i = 0; d && i < d->n_src; i++) {
        const struct la_source_info *s = &d->src[i];
        if (!holds_masks(s->format, s->ndim, s->path))
            continue;
        if (s->samples == 1 && s->bad)    /* an image: its own count, every one of them */
            p[n++] = (struct la_mask_pick){ s->path, 0, s->first_sample, s->bad, 0 };
        else if (s->samples > 1)          /* a stack: its kept bad samples */
            n += picks_of_groups(&r->stats, s->path, s->first_sample, s->samples, p + n);
    }
    qsort(p, n, sizeof *p, by_bad_desc);
    uint64_t max = la_config_max_report(cfg);
    *out = p;
    return (long)(n < max ? n : max);
}

// ---- a mask's pixels -----------------------------------------------------------

/* The palette index of value i of chunk c, by the audit's rule. */
static unsigned char index_of(const struct la_chunk *c, size_t i, const struct la_rule *rule)
{
    int64_t v = 0;
    int verdict;
    switch (c->dtype) {
    case LA_DT_BOOL: case LA_DT_UINT8: v = ((const uint8_t *)c->values)[i]; break;
    case LA_DT_INT8:   v = ((const int8_t *)c->values)[i]; break;
    case LA_DT_INT16:  v = ((const int16_t *)c->values)[i]; break;
    case LA_DT_UINT16: v = ((const uint16_t *)c->values)[i]; break;
    case LA_DT_INT32:  v = ((const int32_t *)c->values)[i]; break;
    case LA_DT_UINT32: v = ((const uint32_t *)c->values)[i]; break;
    case LA_DT_INT64:  v = ((const int64_t *)c->values)[i]; break;
    default: break;
    }
    if (c->dtype == LA_DT_UINT64) {
        uint64_t u = ((const uint64_t *)c->values)[i];
        verdict = la_verdict_u64(u, rule);
        v = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    } else if (la_dtype_is_float(c->dtype)) {
        double x = c->dtype == LA_DT_FLOAT16 ? la_half_to_float(((const uint16_t *)c->values)[i])
                 : c->dtype == LA_DT_FLOAT32 ? ((const float *)c->values)[i]
                                             : ((const double *)c->values)[i];
        verdict = la_verdict_f64(x, rule);
        if (verdict == LA_V_VALID && !la_f64_label(x, &v))
            v = LA_MASK_BEYOND;          /* a valid float beyond int64 (no -n): no colour */
    } else {
        verdict = la_verdict_i64(v, rule);
    }
    if (verdict == LA_V_IGNORED)
        return LA_MASK_IGNORED;
    if (verdict != LA_V_VALID)
        return LA_MASK_BAD;
    return v >= 0 && v < LA_MASK_BEYOND ? (unsigned char)v : LA_MASK_BEYOND;
}

/* The values of sample `sample` (stride values from its first) into idx. */
static int read_sample(struct la_reader *rd, uint64_t sample, uint64_t stride,
                       const struct la_rule *rule, unsigned char *idx, char *err, size_t errlen)
{
    uint64_t lo = sample * stride, hi = lo + stride, got = 0;
    struct la_chunk c;
    int rc;
    while (got < stride && (rc = rd->ops->next(rd, &c)) == 1) {
        if (c.unparsable || c.first_index + c.count <= lo || c.first_index >= hi)
            continue;
        uint64_t from = c.first_index < lo ? lo - c.first_index : 0;
        for (uint64_t i = from; i < c.count && c.first_index + i < hi; i++, got++)
            idx[c.first_index + i - lo] = index_of(&c, (size_t)i, rule);
    }
    if (got == stride)
        return 0;
    snprintf(err, errlen, "%s", rc < 0 ? rd->err : "the file is shorter than when it was audited");
    return -1;
}

/* The same from a file run (reader.h): only the sample's bytes are read, at
 * its offset, so the last mask of a large array costs no more than the first. */
static int read_run_sample(const struct la_file_run *run, uint64_t sample, uint64_t stride,
                           const struct la_rule *rule, unsigned char *idx, char *err,
                           size_t errlen)
{
    size_t esz = la_dtype_info(run->dtype)->size, per = RUN_PIECE / esz;
    unsigned char *buf = malloc(per * esz);
    uint64_t lo = sample * stride;
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (uint64_t done = 0; done < stride && rc == 0;) {
        size_t n = stride - done < per ? (size_t)(stride - done) : per;
        ssize_t got = pread(run->fd, buf, n * esz, (off_t)(run->offset + (lo + done) * esz));
        if (got != (ssize_t)(n * esz)) {
            snprintf(err, errlen, "%s", got < 0 ? strerror(errno)
                                                : "the file is shorter than when it was audited");
            rc = -1;
            break;
        }
        struct la_chunk c = { run->dtype, buf, n, lo + done, NULL };
        for (size_t i = 0; i < n; i++)
            idx[done + i] = index_of(&c, i, rule);
        done += n;
    }
    free(buf);
    return rc;
}

/* The plane with the most bad pixels, moved to the front of idx. */
static void worst_plane(struct la_mask_image *img)
{
    size_t plane = (size_t)img->width * img->height;
    uint64_t best = 0;
    img->bad = 0;
    for (uint64_t p = 0; p < img->planes; p++) {
        uint64_t bad = 0;
        for (size_t i = 0; i < plane; i++)
            bad += img->index[p * plane + i] == LA_MASK_BAD;
        if (bad > img->bad || p == 0) {
            img->bad = bad;
            best = p;
        }
    }
    img->plane = best;
    if (best)
        memmove(img->index, img->index + best * plane, plane);
}

/* Open pick's file as the audit did, with its rule. */
static int open_reader(const char *path, const struct la_report_ctx *ctx, struct la_reader *rd,
                       struct la_read_opts *opts, char *err, size_t errlen)
{
    *opts = ctx->read;
    rd->opts = opts;
    rd->path = path;
    if (la_source_open(path, &rd->src, err, errlen) != 0)
        return -1;
    size_t len;
    la_source_peek(rd->src, &len);
    enum la_format f = la_source_format(rd->src, ctx, err, errlen);
    if (f == LA_FMT_NONE || !(rd->ops = la_reader_for_format(f)))
        return -1;
    rd->info.format = f;
    if (rd->ops->open(rd) != 0) {
        snprintf(err, errlen, "%s", rd->err);
        rd->ops = NULL;           /* nothing to close */
        return -1;
    }
    return 0;
}

/* The sample's dimensions: plane width and height, and planes per sample. */
static int sample_planes(const struct la_array_info *info, struct la_mask_image *img,
                         uint64_t *stride, char *err, size_t errlen)
{
    int skip = info->one_sample ? 0 : 1;
    if (info->ndim - skip < 2) {
        snprintf(err, errlen, "not a mask of two or more axes now");
        return -1;
    }
    uint64_t h = info->shape[info->ndim - 2], w = info->shape[info->ndim - 1], n = 1;
    for (int k = skip; k < info->ndim; k++)
        n = info->shape[k] && info->shape[k] <= MASK_MAX_VALUES && n <= MASK_MAX_VALUES
                ? n * info->shape[k] : MASK_MAX_VALUES + 1;   /* both <= 2^24: no overflow */
    if (n > MASK_MAX_VALUES || w > UINT32_MAX || h > UINT32_MAX || !w || !h) {
        snprintf(err, errlen, "a sample of more than %llu values (or none) is not drawn",
                 (unsigned long long)MASK_MAX_VALUES);
        return -1;
    }
    img->width = (uint32_t)w;
    img->height = (uint32_t)h;
    img->planes = n / (w * h);
    *stride = n;
    return 0;
}

int la_mask_load(const struct la_mask_pick *pick, const struct la_config *cfg,
                 struct la_mask_image *img, char *err, size_t errlen)
{
    struct la_reader rd = { 0 };
    struct la_read_opts opts;
    struct la_report_ctx ctx;   /* the run's options alone, as the page was drawn from */
    la_report_ctx_init(&ctx, cfg, NULL);
    struct la_rule rule = ctx.rule;
    uint64_t stride = 0;
    int rc = -1;
    *img = (struct la_mask_image){ 0 };
    if (open_reader(pick->path, &ctx, &rd, &opts, err, errlen) == 0 &&
        sample_planes(&rd.info, img, &stride, err, errlen) == 0) {
        if (!(img->index = malloc((size_t)stride)))
            snprintf(err, errlen, "out of memory");
        else if ((rc = rd.has_run && rd.run.count >= (pick->sample + 1) * stride
                           ? read_run_sample(&rd.run, pick->sample, stride, &rule, img->index,
                                             err, errlen)
                           : read_sample(&rd, pick->sample, stride, &rule, img->index, err,
                                         errlen)) == 0)
            worst_plane(img);
    }
    if (rd.ops && rd.ops->close)
        rd.ops->close(&rd);
    la_source_close(rd.src);
    la_notes_free(rd.notes);
    if (rc != 0)
        la_mask_image_free(img);
    return rc;
}

void la_mask_image_free(struct la_mask_image *img)
{
    free(img->index);
    img->index = NULL;
}

// ---- pictures of it ---------------------------------------------------------------

void la_mask_palette(unsigned char rgb[256][3])
{
    for (int c = 0; c < 256; c++) {   /* VOC: the class's bits spread over the channels */
        unsigned char r = 0, g = 0, b = 0;
        for (int j = 0, v = c; j < 8; j++, v >>= 3) {
            r |= (unsigned char)(((v >> 0) & 1) << (7 - j));
            g |= (unsigned char)(((v >> 1) & 1) << (7 - j));
            b |= (unsigned char)(((v >> 2) & 1) << (7 - j));
        }
        rgb[c][0] = r;
        rgb[c][1] = g;
        rgb[c][2] = b;
    }
    memcpy(rgb[LA_MASK_BEYOND], (unsigned char[3]){ 96, 96, 96 }, 3);
    memcpy(rgb[LA_MASK_IGNORED], (unsigned char[3]){ 255, 255, 255 }, 3);
    memcpy(rgb[LA_MASK_BAD], (unsigned char[3]){ 255, 0, 255 }, 3);
}

int la_mask_thumbnail(const struct la_mask_image *img, uint32_t max, struct la_mask_image *out)
{
    uint32_t longer = img->width > img->height ? img->width : img->height;
    uint32_t k = longer <= max ? 1 : (longer + max - 1) / max;
    *out = *img;
    out->width = (img->width + k - 1) / k;
    out->height = (img->height + k - 1) / k;
    out->bad = 0;
    if (!(out->index = malloc((size_t)out->width * out->height)))
        return -1;
    for (uint32_t ty = 0; ty < out->height; ty++)
        for (uint32_t tx = 0; tx < out->width; tx++) {
            const unsigned char *row = img->index + (size_t)ty * k * img->width;
            unsigned char v = row[(size_t)tx * k];
            for (uint32_t y = 0; y < k && ty * k + y < img->height && v != LA_MASK_BAD; y++)
                for (uint32_t x = 0; x < k && tx * k + x < img->width; x++)
                    if (row[(size_t)y * img->width + tx * k + x] == LA_MASK_BAD) {
                        v = LA_MASK_BAD;
                        break;
                    }
            out->index[(size_t)ty * out->width + tx] = v;
            out->bad += v == LA_MASK_BAD;
        }
    return 0;
}

#if HAVE_SPNG
unsigned char *la_mask_png(const struct la_mask_image *img, size_t *len, char *err, size_t errlen)
{
    unsigned char rgb[256][3];
    struct spng_plte plte = { .n_entries = 256 };
    struct spng_ihdr ihdr = { .width = img->width, .height = img->height, .bit_depth = 8,
                              .color_type = SPNG_COLOR_TYPE_INDEXED };
    la_mask_palette(rgb);
    for (int i = 0; i < 256; i++)
        plte.entries[i] = (struct spng_plte_entry){ rgb[i][0], rgb[i][1], rgb[i][2], 255 };
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    unsigned char *png = NULL;
    int rc = ctx ? 0 : SPNG_EMEM;
    if (rc == 0)
        rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    if (rc == 0)
        rc = spng_set_ihdr(ctx, &ihdr);
    if (rc == 0)
        rc = spng_set_plte(ctx, &plte);
    if (rc == 0)
        rc = spng_encode_image(ctx, img->index, (size_t)img->width * img->height, SPNG_FMT_PNG,
                               SPNG_ENCODE_FINALIZE);
    if (rc == 0 && !(png = spng_get_png_buffer(ctx, len, &rc)))
        rc = rc ? rc : SPNG_EMEM;
    if (rc != 0)
        snprintf(err, errlen, "PNG not encoded: %s", spng_strerror(rc));
    spng_ctx_free(ctx);
    return rc == 0 ? png : NULL;
}
#else
unsigned char *la_mask_png(const struct la_mask_image *img, size_t *len, char *err, size_t errlen)
{
    (void)img;
    *len = 0;
    snprintf(err, errlen, "built without libspng: no PNG is written");
    return NULL;
}
#endif
