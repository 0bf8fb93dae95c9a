#!/bin/sh
# masks.sh - segmentation masks where they live: PNG, TIFF and
# NIfTI files, one sample each, read as PIL, tifffile and nibabel give them
# (tests/gen/gen_masks.py made every file here with those tools and says what
# each holds); the samples' reports and the mask findings (label-gap,
# labelids-not-trainids, reduce-zero-label); several FILE arguments. A format
# this build lacks (configure found no library) is skipped.
. "$srcdir/tests/setup.sh"
m="$srcdir/tests/data/masks"
s="$srcdir/samples"

formats=$("$LABELAUDIT" --version | sed -n 's/^Formats: \([^(]*\).*/\1/p')
has() { case " $formats " in *" $1 "*) return 0 ;; esac; return 1; }
skip() { echo "ok $((n_tests += 1)) # SKIP $1: built without it"; }

# layout FILE ARGS... : format, dtype, shape, samples, count, min and max in one line
layout() {
    f=$1
    shift
    run --json "$@" "$f"
    jqf '.files[0] | [.format, .dtype, (.shape | map(tostring) | join("x")), .samples, .count,
                      .min, .max] | map(tostring) | join(" ")'
}

expect_layout() {   # expect_layout FILE "FORMAT DTYPE SHAPE SAMPLES COUNT MIN MAX" [ARGS...]
    f=$1 want=$2
    shift 2
    got=$(layout "$m/$f" "$@")
    [ "$got" = "$want" ]
    ok $? "$f: $got (want $want)"
}

# hist FILE N : the histogram's non-zero classes, "c:count ..."
hist() {
    run --json -n "$2" "$1"
    jqf '[.files[0].histogram | to_entries[] | select(.value > 0) | "\(.key):\(.value)"] | join(" ")'
}

codes() { jqf '[.files[0].findings[].code] | join(" ")'; }

# ---- PNG: grey, palette, 16-bit, sub-byte depths, interlaced ----------------------
if has png; then
    expect_layout grey8.png "png uint8 3x4 1 12 0 255"
    expect_layout grey16.png "png uint16 2x2 1 4 0 65535"
    expect_layout grey1.png "png bool 2x2 1 4 0 1"
    # PIL scales 2-bit grey to 0..255 ("L;2"); palette indices are never scaled
    expect_layout grey2.png "png uint8 2x4 1 8 0 255"
    [ "$(hist "$m/grey2.png" 256)" = "0:2 85:2 170:2 255:2" ]
    ok $? "grey2.png: 0, 85, 170, 255 twice each, as np.array(Image.open(p))"
    expect_layout palette4.png "png uint8 2x8 1 16 0 15"
    [ "$(hist "$m/palette4.png" 16 | wc -w)" -eq 16 ]
    ok $? "palette4.png: the 4-bit indices 0..15, once each"
    [ "$(hist "$m/interlaced.png" 256)" = "$(hist "$m/grey8.png" 256)" ]
    ok $? "interlaced.png (Adam7) holds grey8.png's values"
    run --json -n 256 "$m/interlaced.png"
    expect_json '.files[0].bad_samples' 0 "interlaced.png: nothing out of range with -n 256"
    # standard input and gzip: PNG is read as a stream
    run --format=png -n 256 - <"$m/grey8.png"
    expect_status 0 "grey8.png on standard input"
    gzip -c "$m/grey8.png" >"$d/grey8.png.gz"
    [ "$(layout "$d/grey8.png.gz")" = "png uint8 3x4 1 12 0 255" ]
    ok $? "grey8.png.gz: decompressed, then read as PNG"
else
    skip png
fi

# ---- TIFF: strips, tiles, compression, signed and float ------------------------------
if has tiff; then
    expect_layout strips-u16.tif "tiff uint16 2x3 1 6 0 300"
    expect_layout tiles-f32.tif "tiff float32 20x40 1 800 0 7" -n 10
    expect_json '.files[0].invalid.non_integer' 1 "tiles-f32.tif: 2.5 is not a class"
    expect_json '.files[0].bad[0].index' 153 "tiles-f32.tif: 2.5 at row 3, column 33 (a second tile)"
    expect_layout deflate-i8.tif "tiff int8 1x4 1 4 -1 2"
    # libtiff seeks: a pipe is refused by name, in one line
    cat "$m/strips-u16.tif" | "$LABELAUDIT" --format=tiff - >"$d/out" 2>"$d/err"
    rc=$?
    expect_status 3 "TIFF through a pipe"
    expect_err "labelaudit: -: TIFF is read from a regular file only" "TIFF through a pipe: why"
else
    skip tiff
fi

# ---- NIfTI: byte order, scaling, gzip, stdin -----------------------------------------
if has nifti; then
    expect_layout bigendian-i16.nii "nifti int16 4x3x2 1 24 0 4"
    # scl_slope 2, scl_inter 1 on 0..5: nibabel's float64 1, 3, ..., 11
    expect_layout scaled.nii "nifti float64 1x2x3 1 6 1 11"
    [ "$(hist "$m/scaled.nii" 12)" = "1:1 3:1 5:1 7:1 9:1 11:1" ]
    ok $? "scaled.nii: slope * x + inter, as nibabel's dataobj"
    run --format=nifti -n 5 - <"$m/brats.nii"
    expect_status 0 "brats.nii on standard input"
    cat "$m/brats.nii" | "$LABELAUDIT" --json -n 5 - >"$d/out" 2>"$d/err"
    expect_json '.files[0].count' 9216 "brats.nii through a pipe: streamed"
else
    skip nifti
fi

# ---- the samples and the mask findings ---------------------------------------------
if has png; then
    run --json -n 21 "$s"/voc-masks/*.png
    expect_json '[.files[] | .format] | unique | join(",")' png "VOC masks: png"
    expect_json '[.files[] | .findings[] | select(.code == "ignore-like-value") | .message] | length' 4 \
        "VOC masks: 255 boundaries are ignore-like-value in each"
    expect_json '[.files[] | .samples] | add' 4 "VOC masks: one sample per image"
    run --json -n 19 "$s"/cityscapes/*_labelIds.png
    expect_json "$(printf '%s' '.files[0].findings[] | select(.code == "labelids-not-trainids") | .message')" \
        "values up to 33 with -n 19: these look like Cityscapes labelIds (0..33), not trainIds (0..18); train on the trainIds masks (cityscapesscripts' createTrainIdLabelImgs makes them), with --ignore-index 255" \
        "Cityscapes labelIds with -n 19"
    run --json -n 19 "$s"/cityscapes/*_trainIds.png
    expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" \
        "out-of-range ignore-like-value missing-classes" "Cityscapes trainIds: 255 is the ignore value"
    run --json -n 19 --ignore-index 255 "$s"/cityscapes/*_trainIds.png
    expect_status 0 "Cityscapes trainIds with --ignore-index 255: clean but for missing classes"
    run --json -n 150 "$m/ade-like.png"
    expect_json "$(printf '%s' '.files[0].findings[] | select(.code == "reduce-zero-label") | .message')" \
        'values run 0..150 with -n 150 and 0 is frequent (800 of 1600 labels): 0 looks like "other", as in ADE20K; reduce_zero_label: map 0 -> 255 and c -> c-1, then --ignore-index 255 (mmsegmentation: reduce_zero_label=True)' \
        "ADE20K-like 0..150 with -n 150: reduce-zero-label"
    run --json -n 151 "$m/ade-like.png"
    expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" "" "ADE20K-like with -n 151: clean"
    # several FILE arguments: one report each, each image one sample
    run -n 3 "$m"/folder/m0.png "$m"/folder/m1.png "$m"/folder/m2.png
    expect_status 1 "three masks, one with a 22"
    [ "$(grep -c ': png, uint8, shape (16, 24)' "$d/out")" -eq 3 ]
    ok $? "three masks: three reports"
fi
if has nifti; then
    run --json -n 4 "$s/brats/BraTS20_Training_001_seg.nii.gz"
    got=$(jqf '.files[0] | {format, dtype, shape, samples, count, min, max, invalid, bad_samples,
                            missing_classes, findings: [.findings[] | {code, message}]}' |
          jq -c .)
    want='{"format":"nifti","dtype":"uint8","shape":[16,24,24],"samples":1,"count":9216,"min":0,"max":4,"invalid":{"count":64,"below":0,"above":64,"non_finite":0,"non_integer":0,"unparsable":0},"bad_samples":1,"missing_classes":[3],"findings":[{"code":"out-of-range","message":"64 labels outside [0, 4) (0 below 0, 64 at or above 4)"},{"code":"missing-classes","message":"1 of 4 classes never occur (first: 3)"},{"code":"label-gap","message":"out of range: 4; never occurring: class 3: the labels skip a class (as BraTS'"'"'s 0, 1, 2, 4 with -n 4); remap 4 -> 3 (e.g. y[y == 4] = 3)"}]}'
    [ "$got" = "$want" ]
    ok $? "BraTS-like .nii.gz with -n 4: the report, label-gap 4 -> 3"
    [ "$got" = "$want" ] || printf '# got:  %s\n# want: %s\n' "$got" "$want"
    # positions are in the file's order, [z, y, x]: the first 4 is img.dataobj[10, 10, 6]
    expect_json '.files[0].bad_sample_list[0].first_at | map(tostring) | join(",")' 6,10,10 \
        "BraTS-like: the first 4 at z 6, y 10, x 10"
    expect_json '.files[0].bad[0].index' 3706 "BraTS-like: its index is its place in the file"
fi
# a mask folder is one dataset: one sample per image, the bad images named
if has png; then
    run -n 21 "$s/voc-masks"
    expect_status 1 "VOC mask folder"
    expect_out "voc-masks: dataset of 4 files, uint8, shape (4, 48, 64), 12288 labels" \
        "VOC mask folder: one dataset of 4 images"
    expect_out "2007_000039.png at (5, 3): 68 invalid, values 255" "VOC mask folder: the bad images named"
    run --json -n 21 --ignore-index 255 "$s/voc-masks"
    expect_json '[.files[0].sources[].format] | unique | join(",")' png "VOC mask folder: png sources"
    expect_json '.files[0].invalid.count' 0 "VOC mask folder with --ignore-index 255: clean"
    # one image's first bad pixel, in the text report too: (y, x)
    run -n 21 "$s/voc-masks/2007_000032.png"
    expect_out "sample 0: 80 invalid, all = 255, the first at (1, 44)$" "one PNG: the first bad pixel at (y, x)"
fi
echo "# --- bad_sample_list values are bad[].value's, NaN included, in every N-D reader"
# float32 masks (2, 2, 3): sample 0 holds NaN then 7; sample 1 inf, NaN, -inf
# (NaN compares neither below nor above inf: it used to count as inf's value)
f32() { for v in "$@"; do case $v in
    0) printf '\000\000\000\000' ;; nan) printf '\000\000\300\177' ;; 7) printf '\000\000\340\100' ;;
    inf) printf '\000\000\200\177' ;; -inf) printf '\000\000\200\377' ;; esac; done; }
nan_mask() { f32 0 nan 7 nan 0 0  inf 0 nan -inf nan 0; }
mkdir "$d/nan"
{ npy_head '<f4' '(2, 2, 3)'; nan_mask; } >"$d/nan/a.npy"
cp "$d/nan/a.npy" "$d/nan/b.npy"
hdr='{"y":{"dtype":"F32","shape":[2,2,3],"data_offsets":[0,48]}}'
{ printf "\\$(printf %03o ${#hdr})\\000\\000\\000\\000\\000\\000\\000%s" "$hdr"; nan_mask; } \
    >"$d/nan.safetensors"
# $consistent, a jq filter: every bad_sample_list entry's values are its sample's
# distinct bad[].value, in order, the first 4
# shellcheck disable=SC2016 # jq variables, not the shell's
consistent='.files[0] as $f | [$f.bad_sample_list[] | . as $g | .values == ([$f.bad[] |
    select(.sample == $g.sample) | .value] | reduce .[] as $v ([]; if any(.[]; . == $v) then .
    else . + [$v] end) | .[:4])] | all'
for args in "$d/nan/a.npy" "$d/nan" "--concat $d/nan/a.npy $d/nan/b.npy" "-j 3 $d/nan" \
            "$d/nan.safetensors"; do
    # shellcheck disable=SC2086 # $args holds options and paths
    run --json -n 5 $args
    expect_json '[.files[0].bad_sample_list[].values | map(tostring) | join(",")] | join(" ")' \
        "$(case $args in *nan/a.npy|*safetensors) echo "nan,7 inf,nan,-inf" ;;
                         *) echo "nan,7 inf,nan,-inf nan,7 inf,nan,-inf" ;; esac)" \
        "NaN in bad_sample_list values: $args"
    expect_json "$consistent" true "bad_sample_list values are bad[].value's: $args"
done
"$LABELAUDIT" --json -n 5 "$d/nan/a.npy" >"$d/nan-a.json"
"$LABELAUDIT" --json -n 5 "$d/nan/b.npy" >"$d/nan-b.json"
run --json --merge "$d/nan-a.json" "$d/nan-b.json"
expect_json '[.files[0].bad_sample_list[].values | map(tostring) | join(",")] | join(" ")' \
    "nan,7 inf,nan,-inf nan,7 inf,nan,-inf" "--merge keeps NaN in bad_sample_list values"
run -n 5 "$d/nan"
expect_out "b.npy sample 1 at (0, 0): 4 invalid, values inf, nan, -inf" \
    "the text report lists NaN among a sample's values"

# Each thread decodes its images into the buffers of its last one: 80 more
# 512 x 512 masks in a folder cost fewer than one page fault each (with
# fresh buffers per image, about 110 each). Counted at two folder sizes, so
# that what any run costs cancels out; not under ASan, whose allocator puts
# every freed block in quarantine and hands out fresh memory.
if has png && [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1 &&
   ! grep -q __asan_init "$LABELAUDIT" 2>/dev/null; then
    faults_of() {   # faults_of N : minor page faults of auditing a folder of N copies at -j2
        rm -rf "$d/voc" && mkdir "$d/voc"
        i=0
        while [ $i -lt "$1" ]; do
            cp "$m/voc512.png" "$d/voc/$i.png"
            i=$((i + 1))
        done
        /usr/bin/time -v -o "$d/time" "$LABELAUDIT" -j2 -n 21 --no-progress "$d/voc" >/dev/null 2>&1
        sed -n 's/.*Minor (reclaiming a frame) page faults: //p' "$d/time"
    }
    few=$(faults_of 40)
    many=$(faults_of 120)
    [ $((many - few)) -lt 80 ]
    ok $? "80 more PNG masks: $few then $many minor page faults (fewer than 80 more)"
else
    echo "ok $((n_tests += 1)) # SKIP page faults per PNG mask: no png, no /usr/bin/time, or ASan"
fi
finish
