/* make_mat73.c - the MATLAB -v7.3 fixtures of tests/readers/containers.sh (HDF5
 * inside), written by libmatio, which SciPy cannot write and whose reader
 * does not recognise the class of every h5py-made imitation:
 *   cc make_mat73.c $(pkg-config --cflags --libs matio) -o make_mat73 && ./make_mat73
 * Committed; run it again only to change them. */
#include <matio.h>
#include <stdint.h>

static void save(const char *file, const char *name, enum matio_classes c, enum matio_types t,
                 size_t rows, size_t cols, void *data)
{
    mat_t *m = Mat_CreateVer(file, NULL, MAT_FT_MAT73);
    size_t dims[2] = { rows, cols };
    matvar_t *v = Mat_VarCreate(name, c, t, 2, dims, data, 0);
    Mat_VarWrite(m, v, MAT_COMPRESSION_ZLIB);
    Mat_VarFree(v);
    Mat_Close(m);
}

int main(void)
{
    /* Flowers-102's imagelabels: a 1xN row of doubles in 1..102 */
    double flowers[6] = { 77, 77, 1, 102, 52, 73 };
    save("mat-flowers-v73.mat", "labels", MAT_C_DOUBLE, MAT_T_DOUBLE, 1, 6, flowers);
    /* a 3x4 int32 matrix, column-major: MATLAB's [0 1 2 3; 4 5 6 7; 8 9 10 11] */
    int32_t m[12] = { 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11 };
    save("mat-matrix-v73.mat", "masks", MAT_C_INT32, MAT_T_INT32, 3, 4, m);
    return 0;
}
