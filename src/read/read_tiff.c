/* read_tiff.c - masks stored as TIFF images (microscopy, remote sensing), through libtiff.
 *
 * The first page (directory) is one sample of H x W values: one channel of
 * 8, 16, 32 or 64-bit integers or 16, 32 or 64-bit floats, as tifffile and
 * PIL give them, in strips or in tiles, with any compression libtiff decodes.
 * Images with several channels per pixel (RGB) are refused: they hold colours,
 * not class indices.
 *
 * A TIFF's directory and data may lie anywhere in the file, so libtiff seeks:
 * the reader reads regular files only, through their descriptor, and refuses
 * standard input and compressed input by name (decompress to a file first).
 * Memory stays bounded: libtiff's own allocations are capped, and the values
 * come a band of rows (strips) or one row of tiles at a time. */
#include "reader.h"

#include <stdarg.h>  /* va_list */
#include <stdio.h>   /* vsnprintf */
#include <stdlib.h>  /* malloc, free */
#include <string.h>  /* memcpy, strlen, strncmp */
#include <tiffio.h>
#include <sys/stat.h> /* fstat */

#include "util.h"    /* la_pread_full */

#define TIFF_BAND_BYTES ((size_t)1 << 20)      /* values per chunk, about */
#define TIFF_ALLOC_MAX ((tmsize_t)64 << 20)    /* libtiff's largest single allocation */
#define TIFF_TILE_ROW_MAX ((uint64_t)64 << 20)  /* one row of tiles, decoded */
/* libtiff fills a strip or tile stored with no bytes with zeros (sparse
 * files), so a 1 KB file may claim gigabytes of pixels: the decoded image may
 * be at most this many times the file, plus TIFF_FREE_BYTES (zstd packs a
 * blank mask about that well; deflate cannot pass 1032). */
#define TIFF_MAX_RATIO 4096
#define TIFF_FREE_BYTES ((uint64_t)64 << 20)

struct tiff_state {
    TIFF *tif;
    uint32_t width, height;
    size_t elem;              /* bytes per value */
    int tiled;
    uint32_t tile_w, tile_h;
    uint32_t band_rows;       /* rows per chunk: a few strips' rows, or one row of tiles */
    unsigned char *values;    /* band_rows * width values */
    unsigned char *tile;      /* one decoded tile */
    uint32_t next_row;
    char lib_err[LA_ERR_LEN]; /* libtiff's first error message for this file */
    struct tiff_io {          /* libtiff's I/O: the source's descriptor, our own offset */
        int fd;
        uint64_t off;
    } io;
};

/* libtiff's errors go here, not to stderr: the first one explains the failure. */
static int on_tiff_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    struct tiff_state *st = user;
    if (!st->lib_err[0])
        vsnprintf(st->lib_err, sizeof st->lib_err, fmt, ap);
    return 1;
}

static int on_tiff_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    return 1;   /* unknown tags and the like: not the labels' business */
}

/* libtiff's reason, without the file name it starts some messages with
 * (ours already leads the line). */
static const char *lib_reason(struct la_reader *r)
{
    struct tiff_state *st = r->state;
    const char *path = la_source_path(r->src);
    size_t n = strlen(path);
    if (!st->lib_err[0])
        return "libtiff gave no reason";
    if (strncmp(st->lib_err, path, n) == 0 && strncmp(st->lib_err + n, ": ", 2) == 0)
        return st->lib_err + n + 2;
    return st->lib_err;
}

static int tiff_error(struct la_reader *r, const char *doing)
{
    return la_reader_set_error(r, "not a valid TIFF while %s: %s", doing, lib_reason(r));
}

/* The dtype of one-channel samples of this format and width, or -1. */
static int sample_dtype(uint16_t format, uint16_t bits)
{
    static const int ints[4] = { LA_DT_INT8, LA_DT_INT16, LA_DT_INT32, LA_DT_INT64 };
    static const int uints[4] = { LA_DT_UINT8, LA_DT_UINT16, LA_DT_UINT32, LA_DT_UINT64 };
    static const int floats[4] = { -1, LA_DT_FLOAT16, LA_DT_FLOAT32, LA_DT_FLOAT64 };
    int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : -1;
    if (k < 0)
        return -1;
    switch (format) {
    case SAMPLEFORMAT_UINT:   return uints[k];
    case SAMPLEFORMAT_INT:    return ints[k];
    case SAMPLEFORMAT_IEEEFP: return floats[k];
    default:                  return -1;
    }
}

/* libtiff's I/O on the source's descriptor, with an offset of its own
 * (pread), so the source's position does not matter. */
static tmsize_t io_read(thandle_t h, void *buf, tmsize_t n)
{
    struct tiff_io *io = (struct tiff_io *)h;
    tmsize_t got = n > 0 ? (tmsize_t)la_pread_full(io->fd, buf, (size_t)n, io->off) : 0;
    io->off += (uint64_t)got;
    return got;
}

static tmsize_t io_write(thandle_t h, void *buf, tmsize_t n) { return -1; }

static toff_t io_seek(thandle_t h, toff_t off, int whence)
{
    struct tiff_io *io = (struct tiff_io *)h;
    struct stat st;
    if (whence == SEEK_SET)
        io->off = off;
    else if (whence == SEEK_CUR)
        io->off += off;
    else if (whence == SEEK_END && fstat(io->fd, &st) == 0)
        io->off = (uint64_t)st.st_size + off;
    else
        return (toff_t)-1;
    return io->off;
}

static int io_close(thandle_t h) { return 0; }   /* the source owns the descriptor */

static toff_t io_size(thandle_t h)
{
    struct stat st;
    return fstat(((struct tiff_io *)h)->fd, &st) == 0 ? (toff_t)st.st_size : 0;
}

/* Never map: a file cut short under a mapping would be SIGBUS. */
static int io_map(thandle_t h, void **base, toff_t *size) { return 0; }
static void io_unmap(thandle_t h, void *base, toff_t size) {}

static int open_tiff(struct la_reader *r, struct tiff_state *st)
{
    st->io.fd = la_source_plain_fd(r->src);
    if (st->io.fd < 0)
        return la_reader_set_error(r, "TIFF is read from a regular file only (libtiff seeks in "
                                   "it): not from standard input or compressed input; "
                                   "decompress it to a file first");
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o)
        return la_reader_set_error(r, "out of memory");
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, TIFF_ALLOC_MAX);
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_tiff_error, st);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_tiff_warning, st);
    st->tif = TIFFClientOpenExt(la_source_path(r->src), "rm", (thandle_t)&st->io, io_read,
                                io_write, io_seek, io_close, io_size, io_map, io_unmap, o);
    TIFFOpenOptionsFree(o);
    if (!st->tif)
        return tiff_error(r, "reading the header");
    return 0;
}

/* The one channel's dtype from the first directory, or -1 with r->err. */
static int read_layout(struct la_reader *r, struct tiff_state *st)
{
    uint16_t spp = 1, bits = 1, format = SAMPLEFORMAT_UINT;
    TIFFGetFieldDefaulted(st->tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(st->tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(st->tif, TIFFTAG_SAMPLEFORMAT, &format);
    if (!TIFFGetField(st->tif, TIFFTAG_IMAGEWIDTH, &st->width) ||
        !TIFFGetField(st->tif, TIFFTAG_IMAGELENGTH, &st->height))
        return tiff_error(r, "reading the image size");
    if (spp != 1)
        return la_reader_set_error(r, "the TIFF holds %u channels per pixel (colours?), not "
                                   "class indices: a mask has one channel", spp);
    int dtype = sample_dtype(format, bits);
    if (dtype < 0)
        return la_reader_set_error(r, "the TIFF's %u-bit %s samples are not read: a mask holds "
                                   "8, 16, 32 or 64-bit integers or floats", bits,
                                   format == SAMPLEFORMAT_IEEEFP ? "float" : format == SAMPLEFORMAT_INT
                                   ? "signed" : format == SAMPLEFORMAT_UINT ? "unsigned" : "complex or void");
    st->elem = bits / 8;
    return dtype;
}

/* Refuse an image that claims far more pixels than its file could hold. */
static int check_claim(struct la_reader *r, const struct tiff_state *st)
{
    struct stat sb;
    uint64_t bytes = (uint64_t)st->width * st->height * st->elem;
    if (fstat(st->io.fd, &sb) != 0 || bytes <= TIFF_FREE_BYTES ||
        bytes / TIFF_MAX_RATIO <= (uint64_t)sb.st_size)
        return 0;
    return la_reader_set_error(r, "the TIFF claims %u x %u pixels (%llu MiB) in %llu bytes: a "
                               "sparse or lying file (at most %u times its size are decoded)",
                               st->width, st->height, (unsigned long long)(bytes >> 20),
                               (unsigned long long)sb.st_size, TIFF_MAX_RATIO);
}

/* Band and buffers: whole strips' rows, or one row of tiles. @return 0 or -1. */
static int plan_bands(struct la_reader *r, struct tiff_state *st)
{
    uint64_t row_bytes = (uint64_t)st->width * st->elem;
    st->tiled = TIFFIsTiled(st->tif);
    if (st->tiled) {
        if (!TIFFGetField(st->tif, TIFFTAG_TILEWIDTH, &st->tile_w) ||
            !TIFFGetField(st->tif, TIFFTAG_TILELENGTH, &st->tile_h) || !st->tile_w || !st->tile_h)
            return tiff_error(r, "reading the tile size");
        uint64_t padded = ((uint64_t)st->width + st->tile_w - 1) / st->tile_w * st->tile_w;
        if (padded * st->elem * st->tile_h > TIFF_TILE_ROW_MAX)
            return la_reader_set_error(r, "a row of %u x %u tiles across %u pixels is too large "
                                       "to decode (at most %llu MiB)", st->tile_w, st->tile_h,
                                       st->width, (unsigned long long)(TIFF_TILE_ROW_MAX >> 20));
        st->band_rows = st->tile_h;
        tmsize_t tile_size = TIFFTileSize(st->tif);
        if (tile_size <= 0 || !(st->tile = malloc((size_t)tile_size)))
            return la_reader_set_error(r, "out of memory for a %u x %u tile", st->tile_w, st->tile_h);
    } else {
        if (row_bytes > TIFF_TILE_ROW_MAX || TIFFScanlineSize64(st->tif) != row_bytes)
            return la_reader_set_error(r, "image too large, or rows of an unexpected size "
                                       "(%u pixels of %zu bytes)", st->width, st->elem);
        uint64_t rows = TIFF_BAND_BYTES / (row_bytes ? row_bytes : 1);
        st->band_rows = rows == 0 ? 1 : rows > st->height ? st->height : (uint32_t)rows;
    }
    if (st->band_rows > st->height)
        st->band_rows = st->height;
    if (st->height && !(st->values = malloc((size_t)st->band_rows * (size_t)row_bytes)))
        return la_reader_set_error(r, "out of memory");
    return 0;
}

static int tiff_open(struct la_reader *r)
{
    struct tiff_state *st = calloc(1, sizeof *st);
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    if (open_tiff(r, st) != 0)
        return -1;
    int dtype = read_layout(r, st);
    if (dtype < 0 || check_claim(r, st) != 0 || plan_bands(r, st) != 0)
        return -1;
    r->info.dtype = (enum la_dtype)dtype;
    r->info.ndim = 2;
    r->info.shape[0] = st->height;
    r->info.shape[1] = st->width;
    r->info.shape_known = 1;
    r->info.one_sample = 1;
    return 0;
}

static int read_strip_rows(struct la_reader *r, struct tiff_state *st, uint32_t first, uint32_t rows)
{
    size_t row_bytes = (size_t)st->width * st->elem;
    for (uint32_t y = 0; y < rows; y++)
        if (TIFFReadScanline(st->tif, st->values + y * row_bytes, first + y, 0) < 0)
            return la_reader_set_error(r, "row %u: cannot decode the strip: %s", first + y,
                                       lib_reason(r));
    return 0;
}

/* One row of tiles, copied into values[] without the tiles' padding. */
static int read_tile_row(struct la_reader *r, struct tiff_state *st, uint32_t first, uint32_t rows)
{
    size_t row_bytes = (size_t)st->width * st->elem, tile_row = (size_t)st->tile_w * st->elem;
    for (uint32_t x = 0; x < st->width; x += st->tile_w) {
        if (TIFFReadTile(st->tif, st->tile, x, first, 0, 0) < 0)
            return la_reader_set_error(r, "tile at row %u, column %u: cannot decode it: %s", first,
                                       x, lib_reason(r));
        uint32_t cols = st->width - x < st->tile_w ? st->width - x : st->tile_w;
        for (uint32_t y = 0; y < rows; y++)
            memcpy(st->values + y * row_bytes + (size_t)x * st->elem, st->tile + y * tile_row,
                   (size_t)cols * st->elem);
    }
    return 0;
}

static int tiff_next(struct la_reader *r, struct la_chunk *out)
{
    struct tiff_state *st = r->state;
    if (st->next_row >= st->height || st->width == 0)
        return 0;
    uint32_t first = st->next_row;
    uint32_t rows = st->height - first < st->band_rows ? st->height - first : st->band_rows;
    int rc = st->tiled ? read_tile_row(r, st, first, rows) : read_strip_rows(r, st, first, rows);
    if (rc != 0)
        return -1;
    st->next_row += rows;
    *out = (struct la_chunk){ r->info.dtype, st->values, (size_t)rows * st->width,
                              (uint64_t)first * st->width, NULL };
    return 1;
}

static void tiff_close(struct la_reader *r)
{
    struct tiff_state *st = r->state;
    if (!st)
        return;
    if (st->tif)
        TIFFClose(st->tif);
    free(st->values);
    free(st->tile);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_tiff = { .open = tiff_open, .next = tiff_next,
                                              .close = tiff_close };
