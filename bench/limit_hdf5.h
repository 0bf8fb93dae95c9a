/* limit_hdf5.h - limit.c's HDF5 mode, built with -DLIMIT_HDF5 and
 * libhdf5 by bench/containers.sh where pkg-config finds hdf5:
 *
 *   limit h5 PATH DATASET CLASSES
 *
 * reads the int64 dataset as read_hdf5.c does, in hyperslabs of whole rows
 * along the first axis of at most 4 MiB each, converted by H5Dread to native
 * int64 (libhdf5 inflating the chunks of a gzip dataset), and counts as
 * count_block() does. One thread: libhdf5 serialises its calls. A .mat v7.3
 * file is HDF5 behind a 512-byte user block, which H5Fopen skips. */
#include <hdf5.h>

#define H5_LIMIT_BLOCK (4u << 20)

static int run_h5(const char *path, const char *name, uint64_t classes)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = file < 0 ? -1 : H5Dopen2(file, name, H5P_DEFAULT);
    if (dset < 0)
        return 1;
    hid_t space = H5Dget_space(dset);
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK] = { 0 };
    int ndim = H5Sget_simple_extent_dims(space, dims, NULL);
    if (ndim < 1)
        return 1;
    hsize_t inner = 1;                 /* elements per index of the first axis */
    for (int k = 1; k < ndim; k++)
        inner *= dims[k];
    hsize_t rows = H5_LIMIT_BLOCK / 8 / inner ? H5_LIMIT_BLOCK / 8 / inner : 1;
    static struct job j;
    j.kind = "int64";
    j.classes = classes;
    int64_t *buf = malloc(rows * inner * 8);
    for (hsize_t row = 0; buf && row < dims[0]; row += rows) {
        hsize_t count[H5S_MAX_RANK];
        memcpy(count, dims, sizeof count);
        count[0] = dims[0] - row < rows ? dims[0] - row : rows;
        start[0] = row;
        hsize_t n = count[0] * inner;
        hid_t mem = H5Screate_simple(1, &n, NULL);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
        herr_t rc = H5Dread(dset, H5T_NATIVE_INT64, mem, space, H5P_DEFAULT, buf);
        H5Sclose(mem);
        if (rc < 0)
            return 1;
        count_block(&j, buf, (size_t)n * 8);
    }
    free(buf);
    H5Sclose(space);
    H5Dclose(dset);
    H5Fclose(file);
    printf("%llu\n", (unsigned long long)j.bad);
    return 0;
}
