#!/usr/bin/env bash
# datasets.sh - the datasets' memory and merge goals, in make bench:
#   * a directory of 100,000 small .npy files (two 3x4 uint8 masks each) in
#     under 64 MiB peak RSS with -q, --json and the text report;
#   * --merge of 10,000 shard reports in under a second.
# BENCH_SCALE (1) scales the counts; BENCH_DIR (./bench-data) keeps the files.
# Exit status: 0, or 1 when a target is missed.
set -u
LABELAUDIT=${LABELAUDIT:-./labelaudit}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-./bench-data}/datasets
MAX_RSS_KB=$((64 * 1024))
FILES=$(awk -v s="$SCALE" 'BEGIN { n = int(100000 * s); print n < 10 ? 10 : n }')
SHARDS=$(awk -v s="$SCALE" 'BEGIN { n = int(10000 * s); print n < 10 ? 10 : n }')
[ -x /usr/bin/time ] || { echo "datasets.sh: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
failed=0

# one .npy of shape (2, 3, 4) uint8, pixel 7 of mask 1 set to 30 (out of range for -n 21)
mkdir -p "$DIR"
one=$DIR/one.npy
{
    printf '\223NUMPY\001\000v\000'
    printf "%-117s\n" "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 4), }"
    printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\036\0\0\0\0'
} >"$one"

if [ "$(cat "$DIR/files.count" 2>/dev/null)" != "$FILES" ]; then
    rm -rf "$DIR/many"
    mkdir -p "$DIR/many"
    # 100 folders of FILES/100 files: hard links, so the files cost no blocks
    awk -v n="$FILES" -v dir="$DIR/many" -v one="$one" 'BEGIN {
        for (i = 0; i < n; i++) printf "%s %s/d%03d/m%06d.npy\n", one, dir, i % 100, i }' |
        while read -r src dst; do
            mkdir -p "${dst%/*}"
            ln "$src" "$dst" 2>/dev/null || cp "$src" "$dst"
        done
    echo "$FILES" >"$DIR/files.count"
fi

echo "| run | wall s | peak RSS MiB | target |"
echo "|---|---|---|---|"
for mode in -q --json text; do
    opt=$mode
    [ "$mode" = text ] && opt=
    /usr/bin/time -f '%e %M' -o "$DIR/time" "$LABELAUDIT" $opt -n 21 "$DIR/many" \
        >"$DIR/out" 2>"$DIR/err"
    read -r secs kb < <(tail -n 1 "$DIR/time")   # after "Command exited with non-zero status 1"
    verdict=ok
    [ "$kb" -le "$MAX_RSS_KB" ] || { verdict=MISSED; failed=1; }
    printf '| %s files, %s | %s | %s | < 64 MiB: %s |\n' "$FILES" "$mode" "$secs" \
        "$((kb / 1024))" "$verdict"
done

# shard reports: one per file of a list of SHARDS small text files
if [ "$(cat "$DIR/shards.count" 2>/dev/null)" != "$SHARDS" ]; then
    rm -rf "$DIR/reports"
    mkdir -p "$DIR/reports"
    printf '0\n1\n2\n' >"$DIR/s.txt"
    "$LABELAUDIT" --json -n 3 "$DIR/s.txt" >"$DIR/r.json"
    i=0
    while [ $i -lt "$SHARDS" ]; do
        ln "$DIR/r.json" "$DIR/reports/$(printf %06d $i).json" 2>/dev/null ||
            cp "$DIR/r.json" "$DIR/reports/$(printf %06d $i).json"
        i=$((i + 1))
    done
    echo "$SHARDS" >"$DIR/shards.count"
fi
/usr/bin/time -f '%e %M' -o "$DIR/time" "$LABELAUDIT" --json --merge "$DIR"/reports/*.json \
    >"$DIR/out" 2>"$DIR/err"
read -r secs kb < <(tail -n 1 "$DIR/time")
verdict=ok
awk -v s="$secs" 'BEGIN { exit !(s < 1.0) }' || { verdict=MISSED; failed=1; }
printf '| --merge of %s shard reports | %s | %s | < 1 s: %s |\n' "$SHARDS" "$secs" \
    "$((kb / 1024))" "$verdict"
exit $failed
