#!/bin/sh
# int-labels-dtype.sh - the int-labels-dtype warning: class
# labels of an integer dtype that DataLoader's default collate keeps and
# cross_entropy refuses. Checked against PyTorch 2.15: bool, int8, int16,
# uint16, int32, uint32 and uint64 fail ("expected target dtype to be Long or
# Byte, but got Int"); int64 is what the loss wants; uint8 is left out (see
# the man page). Fixtures are raw arrays written with printf.
. "$srcdir/tests/setup.sh"

# raw DTYPE: four labels 0 1 1 0 in DTYPE's width, little-endian
raw() {
    case $1 in
    bool|int8|uint8) printf '\000\001\001\000' ;;
    int16|uint16)    printf '\000\000\001\000\001\000\000\000' ;;
    int32|uint32)    printf '\000\000\000\000\001\000\000\000\001\000\000\000\000\000\000\000' ;;
    float32)         printf '\000\000\000\000\000\000\200\077\000\000\200\077\000\000\000\000' ;;
    int64|uint64)    printf '\000\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000' ;
                     printf '\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' ;;
    esac >"$d/y.$1"
}

echo "# --- the dtypes the default collate keeps: a warning, for ce and nll"
for t in bool int8 int16 uint16 int32 uint32 uint64; do
    raw $t
    run --json -n 2 --format raw --dtype $t "$d/y.$t"
    expect_json '[.files[0].findings[].code] | join(",")' "int-labels-dtype" "$t labels warn"
    expect_status 0 "$t: a warning alone keeps exit 0"
done
run --json -n 2 --loss nll --format raw --dtype int32 "$d/y.int32"
expect_json '.files[0].findings[0].code' "int-labels-dtype" "nll warns too"
run --json -n 2 --format raw --dtype int32 "$d/y.int32"
expect_json '.files[0].findings[0].severity' "warning" "it is a warning"
expect_json '.files[0].findings[0].prevents | contains("expected scalar type Long but found Int")' \
    "true" "prevents names the error users search for"
expect_json '.files[0].findings[0].prevents | contains("but got Int)")' "true" \
    "and PyTorch 2's wording of it"
run --json -n 2 --format raw --dtype uint16 "$d/y.uint16"
expect_json '.files[0].findings[0].prevents | contains("found UInt16")' "true" \
    "prevents names torch's own name of the dtype"
run -n 2 --format raw --dtype int32 "$d/y.int32"
expect_out "warning \[int-labels-dtype\]: class labels are stored as int32" "the text report says it"
expect_out "fix: store them as int64" "and how to fix it"
run --fail-on warning -n 2 --format raw --dtype int16 "$d/y.int16"
expect_status 1 "--fail-on warning makes it exit 1"

echo "# --- no warning where torch takes the labels, or the loss is not a class loss"
for t in int64 uint8; do
    raw $t
    run --json -n 2 --format raw --dtype $t "$d/y.$t"
    expect_json '[.files[0].findings[].code] | join(",")' "" "$t labels: no warning"
done
run --json --loss bce --format raw --dtype int32 "$d/y.int32"
expect_json '[.files[0].findings[].code] | join(",")' "" "bce: no int-labels-dtype"
raw float32
run --json -n 2 --format raw --dtype float32 "$d/y.float32"
expect_json '[.files[0].findings[].code] | join(",")' "float-labels" \
    "float32 is float-labels, not int-labels-dtype"
run --json -n 2 "$data/five.txt"
expect_json '[.files[0].findings[].code | select(. == "int-labels-dtype")] | length' "0" \
    "text labels are read as int64: no warning"
finish
