/* dtype.h - the element types labelaudit reads (the SPEC's --dtype list).
 *
 * Owns the table of names, sizes and kinds, NumPy type-string parsing and byte
 * swapping. Readers hand values to the scan in host byte order, so only the
 * readers ever call la_byteswap(). */
#ifndef LA_DTYPE_H
#define LA_DTYPE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint16_t */

/* The most axes an array may have (NumPy 1.x allows 32). */
#define LA_MAX_DIMS 32

enum la_dtype {
    LA_DT_BOOL, LA_DT_INT8, LA_DT_UINT8, LA_DT_INT16, LA_DT_UINT16,
    LA_DT_INT32, LA_DT_UINT32, LA_DT_INT64, LA_DT_UINT64,
    LA_DT_FLOAT16, LA_DT_FLOAT32, LA_DT_FLOAT64,
    LA_DT_COUNT
};

/* 'b' bool, 'i' signed integer, 'u' unsigned integer, 'f' floating point */
struct la_dtype_info {
    const char *name; /* the SPEC's name: "int64", "float16", "bool" */
    unsigned size;    /* bytes per element */
    char kind;
};

const struct la_dtype_info *la_dtype_info(enum la_dtype dt);
static inline int la_dtype_is_float(enum la_dtype dt)
{
    return dt == LA_DT_FLOAT16 || dt == LA_DT_FLOAT32 || dt == LA_DT_FLOAT64;
}

/** la_dtype_from_name() : "int8" ... "bool" (the --dtype words).
 *  @return 0 and sets *out, or -1 for an unknown name. */
int la_dtype_from_name(const char *name, enum la_dtype *out);

/** la_dtype_from_numpy() : a NumPy descr such as "<i8", ">f4", "|u1", "|b1".
 *  *swap is set when the data's byte order differs from this machine's.
 *  @return 0, or -1 for a descr labelaudit does not read (structured, complex,
 *  strings, objects, datetimes). */
int la_dtype_from_numpy(const char *descr, enum la_dtype *out, int *swap);

/** la_byteswap() : reverse the bytes of each of the count elements of size bytes. */
void la_byteswap(void *data, size_t count, unsigned size);

/** la_bool_normalize() : bool bytes other than 0 and 1 are True to NumPy and
 *  torch; make each of the n bytes 0 or 1, as the scan expects. */
void la_bool_normalize(unsigned char *v, size_t n);

/** la_bf16_to_f32() : widen n bfloat16 values (host order) to float32, exactly:
 *  a bfloat16 is the upper half of a float32. in and out may not overlap. */
void la_bf16_to_f32(const void *in, void *out, size_t n);

/** la_gather_f_order() : the next n elements, in C order, of a Fortran-order
 *  (column-major) array data[] of ndim axes of the given shape, copied to dst;
 *  cidx is the C-order multi-index of the next element, advanced past them.
 *  (NumPy's fortran_order .npy and MATLAB's matrices share this.) */
void la_gather_f_order(unsigned char *dst, const unsigned char *data, unsigned esize,
                       int ndim, const uint64_t *shape, uint64_t *cidx, size_t n);

/** la_host_is_big_endian() : 1 on a big-endian machine. */
int la_host_is_big_endian(void);

/* A number as read: the dtype decides which member holds it. */
enum la_num_kind { LA_NUM_I64, LA_NUM_U64, LA_NUM_F64 };
struct la_num {
    int kind;             /* enum la_num_kind */
    union { int64_t i; uint64_t u; double f; } v;
};

/** la_num_cmp() : -1, 0 or 1, exact between integers of either signedness. */
int la_num_cmp(struct la_num a, struct la_num b);

#endif
