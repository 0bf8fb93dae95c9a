#!/bin/sh
# imagefolder.sh - --format=imagefolder follows torchvision's ImageFolder to the
# letter. The tree of tests/data/imagefolder/tree.txt is built here;
# truth.json is what torchvision 0.29 (find_classes, make_dataset) made of the
# same tree (tests/gen/gen_imagefolder.py wrote it): class_to_idx with the hidden
# class first, the samples per class (case-insensitive extensions, files in
# sub-folders walked in sorted(os.walk(followlinks=True)) order, a linked
# class folder followed), and the files it skips.
. "$srcdir/tests/setup.sh"
truth="$data/imagefolder/truth.json"

# build TOP [TREE]: the tree, from tree.txt (or TREE), with the shell
build() {
    grep -v '^#' "$data/imagefolder/${2:-tree.txt}" | while IFS= read -r line; do
        kind=${line%% *}
        rest=${line#* }
        case $kind in
        d) mkdir -p "$1/$rest" ;;
        f) : >"$1/$rest" ;;
        l) ln -s "${rest##* }" "$1/${rest% *}" ;;
        p) mkfifo "$1/$rest" ;;
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

echo "# --- samples its loader cannot open: counted as torchvision counts them, named"
# truth-unloadable.json: torchvision's samples of unloadable.txt's tree, each
# with its kind and what open(path, "rb") did (a FIFO blocks: the epoch hangs)
utruth="$data/imagefolder/truth-unloadable.json"
build "$d/u" unloadable.txt
run --json --format=imagefolder -n 3 "$d/u/root"
expect_status 1 "dangling links, a FIFO, a link loop, a device: errors"
expect_json '.files[0].imagefolder.class_to_idx | tojson' "$(jq -c .class_to_idx "$utruth")" \
    "class_to_idx as torchvision's (a linked class folder in, a dangling link out)"
expect_json '.files[0].samples' "$(jq '.samples | length' "$utruth")" \
    "samples: torchvision's count, the unloadable ones included"
expect_json '.files[0].imagefolder.samples_per_class | tojson' \
    "$(jq -c '[.samples | group_by(.[1])[] | length]' "$utruth")" "samples per class as torchvision's"
expect_json "[.files[0].imagefolder.problems[] | \"\\(.index):\\(.where | ltrimstr(\"$d/u/\"))\"] | join(\",\")" \
    "$(jq -r '[.samples | to_entries[] | select(.value[2] != "file" or .value[3] != "ok") |
               "\(.key):\(.value[0])"] | join(",")' "$utruth")" \
    "unloadable-image: each sample that is no openable file, at torchvision's index"
expect_json '[.files[0].findings[] | select(.code == "unloadable-image") | .severity] | join(",")' \
    "error" "one unloadable-image error"
run --format=imagefolder -n 3 "$d/u/root"
expect_out "error \[unloadable-image\]: 7 image files that torchvision counts as samples but its loader cannot open" \
    "text: the finding"
expect_out "root/cat/dangling.jpg: a dangling symbolic link (FileNotFoundError)" "text: a dangling link"
expect_out "root/cat/fifo.jpg: a FIFO: the loader's open() waits for a writer, and the epoch hangs" \
    "text: a FIFO"
expect_out "root/cat/loop.png: Too many levels of symbolic links (OSError)" "text: a link loop"
expect_out "root/cat/null.jpg: a device, not an image file" "text: a device"
! grep -q "dir.jpg: " "$d/out"
ok $? "a folder named dir.jpg is walked, not a sample"
# a file without read permission: PermissionError, for anyone but root
mkdir -p "$d/p/root/cat"
: >"$d/p/root/cat/ok.jpg"
: >"$d/p/root/cat/secret.jpg"
chmod 000 "$d/p/root/cat/secret.jpg"
if [ "$(id -u)" -ne 0 ]; then
    run --format=imagefolder -n 1 "$d/p/root"
    expect_out "secret.jpg: Permission denied (PermissionError)" "a file without read permission"
elif command -v setpriv >/dev/null && chmod 755 "$d" &&
     setpriv --reuid=65534 --regid=65534 --clear-groups "$LABELAUDIT" --version \
         >/dev/null 2>&1; then
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$LABELAUDIT" --format=imagefolder -n 1 "$d/p/root" >"$d/out" 2>"$d/err"
    expect_out "secret.jpg: Permission denied (PermissionError)" \
        "a file without read permission (run as nobody)"
    chmod 700 "$d"
else
    chmod 700 "$d"
    echo "ok $((n_tests += 1)) - a file without read permission # SKIP run as root, and nobody" \
        "cannot run the binary (no setpriv, or its libraries, such as pyarrow's, are in root's home)"
fi
run --format=imagefolder -n 1 "$d/p/root"
if [ "$(id -u)" -eq 0 ]; then
    ! grep -q "secret.jpg" "$d/out"
    ok $? "root reads a file without read permission: no error"
fi

echo "# --- bad input"
run --format=imagefolder "$d/nonexistent"
expect_status 3 "a missing folder is unreadable"
expect_err "labelaudit: $d/nonexistent: " "named"
mkdir "$d/bare"
run --json --format=imagefolder "$d/bare"
expect_json '.files[0].findings[0].code' "empty" "a folder without class folders: empty"

finish
