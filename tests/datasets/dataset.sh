#!/bin/sh
# dataset.sh - datasets of many files, masks among them: a directory argument
# and --concat are one dataset, as torch.utils.data.ConcatDataset sees it:
# byte-wise sorted files, --glob, skipped files named, sample indices running
# on across files, `sources`, `source`, `at`, `bad_sample_list`, batching on
# the total, the same report at every -j, and memory that does not grow with
# the number of files.
. "$srcdir/tests/setup.sh"

# npy_u8 FILE S H W BYTES... : a uint8 .npy of shape (S, H, W) holding BYTES
# (octal escapes for printf), written with a version 1.0 header as numpy does.
npy_u8() {
    f=$1 s=$2 h=$3 w=$4
    shift 4
    {
        npy_head '|u1' "($s, $h, $w)"
        for b in "$@"; do printf "$b"; done
    } >"$f"
}

mkdir -p "$d/ds/sub" "$d/ds/a"
printf 'label\n0\n1\n5\n' >"$d/ds/a.csv"         # 3 samples, row 2 bad
printf '2\n7\n' >"$d/ds/sub/b.txt"               # 2 samples, row 1 bad
printf '1\n' >"$d/ds/a/z.txt"                    # "a/z.txt" sorts after "a.csv" ('/' > '.')
printf 'notes\n' >"$d/ds/README"
# 2 masks of 2x3: mask 1 holds 8 at (0, 1) and 9 at (1, 2)
npy_u8 "$d/ds/c.npy" 2 2 3 '\0\0\0\0\0\0' '\0\010\0\0\0\011'

echo "# --- a directory: sorted, --glob, the skipped file named"
run --json -n 5 --glob='*.[cnt][spx][vyt]' "$d/ds"
expect_status 1 "a directory with out-of-range labels"
expect_json '.files | length' 1 "one report entry"
expect_json '.files[0].path' "$d/ds" "its path is the directory"
expect_json '.files[0].format' dataset "format dataset"
expect_json '[.files[0].sources[].path | sub(".*/ds/"; "")] | join(" ")' \
    "a.csv a/z.txt c.npy sub/b.txt" "byte-wise sorted relative paths"
expect_json '[.files[0].sources[].first_sample] | map(tostring) | join(" ")' "0 3 4 6" \
    "first_sample runs on"
expect_json '.files[0].samples' 8 "samples: the total"
expect_json '.files[0].dtype' mixed "int64 and uint8 files: dtype mixed"
expect_json '[.files[0].sources[].dtype] | join(" ")' "int64 int64 uint8 int64" \
    "each source's own dtype"
expect_json '.files[0].skipped_count' 1 "README did not match --glob"
expect_json '.files[0].skipped[0].why' "does not match --glob" "and says why"
expect_json '[.files[0].bad[] | "\(.index):\(.sample):\(.source):\(.at | map(tostring) | join(","))=\(.value)"] | join(" ")' \
    "2:2:0:=5 11:5:2:0,1=8 15:5:2:1,2=9 17:7:3:=7" "bad entries: index, sample, source, at"
expect_json '[.files[0].bad_sample_list[] | "\(.sample):\(.source):\(.count):\(.first_at | map(tostring) | join(",")):\(.values | map(tostring) | join(","))"] | join(" ")' \
    "2:0:1::5 5:2:2:0,1:8,9 7:3:1::7" "bad_sample_list"
expect_json '.files[0].bad_samples' 3 "bad_samples"

run -n 5 --glob='*.[cnt][spx][vyt]' "$d/ds"
expect_out "dataset of 4 files, mixed dtypes" "text: the dataset line"
expect_out "skipped: 1 file" "text: the skipped count"
expect_out "ds/README: does not match --glob" "text: the skipped file"
expect_out "ds/c.npy sample 1 at (0, 1): 2 invalid, values 8, 9" "text: the bad image"
expect_out "ds/sub/b.txt row 1: 1 invalid, values 7" "text: the bad row"

echo "# --- without --glob every file is a source: README's 'notes' is unparsable"
run --json -n 5 "$d/ds"
expect_json '.files[0].sources | length' 5 "5 sources"
expect_json '.files[0].invalid.unparsable' 1 "README read as text"

echo "# --- --concat: argument order, the batching on the total"
run --json -n 10 -b 4 --concat "$d/ds/sub/b.txt" "$d/ds/a.csv" "$d/ds/a/z.txt"
expect_json '.files[0].path' "$d/ds/sub/b.txt+" "path: the first argument and +"
expect_json '.files[0].samples' 6 "6 samples"
expect_json '.files[0].batching.last_batch' 2 "the batching runs on the total (6 = 4 + 2)"
expect_json '.files[0].dtype' int64 "one dtype: itself"
expect_json '.summary.files' 1 "one report"
run -n 10 -b 2 --concat "$d/ds/sub/b.txt" "$d/ds/a/z.txt"
expect_out "tiny-last-batch" "3 samples, -b 2: a last batch of 1 (on the total, not per file)"

echo "# --- the same report at every -j"
i=0
while [ $i -lt 40 ]; do
    printf '%d\n%d\n' $((i % 7)) $((i % 11)) >"$d/ds/sub/f$i.txt"
    i=$((i + 1))
done
for j in 1 2 3 8; do
    "$LABELAUDIT" -j$j --json -n 9 -b 5 "$d/ds" 2>"$d/err.j$j" | sed 's/"backend".*//' >"$d/out.j$j"
    "$LABELAUDIT" -j$j -n 9 -b 5 --max-report=50 "$d/ds" >"$d/txt.j$j" 2>&1
done
for j in 2 3 8; do
    cmp -s "$d/out.j1" "$d/out.j$j"
    ok $? "-j$j: the JSON report of -j1"
    cmp -s "$d/txt.j1" "$d/txt.j$j"
    ok $? "-j$j: the text report of -j1"
done

echo "# --- unreadable files: named, exit 3, the others audited"
ln -s "$d/nowhere" "$d/ds/dangling.txt"
run --json -n 9 "$d/ds"
expect_status 3 "a dangling link in the folder: exit 3"
expect_err "dangling.txt" "named on stderr"
expect_json '[.files[0].skipped[] | select(.path | endswith("dangling.txt"))] | length' 1 \
    "and in the report's skipped list"
expect_json '.files[0].sources | length' 45 "the other files audited"
rm "$d/ds/dangling.txt"
run --concat -n 9 "$d/ds/a.csv" "$d/missing.csv" "$d/ds/a/z.txt"
expect_status 3 "--concat with a missing file: exit 3"
expect_err "missing.csv: cannot open" "the missing file named"
expect_out "dataset of 2 files" "the others audited"

echo "# --- an empty folder is an empty dataset"
mkdir "$d/empty"
run --json -n 3 "$d/empty"
expect_status 1 "no labels: the empty finding"
expect_json '[.files[0].findings[].code] | join(",")' empty "empty"

echo "# --- what the readers find beyond the values: kept in a dataset"
# COCO, YOLO and ImageFolder folders under --concat, and their --merge: the
# findings, problems and places of each one alone, at dataset positions
# the part of a report that says the same whether a file is alone or in a dataset
notes_of() {
    jq -c --arg key "$1" '.files[0] | {findings: [.findings[] | [.severity, .code]],
        bad: [.bad[] | del(.source, .at, .index, .sample)],
        problems: [.[$key].problems[]? | del(.source, .index, .sample)]}' "$d/out"
}
twice() { jq -c '{findings: .findings, bad: (.bad + .bad), problems: (.problems + .problems)}'; }
mkdir -p "$d/yolo/a" "$d/yolo/b"
printf '0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0 0.1\n' >"$d/yolo/a/1.txt"
printf '7 0.5 0.5 0.2 0.2\n' >"$d/yolo/b/2.txt"
run --json --format=yolo -n 5 "$d/yolo/a"
notes_of yolo >"$d/yolo-a.json"
cp "$d/out" "$d/yolo-a-report.json"
run --json --format=yolo -n 5 "$d/yolo/b"
cp "$d/out" "$d/yolo-b-report.json"
run --json --format=yolo -n 5 --concat "$d/yolo/a" "$d/yolo/b"
expect_status 1 "two YOLO folders: errors"
expect_json '[.files[0].findings[].code | select(IN("out-of-range", "degenerate-box"))] | join(",")' \
    "out-of-range,degenerate-box" "--concat of YOLO folders: the degenerate box is still a finding"
expect_json '[.files[0].yolo.problems[] | "\(.code):\(.index):\(.source):\(.line)"] | join(",")' \
    "degenerate-box:1:0:2" "its problem: file a's line 2, index 1, source 0"
expect_json '[.files[0].bad[] | "\(.index):\(.sample):\(.source):\(.line)=\(.value)"] | join(",")' \
    "2:1:1:1=7" "the bad class of file b keeps its file and line, at dataset index 2 and sample 1"
cp "$d/out" "$d/yolo-concat.json"
run --json -n 5 --merge "$d/yolo-a-report.json" "$d/yolo-b-report.json"
jq -S '.files[0] | del(.path)' "$d/out" >"$d/yolo-merge.n"
jq -S '.files[0] | del(.path)' "$d/yolo-concat.json" >"$d/yolo-concat.n"
cmp -s "$d/yolo-concat.n" "$d/yolo-merge.n"
ok $? "YOLO: --merge of the two reports is --concat over the folders"
run --json --format=yolo -n 5 --concat "$d/yolo/a" "$d/yolo/a"
[ "$(notes_of yolo)" = "$(twice <"$d/yolo-a.json")" ]
ok $? "YOLO: a folder twice under --concat says twice what it says alone"

if "$LABELAUDIT" --version | grep -q '^Formats:.* coco'; then
    cat >"$d/coco.json" <<'JSON'
{"images": [{"id": 1, "width": 10, "height": 10}, {"id": 2, "width": 10, "height": 10}],
 "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
 "annotations": [{"id": 1, "image_id": 2, "category_id": 1, "bbox": [0, 0, 0, 1]},
                 {"id": 2, "image_id": 9, "category_id": "2", "bbox": [0, 0, 1, 1]},
                 {"id": 3, "image_id": 1, "category_id": 5, "bbox": [0, 0, 1, 1]}]}
JSON
    run --json --format=coco -n 3 "$d/coco.json"
    notes_of coco >"$d/coco-alone.json"
    cp "$d/out" "$d/coco-report.json"
    run --json --format=coco -n 3 --concat "$d/coco.json" "$d/coco.json"
    [ "$(notes_of coco)" = "$(twice <"$d/coco-alone.json")" ]
    ok $? "COCO: a file twice under --concat says twice what it says alone"
    expect_json '[.files[0].bad[] | "\(.index):\(.sample):\(.source)"] | join(",")' \
        "1:null:0,2:0:0,4:null:1,5:2:1" \
        "COCO: an annotation of no listed image keeps no sample, and its own source"
    expect_json '[.files[0].findings[] | select(.code == "degenerate-box") | .message] | .[0]' \
        "1 box with a width or height <= 0 (or no [x, y, w, h]), and 1 more in 1 other file" \
        "COCO: one degenerate-box finding for both files"
    cp "$d/out" "$d/coco-concat.json"
    run --format=coco -n 3 --concat "$d/coco.json" "$d/coco.json"
    expect_out "coco.json index 1, annotation id 2, image_id 9: \"2\"" \
        "COCO text: a bad entry of no listed image, in its file, with its annotation"
    run --json -n 3 --merge "$d/coco-report.json" "$d/coco-report.json"
    jq -S '.files[0] | del(.path)' "$d/out" >"$d/coco-merge.n"
    jq -S '.files[0] | del(.path)' "$d/coco-concat.json" >"$d/coco-concat.n"
    cmp -s "$d/coco-concat.n" "$d/coco-merge.n"
    ok $? "COCO: --merge of the two reports is --concat over the files"
fi

mkdir -p "$d/if/a/cat" "$d/if/a/.ipynb_checkpoints" "$d/if/b/dog" "$d/if/b/empty"
: >"$d/if/a/cat/1.jpg"
: >"$d/if/a/.ipynb_checkpoints/1.jpg"
: >"$d/if/b/dog/1.jpg"
run --json --format=imagefolder -n 2 --concat "$d/if/a" "$d/if/b"
expect_status 1 "two ImageFolders: errors"
expect_json '[.files[0].findings[] | "\(.code)=\(.message | sub(":.*"; ""))"] | join(",")' \
    "hidden-class-folder=$d/if/a,empty-class-folder=$d/if/b" \
    "--concat of ImageFolders: the hidden and the empty class folder, each named by its tree"
run --json --format=imagefolder -n 3 --concat "$d/if/a" "$d/if/b"
expect_json '[.files[0].findings[].code | select(. == "class-count")] | length' 1 \
    "--concat of ImageFolders of 2 classes each, -n 3: class-count"

echo "# --- bad_sample_list for one (S, H, W) .npy"
run --json -n 5 "$d/ds/c.npy"
expect_json '[.files[0].bad_sample_list[] | "\(.sample):\(.count):\(.first_at | map(tostring) | join(",")):\(.values | map(tostring) | join(","))"] | join(" ")' \
    "1:2:0,1:8,9" "one bad mask, its first pixel and values"
expect_json '.files[0].bad_sample_list[0].source' null "no source outside a dataset"

echo "# --- memory does not grow with the number of files"
mkdir "$d/many"
i=0
while [ $i -lt 2000 ]; do      # hard links: only the names cost
    ln "$d/ds/c.npy" "$d/many/m$i.npy" 2>/dev/null || cp "$d/ds/c.npy" "$d/many/m$i.npy"
    i=$((i + 1))
done
# 2000 reports held to the end took about 30 KB each (60 MB): the FILE runs get 32 MiB
if grep -q __asan_init "$LABELAUDIT" 2>/dev/null; then max_kb=786432; args_kb=786432
else max_kb=65536; args_kb=32768; fi
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
    for mode in "-q" "--json" ""; do
        /usr/bin/time -v -o "$d/time" "$LABELAUDIT" $mode -n 21 "$d/many" >/dev/null 2>&1
        kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time")
        [ -n "$kb" ] && [ "$kb" -le "$max_kb" ]
        ok $? "2000 masks ${mode:-(text)}: peak RSS ${kb:-?} KiB <= $max_kb KiB"
        # as 2000 FILE arguments: each report is written as it is final, then freed
        /usr/bin/time -v -o "$d/time" "$LABELAUDIT" $mode -n 21 "$d"/many/*.npy >/dev/null 2>&1
        kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time")
        [ -n "$kb" ] && [ "$kb" -le "$args_kb" ]
        ok $? "2000 mask FILEs ${mode:-(text)}: peak RSS ${kb:-?} KiB <= $args_kb KiB"
    done
else
    echo "ok $((n_tests += 1)) # SKIP peak RSS: no /usr/bin/time (Debian package time)"
fi
run --json -n 21 "$d/many"
expect_json '.files[0].samples' 4000 "2000 files of 2 masks: 4000 samples"
expect_json '.files[0].bad_samples' 0 "none bad (8 and 9 are below 21)"
run --json -n 21 "$d"/many/*.npy
expect_json '.files | length' 2000 "2000 FILEs: one valid document of 2000 entries, streamed"
expect_json '.summary.files' 2000 "and the summary counts them"
echo "# --- -j N is every thread of the run, the main thread among them"
# A folder of files whose readers thread themselves (quoted CSV parsed in
# blocks on a pool, HDF5 gzip chunks inflated on one): each file's reader
# gets only what the folder's workers leave of -j. LABELAUDIT_THREAD_PEAK=1
# prints the most threads /proc/self/task held at once, counted at each
# thread's start.
mkdir -p "$d/threaded" "$d/threaded-few"
for i in 1 2 3; do
    awk -v rows=20000 -v every=500 -f "$srcdir/tests/gen/text-csv.awk" >"$d/threaded/text$i.csv"
done
for h in h5-chunked h5-pcam-y h5-ub-fill; do
    cp "$data/containers/$h.h5" "$d/threaded/"
done
cp "$d/threaded/text1.csv" "$d/threaded/h5-chunked.h5" "$d/threaded-few/"
# thread_peak ARGS... : the run's peak of live threads in $peak (empty: not said)
thread_peak() {
    LABELAUDIT_THREAD_PEAK=1 "$LABELAUDIT" "$@" >"$d/out" 2>"$d/err"
    peak=$(sed -n 's/^labelaudit: threads: peak \([0-9]*\), budget [0-9]*$/\1/p' "$d/err")
}
"$LABELAUDIT" -j1 --json -n 10 "$d/threaded" >"$d/threaded.j1"
for j in 2 4; do
    for ds in threaded threaded-few; do
        thread_peak -j$j --json -n 10 "$d/$ds"
        [ -n "$peak" ] && [ "$peak" -le $j ]
        ok $? "$ds/ at -j$j: at most $j threads alive at once (peak ${peak:-not said})"
    done
    thread_peak -j$j --json -n 10 --concat "$d"/threaded/*
    [ -n "$peak" ] && [ "$peak" -le $j ]
    ok $? "--concat at -j$j: at most $j threads (peak ${peak:-not said})"
    "$LABELAUDIT" -j$j --json -n 10 "$d/threaded" | cmp -s - "$d/threaded.j1"
    ok $? "threaded/ at -j$j: the report of -j1"
done
# two files at -j4: a worker and this thread, and the readers take the rest
run -v -j4 -n 10 "$d/threaded-few"
expect_err "in blocks on [23] threads\|inflated on [23] threads" \
    "fewer files than -j: the readers get the threads the workers leave"
thread_peak -j4 -n 10 "$d/threaded/text1.csv"
[ -n "$peak" ] && [ "$peak" -le 4 ]
ok $? "one quoted CSV at -j4: reader thread and blocks within 4 (peak ${peak:-not said})"
# a FILE scanned on all the threads, then a quoted CSV: the scan's threads
# were given back between the files, so the CSV's reader has its own
{ npy_head '|u1' '(400000,)'; head -c 400000 /dev/zero; } >"$d/zeros.npy"
thread_peak -v -j4 -n 10 "$d/zeros.npy" "$d/threaded/text1.csv"
[ "$peak" = 4 ]
ok $? "zeros.npy then text1.csv at -j4: 4 threads at most, and all used (peak ${peak:-not said})"
expect_err "text1.csv: csv: libcsv in blocks on 4 threads" \
    "... the CSV parsed on all the threads the scan left (its reader on the scanning thread)"
finish
