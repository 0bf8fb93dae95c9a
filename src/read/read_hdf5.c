/* read_hdf5.c - one dataset of an HDF5 file (.h5, .hdf5), through libhdf5.
 *
 * --array names the dataset by its path ("/y", "/train/labels"); without it
 * the file's only numeric dataset is read, else the first of labels, label,
 * y, targets at the root. The dataset is read in hyperslabs of at most
 * H5_BLOCK bytes, in C order (HDF5's own), converted by the library to host
 * byte order, so a chunked, gzip- or shuffle-filtered dataset of any size
 * scans in bounded memory. The first axis counts the samples, so
 * PatchCamelyon's (N, 1, 1, 1) labels are N samples of one value each.
 *
 * A contiguous, unfiltered dataset of a native-order type lies in the file
 * exactly as H5Dread would give it: it is offered to audit.c as a run
 * (reader.h) to map and scan in place, with no copy and no libhdf5 call.
 * A chunked one of a native-order type whose filters are gzip, or shuffle
 * then gzip (h5py's compression="gzip", shuffle=True), is read chunk by
 * chunk as stored (H5Dread_chunk) and inflated several chunks at a time on
 * the scheduler's threads, then laid out in C order as H5Dread would lay it: a
 * batch of whole chunk rows along the first axis, a few MiB, at a time.
 * Everything else (other filters, big-endian, bool, a fill value left
 * undefined) goes through H5Dread. LABELAUDIT_HDF5_SLOW=1 sends every
 * dataset through H5Dread (tests compare the two).
 *
 * libhdf5 opens files by name and seeks in them: standard input and
 * compressed input are refused by name (decompress to a file first). */
#include "config.h"  /* HAVE_LIBDEFLATE */
#include "reader.h"

#include <hdf5.h>
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, malloc, free, getenv, atoll */
#include <string.h> /* strcmp */
#include <sys/stat.h> /* fstat */
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h> /* libdeflate_zlib_decompress: about twice zlib's speed */
#define H5_INFLATER "libdeflate"
#else
#include <zlib.h>       /* inflate */
#define H5_INFLATER "zlib"
#endif

#include "msg.h"      /* la_verbose: -v says which path reads the dataset */
#include "scheduler.h" /* chunks inflated as tasks on several threads */
#include "util.h"     /* la_grow, la_online_cpus */

#define H5_BLOCK (4u << 20)
/* Over 2^48 elements is no label array: a lying dataspace, refused early. */
#define H5_MAX_ELEMENTS ((uint64_t)1 << 48)

/* Chunked gzip read chunk by chunk: the limits of a chunk and of one chunk
 * row (all the chunks at one index of the chunk grid's first axis), beyond
 * which H5Dread reads instead, and the output bytes of a batch: two chunks
 * per thread, from 1 MiB (small enough that the batch is still in cache when
 * audit.c copies and scans it: 1 MiB took 139 ms of CPU on the bench's
 * h5-gzip where 4 MiB took 148 to 197) to 8 MiB. */
#define H5_MAX_CHUNK ((size_t)16 << 20)
#define H5_MAX_SLAB ((size_t)16 << 20)
#define H5_BATCH ((size_t)1 << 20)

struct h5_job {                   /* one chunk of a batch */
    hsize_t origin[LA_MAX_DIMS];  /* its first element's coordinates */
    size_t raw_off, raw_len;      /* its stored bytes in raw[]; raw_len 0: never written */
    unsigned mask;                /* the filters skipped when it was written (bit i: filter i) */
    int bad;                      /* set by the thread that could not decode it */
};

struct h5_worker {                /* one scheduler thread's own */
#ifdef HAVE_LIBDEFLATE
    struct libdeflate_decompressor *d;
#else
    z_stream z;
    int z_ready;
#endif
    unsigned char *a, *b;         /* chunk_bytes each: inflated, unshuffled */
};

struct h5_chunks {
    int on;
    int shuffle;                  /* 1: [shuffle, deflate]; 0: [deflate] */
    unsigned deflate_bit;         /* the mask bit saying deflate was skipped */
    size_t esize, chunk_bytes;
    hsize_t cdims[LA_MAX_DIMS], grid[LA_MAX_DIMS];
    hsize_t inner0;               /* elements per index of axis 0 */
    int contiguous;               /* chunks span every axis but the first: each one
                                     is a run of the C-order output */
    hsize_t per_slab, slabs, next_slab, batch_slabs, row0;
    unsigned char fill[16];
    unsigned char *out;           /* batch_slabs chunk rows, in C order */
    unsigned char *raw;           /* the batch's stored chunks */
    size_t raw_cap;
    struct h5_job *jobs;
    size_t njobs;
    struct la_sched *sched;       /* inflates the batch's chunks, a task each */
    struct la_batch batch;
    struct h5_worker *w;          /* a worker's own, by its number */
    int nthreads;
};

struct h5_state {
    hid_t file, dset, space, memtype;
    enum la_dtype dtype;
    int ndim;
    hsize_t dims[LA_MAX_DIMS];
    int split;                    /* the axis read in blocks; those before it one at a time */
    hsize_t block;                /* indices of axis split per read */
    hsize_t inner;                /* elements per index of axis split */
    hsize_t idx[LA_MAX_DIMS];     /* the next read's start */
    uint64_t count, done;
    unsigned char *buf;
    char found[256];              /* the default rule's pick */
    char unopenable[512];         /* why libhdf5 could not open a dataset of the walk */
    int numeric;                  /* numeric datasets seen by the walk */
    struct h5_chunks ch;          /* the chunk-by-chunk path, when ch.on */
};

/* LABELAUDIT_HDF5_SLOW=1: every dataset through H5Dread (tests compare). */
static int slow_only(void)
{
    const char *env = getenv("LABELAUDIT_HDF5_SLOW");
    return env && !strcmp(env, "1");
}

/* --array, through one accessor so the options' shape is known here only. */
static const char *array_name(const struct la_reader *r)
{
    return r->opts ? r->opts->array : NULL;
}

// ---- the element type -----------------------------------------------------------

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_STRING: return "strings";
    case H5T_COMPOUND: return "a compound (structured) type";
    case H5T_OPAQUE: return "opaque bytes";
    case H5T_VLEN: return "variable-length sequences";
    case H5T_ARRAY: return "an array type";
    case H5T_REFERENCE: return "object references";
    case H5T_BITFIELD: return "a bitfield";
    case H5T_TIME: return "a time type";
    default: return "an unknown type";
    }
}

/* h5py's bool: a 1-byte enum whose members are exactly FALSE = 0 and
 * TRUE = 1 (h5py reads it as numpy's bool). Any other enum holds integers
 * that h5py, and torch after it, read as its base type's values: an enum
 * {RED: 0, GREEN: 1, BLUE: 42} holding 42 is the class 42, not true. */
static int is_h5py_bool(hid_t ftype)
{
    if (H5Tget_size(ftype) != 1 || H5Tget_nmembers(ftype) != 2)
        return 0;
    int ok = 1;
    for (unsigned i = 0; i < 2 && ok; i++) {
        char *name = H5Tget_member_name(ftype, i);
        signed char value = -1;
        ok = name && H5Tget_member_value(ftype, i, &value) >= 0
             && !strcmp(name, value == 0 ? "FALSE" : value == 1 ? "TRUE" : "");
        H5free_memory(name);
    }
    return ok;
}

/* The dtype and the memory type that libhdf5 converts the file's values to:
 * native integers and floats of the same width (float16 kept as half bits in
 * host order); h5py's bool as bool; any other enum as its base integer type
 * (libhdf5 converts an enum to an integer by value, members or not). */
static int choose_type(struct la_reader *r, struct h5_state *st, hid_t ftype)
{
    static const struct { size_t size; int sign; enum la_dtype dt; } ints[] = {
        { 1, 1, LA_DT_INT8 }, { 1, 0, LA_DT_UINT8 }, { 2, 1, LA_DT_INT16 },
        { 2, 0, LA_DT_UINT16 }, { 4, 1, LA_DT_INT32 }, { 4, 0, LA_DT_UINT32 },
        { 8, 1, LA_DT_INT64 }, { 8, 0, LA_DT_UINT64 },
    };
    H5T_class_t c = H5Tget_class(ftype);
    size_t size = H5Tget_size(ftype);
    if (c == H5T_ENUM && is_h5py_bool(ftype)) {
        st->dtype = LA_DT_BOOL;
        st->memtype = H5Tcopy(H5T_NATIVE_INT8);
        return 0;
    }
    if (c == H5T_INTEGER || c == H5T_ENUM) {
        hid_t base = c == H5T_ENUM ? H5Tget_super(ftype) : H5Tcopy(ftype);
        int sign = base >= 0 && H5Tget_sign(base) == H5T_SGN_2;
        for (size_t i = 0; base >= 0 && i < sizeof ints / sizeof *ints; i++)
            if (ints[i].size == size && ints[i].sign == sign) {
                st->dtype = ints[i].dt;
                st->memtype = H5Tget_native_type(base, H5T_DIR_ASCEND);
                break;
            }
        if (base >= 0)
            H5Tclose(base);
        if (st->memtype >= 0)
            return 0;
    }
    if (c == H5T_FLOAT && (size == 4 || size == 8)) {
        st->dtype = size == 4 ? LA_DT_FLOAT32 : LA_DT_FLOAT64;
        st->memtype = H5Tcopy(size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
        return 0;
    }
    if (c == H5T_FLOAT && size == 2) {             /* IEEE half, as h5py writes float16 */
        st->dtype = LA_DT_FLOAT16;
        st->memtype = H5Tcopy(ftype);
        H5Tset_order(st->memtype, la_host_is_big_endian() ? H5T_ORDER_BE : H5T_ORDER_LE);
        return 0;
    }
    if (c == H5T_INTEGER || c == H5T_FLOAT || c == H5T_ENUM)
        return la_reader_set_error(r, "dataset of %zu-byte %s: not a type labels come in", size,
                                   c == H5T_FLOAT ? "floats" : c == H5T_ENUM ? "enums" : "integers");
    return la_reader_set_error(r, "dataset holds %s, not numbers", class_name(c));
}

// ---- choosing the dataset -------------------------------------------------------

/* The innermost reason libhdf5 gave for its last failure on this thread
 * ("bad version number for datatype message"), or "". */
static herr_t first_reason(unsigned n, const H5E_error2_t *e, void *data)
{
    char *why = data;
    if (n == 0 && e->desc)
        snprintf(why, 160, "%s", e->desc);
    return 0;
}

/* A dataset that exists but that this libhdf5 cannot open: most often one
 * written in a newer file format than it reads (h5py's libver='latest' with
 * HDF5 1.12 or later encodes an enum's type so that 1.10 refuses it). */
static void note_unopenable(struct h5_state *st, const char *name)
{
    if (st->unopenable[0])
        return;
    char why[160] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_reason, why);
    unsigned major, minor, release;
    H5get_libversion(&major, &minor, &release);
    snprintf(st->unopenable, sizeof st->unopenable, "libhdf5 %u.%u.%u cannot open dataset "
             "'%s%.120s'%s%.160s (written in a newer HDF5 format? h5py's libver='latest' writes one; "
             "write it with libver='v110')", major, minor, release, name[0] == '/' ? "" : "/",
             name, why[0] ? ": " : "", why);
}

/* @return 1 for a dataset of numbers, 0 for one of another type, -1 for one
 * libhdf5 cannot open (its reason kept in st->unopenable). */
static int is_numeric_dataset(struct h5_state *st, hid_t loc, const char *name)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) {
        note_unopenable(st, name);
        return -1;
    }
    hid_t t = H5Dget_type(d);
    H5T_class_t c = H5Tget_class(t);
    H5Tclose(t);
    H5Dclose(d);
    return c == H5T_INTEGER || c == H5T_FLOAT || c == H5T_ENUM;
}

/* H5Ovisit's callback: count the numeric datasets, remember the first.
 * libhdf5 1.12 changed its object info (H5O_info2_t, H5Ovisit3). */
#if H5_VERSION_GE(1, 12, 0)
typedef H5O_info2_t la_h5_info;
#define LA_H5_VISIT(f, cb, data) H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, cb, data, H5O_INFO_BASIC)
#else
typedef H5O_info_t la_h5_info;
#define LA_H5_VISIT(f, cb, data) H5Ovisit1(f, H5_INDEX_NAME, H5_ITER_INC, cb, data)
#endif
static int is_dataset(hid_t loc, const char *name)
{
    la_h5_info info;
#if H5_VERSION_GE(1, 12, 0)
    herr_t rc = H5Oget_info_by_name3(loc, name, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#else
    herr_t rc = H5Oget_info_by_name2(loc, name, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#endif
    return rc >= 0 && info.type == H5O_TYPE_DATASET;
}

static herr_t visit(hid_t root, const char *name, const la_h5_info *info, void *data)
{
    struct h5_state *st = data;
    /* one that cannot be opened may hold the labels: a candidate all the same */
    if (info->type != H5O_TYPE_DATASET || !is_numeric_dataset(st, root, name))
        return 0;
    if (st->numeric++ == 0)
        snprintf(st->found, sizeof st->found, "/%s", name);
    return st->numeric > 64;       /* enough to know there are several */
}

static int choose_dataset(struct la_reader *r, struct h5_state *st, const char **name)
{
    static const char *const preferred[] = { "/labels", "/label", "/y", "/targets" };
    if ((*name = array_name(r)))
        return 0;
    if (LA_H5_VISIT(st->file, visit, st) < 0)
        return la_reader_set_error(r, "cannot walk the file's groups");
    if (st->numeric == 1) {
        *name = st->found;
        return 0;
    }
    for (size_t i = 0; i < sizeof preferred / sizeof *preferred; i++)
        if (H5Lexists(st->file, preferred[i], H5P_DEFAULT) > 0
            && is_numeric_dataset(st, st->file, preferred[i])) {
            *name = preferred[i];
            return 0;
        }
    if (st->numeric == 0)
        return la_reader_set_error(r, "no numeric dataset in the file");
    return la_reader_set_error(r, "%d numeric datasets (the first: %.100s): choose one with "
                               "--array /PATH", st->numeric, st->found);
}

// ---- the dataspace and the blocks -------------------------------------------------

static int read_space(struct la_reader *r, struct h5_state *st)
{
    st->space = H5Dget_space(st->dset);
    int nd = st->space < 0 ? -1 : H5Sget_simple_extent_ndims(st->space);
    if (nd < 0)
        return la_reader_set_error(r, "cannot read the dataset's dataspace");
    if (nd > LA_MAX_DIMS)
        return la_reader_set_error(r, "dataset of %d dimensions (at most %d)", nd, LA_MAX_DIMS);
    st->ndim = nd;
    H5Sget_simple_extent_dims(st->space, st->dims, NULL);
    st->count = H5Sget_simple_extent_type(st->space) == H5S_NULL ? 0 : 1;
    for (int k = 0; k < nd; k++) {
        if (st->dims[k] && st->count > H5_MAX_ELEMENTS / st->dims[k])
            return la_reader_set_error(r, "dataset claims over 2^48 elements: refused");
        st->count *= st->dims[k];
    }
    return 0;
}

/* The axis to read in blocks: the first whose trailing axes fit H5_BLOCK
 * whole; each read is one index of the axes before it. */
static void plan_blocks(struct h5_state *st)
{
    /* LABELAUDIT_HDF5_BLOCK (bytes, for tests) makes reads small enough to
     * cut a small dataset at every axis */
    const char *env = getenv("LABELAUDIT_HDF5_BLOCK");
    hsize_t bytes = env && atoll(env) > 0 && atoll(env) < H5_BLOCK ? (hsize_t)atoll(env) : H5_BLOCK;
    hsize_t per = bytes / la_dtype_info(st->dtype)->size;
    per = per ? per : 1;
    st->split = 0;
    st->inner = 1;
    st->block = 1;
    if (st->ndim == 0 || st->count == 0)
        return;
    for (int s = 0; s < st->ndim; s++) {
        hsize_t inner = 1;
        for (int k = s + 1; k < st->ndim; k++)
            inner *= st->dims[k];
        if (inner <= per) {
            st->split = s;
            st->inner = inner;
            st->block = per / inner < st->dims[s] ? per / inner : st->dims[s];
            return;
        }
    }
}

// ---- values read in place ----------------------------------------------------------

/* Whether the file's values are, byte for byte, what H5Dread gives in the
 * memory type: the same native-order type, or an enum of it (bool excepted:
 * an enum of int8 whose bytes 2..255 must read as 1). */
static int native_in_file(const struct h5_state *st, hid_t ftype)
{
    if (st->dtype == LA_DT_BOOL)
        return 0;
    hid_t values = H5Tget_class(ftype) == H5T_ENUM ? H5Tget_super(ftype) : H5Tcopy(ftype);
    int same = values >= 0 && H5Tequal(values, st->memtype) > 0;
    if (values >= 0)
        H5Tclose(values);
    return same;
}

/* A contiguous dataset with no filter and no external file, allocated, of a
 * native type, every element read (nothing narrows the selection): offer its
 * bytes as a run. H5Dget_offset is the absolute offset in the file, a
 * userblock (MATLAB v7.3's 512 bytes) included. */
static void offer_run(struct la_reader *r, struct h5_state *st, hid_t dcpl, int native)
{
    int fd = la_source_plain_fd(r->src);
    size_t esize = la_dtype_info(st->dtype)->size;
    struct stat sb;
    if (!native || fd < 0 || st->count == 0 || dcpl < 0 || slow_only()
        || H5Pget_layout(dcpl) != H5D_CONTIGUOUS
        || H5Pget_nfilters(dcpl) != 0 || H5Pget_external_count(dcpl) != 0)
        return;
    haddr_t off = H5Dget_offset(st->dset);
    if (off == HADDR_UNDEF || off % esize != 0 || fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < off
        || ((uint64_t)sb.st_size - off) / esize < st->count)
        return;     /* a file cut short: H5Dread says so */
    r->has_run = 1;
    r->run = (struct la_file_run){ fd, (uint64_t)off, st->count, st->dtype };
}

// ---- gzip chunks, inflated on the scheduler ---------------------------------------

#if H5_VERSION_GE(1, 10, 5)   /* H5Dget_chunk_info_by_coord, H5Dread_chunk */
/* The pipeline, if it is exactly [deflate] or [shuffle, deflate] with a
 * shuffle of this element size. @return 1 and ch->shuffle, deflate_bit set, or 0. */
static int gzip_pipeline(hid_t dcpl, struct h5_chunks *ch)
{
    int n = H5Pget_nfilters(dcpl);
    H5Z_filter_t id[2];
    unsigned cd[2][8];
    if (n < 1 || n > 2)
        return 0;
    for (int i = 0; i < n; i++) {
        unsigned flags, config;
        size_t ncd = 8;
        char name[64];
        cd[i][0] = 0;
        id[i] = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd[i], sizeof name, name, &config);
        if (id[i] < 0 || (id[i] == H5Z_FILTER_SHUFFLE && ncd < 1))
            return 0;
    }
    if (id[n - 1] != H5Z_FILTER_DEFLATE)
        return 0;
    if (n == 2 && (id[0] != H5Z_FILTER_SHUFFLE || cd[0][0] != ch->esize))
        return 0;
    ch->shuffle = n == 2;
    ch->deflate_bit = 1u << (n - 1);
    return 1;
}

/* The fill value of chunks never written, as H5Dread gives it: set (or
 * libhdf5's default, zeros) and written when a chunk is. @return 1, or 0
 * when left undefined or never written (then H5Dread decides). */
static int fill_value(hid_t dcpl, struct h5_state *st)
{
    H5D_fill_value_t status;
    H5D_fill_time_t when;
    if (H5Pfill_value_defined(dcpl, &status) < 0 || H5Pget_fill_time(dcpl, &when) < 0
        || (status != H5D_FILL_VALUE_DEFAULT && status != H5D_FILL_VALUE_USER_DEFINED)
        || (when != H5D_FILL_TIME_IFSET && when != H5D_FILL_TIME_ALLOC))
        return 0;
    memset(st->ch.fill, 0, sizeof st->ch.fill);
    return H5Pget_fill_value(dcpl, st->memtype, st->ch.fill) >= 0;
}

static int threads_for(const struct la_reader *r)
{
    int n = la_read_opts_or_default(r->opts)->threads;
    n = n > 0 ? n : la_online_cpus();
    return n < LA_SCHED_MAX ? n : LA_SCHED_MAX;
}

/* Whether the chunk-by-chunk path can read the dataset, and its plan. */
static int plan_chunks(struct la_reader *r, struct h5_state *st, hid_t dcpl, int native)
{
    struct h5_chunks *ch = &st->ch;
    ch->esize = la_dtype_info(st->dtype)->size;
    if (!native || st->count == 0 || st->ndim < 1 || dcpl < 0 || slow_only()
        || H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_external_count(dcpl) != 0
        || !gzip_pipeline(dcpl, ch) || !fill_value(dcpl, st)
        || H5Pget_chunk(dcpl, st->ndim, ch->cdims) != st->ndim)
        return 0;
    size_t elems = 1;
    ch->inner0 = 1;
    ch->per_slab = 1;
    ch->contiguous = 1;
    for (int k = 0; k < st->ndim; k++) {
        if (ch->cdims[k] == 0 || ch->cdims[k] > H5_MAX_CHUNK / ch->esize / elems)
            return 0;
        elems *= (size_t)ch->cdims[k];
        ch->grid[k] = (st->dims[k] + ch->cdims[k] - 1) / ch->cdims[k];
        if (k > 0) {
            ch->inner0 *= st->dims[k];
            ch->per_slab *= ch->grid[k];
            ch->contiguous &= ch->cdims[k] == st->dims[k];
        }
    }
    ch->chunk_bytes = elems * ch->esize;
    /* one chunk row's output, and its chunks, must fit a batch of bounded size */
    if (ch->inner0 > H5_MAX_SLAB / ch->esize / ch->cdims[0] || ch->per_slab > H5_MAX_SLAB / 64)
        return 0;
    size_t slab = (size_t)(ch->cdims[0] * ch->inner0) * ch->esize;
    ch->nthreads = threads_for(r);
    size_t want = 2 * (size_t)ch->nthreads * ch->chunk_bytes;
    want = want < H5_BATCH ? H5_BATCH : want > 8 * H5_BATCH ? 8 * H5_BATCH : want;
    ch->slabs = ch->grid[0];
    ch->batch_slabs = want / slab ? want / slab : 1;
    ch->batch_slabs = ch->batch_slabs < ch->slabs ? ch->batch_slabs : ch->slabs;
    if (!(ch->out = malloc((size_t)ch->batch_slabs * slab))
        || !(ch->jobs = calloc((size_t)(ch->batch_slabs * ch->per_slab), sizeof *ch->jobs))
        || !(ch->sched = la_sched_open(ch->nthreads)))
        return -1;
    ch->nthreads = la_sched_threads(ch->sched);
    if (!(ch->w = calloc((size_t)ch->nthreads, sizeof *ch->w)))
        return -1;
    for (int t = 0; t < ch->nthreads; t++)
        if (!(ch->w[t].a = malloc(ch->chunk_bytes)) || !(ch->w[t].b = malloc(ch->chunk_bytes)))
            return -1;
    ch->on = 1;
    la_verbose(la_source_path(r->src), "hdf5: %llu chunks of %zu bytes (%s), read as stored and "
               "inflated on %d thread%s (%s), %llu chunk rows at a time", (unsigned long long)
               (ch->slabs * ch->per_slab), ch->chunk_bytes, ch->shuffle ? "shuffle, gzip" : "gzip",
               ch->nthreads, ch->nthreads == 1 ? "" : "s", H5_INFLATER,
               (unsigned long long)ch->batch_slabs);
    return 0;
}

/* HDF5's shuffle undone: byte j of element i was stored at j * n + i. */
static void unshuffle(const unsigned char *in, unsigned char *out, size_t bytes, size_t esize)
{
    size_t n = bytes / esize;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < esize; j++)
            out[i * esize + j] = in[j * n + i];
    memcpy(out + n * esize, in + n * esize, bytes - n * esize);
}

/* Inflate a zlib stream (HDF5's deflate filter writes zlib's format, its
 * Adler-32 checked) to exactly len bytes. @return 0, or -1 (damaged). */
static int inflate_exact(struct h5_worker *w, const unsigned char *in, size_t in_len,
                         unsigned char *out, size_t len)
{
#ifdef HAVE_LIBDEFLATE
    if (!w->d && !(w->d = libdeflate_alloc_decompressor()))
        return -1;
    return libdeflate_zlib_decompress(w->d, in, in_len, out, len, NULL) == LIBDEFLATE_SUCCESS
        ? 0 : -1;
#else
    if (!w->z_ready) {
        memset(&w->z, 0, sizeof w->z);
        if (inflateInit(&w->z) != Z_OK)
            return -1;
        w->z_ready = 1;
    } else if (inflateReset(&w->z) != Z_OK) {
        return -1;
    }
    w->z.next_in = (Bytef *)in;
    w->z.avail_in = (uInt)in_len;
    w->z.next_out = out;
    w->z.avail_out = (uInt)len;
    return inflate(&w->z, Z_FINISH) == Z_STREAM_END && w->z.avail_out == 0 ? 0 : -1;
#endif
}

/* Lay a chunk's valid part (ext, from origin) into the batch's C-order
 * output: from src, a whole chunk in C order, or the fill value when NULL. */
static void scatter(struct h5_state *st, const hsize_t *origin, const hsize_t *ext,
                    const unsigned char *src)
{
    struct h5_chunks *ch = &st->ch;
    int nd = st->ndim;
    size_t es = ch->esize, run = (size_t)ext[nd - 1] * es;
    hsize_t j[LA_MAX_DIMS] = { 0 };
    for (;;) {
        size_t from = 0, to = (size_t)(origin[0] + j[0] - ch->row0);
        for (int k = 1; k < nd; k++)
            to = to * (size_t)st->dims[k] + (size_t)(origin[k] + j[k]);
        for (int k = 0; k < nd; k++)
            from = from * (size_t)ch->cdims[k] + (size_t)j[k];
        unsigned char *dst = ch->out + to * es;
        if (src)
            memcpy(dst, src + from * es, run);
        else
            for (size_t b = 0; b < run; b += es)
                memcpy(dst + b, ch->fill, es);
        int k = nd - 2;
        while (k >= 0 && ++j[k] == ext[k])
            j[k--] = 0;
        if (k < 0)
            return;
    }
}

/* One chunk into the output. @return 0, or -1 (damaged). */
static int decode(struct h5_state *st, struct h5_worker *w, const struct h5_job *jb)
{
    struct h5_chunks *ch = &st->ch;
    hsize_t ext[LA_MAX_DIMS];
    int whole = 1;
    for (int k = 0; k < st->ndim; k++) {
        hsize_t left = st->dims[k] - jb->origin[k];
        ext[k] = left < ch->cdims[k] ? left : ch->cdims[k];
        whole &= ext[k] == ch->cdims[k];
    }
    if (jb->raw_len == 0) {
        scatter(st, jb->origin, ext, NULL);
        return 0;
    }
    /* a whole chunk spanning the trailing axes is decoded where it belongs */
    int direct = whole && ch->contiguous;
    unsigned char *dest = ch->out + (size_t)((jb->origin[0] - ch->row0) * ch->inner0) * ch->esize;
    int unshuf = ch->shuffle && !(jb->mask & 1u) && ch->esize > 1;
    const unsigned char *src = ch->raw + jb->raw_off;
    if (!(jb->mask & ch->deflate_bit)) {
        unsigned char *to = direct && !unshuf ? dest : w->a;
        if (inflate_exact(w, src, jb->raw_len, to, ch->chunk_bytes) != 0)
            return -1;
        src = to;
    } else if (jb->raw_len != ch->chunk_bytes) {
        return -1;      /* stored as it is, it must be the chunk's bytes */
    }
    if (unshuf) {
        unsigned char *to = direct ? dest : w->b;
        unshuffle(src, to, ch->chunk_bytes, ch->esize);
        src = to;
    }
    if (!direct)
        scatter(st, jb->origin, ext, src);
    else if (src != dest)
        memcpy(dest, src, ch->chunk_bytes);
    return 0;
}

/* Chunk j of the batch, on worker's inflater. A damaged one ends the batch:
 * the chunks after it that no thread has begun are not decoded. */
static void decode_task(void *ctx, int worker, size_t j)
{
    struct h5_state *st = ctx;
    struct h5_chunks *ch = &st->ch;
    if (decode(st, &ch->w[worker], &ch->jobs[j]) != 0) {
        ch->jobs[j].bad = 1;
        la_sched_stop(ch->sched, &ch->batch, j + 1);
    }
}

static int chunk_error(struct la_reader *r, const hsize_t *origin, int ndim, const char *why)
{
    char at[LA_MAX_DIMS * 24] = "", *p = at;
    for (int k = 0; k < ndim; k++)
        p += snprintf(p, sizeof at - (size_t)(p - at), "%s%llu", k ? ", " : "",
                      (unsigned long long)origin[k]);
    return la_reader_set_error(r, "the chunk at (%s): %s", at, why);
}

/* Read the stored chunks of the next batch of chunk rows (libhdf5 on this
 * thread), decode them on the scheduler, hand the rows over as one chunk. */
static int chunks_next(struct la_reader *r, struct la_chunk *out)
{
    struct h5_state *st = r->state;
    struct h5_chunks *ch = &st->ch;
    if (st->done == st->count)
        return 0;
    hsize_t ns = ch->slabs - ch->next_slab < ch->batch_slabs ? ch->slabs - ch->next_slab
                                                              : ch->batch_slabs;
    size_t used = 0, limit = 2 * ch->chunk_bytes + 4096;
    ch->row0 = ch->next_slab * ch->cdims[0];
    ch->njobs = 0;
    for (hsize_t s = 0; s < ns; s++)
        for (hsize_t c = 0; c < ch->per_slab; c++) {
            struct h5_job *jb = &ch->jobs[ch->njobs++];
            haddr_t addr;
            hsize_t size = 0, rest = c;
            *jb = (struct h5_job){ .raw_off = used };
            for (int k = st->ndim - 1; k > 0; k--) {
                jb->origin[k] = rest % ch->grid[k] * ch->cdims[k];
                rest /= ch->grid[k];
            }
            jb->origin[0] = ch->row0 + s * ch->cdims[0];
            /* H5Dget_chunk_storage_size costs 0.5 us a chunk, _info_by_coord
             * 13 to 20 (libhdf5 1.10.8): the latter only when the former fails,
             * as it does for a chunk never written */
            if (H5Dget_chunk_storage_size(st->dset, jb->origin, &size) < 0 || size == 0) {
                if (H5Dget_chunk_info_by_coord(st->dset, jb->origin, &jb->mask, &addr, &size) < 0)
                    return chunk_error(r, jb->origin, st->ndim, "cannot find it (a damaged file)");
                if (addr == HADDR_UNDEF)
                    continue;                       /* never written: the fill value */
            }
            if (size == 0 || size > limit)
                return chunk_error(r, jb->origin, st->ndim, "stored size out of range (a damaged file)");
            if (la_grow(&ch->raw, &ch->raw_cap, used + (size_t)size, 1 << 20) != 0)
                return la_reader_set_error(r, "out of memory");
            uint32_t mask = 0;
            if (H5Dread_chunk(st->dset, H5P_DEFAULT, jb->origin, &mask, ch->raw + used) < 0)
                return chunk_error(r, jb->origin, st->ndim, "cannot read it (a damaged file)");
            jb->mask = mask;
            jb->raw_len = (size_t)size;
            used += (size_t)size;
        }
    la_sched_submit(ch->sched, &ch->batch, ch->njobs, decode_task, st);
    la_sched_wait(ch->sched, &ch->batch);
    for (size_t j = 0; j < ch->njobs; j++)
        if (ch->jobs[j].bad)
            return chunk_error(r, ch->jobs[j].origin, st->ndim,
                               "does not inflate to its size (a damaged file)");
    hsize_t rows = st->dims[0] - ch->row0 < ns * ch->cdims[0] ? st->dims[0] - ch->row0
                                                               : ns * ch->cdims[0];
    size_t n = (size_t)(rows * ch->inner0);
    *out = (struct la_chunk){ st->dtype, ch->out, n, st->done, NULL };
    st->done += n;
    ch->next_slab += ns;
    return 1;
}

static void chunks_free(struct h5_chunks *ch)
{
    la_sched_close(ch->sched);
    for (int t = 0; ch->w && t < ch->nthreads; t++) {
#ifdef HAVE_LIBDEFLATE
        if (ch->w[t].d)
            libdeflate_free_decompressor(ch->w[t].d);
#else
        if (ch->w[t].z_ready)
            inflateEnd(&ch->w[t].z);
#endif
        free(ch->w[t].a);
        free(ch->w[t].b);
    }
    free(ch->w);
    free(ch->jobs);
    free(ch->raw);
    free(ch->out);
}
#else
static int plan_chunks(struct la_reader *r, struct h5_state *st, hid_t dcpl, int native)
{
    (void)r, (void)st, (void)dcpl, (void)native;
    return 0;
}
static int chunks_next(struct la_reader *r, struct la_chunk *out)
{
    (void)r, (void)out;
    return -1;
}
static void chunks_free(struct h5_chunks *ch)
{
    (void)ch;
}
#endif

/* ---- H5Dread of filtered chunks: a chunk cache that holds them -----------------
 * libhdf5 inflates a filtered chunk whole for each H5Dread that touches it,
 * unless its chunk cache (1 MiB by default) holds the chunk: read in H5_BLOCK
 * slices, a dataset of gzip chunks over 1 MiB was inflated again for every
 * slice (one 64 MiB chunk: 16 times; 1 GiB: 256 times). Such a dataset is
 * reopened with a cache of a chunk row (the chunks at one index of the chunk
 * grid's first axis: all that consecutive slices share) and one chunk more,
 * at most H5_CACHE_MAX but always at least one chunk, the fully read ones
 * evicted first. One chunk's values may take at most H5_CACHE_MAX: libhdf5
 * holds a chunk whole, so a larger one is refused by name. */
#define H5_CACHE_MAX ((uint64_t)1 << 30)
#define H5_CACHE_DEFAULT ((uint64_t)1 << 20)

/* The bytes of one chunk and of a chunk row plus one chunk; 0, 0 when the
 * dataset has no filtered chunks. */
static void chunk_costs(const struct h5_state *st, hid_t dcpl, uint64_t *chunk, uint64_t *want)
{
    hsize_t cdims[LA_MAX_DIMS];
    *chunk = *want = 0;
    if (dcpl < 0 || st->ndim < 1 || H5Pget_layout(dcpl) != H5D_CHUNKED
        || H5Pget_nfilters(dcpl) <= 0 || H5Pget_chunk(dcpl, st->ndim, cdims) != st->ndim)
        return;
    hid_t ft = H5Dget_type(st->dset);
    uint64_t bytes = ft >= 0 ? H5Tget_size(ft) : 0, row = 1;
    if (ft >= 0)
        H5Tclose(ft);
    for (int k = 0; k < st->ndim; k++) {
        bytes = cdims[k] && bytes > UINT64_MAX / 2 / cdims[k] ? UINT64_MAX / 2 : bytes * cdims[k];
        if (k > 0 && cdims[k])
            row *= (st->dims[k] + cdims[k] - 1) / cdims[k];
        row = row < (1u << 20) ? row : 1u << 20;
    }
    *chunk = bytes;
    *want = bytes > H5_CACHE_MAX / (row + 1) ? H5_CACHE_MAX : bytes * (row + 1);
    *want = *want > bytes ? *want : bytes + (bytes >> 4);   /* one chunk fits, whatever the cap */
}

/* Reopen the dataset with its chunk cache (see above) when H5Dread reads it. */
static int size_chunk_cache(struct la_reader *r, struct h5_state *st, const char *name, hid_t dcpl)
{
    uint64_t chunk, want;
    chunk_costs(st, dcpl, &chunk, &want);
    if (chunk > H5_CACHE_MAX)
        return la_reader_set_error(r, "chunks of %llu bytes: over the %llu bytes one chunk may "
                                   "take (libhdf5 inflates a chunk whole)",
                                   (unsigned long long)chunk, (unsigned long long)H5_CACHE_MAX);
    if (want <= H5_CACHE_DEFAULT)
        return 0;
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS), d = -1;
    size_t held = (size_t)(want / (chunk ? chunk : 1)), slots = 100 * held + 1;
    /* closed first: a dataset opened twice shares the first opening's cache */
    H5Dclose(st->dset);
    if (dapl >= 0 && H5Pset_chunk_cache(dapl, slots < 521 ? 521 : slots, (size_t)want, 1.0) >= 0)
        d = H5Dopen2(st->file, name, dapl);
    if (dapl >= 0)
        H5Pclose(dapl);
    st->dset = d;
    if (d < 0)
        return la_reader_set_error(r, "cannot reopen dataset '%.200s' with a chunk cache", name);
    /* what libhdf5 holds now, read back from it: tests check it holds a chunk */
    size_t got_slots = 0, got_bytes = 0;
    double w0 = 0;
    hid_t now = H5Dget_access_plist(d);
    if (now >= 0) {
        H5Pget_chunk_cache(now, &got_slots, &got_bytes, &w0);
        H5Pclose(now);
    }
    la_verbose(la_source_path(r->src), "hdf5: read by H5Dread with a chunk cache of %zu bytes "
               "for chunks of %llu bytes", got_bytes, (unsigned long long)chunk);
    return 0;
}

static int h5_open(struct la_reader *r)
{
    struct h5_state *st = calloc(1, sizeof *st);
    const char *name = NULL;
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    st->file = st->dset = st->space = st->memtype = H5I_INVALID_HID;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);          /* errors are ours to word */
    const char *path = la_source_path(r->src);
    if (la_source_plain_fd(r->src) < 0 || !path || !strcmp(path, "-"))
        return la_reader_set_error(r, "HDF5 is read from a file, not from %s: %s",
                                   path && strcmp(path, "-") ? "compressed input" : "standard input",
                                   "write it to a file first");
    if ((st->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        return la_reader_set_error(r, "not an HDF5 file, or a damaged one (libhdf5 cannot open it)");
    if (choose_dataset(r, st, &name) != 0)
        return -1;
    if (H5Lexists(st->file, name, H5P_DEFAULT) <= 0)
        return la_reader_set_error(r, "no dataset '%.200s' in the file", name);
    if ((st->dset = H5Dopen2(st->file, name, H5P_DEFAULT)) < 0) {
        st->unopenable[0] = '\0';
        note_unopenable(st, name);         /* before another call clears libhdf5's errors */
        if (!is_dataset(st->file, name))
            return la_reader_set_error(r, "no dataset '%.200s' in the file", name);
        return la_reader_set_error(r, "%s", st->unopenable);
    }
    hid_t ftype = H5Dget_type(st->dset);
    int rc = ftype < 0 ? la_reader_set_error(r, "cannot read the dataset's type")
                       : choose_type(r, st, ftype);
    int native = rc == 0 && native_in_file(st, ftype);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (rc != 0 || read_space(r, st) != 0)
        return -1;
    hid_t dcpl = H5Dget_create_plist(st->dset);
    offer_run(r, st, dcpl, native);
    rc = r->has_run ? 0 : plan_chunks(r, st, dcpl, native);
    if (rc == 0 && !r->has_run && !st->ch.on && size_chunk_cache(r, st, name, dcpl) != 0)
        rc = 1;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (rc != 0)
        return rc < 0 ? la_reader_set_error(r, "out of memory") : -1;
    plan_blocks(st);
    if (!(st->buf = malloc(H5_BLOCK)))
        return la_reader_set_error(r, "out of memory");
    r->info.dtype = st->dtype;
    r->info.ndim = st->ndim;
    for (int k = 0; k < st->ndim; k++)
        r->info.shape[k] = st->dims[k];
    r->info.shape_known = 1;
    return 0;
}

/* Step idx to the next block: axis split by block, the axes before it by 1. */
static void advance(struct h5_state *st, hsize_t n)
{
    if (st->ndim == 0)
        return;
    st->idx[st->split] += n;
    for (int k = st->split; k > 0 && st->idx[k] >= st->dims[k]; k--) {
        st->idx[k] = 0;
        st->idx[k - 1]++;
    }
}

static int h5_next(struct la_reader *r, struct la_chunk *out)
{
    struct h5_state *st = r->state;
    /* libhdf5 built thread-safe (Debian's) keeps this setting per thread, and
     * audit.c calls next() on a reader thread of its own: without it a damaged
     * chunk would print libhdf5's error stack beside our one line */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (st->ch.on)
        return chunks_next(r, out);
    if (st->done == st->count)
        return 0;
    hsize_t start[LA_MAX_DIMS], cnt[LA_MAX_DIMS], n = 1, rows = 1;
    for (int k = 0; k < st->ndim; k++) {
        start[k] = k < st->split ? st->idx[k] : k == st->split ? st->idx[k] : 0;
        cnt[k] = k < st->split ? 1 : k == st->split ? 0 : st->dims[k];
    }
    if (st->ndim > 0) {
        rows = st->dims[st->split] - st->idx[st->split];
        cnt[st->split] = rows < st->block ? rows : st->block;
        n = cnt[st->split] * st->inner;
    }
    hid_t mspace = H5Screate_simple(1, &n, NULL);
    herr_t rc = -1;
    if (mspace >= 0 && (st->ndim == 0
                        || H5Sselect_hyperslab(st->space, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0))
        rc = H5Dread(st->dset, st->memtype, mspace, st->ndim ? st->space : H5S_ALL, H5P_DEFAULT,
                     st->buf);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (rc < 0)
        return la_reader_set_error(r, "cannot read elements %llu.. of the dataset (a damaged "
                                   "file, or a filter libhdf5 lacks)", (unsigned long long)st->done);
    if (st->dtype == LA_DT_BOOL)
        la_bool_normalize(st->buf, (size_t)n);
    *out = (struct la_chunk){ st->dtype, st->buf, (size_t)n, st->done, NULL };
    st->done += n;
    advance(st, st->ndim ? cnt[st->split] : 1);
    return 1;
}

static void h5_close(struct la_reader *r)
{
    struct h5_state *st = r->state;
    if (!st)
        return;
    if (st->memtype >= 0)
        H5Tclose(st->memtype);
    if (st->space >= 0)
        H5Sclose(st->space);
    if (st->dset >= 0)
        H5Dclose(st->dset);
    if (st->file >= 0)
        H5Fclose(st->file);
    chunks_free(&st->ch);
    free(st->buf);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_hdf5 = { h5_open, h5_next, h5_close };
