#!/bin/sh
# dense-bad.sh - files whose bad entries are scattered densely (masks with
# forgotten 255 pixels, 1-based labels) give the same JSON, byte for byte, at
# every -j, as the committed reports in tests/data/dense/. Those were made by
# the reference fold, before the CPU scan learned to count dense bad entries
# without their positions; LABELAUDIT_REGEN=1 remakes them (review the diff).
# The inputs come from bench/gen, which is deterministic.
. "$srcdir/tests/setup.sh"

gen="$builddir/bench/gen"
want="$srcdir/tests/data/dense"
cd "$d" || exit 1
"$gen" npy-mask-scattered masks5.npy 20 128 128 21 50000 >/dev/null      # 5%, stride 16384
"$gen" npy-mask-scattered masks01.npy 64 128 128 21 1000 >/dev/null      # 0.1%, > 1000 bad
"$gen" npy-mask-scattered rows7.npy 40000 1 7 21 30000 >/dev/null        # 3%, stride 7
"$gen" npy-int64-1based labels1.npy 300000 10 >/dev/null                 # 10%, stride 1

# same_report NAME ARGS... : .files of --json (the version aside) at -j1..3
same_report() {
    name=$1
    shift
    for j in 1 2 3; do
        "$LABELAUDIT" -j$j --json --no-progress "$@" >"$name.j$j.out" 2>&1
        jq -c -S '.files' "$name.j$j.out" >"$name.j$j.json" 2>&1
        if [ "${LABELAUDIT_REGEN:-0}" = 1 ] && [ $j = 1 ]; then
            cp "$name.j1.json" "$want/$name.json"
        fi
        cmp -s "$want/$name.json" "$name.j$j.json"
        ok $? "$name -j$j: $* gives the committed report"
    done
}

same_report masks5 -n 21 --max-report=100 masks5.npy
same_report masks5-ignore -n 21 --ignore-index=255 masks5.npy
same_report masks01 -n 21 masks01.npy
same_report masks01-few -n 21 --max-report=3 masks01.npy
same_report rows7 -n 21 --max-report=50 rows7.npy
same_report labels1 -n 10 --max-report=100 labels1.npy
same_report labels1-few -n 10 --max-report=0 labels1.npy

# --indices-out needs every position: the same list at every -j, and all of them
for j in 1 2 3; do
    "$LABELAUDIT" -j$j -n 21 --indices-out="idx$j.tsv" masks5.npy >/dev/null 2>&1
done
cmp -s idx1.tsv idx2.tsv && cmp -s idx1.tsv idx3.tsv
ok $? "--indices-out: -j1, -j2 and -j3 list the same entries"
[ "$(grep -c . idx1.tsv)" -ge 16369 ]
ok $? "--indices-out lists every bad entry of masks5.npy ($(grep -c . idx1.tsv) lines)"

finish
