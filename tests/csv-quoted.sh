#!/bin/sh
# csv-quoted.sh - quoted CSVs read as Python's csv module and pandas read them,
# on every path of the CSV reader: -j1 (one thread), -j2 and -j3 (libcsv on
# every thread, in blocks), blocks cut every few bytes (LABELAUDIT_CSV_BLOCK,
# so these small files cross hundreds of block edges), and the one-thread
# libcsv reference (LABELAUDIT_CSV_SLOW=1). The files and what Python reads in
# them are committed: tests/data/quoted, made by tests/gen_quoted_csv.py.
. "${srcdir:-.}/tests/setup.sh"

# got -jN FILE : what labelaudit read, in the form of FILE's .expect
got() {
    "$LABELAUDIT" "$1" -n 10 --json --indices-out="$d/bad.tsv" "$2" >"$d/out" 2>"$d/err"
    jq -r '.files[0] | "samples \(.samples)", "histogram \(.histogram | map(tostring) | join(" "))"' \
        "$d/out" 2>&1
    cut -f 2- "$d/bad.tsv"
}

for f in "$data"/quoted/*.csv; do
    name=$(basename "$f" .csv)
    want="$data/quoted/$name.expect"
    for way in "-j1" "-j2" "-j3" "-j2 block 7" "-j3 block 64" "-j2 block 1000" "-j3 slow"; do
        set -- $way
        j=$1 block=${3:-} slow=0
        [ "${2:-}" = slow ] && slow=1
        LABELAUDIT_CSV_SLOW=$slow LABELAUDIT_CSV_BLOCK=$block got "$j" "$f" >"$d/got"
        cmp -s "$d/got" "$want"
        ok $? "quoted/$name.csv ($way): the labels Python's csv module reads"
        cmp -s "$d/got" "$want" || diff "$want" "$d/got" | head -5 | sed 's/^/# /'
    done
done
finish
