#!/bin/sh
# csv-quoted.sh - quoted CSVs read as Python's csv module and pandas read them,
# on every path of the CSV reader: -j1 (one thread), -j2 and -j3 (libcsv on
# every thread, in blocks), blocks cut every few bytes (LABELAUDIT_CSV_BLOCK,
# so these small files cross hundreds of block edges), and the one-thread
# libcsv reference (LABELAUDIT_CSV_SLOW=1). A file is read in place (mapped);
# through a pipe the same parse runs on bytes read into a buffer, so both
# inputs are tried. The files and what Python reads in
# them are committed: tests/data/quoted, made by tests/gen/gen_quoted_csv.py.
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
# 200000 rows of a quoted text column, a label that is not a number every
# 20011 rows: the block that meets one stops there, the step it lies in stops
# short, and the step published ahead of it is dropped, with whatever blocks
# of it the worker and the reader thread (take_ahead) had taken. Read five
# times on several threads, each must match the reference.
awk -v rows=200000 -v every=20011 -f "$srcdir/tests/gen/text-csv.awk" >"$d/stops.csv"
LABELAUDIT_CSV_SLOW=1 got -j1 "$d/stops.csv" >"$d/stops.want"
test "$(grep -c 'n/a' "$d/stops.want")" -eq 10
ok $? "stops.csv: the reference reports the 10 labels that are not numbers"
stops_bad=0
for j in -j2 -j2 -j2 -j3 -j3; do
    got "$j" "$d/stops.csv" >"$d/got"
    cmp -s "$d/got" "$d/stops.want" || stops_bad=$((stops_bad + 1))
done
test $stops_bad -eq 0
ok $? "stops.csv, read 5 times at -j2 and -j3: steps dropped after a stop read as the reference ($stops_bad differ)"
# Random rows at the edges of requote_row, the lane that writes a usual row
# (plain cells, or quoted ones closed right at their end) to libcsv whole:
# padding before and after quotes, quotes that close a cell early, doubled
# quotes, quoted LF, CR LF and lone CR, blank lines and lines of padding, a
# BOM, labels quoted or not. Each file ends in an error that names its line,
# so a quoted newline miscounted anywhere before it shows. Every path must
# read what the one-thread libcsv reference reads, which never takes the lane.
cat >"$d/lane.awk" <<'AWK'
function pick(n) { return int(rand() * n) }
function text(   s, k, i, t) {
    k = pick(6); s = ""
    for (i = 0; i < k; i++) {
        t = pick(10)
        s = s (t == 0 ? "\"\"" : t == 1 ? "\n" : t == 2 ? "\r\n" : t == 3 ? "," : t == 4 ? " " : t == 5 ? "\r" : "ab")
    }
    return s
}
function cell(label,   t, v) {
    t = pick(20)
    v = label ? pick(12) - 1 : "x"
    if (t == 0) return ""
    if (t == 1) return " "
    if (t == 2) return " \"" v "\""
    if (t == 3) return "\"" v "\" "
    if (t == 4) return "\"" v "\"x"
    if (t == 5) return v " "
    if (t == 6) return "\t" v
    if (t == 7 && rand() < 0.3) return "a\"b"
    if (t == 8) return "\"" text() v "\""
    if (t == 9) return "\"" v "\"\"" text() "\""
    if (t == 10) return "\"" v "\""
    return v
}
BEGIN {
    srand(seed)
    printf "%sid,text,label\n", (seed % 3 == 0 ? "\357\273\277" : "")
    for (r = 0; r < rows; r++) {
        printf "%s,%s,%s", cell(0), cell(0), cell(1)
        t = pick(30)
        if (t == 0) printf "\r"
        else if (t < 5) printf "\r\n"
        else if (t == 5) printf "\n\n"
        else if (t == 6) printf "\n \t\n"
        else printf "\n"
    }
    # the end: an error whose message names its line, so quoted newlines
    # miscounted anywhere before show
    printf (seed % 2 ? "1,2,3,4\n" : "1,\"x,3\n")
}
AWK
lane_got() {   # lane_got -jN : the report on lane.csv, the message included
    "$LABELAUDIT" "$1" -n 10 --json --indices-out="$d/bad.tsv" "$d/lane.csv" >"$d/out" 2>"$d/err"
    echo "exit $?"
    jq -c '.files[0] | [.samples, .histogram, .findings]' "$d/out"
    cut -f 2- "$d/bad.tsv" 2>/dev/null
    cat "$d/err"
}
lane_bad=0
for seed in $(seq 1 20); do
    awk -v seed="$seed" -v rows=3000 -f "$d/lane.awk" >"$d/lane.csv"
    LABELAUDIT_CSV_SLOW=1 lane_got -j1 >"$d/lane.want"
    for way in "-j1" "-j2" "-j3" "-j2 block 300"; do
        set -- $way
        LABELAUDIT_CSV_BLOCK=${3:-} lane_got "$1" >"$d/got"
        if ! cmp -s "$d/got" "$d/lane.want"; then
            lane_bad=$((lane_bad + 1))
            echo "# seed $seed ($way):"; diff "$d/lane.want" "$d/got" | head -4 | sed 's/^/# /'
        fi
    done
done
grep -q "unterminated quoted field" "$d/lane.want"
ok $? "lane.csv: the file's last error names its line"
[ "$lane_bad" -eq 0 ]
ok $? "lane.csv, 20 random files: -j1, -j2, -j3 and small blocks read as the reference ($lane_bad differ)"
finish
