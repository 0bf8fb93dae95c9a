/* nifti_geometry.c - see nifti_geometry.h. */
#include "nifti_geometry.h"

#include <math.h>    /* fabs, sqrt, isfinite */
#include <stdio.h>   /* snprintf */
#include <string.h>  /* memcmp, strlen, strerror */
#include <errno.h>   /* errno */

#include <nifti1_io.h>
#include <zlib.h>    /* gzopen: a .nii.gz and a .nii alike */

/* The 348 bytes, in host byte order. @return 0, or -1 with err. */
static int read_header(const char *path, nifti_1_header *h, char *err, size_t errlen)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", errno ? strerror(errno) : "out of memory");
        return -1;
    }
    int got = gzread(f, h, sizeof *h);
    gzclose(f);
    if (got < (int)sizeof *h) {
        snprintf(err, errlen, "byte %d: file ends inside the 348-byte NIfTI header",
                 got < 0 ? 0 : got);
        return -1;
    }
    if (h->sizeof_hdr != 348)
        swap_nifti_header(h, 1);
    if (h->sizeof_hdr != 348 || memcmp(h->magic, "n+1", 4) != 0) {
        snprintf(err, errlen, "not a NIfTI-1 single file (sizeof_hdr 348, magic \"n+1\")");
        return -1;
    }
    if (h->dim[0] < 1 || h->dim[0] > 7) {
        snprintf(err, errlen, "byte 40: dim[0] is %d: a NIfTI volume has 1 to 7 dimensions",
                 h->dim[0]);
        return -1;
    }
    return 0;
}

/* nibabel's get_best_affine: sform, qform, or the zooms about the centre. */
static void best_affine(const nifti_image *nim, const nifti_1_header *h, double a[3][4])
{
    const mat44 *m = nim->sform_code > 0 ? &nim->sto_xyz
                   : nim->qform_code > 0 ? &nim->qto_xyz : NULL;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            a[i][j] = m ? m->m[i][j] : 0;
    if (m)
        return;
    for (int i = 0; i < 3; i++) {
        double zoom = i < h->dim[0] ? fabs(h->pixdim[i + 1]) : 1;
        double n = i < h->dim[0] ? h->dim[i + 1] : 1;
        a[i][i] = i == 0 ? -zoom : zoom;       /* nibabel's base affine is LAS */
        a[i][3] = -(n - 1) / 2 * a[i][i];
    }
}

/* A voxel size or an affine of NaN or infinity places the volume nowhere:
 * the header is refused, not compared (np.allclose is never true of NaN). */
static int finite_grid(const struct la_nifti_geometry *g, char *err, size_t errlen)
{
    for (int i = 0; i < 3; i++) {
        int ok = isfinite(g->spacing[i]) && isfinite(g->origin[i]);
        for (int j = 0; j < 3; j++)
            ok &= isfinite(g->direction[i][j]);
        if (!ok) {
            snprintf(err, errlen, "byte 76: pixdim or the affine holds NaN or infinity: the "
                     "volume has no place in space");
            return -1;
        }
    }
    return 0;
}

int la_nifti_geometry(const char *path, struct la_nifti_geometry *g, char *err, size_t errlen)
{
    nifti_1_header h;
    if (read_header(path, &h, err, errlen) != 0)
        return -1;
    /* libniftiio prints its own error for these: said here instead */
    if (h.datatype == DT_UNKNOWN || !nifti_datatype_is_valid(h.datatype, 1) ||
        !nifti_hdr_looks_good(&h)) {
        snprintf(err, errlen, "libniftiio refuses the header (datatype %d, bitpix %d)",
                 h.datatype, h.bitpix);
        return -1;
    }
    nifti_image *nim = nifti_convert_nhdr2nim(h, path);
    if (!nim) {
        snprintf(err, errlen, "libniftiio refuses the header");
        return -1;
    }
    memset(g, 0, sizeof *g);
    g->ndim = h.dim[0];
    for (int d = 0; d < g->ndim; d++)
        g->shape[d] = h.dim[d + 1] > 0 ? (uint64_t)h.dim[d + 1] : 0;
    double a[3][4];
    best_affine(nim, &h, a);
    for (int i = 0; i < 3; i++) {
        g->spacing[i] = i < g->ndim ? fabs(h.pixdim[i + 1]) : 1;
        g->origin[i] = a[i][3];
    }
    for (int j = 0; j < 3; j++) {     /* column j: voxel axis j in world space */
        double norm = sqrt(a[0][j] * a[0][j] + a[1][j] * a[1][j] + a[2][j] * a[2][j]);
        for (int i = 0; i < 3; i++)
            g->direction[i][j] = norm > 0 ? a[i][j] / norm : (i == j);
    }
    nifti_image_free(nim);
    return finite_grid(g, err, errlen);
}

/* np.allclose(a, b): |a - b| <= atol + rtol * |b|, at numpy's defaults. */
static int allclose(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(fabs(a[i] - b[i]) <= 1e-8 + 1e-5 * fabs(b[i])))
            return 0;
    return 1;
}

static void triple(char *out, size_t len, const double *v)
{
    snprintf(out, len, "(%.6g, %.6g, %.6g)", v[0], v[1], v[2]);
}

/* The spatial dimensions (x, y, z): a 2-D slice is one voxel deep. */
static void spatial_shape(const struct la_nifti_geometry *g, uint64_t s[3])
{
    for (int d = 0; d < 3; d++)
        s[d] = d < g->ndim ? g->shape[d] : 1;
}

int la_nifti_differs(const struct la_nifti_geometry *label, const struct la_nifti_geometry *image,
                     char *why, size_t len)
{
    uint64_t ls[3], is[3];
    spatial_shape(label, ls);
    spatial_shape(image, is);
    char x[64], y[64];
    if (memcmp(ls, is, sizeof ls) != 0) {
        snprintf(why, len, "shape %llu x %llu x %llu, its image's %llu x %llu x %llu",
                 (unsigned long long)ls[0], (unsigned long long)ls[1], (unsigned long long)ls[2],
                 (unsigned long long)is[0], (unsigned long long)is[1], (unsigned long long)is[2]);
        return 2;
    }
    if (!allclose(label->spacing, image->spacing, 3)) {
        triple(x, sizeof x, label->spacing);
        triple(y, sizeof y, image->spacing);
        snprintf(why, len, "spacing %s, its image's %s", x, y);
        return 2;
    }
    if (!allclose(label->origin, image->origin, 3)) {
        triple(x, sizeof x, label->origin);
        triple(y, sizeof y, image->origin);
        snprintf(why, len, "origin %s, its image's %s", x, y);
        return 1;
    }
    if (!allclose(&label->direction[0][0], &image->direction[0][0], 9)) {
        snprintf(why, len, "direction (the axes' orientation) differs from its image's");
        return 1;
    }
    return 0;
}
