#!/bin/sh
# yolo.sh - --format=yolo: a folder of YOLO label files, or one.
# The rules are Ultralytics' verify_image_label (ultralytics/data/utils.py):
# 5 fields, or a class and x y pairs (segments, more than 6 fields); every
# coordinate in [0, 1]; class < nc; duplicate rows (as float32, np.unique)
# removed with a warning. One file is one sample, one line one element; each
# problem names its file and line.
. "$srcdir/tests/setup.sh"
l="$d/labels"
mkdir -p "$l/train" "$l/val"
printf '0 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n' >"$l/train/a.txt"
printf '0 0.5 0.5 0.2 0.2\n0 0.50000001 0.5 0.2 0.2\n\n2 1.5 0.5 0.1 0.1\n3 0.5 0.5 0 0.1\n' >"$l/train/b.txt"
printf '5 0.1 0.1 0.4 0.1 0.4 0.4 0.1 0.4\n1 2 3 4\nabc 0.1 0.1 0.1 0.1\n1.5 0.1 0.1 0.1 0.1\n' >"$l/val/c.txt"
: >"$l/val/empty.txt"
printf 'cat\ndog\n' >"$l/classes.names"

echo "# --- a folder: the files in sorted order, each a sample"
run --json --format=yolo -n 5 "$l"
expect_status 1 "errors"
expect_json '.files[0].samples' 4 "4 label files, 4 samples"
expect_json '.files[0].count' 10 "10 non-blank lines"
expect_json '.files[0].yolo.not_label_files_named | map(sub(".*/"; "")) | join(",")' "classes.names" \
    "a file that is not .txt is named"
expect_json '[.files[0].findings[].code | select(IN("unparsable", "out-of-range", "degenerate-box",
    "duplicate-label"))] | join(",")' "unparsable,out-of-range,degenerate-box,duplicate-label" "the findings"
expect_json '[.files[0].bad[] | select(.value == 5) | .file, .line, .sample] | map(tostring) | join(" ")' \
    "$l/val/c.txt 1 2" "class 5 >= nc 5: its file, line and sample"
# Ultralytics' verify_image_label catches its own assert and leaves the image
# out: no loss ever sees class 5, so nll_loss's assert is not what happens
expect_json '.files[0].findings[] | select(.code == "out-of-range") | .prevents |
    test("Ultralytics drops the image") and test("never train") and (test("nll_loss") | not)' \
    true "out-of-range in YOLO: the image is dropped silently, no nll_loss assert"
expect_json '[.files[0].yolo.problems[] | select(.code == "degenerate-box") | "\(.line):\(.what)"] | join(";")' \
    "4:cx 1.5, outside [0, 1] by more than Ultralytics' 1%;5:width 0: Ultralytics keeps the image, its augmentation drops the box" \
    "degenerate boxes by line (a blank line counts)"
expect_json '[.files[0].yolo.problems[] | select(.code == "duplicate-label") | .line] | tojson' "[2]" \
    "0.50000001 is 0.5 as float32: a duplicate, as np.unique finds it"
expect_json '[.files[0].bad[] | select(.value == "1 2 3 4") | .line] | tojson' "[2]" \
    "a line of 4 fields is unparsable, named by its line"

echo "# --- a folder is a dataset of its files: sources, and each bad entry's source and at"
expect_json '[.files[0].sources[] | "\(.path | sub(".*/labels/"; "")):\(.format):\(.samples):\(.first_sample):\(.sample_shape | tojson)"] | join(" ")' \
    "train/a.txt:yolo:1:0:[2] train/b.txt:yolo:1:1:[4] val/c.txt:yolo:1:2:[4] val/empty.txt:yolo:1:3:[0]" \
    "sources: each label file, one sample of its non-blank lines"
expect_json '.files[0] as $f | [$f.bad[] | $f.sources[.source].path == .file and .sample == $f.sources[.source].first_sample] | all' \
    true "each bad entry's source is its file"
expect_json '[.files[0].bad[] | select(.file | endswith("c.txt")) | "\(.line):\(.at | tojson)"] | join(" ")' \
    "1:[0] 2:[1] 3:[2] 4:[3]" "at: the line's place among the file's lines; line: its number"
expect_json '[.files[0].bad_sample_list[] | "\(.sample):\(.source):\(.first_at | tojson)"] | join(" ")' \
    "2:2:[0]" "bad_sample_list: each file with its source and first_at"
run --json --format=yolo -n 5 "$l/val/c.txt"
expect_json '.files[0] | has("sources")' false "one file is no dataset: no sources"

echo "# --- the text report names file and line"
run --format=yolo -n 6 "$l"
expect_out "value \"1 2 3 4\", [^:]*: index 7, .*val/c.txt line 2" "an unparsable line"
expect_out ".*train/b.txt line 5: width 0: Ultralytics keeps the image" "a degenerate box"
expect_out "4 label files, 10 lines" "the summary line"

run --format=yolo -n 5 --indices-out "$d/idx.tsv" "$l"
expect_status 1 "--indices-out"
grep -q "	6	5$" "$d/idx.tsv"
ok $? "--indices-out lists the element index of class 5"

echo "# --- one file; batching on the files"
run --json --format=yolo -n 6 "$l/train/a.txt"
expect_status 0 "a clean file"
expect_json '.files[0].samples' 1 "one file is one sample"
run --json --format=yolo -n 6 -b 3 "$l"
expect_json '.files[0].batching.samples' 4 "batching counts the 4 files"

echo "# --- a line of 10,000 fields"
awk 'BEGIN { printf "0"; for (i = 1; i < 10000; i++) printf " 0.5"; printf "\n" }' >"$d/long.txt"
run --json --format=yolo -n 1 "$d/long.txt"
expect_json '.files[0].yolo.problems[0].what | test("^10000 fields")' true "10,000 fields: unparsable"
awk 'BEGIN { printf "0"; for (i = 1; i < 10001; i++) printf (i % 4 < 2 ? " 0.4" : " 0.6"); printf "\n" }' >"$d/poly.txt"
run --json --format=yolo -n 1 "$d/poly.txt"
expect_status 0 "a polygon of 5,000 points is fine"

echo "# --- a class of nan or inf (UBSan: no float-to-int cast out of range)"
printf 'nan 0.5 0.5 0.1 0.1\ninf 0.5 0.5 0.1 0.1\n' >"$d/nan.txt"
run --json --format=yolo -n 2 "$d/nan.txt"
expect_json '[.files[0].bad[].value] | join(",")' "nan,inf" "nan and inf classes are unparsable"
expect_json '.files[0].bad_sample_list[0].values | tojson' '["nan","inf"]' \
    "bad_sample_list: those cells as bad[] writes them"

echo "# --- bad_sample_list values are bad[].value's: a cell's text, not 0"
for j in 1 3; do
    run --json -j$j --format=yolo -n 5 "$l"
    expect_json '[.files[0].bad_sample_list[] | .values | tojson] | join(" ")' \
        '[5,"1 2 3 4","abc","1.5 0.1 0.1 0.1 0.1"]' "-j$j: unparsable cells by their text"
    expect_json '[.files[0].bad[].value] | tojson' '[5,"1 2 3 4","abc","1.5 0.1 0.1 0.1 0.1"]' \
        "-j$j: as bad[] writes them"
done
run --format=yolo -n 5 "$l"

echo "# --- a negative class is out of range, the ignore index too (verify_image_label:"
echo "#     \"negative label values\"; a YOLO class column has no ignore index)"
mkdir -p "$d/neg"
printf -- '-100 0.5 0.5 0.2 0.2\n' >"$d/neg/a.txt"
printf -- '-1 0.5 0.5 0.2 0.2\n' >"$d/neg/b.txt"
printf '1 0.5 0.5 0.2 0.2\n' >"$d/neg/c.txt"
for ig in "" --ignore-index=-1 --ignore-index=-100; do
    run --json --format=yolo -n 5 $ig "$d/neg"
    expect_status 1 "${ig:-the default ignore index}: an error"
    expect_json '[.files[0].ignored, .files[0].invalid.below] | tojson' "[0,2]" \
        "${ig:-the default ignore index}: -100 and -1 below 0, none ignored"
    expect_json '[.files[0].findings[].code] | index("ignore-like-value")' null \
        "${ig:-the default ignore index}: no hint to pass an --ignore-index that YOLO has not"
done

echo "# --- bad input"
run --format=yolo "$d/missing"
expect_status 3 "a missing path"
expect_err "^labelaudit: $d/missing: " "named"
mkdir "$d/none"
run --json --format=yolo "$d/none"
expect_json '.files[0].findings[0].code' "empty" "a folder without label files: empty"

echo "# --- bad_samples counts files, not lines"
y="$d/samples"
mkdir -p "$y"
printf '0 0.5 0.5 0.2 0.2\n' >"$y/a.txt"
printf '7 0.5 0.5 0.2 0.2\n8 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.1 0.1\n9 0.5 0.5 0.2 0.1\n' >"$y/b.txt"
: >"$y/c.txt"
printf '0 0.5 0.5 0.2 0.2\n5 0.5 0.5 0.2 0.2\n' >"$y/d.txt"
for j in 1 3; do
    run --json -j$j --format=yolo -n 5 "$y"
    expect_json '.files[0].bad_samples' 2 "-j$j: 4 bad lines in 2 files: 2 bad samples"
    expect_json '[.files[0].bad_sample_list[] | "\(.sample):\(.count)"] | join(" ")' "1:3 3:1" \
        "-j$j: bad_sample_list by file ordinal (an empty file counts), with its bad lines"
    expect_json '[.files[0].bad[].sample] | tojson' "[1,1,1,3]" "-j$j: each bad line's sample is its file"
done
run --format=yolo -n 5 "$y"
expect_out "2 of 4 samples hold invalid entries" "the text report counts the files"

echo "# --- Ultralytics' own verdicts (tests/gen/gen_yolo.py ran verify_image_label, nc = 5)"
# A file Ultralytics drops ("ignoring corrupt image/label: ...") has a
# problem with drops_image, or a bad class; one it keeps has as many
# duplicate-label problems as the rows it removes. The cases: a box among
# polygons, strtod's hexadecimal and nan(...) that Python's float() refuses,
# its underscores, Unicode line breaks and spaces, the 1% margin, a polygon
# checked by its box, float32 classes and duplicates.
truth="$srcdir/tests/data/yolo/truth.tsv"
run --json --format=yolo -n 5 --max-report=1000 "$srcdir/tests/data/yolo/labels"
expect_status 1 "the verdicts' folder"
jq -r '.files[0] as $f
    | ([$f.yolo.problems[] | select(.drops_image) | .file] + [$f.bad[].file]) as $drop
    | [$f.yolo.problems[] | select(.code == "duplicate-label") | .file] as $dup
    | $ARGS.positional[] as $p
    | ($p | sub(".*/"; "") | sub("\\.txt$"; "")) + "\t"
      + (if $drop | index([$p]) then "dropped\t0"
         else "kept\t\([$dup[] | select(. == $p)] | length)" end)' "$d/out" \
    --args "$srcdir"/tests/data/yolo/labels/*.txt | LC_ALL=C sort >"$d/ours.tsv"
grep -v '^#' "$truth" | cut -f1-3 | LC_ALL=C sort >"$d/theirs.tsv"
diff "$d/theirs.tsv" "$d/ours.tsv" >"$d/verdicts.diff"
ok $? "every file kept or dropped as Ultralytics does, duplicates as it counts them ($(wc -l <"$d/theirs.tsv") files)"
sed 's/^/#   /' "$d/verdicts.diff"
grep -q "^mixed-box-first	dropped	0	labels mix segment and detection rows$" "$truth"
ok $? "the truth: Ultralytics drops a file of a box and a polygon"
expect_json '[.files[0].yolo.problems[] | select(.file | test("mixed-")) | .what | test("^labels mix segment and detection rows")] | tojson' \
    "[true,true]" "the box among polygons says so in Ultralytics' words"
run --format=yolo -n 5 "$srcdir/tests/data/yolo/labels"
expect_out "mixed-box-first.txt: labels mix segment and detection rows" "the text report names the file"

echo "# --- --max-report is a limit, not an allocation"
run --json --format=yolo -n 5 --max-report=1000000000 "$srcdir/tests/data/yolo/labels"
expect_status 1 "--max-report=1000000000: audited, not out of memory"
expect_json '[.files[0].invalid.count, (.files[0].bad | length), .files[0].yolo.problems_total,
    (.files[0].yolo.problems | length)] | tojson' "[23,23,35,35]" "every entry and problem listed"

echo "# --- the man page's degenerate-box entry says the margin the reader applies"
sed -n '/^\.BR degenerate\\-box " (error)"/,/^\.TP/p' "$srcdir/man/labelaudit.1" | sed 's/\\-/-/g' |
    tr '\n' ' ' >"$d/entry"
grep -q "1% margin (above 1\.01; a centre below -0\.01)" "$d/entry" &&
    grep -q "b\[i\] <= 1\.01f" "$srcdir/src/read/read_yolo.c" &&
    grep -q "i < 2 ? -0\.01f : 0\.0f" "$srcdir/src/read/read_yolo.c"
ok $? "degenerate-box in the man page: above 1.01, a centre below -0.01, as check_box"
printf '0 1.009 0.5 0.01 0.2\n0 0.5 -0.009 0.01 0.2\n' >"$d/margin.txt"
run --json --format=yolo -n 1 "$d/margin.txt"
expect_status 0 "1.009 and -0.009 lie within the margin"

finish
