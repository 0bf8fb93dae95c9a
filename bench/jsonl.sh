#!/usr/bin/env bash
# jsonl.sh - JSON Lines in make bench: 10^7 records as Dataset.to_json and
# pandas write them ({"id": ..., "text": ..., "label": ...}; 1 label in
# 10,007 out of range), read by labelaudit against
#   * the limit: bench/limit_jsonl.c, yajl alone over the same bytes, each
#     record's label checked with the least work,
#   * what users write: pandas.read_json(lines=True) plus the numpy checks,
# each timed as the command a CI step runs (best of 3), with its peak RSS.
# Targets: within 1.6 times the limit (labelaudit holds a record to one line
# and a queue of chunks the limit does without); at least 5 times faster
# than pandas; a peak RSS at most 32 MiB above the limit's. BENCH_SCALE (1)
# scales the records; BENCH_DIR (./bench-data) keeps the data; BENCH_PYTHON
# (python3) has pandas; CC builds the limit. Exit status: 0, or 1 when a target is missed.
set -u
LABELAUDIT=${LABELAUDIT:-./labelaudit}
PY=${BENCH_PYTHON:-python3}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-./bench-data}/jsonl
here=$(cd "$(dirname "$0")" && pwd)
ROWS=$(awk -v s="$SCALE" 'BEGIN { n = int(10000000 * s); print n < 4000 ? 4000 : n }')
mkdir -p "$DIR"

if [ "$(cat "$DIR/rows" 2>/dev/null)" != "$ROWS" ]; then
    awk -v n="$ROWS" 'BEGIN { for (i = 0; i < n; i++)
        printf "{\"id\":%d,\"text\":\"sample number %d\",\"label\":%d}\n", i, i, i % 10007 ? i % 1000 : 1000 }' \
        >"$DIR/train.jsonl" || exit 1
    echo "$ROWS" >"$DIR/rows"
fi
limit="$DIR/limit_jsonl"
[ "$limit" -nt "$here/limit_jsonl.c" ] || ${CC:-cc} -O2 -o "$limit" "$here/limit_jsonl.c" -lyajl || exit 1

# best of 3: "SECONDS PEAK_KIB" of a command line
best() {
    local b= m=
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s.%N)
        /usr/bin/time -o "$DIR/rss" -f %M bash -c "$1" >/dev/null 2>&1
        t1=$(date +%s.%N)
        b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { t = z - a; print (b == "" || t < b) ? t : b }')
        m=$(tail -1 "$DIR/rss")
    done
    printf '%.3f %s' "$b" "$m"
}
f="$DIR/train.jsonl"
pd_line="$PY -c \"import pandas as pd; y = pd.read_json('$f', lines=True)['label'].to_numpy(); print(y.min(), y.max(), ((y < 0) | (y >= 1000)).sum())\""
echo "== JSON Lines ($((ROWS / 1000000))M records, $(($(wc -c <"$f") / 1048576)) MiB)"
set -- $(best "'$LABELAUDIT' -n 1000 '$f'") $(best "'$limit' '$f' 1000") $(best "$pd_line")
printf '%-26s %8.3f s %6d MiB | limit %7.3f s %6d MiB | pandas %7.3f s %6d MiB\n' \
    "jsonl" "$1" $(($2 / 1024)) "$3" $(($4 / 1024)) "$5" $(($6 / 1024))
awk -v a="$1" -v l="$3" -v u="$5" -v ra="$2" -v rl="$4" 'BEGIN {
    printf "  labelaudit / limit %.2f (target <= 1.6), pandas / labelaudit %.1f (target >= 5), RSS above the limit %d MiB (target <= 32)\n",
        a / l, u / a, (ra - rl) / 1024
    exit !(a <= 1.6 * l && u >= 5 * a && ra - rl <= 32 * 1024) }'
