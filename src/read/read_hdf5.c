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
 *
 * libhdf5 opens files by name and seeks in them: standard input and
 * compressed input are refused by name (decompress to a file first). */
#include "reader.h"

#include <hdf5.h>
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, malloc, free, getenv, atoll */
#include <string.h> /* strcmp */
#include <sys/stat.h> /* fstat */

#define H5_BLOCK (4u << 20)
/* Over 2^48 elements is no label array: a lying dataspace, refused early. */
#define H5_MAX_ELEMENTS ((uint64_t)1 << 48)

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
    int numeric;                  /* numeric datasets seen by the walk */
};

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

/* The dtype and the memory type that libhdf5 converts the file's values to:
 * native integers and floats of the same width (float16 kept as half bits in
 * host order); h5py's bool, an enum of int8, as bool. */
static int choose_type(struct la_reader *r, struct h5_state *st, hid_t ftype)
{
    static const struct { size_t size; int sign; enum la_dtype dt; } ints[] = {
        { 1, 1, LA_DT_INT8 }, { 1, 0, LA_DT_UINT8 }, { 2, 1, LA_DT_INT16 },
        { 2, 0, LA_DT_UINT16 }, { 4, 1, LA_DT_INT32 }, { 4, 0, LA_DT_UINT32 },
        { 8, 1, LA_DT_INT64 }, { 8, 0, LA_DT_UINT64 },
    };
    H5T_class_t c = H5Tget_class(ftype);
    size_t size = H5Tget_size(ftype);
    if (c == H5T_ENUM && size == 1) {
        st->dtype = LA_DT_BOOL;
        st->memtype = H5Tcopy(H5T_NATIVE_INT8);
        return 0;
    }
    if (c == H5T_INTEGER) {
        int sign = H5Tget_sign(ftype) == H5T_SGN_2;
        for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
            if (ints[i].size == size && ints[i].sign == sign) {
                st->dtype = ints[i].dt;
                st->memtype = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
                return 0;
            }
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

static int is_numeric_dataset(hid_t loc, const char *name)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
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
static herr_t visit(hid_t root, const char *name, const la_h5_info *info, void *data)
{
    struct h5_state *st = data;
    if (info->type != H5O_TYPE_DATASET || !is_numeric_dataset(root, name))
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
            && is_numeric_dataset(st->file, preferred[i])) {
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
 * memory type: the same native-order type (bool excepted: an enum of int8
 * whose bytes 2..255 must read as 1). */
static int native_in_file(const struct h5_state *st, hid_t ftype)
{
    return st->dtype != LA_DT_BOOL && H5Tequal(ftype, st->memtype) > 0;
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
    if (!native || fd < 0 || st->count == 0 || dcpl < 0 || H5Pget_layout(dcpl) != H5D_CONTIGUOUS
        || H5Pget_nfilters(dcpl) != 0 || H5Pget_external_count(dcpl) != 0)
        return;
    haddr_t off = H5Dget_offset(st->dset);
    if (off == HADDR_UNDEF || off % esize != 0 || fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < off
        || ((uint64_t)sb.st_size - off) / esize < st->count)
        return;     /* a file cut short: H5Dread says so */
    r->has_run = 1;
    r->run = (struct la_file_run){ fd, (uint64_t)off, st->count, st->dtype };
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
    if (H5Lexists(st->file, name, H5P_DEFAULT) <= 0
        || (st->dset = H5Dopen2(st->file, name, H5P_DEFAULT)) < 0)
        return la_reader_set_error(r, "no dataset '%.200s' in the file", name);
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
    if (dcpl >= 0)
        H5Pclose(dcpl);
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
        for (hsize_t i = 0; i < n; i++)
            st->buf[i] = st->buf[i] != 0;
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
    free(st->buf);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_hdf5 = { h5_open, h5_next, h5_close };
