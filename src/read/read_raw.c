/* read_raw.c - headerless binary arrays: --dtype and --endian say what they hold. */
#include "reader.h"
#include "util.h"   /* la_name_ends_in */

#include <stdio.h>  /* fopen, fread */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy */

#define RAW_CHUNK_BYTES (4u << 20)

struct raw_state {
    unsigned char *buf;
    size_t elem;
    int swap;
    uint64_t next_index;
};

/* Whether path is PREFIX.bin with a Megatron index PREFIX.idx beside it. */
static int megatron_bin(const char *path)
{
    char idx[4096];
    size_t n = path ? strlen(path) : 0;
    if (n < 5 || n >= sizeof idx || !la_name_ends_in(path, ".bin"))
        return 0;
    memcpy(idx, path, n - 4);
    memcpy(idx + n - 4, ".idx", 5);
    FILE *f = fopen(idx, "rb");
    unsigned char head[16];
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return la_megatron_magic(head, got);
}

static int raw_open(struct la_reader *r)
{
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    if (!o->has_dtype && megatron_bin(r->path))
        return la_reader_set_error(r, "the tokens of a Megatron dataset (its .idx is beside "
                                   "it): --format=megatron reads them with their index");
    if (!o->has_dtype)
        return la_reader_set_error(r, "raw input needs --dtype (int8 ... float64, bool)");
    struct raw_state *t = calloc(1, sizeof *t);
    if (!t || !(t->buf = malloc(RAW_CHUNK_BYTES))) {
        free(t);
        return la_reader_set_error(r, "out of memory");
    }
    r->state = t;
    r->info.dtype = o->dtype;
    r->info.ndim = 1;
    t->elem = la_dtype_info(r->info.dtype)->size;
    t->swap = t->elem > 1 && o->big_endian != la_host_is_big_endian();
    int64_t size = la_source_size(r->src);
    if (size >= 0) {
        if ((uint64_t)size % t->elem != 0)
            return la_reader_set_error(r, "byte %llu: size is not a multiple of %zu (%s)",
                                       (unsigned long long)size, t->elem,
                                       la_dtype_info(r->info.dtype)->name);
        r->info.shape[0] = (uint64_t)size / t->elem;
        r->info.shape_known = 1;
    }
    int fd = la_source_plain_fd(r->src);
    if (fd >= 0 && !t->swap && r->info.dtype != LA_DT_BOOL) {
        r->has_run = 1;
        r->run = (struct la_file_run){ fd, 0, r->info.shape[0], r->info.dtype };
    }
    return 0;
}

static int raw_next(struct la_reader *r, struct la_chunk *out)
{
    struct raw_state *t = r->state;
    size_t want = RAW_CHUNK_BYTES / t->elem * t->elem;
    ssize_t got = la_source_read_full(r->src, t->buf, want);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    if (got == 0)
        return 0;
    if ((size_t)got % t->elem != 0)
        return la_reader_set_error(r, "byte %llu: input ends inside a %zu-byte %s value",
                                   (unsigned long long)la_source_offset(r->src), t->elem,
                                   la_dtype_info(r->info.dtype)->name);
    size_t count = (size_t)got / t->elem;
    if (t->swap)
        la_byteswap(t->buf, count, (unsigned)t->elem);
    *out = (struct la_chunk){ r->info.dtype, t->buf, count, t->next_index, NULL };
    t->next_index += count;
    return 1;
}

static void raw_close(struct la_reader *r)
{
    struct raw_state *t = r->state;
    if (t)
        free(t->buf);
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_raw = { raw_open, raw_next, raw_close };
