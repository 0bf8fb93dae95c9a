#!/bin/sh
# csv-quoted.sh - quoted CSVs read as Python's csv module and pandas read them,
# on every path of the CSV reader: -j1 (one thread), -j2 and -j3 (libcsv on
# every thread, in blocks), blocks cut every few bytes (LABELAUDIT_CSV_BLOCK,
# so these small files cross hundreds of block edges), and the one-thread
# libcsv reference (LABELAUDIT_CSV_SLOW=1). A file is read in place (mapped);
# through a pipe the same parse runs on bytes read into a buffer, so both
# inputs are tried. The files and what Python reads in
# them are committed: tests/data/quoted, made by tests/gen_quoted_csv.py.
. "${srcdir:-.}/tests/setup.sh"

# got -jN FILE [pipe] : what labelaudit read, in the form of FILE's .expect
got() {
    if [ "${3:-}" = pipe ]; then
        cat "$2" | "$LABELAUDIT" "$1" -n 10 --json --indices-out="$d/bad.tsv" - >"$d/out" 2>"$d/err"
    else
        "$LABELAUDIT" "$1" -n 10 --json --indices-out="$d/bad.tsv" "$2" >"$d/out" 2>"$d/err"
    fi
    jq -r '.files[0] | "samples \(.samples)", "histogram \(.histogram | map(tostring) | join(" "))"' \
        "$d/out" 2>&1
    cut -f 2- "$d/bad.tsv"
}

for f in "$data"/quoted/*.csv; do
    name=$(basename "$f" .csv)
    want="$data/quoted/$name.expect"
    for way in "-j1" "-j2" "-j3" "-j2 block 7" "-j3 block 64" "-j2 block 1000" "-j3 slow" \
               "-j1 pipe" "-j2 block 7 pipe" "-j3 block 64 pipe"; do
        set -- $way
        j=$1 block= slow=0 pipe=
        case $way in *block*) block=$3 ;; esac
        case $way in *slow*) slow=1 ;; esac
        case $way in *pipe) pipe=pipe ;; esac
        LABELAUDIT_CSV_SLOW=$slow LABELAUDIT_CSV_BLOCK=$block got "$j" "$f" $pipe >"$d/got"
        cmp -s "$d/got" "$want"
        ok $? "quoted/$name.csv ($way): the labels Python's csv module reads"
        cmp -s "$d/got" "$want" || diff "$want" "$d/got" | head -5 | sed 's/^/# /'
    done
done
# A file whose rows are 4 KB long for 896 KB, then 8 bytes long for 128 KB,
# over and over: a step's row count is estimated from samples spread over it,
# and a block that meets more rows than its part holds stops there and is
# parsed on by the reader's thread. The reports must match the one-thread
# libcsv reference, whichever thread count.
awk 'BEGIN {
    long = ""; for (i = 0; i < 4000; i++) long = long (i % 97 == 0 ? "," : (i % 89 == 0 ? "\"\"" : "x"))
    print "text,label"
    for (n = 0; n < 7; n++) {
        for (i = 0; i < 224; i++) printf "\"%s\",%d\n", long, (r++ % 12)
        for (i = 0; i < 16384; i++) printf "\"a\",%d\n", (r++ % 12)
    }
}' >"$d/dense.csv"
LABELAUDIT_CSV_SLOW=1 got -j1 "$d/dense.csv" >"$d/dense.want"
grep -q "^samples 116256$" "$d/dense.want"
ok $? "dense.csv: the reference reads every row"
for j in -j1 -j2 -j3; do
    got "$j" "$d/dense.csv" >"$d/got"
    cmp -s "$d/got" "$d/dense.want"
    ok $? "dense.csv ($j): rows 500 times denser in places read as by the reference"
done
finish
