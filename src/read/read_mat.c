/* read_mat.c - one variable of a MATLAB .mat file (v5, compressed v7, and
 * v7.3, which is HDF5 inside), through libmatio and libhdf5.
 *
 * --array names the variable; without it the file's only numeric variable is
 * read, else the first of labels, label, y, targets. A 1xN or Nx1 vector is N
 * samples (Flowers-102's imagelabels.mat, SVHN's y). MATLAB stores arrays
 * column-major; the values are reported in C order, with C-order indices, as
 * for a Fortran-order .npy: a vector is read in bounded linear pieces, any
 * other array is read whole (at most MAT_REORDER_MAX bytes) and gathered.
 *
 * A compressed (v7) variable is inflated here, once (see struct mat_z). A
 * v7.3 file is HDF5 with a 512-byte user block: it is read with libhdf5 and
 * the HDF5 reader (see v73_open), whoever wrote it; libmatio only when built
 * without libhdf5.
 *
 * libmatio opens files by name and seeks in them: standard input and
 * compressed input are refused by name (decompress to a file first). */
#include "config.h"  /* HAVE_HDF5 */
#include "msg.h"     /* la_verbose */
#include "reader.h"
#include "util.h"    /* la_pread_full */

#include <matio.h>
#if HAVE_HDF5
#include <hdf5.h>   /* v7.3: the variables and their MATLAB_class */
#endif
#include <pthread.h> /* pthread_once: libmatio's log function is set once */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, malloc, free */
#include <string.h> /* memcpy, strcmp */
#include <sys/stat.h> /* fstat */
#include <unistd.h> /* pread */
#include <math.h>   /* round: a stored float into an integer class */
#include <zlib.h>   /* inflate: compressed variables */

#define MAT_CHUNK (1u << 20)
#define MAT_REORDER_MAX ((uint64_t)256 << 20)

struct mat_state {
    mat_t *mat;
    matvar_t *var;
    enum la_dtype dtype;
    unsigned esize;
    int ndim;
    uint64_t dims[LA_MAX_DIMS];   /* MATLAB's, rows first */
    int vector;                   /* at most one dimension over 1: linear order is C order */
    uint64_t count, done;
    unsigned char *buf;           /* one chunk */
    unsigned char *all;           /* a matrix, column-major, whole */
    uint64_t cidx[LA_MAX_DIMS];   /* gathering: the next C-order multi-index */
    int var_k;                    /* the variable's place among libmatio's */
    int own;                      /* its header read here, not by libmatio (own_describe) */
    int matio_gone;               /* libmatio stopped before the last variable (next_named) */
    struct mat_z *z;              /* a compressed variable inflated here (open_stream) */
    /* a v7.3 vector read by the HDF5 reader (see v73_open): inner.state != NULL */
    unsigned char *bools;         /* a logical vector's values, normalized */
    size_t bools_cap;
    struct la_reader inner;
    struct la_read_opts inner_opts;
    char dataset[80];             /* "/" and the variable's name */
};

/* --array, through one accessor so the options' shape is known here only. */
static const char *array_name(const struct la_reader *r)
{
    return r->opts ? r->opts->array : NULL;
}

/* libmatio logs its errors itself: keep the last one for our message instead.
 * libmatio calls the log function on the thread whose call failed, and a
 * dataset of many files reads .mat files on several threads at once: each
 * thread keeps its own last message, and the function is set once. */
static _Thread_local char last_log[256];
static void keep_log(int level, char *message)
{
    (void)level;
    snprintf(last_log, sizeof last_log, "%s", message ? message : "");
    for (char *c = last_log; *c; c++)
        *c = (unsigned char)*c < 0x20 || *c == 0x7f ? ' ' : *c;
}

static void set_log(void)
{
    Mat_LogInitFunc("labelaudit", keep_log);
}

// ---- the variable's class ----------------------------------------------------

static int numeric(const matvar_t *v)
{
    switch (v->class_type) {
    case MAT_C_DOUBLE: case MAT_C_SINGLE: case MAT_C_INT8: case MAT_C_UINT8:
    case MAT_C_INT16: case MAT_C_UINT16: case MAT_C_INT32: case MAT_C_UINT32:
    case MAT_C_INT64: case MAT_C_UINT64:
        return !v->isComplex;
    default:
        return 0;
    }
}

static const char *class_words(const matvar_t *v)
{
    switch (v->class_type) {
    case MAT_C_CELL: return "a cell array";
    case MAT_C_STRUCT: return "a struct";
    case MAT_C_CHAR: return "characters";
    case MAT_C_SPARSE: return "a sparse matrix";
    case MAT_C_FUNCTION: return "a function handle";
    case MAT_C_OBJECT: case MAT_C_OPAQUE: return "an object";
    default: return v->isComplex ? "complex numbers" : "an unknown class";
    }
}

static int choose_dtype(struct la_reader *r, struct mat_state *st)
{
    static const struct { enum matio_classes c; enum la_dtype dt; } map[] = {
        { MAT_C_DOUBLE, LA_DT_FLOAT64 }, { MAT_C_SINGLE, LA_DT_FLOAT32 },
        { MAT_C_INT8, LA_DT_INT8 },      { MAT_C_UINT8, LA_DT_UINT8 },
        { MAT_C_INT16, LA_DT_INT16 },    { MAT_C_UINT16, LA_DT_UINT16 },
        { MAT_C_INT32, LA_DT_INT32 },    { MAT_C_UINT32, LA_DT_UINT32 },
        { MAT_C_INT64, LA_DT_INT64 },    { MAT_C_UINT64, LA_DT_UINT64 },
    };
    if (st->var->class_type == MAT_C_EMPTY && st->var->rank > 0 && Mat_GetVersion(st->mat) == MAT_FT_MAT73)
        return la_reader_set_error(r, "libmatio cannot tell the class of variable '%.100s' (a "
                                   "v7.3 file not written by MATLAB?): read it with --format=hdf5 "
                                   "--array /%.100s", st->var->name, st->var->name);
    if (!numeric(st->var))
        return la_reader_set_error(r, "variable '%.100s' holds %s, not numbers",
                                   st->var->name ? st->var->name : "?", class_words(st->var));
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (map[i].c == st->var->class_type)
            st->dtype = map[i].dt;
    if (st->var->isLogical && st->var->class_type == MAT_C_UINT8)
        st->dtype = LA_DT_BOOL;
    st->esize = la_dtype_info(st->dtype)->size;
    return 0;
}

// ---- the shape --------------------------------------------------------------

static int read_shape(struct la_reader *r, struct mat_state *st)
{
    const matvar_t *v = st->var;
    int big = 0;
    if (v->rank < 0 || v->rank > LA_MAX_DIMS)
        return la_reader_set_error(r, "variable of %d dimensions (at most %d)", v->rank,
                                   LA_MAX_DIMS);
    st->count = 1;
    for (int k = 0; k < v->rank; k++) {
        uint64_t d = v->dims[k];
        if (d && st->count > (UINT64_MAX / st->esize) / d)
            return la_reader_set_error(r, "variable over 2^64 bytes");
        st->count *= d;
        big += d > 1;
    }
    if (st->count > (uint64_t)INT32_MAX)
        return la_reader_set_error(r, "variable of %llu elements: libmatio reads at most 2^31-1",
                                   (unsigned long long)st->count);
    st->vector = big <= 1;
    if (st->vector) {              /* 1xN, Nx1, 1x1: N samples */
        st->ndim = 1;
        st->dims[0] = st->count;
    } else {
        st->ndim = v->rank;
        for (int k = 0; k < v->rank; k++)
            st->dims[k] = v->dims[k];
    }
    return 0;
}

/* ---- v5 sizes, checked before libmatio sees them --------------------------
 * libmatio believes the byte counts a v5 file's tags claim and allocates them
 * (a fuzzed 260-byte file made it ask for 5 GB). Before opening, each
 * top-level element must fit in the file, and the first subelements of each
 * variable (array flags, dimensions, name) must fit in their variable, with
 * at most LA_MAX_DIMS dimensions. The data itself is left to libmatio. */
#define MAT_V5_HEAD 128
#define MAT_MI_MATRIX 14
#define MAT_MI_COMPRESSED 15

static uint32_t mat_u32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

/* A v5 (or v7) file's size and whether its tags need their bytes swapped,
 * from its 128-byte header. @return 1, or 0 when fd holds no such file (v4,
 * or v7.3, which is HDF5 with its own checks). */
static int mat_v5_header(int fd, int *swap, uint64_t *size)
{
    unsigned char head[MAT_V5_HEAD];
    struct stat sb;
    if (fstat(fd, &sb) != 0 || pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head)
        return 0;
    if (head[126] == 'I' && head[127] == 'M')
        *swap = la_host_is_big_endian();
    else if (head[126] == 'M' && head[127] == 'I')
        *swap = !la_host_is_big_endian();
    else
        return 0;
    *size = (uint64_t)sb.st_size;
    return (*swap ? head[124] : head[125]) == 0x01;
}

/* The next top-level element from *pos on, small ones stepped over: the
 * offset *at of its tag, its type and the byte count the tag claims; *pos
 * moves past it. @return 1, or 0 past the last tag (or at a read error). */
static int mat_v5_element(int fd, uint64_t size, int swap, uint64_t *pos, uint64_t *at,
                          uint32_t *type, uint32_t *n)
{
    for (unsigned char tag[8]; *pos + 8 <= size; *pos += 8) {   /* += 8: a small element */
        if (pread(fd, tag, 8, (off_t)*pos) != 8)
            return 0;
        *type = mat_u32(tag, swap);
        *n = mat_u32(tag + 4, swap);
        if (*type >> 16)
            continue;
        *at = *pos;
        *pos += 8 + (*type == MAT_MI_COMPRESSED ? *n : (((uint64_t)*n + 7) & ~(uint64_t)7));
        return 1;
    }
    return 0;
}

/* The subelement of a matrix body m[0..len) at *pos: its type, its byte
 * count, where its bytes start in m (in the tag for a small one: *small) ;
 * *pos moves past it, padded to 8 bytes. @return 1, or 0 when its tag is
 * not in m or a small element claims more than the tag's 4 bytes. */
static int mat_v5_sub(const unsigned char *m, size_t len, int swap, uint64_t *pos,
                      uint32_t *type, uint32_t *n, uint64_t *data, int *small)
{
    if (*pos + 8 > len)
        return 0;
    uint32_t tag = mat_u32(m + *pos, swap);
    *small = tag >> 16 != 0;
    *type = *small ? tag & 0xffff : tag;
    *n = *small ? tag >> 16 : mat_u32(m + *pos + 4, swap);
    *data = *pos + (*small ? 4 : 8);
    *pos += *small ? 8 : 8 + (((uint64_t)*n + 7) & ~(uint64_t)7);
    return !*small || *n <= 4;
}

/* The subelements that open a matrix body m[0..len), of claimed size nbytes. */
static int mat_v5_matrix_ok(const unsigned char *m, size_t len, uint32_t nbytes, int swap)
{
    uint64_t pos = 0, data;
    uint32_t type, n;
    int small;
    for (int k = 0; k < 3 && pos + 8 <= len; k++) {
        uint64_t at = pos;
        if (!mat_v5_sub(m, len, swap, &pos, &type, &n, &data, &small))
            return 0;
        if (!small && (at + 8 > nbytes || n > nbytes - at - 8 || (k == 1 && n / 4 > LA_MAX_DIMS)))
            return 0;
    }
    return 1;
}

/* The head of a miCOMPRESSED element's inflated bytes: a matrix tag and body. */
static int mat_v5_compressed_ok(const unsigned char *z, size_t zlen, int swap)
{
    unsigned char out[256];
    z_stream zs = { .next_in = (unsigned char *)z, .avail_in = (uInt)zlen,
                    .next_out = out, .avail_out = sizeof out };
    if (inflateInit(&zs) != Z_OK)
        return 0;
    inflate(&zs, Z_SYNC_FLUSH);                    /* what inflates before an error counts: */
    size_t got = sizeof out - zs.avail_out;        /* libmatio reads those bytes too */
    inflateEnd(&zs);
    if (got < 8 || (mat_u32(out, swap) & 0xffff) != MAT_MI_MATRIX)
        return 1;                                  /* not a matrix: libmatio's to judge */
    return mat_v5_matrix_ok(out + 8, got - 8, mat_u32(out + 4, swap), swap);
}

/* @return 0, or -1 with r->err naming the byte of an element that lies about its size. */
static int mat_v5_sizes_ok(struct la_reader *r, int fd)
{
    unsigned char buf[4096];
    uint64_t size, at;
    uint32_t type, n;
    int swap;
    if (!mat_v5_header(fd, &swap, &size))
        return 0;                                  /* libmatio's to judge */
    for (uint64_t pos = MAT_V5_HEAD; mat_v5_element(fd, size, swap, &pos, &at, &type, &n);) {
        if (n > size - at - 8)
            return la_reader_set_error(r, "byte %llu: a .mat element claims %u bytes, past "
                                       "the end of the file", (unsigned long long)at, n);
        size_t want = n < sizeof buf ? n : sizeof buf;
        ssize_t got = pread(fd, buf, want, (off_t)(at + 8));
        int ok = got < 0 ? 1
               : type == MAT_MI_MATRIX ? mat_v5_matrix_ok(buf, (size_t)got, n, swap)
               : type == MAT_MI_COMPRESSED ? mat_v5_compressed_ok(buf, (size_t)got, swap) : 1;
        if (!ok)
            return la_reader_set_error(r, "byte %llu: a .mat variable's header claims more "
                                       "bytes than the variable holds (damaged file)",
                                       (unsigned long long)at);
    }
    return 0;
}

/* ---- a v5 vector in place ----------------------------------------------------
 * libmatio copies a variable's data and does not say where it lies (the
 * offset is in its private matvar_internal). An uncompressed v5 numeric
 * vector stored in its class's own type and in host byte order is one run of
 * the file's bytes, in C order: walking the same tags mat_v5_sizes_ok checks
 * finds it, so that audit.c maps it and scans it in place, as a .npy. The
 * variable, class and count are libmatio's; the walk only says where, and
 * offers nothing when what it finds disagrees. */
#define MAT_V5_ALIGN 8

/* The v5 data type (miINT8 = 1 ... miUINT64 = 13) that holds dtype's values. */
static uint32_t mat_v5_type(enum la_dtype dtype)
{
    switch (dtype) {
    case LA_DT_INT8: return 1;    case LA_DT_UINT8: return 2;
    case LA_DT_INT16: return 3;   case LA_DT_UINT16: return 4;
    case LA_DT_INT32: return 5;   case LA_DT_UINT32: return 6;
    case LA_DT_FLOAT32: return 7; case LA_DT_FLOAT64: return 9;
    case LA_DT_INT64: return 12;  case LA_DT_UINT64: return 13;
    default: return 0;
    }
}

/* In the matrix whose body lies at file offset body, nbytes long: when its
 * name (the third subelement) is name and its real part (the fourth) is
 * `type`, `bytes` long, the file offset of that data. @return 1 and *at, else 0. */
static int mat_v5_find_data(int fd, uint64_t body, uint32_t nbytes, const char *name,
                            uint32_t type, uint64_t bytes, uint64_t *at)
{
    unsigned char m[4096];                         /* the subelements before the data */
    ssize_t len = pread(fd, m, nbytes < sizeof m ? nbytes : sizeof m, (off_t)body);
    uint64_t pos = 0, data = 0;
    uint32_t t = 0, n = 0;
    int small = 0;
    for (int k = 0; k < 4; k++) {
        if (len < 0 || !mat_v5_sub(m, (size_t)len, 0, &pos, &t, &n, &data, &small))
            return 0;
        if (k == 2 && (data + n > (uint64_t)len || n != strlen(name) || memcmp(m + data, name, n)))
            return 0;
    }
    *at = body + data;
    return !small && t == type && n == bytes && data + bytes <= nbytes;
}

/* Offer the run of a v5 vector (see above). */
static void mat_v5_run(struct la_reader *r, const struct mat_state *st)
{
    int fd = la_source_plain_fd(r->src), swap;
    uint32_t type = mat_v5_type(st->dtype), t, n;
    uint64_t size, at, data;
    if (Mat_GetVersion(st->mat) != MAT_FT_MAT5 || !st->vector || !type || st->var->isComplex
        || !st->var->name || st->count == 0 || !mat_v5_header(fd, &swap, &size) || swap)
        return;                                    /* not v5 in host byte order */
    uint64_t bytes = st->count * st->esize;
    for (uint64_t pos = MAT_V5_HEAD; mat_v5_element(fd, size, 0, &pos, &at, &t, &n);) {
        if (t == MAT_MI_MATRIX && n <= size - at - 8
            && mat_v5_find_data(fd, at + 8, n, st->var->name, type, bytes, &data)) {
            if (data % MAT_V5_ALIGN == 0 && data % st->esize == 0) {
                r->has_run = 1;
                r->run = (struct la_file_run){ fd, data, st->count, st->dtype };
            }
            return;
        }
    }
}

/* ---- the variables of a v5 file: where each lies, and its name -------------
 * libmatio reads a name stored as miINT8 only and leaves one stored as
 * miUTF8 NULL (MATLAB and scipy read both), and does not say where a
 * variable lies. The same walk of the top-level tags as above says both: the
 * k-th matrix (or compressed matrix) element is libmatio's k-th variable. */
struct mat_v5_var {
    uint64_t at;                  /* its tag's offset */
    uint32_t type, n;             /* MAT_MI_MATRIX or MAT_MI_COMPRESSED; the bytes after the tag */
    char name[64];
};
#define MAT_MI_INT8 1
#define MAT_MI_INT32 5
#define MAT_MI_UINT32 6
#define MAT_MI_UTF8 16

/* A variable's header as read here (z_head), where libmatio reads none. */
struct mat_head {
    uint32_t cls;                 /* MATLAB's class number: libmatio's enum matio_classes */
    int complex, logical, rank;
    uint64_t dims[LA_MAX_DIMS];
    char name[64];
};

/* The first bytes of a matrix element's body (inflated for a compressed
 * one, whose own miMATRIX tag is passed over). @return their count, or 0. */
static size_t mat_v5_body_head(int fd, const struct mat_v5_var *v, int swap, unsigned char *m,
                               size_t cap)
{
    unsigned char z[4096], out[4096 + 8];
    size_t want = v->n < sizeof z ? v->n : sizeof z;
    size_t got = la_pread_full(fd, v->type == MAT_MI_MATRIX ? m : z,
                               v->type == MAT_MI_MATRIX && want > cap ? cap : want, v->at + 8);
    if (v->type == MAT_MI_MATRIX)
        return got;
    z_stream zs = { .next_in = z, .avail_in = (uInt)got, .next_out = out,
                    .avail_out = (uInt)(cap + 8 < sizeof out ? cap + 8 : sizeof out) };
    if (inflateInit(&zs) != Z_OK)
        return 0;
    inflate(&zs, Z_SYNC_FLUSH);
    size_t len = (size_t)(zs.next_out - out);
    inflateEnd(&zs);
    if (len < 8 || (mat_u32(out, swap) & 0xffff) != MAT_MI_MATRIX)
        return 0;
    memcpy(m, out + 8, len - 8);
    return len - 8;
}

/* The k-th variable (from 0) of a v5 file, its name read as MATLAB reads it.
 * @return 1, or 0 when there is none (or no v5 file). */
static int mat_v5_nth(int fd, int k, struct mat_v5_var *v)
{
    uint64_t size, pos = MAT_V5_HEAD, data;
    uint32_t type, n;
    int swap, small;
    if (!mat_v5_header(fd, &swap, &size))
        return 0;
    for (int i = 0; mat_v5_element(fd, size, swap, &pos, &v->at, &v->type, &v->n);)
        if ((v->type == MAT_MI_MATRIX || v->type == MAT_MI_COMPRESSED) && i++ == k) {
            unsigned char m[512];
            size_t len = mat_v5_body_head(fd, v, swap, m, sizeof m);
            uint64_t p = 0;
            v->name[0] = '\0';
            for (int j = 0; j < 3; j++)
                if (!mat_v5_sub(m, len, swap, &p, &type, &n, &data, &small))
                    return 1;
            if ((type == MAT_MI_INT8 || type == MAT_MI_UTF8) && n < sizeof v->name
                && data + n <= len) {
                memcpy(v->name, m + data, n);
                v->name[n] = '\0';
            }
            return 1;
        }
    return 0;
}

/* The header of the variable at `where`, read here (see z_head, below).
 * @return 0, or -1 with r->err naming the variable and the byte. */
static int read_head(struct la_reader *r, int fd, const struct mat_v5_var *where,
                     struct mat_head *h);

/* v's class, dimensions and name, read from its element `where` in place of
 * libmatio's: libmatio 1.5 reads dimensions stored as miINT32 only and stops
 * before the name on miUINT32 ones (MATLAB and scipy read both: scipy's
 * miuint32_for_miint32.mat), leaving rank 0. @return 0, or -1 with r->err
 * naming the variable and the byte where its header is wrong. */
static int own_describe(struct la_reader *r, int fd, const struct mat_v5_var *where,
                        matvar_t *v)
{
    struct mat_head h;
    if (read_head(r, fd, where, &h) != 0)
        return -1;
    size_t *dims = malloc((size_t)h.rank * sizeof *dims);
    char *name = strdup(h.name);
    if (!dims || !name) {
        free(dims);
        free(name);
        return la_reader_set_error(r, "out of memory");
    }
    for (int k = 0; k < h.rank; k++)
        dims[k] = (size_t)h.dims[k];
    free(v->dims);                         /* Mat_VarFree frees what is put here */
    free(v->name);
    v->dims = dims;
    v->name = name;
    v->rank = h.rank;
    v->class_type = (enum matio_classes)h.cls;
    v->isComplex = h.complex;
    v->isLogical = h.logical;
    return 0;
}

/* libmatio's next variable into *out, named from the file where libmatio
 * leaves the name NULL (miUTF8), described from the file (*own) where
 * libmatio read no dimensions. libmatio either returns such a variable with
 * rank 0 (scipy's miuint32_for_miint32.mat) or stops there (NULL: a
 * compressed one, tests/data/containers/mat-uint32-dims-v7.mat); the walk still finds the k-th variable, and every variable
 * from there on is described here (st->matio_gone): libmatio's place in
 * the file is unknown. @return 1, 0 after the last, or -1 with r->err. */
static int next_named(struct la_reader *r, struct mat_state *st, int fd, int k, matvar_t **out,
                      int *own)
{
    matvar_t *v = *out = st->matio_gone ? NULL : Mat_VarReadNextInfo(st->mat);
    struct mat_v5_var where;
    int found = Mat_GetVersion(st->mat) == MAT_FT_MAT5 && mat_v5_nth(fd, k, &where);
    *own = 0;
    if (!v && !found)
        return 0;
    if (!v && !(st->matio_gone = 1, v = *out = Mat_VarCalloc()))
        return la_reader_set_error(r, "out of memory");
    if (found && !v->name && where.name[0])
        v->name = strdup(where.name);      /* Mat_VarFree frees it */
    if ((v->rank > 0 && v->dims && !st->matio_gone) || !found)
        return 1;
    *own = 1;
    return own_describe(r, fd, &where, v) == 0 ? 1 : -1;
}

// ---- choosing the variable -------------------------------------------------

/* Whether v is the one to keep: --array's, or by the default rule the first
 * numeric variable (*first) and the best-ranked preferred name (*best). */
static int consider(matvar_t *v, const char *want, int *numerics, matvar_t **first,
                    matvar_t **best, size_t *rank)
{
    static const char *const preferred[] = { "labels", "label", "y", "targets" };
    int keep = 0;
    if (want)
        return v->name && !strcmp(v->name, want);
    if ((numeric(v) || v->class_type == MAT_C_EMPTY) && (*numerics)++ == 0) {
        *first = v;
        keep = 1;
    }
    for (size_t i = 0; i < *rank && v->name; i++)
        if (!strcmp(v->name, preferred[i])) {
            if (*best && *best != *first)
                Mat_VarFree(*best);
            *best = v;
            *rank = i;
            return 1;
        }
    return keep;
}

/* One walk of libmatio's variables (names from the file where libmatio
 * reads none), keeping what consider() keeps; st->var_k is the chosen
 * one's place. */
static int choose_variable(struct la_reader *r, struct mat_state *st)
{
    const char *want = array_name(r);
    int fd = la_source_plain_fd(r->src), numerics = 0, k = 0, kfirst = -1, kbest = -1, got, own;
    int ownfirst = 0, ownbest = 0;
    size_t rank = 4;
    matvar_t *v, *first = NULL, *best = NULL;
    for (Mat_Rewind(st->mat); (got = next_named(r, st, fd, k, &v, &own)) > 0; k++) {
        matvar_t *was_best = best, *was_first = first;
        if (!consider(v, want, &numerics, &first, &best, &rank)) {
            Mat_VarFree(v);
            continue;
        }
        kfirst = first != was_first ? k : kfirst;
        ownfirst = first != was_first ? own : ownfirst;
        kbest = best != was_best ? k : kbest;
        ownbest = best != was_best ? own : ownbest;
        if (want) {
            st->var = v;
            st->var_k = k;
            st->own = own;
            return 0;
        }
    }
    if (got < 0) {                 /* a variable whose header is damaged: named in r->err */
        if (v)
            Mat_VarFree(v);
        if (best && best != first)
            Mat_VarFree(best);
        if (first)
            Mat_VarFree(first);
        return -1;
    }
    if (want)
        return la_reader_set_error(r, "no variable '%.100s' in the file", want);
    char first_name[64];
    snprintf(first_name, sizeof first_name, "%s", first && first->name ? first->name : "");
    matvar_t *pick = numerics == 1 ? first : numerics > 1 ? best : NULL;
    if (first && first != pick)
        Mat_VarFree(first);
    if (best && best != pick)
        Mat_VarFree(best);
    if (pick) {
        st->var = pick;
        st->var_k = pick == first ? kfirst : kbest;
        st->own = pick == first ? ownfirst : ownbest;
        return 0;
    }
    if (numerics == 0)
        return la_reader_set_error(r, "no numeric variable in the file");
    return la_reader_set_error(r, "%d numeric variables (the first: %s): choose one with "
                               "--array", numerics, first_name);
}

/* ---- a compressed (-v7) variable, inflated in one pass ----------------------
 * libmatio reads a piece of a compressed variable by inflating the variable
 * from its start up to the piece (Mat_VarReadDataLinear), so that reading it
 * in MAT_CHUNK pieces inflates n^2 / 2 MAT_CHUNK bytes: 40M int64 took 17 s.
 * It also stops where the values end, so the zlib stream's Adler-32 is never
 * checked and a damaged variable read as labels. Here the variable's
 * miCOMPRESSED element is inflated once, streaming, to the end of its zlib
 * stream (checksum checked). Its values are converted from the type they are
 * stored in (MATLAB stores a double array of small integers as miUINT8) to
 * the array's class, as MATLAB and scipy's mat_dtype do: integers saturate,
 * floats round to the nearest (NaN to 0). Class, shape and name are
 * libmatio's; the walk (mat_v5_nth) says where the element lies.
 *
 * Raw mode (z->raw) reads an uncompressed miMATRIX element the same way,
 * its bytes copied from the file instead of inflated: for a variable
 * libmatio cannot describe (see own_describe), whose class, dimensions and
 * name are then read here too (z_head). Every length is checked against
 * the element, which mat_v5_sizes_ok checked against the file. */
struct mat_z {
    z_stream zs;
    int fd, swap, ended;
    int raw;                      /* an uncompressed element: its bytes copied, not inflated */
    uint64_t pos, left;           /* the element's bytes not read yet, from file offset pos */
    uint64_t tag_at;              /* the last subelement tag's byte (raw: in the file; else inflated) */
    uint32_t type;                /* the values' miTYPE */
    unsigned tsize;
    uint64_t values;              /* values not inflated yet */
    unsigned char small[4];       /* the values of a small data element */
    int is_small;
    unsigned char *stage;         /* stored values before conversion */
    uint64_t inflated;            /* bytes inflated in all (-v says) */
    const char *why;              /* what went wrong */
    unsigned char in[1 << 16];
};

/* The size of a numeric miTYPE (miINT8 = 1 ... miUINT64 = 13), or 0. */
static unsigned mi_size(uint32_t type)
{
    static const unsigned char size[14] = { 0, 1, 1, 2, 2, 4, 4, 4, 0, 8, 0, 0, 8, 8 };
    return type < sizeof size ? size[type] : 0;
}

/* One inflate() into z->zs's output, its input refilled from the file
 * first when it has run out. @return 0, or -1 and z->why. */
static int z_step(struct mat_z *z)
{
    if (z->zs.avail_in == 0 && z->left > 0) {
        size_t want = z->left < sizeof z->in ? (size_t)z->left : sizeof z->in;
        if (la_pread_full(z->fd, z->in, want, z->pos) != want)
            return z->why = "the file ends inside it", -1;
        z->pos += want;
        z->left -= want;
        z->zs.next_in = z->in;
        z->zs.avail_in = (uInt)want;
    }
    int rc = inflate(&z->zs, Z_NO_FLUSH);
    z->ended = rc == Z_STREAM_END;
    if (rc == Z_BUF_ERROR && z->zs.avail_in == 0 && z->left == 0)
        return z->why = "its compressed bytes end early", -1;
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
        return z->why = z->zs.msg ? z->zs.msg : "zlib cannot inflate it", -1;
    return 0;
}

/* Inflate exactly len bytes into out (NULL: drop them). @return 0, or -1 and z->why. */
static int z_read(struct mat_z *z, void *out, size_t len)
{
    unsigned char sink[4096];
    if (z->raw) {                                  /* the file's bytes, within the element */
        if (len > z->left)
            return z->why = "it claims more bytes than its element holds", -1;
        if (out && la_pread_full(z->fd, out, len, z->pos) != len)
            return z->why = "the file ends inside it", -1;
        z->pos += len;
        z->left -= len;
        z->inflated += len;
        return 0;
    }
    while (len > 0) {
        size_t step = out ? len : len < sizeof sink ? len : sizeof sink;
        step = step < ((size_t)1 << 30) ? step : (size_t)1 << 30;
        z->zs.next_out = out ? out : sink;
        z->zs.avail_out = (uInt)step;
        while (z->zs.avail_out > 0)
            if (z->ended)
                return z->why = "its zlib stream ends before its values do", -1;
            else if (z_step(z) != 0)
                return -1;
        z->inflated += step;
        len -= step;
        if (out)
            out = (unsigned char *)out + step;
    }
    return 0;
}

/* The rest of the stream after the values (padding), inflated to its end:
 * zlib checks the Adler-32 there. @return 0, or -1 and z->why. */
static int z_finish(struct mat_z *z)
{
    unsigned char sink[4096];
    z->ended |= z->raw;                            /* no checksum: nothing to read */
    while (!z->ended) {
        z->zs.next_out = sink;
        z->zs.avail_out = sizeof sink;
        if (z_step(z) != 0)
            return -1;
        z->inflated += sizeof sink - z->zs.avail_out;
    }
    return 0;
}

/* The next subelement's tag: its type and byte count (a small element's
 * bytes in z->small). @return 0, or -1. */
static int z_tag(struct mat_z *z, uint32_t *type, uint32_t *n)
{
    unsigned char t[8];
    z->tag_at = z->raw ? z->pos : z->inflated;
    if (z_read(z, t, 8) != 0)
        return -1;
    uint32_t w = mat_u32(t, z->swap);
    z->is_small = w >> 16 != 0;
    *type = z->is_small ? w & 0xffff : w;
    *n = z->is_small ? w >> 16 : mat_u32(t + 4, z->swap);
    if (z->is_small && *n > 4)
        return z->why = "a small element claims over 4 bytes", -1;
    if (z->is_small)
        memcpy(z->small, t + 4, 4);
    return 0;
}

/* To the array flags of the element v: inflating a compressed one and
 * passing its miMATRIX tag, or (raw) at its body. @return 0, or -1 and z->why. */
static int z_begin(struct mat_z *z, const struct mat_v5_var *v, int swap)
{
    uint32_t type, n;
    z->swap = swap;
    z->raw = v->type == MAT_MI_MATRIX;
    z->pos = v->at + 8;
    z->left = v->n;
    z->tag_at = z->raw ? z->pos : 0;
    if (z->raw)
        return 0;
    if (inflateInit(&z->zs) != Z_OK)
        return z->why = "out of memory", -1;
    if (z_tag(z, &type, &n) != 0)
        return -1;
    if (type != MAT_MI_MATRIX)
        return z->why = "it holds no array", -1;
    return 0;
}

/* A subelement's n bytes (from the tag of a small one), at most cap of them
 * into out, the rest and the padding passed over. @return 0, or -1. */
static int z_sub_bytes(struct mat_z *z, uint32_t n, unsigned char *out, size_t cap)
{
    size_t keep = n < cap ? n : cap;
    if (z->is_small) {
        memcpy(out, z->small, keep);
        return 0;
    }
    return z_read(z, out, keep) != 0 || z_read(z, NULL, (((size_t)n + 7) & ~(size_t)7) - keep) ? -1 : 0;
}

/* The array flags, dimensions and name, as scipy's loadmat reads them (the
 * dimensions as miINT32 or miUINT32, the name as miINT8 or miUTF8).
 * @return 0, or -1 and z->why, z->tag_at the subelement that is wrong. */
static int z_head(struct mat_z *z, struct mat_head *h)
{
    unsigned char b[4 * LA_MAX_DIMS];
    uint32_t type, n;
    memset(h, 0, sizeof *h);
    if (z_tag(z, &type, &n) != 0)
        return -1;
    if (n != 8)                                    /* of any type: scipy reads 8 bytes */
        return z->why = "its array flags are not 8 bytes", -1;
    if (z_sub_bytes(z, n, b, 8) != 0)
        return -1;
    uint32_t flags = mat_u32(b, z->swap);
    h->cls = flags & 0xff;
    h->complex = (flags & 0x800) != 0;
    h->logical = (flags & 0x200) != 0;
    if (z_tag(z, &type, &n) != 0)
        return -1;
    if ((type != MAT_MI_INT32 && type != MAT_MI_UINT32) || n % 4 || n == 0 || n / 4 > LA_MAX_DIMS)
        return z->why = "its dimensions are not 1 to 8 32-bit integers", -1;
    if (z_sub_bytes(z, n, b, sizeof b) != 0)
        return -1;
    h->rank = (int)(n / 4);
    for (int k = 0; k < h->rank; k++) {
        uint32_t d = mat_u32(b + 4 * k, z->swap);
        if (type == MAT_MI_INT32 && d > INT32_MAX)
            return z->why = "a dimension is negative", -1;
        h->dims[k] = d;
    }
    if (z_tag(z, &type, &n) != 0)
        return -1;
    if (type != MAT_MI_INT8 && type != MAT_MI_UTF8)
        return z->why = "its name is not miINT8 or miUTF8 text", -1;
    if (n >= sizeof h->name)
        return z->why = "its name is over 63 bytes", -1;
    if (z_sub_bytes(z, n, (unsigned char *)h->name, n) != 0)
        return -1;
    h->name[n] = '\0';
    if (strlen(h->name) != n)
        return z->why = "its name holds a NUL byte", -1;
    return 0;
}

/* Past the array flags, dimensions and name, to the real part's values. */
static int z_open(struct mat_z *z, const struct mat_v5_var *v, int swap, uint64_t count)
{
    uint32_t n;
    struct mat_head h;
    if (z_begin(z, v, swap) != 0 || z_head(z, &h) != 0 || z_tag(z, &z->type, &n) != 0)
        return -1;
    z->tsize = mi_size(z->type);
    if (z->tsize == 0 || n % z->tsize != 0 || n / z->tsize != count)
        return z->why = "its values are not the array's count of numbers", -1;
    z->values = count;
    return 0;
}

/* One stored value as a signed, unsigned or float number. */
struct mat_num { int kind; int64_t i; uint64_t u; double f; };   /* kind 0, 1, 2 */

static struct mat_num mi_value(const unsigned char *p, uint32_t type, int swap)
{
    unsigned char b[8];
    unsigned size = mi_size(type);
    for (unsigned j = 0; j < size; j++)
        b[j] = p[swap ? size - 1 - j : j];
    struct mat_num v = { 0, 0, 0, 0 };
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
            float f32; double f64; int64_t i64; uint64_t u64; } x;
    memcpy(&x, b, size);
    switch (type) {
    case 1: v.i = x.i8; break;          case 2: v.kind = 1, v.u = x.u8; break;
    case 3: v.i = x.i16; break;         case 4: v.kind = 1, v.u = x.u16; break;
    case 5: v.i = x.i32; break;         case 6: v.kind = 1, v.u = x.u32; break;
    case 7: v.kind = 2, v.f = x.f32; break;
    case 9: v.kind = 2, v.f = x.f64; break;
    case 12: v.i = x.i64; break;        default: v.kind = 1, v.u = x.u64; break;
    }
    return v;
}

/* v in [lo, hi] (signed) or [0, uhi] (unsigned target: lo 0), saturated. */
static int64_t sat_signed(struct mat_num v, int64_t lo, int64_t hi)
{
    if (v.kind == 0)
        return v.i < lo ? lo : v.i > hi ? hi : v.i;
    if (v.kind == 1)
        return v.u > (uint64_t)hi ? hi : (int64_t)v.u;
    double r = v.f != v.f ? 0 : round(v.f);
    return r <= (double)lo ? lo : r >= (double)hi ? hi : (int64_t)r;
}

static uint64_t sat_unsigned(struct mat_num v, uint64_t hi)
{
    if (v.kind == 0)
        return v.i < 0 ? 0 : (uint64_t)v.i > hi ? hi : (uint64_t)v.i;
    if (v.kind == 1)
        return v.u > hi ? hi : v.u;
    double r = v.f != v.f || v.f < 0 ? 0 : round(v.f);
    return r >= (double)hi ? hi : (uint64_t)r;
}

/* n stored values of miTYPE type into dtype dt (host order). */
static void mi_convert(const unsigned char *src, uint32_t type, int swap, void *dst,
                       enum la_dtype dt, size_t n)
{
    unsigned size = mi_size(type);
    for (size_t i = 0; i < n; i++) {
        struct mat_num v = mi_value(src + i * size, type, swap);
        double f = v.kind == 0 ? (double)v.i : v.kind == 1 ? (double)v.u : v.f;
        switch (dt) {
        case LA_DT_FLOAT64: ((double *)dst)[i] = f; break;
        case LA_DT_FLOAT32: ((float *)dst)[i] = (float)f; break;
        case LA_DT_INT8: ((int8_t *)dst)[i] = (int8_t)sat_signed(v, INT8_MIN, INT8_MAX); break;
        case LA_DT_INT16: ((int16_t *)dst)[i] = (int16_t)sat_signed(v, INT16_MIN, INT16_MAX); break;
        case LA_DT_INT32: ((int32_t *)dst)[i] = (int32_t)sat_signed(v, INT32_MIN, INT32_MAX); break;
        case LA_DT_INT64: ((int64_t *)dst)[i] = sat_signed(v, INT64_MIN, INT64_MAX); break;
        case LA_DT_UINT16: ((uint16_t *)dst)[i] = (uint16_t)sat_unsigned(v, UINT16_MAX); break;
        case LA_DT_UINT32: ((uint32_t *)dst)[i] = (uint32_t)sat_unsigned(v, UINT32_MAX); break;
        case LA_DT_UINT64: ((uint64_t *)dst)[i] = sat_unsigned(v, UINT64_MAX); break;
        default: ((uint8_t *)dst)[i] = (uint8_t)sat_unsigned(v, UINT8_MAX); break; /* uint8, bool */
        }
    }
}

/* The next n values, in the class's dtype, into out; after the last, the
 * stream inflated to its end. @return 0, or -1 and z->why. */
static int z_values(struct mat_z *z, void *out, enum la_dtype dt, size_t n)
{
    size_t esize = la_dtype_info(dt)->size, bytes = n * z->tsize;
    const unsigned char *src = z->small;
    int same = !z->swap && z->tsize == esize && mat_v5_type(dt) == z->type;
    if (!z->is_small) {
        if (!same && !z->stage && !(z->stage = malloc(MAT_CHUNK)))
            return z->why = "out of memory", -1;
        for (size_t done = 0; done < bytes;) {
            size_t step = same ? bytes : (bytes - done < MAT_CHUNK ? bytes - done : MAT_CHUNK)
                                         / z->tsize * z->tsize;
            unsigned char *to = same ? out : z->stage;
            if (z_read(z, to, step) != 0)
                return -1;
            if (!same)
                mi_convert(z->stage, z->type, z->swap, (unsigned char *)out + done / z->tsize * esize,
                           dt, step / z->tsize);
            done += step;
        }
    } else if (same) {
        memcpy(out, src, bytes);
    } else {
        mi_convert(src, z->type, z->swap, out, dt, n);
    }
    if (z->is_small)
        memmove(z->small, z->small + bytes, sizeof z->small - bytes);
    z->values -= n;
    return z->values == 0 ? z_finish(z) : 0;
}

static void z_close(struct mat_z *z)
{
    if (!z)
        return;
    inflateEnd(&z->zs);
    free(z->stage);
    free(z);
}

static int read_head(struct la_reader *r, int fd, const struct mat_v5_var *where,
                     struct mat_head *h)
{
    struct mat_z *z = calloc(1, sizeof *z);
    uint64_t size;
    int swap = 0;
    if (!z)
        return la_reader_set_error(r, "out of memory");
    z->fd = fd;
    mat_v5_header(fd, &swap, &size);
    int bad = z_begin(z, where, swap) != 0 || z_head(z, h) != 0;
    const char *name = where->name[0] ? where->name : "?";
    if (bad && z->raw)
        la_reader_set_error(r, "variable '%.100s' (byte %llu): %s (damaged file)", name,
                            (unsigned long long)z->tag_at, z->why);
    else if (bad)
        la_reader_set_error(r, "variable '%.100s' (compressed, at byte %llu; byte %llu inflated): "
                            "%s (damaged file)", name, (unsigned long long)where->at,
                            (unsigned long long)z->tag_at, z->why);
    z_close(z);
    return bad ? -1 : 0;
}

/* A compressed variable's values are damaged: exit 3, naming it. */
static int damaged(struct la_reader *r, const struct mat_state *st)
{
    if (st->z->raw)
        return la_reader_set_error(r, "variable '%.100s' (byte %llu): its data is damaged (%s)",
                                   st->var->name ? st->var->name : "?",
                                   (unsigned long long)st->z->tag_at, st->z->why);
    return la_reader_set_error(r, "variable '%.100s': its compressed data is damaged (%s)",
                               st->var->name ? st->var->name : "?", st->z->why);
}

/* Values from a compressed variable; -v says, after the last, what inflating
 * cost (a count the tests check: one pass, not one per piece read). */
static int stream_values(struct la_reader *r, struct mat_state *st, void *out, size_t n)
{
    if (z_values(st->z, out, st->dtype, n) != 0)
        return damaged(r, st);
    if (st->z->values == 0)
        la_verbose(la_source_path(r->src), "mat: variable '%s': %llu bytes %s, for %llu "
                   "bytes of values stored as miTYPE %u", st->var->name,
                   (unsigned long long)st->z->inflated, st->z->raw ? "read" : "inflated",
                   (unsigned long long)(st->count * st->z->tsize), (unsigned)st->z->type);
    return 0;
}

/* A compressed variable of a v5 file is inflated here (see struct mat_z),
 * and one whose header libmatio could not read (st->own) is read here raw;
 * any other is read by libmatio. @return 0, or -1. */
static int open_stream(struct la_reader *r, struct mat_state *st)
{
    struct mat_v5_var where;
    int fd = la_source_plain_fd(r->src), swap;
    uint64_t size;
    if (Mat_GetVersion(st->mat) != MAT_FT_MAT5 || !mat_v5_header(fd, &swap, &size)
        || !mat_v5_nth(fd, st->var_k, &where) || (where.type != MAT_MI_COMPRESSED && !st->own)
        || strcmp(where.name, st->var->name ? st->var->name : ""))
        return 0;
    if (!(st->z = calloc(1, sizeof *st->z)))
        return la_reader_set_error(r, "out of memory");
    st->z->fd = fd;
    if (z_open(st->z, &where, swap, st->count) != 0 || (st->count == 0 && z_finish(st->z) != 0))
        return damaged(r, st);
    la_verbose(la_source_path(r->src), st->z->raw ? "mat: variable '%s': its header and values read "
               "here (libmatio read no dimensions)"
               : "mat: compressed variable '%s' inflated in one pass", st->var->name);
    return 0;
}

/* The other compressed variables of a v5 file, each inflated to the end of
 * its zlib stream: scipy's loadmat reads every variable and refuses a file
 * of one whose Adler-32 is wrong ("incorrect data check"), and so is this
 * one, by the variable's name (the chosen one's stream is checked as it is
 * read). Memory: one block and a sink. @return 0, or -1 with r->err. */
static int other_streams_ok(struct la_reader *r, struct mat_state *st)
{
    int fd = la_source_plain_fd(r->src), swap, k = 0;
    uint64_t size, pos = MAT_V5_HEAD, at;
    uint32_t type, n;
    if (Mat_GetVersion(st->mat) != MAT_FT_MAT5 || !mat_v5_header(fd, &swap, &size))
        return 0;
    while (mat_v5_element(fd, size, swap, &pos, &at, &type, &n)) {
        if (type != MAT_MI_MATRIX && type != MAT_MI_COMPRESSED)
            continue;
        if (k++ == st->var_k && st->z)
            continue;
        if (type != MAT_MI_COMPRESSED)
            continue;
        struct mat_z *z = calloc(1, sizeof *z);
        if (!z)
            return la_reader_set_error(r, "out of memory");
        z->fd = fd;
        z->pos = at + 8;
        z->left = n;
        int bad = inflateInit(&z->zs) != Z_OK ? (z->why = "out of memory", 1) : z_finish(z) != 0;
        if (bad) {
            struct mat_v5_var v;
            if (!mat_v5_nth(fd, k - 1, &v))
                v.name[0] = '\0';
            la_reader_set_error(r, "variable '%.100s': its compressed data is damaged (%s)",
                                v.name[0] ? v.name : "?", z->why);
        }
        z_close(z);
        if (bad)
            return -1;
    }
    return 0;
}

/* A matrix: read it whole (column-major), to gather in C order. */
static int read_whole(struct la_reader *r, struct mat_state *st)
{
    uint64_t bytes = st->count * st->esize;
    if (bytes > MAT_REORDER_MAX)
        return la_reader_set_error(r, "a %llu-byte MATLAB matrix is over the %llu bytes read to "
                                   "reorder it: save the labels as a vector",
                                   (unsigned long long)bytes, (unsigned long long)MAT_REORDER_MAX);
    int start[LA_MAX_DIMS], stride[LA_MAX_DIMS], edge[LA_MAX_DIMS];
    for (int k = 0; k < st->var->rank; k++) {
        start[k] = 0;
        stride[k] = 1;
        edge[k] = (int)st->var->dims[k];
    }
    last_log[0] = '\0';
    if (!(st->all = malloc(bytes ? (size_t)bytes : 1)))
        return la_reader_set_error(r, "out of memory for a %llu-byte matrix", (unsigned long long)bytes);
    if (st->z)
        return st->count ? stream_values(r, st, st->all, (size_t)st->count) : 0;
    if (st->count && Mat_VarReadData(st->mat, st->var, st->all, start, stride, edge) != 0)
        return la_reader_set_error(r, "cannot read variable '%.100s'%s%s", st->var->name,
                                   last_log[0] ? ": " : " (damaged file)", last_log);
    return 0;
}

/* The variable chosen and its shape known: the read buffer, and what the
 * reader tells of the array. @return 0, or -1 out of memory. */
static int mat_publish(struct la_reader *r, struct mat_state *st)
{
    if (!(st->buf = malloc(MAT_CHUNK)))
        return la_reader_set_error(r, "out of memory");
    r->info.dtype = st->dtype;
    r->info.ndim = st->ndim;
    memcpy(r->info.shape, st->dims, sizeof st->dims);
    r->info.shape_known = 1;
    return 0;
}

#if HAVE_HDF5
/* ---- v7.3, read through the HDF5 reader -------------------------------------
 * A v7.3 file is HDF5 after a 512-byte user block that opens with MATLAB's
 * header ("MATLAB 7.3 MAT-file", version 0x0200). A variable is an object at
 * the root with a MATLAB_class attribute ("double", "int32", "logical",
 * "cell", ...); a numeric one is a dataset whose HDF5 dimensions are
 * MATLAB's reversed (HDF5's C order is MATLAB's column-major), an empty one
 * holds its dimensions and says MATLAB_empty. libmatio reads the class only
 * as libmatio itself writes it: hdf5storage's and h5py's strings are
 * "unknown" to it. So every v7.3 file is read here, with libhdf5: the
 * variable chosen as for v5, its values by the HDF5 reader (read_hdf5.c),
 * which reads chunks as fast as libhdf5 allows and a contiguous one in place. */
#define V73_NAME 64

struct v73_var {
    char name[V73_NAME];
    char cls[64];                 /* MATLAB_class; "" when there is none */
    int dataset, complex, empty, sparse;
};

static int is_v73(int fd)
{
    unsigned char head[128];
    if (la_pread_full(fd, head, sizeof head, 0) != sizeof head
        || memcmp(head, "MATLAB 7.3 MAT-file", 19) != 0)
        return 0;
    return (head[124] == 0x00 && head[125] == 0x02 && head[126] == 'I' && head[127] == 'M')
        || (head[124] == 0x02 && head[125] == 0x00 && head[126] == 'M' && head[127] == 'I');
}

/* A fixed-length string attribute of obj, into out.
 * @return 1; 2 when the attribute is a variable-length string, which is not
 * read: libhdf5 1.10 follows its global-heap reference without checking it,
 * and a damaged file then crashes inside H5Aread (found by mutating h5py's
 * files); 0 when there is none or it cannot be read. */
static int v73_string_attr(hid_t obj, const char *name, char *out, size_t cap)
{
    if (H5Aexists(obj, name) <= 0)
        return 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = a < 0 ? -1 : H5Aget_type(a);
    hid_t m = t >= 0 && H5Tget_class(t) == H5T_STRING ? H5Tcopy(H5T_C_S1) : -1;
    int ok = 0;
    if (m >= 0 && H5Tis_variable_str(t) > 0) {
        ok = 2;
    } else if (m >= 0) {
        char buf[64] = "";
        H5Tset_cset(m, H5Tget_cset(t)); /* libhdf5 converts no cset to another */
        H5Tset_size(m, sizeof buf - 1);
        H5Tset_strpad(m, H5T_STR_NULLTERM);
        ok = H5Aread(a, m, buf) >= 0;
        if (ok)
            snprintf(out, cap, "%s", buf);
    }
    if (m >= 0)
        H5Tclose(m);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return ok;
}

/* The MATLAB class of a numeric HDF5 type ("double", "int32", ...), for a
 * variable whose MATLAB_class is a variable-length string (h5py's default
 * for a str). logical cannot be told from uint8 by its type: it reads as
 * uint8, the same values. @return the class, or "" for another type. */
static const char *v73_class_of_type(hid_t t)
{
    static const char *const ints[2][4] = { { "uint8", "uint16", "uint32", "uint64" },
                                            { "int8", "int16", "int32", "int64" } };
    size_t size = H5Tget_size(t);
    int log2 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
    if (H5Tget_class(t) == H5T_INTEGER && log2 >= 0)
        return ints[H5Tget_sign(t) == H5T_SGN_2][log2];
    if (H5Tget_class(t) == H5T_FLOAT && (size == 4 || size == 8))
        return size == 4 ? "single" : "double";
    return "";
}

static int v73_flag_attr(hid_t obj, const char *name)
{
    long long v = 0;
    hid_t a = H5Aexists(obj, name) > 0 ? H5Aopen(obj, name, H5P_DEFAULT) : -1;
    if (a < 0)
        return 0;
    int ok = H5Aread(a, H5T_NATIVE_LLONG, &v) >= 0;
    H5Aclose(a);
    return ok && v != 0;
}

/* What the root object `name` is to MATLAB. @return 1, or 0 when it cannot be opened. */
static int v73_describe(hid_t file, const char *name, struct v73_var *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    hid_t o = H5Oopen(file, name, H5P_DEFAULT);
    if (o < 0)
        return 0;
    int has_class = v73_string_attr(o, "MATLAB_class", v->cls, sizeof v->cls);
    v->dataset = H5Iget_type(o) == H5I_DATASET;
    v->sparse = v73_flag_attr(o, "MATLAB_sparse");
    v->empty = v73_flag_attr(o, "MATLAB_empty");
    if (has_class == 2 && !v->dataset)  /* a struct or cell: which, unread */
        snprintf(v->cls, sizeof v->cls, "object");
    else if (has_class == 2 && v->empty) /* its dataset holds the dimensions */
        snprintf(v->cls, sizeof v->cls, "double");
    if (v->dataset) {
        hid_t t = H5Dget_type(o);
        v->complex = t >= 0 && H5Tget_class(t) == H5T_COMPOUND;
        if (t >= 0 && has_class == 2 && !v->empty)
            snprintf(v->cls, sizeof v->cls, "%s", v73_class_of_type(t));
        if (t >= 0)
            H5Tclose(t);
    }
    H5Oclose(o);
    return 1;
}

/* The dtype of a numeric MATLAB class. @return 1, or 0 for another class. */
static int v73_dtype(const struct v73_var *v, enum la_dtype *dt)
{
    static const struct { const char *cls; enum la_dtype dt; } map[] = {
        { "double", LA_DT_FLOAT64 }, { "single", LA_DT_FLOAT32 }, { "int8", LA_DT_INT8 },
        { "uint8", LA_DT_UINT8 },    { "int16", LA_DT_INT16 },    { "uint16", LA_DT_UINT16 },
        { "int32", LA_DT_INT32 },    { "uint32", LA_DT_UINT32 },  { "int64", LA_DT_INT64 },
        { "uint64", LA_DT_UINT64 },  { "logical", LA_DT_BOOL },
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(v->cls, map[i].cls)) {
            *dt = map[i].dt;
            return v->dataset && !v->complex && !v->sparse;
        }
    return 0;
}

static const char *v73_class_words(const struct v73_var *v)
{
    static const char *const words[][2] = {
        { "cell", "a cell array" }, { "struct", "a struct" }, { "char", "characters" },
        { "function_handle", "a function handle" },
    };
    if (v->sparse)
        return "a sparse matrix";
    if (v->complex)
        return "complex numbers";
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(v->cls, words[i][0]))
            return words[i][1];
    return "an object";
}

/* The variable, chosen as choose_variable chooses one in a v5 file. */
static int v73_choose(struct la_reader *r, hid_t file, struct v73_var *pick)
{
    static const char *const preferred[] = { "labels", "label", "y", "targets" };
    const char *want = array_name(r);
    H5G_info_t gi;
    struct v73_var v, first;
    int numerics = 0;
    size_t rank = 4;
    enum la_dtype dt;
    if (want)
        want += want[0] == '/';
    if (H5Gget_info(file, &gi) < 0)
        return la_reader_set_error(r, "cannot list the variables of the v7.3 file");
    for (hsize_t i = 0; i < gi.nlinks; i++) {
        char name[V73_NAME];
        ssize_t len = H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
                                         sizeof name, H5P_DEFAULT);
        if (len <= 0 || (size_t)len >= sizeof name || !v73_describe(file, name, &v) || !v.cls[0])
            continue;              /* not a variable: #refs#, #subsystem# */
        if (want && !strcmp(name, want)) {
            *pick = v;
            return 0;
        }
        if (!want && v73_dtype(&v, &dt) && numerics++ == 0)
            first = v;
        for (size_t k = 0; !want && k < rank; k++)
            if (!strcmp(name, preferred[k])) {
                *pick = v;
                rank = k;
            }
    }
    if (want)
        return la_reader_set_error(r, "no variable '%.100s' in the file", want);
    if (numerics == 1 || (numerics > 1 && rank < 4)) {
        *pick = numerics == 1 ? first : *pick;
        return 0;
    }
    if (numerics == 0)
        return la_reader_set_error(r, "no numeric variable in the file");
    return la_reader_set_error(r, "%d numeric variables (the first: %s): choose one with "
                               "--array", numerics, first.name);
}

/* The HDF5 reader on the variable's dataset; its dtype must be the class's. */
static int v73_open_inner(struct la_reader *r, struct mat_state *st, const struct v73_var *v)
{
    snprintf(st->dataset, sizeof st->dataset, "/%s", v->name);
    st->inner_opts = *la_read_opts_or_default(r->opts);
    st->inner_opts.array = st->dataset;
    st->inner = (struct la_reader){ .ops = &la_reader_hdf5, .src = r->src,
                                    .opts = &st->inner_opts, .info = r->info };
    if (la_reader_hdf5.open(&st->inner) != 0) {
        memcpy(r->err, st->inner.err, sizeof r->err);
        return -1;
    }
    enum la_dtype got = st->inner.info.dtype;
    if (got != st->dtype && !(st->dtype == LA_DT_BOOL && got == LA_DT_UINT8))
        return la_reader_set_error(r, "variable '%.100s' is of MATLAB class %s but its dataset "
                                   "holds %s", v->name, v->cls, la_dtype_info(got)->name);
    return 0;
}

/* MATLAB's shape from the dataset's (reversed); a vector is N samples. */
static int v73_shape(struct la_reader *r, struct mat_state *st)
{
    int nd = st->inner.info.ndim, big = 0;
    st->count = 1;
    for (int k = 0; k < nd; k++) {
        st->dims[k] = st->inner.info.shape[nd - 1 - k];
        st->count *= st->dims[k];
        big += st->dims[k] > 1;
    }
    st->esize = la_dtype_info(st->dtype)->size;
    st->vector = big <= 1;
    st->ndim = st->vector ? 1 : nd;
    if (st->vector)
        st->dims[0] = st->count;
    if (!st->vector && st->count * st->esize > MAT_REORDER_MAX)
        return la_reader_set_error(r, "a %llu-byte MATLAB matrix is over the %llu bytes read to "
                                   "reorder it: save the labels as a vector",
                                   (unsigned long long)(st->count * st->esize),
                                   (unsigned long long)MAT_REORDER_MAX);
    return 0;
}

/* A matrix: every value from the HDF5 reader, column-major, to gather. */
static int v73_read_whole(struct la_reader *r, struct mat_state *st)
{
    struct la_chunk c;
    int got;
    if (!(st->all = malloc(st->count ? (size_t)(st->count * st->esize) : 1)))
        return la_reader_set_error(r, "out of memory for a %llu-byte matrix",
                                   (unsigned long long)(st->count * st->esize));
    while ((got = st->inner.ops->next(&st->inner, &c)) > 0 && c.first_index + c.count <= st->count)
        memcpy(st->all + c.first_index * st->esize, c.values, c.count * st->esize);
    if (got < 0)
        memcpy(r->err, st->inner.err, sizeof r->err);
    st->inner.ops->close(&st->inner);
    st->inner.state = NULL;
    return got < 0 ? -1 : got > 0 ? la_reader_set_error(r, "the dataset holds more values than "
                                                        "its shape") : 0;
}

static int v73_open(struct la_reader *r, struct mat_state *st)
{
    struct v73_var v;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(la_source_path(r->src), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return la_reader_set_error(r, "a MATLAB v7.3 header over no HDF5 file libhdf5 opens "
                                   "(damaged?)");
    int rc = v73_choose(r, file, &v);
    H5Fclose(file);
    if (rc != 0)
        return -1;
    if (!v73_dtype(&v, &st->dtype))
        return la_reader_set_error(r, "variable '%.100s' holds %s, not numbers", v.name,
                                   v73_class_words(&v));
    st->esize = la_dtype_info(st->dtype)->size;
    if (v.empty) {            /* the dataset holds the dimensions, not values */
        st->vector = st->ndim = 1;
        st->count = st->dims[0] = 0;
    } else if (v73_open_inner(r, st, &v) != 0 || v73_shape(r, st) != 0
               || (!st->vector && v73_read_whole(r, st) != 0)) {
        return -1;
    }
    la_verbose(la_source_path(r->src), "mat: v7.3 variable '%s' read as HDF5 dataset /%s%s",
               v.name, v.name, st->vector ? "" : ", whole, to reorder MATLAB's column-major order");
    if (st->inner.state && st->dtype != LA_DT_BOOL) {   /* bool: normalized in mat_next */
        r->has_run = st->inner.has_run;
        r->run = st->inner.run;
    }
    return mat_publish(r, st);
}
#endif

static int mat_open(struct la_reader *r)
{
    struct mat_state *st = calloc(1, sizeof *st);
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    static pthread_once_t log_once = PTHREAD_ONCE_INIT;
    pthread_once(&log_once, set_log);
    const char *path = la_source_path(r->src);
    if (la_source_plain_fd(r->src) < 0 || !path || !strcmp(path, "-"))
        return la_reader_set_error(r, "MATLAB .mat is read from a file, not from %s: %s",
                                   path && strcmp(path, "-") ? "compressed input" : "standard input",
                                   "write it to a file first");
#if HAVE_HDF5
    if (is_v73(la_source_plain_fd(r->src)))
        return v73_open(r, st);
#endif
    if (mat_v5_sizes_ok(r, la_source_plain_fd(r->src)) != 0)
        return -1;
    last_log[0] = '\0';
    if (!(st->mat = Mat_Open(path, MAT_ACC_RDONLY)))
        return la_reader_set_error(r, "not a MATLAB .mat file libmatio reads (v4 files and "
                                   "damaged ones are not)%s%s", last_log[0] ? ": " : "", last_log);
    if (choose_variable(r, st) != 0 || choose_dtype(r, st) != 0 || read_shape(r, st) != 0)
        return -1;
    mat_v5_run(r, st);
    if (open_stream(r, st) != 0 || other_streams_ok(r, st) != 0 ||
        (!st->vector && read_whole(r, st) != 0))
        return -1;
    return mat_publish(r, st);
}

/* n values in C order from the column-major matrix, at the multi-index cidx. */
static void gather(struct mat_state *st, size_t n)
{
    la_gather_f_order(st->buf, st->all, st->esize, st->ndim, st->dims, st->cidx, n);
}

static int mat_next(struct la_reader *r, struct la_chunk *out)
{
    struct mat_state *st = r->state;
    if (st->inner.state) {
        int got = st->inner.ops->next(&st->inner, out);
        if (got < 0)
            memcpy(r->err, st->inner.err, sizeof r->err);
        if (got > 0 && st->dtype == LA_DT_BOOL) {     /* logical's uint8: bytes 2..255 are 1 */
            if (la_grow(&st->bools, &st->bools_cap, out->count, MAT_CHUNK) != 0)
                return la_reader_set_error(r, "out of memory");
            memcpy(st->bools, out->values, out->count);
            la_bool_normalize(st->bools, out->count);
            out->values = st->bools;
            out->dtype = LA_DT_BOOL;
        }
        return got;
    }
    if (st->done == st->count)
        return 0;
    uint64_t left = st->count - st->done;
    size_t n = MAT_CHUNK / st->esize;
    n = left < n ? (size_t)left : n;
    if (st->vector && st->z) {
        if (stream_values(r, st, st->buf, n) != 0)
            return -1;
    } else if (st->vector) {
        last_log[0] = '\0';
        if (Mat_VarReadDataLinear(st->mat, st->var, st->buf, (int)st->done, 1, (int)n) != 0)
            return la_reader_set_error(r, "cannot read elements %llu.. of variable '%.100s'%s%s",
                                       (unsigned long long)st->done, st->var->name,
                                       last_log[0] ? ": " : " (damaged file)", last_log);
    } else {
        gather(st, n);
    }
    if (st->dtype == LA_DT_BOOL)
        la_bool_normalize(st->buf, n);
    *out = (struct la_chunk){ st->dtype, st->buf, n, st->done, NULL };
    st->done += n;
    return 1;
}

static void mat_close(struct la_reader *r)
{
    struct mat_state *st = r->state;
    if (!st)
        return;
    if (st->inner.state)    /* through ops: without HDF5 nothing names its reader */
        st->inner.ops->close(&st->inner);
    z_close(st->z);
    if (st->var)
        Mat_VarFree(st->var);
    if (st->mat)
        Mat_Close(st->mat);
    free(st->buf);
    free(st->all);
    free(st->bools);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_mat = { mat_open, mat_next, mat_close };
