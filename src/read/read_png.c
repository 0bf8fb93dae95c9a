/* read_png.c - segmentation masks stored as PNG images, through libspng.
 *
 * One image is one sample of H x W class indices: the grey level of a grey
 * image, the palette index of a palette image (Pascal VOC's masks: the colours
 * are only for people to look at). The values are what PIL gives for the
 * image, np.array(Image.open(p)): 8-bit grey and palette as uint8 (palette
 * indices of 1, 2 or 4 bits unpacked, unscaled), 16-bit grey as uint16, 1-bit
 * grey as bool, and 2- or 4-bit grey scaled to 0..255 as PIL does (x * 85,
 * x * 17). Colour images (RGB, RGBA) and grey with alpha hold more than one
 * number per pixel, so they are refused.
 *
 * Memory stays bounded whatever the header claims: the image is decoded a band
 * of rows at a time from the byte stream (so stdin and .png.gz work too), and
 * only an interlaced image, whose rows arrive in seven passes, is held whole,
 * up to PNG_INTERLACED_MAX bytes. */
#include "reader.h"

#include <pthread.h> /* pthread_key_create: each thread's buffers */
#include <spng.h>
#include <stdlib.h>  /* malloc, free */

#define PNG_BAND_BYTES ((size_t)1 << 20)          /* decoded bytes per chunk, about */
#define PNG_ROW_MAX ((size_t)64 << 20)            /* one row of a mask: far beyond any */
#define PNG_INTERLACED_MAX ((size_t)256 << 20)    /* a whole interlaced image */
#define PNG_CHUNK_LIMIT ((size_t)16 << 20)        /* ancillary chunks (text, ICC): memory cap */
#define PNG_KEEP_MAX ((size_t)4 << 20)            /* buffers a thread keeps for its next image */

struct png_state {
    spng_ctx *ctx;
    struct spng_ihdr ihdr;
    size_t row_bytes;         /* one decoded row as the PNG packs it (SPNG_FMT_PNG) */
    size_t out_elem;          /* bytes per output value: 1, or 2 for 16-bit grey */
    uint32_t band_rows;       /* rows per chunk (all of them when interlaced) */
    unsigned char *buf;       /* packed and values, one block (png_buffer) */
    size_t buf_cap;
    unsigned char *packed;    /* band_rows rows as decoded */
    unsigned char *values;    /* band_rows * width values, unpacked: packed itself
                                 for 8- and 16-bit rows, which need no unpacking */
    uint32_t next_row;        /* first row of the next band */
    int source_failed;        /* the byte source, not the PNG, failed */
};

// ---- the byte stream ------------------------------------------------------

/* libspng pulls exactly length bytes; fewer means the file ended. */
static int pull(spng_ctx *ctx, void *user, void *dst, size_t length)
{
    struct la_reader *r = user;
    struct png_state *st = r->state;
    ssize_t got = la_source_read_full(r->src, dst, length);
    if (got < 0) {
        st->source_failed = 1;
        return SPNG_IO_ERROR;
    }
    return (size_t)got == length ? 0 : SPNG_IO_EOF;
}

/* r->err from a libspng error code, naming the byte where it stopped. */
static int png_error(struct la_reader *r, int code, const char *doing)
{
    struct png_state *st = r->state;
    if (st->source_failed)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    if (code == SPNG_IO_EOF || code == SPNG_EOF)
        return la_reader_set_error(r, "byte %llu: PNG ends early (truncated file?) while %s",
                                   (unsigned long long)la_source_offset(r->src), doing);
    return la_reader_set_error(r, "byte %llu: not a valid PNG while %s: %s",
                               (unsigned long long)la_source_offset(r->src), doing,
                               spng_strerror(code));
}

// ---- buffers kept from one image to the next ---------------------------------

/* A folder of masks is decoded a few threads at a time, one image after
 * another on each: fresh buffers of a few hundred KiB per image cost page
 * faults and zeroing (about 15% of the time on 512 x 512 masks), so each
 * thread keeps its last image's block, up to PNG_KEEP_MAX bytes, for its next
 * one; it is freed when the thread ends. */
struct kept {
    unsigned char *p;
    size_t cap;
};

static pthread_key_t g_kept_key;
static int g_kept_ok;

static void kept_free(void *v)
{
    struct kept *k = v;
    free(k->p);
    free(k);
}

static void kept_init(void)
{
    g_kept_ok = pthread_key_create(&g_kept_key, kept_free) == 0;
}

/* A block of at least need bytes: this thread's kept one if it is large
 * enough, else a new one. NULL when out of memory. */
static unsigned char *png_buffer(size_t need, size_t *cap)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, kept_init);
    struct kept *k = g_kept_ok ? pthread_getspecific(g_kept_key) : NULL;
    if (k && k->p && k->cap >= need) {
        unsigned char *p = k->p;
        *cap = k->cap;
        k->p = NULL;
        return p;
    }
    *cap = need;
    return malloc(need);
}

/* This thread's slot, made on first use; NULL when none can be. */
static struct kept *kept_slot(void)
{
    struct kept *k = g_kept_ok ? pthread_getspecific(g_kept_key) : NULL;
    if (g_kept_ok && !k && (k = calloc(1, sizeof *k)) && pthread_setspecific(g_kept_key, k) != 0) {
        free(k);
        k = NULL;
    }
    return k;
}

/* Keep p (cap bytes) for this thread's next image, or free it. */
static void png_buffer_done(unsigned char *p, size_t cap)
{
    struct kept *k = p && cap <= PNG_KEEP_MAX ? kept_slot() : NULL;
    if (!k) {
        free(p);
        return;
    }
    free(k->p);     /* none, unless another image of this thread's was open meanwhile */
    k->p = p;
    k->cap = cap;
}

// ---- the header: what kind of mask, or why it is none -----------------------

static const char *colour_type_name(uint8_t t)
{
    switch (t) {
    case SPNG_COLOR_TYPE_TRUECOLOR:       return "RGB";
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: return "RGBA";
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: return "grey with alpha";
    default:                              return "unknown";
    }
}

/* The dtype PIL gives the image's pixels, or -1 with r->err for colour images. */
static int mask_dtype(struct la_reader *r, const struct spng_ihdr *h)
{
    if (h->color_type == SPNG_COLOR_TYPE_INDEXED)
        return LA_DT_UINT8;
    if (h->color_type != SPNG_COLOR_TYPE_GRAYSCALE)
        return la_reader_set_error(r, "the PNG is %u-bit %s: it holds colours, not class "
                                   "indices; a mask stores one class per pixel (grey or palette; convert "
                                   "colours to indices, as Image.quantize or a colour map does)",
                                   h->bit_depth, colour_type_name(h->color_type));
    return h->bit_depth == 16 ? LA_DT_UINT16 : h->bit_depth == 1 ? LA_DT_BOOL : LA_DT_UINT8;
}

static int size_image(struct la_reader *r, struct png_state *st)
{
    const struct spng_ihdr *h = &st->ihdr;
    st->out_elem = h->bit_depth == 16 ? 2 : 1;
    if (spng_decoded_image_size(st->ctx, SPNG_FMT_PNG, &st->row_bytes) != 0)
        return la_reader_set_error(r, "byte %llu: image too large (%u x %u)",
                                   (unsigned long long)la_source_offset(r->src), h->width, h->height);
    st->row_bytes /= h->height;
    if (st->row_bytes > PNG_ROW_MAX || (size_t)h->width * st->out_elem > PNG_ROW_MAX)
        return la_reader_set_error(r, "image too large: %u pixels per row (at most %zu)",
                                   h->width, PNG_ROW_MAX / st->out_elem);
    if (h->interlace_method) {
        if ((uint64_t)h->height * h->width * st->out_elem > PNG_INTERLACED_MAX)
            return la_reader_set_error(r, "interlaced image too large to hold (%u x %u; at most "
                                       "%zu MiB): save it without interlacing", h->width,
                                       h->height, PNG_INTERLACED_MAX >> 20);
        st->band_rows = h->height;
    } else {
        size_t rows = PNG_BAND_BYTES / ((size_t)h->width * st->out_elem);
        st->band_rows = rows == 0 ? 1 : rows > h->height ? h->height : (uint32_t)rows;
    }
    size_t packed = st->band_rows * st->row_bytes;
    size_t values = h->bit_depth >= 8 ? 0 : (size_t)st->band_rows * h->width;
    if (!(st->buf = png_buffer(packed + values, &st->buf_cap)))
        return la_reader_set_error(r, "out of memory");
    st->packed = st->buf;
    st->values = h->bit_depth >= 8 ? st->buf : st->buf + packed;
    return 0;
}

static int png_open(struct la_reader *r)
{
    struct png_state *st = calloc(1, sizeof *st);
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    if (!(st->ctx = spng_ctx_new(0)))
        return la_reader_set_error(r, "out of memory");
    spng_set_chunk_limits(st->ctx, PNG_CHUNK_LIMIT, PNG_CHUNK_LIMIT);
    spng_set_png_stream(st->ctx, pull, r);
    int rc = spng_get_ihdr(st->ctx, &st->ihdr);
    if (rc != 0)
        return png_error(r, rc, "reading the header");
    int dtype = mask_dtype(r, &st->ihdr);
    if (dtype < 0)
        return -1;
    if (size_image(r, st) != 0)
        return -1;
    if ((rc = spng_decode_image(st->ctx, NULL, 0, SPNG_FMT_PNG, SPNG_DECODE_PROGRESSIVE)) != 0)
        return png_error(r, rc, "starting to decode");
    r->info.dtype = (enum la_dtype)dtype;
    r->info.ndim = 2;
    r->info.shape[0] = st->ihdr.height;
    r->info.shape[1] = st->ihdr.width;
    r->info.shape_known = 1;
    r->info.one_sample = 1;
    return 0;
}

// ---- the pixels -------------------------------------------------------------

/* Unpack one row of 1-, 2- or 4-bit pixels into bytes, times scale. */
static void unpack_row(const unsigned char *in, unsigned char *out, uint32_t width,
                       unsigned bits, unsigned scale)
{
    unsigned per_byte = 8 / bits, mask = (1u << bits) - 1;
    for (uint32_t x = 0; x < width; x++) {
        unsigned shift = 8 - bits * (x % per_byte + 1);
        out[x] = (unsigned char)(((in[x / per_byte] >> shift) & mask) * scale);
    }
}

/* PIL's scale for grey of fewer than 8 bits (its "L;2", "L;4" unpackers); 1-bit
 * grey is its mode "1", a bool per pixel, and palette indices are never scaled. */
static unsigned grey_scale(const struct spng_ihdr *h)
{
    if (h->color_type != SPNG_COLOR_TYPE_GRAYSCALE || h->bit_depth == 1)
        return 1;
    return 255u / ((1u << h->bit_depth) - 1);
}

/* The rows of the band just decoded, as values of out_elem bytes each. Rows
 * of 8 and 16 bits are already that (SPNG_FMT_PNG: 16-bit samples in host
 * order; a grey or palette row is width samples), in place. */
static void unpack_band(struct png_state *st, uint32_t rows)
{
    const struct spng_ihdr *h = &st->ihdr;
    if (h->bit_depth >= 8)
        return;
    for (uint32_t y = 0; y < rows; y++)
        unpack_row(st->packed + (size_t)y * st->row_bytes, st->values + (size_t)y * h->width,
                   h->width, h->bit_depth, grey_scale(h));
}

/* Decode rows [first, first + rows) into packed[]; an interlaced image comes
 * in passes that revisit every row, so its band is the whole image. */
static int decode_band(struct la_reader *r, struct png_state *st, uint32_t first, uint32_t rows)
{
    for (;;) {
        struct spng_row_info info;
        int rc = spng_get_row_info(st->ctx, &info);
        if (rc == SPNG_EOI)
            return 0;
        if (rc == 0 && (info.row_num < first || info.row_num - first >= rows))
            return 0;   /* the next row belongs to the next band */
        if (rc == 0)
            rc = spng_decode_row(st->ctx, st->packed + (size_t)(info.row_num - first) * st->row_bytes,
                                 st->row_bytes);
        if (rc == SPNG_EOI)
            return 0;
        if (rc != 0)
            return png_error(r, rc, "decoding the pixels");
    }
}

static int png_next(struct la_reader *r, struct la_chunk *out)
{
    struct png_state *st = r->state;
    const struct spng_ihdr *h = &st->ihdr;
    if (st->next_row >= h->height)
        return 0;
    uint32_t first = st->next_row;
    uint32_t rows = h->height - first < st->band_rows ? h->height - first : st->band_rows;
    if (decode_band(r, st, first, rows) != 0)
        return -1;
    unpack_band(st, rows);
    st->next_row += rows;
    *out = (struct la_chunk){ r->info.dtype, st->values, (size_t)rows * h->width,
                              (uint64_t)first * h->width, NULL };
    return 1;
}

static void png_close(struct la_reader *r)
{
    struct png_state *st = r->state;
    if (!st)
        return;
    spng_ctx_free(st->ctx);
    png_buffer_done(st->buf, st->buf_cap);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_png = { .open = png_open, .next = png_next,
                                             .close = png_close };
