#!/bin/sh
# layouts.sh - the folder layouts recognised without --format (src/layouts.c's
# table), one check per row on a folder kept as its tool keeps it
# (tests/data/layouts/, made by tests/gen/gen_layouts.py): which reader read
# it, which files were its labels, where its class count came from, the exit
# status; and a folder that is none of them but images, refused as one.
. "$srcdir/tests/setup.sh"
L="$data/layouts"

# can NAME WORDS : whether this build has what WORDS (file names, --format=X)
# need; a skip said in the TAP output when not
can() {
    if missing=$(absent_feature "$2"); then
        ok 0 "# SKIP $1: this build lacks $missing"
        return 1
    fi
}

if can "YOLO (Ultralytics: images/ + labels/ + data.yaml)" "$srcdir/samples/yolo-nc3"; then
    run --json "$L/yolo"
    expect_status 1 "a YOLO root: its class 3 is past data.yaml's nc"
    expect_json '.files[0].format' yolo "a YOLO root is read by the yolo reader"
    expect_json '[.files[] | .path + " " + .split] | join(",")' \
        "$L/yolo/labels/train train,$L/yolo/labels/val val" "data.yaml's splits, each a report"
    expect_json '[.files[].count] | add' 4 "its labels/ only: the images are no label files"
    expect_json '.files[0].num_classes_from | startswith("data.yaml nc")' true "N from its data.yaml"
fi

run --json "$srcdir/samples/yolo-labels"
expect_status 1 "samples/yolo-labels alone: YOLO's own findings, not unparsable"
expect_json '.files[0].format' yolo "a folder of YOLO .txt files is YOLO labels"
expect_json '[.files[0].findings[].code] | index("unparsable")' null "no line is unparsable"

printf '3\n1\n' > "$d/one.txt"; mkdir -p "$d/text"; cp "$d/one.txt" "$d/text/a.txt"
run --json "$d/text"
expect_json '.files[0].format' dataset "a folder of one-label-per-line .txt files is no YOLO folder"

if can "nnU-Net" "$L/nnunet/labelsTr/case_000.nii.gz"; then
    run --json "$L/nnunet"
    expect_status 1 "an nnU-Net root: label 3 past dataset.json's 3 labels"
    expect_json '[.files[0].sources[].path | sub(".*/nnunet/"; "")] | join(" ")' \
        "labelsTr/case_000.nii.gz labelsTr/case_001.nii.gz" "its labelsTr/ only (not imagesTr/, not dataset.json)"
    expect_json '.files[0].num_classes' 3 "N from dataset.json's labels"
fi

if can "Pascal VOC" "$L/voc/x.png"; then
    run --json -n 21 "$L/voc"
    expect_status 1 "VOC: a mask holds 21 of 21 classes"
    expect_json '[.files[0].sources[].path | sub(".*/voc/"; "")] | join(" ")' \
        "SegmentationClass/2007_000032.png SegmentationClass/2007_000039.png" "its SegmentationClass/ only"
fi

if can "Cityscapes" "$L/cityscapes/x.png"; then
    run --json "$L/cityscapes"
    expect_status 0 "Cityscapes: audited"
    expect_json '[.files[0].sources[].path | sub(".*/"; "")] | join(" ")' \
        "aachen_000000_000019_gtFine_labelIds.png" "gtFine's labelIds only (torchvision's semantic target)"
    expect_json '.files[0].max' 40 "its label ids read"
fi

if can "ADE20K" "$L/ade20k/x.png"; then
    run --json "$L/ade20k"
    expect_json '[.files[0].sources[].path | test("/annotations/")] | all' true "ADE20K: its annotations/ only"
    expect_json '.files[0].samples' 2 "two masks"
fi

if can "COCO" "--format=coco $L/coco"; then
    run --json "$L/coco"
    expect_status 1 "COCO: category 91 is not among the categories"
    expect_json '[.files[] | .format + " " + .split] | join(",")' "coco train,coco val" \
        "annotations/instances_{train,val}*.json read as COCO, a split each"
    expect_json '[.files[].findings[].code] | index("one-based")' null "COCO's ids from 1 are no one-based finding"
fi

run --json "$L/imagefolder"
expect_status 0 "ImageFolder of JPEG, WebP and BMP: clean"
expect_json '.files[0].format' imagefolder "class folders of images are an ImageFolder"
expect_json '.files[0].samples' 4 "one sample per image"

run --json "$srcdir/tests/data/tokens/doc"
expect_json '.files[0].format' megatron "a Megatron prefix (doc.idx + doc.bin) is read"

run "$L/jpegs"
expect_status 3 "a folder of JPEGs alone: not a label folder"
[ "$(grep -c . "$d/err")" -eq 1 ]
ok $? "said in one line, not once per image"
expect_err 'looks like 3 images' "says what it looks like"
expect_err 'format=imagefolder' "and which --format reads images with their classes"

finish
