#!/bin/sh
# determinism.sh - a report depends on the data alone: not on -j, not on how
# the bytes arrive (mapped file, pipe, gzip), not on which CSV parser read them
# (the memchr fast path or libcsv, LABELAUDIT_CSV_SLOW=1). Files of a few
# million labels, so that chunks split across threads and blocks hold bad values.
. "$srcdir/tests/setup.sh"

gen="$builddir/bench/gen"
"$gen" npy-int64 "$d/labels.npy" 3000000 10 >"$d/labels.bad"
"$gen" raw-int32 "$d/labels.i32" 2000000 10 >/dev/null
"$gen" npy-mask "$d/masks.npy" 40 256 256 21 >/dev/null
# 2% of the pixels 255, one by one: the text report's per-mask groups fill
# while the entry list is already full
"$gen" npy-mask-scattered "$d/scattered.npy" 40 256 256 21 20000 >/dev/null
"$gen" csv "$d/labels.csv" 1000000 10 >/dev/null
gzip -c "$d/labels.csv" >"$d/labels.csv.gz"
gzip -c "$d/labels.npy" >"$d/labels.npy.gz"
# quotes in some rows (a comma inside a quoted path, a quoted label) send the
# reader to libcsv from the first of them on
awk -F, 'NR % 50000 == 7 { $0 = "\"" $1 ",x\"," $2 }
          NR % 70001 == 3 { $0 = $1 ",\"" $2 "\"" }
          { print }' "$d/labels.csv" >"$d/quoted.csv"
# a quoted text column (commas, doubled quotes, newlines in quotes), label last
# and first: libcsv on every thread, in blocks cut at proved row starts
"$gen" csv-text "$d/text.csv" 200000 10 >"$d/text.bad"
"$gen" csv-text-first "$d/text-first.csv" 200000 10 >/dev/null
gzip -c "$d/text.csv" >"$d/text.csv.gz"

# same DESCRIPTION FILE1 FILE2 : byte-identical outputs
same() {
    cmp -s "$2" "$3"
    ok $? "$1"
}

# by_threads FILE ARGS... : -j1, -j2 and -j3 give byte-identical JSON and text
by_threads() {
    f=$1
    shift
    for j in 1 2 3; do
        "$LABELAUDIT" -j$j --json "$@" "$f" >"$d/j$j.json" 2>&1
        "$LABELAUDIT" -j$j "$@" "$f" >"$d/j$j.txt" 2>&1
    done
    name=$(basename "$f")
    same "$name $*: -j1 and -j2 JSON" "$d/j1.json" "$d/j2.json"
    same "$name $*: -j1 and -j3 JSON" "$d/j1.json" "$d/j3.json"
    same "$name $*: -j1 and -j2 text" "$d/j1.txt" "$d/j2.txt"
}

for f in labels.npy labels.csv quoted.csv labels.csv.gz labels.npy.gz text.csv text-first.csv \
         text.csv.gz; do
    by_threads "$d/$f" -n 10
    by_threads "$d/$f"
done
by_threads "$d/labels.i32" -n 10 --format=raw --dtype=int32
by_threads "$d/labels.i32" -n 5 --max-report=100000 --format=raw --dtype=int32
by_threads "$d/masks.npy" -n 21
by_threads "$d/masks.npy" -n 21 --ignore-index=255
by_threads "$d/masks.npy" -n 3 --max-report=5
by_threads "$d/scattered.npy" -n 21
by_threads "$d/scattered.npy" -n 21 --max-report=3

# the planted bad labels are all found
run --json -n 10 "$d/labels.npy"
expect_json '.files[0].invalid.count' "$(cat "$d/labels.bad")" "every planted bad label"

# --indices-out: every entry, in order, for any -j
"$LABELAUDIT" -j1 -n 4 --indices-out="$d/i1.tsv" "$d/masks.npy" "$d/labels.csv" >/dev/null 2>&1
"$LABELAUDIT" -j2 -n 4 --indices-out="$d/i2.tsv" "$d/masks.npy" "$d/labels.csv" >/dev/null 2>&1
same "--indices-out: -j1 and -j2" "$d/i1.tsv" "$d/i2.tsv"
[ "$(wc -l <"$d/i1.tsv")" -gt 100000 ]
ok $? "--indices-out holds every bad entry ($(wc -l <"$d/i1.tsv") lines)"

# how the bytes arrive: a mapped file, a pipe, gzip (the path field aside)
strip() { jq -S 'del(.files[].path)' "$1" >"$1.s"; }
for f in labels.npy masks.npy labels.csv; do
    "$LABELAUDIT" -j2 --json -n 10 "$d/$f" >"$d/file.json" 2>&1
    "$LABELAUDIT" -j2 --json -n 10 - <"$d/$f" >"$d/pipe.json" 2>&1
    strip "$d/file.json"
    strip "$d/pipe.json"
    same "$f: file and standard input" "$d/file.json.s" "$d/pipe.json.s"
done
"$LABELAUDIT" --json -n 10 "$d/labels.csv.gz" >"$d/gz.json" 2>&1
"$LABELAUDIT" --json -n 10 "$d/labels.csv" >"$d/plain.json" 2>&1
strip "$d/gz.json"
strip "$d/plain.json"
same "labels.csv: gzip and plain" "$d/gz.json.s" "$d/plain.json.s"

# the CSV fast path and libcsv agree, quotes or not; libcsv on every thread
# and the one-thread reference (LABELAUDIT_CSV_SLOW=1) agree
for f in labels.csv quoted.csv labels.csv.gz text.csv text-first.csv text.csv.gz; do
    for j in 1 2; do
        "$LABELAUDIT" -j$j --json -n 10 "$d/$f" >"$d/fast.json" 2>&1
        LABELAUDIT_CSV_SLOW=1 "$LABELAUDIT" -j$j --json -n 10 "$d/$f" >"$d/slow.json" 2>&1
        same "$f -j$j: fast path and libcsv" "$d/fast.json" "$d/slow.json"
    done
done
run --json -n 10 "$d/quoted.csv"
expect_json '.files[0].count' 1000000 "quoted.csv: every row read once"
for f in text.csv text-first.csv; do
    "$LABELAUDIT" -j1 --json -n 10 --indices-out="$d/i1.tsv" "$d/$f" >"$d/j1.json" 2>&1
    for block in 4099 65536; do
        LABELAUDIT_CSV_BLOCK=$block "$LABELAUDIT" -j3 --json -n 10 --indices-out="$d/i3.tsv" \
            "$d/$f" >"$d/j3.json" 2>&1
        same "$f: -j1 and -j3 in blocks of $block bytes, JSON" "$d/j1.json" "$d/j3.json"
        same "$f: -j1 and -j3 in blocks of $block bytes, --indices-out" "$d/i1.tsv" "$d/i3.tsv"
    done
    run --json -n 10 "$d/$f"
    expect_json '.files[0].count' 200000 "$f: every row read once"
    expect_json '.files[0].invalid.count' "$(cat "$d/text.bad")" "$f: every planted bad label"
done

# many distinct bad values (100, more than the 64 bad_values keeps) through a
# CSV of many blocks, and a stray -7 near the end, the smallest: each value's
# count and first rows are the same at any -j, in blocks of any size, through
# a pipe, and as awk counts them
awk 'BEGIN { print "label"; for (i = 0; i < 1000000; i++)
    print (i == 999000 ? -7 : i % 997 == 5 ? 10 + (i * 31) % 100 : i % 10) }' >"$d/many.csv"
awk 'NR > 1 && ($1 < 0 || $1 >= 10) { n[$1]++; if (!($1 in f)) f[$1] = NR - 2 }
     END { for (v in n) print v, n[v], f[v] }' "$d/many.csv" | sort -n | head -64 |
    sort -k3,3n | awk '{ printf "%s:%s:%s ", $1, $2, $3 }' >"$d/many.want"
values() { jq -j '.files[0].bad_values[] | "\(.value):\(.count):\(.first[0]) "' "$1"; }
"$LABELAUDIT" -j1 --json -n 10 "$d/many.csv" >"$d/many1.json"
values "$d/many1.json" >"$d/many.got"
same "many.csv: each of the 64 smallest bad values, its count and first row, as awk counts them" \
    "$d/many.want" "$d/many.got"
for j in 2 4; do
    "$LABELAUDIT" -j$j --json -n 10 "$d/many.csv" >"$d/many$j.json"
    same "many.csv: -j1 and -j$j bad_values" "$d/many1.json" "$d/many$j.json"
done
LABELAUDIT_CSV_BLOCK=4099 "$LABELAUDIT" -j3 --json -n 10 "$d/many.csv" >"$d/manyb.json"
same "many.csv: -j1 and -j3 in blocks of 4099 bytes" "$d/many1.json" "$d/manyb.json"
"$LABELAUDIT" -j4 --json -n 10 --format=csv - <"$d/many.csv" | jq -c '.files[0].bad_values' >"$d/manyp.json"
jq -c '.files[0].bad_values' "$d/many1.json" >"$d/manyf.json"
same "many.csv: a pipe and the file, bad_values" "$d/manyf.json" "$d/manyp.json"
run -n 10 --max-report=64 "$d/many.csv"
expect_out "value -7, once: row 999000 (line 999002)" "many.csv: the late stray -7 is named in text, with --max-report lines for each value"

finish
