#!/bin/sh
# coco.sh - --format=coco: COCO detection JSON streamed through
# yajl. Annotations may come before images and categories (the file is read
# twice); category_id < N with -n counting background as torchvision's
# detection models do; unknown category and image ids; degenerate boxes
# (torchvision: "All bounding boxes should have positive height and width");
# boxes outside the image (a warning); the category ids' gaps. Bad input:
# truncated JSON, a 1 GB string (made here, never committed), deep nesting,
# numbers as strings. Skipped where labelaudit was built without yajl.
. "$srcdir/tests/setup.sh"
if ! "$LABELAUDIT" --version | grep -q '^Formats:.* coco'; then
    echo "1..0 # SKIP built without yajl"
    exit 0
fi
cat >"$d/mixed.json" <<'JSON'
{"info": {"description": "annotations first"},
 "annotations": [
  {"id": 1, "image_id": 10, "category_id": 1, "bbox": [0, 0, 10, 10]},
  {"id": 2, "image_id": 10, "category_id": 90, "bbox": [5, 5, 0, 3]},
  {"id": 3, "image_id": 11, "category_id": 91, "bbox": [90, 90, 20, 20]},
  {"id": 4, "image_id": 99, "category_id": "3", "bbox": [1, 1, 1, 1]},
  {"id": 5, "image_id": 10, "category_id": 7, "bbox": [1, 1, 1]}
 ],
 "images": [{"id": 10, "width": 100, "height": 100, "file_name": "a.jpg"},
            {"id": 11, "width": 100, "height": 100, "file_name": "b.jpg"}],
 "categories": [{"id": 1, "name": "person"}, {"id": 3, "name": "car"},
                {"id": 90, "name": "toothbrush"}]}
JSON

echo "# --- checks, with the annotations before the images and categories"
run --json --format=coco -n 91 "$d/mixed.json"
expect_status 1 "errors"
expect_json '.files[0].samples' 2 "samples: the images"
expect_json '.files[0].count' 5 "elements: the annotations"
expect_json '[.files[0].bad[] | "\(.index):\(.id):\(.image_id):\(.value)"] | join(" ")' \
    "2:3:11:91 3:4:99:3" "bad entries name the annotation's id and image_id"
expect_json '[.files[0].coco.problems[] | "\(.code)@\(.id)"] | join(" ")' \
    "degenerate-box@2 unknown-category@3 box-outside-image@3 unknown-category@4 unparsable@4 unknown-category@5 degenerate-box@5" \
    "the problems, by annotation id"
expect_json '[.files[0].findings[].code | select(IN("out-of-range", "unparsable", "unknown-category",
    "degenerate-box", "box-outside-image"))] | join(",")' \
    "unparsable,out-of-range,unknown-category,degenerate-box,box-outside-image" "the findings"
expect_json '[.files[0].findings[] | select(.code == "degenerate-box") | .prevents] | .[0]' \
    "ValueError: All bounding boxes should have positive height and width" "torchvision's words"
expect_json '.files[0].coco.gaps | length' 87 \
    "ids 1..90 without a category: 87 (0 is torchvision's background, no gap)"
expect_json '[.files[0].coco.categories[] | "\(.id)=\(.annotations)"] | join(" ")' "1=1 3=0 90=1" \
    "annotations per category"

run --format=coco -n 91 --indices-out "$d/idx.tsv" "$d/mixed.json"
[ "$(cut -f2,3 "$d/idx.tsv" | tr '\t\n' ':,')" = "2:91,3:3," ]
ok $? "--indices-out: the annotation ordinals and their category_id"

echo "# --- the text report"
run --format=coco -n 91 "$d/mixed.json"
expect_out "value 91, [^:]*: index 2, annotation id 3, image_id 11" "an out-of-range id, with its annotation"
expect_out "annotation 1 (id 2, image_id 10): bbox \[5, 5, 0, 3\]: width <= 0" "a degenerate box"
expect_out "3 categories with ids 1..90: torchvision's num_classes (background included) is 91" \
    "the num_classes hint"

echo "# --- -n counts background: ids 1..90 need -n 91"
printf '{"images":[{"id":1}],"categories":[{"id":1},{"id":90}],"annotations":[{"id":1,"image_id":1,"category_id":90,"bbox":[0,0,1,1]}]}' >"$d/ok.json"
run --json --format=coco -n 91 "$d/ok.json"
expect_json '[.files[0].findings[] | select(.severity == "error")] | length' 0 "id 90 < 91"
run --json --format=coco -n 90 "$d/ok.json"
expect_json '.files[0].invalid.above' 1 "id 90 with -n 90 (80 classes + the gaps forgotten)"
# category ids from 1 are torchvision's convention (0 is the background), not
# MATLAB's: no one-based finding, with -n or without, and N = max + 1 suggested
printf '{"images":[{"id":1}],"categories":[{"id":1},{"id":2},{"id":3}],"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,1,1]},{"id":2,"image_id":1,"category_id":3,"bbox":[0,0,1,1]}]}' >"$d/from1.json"
for n in "" "-n 3"; do
    # shellcheck disable=SC2086 # $n is empty or two words
    run --json --format=coco $n "$d/from1.json"
    expect_json '[.files[0].findings[].code] | index("one-based")' null \
        "COCO ids from 1 ${n:-without -n}: not one-based"
done
run --format=coco "$d/from1.json"
expect_out "classes: 4, from COCO categories" "COCO: N = max + 1 counts the background"
! grep -q 'pass -n' "$d/out"
ok $? "... and, that N in use, no \"pass -n\" beside it"
# categories 1..7 with -n 7 (the number of categories, not torchvision's
# num_classes): the fix is -n 8, never "remap 7 -> 0" onto the background,
# and class 0 is never a missing class
{
    printf '{"images":['
    for i in 1 2 3 4 5 6 7; do [ $i -gt 1 ] && printf ,; printf '{"id":%d,"width":99,"height":99}' "$i"; done
    printf '],"categories":['
    for c in 1 2 3 4 5 6 7; do [ $c -gt 1 ] && printf ,; printf '{"id":%d,"name":"c%d"}' "$c" "$c"; done
    printf '],"annotations":['
    k=0
    for i in 1 2 3 4 5 6 7; do for c in 1 2 3 4 5 6 7; do
        [ $k -gt 0 ] && printf ,; k=$((k + 1))
        printf '{"id":%d,"image_id":%d,"category_id":%d,"bbox":[1,1,9,9]}' "$k" "$i" "$c"
    done; done
    printf ']}'
} >"$d/c7.json"
run --json -n 7 --format=coco "$d/c7.json"
expect_json '[.files[0].findings[].code] | join(",")' out-of-range \
    "ids 1..7 with -n 7: out-of-range only (no label-gap, no missing class 0)"
expect_json '.files[0].findings[0].message | test("num_classes is 8 \\(pass -n 8\\)")' true \
    "... whose fix counts the background: -n 8"
run --format=coco -n 7 "$d/c7.json"
! grep -q 'remap\|missing-classes' "$d/out"
ok $? "... and the text suggests no remap onto class 0"
run --json -n 8 --format=coco "$d/c7.json"
expect_json '.files[0].findings | length' 0 "ids 1..7 with -n 8: class 0 (background) is no missing class"
expect_json '.files[0].coco.gaps | length' 0 "... and no gap in the ids"
# an image's annotations come in any order: its bad values, cells by their text
printf '{"images":[{"id":10}],"categories":[{"id":1}],"annotations":[{"id":1,"image_id":10,"category_id":"zz","bbox":[0,0,1,1]},{"id":2,"image_id":10,"category_id":91,"bbox":[0,0,1,1]},{"id":3,"image_id":10,"category_id":"3","bbox":[0,0,1,1]}]}' >"$d/texts.json"
run --json --format=coco -n 91 --max-report 1 "$d/texts.json"
expect_json '.files[0].bad_sample_list[0].values | tojson' '["zz",91,"3"]' \
    "bad_sample_list values as bad[].value writes them (a category_id string is its text)"
gzip -c "$d/ok.json" >"$d/ok.json.gz"
run --json --format=coco -n 91 "$d/ok.json.gz"
expect_json '.files[0].count' 1 "gzip'd: both passes decompress"

echo "# --- a category id equal to the ignore index is out of range, not ignored"
cat >"$d/neg.json" <<'JSON'
{"images": [{"id": 1, "width": 10, "height": 10}],
 "categories": [{"id": 1, "name": "a"}, {"id": -100, "name": "b"}, {"id": -1, "name": "c"}],
 "annotations": [{"id": 1, "image_id": 1, "category_id": -100, "bbox": [1, 1, 2, 2]},
                 {"id": 2, "image_id": 1, "category_id": -1, "bbox": [1, 1, 2, 2]},
                 {"id": 3, "image_id": 1, "category_id": 1, "bbox": [1, 1, 2, 2]}]}
JSON
for ig in "" --ignore-index=-1; do
    run --json --format=coco -n 3 $ig "$d/neg.json"
    expect_status 1 "${ig:-the default ignore index}: an error"
    expect_json '[.files[0].ignored, .files[0].invalid.below] | tojson' "[0,2]" \
        "${ig:-the default ignore index}: category ids -100 and -1 below 0, none ignored"
done

echo "# --- bad input: one line, exit 3"
bad() {    # bad FILE REGEX DESCRIPTION
    run --format=coco "$1"
    expect_status 3 "$3"
    [ "$(wc -l <"$d/err")" -eq 1 ] && grep -Eq "^labelaudit: $1: $2" "$d/err"
    ok $? "$3: one line, /$2/"
}
printf '{"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0' >"$d/trunc.json"
bad "$d/trunc.json" "byte 64: not valid JSON \(.*premature EOF" "truncated JSON"
awk 'BEGIN { printf "{\"x\":"; for (i = 0; i < 100000; i++) printf "["; }' >"$d/deep.json"
bad "$d/deep.json" "byte [0-9]+: nested deeper than 512 levels" "deep nesting"
printf '[{"annotations":[]}]' >"$d/array.json"
bad "$d/array.json" "byte 1: the top level is an array" "a top-level array"
printf '{"images":[]}' >"$d/noann.json"
bad "$d/noann.json" 'no "annotations" list' "no annotations"
{ printf '{"annotations":[],"info":"'; head -c 1073741824 /dev/zero | tr '\0' a; printf '"}'; } >"$d/big.json"
bad "$d/big.json" "byte [0-9]+: a JSON string longer than 16 MiB" "a 1 GB string is refused at 16 MiB"
rm -f "$d/big.json"
run --format=coco - <"$d/ok.json"
expect_status 3 "standard input"
expect_err "reads the file twice" "standard input is refused by name"

echo "# --- pass 1 steps over the annotations: strings with brackets, quotes; many blocks"
printf '{"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,1,1],"caption":"a ] } [ { \\" , x"}],' >"$d/tricky.json"
printf '"images":[{"id":1,"width":2,"height":2}],"categories":[{"id":1,"name":"a"}]}' >>"$d/tricky.json"
run --json --format=coco -n 2 "$d/tricky.json"
expect_json '[.files[0].findings[] | select(.severity == "error")] | length' 0 \
    "brackets and an escaped quote inside a string end nothing"
awk 'BEGIN { printf "{\"annotations\":["; for (i = 1; i <= 60000; i++) printf "%s{\"id\":%d,\"image_id\":%d,\"category_id\":%d,\"bbox\":[1,1,2,2]}", (i > 1 ? "," : ""), i, i % 50 + 1, (i == 59999 ? 7 : 1); printf "],\"images\":["; for (i = 1; i <= 50; i++) printf "%s{\"id\":%d,\"width\":9,\"height\":9}", (i > 1 ? "," : ""), i; printf "],\"categories\":[{\"id\":1},{\"id\":7}]}" }' >"$d/many.json"
run --json --format=coco -n 5 "$d/many.json"
expect_json '[.files[0].count, .files[0].samples, .files[0].invalid.above] | tojson' "[60000,50,1]" \
    "3.5 MB of annotations before the images: all read, images found"
expect_json '[.files[0].bad[0] | .index, .id, .image_id] | tojson' "[59998,59999,50]" \
    "the bad one named by a third pass"
printf '{"annotations":[],"images":[{"id":1}],"categories":[{"id":3}],"x":[' >"$d/trunc-late.json"
printf '{"images":[{"id":1}],"categories":[{"id":1}],"annotations":[{"id":5,"image_id":1,"category_id":1},' >"$d/trunc-one.json"
bad "$d/trunc-one.json" "byte 98: not valid JSON \\(.*premature EOF" "truncated, in COCO's order"
bad "$d/trunc-late.json" "byte [0-9]+: not valid JSON \\(yajl: .*premature EOF" "truncated after the annotations"

echo "# --- numbers as strings"
printf '{"images":[{"id":"1"}],"categories":[{"id":1}],"annotations":[{"id":1,"image_id":1,"category_id":"1","bbox":["0",0,1,1]}]}' >"$d/strings.json"
run --json --format=coco -n 2 "$d/strings.json"
expect_json '[.files[0].coco.problems[] | "\(.code): \(.what)"] | join("; ")' \
    "unknown-category: image_id 1 is not among the images; degenerate-box: bbox is not [x, y, width, height] of 4 numbers; unparsable: category_id \"1\" is a string, not a number" \
    "an image id \"1\" names no image; a string in bbox is a bad box; a string category_id is unparsable"
expect_json '.files[0].coco.images' 0 "an image with a string id is no image"

echo "# --- bad_samples counts images, not annotations"
cat >"$d/scattered.json" <<'JSON'
{"images": [{"id": 10, "width": 9, "height": 9}, {"id": 11, "width": 9, "height": 9},
            {"id": 12, "width": 9, "height": 9}],
 "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
 "annotations": [
  {"id": 1, "image_id": 12, "category_id": 5, "bbox": [1, 1, 2, 2]},
  {"id": 2, "image_id": 11, "category_id": 1, "bbox": [1, 1, 2, 2]},
  {"id": 3, "image_id": 10, "category_id": 6, "bbox": [1, 1, 2, 2]},
  {"id": 4, "image_id": 12, "category_id": 7, "bbox": [1, 1, 2, 2]},
  {"id": 5, "image_id": 99, "category_id": 8, "bbox": [1, 1, 2, 2]}
 ]}
JSON
for j in 1 3; do
    run --json -j$j --format=coco -n 3 "$d/scattered.json"
    expect_json '.files[0].bad_samples' 2 \
        "-j$j: 3 bad annotations of 2 images (and one of no listed image): 2 bad samples"
    expect_json '[.files[0].bad_sample_list[] | "\(.sample):\(.count):\(.values | join("/"))"] | join(" ")' \
        "0:1:6 2:2:5/7" "-j$j: by image ordinal, ascending, though the annotations are not"
    run --json -j$j --max-report=1 --format=coco -n 3 "$d/scattered.json"
    expect_json '[.files[0].bad_samples, (.files[0].bad_sample_list[] | .sample)] | tojson' "[2,0]" \
        "-j$j: --max-report=1 keeps the smallest image, met after another"
done
run --format=coco -n 3 "$d/scattered.json"
expect_out "2 of 3 samples hold invalid entries" "the text report counts the images"

echo "# --- --max-report is a limit, not an allocation"
run --json --format=coco -n 91 --max-report=1000000000 "$d/mixed.json"
expect_status 1 "--max-report=1000000000: audited, not out of memory"
expect_json '.files[0].bad | length' 2 "its bad entries listed"

echo "# --- a top-level key given twice: the last value counts, as Python's json keeps it"
cat >"$d/twice.json" <<'JSON'
{"annotations": [{"id": 1, "image_id": 1, "category_id": 99, "bbox": [0, 0, 1, 1]},
                 {"id": 2, "image_id": 1, "category_id": 99, "bbox": [0, 0, 1, 1]}],
 "images": [{"id": 7}],
 "categories": [{"id": 5, "name": "old"}],
 "annotations": [{"id": 3, "image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1]},
                 {"id": 4, "image_id": 2, "category_id": 9, "bbox": [0, 0, 1, 1]},
                 {"id": 5, "image_id": 1, "category_id": 2, "bbox": [0, 0, 1, 1]}],
 "images": [{"id": 1}, {"id": 2}],
 "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}]}
JSON
run --json --format=coco -n 3 "$d/twice.json"
expect_json '[.files[0].count, .files[0].samples] | tojson' "[3,2]" \
    "the last annotations (3) and images (2), not both lists"
expect_json '[.files[0].coco.categories[].name] | join(",")' "cat,dog" "the last categories"
expect_json '[.files[0].bad[] | .value, .id] | tojson' "[9,4]" \
    "category 9 >= 3, named by its id in the last list (the third pass counts the keys too)"
expect_json '[.files[0].coco.problems[] | .code + ":" + (.id | tostring)] | join(",")' \
    "unknown-category:4" "only the last list's problems: category 9 is unknown, 99 never read"
printf '{"images":[],"categories":[],"annotations":{},"annotations":[]}' >"$d/obj-then-list.json"
run --json --format=coco -n 3 "$d/obj-then-list.json"
expect_json '.files[0].findings[0].code' "empty" "an object, then an empty list: the list counts"

echo "# --- a section that is not a list: refused by name (pycocotools iterates it)"
printf '{"images":[],"categories":[],"annotations":{}}' >"$d/ann-obj.json"
bad "$d/ann-obj.json" '"annotations" is not a list but an object' '"annotations": {}'
printf '{"images":[],"categories":[],"annotations":[],"annotations":null}' >"$d/ann-null.json"
bad "$d/ann-null.json" '"annotations" is not a list but null' '"annotations": null, the last'
printf '{"images":{"1":{"id":1}},"categories":[],"annotations":[]}' >"$d/img-obj.json"
bad "$d/img-obj.json" '"images" is not a list but an object' '"images": {...}'
printf '{"images":[],"categories":"cat","annotations":[]}' >"$d/cat-str.json"
bad "$d/cat-str.json" '"categories" is not a list but a string' '"categories": "cat"'
printf '{"images":[],"categories":[],"annotations":3}' >"$d/ann-num.json"
bad "$d/ann-num.json" '"annotations" is not a list but a number' '"annotations": 3'

finish
