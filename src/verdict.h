/* verdict.h - the per-element rule: is this label valid, ignored, or why not.
 *
 * One definition, compiled by both the C compiler (CPU scan) and nvcc (CUDA
 * kernel), so the CPU unit tests exercise the very logic the GPU runs. Keep it
 * free of libc calls that device code lacks. */
#ifndef LA_VERDICT_H
#define LA_VERDICT_H

#include <stdint.h> /* int64_t, uint16_t */

/* LA_HOST_DEVICE marks a function nvcc compiles for both the host and the
 * device; it is empty in C. LA_HD is how every helper below is declared. */
#ifdef __CUDACC__
#define LA_HOST_DEVICE __host__ __device__
#define LA_HD static __forceinline__ LA_HOST_DEVICE
#else
#define LA_HOST_DEVICE
#define LA_HD static inline LA_HOST_DEVICE
#endif

/* The order is the SPEC's precedence for a value's one invalid category. */
enum la_verdict {
    LA_V_VALID = 0,
    LA_V_IGNORED,
    LA_V_NON_FINITE,
    LA_V_NON_INTEGER,
    LA_V_BELOW,
    LA_V_ABOVE,
    LA_V_UNPARSABLE,   /* only csv/text cells; never produced by the functions below */
    LA_V_COUNT
};

/* What the verdict needs from the configuration: plain data, copied to the GPU. */
struct la_rule {
    int bce;              /* BCE: finite and in [0, 1]; no ignore, fractions allowed */
    int has_ignore;
    int64_t ignore;
    int has_upper;        /* class labels must be < upper (--num-classes) */
    int64_t upper;
};

LA_HD int la_verdict_i64(int64_t v, const struct la_rule *r)
{
    if (r->bce)
        return v < 0 ? LA_V_BELOW : v > 1 ? LA_V_ABOVE : LA_V_VALID;
    if (r->has_ignore && v == r->ignore)
        return LA_V_IGNORED;
    if (v < 0)
        return LA_V_BELOW;
    if (r->has_upper && v >= r->upper)
        return LA_V_ABOVE;
    return LA_V_VALID;
}

LA_HD int la_verdict_u64(uint64_t v, const struct la_rule *r)
{
    if (v > (uint64_t)INT64_MAX) /* no ignore index or class count is that large */
        return (r->bce || r->has_upper) ? LA_V_ABOVE : LA_V_VALID;
    return la_verdict_i64((int64_t)v, r);
}

/* 2^63 as a double: doubles at or beyond it cannot be converted to int64. */
#define LA_TWO_63 9223372036854775808.0

LA_HD int la_verdict_f64(double v, const struct la_rule *r)
{
    if (!(v - v == 0.0)) /* NaN or +-Inf; no isfinite() so fast-math cannot drop it */
        return LA_V_NON_FINITE;
    if (r->bce)
        return v < 0.0 ? LA_V_BELOW : v > 1.0 ? LA_V_ABOVE : LA_V_VALID;
    if (r->has_ignore && v == (double)r->ignore)
        return LA_V_IGNORED;
    if (v >= LA_TWO_63 || v < -LA_TWO_63)
        return v < 0.0 ? LA_V_BELOW : (r->has_upper ? LA_V_ABOVE : LA_V_VALID);
    if ((double)(int64_t)v != v)
        return LA_V_NON_INTEGER;
    return la_verdict_i64((int64_t)v, r);
}

// ---- the value rules every backend folds with ------------------------------------
//
// A verdict decides what a value is; these decide where it is counted. The CPU
// scan (scan_cpu.c) and the CUDA kernel (scan_cuda.cu) both call them, so the
// two cannot drift apart.

/* Histogram: a valid label has a bin when it is below hist_len; the others are
 * counted as "beyond" (hist_beyond). Negative labels wrap far above hist_len. */
LA_HD int la_hist_fits(int64_t label, uint64_t hist_len)
{
    return (uint64_t)label < hist_len;
}

/* Float to int64: 1 and the integer in *label when x is a whole number int64
 * holds exactly (-2^63 <= x < 2^63); else 0 (NaN, +-Inf, fractions, too large),
 * and x is "beyond" if it was valid. The range test comes first: converting
 * an out-of-range double is undefined. */
LA_HD int la_f64_label(double x, int64_t *label)
{
    if (!(x >= -LA_TWO_63 && x < LA_TWO_63) || (double)(int64_t)x != x)
        return 0;
    *label = (int64_t)x;
    return 1;
}

/* Outlier bins (the ignore-value hint): slot k < nbins counts the value -1-k
 * (below the range), slot nbins + k the value above_base + k (above it).
 * @return the slot of x with that verdict, or -1 when x has none. */
LA_HD int la_outlier_slot(int verdict, int64_t x, int64_t above_base, int nbins)
{
    if (verdict == LA_V_BELOW && x < 0 && x >= -(int64_t)nbins)
        return (int)(-1 - x);
    if (verdict == LA_V_ABOVE && x >= above_base && x - above_base < nbins)
        return nbins + (int)(x - above_base);
    return -1;
}

/* A bad entry as the GPU buffers it: its offset in the chunk and its verdict
 * in one word, the verdict in the low LA_VERDICT_BITS bits. Sorting the words
 * sorts the entries by offset. */
#define LA_VERDICT_BITS 3
#ifdef __cplusplus
static_assert(LA_V_COUNT <= (1 << LA_VERDICT_BITS), "a verdict must fit its bits");
#else
_Static_assert(LA_V_COUNT <= (1 << LA_VERDICT_BITS), "a verdict must fit its bits");
#endif

LA_HD uint64_t la_bad_pack(uint64_t offset, int verdict)
{
    return offset << LA_VERDICT_BITS | (uint64_t)verdict;
}

LA_HD uint64_t la_bad_offset(uint64_t packed)
{
    return packed >> LA_VERDICT_BITS;
}

LA_HD int la_bad_verdict(uint64_t packed)
{
    return (int)(packed & ((1u << LA_VERDICT_BITS) - 1u));
}

/* IEEE 754 half to float, exact for every value (subnormals, Inf, NaN). */
LA_HD float la_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1fu) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else { /* subnormal: normalise the mantissa */
        exp = 113;
        while (!(mant & 0x400u)) {
            mant <<= 1;
            exp--;
        }
        bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
    union { uint32_t u; float f; } cvt;
    cvt.u = bits;
    return cvt.f;
}

#endif
