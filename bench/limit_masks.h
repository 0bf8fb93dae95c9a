/* limit_masks.h - limit.c's folders of masks, included by it when
 * built with -DLIMIT_MASKS: the decode-and-count loop labelaudit's PNG and
 * NIfTI readers are measured against, with the same libraries (libspng, and
 * libpng to show what the other decoder gives; zlib for .nii.gz), on the same
 * threads, one file per thread at a time. Only what the benchmark's files
 * hold: 8-bit grey or palette PNGs, uint8 volumes. */
#include <png.h>
#include <spng.h>
#include <stdatomic.h>

/* The files, and the index of the next one a thread takes. */
static struct {
    const char *kind;
    char **paths;
    size_t n;
    atomic_size_t next;
} g_masks;

static int is_mask_kind(const char *k)
{
    return strcmp(k, "spng") == 0 || strcmp(k, "spng-decode") == 0 || strcmp(k, "libpng") == 0 ||
           strcmp(k, "niigz") == 0;
}

static int spng_pull(spng_ctx *ctx, void *user, void *dst, size_t n)
{
    (void)ctx;
    return fread(dst, 1, n, user) == n ? 0 : SPNG_IO_EOF;
}

/* Decode every row with libspng and count it (spng-decode: decode only, the
 * library's own limit). */
static void count_spng(struct job *j, FILE *f, unsigned char *row, int count)
{
    spng_ctx *ctx = spng_ctx_new(0);
    struct spng_ihdr h;
    size_t len;
    spng_set_png_stream(ctx, spng_pull, f);
    if (spng_get_ihdr(ctx, &h) == 0 && spng_decoded_image_size(ctx, SPNG_FMT_PNG, &len) == 0 &&
        len / h.height <= BUF && spng_decode_image(ctx, NULL, 0, SPNG_FMT_PNG,
                                                   SPNG_DECODE_PROGRESSIVE) == 0) {
        int rc;
        do {
            rc = spng_decode_row(ctx, row, len / h.height);
            if (count && (rc == 0 || rc == SPNG_EOI))
                count_block(j, row, len / h.height);
        } while (rc == 0);
    }
    spng_ctx_free(ctx);
}

static void count_libpng(struct job *j, FILE *f, unsigned char *row)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f);
        png_read_info(png, info);
        png_uint_32 height = png_get_image_height(png, info);
        size_t width = png_get_rowbytes(png, info);
        for (png_uint_32 y = 0; y < height && width <= BUF; y++) {
            png_read_row(png, row, NULL);
            count_block(j, row, width);
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
}

static void count_niigz(struct job *j, const char *path, unsigned char *buf)
{
    gzFile z = gzopen(path, "rb");
    unsigned char hdr[352];
    if (z && gzread(z, hdr, sizeof hdr) == (int)sizeof hdr) {
        float off;
        memcpy(&off, hdr + 108, 4);
        for (long skip = (long)off - (long)sizeof hdr; skip > 0; skip -= BUF)
            gzread(z, buf, skip < (long)BUF ? (unsigned)skip : BUF);
        int n;
        while ((n = gzread(z, buf, BUF)) > 0)
            count_block(j, buf, (size_t)n);
    }
    if (z)
        gzclose(z);
}

static void *mask_thread(void *arg)
{
    struct job *j = arg;
    unsigned char *buf = malloc(BUF);
    for (size_t i; (i = atomic_fetch_add(&g_masks.next, 1)) < g_masks.n;) {
        if (strcmp(g_masks.kind, "niigz") == 0) {
            count_niigz(j, g_masks.paths[i], buf);
            continue;
        }
        FILE *f = fopen(g_masks.paths[i], "rb");
        if (!f)
            continue;
        if (strncmp(g_masks.kind, "spng", 4) == 0)
            count_spng(j, f, buf, strcmp(g_masks.kind, "spng") == 0);
        else
            count_libpng(j, f, buf);
        fclose(f);
    }
    free(buf);
    return NULL;
}

static int run_masks(const char *kind, const char *list, uint64_t classes, int threads)
{
    static char line[4096];
    FILE *f = fopen(list, "r");
    if (!f || classes > MAX_CLASSES || threads < 1 || threads > MAX_THREADS)
        return 2;
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (g_masks.n == cap &&
            !(g_masks.paths = realloc(g_masks.paths, (cap = cap ? cap * 2 : 256) * sizeof(char *))))
            return 2;
        g_masks.paths[g_masks.n++] = strdup(line);
    }
    fclose(f);
    g_masks.kind = kind;
    static struct job jobs[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        jobs[t].classes = classes;
        jobs[t].kind = "uint8";      /* count_block's element type */
        pthread_create(&tids[t], NULL, mask_thread, &jobs[t]);
    }
    uint64_t bad = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tids[t], NULL);
        bad += jobs[t].bad;
    }
    if (strcmp(kind, "spng-decode") == 0)
        printf("-\n");          /* decoded, not counted */
    else
        printf("%llu\n", (unsigned long long)bad);
    return 0;
}
