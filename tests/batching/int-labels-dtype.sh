#!/bin/sh
# int-labels-dtype.sh - the int-labels-dtype warning: class
# labels of an integer dtype that DataLoader's default collate keeps and
# cross_entropy refuses. Checked against PyTorch 2.15: bool, int8, int16,
# uint16, int32, uint32 and uint64 fail ("expected target dtype to be Long or
# Byte, but got Int"); int64 is what the loss wants; uint8 is left out (see
# the man page). An error where the file's library hands the labels over in
# that dtype (raw, npy, safetensors, .pt, HDF5, Parquet: PyTorch 2's verdict
# on each, tests/data/int-dtype/ made by tests/gen/gen_int_dtype_verdicts.py),
# a warning for masks and volumes. Raw fixtures are written with printf.
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

echo "# --- the dtypes the default collate keeps: raw arrays reach the loss as stored (np.fromfile): an error"
for t in bool int8 int16 uint16 int32 uint32 uint64; do
    raw $t
    run --json -n 2 --format raw --dtype $t "$d/y.$t"
    expect_json '[.files[0].findings[] | "\(.code):\(.severity)"] | join(",")' \
        "int-labels-dtype:error" "$t labels: an error"
    expect_status 1 "$t: the error makes exit 1"
done
run --json -n 2 --loss nll --format raw --dtype int32 "$d/y.int32"
expect_json '.files[0].findings[0].code' "int-labels-dtype" "nll too"

echo "# --- as PyTorch 2 takes each file as its library loads it (tests/data/int-dtype/verdicts.txt)"
# gen_int_dtype_verdicts.py: the file's labels through its loader, default_collate
# and F.cross_entropy; "raises" must be an int-labels-dtype error, "ok" no finding
grep -v '^#' "$data/int-dtype/verdicts.txt" >"$d/verdicts"
checked=0
while read -r file collated verdict _; do
    f="$data/int-dtype/$file"
    missing=$(absent_feature "$f")
    if [ -n "$missing" ]; then
        echo "ok $((n_tests += 1)) # SKIP $file: built without $missing"
        continue
    fi
    case $file in y-uint16.pt | y-uint32.pt | y-uint64.pt)
        # torch >= 2.3 saves these with _rebuild_tensor_v3, which read_pt.c refuses
        echo "ok $((n_tests += 1)) # SKIP $file: read_pt.c does not read torch 2.3's uint16/32/64 tensors"
        continue ;;
    esac
    run --json -n 2 "$f"
    want=
    [ "$verdict" = raises ] && want=error
    got=$(jqf '[.files[0].findings[] | select(.code == "int-labels-dtype") | .severity] | join(",")')
    [ "$got" = "$want" ]
    ok $? "$file ($collated; PyTorch 2 $verdict): int-labels-dtype '${want:-none}' (got '$got')"
    checked=$((checked + 1))
done <"$d/verdicts"
[ "$checked" -ge 30 ] || [ -n "$(absent_feature "$data/int-dtype/y-int8.h5")" ]
ok $? "the verdicts were checked ($checked files)"

echo "# --- where a pipeline converts the labels (mask images and volumes): a warning"
for f in "$data/masks/grey16.png" "$data/masks/bigendian-i16.nii"; do
    if [ -n "$(absent_feature "$f")" ]; then
        echo "ok $((n_tests += 1)) # SKIP $f: built without $(absent_feature "$f")"
        continue
    fi
    run --json -n 300 "$f"
    expect_json '[.files[0].findings[] | select(.code == "int-labels-dtype") | .severity] | join(",")' \
        warning "${f##*/}: a warning"
done
run --json -n 2 --format raw --dtype int32 "$d/y.int32"
expect_json '.files[0].findings[0].severity' "error" "raw int32: an error"
expect_json '.files[0].findings[0].prevents | contains("expected scalar type Long but found Int")' \
    "true" "prevents names the error users search for"
expect_json '.files[0].findings[0].prevents | contains("but got Int)")' "true" \
    "and PyTorch 2's wording of it"
run --json -n 2 --format raw --dtype uint16 "$d/y.uint16"
expect_json '.files[0].findings[0].prevents | contains("found UInt16")' "true" \
    "prevents names torch's own name of the dtype"
run -n 2 --format raw --dtype int32 "$d/y.int32"
expect_out "error \[int-labels-dtype\]: class labels are stored as int32" "the text report says it"
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
