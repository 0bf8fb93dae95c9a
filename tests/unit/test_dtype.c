/* test_dtype.c - the dtype table, half floats, cell parsing and number formatting. */
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "stats.h"
#include "tap.h"
#include "util.h"
#include "verdict.h"

static void test_table(void)
{
    static const char *const names[] = { "bool", "int8", "uint8", "int16", "uint16", "int32",
                                          "uint32", "int64", "uint64", "float16", "float32",
                                          "float64" };
    static const unsigned sizes[] = { 1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8 };
    for (int i = 0; i < 12; i++) {
        enum la_dtype dt;
        int ok = la_dtype_from_name(names[i], &dt) == 0;
        TAP_OK(ok && strcmp(la_dtype_info(dt)->name, names[i]) == 0 &&
               la_dtype_info(dt)->size == sizes[i], "dtype %s round-trips, %u bytes", names[i],
               sizes[i]);
    }
    enum la_dtype dt;
    TAP_OK(la_dtype_from_name("int128", &dt) != 0, "unknown dtype name is refused");
    int swap = -1;
    TAP_OK(la_dtype_from_numpy(">f4", &dt, &swap) == 0 && dt == LA_DT_FLOAT32 && swap == 1,
           "numpy '>f4' is big-endian float32");
    TAP_OK(la_dtype_from_numpy("|u1", &dt, &swap) == 0 && dt == LA_DT_UINT8 && swap == 0,
           "numpy '|u1' is uint8");
    TAP_OK(la_dtype_from_numpy("<c16", &dt, &swap) != 0, "complex dtype is refused");
}

static void test_byteswap(void)
{
    uint32_t v[2] = { 0x01020304u, 0xa0b0c0d0u };
    la_byteswap(v, 2, 4);
    TAP_OK(v[0] == 0x04030201u && v[1] == 0xd0c0b0a0u, "byteswap reverses 4-byte values");
}

static void test_half(void)
{
    TAP_OK(la_half_to_float(0x3c00) == 1.0f, "half 0x3c00 is 1.0");
    TAP_OK(la_half_to_float(0xc000) == -2.0f, "half 0xc000 is -2.0");
    TAP_OK(la_half_to_float(0x0001) == ldexpf(1.0f, -24), "smallest half subnormal is 2^-24");
    TAP_OK(la_half_to_float(0x03ff) == ldexpf(1023.0f, -24), "largest half subnormal");
    TAP_OK(isinf(la_half_to_float(0x7c00)) && la_half_to_float(0x7c00) > 0, "half +inf");
    TAP_OK(isinf(la_half_to_float(0xfc00)) && la_half_to_float(0xfc00) < 0, "half -inf");
    TAP_OK(isnan(la_half_to_float(0x7e00)), "half NaN");
    TAP_OK(la_half_to_float(0x7bff) == 65504.0f, "largest half is 65504");
}

static enum la_cell parse(const char *s, struct la_num *n)
{
    return la_parse_number(s, strlen(s), n);
}

static void test_parse_number(void)
{
    struct la_num n;
    TAP_OK(parse("42", &n) == LA_CELL_INT && n.v.i == 42, "'42' is an integer");
    TAP_OK(parse(" -7 ", &n) == LA_CELL_INT && n.v.i == -7, "' -7 ' is an integer");
    TAP_OK(parse("+3", &n) == LA_CELL_INT && n.v.i == 3, "'+3' is an integer");
    TAP_OK(parse("-9223372036854775808", &n) == LA_CELL_INT && n.v.i == INT64_MIN,
           "INT64_MIN parses exactly");
    TAP_OK(parse("9223372036854775808", &n) == LA_CELL_FLOAT, "2^63 becomes a float");
    TAP_OK(parse("1.0", &n) == LA_CELL_FLOAT && n.v.f == 1.0, "'1.0' is a float");
    TAP_OK(parse("1e3", &n) == LA_CELL_FLOAT && n.v.f == 1000.0, "'1e3' is a float");
    TAP_OK(parse("nan", &n) == LA_CELL_FLOAT && isnan(n.v.f), "'nan' is a float NaN");
    TAP_OK(parse("-inf", &n) == LA_CELL_FLOAT && isinf(n.v.f), "'-inf' is a float");
    TAP_OK(parse("", &n) == LA_CELL_BAD, "empty cell is not a number");
    TAP_OK(parse("   ", &n) == LA_CELL_BAD, "blank cell is not a number");
    TAP_OK(parse("cat", &n) == LA_CELL_BAD, "'cat' is not a number");
    TAP_OK(parse("0x10", &n) == LA_CELL_BAD, "hex is not a number");
    TAP_OK(parse("1,5", &n) == LA_CELL_BAD, "'1,5' is not a number");
    TAP_OK(parse("12abc", &n) == LA_CELL_BAD, "trailing garbage is not a number");
}

static void test_format(void)
{
    char buf[64];
    la_format_num((struct la_num){ LA_NUM_I64, { .i = -100 } }, LA_DT_INT64, buf, sizeof buf);
    TAP_OK(strcmp(buf, "-100") == 0, "int64 formats as %s", buf);
    la_format_num((struct la_num){ LA_NUM_U64, { .u = UINT64_MAX } }, LA_DT_UINT64, buf,
                  sizeof buf);
    TAP_OK(strcmp(buf, "18446744073709551615") == 0, "uint64 max formats exactly");
    la_format_num((struct la_num){ LA_NUM_F64, { .f = (double)1.1f } }, LA_DT_FLOAT32, buf,
                  sizeof buf);
    TAP_OK(strcmp(buf, "1.1") == 0, "float32 1.1 formats short (%s)", buf);
    la_format_num((struct la_num){ LA_NUM_F64, { .f = 0.1 } }, LA_DT_FLOAT64, buf, sizeof buf);
    TAP_OK(strcmp(buf, "0.1") == 0, "float64 0.1 formats short (%s)", buf);
    la_format_num((struct la_num){ LA_NUM_F64, { .f = NAN } }, LA_DT_FLOAT64, buf, sizeof buf);
    TAP_OK(strcmp(buf, "nan") == 0, "NaN formats as nan");
    la_format_num((struct la_num){ LA_NUM_F64, { .f = -INFINITY } }, LA_DT_FLOAT64, buf,
                  sizeof buf);
    TAP_OK(strcmp(buf, "-inf") == 0, "-Inf formats as -inf");
}

int main(void)
{
    test_table();
    test_byteswap();
    test_half();
    test_parse_number();
    test_format();
    return tap_done();
}
