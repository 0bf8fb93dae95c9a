/* image_size.c - see image_size.h. */
#include "image_size.h"
#include "config.h"   /* HAVE_SPNG, HAVE_JPEG, HAVE_TIFF, HAVE_WEBP */

#include <setjmp.h>   /* jmp_buf: libjpeg's errors */
#include <stdio.h>    /* fopen, fread */
#include <string.h>   /* memcmp */
#include <strings.h>  /* strcasecmp */

#ifdef HAVE_SPNG
#include <spng.h>
#endif
#ifdef HAVE_JPEG
#include <jpeglib.h>
#endif
#ifdef HAVE_TIFF
#include <tiffio.h>
#endif
#ifdef HAVE_WEBP
#include <webp/decode.h>
#endif

/* The first bytes of the file, read at once: they tell the format and hold
 * the header of nearly every image (a JPEG's frame header may follow more
 * than this of EXIF and ICC data: then libjpeg reads on from the file). */
#define HEAD (64 * 1024)

int la_image_name(const char *name)
{
    static const char *const exts[] = { ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp",
                                        ".bmp", NULL };
    const char *dot = strrchr(name, '.');
    for (const char *const *e = exts; dot && *e; e++)
        if (strcasecmp(dot, *e) == 0)
            return 1;
    return 0;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* BMP: the DIB header after the 14-byte file header; a negative height is
 * a top-down bitmap, which PIL reports as its absolute value. */
static int bmp_size(const unsigned char *h, size_t n, struct la_image_size *s, char *err,
                    size_t errlen)
{
    if (n < 26) {
        snprintf(err, errlen, "a BMP cut short in its header");
        return -1;
    }
    uint32_t dib = le32(h + 14);
    if (dib == 12) {                    /* BITMAPCOREHEADER: 16-bit sizes */
        s->width = (uint64_t)(h[18] | h[19] << 8);
        s->height = (uint64_t)(h[20] | h[21] << 8);
    } else if (dib >= 40 && dib <= 124) {
        int32_t w = (int32_t)le32(h + 18), hh = (int32_t)le32(h + 22);
        s->width = (uint64_t)(w < 0 ? -(int64_t)w : w);
        s->height = (uint64_t)(hh < 0 ? -(int64_t)hh : hh);
    } else {
        snprintf(err, errlen, "a BMP with an unknown header size %u", (unsigned)dib);
        return -1;
    }
    s->format = "bmp";
    return 0;
}

#ifdef HAVE_SPNG
static int png_size(const unsigned char *h, size_t n, struct la_image_size *s, char *err,
                    size_t errlen)
{
    spng_ctx *ctx = spng_ctx_new(0);
    struct spng_ihdr ihdr;
    int rc = ctx ? spng_set_png_buffer(ctx, h, n) : SPNG_EMEM;
    if (rc == 0)
        rc = spng_get_ihdr(ctx, &ihdr);
    spng_ctx_free(ctx);
    if (rc != 0) {
        snprintf(err, errlen, "PNG header: %s", spng_strerror(rc));
        return -1;
    }
    s->width = ihdr.width;
    s->height = ihdr.height;
    s->format = "png";
    return 0;
}
#endif

#ifdef HAVE_JPEG
/* libjpeg's default error handler exits the process: this one jumps back. */
struct jpeg_err {
    struct jpeg_error_mgr mgr;
    jmp_buf back;
    char msg[JMSG_LENGTH_MAX];
};

static void jpeg_fail(j_common_ptr c)
{
    struct jpeg_err *e = (struct jpeg_err *)c->err;
    (*c->err->format_message)(c, e->msg);
    longjmp(e->back, 1);
}

static void jpeg_quiet(j_common_ptr c, int level)
{
    (void)c, (void)level;       /* warnings (a corrupt marker) change no size */
}

/* From the first bytes h[0..n), or where f is not NULL from the file. */
static int jpeg_size(const unsigned char *h, size_t n, FILE *f, struct la_image_size *s,
                     char *err, size_t errlen)
{
    struct jpeg_decompress_struct c;
    struct jpeg_err e;
    c.err = jpeg_std_error(&e.mgr);
    e.mgr.error_exit = jpeg_fail;
    e.mgr.emit_message = jpeg_quiet;
    if (setjmp(e.back)) {
        jpeg_destroy_decompress(&c);
        snprintf(err, errlen, "JPEG header: %s", e.msg);
        return -1;
    }
    jpeg_create_decompress(&c);
    if (f)
        jpeg_stdio_src(&c, f);
    else
        jpeg_mem_src(&c, h, (unsigned long)n);
    jpeg_read_header(&c, TRUE);         /* up to the frame header: no pixel */
    s->width = c.image_width;
    s->height = c.image_height;
    s->format = "jpeg";
    jpeg_destroy_decompress(&c);
    return 0;
}
#endif

#ifdef HAVE_TIFF
static int tiff_error(TIFF *t, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)t, (void)module;
    char *msg = user;
    if (!msg[0])
        vsnprintf(msg, 256, fmt, ap);
    return 1;
}

static int tiff_warning(TIFF *t, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)t, (void)user, (void)module, (void)fmt, (void)ap;
    return 1;                   /* an unknown tag: no change to the size */
}

static int tiff_size(const char *path, struct la_image_size *s, char *err, size_t errlen)
{
    char msg[256] = "";
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(o, tiff_error, msg);
    TIFFOpenOptionsSetWarningHandlerExtR(o, tiff_warning, NULL);
    TIFF *t = TIFFOpenExt(path, "rm", o);   /* "m": read, not mapped */
    TIFFOpenOptionsFree(o);
    uint32_t w = 0, h = 0;
    int ok = t && TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w) == 1 &&
             TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h) == 1;
    if (t)
        TIFFClose(t);
    if (!ok) {
        snprintf(err, errlen, "TIFF header: %s", msg[0] ? msg : "no image width and length");
        return -1;
    }
    s->width = w;
    s->height = h;
    s->format = "tiff";
    return 0;
}
#endif

#ifdef HAVE_WEBP
static int webp_size(const unsigned char *h, size_t n, struct la_image_size *s, char *err,
                     size_t errlen)
{
    int w, hh;
    if (!WebPGetInfo(h, n, &w, &hh)) {
        snprintf(err, errlen, "WebP header: not a WebP image libwebp reads");
        return -1;
    }
    s->width = (uint64_t)w;
    s->height = (uint64_t)hh;
    s->format = "webp";
    return 0;
}
#endif

/* The format its first bytes say, read by its library (f at its start). */
static int size_of(FILE *f, const char *path, const unsigned char *h, size_t n,
                   struct la_image_size *s, char *err, size_t errlen)
{
    (void)f, (void)path;
    const char *missing = NULL;
    if (n >= 8 && memcmp(h, "\x89PNG\r\n\x1a\n", 8) == 0) {
#ifdef HAVE_SPNG
        return png_size(h, n, s, err, errlen);
#else
        missing = "PNG (libspng)";
#endif
    } else if (n >= 3 && h[0] == 0xff && h[1] == 0xd8 && h[2] == 0xff) {
#ifdef HAVE_JPEG
        int rc = jpeg_size(h, n, NULL, s, err, errlen);
        if (rc == 0 || n < HEAD)
            return rc;
        rewind(f);              /* the frame header past the first bytes: read on */
        return jpeg_size(h, n, f, s, err, errlen);
#else
        missing = "JPEG (libjpeg-turbo)";
#endif
    } else if (n >= 4 && (memcmp(h, "II*\0", 4) == 0 || memcmp(h, "MM\0*", 4) == 0)) {
#ifdef HAVE_TIFF
        return tiff_size(path, s, err, errlen);
#else
        missing = "TIFF (libtiff)";
#endif
    } else if (n >= 12 && memcmp(h, "RIFF", 4) == 0 && memcmp(h + 8, "WEBP", 4) == 0) {
#ifdef HAVE_WEBP
        return webp_size(h, n, s, err, errlen);
#else
        missing = "WebP (libwebp)";
#endif
    } else if (n >= 2 && h[0] == 'B' && h[1] == 'M') {
        return bmp_size(h, n, s, err, errlen);
    } else {
        snprintf(err, errlen, "not an image labelaudit reads the size of (PNG, JPEG, TIFF, "
                 "WebP, BMP)");
        return -1;
    }
    snprintf(err, errlen, "this build reads no %s image header", missing);
    return -2;
}

int la_image_size(const char *path, struct la_image_size *s, char *err, size_t errlen)
{
    *s = (struct la_image_size){ 0 };
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open");
        return -1;
    }
    static _Thread_local unsigned char h[HEAD];
    size_t n = fread(h, 1, sizeof h, f);
    int rc = size_of(f, path, h, n, s, err, errlen);
    long at = ftell(f);
    s->bytes_read = at > (long)n ? (uint64_t)at : n;
    fclose(f);
    if (rc == 0 && (s->width == 0 || s->height == 0)) {
        snprintf(err, errlen, "%s header: a size of %llu x %llu", s->format,
                 (unsigned long long)s->width, (unsigned long long)s->height);
        return -1;
    }
    return rc;
}
