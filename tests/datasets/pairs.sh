#!/bin/sh
# pairs.sh - labels against the images they label (SPEC "A label and what
# it labels"): masks and YOLO label files paired by name stem with the
# images their layout keeps beside them, or --images; each image's size from
# its header, held to PIL's Image.open(p).size (tests/gen/gen_pairs.py made
# the fixtures and tests/data/pairs/sizes.txt); size-mismatch, missing-pair
# and unlabeled-images in every output.
. "$srcdir/tests/setup.sh"
p="$data/pairs"
if absent_feature "$p/voc/SegmentationClass/2007_000001.png" >/dev/null; then
    echo "1..0 # SKIP built without PNG masks"
    exit 0
fi

# ---- Pascal VOC: a mask of another size, a mask without image, an image without mask
run "$p/voc"
expect_status 1 "voc: exit 1"
expect_out "size-mismatch\\]: 1 mask is of another size than its image" "voc: size-mismatch"
expect_out "^      $p/voc/SegmentationClass/2007_000002.png: 32 x 24, its image $p/voc/JPEGImages/2007_000002.jpg 32 x 20$" \
    "voc: the mask and its image named, with both sizes (PIL: 32 x 20)"
expect_out "missing-pair\\]: 1 label has no image and 1 image has no mask in $p/voc/JPEGImages" \
    "voc: missing-pair both ways"
expect_out "^      $p/voc/SegmentationClass/2007_000003.png: no image$" "voc: the label without its image"
expect_out "^      $p/voc/JPEGImages/2007_000004.jpg: no mask$" "voc: the image without its mask"
run --json "$p/voc"
expect_json '.files[0].pairs | [.images, .paired, .unlabeled, .orphans, .size_mismatch] | join(",")' \
    "3,2,1,1,1" "json: pairs' counts"
expect_json '.files[0].pairs.bad[0] | [.kind, (.label_size | join("x")), (.image_size | join("x"))] | join(" ")' \
    "size-mismatch 32x24 32x20" "json: a bad pair's sizes, [width, height]"

# ---- YOLO: a label file without image (error), a background image (a notice)
run "$p/yolo"
expect_status 1 "yolo: the label without image fails"
expect_out "missing-pair\\]: 1 label has no image in $p/yolo/images" "yolo: c.txt has no image"
expect_out "^  notice \\[unlabeled-images\\]: 1 of 3 images in $p/yolo/images has no label file" \
    "yolo: bg.jpg is a background image, a notice"
expect_out "^summary: 1 file, 1 error, 0 warnings" "yolo: the notice is no error or warning"
rm -rf "$d/yolo" && cp -r "$p/yolo" "$d/yolo" && rm "$d/yolo/labels/c.txt"
run --fail-on=warning "$d/yolo"
expect_status 0 "yolo: background images alone pass even --fail-on=warning"
run -q --sarif="$d/y.sarif" "$d/yolo"
got=$(jq -r '[.runs[0].results[] | select(.ruleId == "unlabeled-images") | .level] | join(",")' "$d/y.sarif")
[ "$got" = note ]
ok $? "sarif: the notice is a note ($got)"
run --annotations=github "$d/yolo"
expect_out "^::notice file=.*,title=unlabeled-images::" "github: the notice is a ::notice"

# ---- Cityscapes: the suffixes each side adds
run "$p/cityscapes"
expect_out "aachen_000000_000020_gtFine_labelIds.png: 64 x 32, its image $p/cityscapes/leftImg8bit/train/aachen/aachen_000000_000020_leftImg8bit.png 64 x 30" \
    "cityscapes: _gtFine_labelIds paired with _leftImg8bit"
grep -q '000019.*its image' "$d/out"
ok $((! $?)) "cityscapes: the pair of equal sizes is no finding"

# ---- every header: PIL's sizes (sizes.txt), the odd ones 21 wide for 20-wide masks
run --json --images="$p/formats/images" "$p/formats/masks"
while read -r name w h; do
    stem=${name%.*}
    got=$(jqf "[.files[0].pairs.bad[] | select(.image | endswith(\"/$name\"))] | .[0].image_size // [] | join(\"x\")")
    if [ "$w" = 20 ]; then want=""; else want="${w}x$h"; fi
    [ "$got" = "$want" ]
    ok $? "$name: PIL's $w x $h (a mismatch listed with its size: '$got', want '$want')"
done <"$p/sizes.txt"
expect_json '.files[0].pairs.paired' 8 "--images: each mask paired"

# ---- every output names the label file of a bad pair, not the folder
run -q --sarif="$d/s.sarif" --annotations=gitlab:"$d/g.json" "$p/voc"
got=$(jq -r '[.runs[0].results[] | .locations[0].physicalLocation.artifactLocation.uri] | join(" ")' "$d/s.sarif")
case $got in *SegmentationClass/2007_000002.png*SegmentationClass/2007_000003.png*JPEGImages/2007_000004.jpg*) r=0 ;; *) r=1 ;; esac
ok $r "sarif: a result at each bad pair's file ($got)"
got=$(jq -r '[.[] | .location.path] | join(" ")' "$d/g.json")
case $got in *SegmentationClass/2007_000002.png*) r=0 ;; *) r=1 ;; esac
ok $r "gitlab: at the mask's file ($got)"
run -q --html="$d/r.html" "$p/voc"
grep -q '2007_000002.png: 32 x 24, its image' "$d/r.html"
ok $? "html: the bad pair listed under its finding"

# ---- a broken image header: named, the rest still paired
mkdir -p "$d/v2"
cp -r "$p/voc/JPEGImages" "$p/voc/SegmentationClass" "$d/v2/"
printf '\377\330\377\340garbage' >"$d/v2/JPEGImages/2007_000001.jpg"
run "$d/v2"
expect_out "unloadable-image\\]: 1 image's header cannot be read" "a cut-short JPEG: unloadable-image"
expect_out "2007_000001.jpg: JPEG header: " "... with libjpeg's reason"
# ---- COCO: each image entry against its file (detectron2's check_image_size)
cs="$data/pairs/coco-sizes"
run --json --format coco "$cs/annotations/instances_val.json"
expect_status 1 "coco: entries off their files: exit 1"
for entry in $(awk '!/^#/ { print $1 "=" $2 }' "$cs/verdicts.txt"); do
    name=${entry%=*} want=${entry#*=}
    got=$(jq -r --arg f "val/$name" '[.files[0].pairs.bad[] | select(.image | endswith($f)) | .kind]
        | if length == 0 then "ok" elif .[0] == "no-image" then "missing" else .[0] end' "$d/out")
    [ "$got" = "$want" ]
    ok $? "coco $name: $got, as detectron2's rule on PIL's size says ($want)"
done
expect_json '[.files[0].pairs.bad[] | select(.kind == "size-mismatch") | .label_size, .image_size] | flatten | join(",")' \
    "4,10,10,4,12,10,12,9" "coco: the stated and the true width x height"
expect_json '[.files[0].findings[] | select(.code == "size-mismatch") | .prevents | test("SizeMismatchError")] | .[0]' \
    true "coco: the error it prevents is detectron2's"
run --json --format coco "$srcdir/samples/coco-instances.json"
expect_json '.files[0] | has("pairs")' false "a COCO JSON with no images beside it: not paired, no false alarm"
finish
