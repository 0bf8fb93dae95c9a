#!/bin/sh
# findings-scope.sh - findings that belong to one kind of data only.
# The mask remaps (labelids-not-trainids, reduce-zero-label) are for masks and
# volumes, never for one label per sample; label-gap is for masks, and for one
# label per sample only when each value past N is as common as a class (a
# stray typo must not be "remapped" into a class that went unsampled). YOLO and
# COCO count bad samples as files and images, not boxes.
. "$srcdir/tests/setup.sh"

codes() { jqf '[.files[0].findings[].code] | join(" ")'; }

# npy_u8 FILE SHAPE : a uint8 .npy of shape SHAPE ("(2, 3, 4)") whose data is
# standard input, as np.save writes it (a 64-byte aligned header)
npy_u8() {
    dict="{'descr': '|u1', 'fortran_order': False, 'shape': $2, }"
    pad=$(((10 + ${#dict} + 1 + 63) / 64 * 64 - 10 - ${#dict} - 1))
    { printf '\223NUMPY\001\000%b\000' "\\0$(printf '%o' $((${#dict} + pad + 1)))"
      printf '%s%*s\n' "$dict" "$pad" ""
      cat; } >"$1"
}

# ---- one label per sample ---------------------------------------------------------
{ for i in $(seq 30); do printf '0\n1\n2\n'; done; echo 4; } >"$d/stray.txt"
run --json -n 4 "$d/stray.txt"
expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" "out-of-range missing-classes" \
    "1-D 0,1,2 and one stray 4 with -n 4: a bad label, no label-gap"
for i in $(seq 30); do printf '0\n1\n2\n4\n'; done >"$d/gap.txt"
run --json -n 4 "$d/gap.txt"
expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" \
    "out-of-range missing-classes label-gap" "1-D 0,1,2,4 as often each with -n 4: label-gap 4 -> 3"
{ seq 0 150; for i in $(seq 200); do echo 0; done; } >"$d/ade.txt"
run --json -n 150 "$d/ade.txt"
expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" "out-of-range" \
    "1-D 0..150 with 0 frequent, -n 150: no reduce-zero-label"
{ for i in $(seq 10); do seq 0 18; done; echo 26; echo 255; } >"$d/ids.txt"
run --json -n 19 "$d/ids.txt"
expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" "out-of-range" \
    "1-D 0..18 and a 26 with -n 19: no labelids-not-trainids"
mkdir "$d/yolo"
for i in 1 2 3 4 5 6 7 8; do
    printf '0 0.5 0.5 0.1 0.1\n1 0.5 0.5 0.1 0.1\n2 0.5 0.5 0.2 0.2\n' >"$d/yolo/a$i.txt"
done
printf '4 0.5 0.5 0.1 0.1\n' >"$d/yolo/b.txt"
run --json --format=yolo -n 4 "$d/yolo"
expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" "out-of-range missing-classes" \
    "YOLO class ids 0,1,2 and one box of class 4, -n 4: no label-gap"

# ---- masks: (S, H, W) arrays ------------------------------------------------------
# two 2x3 masks holding 0, 1, 2 and one pixel of 4: a class skipped
printf '\000\001\002\000\001\002\000\001\002\000\001\004' | npy_u8 "$d/gap.npy" '(2, 2, 3)'
run --json -n 4 "$d/gap.npy"
expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" \
    "out-of-range missing-classes label-gap" "(S, H, W) masks with one pixel of 4, -n 4: label-gap"
# Cityscapes labelIds: 0..18 and ten labelIds above, 255 for none
{ seq 0 33; echo 255; seq 0 33; echo 255; } | awk '{ printf "%c", $1 }' |
    npy_u8 "$d/ids.npy" '(2, 5, 7)'
run --json -n 19 "$d/ids.npy"
expect_json "$(printf '%s' '[.files[0].findings[].code] | join(" ")')" \
    "out-of-range labelids-not-trainids" "(S, H, W) masks with labelIds 19..33 and 255, -n 19"

finish
