#!/usr/bin/env bash
# splits.sh - the splits goal in make bench: a dataset of three splits
# (train/, val/, test/ of CSV files, 10^7 labels in all, 80/10/10) audited
# as one root, split by split and then across them (class-unseen-in-train,
# label-drift, split-overlap), in at most 1.1 times the time of auditing the
# three splits one by one: the checks across splits add no pass over the
# labels (they compare the histograms the scan built, and walk the file
# names). The median of BENCH_RUNS (5) runs each. Environment as run.sh:
# LABELAUDIT, BENCH_DIR, BENCH_SCALE (1: 10^7 labels), BENCH_RUNS.
# Exit 1 when the goal is missed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"   # strict mode, LABELAUDIT's absolute path, timed, median
DIR=${BENCH_DIR:-bench-data}/splits
RUNS=${BENCH_RUNS:-5}
SCALE=${BENCH_SCALE:-1}
GEN=${GEN:-$(dirname "$LABELAUDIT")/bench/gen}
GOAL=1.1
total=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 1e7 * s }')
mkdir -p "$DIR/root/train" "$DIR/root/val" "$DIR/root/test"
# (classes 10, 9 and 8: the generator's sequence is the same for each file,
# and three splits that are prefixes of each other are not a dataset)
for split in train:80:10 val:10:9 test:10:8; do
    IFS=: read -r name share classes <<<"$split"
    f="$DIR/root/$name/labels.csv"
    [ -s "$f" ] || "$GEN" csv "$f" $((total * share / 100)) "$classes" >/dev/null
done
HARNESS_SECS=$(harness_secs)
whole=() apart=()
for _ in $(seq "$RUNS"); do
    timed "'$LABELAUDIT' -n 10 -b 32 '$DIR/root'"
    whole+=("$secs")
    timed "for s in train val test; do '$LABELAUDIT' -n 10 -b 32 '$DIR/root/'\$s; done"
    apart+=("$secs")
done
w=$(printf '%s\n' "${whole[@]}" | median)
a=$(printf '%s\n' "${apart[@]}" | median)
ratio=$(awk -v w="$w" -v a="$a" 'BEGIN { printf "%.2f", (a > 0 ? w / a : 0) }')
echo "## Splits: 3 splits of CSV, $total labels (load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| run | seconds | |"
echo "|---|---:|---|"
echo "| the root: 3 reports and the checks across them | $w | |"
echo "| the 3 splits one by one | $a | |"
if awk -v r="$ratio" -v g="$GOAL" 'BEGIN { exit !(r <= g) }'; then
    echo "| ratio | $ratio | ok (goal <= $GOAL) |"
else
    echo "| ratio | $ratio | MISS (goal <= $GOAL) |"
    exit 1
fi
