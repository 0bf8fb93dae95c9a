#!/bin/sh
# tsan-jsonl.sh - the JSON Lines reader's threads under ThreadSanitizer:
# .ci/run builds labelaudit with -fsanitize=thread and runs this. The
# reader's thread adds each record to the map of samples while the scan's
# thread looks up the records of bad items (sample_map.h): lists of 0..19
# ids with one in eleven out of the vocabulary, from a file and from
# a pipe, at -j2 to -j4, and a record of over 2^20 items, which goes out
# before it ends. A race makes ThreadSanitizer exit 66; any exit but 1 (the
# findings) fails, and so does a report unlike -j1's. Prints
# "tsan-jsonl: N runs, N failed".
#
#   LABELAUDIT=build-tsan/labelaudit sh tests/reliability/tsan-jsonl.sh
set -u
LA=${LABELAUDIT:?LABELAUDIT=path of a -fsanitize=thread labelaudit}
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
if ! "$LA" --version | grep -q '^Formats: [^(]* jsonl'; then
    echo "tsan-jsonl: built without yajl, skipped"
    exit 0
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
awk 'BEGIN { srand(41); for (r = 0; r < 20000; r++) { k = int(rand() * 20); s = "";
             for (i = 0; i < k; i++) s = s (i ? ", " : "") int(rand() * 110);
             print "{\"label\": [" s "]}" } }' >"$d/seg.jsonl"
awk 'BEGIN { print "{\"label\": [1, 2]}"; printf "{\"label\": [";
             for (i = 0; i < 1100000; i++) printf "%d, ", (i % 99991 == 5) ? 170 : 0;
             print "0]}"; for (r = 0; r < 3000; r++) print "{\"label\": [" r % 120 ", 3]}" }' \
    >"$d/long.jsonl"
runs=0 failed=0
# judge RC WHAT : count a run, and report it unless it exited 1 with -j1's report
judge() {
    runs=$((runs + 1))
    if [ "$1" -eq 1 ] && cmp -s "$d/out" "$d/want"; then
        return
    fi
    failed=$((failed + 1))
    echo "tsan-jsonl: $2: exit $1"
    head -20 "$d/err"
}
for f in seg.jsonl long.jsonl; do
    "$LA" -j1 --json --max-report 100000 --vocab-size 100 "$d/$f" >"$d/out" 2>"$d/err"
    rc=$?
    cp "$d/out" "$d/want"
    judge $rc "$f -j1"
    for j in -j2 -j3 -j4; do
        "$LA" $j --json --max-report 100000 --vocab-size 100 "$d/$f" >"$d/out" 2>"$d/err"
        judge $? "$f $j"
    done
done
"$LA" -j1 --json --max-report 100000 --vocab-size 100 --format=jsonl - <"$d/seg.jsonl" >"$d/out" 2>"$d/err"
rc=$?
cp "$d/out" "$d/want"
judge $rc "seg.jsonl from a pipe -j1"
for j in -j2 -j4; do
    "$LA" $j --json --max-report 100000 --vocab-size 100 --format=jsonl - <"$d/seg.jsonl" \
        >"$d/out" 2>"$d/err"
    judge $? "seg.jsonl from a pipe $j"
done
echo "tsan-jsonl: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
