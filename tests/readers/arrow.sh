#!/bin/sh
# arrow.sh - Parquet files, Arrow IPC files and streams, and `datasets`
# folders, read through Apache Arrow: each fixture of tests/data/arrow (made
# by tests/gen/gen_arrow.py with pyarrow and `datasets`) against the truth
# pyarrow gave for it (truth.tsv): counts, samples, range, nulls, ignored
# entries, the histogram and the first bad entries. A build without Arrow
# must refuse these files by name, with how to get it; that half runs there.
. "$srcdir/tests/setup.sh"
a="$data/arrow"
m="$srcdir/tests/malformed"
tab=$(printf '\t')

if ! "$LABELAUDIT" --version | grep -q '^Formats: [^(]* parquet'; then
    # ---- built without Arrow: refused by name, never parsed as CSV or text
    run "$m/arrow-labels.parquet"
    expect_status 3 "parquet without Arrow"
    expect_err "parquet file, but this labelaudit was built without Apache Arrow (libparquet; pip install pyarrow" \
        "parquet without Arrow: says how to get it"
    expect_err "export the label column: python3 -c \"import pyarrow.parquet as pq" \
        "parquet without Arrow: the command that exports it"
    run "$m/arrow-stream.arrow"
    expect_status 3 "arrow stream without Arrow"
    expect_err "arrow file, but this labelaudit was built without Apache Arrow (libarrow" \
        "arrow stream without Arrow: refused by name"
    run "$m/arrow-parquet-named.csv"
    expect_status 3 "a Parquet file named .csv without Arrow"
    run "$a/ds-saved"
    expect_status 3 "a save_to_disk folder without Arrow"
    expect_err "hf-dataset folder, but this labelaudit was built without Apache Arrow" \
        "a save_to_disk folder without Arrow: refused by name"
    finish
    exit
fi

# ---- every fixture against pyarrow's truth
grep -v '^#' "$a/truth.tsv" >"$d/truth"
while IFS="$tab" read -r name args count samples min max unparsable ignored hist bad; do
    # shellcheck disable=SC2086  # ARGS are words
    run --json --max-report 5 $args "$a/$name"
    [ "$rc" -le 1 ]
    ok $? "$name: read (exit $rc)"
    [ "$rc" -le 1 ] || { sed 's/^/# err: /' "$d/err" | head -3; continue; }
    got=$(jqf '.files[0] | [.count, .samples, .min, .max, .invalid.unparsable, .ignored,
                           (.histogram | map(tostring) | join(",")),
                           ([.bad[].index] | map(tostring) | join(","))] | map(tostring) | join("\t")')
    want="$count$tab$samples$tab$min$tab$max$tab$unparsable$tab$ignored$tab$hist$tab$bad"
    [ "$got" = "$want" ]
    ok $? "$name: count, samples, range, nulls, ignored, histogram, bad as pyarrow reads them"
    [ "$got" = "$want" ] || { echo "# got:  $got"; echo "# want: $want"; }
done <"$d/truth"

# ---- column choice, from the schema
run -c score "$a/pq-plain-v1.parquet"
expect_out 'column "score", float32' "-c names another column"
run -c nope "$a/pq-plain-v1.parquet"
expect_status 3 "-c names no column"
expect_err "no column 'nope' (the columns are id, label, score)" "-c nope: the columns named"
run -c text "$a/ds-to-parquet.parquet"
expect_status 3 "-c names a string column"
expect_err "column 'text' is string" "a string column is refused with its type"

# ---- ClassLabel: N and the names from the metadata
run "$a/ds-saved"
expect_out "ClassLabel 'label': 3 classes (dataset_info.json ClassLabel)" \
    "save_to_disk: the ClassLabel from dataset_info.json"
expect_out 'ds-saved: hf-dataset, column "label", int64, 300 labels' "save_to_disk: one dataset of 3 shards"
run "$a/ds-to-parquet.parquet"
expect_out "ClassLabel 'label': 3 classes (Arrow schema metadata ClassLabel)" \
    "Dataset.to_parquet: the ClassLabel from the schema's metadata"
run -n 4 "$a/ds-saved"
expect_out "class-count" "-n 4 against a ClassLabel of 3"
# the reader's note belongs to its file's block, and the N it gives is the
# one checked: no "pass -n 3" beside "classes: 3", no span of other bounds
run --color=never "$srcdir/samples/hf-sentiment.parquet"
expect_out "^  ClassLabel 'label': 3 classes" "a reader's note is indented as the findings are"
sed '1d; $d' "$d/out" | grep -qv '^  '
[ $? -eq 1 ]
ok $? "... every line of the file's block indented"
expect_out "^  classes: 3, from Arrow schema metadata ClassLabel" "... N from the ClassLabel"
! grep -q 'pass -n\|labels span' "$d/out"
ok $? "... and no \"pass -n\" or span that contradicts it"

# ---- list rows: one sample each, bad items named by their row
run --json -n 20 --max-report 50 "$a/pq-list.parquet"
expect_json '.files[0].bad | map(select(.value == 25)) | .[0].sample' 50 "a list row's stray item: its row"
run --json -n 20 "$a/ipc-list-stream.arrow"
expect_json '.files[0].samples' 120 "a list column's samples are its rows"
# rows of 0..300 items and one of 70000 across the reader's batches of 65536
# items (cut between rows, the rest of an array kept for the next), a null
# row and item: each bad entry's row as pyarrow reads it (gen_arrow_lists.py)
lb="$a/pq-lists-batches.parquet"
run --json -n 5 --max-report 100000 -j1 "$lb"
jqf '.files[0] | [.count, .samples, .bad_samples] | map(tostring) | join(" ")' >"$d/lb"
jqf '[.files[0].bad[].sample] | map(tostring) | join(",")' >>"$d/lb"
cmp -s "$d/lb" "$a/pq-lists-batches.truth"
ok $? "list rows across batches: elements, rows, bad rows and each bad entry's row as pyarrow's"
cp "$d/out" "$d/lb-j1.json"
same=0   # the scan looks rows up while the reader's thread adds them (once a segfault)
for i in 1 2 3 4 5 6 7 8 9 10; do
    run --json -n 5 --max-report 100000 -j4 "$lb"
    [ "$rc" -eq 1 ] && cmp -s "$d/out" "$d/lb-j1.json" && same=$((same + 1))
done
[ "$same" -eq 10 ]
ok $? "list rows at -j4: $same of 10 runs give the -j1 report"

# ---- --indices-out, --concat across Parquet shards, batching on rows
run -n 10 --indices-out="$d/idx.tsv" "$a/pq-plain-v1.parquet"
grep -q '300' "$d/idx.tsv"
ok $? "--indices-out names the stray row"
run --json --concat -n 10 "$a/pq-plain-v1.parquet" "$a/pq-dict-zstd-v2.parquet"
expect_json '.files[0].count' 1200 "--concat: two Parquet shards, one dataset"
run --json -n 10 -b 64 "$a/pq-plain-v1.parquet"
expect_json '.files[0].batching.last_batch' 24 "batching on the row count (600 rows, batches of 64)"

# ---- row groups decoded in parallel: the same report on any number of threads
for f in pq-dict-snappy-v2.parquet pq-nulls-int8.parquet rand-5.parquet; do
    "$LABELAUDIT" --json -n 10 -j 1 "$a/$f" >"$d/j1" 2>&1
    "$LABELAUDIT" --json -n 10 -j 3 "$a/$f" >"$d/j3" 2>&1
    cmp -s "$d/j1" "$d/j3"
    ok $? "$f: -j 1 and -j 3 give the same report"
done

# ---- what cannot be read is refused by name
run - <"$a/pq-plain-v1.parquet"
expect_status 3 "Parquet on standard input"
expect_err "Parquet is read from a file, not from standard input" "standard input: says so"
finish
