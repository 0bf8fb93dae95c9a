#!/bin/sh
# containers.sh - the array containers: torch.save's .pt (a strict
# pickle reader that never runs the pickle), Hugging Face .safetensors, HDF5
# and MATLAB .mat (these two when built with libhdf5 and libmatio).
# Fixtures in tests/data/containers come from the writers users use (torch.save,
# safetensors' save_file, h5py, scipy.io.savemat, libmatio for v7.3): the
# make_*.py and make_mat73.c scripts there made them.
# The broken ones are tests/malformed's (MANIFEST).
. "$srcdir/tests/setup.sh"
c="$data/containers"

# values FILE ARGS... : the file's labels >= 1, in the order labelaudit reports
# them (-n 1 makes every one of them "bad", so the JSON lists them by index)
values() {
    f=$1
    shift
    run --json -n 1 --max-report 1000 "$@" "$f"
    jqf '[.files[0].bad[].value] | map(tostring) | join(" ")'
}

expect_values() {   # expect_values "WANT" DESCRIPTION FILE ARGS...
    want=$1 what=$2
    shift 2
    got=$(values "$@")
    [ "$got" = "$want" ]
    ok $? "$what (got '$got', want '$want')"
}

echo "# --- .pt: what torch.load would give, without running the pickle"
labels="1 2 3 4 5 6 7 8 9 10 3 4"
for f in pt-labels pt-dict pt-ordereddict pt-dict-with-str pt-torch1-dict pt-torch2-dict; do
    expect_values "$labels" "$f: the labels tensor" "$c/$f.pt"
done
expect_values "$labels" "a list: --array is the index" "$c/pt-list.pt" --array 1
expect_values "$labels" "a tuple: --array is the index" "$c/pt-tuple.pt" --array 0
expect_values "3 7 11 15 19 23 27" "a strided view with an offset reads as torch sees it" \
    "$c/pt-strided-view.pt"
expect_values "8 16 24 32 1 9 17 25 33 2 10 18 26 34 3 11 19 27 35 4 12 20 28 36 5 13 21 29 37 6 14 22 30 38 7 15 23 31 39" \
    "a transposed tensor in C order" "$c/pt-transposed.pt"
expect_values "10 11 12 18 19 20 26 27 28" "a 2-D slice" "$c/pt-slice-2d.pt"
expect_values "1 2 1 2 1 2 1 2" "an expanded tensor (stride 0)" "$c/pt-expanded.pt"
expect_values "7" "a 0-dimensional tensor" "$c/pt-scalar.pt"
run --json -n 10 "$c/pt-transposed.pt"
expect_json '.files[0].shape | map(tostring) | join(",")' "8,5" "the transpose's shape"
expect_json '.files[0].samples' "8" "first axis = samples"
for t in bf16:float32 f16:float16 uint8:uint8 bool:bool int32:int32 double:float64; do
    run --json -n 2 "$c/pt-${t%%:*}.pt"
    expect_json '.files[0].dtype' "${t#*:}" "pt-${t%%:*}.pt reads as ${t#*:}"
done
run --json --loss bce "$c/pt-bf16.pt"
expect_json '.files[0].max' "2" "bfloat16 values widen exactly (2.0 is over BCE's 1)"
expect_json '.files[0].invalid.above' "1" "one bfloat16 value above 1"
run -n 10 "$c/pt-labels.pt"
expect_status 1 "1..10 with -n 10 is an error"
expect_out "one-based" "and the one-based hint"
! grep -q "MATLAB" "$d/out"
ok $? "a .pt's one-based fix does not name MATLAB (only .mat files count from 1)"
# Flowers-102's imagelabels.mat without -n: 1..102 suggests 102 classes, not 103
run --json "$srcdir/samples/imagelabels.mat"
expect_json '[.files[0].findings[].code] | join(",")' "float-labels,one-based,missing-classes" \
    "imagelabels.mat without -n: one-based"
expect_json '.files[0].findings[1].message | test("use y - 1, then -n 102 \\(not 103\\)")' true \
    "the MATLAB fix names N = max"
run -n 10 "$c/pt-two-tensors.pt"
expect_status 3 "two tensors and no --array"
expect_err "several arrays (a, b): choose one with --array" "names them"
run -n 10 --array images "$c/pt-dict.pt"
expect_status 0 "--array picks the dict key"
run -n 10 --array meta "$c/pt-dict-with-str.pt"
expect_err "'meta' is a str, not a tensor" "a non-tensor item is named"
run -n 10 --array y "$c/pt-labels.pt"
expect_err "holds a tensor, not a dict, list or tuple (drop --array)" "--array on a lone tensor"
run -n 10 - < "$c/pt-labels.pt"
expect_status 1 "standard input (spooled to a temporary file)"
gzip -c "$c/pt-strided-view.pt" > "$d/view.pt.gz"
expect_values "3 7 11 15 19 23 27" "a gzip-compressed view" "$d/view.pt.gz"
# contiguous tensors of a stored member are read in place (-v says so, as
# for .npy), at the storage's offset; views and converted dtypes are gathered
path_of() {   # path_of FILE ARGS...: "in place" or "ring" (chunks copied out: by a
              # reader thread, or on the scanning thread for a few values), as -v tells
    f=$1
    shift
    run -v -n 10 "$@" "$f"
    if grep -q ": read in place: " "$d/err"; then echo "in place"
    elif grep -Eq ": (a reader thread copies chunks|read and scanned on one thread)" "$d/err"; then
        echo ring
    else echo "?"; fi
}
expect_path() {   # expect_path WANT DESCRIPTION FILE ARGS...
    want=$1 what=$2
    shift 2
    got=$(path_of "$@")
    [ "$got" = "$want" ]
    ok $? "$what: read $want (got '$got')"
}
seq_values() { seq -s ' ' "$@"; }
expect_values "$(seq_values 5 39)" "t[5:] saved alone: storage_offset 5" "$c/pt-offset-view.pt"
expect_values "$(seq_values 8 31)" "rows 1..3 of a 5x8 tensor: offset 8" "$c/pt-rows-2d.pt"
expect_values "$(seq_values 1 9)" "two views of one storage: --array a" "$c/pt-shared-storage.pt" --array a
expect_values "$(seq_values 20 29)" "two views of one storage: --array b (offset 20)" \
    "$c/pt-shared-storage.pt" --array b
expect_values "$(seq_values 8 15)" "a size-1 axis with stride 1000 is still contiguous" "$c/pt-unit-dim.pt"
expect_values "$(seq_values 2 2 38)" "t[::2] (not contiguous)" "$c/pt-step-2.pt"
for f in pt-labels pt-dict pt-torch2-dict pt-offset-view pt-rows-2d pt-unit-dim pt-scalar pt-f16 \
    pt-int32 pt-uint8 pt-double; do
    expect_path "in place" "$f" "$c/$f.pt"
done
expect_path "in place" "pt-dict.pt --array labels (the second storage)" "$c/pt-dict.pt" --array labels
expect_path "in place" "pt-shared-storage.pt --array b" "$c/pt-shared-storage.pt" --array b
for f in pt-step-2 pt-strided-view pt-transposed pt-slice-2d pt-expanded pt-bool pt-bf16; do
    expect_path ring "$f (a view, bool or bfloat16)" "$c/$f.pt"
done
got=$(cat "$c/pt-offset-view.pt" | path_of -)
[ "$got" = ring ]
ok $? "a pipe (spooled to a temporary file): read ring (got '$got')"
for f in pt-offset-view pt-rows-2d pt-unit-dim pt-f16 pt-labels; do
    run --json -n 1 --max-report 1000 "$c/$f.pt"
    jq -S '.files[0] | del(.path)' "$d/out" > "$d/in-place.json"
    cat "$c/$f.pt" | "$LABELAUDIT" --json -n 1 --max-report 1000 - >"$d/out"
    jq -S '.files[0] | del(.path)' "$d/out" > "$d/ring.json"
    cmp -s "$d/in-place.json" "$d/ring.json"
    ok $? "$f: the same report read in place and through the ring"
done
# Read in place, a stored member's CRC-32 is not checked, as torch.load does
# not check it (PyTorch builds miniz without the reader's CRC-32 checks): the
# values read are the bytes torch.load would give. Pulled through the ring
# (a pipe, compressed input, views), it still is.
cp "$c/pt-labels.pt" "$d/bad-crc.pt"
printf 'c' | dd of="$d/bad-crc.pt" bs=1 seek=320 conv=notrunc 2>/dev/null   # labels[0] = 99
expect_values "99 2 3 4 5 6 7 8 9 10 3 4" "a corrupt stored storage read in place: torch.load's values" \
    "$d/bad-crc.pt"
cat "$d/bad-crc.pt" | "$LABELAUDIT" -n 10 - >"$d/out" 2>"$d/err"
rc=$?
expect_status 3 "the same through a pipe"
expect_err "storage: CRC-32 mismatch" "names the CRC-32 mismatch"
cp "$c/pt-dict.pt" "$d/noext"
run --json -n 10 "$d/noext"
expect_json '.files[0].format' "pt" "detected by content (first member PREFIX/data.pkl)"

echo "# --- .pt: expand()ed views, bounded by what the file stores"
# gathered one by one, (2^40,) over one stored value took an hour and
# (2^31, 2^31) never ended: timeout is a hang guard, not a timing test
for f in pt-expand-2p40:1099511627776 pt-expand-2p31-2p31:4611686018427387904 \
    pt-expand-over-bound:16777473; do
    timeout 60 "$LABELAUDIT" -n 10 "$c/${f%%:*}.pt" >"$d/out" 2>"$d/err"
    rc=$?
    expect_status 3 "${f%%:*}: a view far above its storage is refused"
    expect_err "the tensor is a view of ${f#*:} elements over a storage of 1 (expand()" \
        "${f%%:*}: by name, with its count and its storage's"
done
run --json -n 5 "$c/pt-expand-at-bound.pt"
expect_json '[.files[0].count, .files[0].invalid.above] | map(tostring) | join(" ")' \
    "16777472 16777472" "2^24 + 256 times one stored 7 is audited, each time counted"
run --json -n 10 --max-report 3 "$c/pt-expand-1000x3.pt"
expect_json '[.files[0].count, .files[0].invalid.above, .files[0].bad_samples, (.files[0].bad[] | .index)]
    | map(tostring) | join(" ")' "3000 1000 1000 2 5 8" \
    "(1000, 3) over 3 values: every repeat counted, the view's flat indices listed"

echo "# --- .pt: lists and tuples of numbers, as torch.tensor(list) reads them"
l="$c/pt-list-ints.pt"
run --json -n 10 --max-report 10 "$l"
expect_json '.files[0].dtype' "int64" "torch.save(list of ints): int64"
expect_json '.files[0].count' "2500" "every item, over three APPENDS batches"
expect_json '[.files[0].bad[] | "\(.index):\(.value)"] | join(" ")' "1500:300 2000:-1 2499:1099511627776" \
    "BININT2, BININT and LONG1 items at their indices"
expect_values "0.5 1 1 0.1" "floats, an int and a bool: float32 (0.1 as float32 shows as 0.1)" \
    "$c/pt-list-floats.pt"
run --json --loss bce "$c/pt-list-floats.pt"
expect_json '.files[0].dtype' "float32" "a float among them: float32, torch's default dtype"
run --json -n 2 "$c/pt-tuple-bools.pt"
expect_json '.files[0].dtype + " " + (.files[0].count | tostring)' "bool 3" "a tuple of bools: bool"
run --json -n 3 "$c/pt-list-bool-int.pt"
expect_json '.files[0].dtype' "int64" "[True, 2]: int64"
run -n 10 "$c/pt-list-int-overflow.pt"
expect_status 3 "an int beyond int64 in an int64 list is refused"
expect_err 'item 1 of the list is an int beyond int64: torch.tensor raises "Overflow when unpacking long"' \
    "as torch.tensor refuses it, naming the item"
expect_values "0.5 9223372000000000000" "beside a float it is a float32 (2**63)" \
    "$c/pt-list-big-int-float.pt"
run -n 10 "$c/pt-list-int-too-large.pt"
expect_err "item 1 of the list is an int beyond a double's range" "2**1100 beside a float: refused"
run -n 10 "$c/pt-list-empty.pt"
expect_status 1 "an empty list: no labels"
expect_out "error \[empty\]" "the empty finding"
run --json -n 2 "$c/pt-list-2d.pt"
expect_json '[.files[0].shape[], .files[0].samples, (.files[0].bad[] | .index)] | map(tostring) | join(",")' \
    "2,3,2,5" "a list of rows: shape (2, 3), 2 samples, the 3 at flat index 5"
run -n 10 "$c/pt-list-ragged.pt"
expect_err 'torch.tensor raises "expected sequence of length 2 at dim 1 (got 1)"' "ragged rows are refused"
run -n 10 "$c/pt-list-3d.pt"
expect_err "nested 3 deep" "lists nested deeper than rows are refused, by depth"
run -n 10 "$c/pt-list-1m.pt"
expect_status 0 "1.1M ints, over the reader's 2^20 values: packed numbers are no values"
n="$c/pt-nested.pt"
run -n 10 "$n"
expect_err "several arrays (train/images, train/labels, test/labels): choose one with --array" \
    "nested dicts: the candidates by path"
expect_values "3 1 12" "--array train/labels (a list in a nested dict)" "$n" --array train/labels
expect_values "3 1 12" "--array /train/labels (a leading slash, as for HDF5)" "$n" --array /train/labels
expect_values "1 2" "--array test/labels (a tensor in a nested dict)" "$n" --array test/labels
run -n 10 --array train/y "$n"
expect_err "no item 'y' in 'train' (a dict; arrays: train/images, train/labels, test/labels)" \
    "a wrong path says where it stops and lists the arrays"
run -n 10 --array train "$n"
expect_err "'train' is a dict, not a tensor or a list of numbers" "a path to a dict"
expect_values "3 1 12" "the one list in nested dicts, by default" "$c/pt-nested-one.pt"
run -n 20 -v "$c/pt-nested-one.pt"
expect_status 0 "a list of str beside it is not a candidate"

echo "# --- never executed"
rm -f /tmp/labelaudit-pwned
run -n 10 "$srcdir/tests/malformed/pt-os-system.pt"
expect_status 3 "a pickle calling os.system is refused"
expect_err "pickle calls posix.system" "naming the call"
[ ! -e /tmp/labelaudit-pwned ]
ok $? "and nothing ran"

echo "# --- .safetensors"
expect_values "$labels" "the labels tensor, among three, by its name" "$c/st-dict.safetensors"
expect_values "$labels" "one tensor" "$c/st-labels.safetensors"
gzip -c "$c/st-dict.safetensors" > "$d/st.safetensors.gz"
expect_values "$labels" "gzip-compressed (read through, not mapped)" "$d/st.safetensors.gz"
run --json -n 10 - < "$c/st-dict.safetensors"
expect_json '.files[0].count' "12" "standard input"
expect_values "1 1 1" "--array b" "$c/st-two.safetensors" --array b
expect_values "1 2 255" "a 2-D uint8 tensor" "$c/st-uint8-2d.safetensors"
run --json -n 10 "$c/st-uint8-2d.safetensors"
expect_json '.files[0].shape | map(tostring) | join(",")' "2,2" "its shape"
for t in bf16:float32 f16:float16 bool:bool int16:int16; do
    run --json -n 2 "$c/st-${t%%:*}.safetensors"
    expect_json '.files[0].dtype' "${t#*:}" "st-${t%%:*}.safetensors reads as ${t#*:}"
done
run --json --loss bce "$c/st-bf16.safetensors"
expect_json '.files[0].invalid.above' "1" "bfloat16 2.0 is above BCE's 1"
run -n 10 "$c/st-empty.safetensors"
expect_status 1 "an empty tensor: no labels"

built() { "$LABELAUDIT" --version | grep -q "^Formats:.* $1\( \|$\)"; }

echo "# --- HDF5"
if built hdf5; then
    expect_values "$labels" "the only dataset" "$c/h5-labels.h5"
    expect_values "$labels" "--array /group/dataset" "$c/h5-groups.h5" --array /train/labels
    expect_values "1 2 3" "--array without the leading /" "$c/h5-groups.h5" --array test/labels
    run -n 10 "$c/h5-groups.h5"
    expect_err "3 numeric datasets (the first: /test/labels): choose one with --array /PATH" \
        "several datasets and no --array"
    expect_values "$labels" "the default rule picks /labels" "$c/h5-two.h5"
    run --json -n 2 "$c/h5-pcam-y.h5"
    expect_json '.files[0].samples' "6" "PatchCamelyon's (N, 1, 1, 1): N samples"
    expect_json '.files[0].invalid.above' "1" "the 2 in it is out of range"
    want=$(echo 1 2 3 4 5 6 7 8 9 10 11 12 1 2 3 4 5 6 7 8 9 10 11 12 1 2 3 4 5 6 7 8)
    for b in 1 8 20 40 4194304; do
        # (h5py stored the '>i4' array little-endian: the chunk path reads it,
        # so the hyperslabs are H5Dread's, forced)
        LABELAUDIT_HDF5_SLOW=1 LABELAUDIT_HDF5_BLOCK=$b expect_values "$want" \
            "chunked, gzip and shuffle, in $b-byte hyperslabs" "$c/h5-chunked.h5"
    done
    expect_values "$want" "chunked, gzip and shuffle, chunk by chunk" "$c/h5-chunked.h5"
    for t in bool:bool f16:float16 f64:float64 u16:uint16 scalar:int64; do
        run --json -n 2 --array "${t%%:*}" "$c/h5-dtypes.h5"
        expect_json '.files[0].dtype' "${t#*:}" "h5 ${t%%:*} reads as ${t#*:}"
    done
    # an enum is its base integer type; only h5py's bool (FALSE = 0, TRUE = 1) is bool
    e="$c/h5-enums.h5"
    for t in "colors|uint8|1 42|{RED: 0, GREEN: 1, BLUE: 42}" "yes-no|int8|1 1|{NO: 0, YES: 1}" \
             "maybe|uint8|2 1|{FALSE, TRUE, MAYBE}" "e2|int16|300|2 bytes" \
             "e4|int32|1 -7 100000|4 bytes, signed" "e4-be|int32|5 5|big-endian" \
             "e8|uint64|1099511627776|8 bytes" "gz-chunked|int32|$(echo 1 42 | awk '{ for (i = 0; i < 50; i++) printf "%s1 42", i ? " " : "" }')|gzip chunks"; do
        a=${t%%|*} rest=${t#*|}
        dt=${rest%%|*} rest=${rest#*|}
        want=${rest%%|*} what=${rest#*|}
        expect_values "$want" "enum $a ($what): its stored integers" "$e" --array "$a"
        LABELAUDIT_HDF5_SLOW=1 expect_values "$want" "... and through H5Dread" "$e" --array "$a"
        run --json -n 100 --array "$a" "$e"
        expect_json '.files[0].dtype' "$dt" "enum $a reads as $dt"
    done
    run -n 5 --array colors "$e"
    expect_status 1 "an enum holding 42 fails -n 5"
    run -v -n 1 --array colors "$e"
    expect_err "read in place" "a native-order enum is read in place"
    run -v -n 1 --array gz-chunked "$e"
    expect_err "read as stored and inflated on" "a gzip enum is read chunk by chunk"
    # libver='latest' of HDF5 1.12 or later: libhdf5 1.10 cannot decode the
    # enum's type; it says so by name, or a newer libhdf5 reads it
    run -n 5 "$c/h5-enum-latest.h5"
    if [ "$rc" -eq 3 ]; then
        expect_err "cannot open dataset '/y': bad version number for datatype message" \
            "libver='latest': this libhdf5 names the dataset it cannot open and why"
    else
        expect_values "1 42" "libver='latest': the enum's integers" "$c/h5-enum-latest.h5"
    fi
    run -n 5 --array y "$c/h5-enum-latest.h5"
    [ "$rc" -eq 1 ] || grep -q "cannot open dataset '/y'" "$d/err"
    ok $? "libver='latest' --array y: not 'no dataset' (exit $rc)"
    run -n 2 --array text "$c/h5-dtypes.h5"
    expect_err "dataset holds strings, not numbers" "strings are refused by name"
    # read in place: a contiguous native dataset is mapped from its absolute offset
    seq1() { awk -v n="$1" -v m="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), i % m + 1 }'; }
    expect_values "$(seq1 300 97)" "contiguous after a 512-byte userblock" "$c/h5-userblock.h5" --array y
    run -v -n 1 --array y "$c/h5-userblock.h5"
    expect_err "read in place: 300 values from byte 2560," "read in place, the userblock counted"
    expect_values "$(seq1 300 89)" "big-endian contiguous" "$c/h5-contig-be.h5"
    run -v -n 1 "$c/h5-contig-be.h5"
    expect_err "reader thread.* (the values are parsed or converted" \
        "big-endian: converted by libhdf5, not read in place"
    LABELAUDIT_HDF5_BLOCK=40 expect_values "$(seq1 300 97)" "in hyperslabs all the same" \
        "$c/h5-userblock.h5" --array y
    # gzip chunks read as stored and inflated on the pool: values as H5Dread gives them
    ch="$c/h5-chunks.h5"
    g2=$(awk 'BEGIN { for (i = 0; i < 23 * 17; i++) printf "%s%d", (i ? " " : ""), i * 7 % 101 + 1 }')
    g3=$(awk 'BEGIN { for (i = 0; i < 6 * 5 * 7; i++) printf "%s%d", (i ? " " : ""), i * 3 % 50 + 1 }')
    fill="21 22 23 24 9 9 25 26 27 28 9 9 29 30 31 32 9 9 $(echo 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9)"
    fill="$fill 41 42 9 9 9 9 43 44 9 9 9 9 45 46 9 9 9 9 9 9"
    for t in "gzip2d|$g2|2-D, edge chunks on both axes" \
             "shuffle3d|$g3|3-D float32, shuffle then gzip" \
             "u16|$(seq -s ' ' 1 1000)|1-D uint16, shuffle, the last chunk cut short" \
             "fill|$fill|chunks never written read as the fill value" \
             "skipped|$(seq -s ' ' 1 12)|chunks stored with gzip or both filters skipped"; do
        a=${t%%|*} rest=${t#*|}
        want=${rest%|*} what=${rest##*|}
        expect_values "$want" "gzip chunks: $what" "$ch" --array "$a"
        LABELAUDIT_HDF5_SLOW=1 expect_values "$want" "... and through H5Dread" "$ch" --array "$a"
        run -v -n 1 --array "$a" "$ch"
        expect_err "hdf5: .* chunks of .* read as stored and inflated on" "$a: chunk by chunk"
    done
    expect_values "$(seq1 300 83)" "gzip chunks after a 512-byte userblock" "$c/h5-userblock.h5" --array gz
    for a in fletcher gzip-be; do
        expect_values "$(seq -s ' ' 1 40)" "$a: left to H5Dread" "$ch" --array "$a"
        run -v -n 1 --array "$a" "$ch"
        grep -q "read as stored" "$d/err"
        ok $((!$?)) "$a: not read chunk by chunk"
    done
    # a chunk over libhdf5's default 1 MiB chunk cache, read by H5Dread in
    # slices: the dataset gets a cache that holds it (as libhdf5 reports it
    # back), so that it is inflated once and not once per slice
    for b in "" 65536; do
        LABELAUDIT_HDF5_BLOCK=$b run -v --json -n 51 --array big-chunk "$ch"
        expect_json '"\(.files[0].count) \(.files[0].min) \(.files[0].max)"' "300000 1 50" \
            "one 2.4 MB gzip + fletcher32 chunk${b:+ in $b-byte slices}: its values"
        got=$(sed -n 's/.*hdf5: read by H5Dread with a chunk cache of \([0-9]*\) bytes for chunks of \([0-9]*\) bytes.*/\1 \2/p' "$d/err")
        [ -n "$got" ] && [ "${got% *}" -gt "${got#* }" ]
        ok $? "... with a chunk cache that holds a chunk (cache and chunk bytes: '$got')"
    done
    expect_values "10 11 12 13 3 14 15 16 17 3 18 19 20 21 3 22 23 24 25 3 $(echo 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3) 5 6 7 8 9" \
        "userblock, shuffle + gzip, edge chunks, fill value" "$c/h5-ub-fill.h5"
    LABELAUDIT_HDF5_SLOW=1 run -n 10 "$srcdir/tests/malformed/h5-chunk-garbage.h5"
    expect_status 3 "a damaged chunk through H5Dread: exit 3"
    [ "$(wc -l < "$d/err")" = 1 ]
    ok $? "... and one line on stderr, no libhdf5 error stack (from the reader thread)"
    run -v -n 1 -j 1 --array gzip2d "$ch"
    expect_err "inflated on 1 thread (" "-j 1: one thread"
    gzip -c "$c/h5-labels.h5" > "$d/y.h5.gz"
    run -n 2 "$d/y.h5.gz"
    expect_err "HDF5 is read from a file, not from compressed input" "compressed HDF5 is refused"
else
    ok 0 "# SKIP built without libhdf5"
fi

echo "# --- MATLAB .mat"
if built mat; then
    flowers="77 77 1 102 52 73"
    for v in v5 v7 v73; do
        expect_values "$flowers" "Flowers-102's 1xN doubles ($v)" "$c/mat-flowers-$v.mat"
        run --json -n 102 "$c/mat-flowers-$v.mat"
        expect_json '.files[0].samples' "6" "$v: a 1xN vector is N samples"
        expect_json '[.files[0].findings[].code] | join(",")' "out-of-range,float-labels,one-based,missing-classes" \
            "$v: float-labels and one-based"
        expect_out "y - 1" "$v: the fix says y - 1"
    done
    run -v -n 102 "$c/mat-flowers-v5.mat"
    expect_err "read in place: 6 values from byte 192" "v5: an uncompressed vector is read in place"
    for f in mat-flowers-v7 mat-svhn mat-matrix; do
        run -v -n 102 --array "$(case $f in mat-svhn) echo y ;; mat-matrix) echo masks ;; *) echo labels ;; esac)" \
            "$c/$f.mat"
        [ "$rc" -lt 3 ] && ! grep -q "read in place" "$d/err"
        ok $? "$f: compressed or a matrix: read, not in place"
    done
    if built hdf5; then
        run -v -n 102 "$c/mat-flowers-v73.mat"
        expect_err "v7.3 variable 'labels' read as HDF5 dataset /labels" \
            "v7.3: a vector is read by the HDF5 reader"
        run -v -n 12 "$c/mat-matrix-v73.mat"
        expect_status 1 "v7.3: a matrix (int32 as stored: int-labels-dtype, an error)"
        expect_err "read as HDF5 dataset /masks, whole, to reorder" \
            "v7.3: a matrix is read whole by the HDF5 reader, then reordered"
        # v7.3 from other writers than libmatio (whose class libmatio cannot tell)
        h="$c/mat-hdf5storage-v73.mat"
        expect_values "$flowers" "hdf5storage: the default rule picks labels" "$h"
        for t in "labels|float64|6|$flowers" "m|int32|3,4|$(seq -s ' ' 1 11)" "t|bool|3|1 1" \
                 "x|float32|2,3|"; do
            a=${t%%|*} rest=${t#*|}
            dt=${rest%%|*} rest=${rest#*|}
            shape=${rest%%|*} want=${rest#*|}
            expect_values "$want" "hdf5storage: --array $a" "$h" --array "$a"
            run --json -n 1 --array "$a" "$h"
            expect_json '[.files[0].dtype, (.files[0].shape | map(tostring) | join(","))] | join(" ")' \
                "$dt $shape" "hdf5storage: $a is MATLAB's $dt, shape $shape"
        done
        run -n 1 --array names "$h"
        expect_err "variable 'names' holds characters, not numbers" "hdf5storage: a char array is named"
        h="$c/mat-h5py-v73.mat"
        expect_values "1 9 2 10 3 10" "h5py in MATLAB's layout: y (a variable-length class string)" "$h"
        expect_values "$(seq -s ' ' 1 11)" "h5py: a 3x4 int32 matrix in C order" "$h" --array masks
        run --json -n 5 --array masks "$h"
        expect_json '.files[0].shape | map(tostring) | join(",")' "3,4" "h5py: MATLAB's shape, not HDF5's"
        run --json -n 5 --array e "$h"
        expect_json '"\(.files[0].count) \(.summary.exit_status)"' "0 1" "h5py: MATLAB_empty: no labels"
        run -n 5 --array '#refs#' "$h"
        expect_err "no variable '#refs#' in the file" "h5py: a group without MATLAB_class is no variable"
    fi
    expect_values "1 9 2 10 3 10" "SVHN's Nx1 y (the only other variable is X)" "$c/mat-svhn.mat" --array y
    run -n 10 --array y "$c/mat-svhn.mat"
    expect_out "10 may mean 0" "SVHN's 1..10 with -n 10: 10 may mean 0"
    for f in mat-matrix mat-matrix-v73; do
        expect_values "1 2 3 4 5 6 7 8 9 10 11" "$f: a column-major matrix in C order" "$c/$f.mat"
        run --json -n 5 "$c/$f.mat"
        expect_json '.files[0].shape | map(tostring) | join(",")' "3,4" "$f: MATLAB's shape"
        expect_json '.files[0].bad[0] | "\(.index) \(.value)"' "5 5" "$f: C-order indices (MATLAB's (2,2) is 5)"
    done
    # MATLAB stores values in the smallest type that holds them, and may store
    # names as miUTF8: read as the array's class, as MATLAB and scipy do
    for z in "" -v7; do
        for t in "i32_as_u32|int32|1 2 3 70000 5|int32 stored as miUINT32" \
                 "f64_as_u8|float64|1 2 250 4|double stored as miUINT8" \
                 "i32_small|int32|7 8 9|a small data element of miUINT8" \
                 "m_as_u16|int32|1 2 3 4 5|a 2x3 int32 matrix stored as miUINT16"; do
            a=${t%%|*} rest=${t#*|}
            dt=${rest%%|*} rest=${rest#*|}
            want=${rest%%|*} what=${rest#*|}
            expect_values "$want" "mat-odd-types$z: $what" "$c/mat-odd-types$z.mat" --array "$a"
            run --json -n 1 --array "$a" "$c/mat-odd-types$z.mat"
            expect_json '.files[0].dtype' "$dt" "mat-odd-types$z $a: its class, $dt"
        done
        expect_values "1 2 3 4 5" "a miUTF8 name$z: the only variable" "$c/mat-utf8-name$z.mat"
        expect_values "1 2 3 4 5" "a miUTF8 name$z: --array y" "$c/mat-utf8-name$z.mat" --array y
    done
    # a compressed variable is inflated once, not once per 1 MiB piece read
    # (libmatio's Mat_VarReadDataLinear inflates from the start each time)
    run -v -n 10 "$c/mat-long-v7.mat"
    expect_status 0 "400,000 compressed int64 (3.2 MB, four pieces)"
    got=$(sed -n "s/.*mat: variable 'y': \([0-9]*\) bytes inflated, for \([0-9]*\) bytes.*/\1 \2/p" "$d/err")
    [ -n "$got" ] && [ "${got% *}" -le $((${got#* } + 4096)) ]
    ok $? "inflated in one pass: bytes inflated <= the values' bytes + 4 KiB (got '$got')"
    run --json -n 2 "$c/mat-logical.mat"
    expect_json '.files[0].dtype' "bool" "logical reads as bool"
    run -n 2 "$c/mat-two.mat"
    expect_err "2 numeric variables (the first: a): choose one with --array" "two variables"
    run -n 2 "$c/mat-cell.mat"
    expect_err "no numeric variable in the file" "a cell array is no labels"
    run -n 2 --array names "$c/mat-cell.mat"
    expect_err "variable 'names' holds a cell array, not numbers" "named as a cell array"
    # scipy's own test file: loadmat raises "incorrect data check" (tests/data/containers/scipy-mat.txt)
    run -n 5 "$c/scipy-corrupted_zlib_checksum.mat"
    expect_status 3 "a variable with a wrong Adler-32, not the one read: refused, as scipy does"
    expect_err "variable 'dates': its compressed data is damaged (incorrect data check)" \
        "... naming the damaged variable"
    # scipy's miuint32_for_miint32.mat: dimensions tagged miUINT32, which
    # libmatio does not read; scipy's loadmat reads an_array, 1x10 int64 0..9
    f="$c/scipy-miuint32_for_miint32.mat"
    expect_values "1 2 3 4 5 6 7 8 9" "scipy's miuint32_for_miint32.mat: its values (all but 0)" "$f"
    run --json -n 10 "$f"
    expect_status 0 "miUINT32 dimensions: read, as scipy reads them"
    expect_json '[.files[0].dtype, .files[0].count, .files[0].min, .files[0].max] | map(tostring) | join(" ")' \
        "int64 10 0 9" "... int64, 10 values, 0..9 (scipy's loadmat)"
    # make_mat.py's: libmatio reads no dimensions of y, and (compressed)
    # stops there; z after it is read too (values as scipy's loadmat reads)
    for z in "" -v7; do
        expect_values "$(seq 0 299 | awk '$1 % 7 {print $1 % 7}' | tr '\n' ' ' | sed 's/ $//')" \
            "miUINT32 dimensions$z: y, 300 int64" "$c/mat-uint32-dims$z.mat" --array y
        expect_values "4 5 6" "miUINT32 dimensions$z: z, the variable after y" \
            "$c/mat-uint32-dims$z.mat" --array z
    done
    run -n 10 "$c/mat-double-dims.mat"
    expect_status 3 "dimensions tagged miDOUBLE: refused, as scipy refuses them"
    expect_err "variable 'y' (byte 152): its dimensions are not 1 to 8 32-bit integers (damaged file)" \
        "... naming the variable and the byte"
else
    ok 0 "# SKIP built without libmatio"
fi
echo "# --- a WebDataset shard: --max-report is a limit, not an allocation"
run --json -n 3 --max-report=1000000000 "$data/wds/clean-10.tar"
expect_status 1 "--max-report=1000000000: audited, not out of memory"
expect_json '.files[0].samples' 10 "its 10 samples read"

finish
