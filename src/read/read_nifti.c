/* read_nifti.c - medical volumes, NIfTI-1 single files (.nii, .nii.gz), through libniftiio.
 *
 * One volume is one sample. Its values are what nibabel gives for it
 * (np.asarray(img.dataobj)): the stored voxels in the header's datatype, or,
 * when the header scales them (scl_slope not 0, 1 or non-finite, or
 * scl_inter not 0), slope * x + inter as float64. The values come in file
 * order, x fastest, which is C order for nibabel's img.shape reversed: so the
 * shape reported is [..., Z, Y, X], a voxel's index is its position in the
 * file, and its position in the reports is [z, y, x], img.dataobj[x, y, z]
 * (reordering to img.shape's C order would hold the whole volume).
 *
 * The volume is read as a stream from the byte source, after the header
 * (libniftiio checks and converts it, byte order included): .nii.gz is
 * decompressed by input.c as it is read, stdin works, and memory stays
 * bounded whatever dimensions the header claims. A volume that ends before
 * the header's voxel count is an error (a lying header, or a cut download). */
#include "reader.h"

#include <math.h>   /* isfinite */
#include <nifti1_io.h>
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy */

#define NII_CHUNK_BYTES ((size_t)1 << 20)
#define NII_OFFSET_MAX ((uint64_t)1 << 30)   /* extensions before the data: at most 1 GiB */

struct nifti_state {
    enum la_dtype stored;     /* the voxels' own dtype */
    size_t elem;              /* bytes per stored voxel */
    int swap;                 /* stored in the other byte order */
    int scaled;               /* values are slope * x + inter (float64) */
    double slope, inter;
    uint64_t count;           /* voxels */
    uint64_t done;            /* voxels emitted */
    unsigned char *raw;       /* one chunk of stored voxels */
    double *scaled_values;    /* the same, scaled (when scaled) */
};

/* The dtype of a NIfTI datatype code, or -1 for those that hold no labels. */
static int voxel_dtype(int datatype)
{
    switch (datatype) {
    case DT_UINT8:   return LA_DT_UINT8;
    case DT_INT8:    return LA_DT_INT8;
    case DT_INT16:   return LA_DT_INT16;
    case DT_UINT16:  return LA_DT_UINT16;
    case DT_INT32:   return LA_DT_INT32;
    case DT_UINT32:  return LA_DT_UINT32;
    case DT_INT64:   return LA_DT_INT64;
    case DT_UINT64:  return LA_DT_UINT64;
    case DT_FLOAT32: return LA_DT_FLOAT32;
    case DT_FLOAT64: return LA_DT_FLOAT64;
    default:         return -1;
    }
}

/* Read the 348-byte header; @return 0, or -1 with r->err. */
static int read_header(struct la_reader *r, nifti_1_header *h)
{
    ssize_t got = la_source_read_full(r->src, h, sizeof *h);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    if ((size_t)got < sizeof *h)
        return la_reader_set_error(r, "byte %zd: file ends inside the 348-byte NIfTI header", got);
    return 0;
}

/* The header in host byte order; *swapped says whether it was not.
 * @return 0, or -1 with r->err for what is no NIfTI-1 single file. */
static int host_order_header(struct la_reader *r, const nifti_1_header *raw, nifti_1_header *h,
                             int *swapped)
{
    *h = *raw;
    *swapped = 0;
    if (h->sizeof_hdr != 348) {
        swap_nifti_header(h, 1);
        *swapped = 1;
    }
    if (h->sizeof_hdr == 540 || raw->sizeof_hdr == 540 || h->sizeof_hdr == 469893120)
        return la_reader_set_error(r, "a NIfTI-2 header: only NIfTI-1 is read (save it with "
                                   "nibabel as a Nifti1Image)");
    if (h->sizeof_hdr != 348)
        return la_reader_set_error(r, "byte 0: not a NIfTI-1 header (sizeof_hdr is not 348)");
    if (memcmp(h->magic, "ni1", 4) == 0)
        return la_reader_set_error(r, "a NIfTI header of a .hdr/.img pair: give a single-file "
                                   ".nii (nibabel saves one)");
    if (memcmp(h->magic, "n+1", 4) != 0)
        return la_reader_set_error(r, "byte 344: not a NIfTI-1 file (magic is not \"n+1\"; "
                                   "an Analyze 7.5 header?)");
    return 0;
}

/* Dimensions and voxel count, checked before anything is allocated for them. */
static int check_dims(struct la_reader *r, const nifti_1_header *h, uint64_t *count)
{
    if (h->dim[0] < 1 || h->dim[0] > 7)
        return la_reader_set_error(r, "byte 40: dim[0] is %d: a NIfTI volume has 1 to 7 "
                                   "dimensions", h->dim[0]);
    *count = 1;
    for (int d = 1; d <= h->dim[0]; d++) {
        if (h->dim[d] < 1)
            return la_reader_set_error(r, "byte %d: dim[%d] is %d: a dimension must be at "
                                       "least 1", 40 + 2 * d, d, h->dim[d]);
        *count *= (uint64_t)h->dim[d];  /* 7 factors below 2^15: no overflow */
    }
    return 0;
}

/* The header as libniftiio reads it, and the layout of the voxels. */
static int read_layout(struct la_reader *r, struct nifti_state *st, const nifti_1_header *raw,
                       const nifti_1_header *h, int swapped)
{
    int dtype = voxel_dtype(h->datatype);
    if (dtype < 0)
        return la_reader_set_error(r, "byte 70: voxels of datatype %d (%s) hold no labels "
                                   "(read are integer, float32 and float64 voxels)", h->datatype,
                                   nifti_datatype_string(h->datatype));
    if (!nifti_hdr_looks_good(h))
        return la_reader_set_error(r, "libniftiio refuses the header (bad dimensions, datatype "
                                   "or bitpix)");
    nifti_image *nim = nifti_convert_nhdr2nim(*raw, la_source_path(r->src));
    if (!nim)
        return la_reader_set_error(r, "libniftiio refuses the header");
    st->stored = (enum la_dtype)dtype;
    st->elem = la_dtype_info(st->stored)->size;
    st->swap = swapped && st->elem > 1;
    /* nibabel: no scaling when the slope is 0 or not finite, or when it is 1 + 0 */
    st->slope = nim->scl_slope;
    st->inter = nim->scl_inter;
    st->scaled = isfinite(st->slope) && st->slope != 0 &&
                 !(st->slope == 1 && (st->inter == 0 || !isfinite(st->inter)));
    if (!isfinite(st->inter))
        st->inter = 0;
    double offset = nim->iname_offset;
    nifti_image_free(nim);
    if (!(offset >= 348 && offset <= (double)NII_OFFSET_MAX))
        return la_reader_set_error(r, "byte 108: vox_offset %g is not where a .nii's data can "
                                   "start", offset);
    return (int)offset;
}

/* Skip the extensions between the header and the voxels. */
static int skip_to(struct la_reader *r, struct nifti_state *st, uint64_t offset)
{
    while (la_source_offset(r->src) < offset) {
        uint64_t left = offset - la_source_offset(r->src);
        size_t n = left < NII_CHUNK_BYTES ? (size_t)left : NII_CHUNK_BYTES;
        ssize_t got = la_source_read_full(r->src, st->raw, n);
        if (got < 0)
            return la_reader_set_error(r, "%s", la_source_error(r->src));
        if ((size_t)got < n)
            return la_reader_set_error(r, "byte %llu: file ends before the voxels (vox_offset %llu)",
                                       (unsigned long long)la_source_offset(r->src),
                                       (unsigned long long)offset);
    }
    return 0;
}

static int nifti_open(struct la_reader *r)
{
    struct nifti_state *st = calloc(1, sizeof *st);
    if (!st)
        return la_reader_set_error(r, "out of memory");
    r->state = st;
    nifti_set_debug_level(0);     /* the library's own messages go to stderr otherwise */
    nifti_1_header raw, h;
    int swapped, offset;
    if (read_header(r, &raw) != 0 || host_order_header(r, &raw, &h, &swapped) != 0 ||
        check_dims(r, &h, &st->count) != 0 || (offset = read_layout(r, st, &raw, &h, swapped)) < 0)
        return -1;
    st->raw = malloc(NII_CHUNK_BYTES);
    if (!st->raw || (st->scaled && !(st->scaled_values = malloc(NII_CHUNK_BYTES / st->elem *
                                                                sizeof(double)))))
        return la_reader_set_error(r, "out of memory");
    if (skip_to(r, st, (uint64_t)offset) != 0)
        return -1;
    r->info.dtype = st->scaled ? LA_DT_FLOAT64 : st->stored;
    r->info.ndim = h.dim[0];
    for (int d = 0; d < h.dim[0]; d++)          /* file order: dim[1] (x) varies fastest */
        r->info.shape[d] = (uint64_t)h.dim[h.dim[0] - d];
    r->info.shape_known = 1;
    r->info.one_sample = 1;
    return 0;
}

/* One stored voxel as a double. */
static double voxel_value(const unsigned char *p, enum la_dtype dt)
{
#define AS(T) do { T v; memcpy(&v, p, sizeof v); return (double)v; } while (0)
    switch (dt) {
    case LA_DT_UINT8:   return *p;
    case LA_DT_INT8:    return (int8_t)*p;
    case LA_DT_INT16:   AS(int16_t);
    case LA_DT_UINT16:  AS(uint16_t);
    case LA_DT_INT32:   AS(int32_t);
    case LA_DT_UINT32:  AS(uint32_t);
    case LA_DT_INT64:   AS(int64_t);
    case LA_DT_UINT64:  AS(uint64_t);
    case LA_DT_FLOAT32: AS(float);
    default:            AS(double);
    }
#undef AS
}

static void apply_scaling(struct nifti_state *st, size_t n)
{
    for (size_t i = 0; i < n; i++)
        st->scaled_values[i] = st->slope * voxel_value(st->raw + i * st->elem, st->stored) + st->inter;
}

static int nifti_next(struct la_reader *r, struct la_chunk *out)
{
    struct nifti_state *st = r->state;
    if (st->done >= st->count)
        return 0;   /* bytes after the volume are not read, as nibabel ignores them */
    uint64_t left = st->count - st->done;
    size_t n = left < NII_CHUNK_BYTES / st->elem ? (size_t)left : NII_CHUNK_BYTES / st->elem;
    ssize_t got = la_source_read_full(r->src, st->raw, n * st->elem);
    if (got < 0)
        return la_reader_set_error(r, "%s", la_source_error(r->src));
    if ((size_t)got < n * st->elem)
        return la_reader_set_error(r, "byte %llu: volume ends early: the header says %llu "
                                   "%zu-byte voxels, the file holds %llu", (unsigned long long)
                                   la_source_offset(r->src), (unsigned long long)st->count,
                                   st->elem, (unsigned long long)(st->done + (size_t)got / st->elem));
    if (st->swap)
        la_byteswap(st->raw, n, (unsigned)st->elem);
    if (st->scaled)
        apply_scaling(st, n);
    *out = (struct la_chunk){ r->info.dtype, st->scaled ? (void *)st->scaled_values : st->raw, n,
                              st->done, NULL };
    st->done += n;
    return 1;
}

static void nifti_close(struct la_reader *r)
{
    struct nifti_state *st = r->state;
    if (!st)
        return;
    free(st->raw);
    free(st->scaled_values);
    free(st);
    r->state = NULL;
}

const struct la_reader_ops la_reader_nifti = { .open = nifti_open, .next = nifti_next,
                                               .close = nifti_close };
