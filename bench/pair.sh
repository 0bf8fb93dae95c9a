#!/usr/bin/env bash
# pair.sh - two commands timed in turns, on a machine too noisy for one
# after the other: N runs of A, then B, then A... (each with its output
# thrown away), and the median and fastest wall time of each, with their
# ratios. A shared VM's slow minutes hit both alike; the fastest runs show
# what each can do when nothing else runs.
#
#   bench/pair.sh N A-COMMAND... -- B-COMMAND...
#   bench/pair.sh 21 ./labelaudit -j1 -n 10 -q text.csv -- ./labelaudit -j2 -n 10 -q text.csv
. "$(dirname "$0")/lib.sh"
[ $# -ge 4 ] || { echo "usage: bench/pair.sh N A-COMMAND... -- B-COMMAND..." >&2; exit 2; }
n=$1
shift
a=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do a+=("$1"); shift; done
[ $# -gt 1 ] || { echo "bench/pair.sh: no -- before the second command" >&2; exit 2; }
shift
b=("$@")

# wall ARRAY-NAME : one run's wall time in ms
wall() {
    local t0=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || true
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
}
ta=() tb=()
for _ in $(seq "$n"); do
    ta+=("$(wall "${a[@]}")")
    tb+=("$(wall "${b[@]}")")
done
ma=$(printf '%s\n' "${ta[@]}" | median)
mb=$(printf '%s\n' "${tb[@]}" | median)
fa=$(printf '%s\n' "${ta[@]}" | fastest)
fb=$(printf '%s\n' "${tb[@]}" | fastest)
awk -v ma="$ma" -v mb="$mb" -v fa="$fa" -v fb="$fb" -v n="$n" 'BEGIN {
    printf "A: median %.1f ms, fastest %.1f ms (%d runs)\n", ma, fa, n
    printf "B: median %.1f ms, fastest %.1f ms\n", mb, fb
    printf "A/B: %.2f (medians), %.2f (fastest)\n", ma / mb, fa / fb }'
