#!/bin/sh
# geometry.sh - NIfTI labels against their images' grids (SPEC "A label and
# what it labels": geometry-mismatch). The truth is nnU-Net's own
# check_cases, run by tests/gen/gen_geometry.py on each case of an nnU-Net
# raw dataset written with nibabel (verdicts.txt): a case it refuses (shape
# or spacing, or channels of two grids) is an error, a case it only warns
# about (origin, direction) a warning, the rest (a spacing 1e-7 off too)
# nothing. Each channel of a case is compared.
. "$srcdir/tests/setup.sh"
g="$data/geometry"
root="$g/Dataset001_Geometry"

if ! "$LABELAUDIT" --version | grep -q '^Formats: .* nifti'; then
    echo "1..0 # SKIP built without NIfTI (libniftiio)"
    exit 0
fi

run --json "$root"
expect_status 1 "an nnU-Net dataset of refused cases: exit 1"
# a case's verdict, from the report: error where an entry is refused,
# warning where its entries only warn, ok where none names it
for entry in $(awk '!/^#/ { print $1 "=" $2 }' "$g/verdicts.txt"); do
    case=${entry%=*} want=${entry#*=}
    got=$(jq -r --arg f "labelsTr/$case.nii.gz" '
        [.files[0].pairs.bad[] | select(.kind == "geometry-mismatch" and (.file | endswith($f)))]
        | if length == 0 then "ok" elif any(.refused) then "error" else "warning" end' "$d/out")
    [ "$got" = "$want" ]
    ok $? "$case: $got, as nnU-Net's check_cases says ($want)"
done
expect_json '.files[0].pairs.geometry_mismatch' 5 "five labels off their grid, each counted once"
expect_json '[.files[0].findings[] | select(.code == "geometry-mismatch") | .severity] | join(",")' \
    error "refused cases make it an error"
expect_json '[.files[0].pairs.bad[] | select(.file | endswith("case_channel.nii.gz")) | .image] | map(split("/") | last) | join(",")' \
    case_channel_0001.nii.gz "the channel off the grid is named, not the one on it"
expect_json '[.files[0].pairs.bad[] | select(.file | endswith("case_spacing.nii.gz")) | .geometry] | .[0]' \
    "spacing (1, 1, 2.5), its image's (1, 1, 2)" "the JSON says how the grids differ"

run "$root"
expect_out "error \[geometry-mismatch\]: 5 NIfTI labels are off their image's grid: 3 in shape or spacing" \
    "the text counts them"
expect_out "labelsTr/case_shape.nii.gz: shape 6 x 5 x 3, its image's 6 x 5 x 4 (.*imagesTr/case_shape_0000.nii.gz)" \
    "... and names the label and its image"

# only the origin off: nnU-Net warns and trains: a warning, exit 0
mkdir -p "$d/ds/imagesTr" "$d/ds/labelsTr"
cp "$root/dataset.json" "$d/ds/"
for c in case_ok case_origin; do
    cp "$root"/imagesTr/${c}_000?.nii.gz "$d/ds/imagesTr/"
    cp "$root/labelsTr/$c.nii.gz" "$d/ds/labelsTr/"
done
run --json "$d/ds"
expect_status 0 "only an origin off: exit 0"
expect_json '[.files[0].findings[] | select(.code == "geometry-mismatch") | .severity] | join(",")' \
    warning "only an origin off: a warning"
run --fail-on warning "$d/ds"
expect_status 1 "... which --fail-on warning gates"

# an image whose header is cut short: said, not a crash
head -c 20 "$root/imagesTr/case_ok_0000.nii.gz" >"$d/ds/imagesTr/case_ok_0000.nii.gz"
run --json "$d/ds"
expect_json '[.files[0].pairs.bad[] | select(.kind == "unreadable") | .image | split("/") | last] | join(",")' \
    case_ok_0000.nii.gz "a cut image header: its image unreadable, named"
[ "$rc" -ne 2 ] && [ "$rc" -lt 128 ]
ok $? "... no crash (exit $rc)"
finish
