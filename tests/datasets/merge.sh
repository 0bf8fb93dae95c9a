#!/bin/sh
# merge.sh - --merge of shard reports prints the report --concat
# prints over the same files, byte for byte after the path fields. Property
# test: random label sets (seeded), cut at random points into random formats
# (csv, text, npy), audited shard by shard (a shard is one file or a --concat
# of two), merged. Then: reports of different checks refused, an unreadable
# report, and GNU parallel as the engine when it is installed.
. "$srcdir/tests/setup.sh"

# npy_i64 FILE VALUE... : a 1-D int64 .npy, header as numpy writes it
npy_i64() {
    f=$1
    shift
    {
        npy_head '<i8' "($#,)"
        for v in "$@"; do
            printf "$(echo "$v" | awk '{ v = $1; s = "";
                for (i = 0; i < 8; i++) {
                    b = v >= 0 ? int(v / 2 ^ (8 * i)) % 256 : 255 - int((-v - 1) / 2 ^ (8 * i)) % 256;
                    s = s sprintf("\\%03o", b) }
                print s }')"
        done
    } >"$f"
}

# write_shard FILE FORMAT VALUE... : the values as csv (with a header), text or npy
write_shard() {
    f=$1 fmt=$2
    shift 2
    case $fmt in
    csv)  { echo "id,label"; row=0; for v in "$@"; do echo "$row,$v"; row=$((row + 1)); done; } >"$f" ;;
    text) for v in "$@"; do echo "$v"; done >"$f" ;;
    npy)  npy_i64 "$f" "$@" ;;
    esac
}

strip_paths() { jq -S 'del(.files[].path, .files[].sources[].path)' "$1"; }

trial=0
while [ $trial -lt 30 ]; do
    seed=$((trial * 7919 + 17))
    # a plan: options, then one line per file: SHARD FORMAT VALUE...
    awk -v seed=$seed 'BEGIN {
        srand(seed)
        k = 2 + int(rand() * 6)
        printf "-n %d -b %d --world-size %d --max-report %d\n", k, 1 + int(rand() * 5),
               1 + int(rand() * 3), int(rand() * 7)
        files = 1 + int(rand() * 6); shard = 0
        for (f = 0; f < files; f++) {
            fmt = rand() < 0.34 ? "csv" : rand() < 0.5 ? "text" : "npy"
            n = 1 + int(rand() * 9)
            if (f > 0 && rand() < 0.7) shard++
            line = shard " " fmt
            for (i = 0; i < n; i++) {
                r = rand()
                if (fmt != "npy" && r < 0.05) v = "x"
                else if (fmt != "npy" && r < 0.1) v = "1.5"
                else if (r < 0.15) v = -100
                else v = int(rand() * (k + 4)) - 2
                line = line " " v
            }
            print line
        }
    }' >"$d/plan"
    opts=$(head -n 1 "$d/plan")
    rm -f "$d"/t.* "$d"/shard.*.json
    files=""
    i=0
    tail -n +2 "$d/plan" | while read -r shard fmt values; do
        # shellcheck disable=SC2086
        write_shard "$d/t.$i.$fmt" "$fmt" $values
        echo "$shard $d/t.$i.$fmt"
        i=$((i + 1))
    done >"$d/files"
    files=$(cut -d' ' -f2 "$d/files" | tr '\n' ' ')
    # shellcheck disable=SC2086
    "$LABELAUDIT" --json $opts --concat $files >"$d/concat.json" 2>"$d/concat.err"
    want_rc=$?
    reports=""
    for s in $(cut -d' ' -f1 "$d/files" | uniq); do
        members=$(awk -v s="$s" '$1 == s { printf "%s ", $2 }' "$d/files")
        set -- $members
        if [ $# -gt 1 ]; then concat=--concat; else concat=; fi
        # shellcheck disable=SC2086
        "$LABELAUDIT" --json $opts $concat $members >"$d/shard.$s.json" 2>/dev/null
        reports="$reports $d/shard.$s.json"
    done
    # shellcheck disable=SC2086
    "$LABELAUDIT" --json $(echo "$opts" | sed 's/-n [0-9]*//') --merge $reports \
        >"$d/merge.json" 2>"$d/merge.err"
    got_rc=$?
    strip_paths "$d/concat.json" >"$d/concat.s"
    strip_paths "$d/merge.json" >"$d/merge.s"
    cmp -s "$d/concat.s" "$d/merge.s" && [ $got_rc = $want_rc ]
    ok $? "seed $seed ($opts, $(wc -l <"$d/files") files, $(echo $reports | wc -w) shards): --merge == --concat (exit $got_rc, want $want_rc)"
    cmp -s "$d/concat.s" "$d/merge.s" || diff "$d/concat.s" "$d/merge.s" | head -10 | sed 's/^/# /'
    trial=$((trial + 1))
done

echo "# --- masks: bad_sample_list, at, first_at across shards"
printf '\0\0\0\0\0\0\0\011\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >"$d/m.raw"
for s in 1 2; do
    {
        printf '\223NUMPY\001\000v\000'
        printf "%-117s\n" "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 4), }"
        cat "$d/m.raw"
    } >"$d/m$s.npy"
done
"$LABELAUDIT" --json -n 5 --concat "$d/m1.npy" "$d/m2.npy" >"$d/concat.json"
"$LABELAUDIT" --json -n 5 "$d/m1.npy" >"$d/r1.json"
"$LABELAUDIT" --json -n 5 "$d/m2.npy" >"$d/r2.json"
run --json --merge "$d/r1.json" "$d/r2.json"
strip_paths "$d/concat.json" >"$d/concat.s"
strip_paths "$d/out" >"$d/merge.s"
cmp -s "$d/concat.s" "$d/merge.s"
ok $? "two mask files: --merge == --concat"
expect_json '[.files[0].bad_sample_list[] | "\(.sample):\(.source):\(.first_at | map(tostring) | join(","))"] | join(" ")' \
    "0:0:1,3 2:1:1,3" "bad samples renumbered, each in its source"

# same_as_concat DESCRIPTION [OPTION...] -- SHARD... : each SHARD (a FILE, or
# FILE,FILE... audited as a --concat) audited with the options, the reports
# merged; the merge's JSON and text reports must be --concat's over all the
# files (paths aside)
same_as_concat() {
    what=$1
    shift
    opts=
    while [ "$1" != -- ]; do opts="$opts $1"; shift; done
    shift
    reports="" i=0 files=""
    for shard in "$@"; do
        members=$(echo "$shard" | tr ',' ' ')
        files="$files $members"
        case $shard in *,*) concat=--concat ;; *) concat= ;; esac
        # shellcheck disable=SC2086 # $opts holds options, $members paths
        "$LABELAUDIT" --json $opts $concat $members >"$d/part.$i.json"
        reports="$reports $d/part.$i.json"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086 # the paths, one by one
    set -- $files
    # the checks come from the reports; the format option is the shards'
    mopts=$(echo "$opts" | sed -e 's/-n [0-9]*//' -e 's/--format=[a-z]*//' -e 's/--model=[^ ]*//')
    # shellcheck disable=SC2086
    "$LABELAUDIT" --json $opts --concat "$@" >"$d/concat.json"
    # shellcheck disable=SC2086
    "$LABELAUDIT" --json $mopts --merge $reports >"$d/merge.json"
    strip_paths "$d/concat.json" >"$d/concat.s"
    strip_paths "$d/merge.json" >"$d/merge.s"
    cmp -s "$d/concat.s" "$d/merge.s"
    ok $? "$what: --merge == --concat"
    cmp -s "$d/concat.s" "$d/merge.s" || diff "$d/concat.s" "$d/merge.s" | head -10 | sed 's/^/# /'
    # shellcheck disable=SC2086
    "$LABELAUDIT" --color=never $opts --concat "$@" | sed "s|^$1+|ARGS|" >"$d/concat.txt"
    # shellcheck disable=SC2086
    "$LABELAUDIT" --color=never $mopts --merge $reports | sed "s|^$d/part.0.json+|ARGS|" \
        >"$d/merge.txt"
    cmp -s "$d/concat.txt" "$d/merge.txt"
    ok $? "$what: the text reports are the same"
    cmp -s "$d/concat.txt" "$d/merge.txt" || diff "$d/concat.txt" "$d/merge.txt" | head -10 |
        sed 's/^/# /'
}

echo "# --- one-sample files whose first axis has length 1: their shape is kept"
formats=$("$LABELAUDIT" --version | sed -n 's/^Formats: \([^(]*\).*/\1/p')
m="$srcdir/tests/data/masks"
for f in scaled.nii deflate-i8.tif; do
    fmt=$(case $f in *.nii) echo nifti ;; *) echo tiff ;; esac)
    if ! case " $formats " in *" $fmt "*) true ;; *) false ;; esac; then
        echo "ok $((n_tests += 1)) # SKIP built without $fmt"
        continue
    fi
    cp "$m/$f" "$d/a.$f"
    cp "$m/$f" "$d/b.$f"
    same_as_concat "two copies of $f" -n 5 -- "$d/a.$f" "$d/b.$f"
    shape=$(jq -r '.files[0].shape | map(tostring) | join("x")' "$d/part.0.json")
    cp "$d/merge.json" "$d/out"
    expect_json '[.files[0].sources[].sample_shape | map(tostring) | join("x")] | join(" ")' \
        "$shape $shape" "$f: each source's sample shape is the whole file's"
done

echo "# --- --max-report=0: every bad sample counted, none listed"
printf '7\n0\n' >"$d/z1.txt"
printf '7\n7\n' >"$d/z2.txt"
{ npy_head '<i8' '(1, 2)'; printf '\007\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'; } >"$d/z3.npy"
same_as_concat "--max-report=0" -n 5 --max-report=0 -- "$d/z1.txt" "$d/z2.txt" "$d/z3.npy"
cp "$d/merge.json" "$d/out"
expect_json '.files[0].bad_samples' 4 "--max-report=0: 4 bad samples in 3 shards"

echo "# --- YOLO folders and COCO files: a sample of several lines or annotations"
mkdir -p "$d/y1" "$d/y2"
printf '0 0.5 0.5 0.1 0.1\n1 0.5 0.5 0.1 0.1\n' >"$d/y1/a.txt"
printf '0 0.5 0.5 0.1 0.1\nx 0.5 0.5 0.1 0.1\n7 0.5 0.5 0.1 0.1\n' >"$d/y1/b.txt"
printf '1 0.5 0.5 0.1 0.1\n1 0.4 0.5 0.1 0.1\n9 0.5 0.5 0.1 0.1\n' >"$d/y2/c.txt"
mkdir -p "$d/y3"
printf '5 0.5 0.5 0.1 0.1\n' >"$d/y3/d.txt"
for mr in 0 1 1000; do
    same_as_concat "YOLO folders, --max-report=$mr" --format=yolo -n 5 --max-report=$mr -- \
        "$d/y1,$d/y2" "$d/y3"
done
cp "$d/part.0.json" "$d/out"
expect_json '[.files[0].sources[].count | tostring] | join(",")' 5,3 "each source's count: its lines"
# problems beyond --max-report, of two codes in each shard: each code's count
# is the shard's, not its listed ones'
mkdir -p "$d/y4" "$d/y5"
for y in y4 y5; do
    printf '0 0.5 0.5 0.1 0.1\n0 0.5 0.5 0.1 0.1\n0 0.5 0.5 0.1 0.1\n1 1.5 0.5 0.1 0.1\n1 1.5 0.5 0.1 0.1\n' \
        >"$d/$y/a.txt"
done
same_as_concat "YOLO folders, problems of 2 codes past --max-report=1" --format=yolo -n 5 \
    --max-report=1 -- "$d/y4" "$d/y5"
grep -q "duplicate-label.*, and 3 more in 1 other file" "$d/merge.txt"
ok $? "... the merge counts the other folder's 3 duplicate lines"

echo "# --- integers beyond 2^53 merge exactly (cJSON's doubles round them)"
printf 'label\n9223372036854775807\n9007199254740993\n1\n' >"$d/big1.csv"
printf 'label\n-9223372036854775808\n-9007199254740993\n' >"$d/big2.csv"
{ npy_head '<u8' '(2,)'; printf '\377\377\377\377\377\377\377\377\001\000\000\000\000\000\040\000'; } \
    >"$d/big3.npy"
same_as_concat "labels beyond 2^53" -n 5 --max-report=10 -- "$d/big1.csv" "$d/big2.csv" "$d/big3.npy"
# jq may round as cJSON does: the raw text of the JSON, and the text report
numbers() { grep -o '"\(min\|max\|value\)":[^,}]*' "$1" | tr -d ' \t' | tr '\n' ' '; }
[ "$(numbers "$d/merge.json")" = "$(numbers "$d/concat.json")" ] &&
    [ "$(numbers "$d/merge.json")" = '"min":-9223372036854775808 "max":18446744073709551615 "value":9223372036854775807 "value":9007199254740993 "value":-9223372036854775808 "value":-9007199254740993 "value":18446744073709551615 "value":9007199254740993 "value":9223372036854775807 "value":9007199254740993 "value":-9223372036854775808 "value":-9007199254740993 "value":18446744073709551615 ' ]
ok $? "... min, max and the bad values exact in the merged JSON: $(numbers "$d/merge.json")"
grep -q "range -9223372036854775808..18446744073709551615" "$d/merge.txt" &&
    grep -q "value 9007199254740993, 2 times: .*big1.csv row 1, .*big3.npy index 1$" "$d/merge.txt"
ok $? "... and in its text report"

echo "# --- more distinct bad values than bad_values keeps, spread over the shards"
# shard k holds the values 10 + (k * 37 + i) % 90: each shard and the whole
# have more than 64, and a value's entries lie in several shards
for k in 0 1 2; do
    awk -v k=$k 'BEGIN { print "label"; for (i = 0; i < 120; i++)
        print (i % 3 ? i % 5 : 10 + (k * 37 + i) % 90) }' >"$d/many$k.csv"
done
same_as_concat "90 distinct bad values in 3 shards" -n 5 -- "$d/many0.csv" "$d/many1.csv" \
    "$d/many2.csv"
cp "$d/merge.json" "$d/out"
expect_json '[(.files[0].bad_values | length), .files[0].bad_values_other,
              (.files[0].bad_values | map(.count) | add)] | map(tostring) | join(" ")' \
    "64 33 87" "... the 64 smallest kept, each counted over the shards, the rest told"

echo "# --- WebDataset shards, labels missing past --max-report"
for s in 1 2; do
    mkdir -p "$d/w$s"
    for k in a b c d; do echo x >"$d/w$s/$s$k.jpg"; done
    echo 1 >"$d/w$s/${s}a.cls"
    echo 2 >"$d/w$s/${s}b.cls"
    (cd "$d/w$s" && tar cf "$d/w$s.tar" ./*)
done
same_as_concat "two shards, 2 of 4 keys each without a label, --max-report=1" -n 5 \
    --max-report=1 -- "$d/w1.tar" "$d/w2.tar"
grep -q "missing-label.*, and 2 more in 1 other file" "$d/merge.txt"
ok $? "... the merge counts the other shard's 2 missing labels"
if case " $formats " in *" coco "*) true ;; *) false ;; esac; then
    printf '{"images":[{"id":1},{"id":2}],"categories":[{"id":1},{"id":2}],"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,1,1]},{"id":2,"image_id":2,"category_id":"zz","bbox":[0,0,1,1]},{"id":3,"image_id":1,"category_id":5,"bbox":[0,0,1,1]}]}' >"$d/c1.json"
    printf '{"images":[{"id":7}],"categories":[{"id":1}],"annotations":[{"id":1,"image_id":7,"category_id":1,"bbox":[0,0,1,1]},{"id":2,"image_id":7,"category_id":9,"bbox":[0,0,1,1]}]}' >"$d/c2.json"
    cp "$d/c1.json" "$d/c3.json"
    same_as_concat "COCO files" --format=coco -n 3 -- "$d/c1.json" "$d/c2.json,$d/c3.json"
else
    echo "ok $((n_tests += 1)) # SKIP built without coco"
fi

echo "# --- N from a model's config.json: the merge holds the labels to it too"
mkdir "$d/model3" "$d/model4"
printf '{"num_labels": 3, "architectures": ["BertForSequenceClassification"]}' >"$d/model3/config.json"
printf '{"num_labels": 4, "architectures": ["BertForSequenceClassification"]}' >"$d/model4/config.json"
printf 'label\n0\n1\n' >"$d/m1.csv"
printf 'label\n2\n3\n' >"$d/m2.csv"
same_as_concat "N from --model" --model="$d/model3" -- "$d/m1.csv" "$d/m2.csv"
cp "$d/merge.json" "$d/out"
expect_json '.files[0].num_classes_from' "model config.json num_labels" \
    "the merged report says where N came from"
expect_json '.files[0].invalid.above' 1 "3 is at or above the model's N = 3"
mkdir "$d/named"
printf '{"id2label": {"0": "cat", "1": "dog", "2": "eel"}, "architectures": ["BertForSequenceClassification"]}' \
    >"$d/named/config.json"
printf 'label\n0\n0\n' >"$d/m0.csv"
same_as_concat "N and the class names from id2label" --model="$d/named" -- "$d/m0.csv" "$d/m2.csv"
grep -q 'first: 1 "dog"' "$d/merge.txt"
ok $? "the merged text report names the missing class by the model's name"
"$LABELAUDIT" --json --model="$d/model4" "$d/m2.csv" >"$d/model4.json"
run --merge "$d/part.0.json" "$d/model4.json"
expect_status 2 "shards audited against models of different N: refused"
expect_err "another class count" "the message says so"

echo "# --- refused and unreadable reports"
printf '1\n2\n' >"$d/a.txt"
"$LABELAUDIT" --json -n 3 "$d/a.txt" >"$d/n3.json"
"$LABELAUDIT" --json -n 4 "$d/a.txt" >"$d/n4.json"
run --merge "$d/n3.json" "$d/n4.json"
expect_status 2 "shards made with different -n: refused"
expect_err "num_classes" "the message names the field"
"$LABELAUDIT" --json --loss=bce "$d/a.txt" >"$d/bce.json"
run --merge "$d/n3.json" "$d/bce.json"
expect_status 2 "shards made with another --loss: refused"
expect_err "loss" "the message names the field"
run --merge -n 5 "$d/n3.json"
expect_status 2 "-n given to the merge run must agree"
run --json --merge "$d/n3.json" "$d/a.txt" "$d/nowhere.json"
expect_status 3 "a report that is no report, one missing: exit 3"
expect_err "a.txt: not a labelaudit --json report" "the non-report named"
expect_err "nowhere.json: cannot open" "the missing one named"
expect_json '.files[0].samples' 2 "the good report still merged"
expect_json '.config.num_classes' 3 "the checks come from the shard reports"

echo "# --- GNU parallel as the engine"
if command -v parallel >/dev/null 2>&1 && parallel --version 2>/dev/null | grep -q GNU; then
    mkdir "$d/shards"
    i=0
    while [ $i -lt 12 ]; do
        awk -v i=$i 'BEGIN { for (r = 0; r < 50 + i; r++) print (r * 7 + i) % 11 }' \
            >"$d/shards/s$(printf %02d $i).txt"
        i=$((i + 1))
    done
    ls "$d"/shards/*.txt | parallel -j 3 \
        "'$LABELAUDIT' --json -n 10 -b 16 {} > {}.json; test \$? -le 1"
    ok $? "parallel -j 3 audits 12 shards"
    "$LABELAUDIT" --json -n 10 -b 16 --concat "$d"/shards/*.txt >"$d/concat.json"
    run --json --merge "$d"/shards/*.txt.json
    strip_paths "$d/concat.json" >"$d/concat.s"
    strip_paths "$d/out" >"$d/merge.s"
    cmp -s "$d/concat.s" "$d/merge.s"
    ok $? "their --merge == --concat over the shards"
else
    echo "ok $((n_tests += 1)) # SKIP GNU parallel is not installed (Debian package parallel)"
fi
finish
