#!/bin/sh
# imagefolder.sh - --format=imagefolder follows torchvision's ImageFolder to the
# letter (issue 14). The tree of tests/data/imagefolder/tree.txt is built here;
# truth.json is what torchvision 0.29 (find_classes, make_dataset) made of the
# same tree (tests/gen_imagefolder.py wrote it): class_to_idx with the hidden
# class first, the samples per class (case-insensitive extensions, files in
# sub-folders walked in sorted(os.walk(followlinks=True)) order, a linked
# class folder followed), and the files it skips.
. "$srcdir/tests/setup.sh"
truth="$data/imagefolder/truth.json"

# build TOP: the tree, from tree.txt, with the shell
build() {
    grep -v '^#' "$data/imagefolder/tree.txt" | while IFS= read -r line; do
        kind=${line%% *}
        rest=${line#* }
        case $kind in
        d) mkdir -p "$1/$rest" ;;
        f) : >"$1/$rest" ;;
        l) ln -s "${rest##* }" "$1/${rest% *}" ;;
        esac
    done
}
build "$d/t"
root="$d/t/root"

echo "# --- class_to_idx, samples per class, skipped files: torchvision's"
run --json --format=imagefolder "$root"
expect_status 1 "the hidden and the empty class folder are errors"
expect_json '.files[0].imagefolder.class_to_idx | tojson' "$(jq -c .class_to_idx "$truth")" \
    "class_to_idx as torchvision's find_classes"
expect_json '.files[0].imagefolder.samples_per_class | tojson' \
    "$(jq -c .samples_per_class "$truth")" "samples per class as make_dataset"
expect_json "[.files[0].imagefolder.not_images_named[] | ltrimstr(\"$d/t/\")] | tojson" \
    "$(jq -c .not_images "$truth")" "the files torchvision skips, named, in its order"
expect_json '.files[0].samples' "$(jq '.samples | length' "$truth")" "samples: the images"
expect_json '.files[0].histogram | tojson' "$(jq -c .samples_per_class "$truth")" \
    "the histogram of the labels is the samples per class"
expect_json '[.files[0].findings[].code] | join(",")' \
    "missing-classes,hidden-class-folder,empty-class-folder" "the findings"
expect_json '.files[0].findings[2].prevents' "FileNotFoundError: Found no valid file for the classes ..." \
    "empty-class-folder prevents ImageFolder's FileNotFoundError"
jq -r .imagefolder_error "$truth" | grep -q 'Found no valid file for the classes empty'
ok $? "the truth: torchvision raises for the empty class"
expect_json '.files[0].imagefolder.files_outside_classes' 1 "a file in the root is counted"

echo "# --- the text report"
run --format=imagefolder -n 6 "$root"
expect_out "class_to_idx (samples): {'.ipynb_checkpoints': 0 (1), 'Zebra': 1 (1), 'cat': 2 (6)" \
    "class_to_idx in the text report"
expect_out "error \[hidden-class-folder\]: hidden folder '.ipynb_checkpoints' (class 0)" \
    "hidden-class-folder names the folder and its index"
expect_out "not an image (torchvision's IMG_EXTENSIONS), skipped: .*root/cat/notes.txt" \
    "a skipped file is named"
expect_out "not in a class folder, ignored: .*root/stray.jpg" "a stray root file is named"

echo "# --- class-count against -n"
run --json --format=imagefolder -n 5 "$root"
expect_json '[.files[0].findings[].code | select(. == "class-count")] | length' 1 \
    "6 class folders for -n 5: class-count"
rm -rf "$root/.ipynb_checkpoints" "$root/empty"
run --json --format=imagefolder -n 4 "$root"
expect_status 0 "a clean tree, with -n right"
expect_json '[.files[0].findings[].code] | join(",")' "" "no findings"

echo "# --- batching on the sample count"
run --json --format=imagefolder -n 4 -b 15 "$root"
expect_json '.files[0].batching.samples' 16 "batching on the 16 images"
expect_json '[.files[0].findings[].code] | join(",")' "tiny-last-batch" "16 = 15 + 1: a last batch of 1"

echo "# --- bad input"
run --format=imagefolder "$d/nonexistent"
expect_status 3 "a missing folder is unreadable"
expect_err "labelaudit: $d/nonexistent: " "named"
mkdir "$d/bare"
run --json --format=imagefolder "$d/bare"
expect_json '.files[0].findings[0].code' "empty" "a folder without class folders: empty"

finish
