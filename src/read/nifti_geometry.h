/* nifti_geometry.h - a NIfTI-1 file's grid from its 348-byte header alone
 * (never the voxels): the shape, the spacing, the origin and the direction
 * that nnU-Net's verify_dataset_integrity holds a label to its image's
 * (SPEC "A label and what it labels": geometry-mismatch). The header is
 * converted by libniftiio; .nii.gz is read through zlib. The affine is
 * nibabel's get_best_affine: the sform where its code is set, else the
 * qform, else the voxel sizes alone. */
#ifndef LA_NIFTI_GEOMETRY_H
#define LA_NIFTI_GEOMETRY_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

struct la_nifti_geometry {
    int ndim;                  /* dim[0]: 1 to 7 */
    uint64_t shape[7];         /* dim[1..ndim]: x, y, z, ... */
    double spacing[3];         /* pixdim[1..3], as nibabel's zooms (1 past ndim) */
    double origin[3];          /* the affine's translation */
    double direction[3][3];    /* the affine's axes, each divided by its spacing */
};

/** la_nifti_geometry() : path's grid. @return 0; -1 with err (unreadable,
 *  cut short, not a NIfTI-1 single file). */
int la_nifti_geometry(const char *path, struct la_nifti_geometry *g, char *err, size_t errlen);

/** la_nifti_differs() : how label's grid differs from image's, in words,
 *  as nnU-Net's check_cases tells it: the shape and the spacing
 *  (np.allclose) refuse the dataset (@return 2), the origin and the
 *  direction only warn (@return 1); 0: the same grid. */
int la_nifti_differs(const struct la_nifti_geometry *label, const struct la_nifti_geometry *image,
                     char *why, size_t len);

#endif
