#!/bin/sh
# csv-threads.sh - where -j's threads go on a plain CSV and a gzipped one
# (issue 50). -j N is every thread of the run (the main thread too): at
# -j2 a reader thread beside the scan had taken the one thread left, so the
# fast path lost its helper (1.3 times slower), and a gzip CSV lost it to the
# decompressor as well (1.7 times). The reader now runs on the scanning
# thread, and the decompressor hands its thread to the parse, which inflates
# ahead between its pieces; the reports stay those of -j1, within -j.
. "$srcdir/tests/setup.sh"

# 200000 rows (3.8 MB): past the lines the fast path reads before it splits
"$builddir/bench/gen" csv "$d/plain.csv" 200000 10 >/dev/null
gzip -c "$d/plain.csv" >"$d/plain.csv.gz"
thread_peak() {   # thread_peak ARGS... : the run's peak of live threads in $peak
    LABELAUDIT_THREAD_PEAK=1 "$LABELAUDIT" "$@" >"$d/out" 2>"$d/err"
    peak=$(sed -n 's/^labelaudit: threads: peak \([0-9]*\), budget [0-9]*$/\1/p' "$d/err")
}
for f in plain.csv plain.csv.gz; do
    "$LABELAUDIT" -j1 --json -n 10 "$d/$f" >"$d/$f.j1"
    thread_peak -v -j2 --json -n 10 "$d/$f"
    [ -n "$peak" ] && [ "$peak" -le 2 ]
    ok $? "$f at -j2: at most 2 threads alive (peak ${peak:-not said})"
    expect_err "$f: read and scanned on this thread: its reader takes the threads of -j itself" \
        "$f at -j2: no reader thread beside the scan"
    expect_err "$f: csv: fast path on two threads" "$f at -j2: the fast path has its helper"
    cmp -s "$d/out" "$d/$f.j1"
    ok $? "$f at -j2: the report of -j1"
done
thread_peak -v -j2 --json -n 10 "$d/plain.csv.gz"
expect_err "plain.csv.gz: gzip: the decompressor's thread goes to the parse" \
    "plain.csv.gz at -j2: the decompressor's thread goes to the parse"
expect_err "plain.csv.gz: csv: fast path on two threads from line [0-9]* (each block in pieces" \
    "plain.csv.gz at -j2: the pieces and the inflating taken in turns"
thread_peak -v -j3 --json -n 10 "$d/plain.csv.gz"
[ -n "$peak" ] && [ "$peak" -le 3 ]
ok $? "plain.csv.gz at -j3: at most 3 threads alive (peak ${peak:-not said})"
expect_err "plain.csv.gz: gzip: decompressed ahead on a thread of its own" \
    "plain.csv.gz at -j3: the decompressor keeps its thread"
expect_err "plain.csv.gz: csv: fast path on two threads from line [0-9]* (a helper parses half" \
    "plain.csv.gz at -j3: and the helper parses halves"
cmp -s "$d/out" "$d/plain.csv.gz.j1"
ok $? "plain.csv.gz at -j3: the report of -j1"

# a gzip stream cut short, read ahead between the pieces: the error of -j1
head -c 400000 "$d/plain.csv.gz" >"$d/cut.csv.gz"
for j in 1 2; do
    run -j$j --json -n 10 "$d/cut.csv.gz"
    echo "$rc $(cat "$d/err")" >"$d/cut.j$j"
done
grep -q '^3 .*cut.csv.gz: byte [0-9]*: gzip data ends early' "$d/cut.j1" && cmp -s "$d/cut.j1" "$d/cut.j2"
ok $? "a cut gzip CSV at -j2: exit 3 and the message of -j1 ($(cat "$d/cut.j2"))"
finish
