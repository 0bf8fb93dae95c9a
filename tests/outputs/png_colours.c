/* png_colours.c - what html.sh asks of a browser's screenshot: for each
 * colour given (RRGGBB hex), how many pixels have it (each channel within 8,
 * for the browser's rounding) and the box they cover:
 *     png_colours shot.png 33aa77 dd00dd
 *     33aa77 12045 81 1002 33 260
 * (count, x min, x max, y min, y max; "-1" for none), then the bars: the
 * runs of the colour along its lowest row (a chart's bars stand on one
 * axis), each as "x:height" (the height counted up from that row at the
 * run's middle):
 *     bars 3 108:220 400:12 700:90
 * A check program: it decodes with libspng, as labelaudit's PNG reader does. */
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>

static int near(int a, int b) { return a - b <= 8 && b - a <= 8; }

static int is(const unsigned char *px, uint32_t w, uint32_t x, uint32_t y, unsigned want)
{
    const unsigned char *p = px + ((size_t)y * w + x) * 4;
    return near(p[0], want >> 16 & 255) && near(p[1], want >> 8 & 255) && near(p[2], want & 255);
}

/* The runs along row y, and each one's height at its middle. */
static void bars(const unsigned char *px, uint32_t w, long y, unsigned want)
{
    long runs = 0;
    char text[8192];
    size_t used = 0;
    for (uint32_t x = 0; y >= 0 && x < w; x++) {
        if (!is(px, w, x, (uint32_t)y, want) || (x > 0 && is(px, w, x - 1, (uint32_t)y, want)))
            continue;
        uint32_t end = x;
        while (end + 1 < w && is(px, w, end + 1, (uint32_t)y, want))
            end++;
        uint32_t mid = (x + end) / 2;
        long h = 0;
        while (y - h >= 0 && is(px, w, mid, (uint32_t)(y - h), want))
            h++;
        runs++;
        if (used < sizeof text)
            used += (size_t)snprintf(text + used, sizeof text - used, " %u:%ld", mid, h);
    }
    printf("bars %ld%s\n", runs, used ? text : "");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: png_colours FILE.png RRGGBB...\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    spng_ctx *ctx = spng_ctx_new(0);
    struct spng_ihdr ihdr;
    size_t len;
    unsigned char *px = NULL;
    if (!f || !ctx || spng_set_png_file(ctx, f) || spng_get_ihdr(ctx, &ihdr) ||
        spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &len) || !(px = malloc(len)) ||
        spng_decode_image(ctx, px, len, SPNG_FMT_RGBA8, 0)) {
        fprintf(stderr, "png_colours: %s: cannot decode\n", argv[1]);
        return 1;
    }
    for (int a = 2; a < argc; a++) {
        unsigned want = (unsigned)strtoul(argv[a], NULL, 16);
        long count = 0, x0 = -1, x1 = -1, y0 = -1, y1 = -1;
        for (uint32_t y = 0; y < ihdr.height; y++)
            for (uint32_t x = 0; x < ihdr.width; x++) {
                if (!is(px, ihdr.width, x, y, want))
                    continue;
                if (count++ == 0)
                    x0 = x1 = x, y0 = y1 = y;
                x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
            }
        printf("%s %ld %ld %ld %ld %ld\n", argv[a], count, x0, x1, y0, y1);
        bars(px, ihdr.width, y1, want);
    }
    free(px);
    spng_ctx_free(ctx);
    fclose(f);
    return 0;
}
