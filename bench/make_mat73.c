/* make_mat73.c - bench/containers.sh's MATLAB -v7.3 input, written through
 * libmatio as MATLAB's `save -v7.3` writes it: HDF5 behind the 512-byte MAT
 * header, the 1xN variable a chunked, gzip-compressed dataset. (SciPy cannot
 * write v7.3, and libmatio does not read h5py-made imitations.)
 *
 *   make_mat73 RAW N OUT      RAW: N native int64 labels (make_containers.py)
 *
 * Built by containers.sh where pkg-config finds matio. */
#include <matio.h>
#include <stdint.h> /* int64_t */
#include <stdio.h>  /* fopen, fread, perror */
#include <stdlib.h> /* malloc, strtoull */

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: make_mat73 RAW N OUT\n");
        return 2;
    }
    size_t n = (size_t)strtoull(argv[2], NULL, 10);
    int64_t *labels = malloc(n * sizeof *labels);
    FILE *raw = fopen(argv[1], "rb");
    if (!labels || !raw || fread(labels, sizeof *labels, n, raw) != n) {
        perror(argv[1]);
        return 1;
    }
    fclose(raw);
    mat_t *mat = Mat_CreateVer(argv[3], NULL, MAT_FT_MAT73);
    size_t dims[2] = { 1, n };
    matvar_t *var = mat ? Mat_VarCreate("labels", MAT_C_INT64, MAT_T_INT64, 2, dims, labels, 0) : NULL;
    if (!var || Mat_VarWrite(mat, var, MAT_COMPRESSION_ZLIB) != 0) {
        fprintf(stderr, "make_mat73: %s: libmatio could not write it\n", argv[3]);
        return 1;
    }
    Mat_VarFree(var);
    Mat_Close(mat);
    free(labels);
    return 0;
}
