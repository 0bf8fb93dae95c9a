#!/usr/bin/env bash
# arrow.sh - Parquet and `datasets` folders in make bench: 10^8 rows (an int64
# label among three other columns, 4 row groups, snappy; 1 label in 10,007
# out of range) and a save_to_disk folder of the same data, read by
# labelaudit against
#   * the limit: bench/limit_arrow.cc, the same library reading only that
#     column on the same threads, with the least check (min, max, out of range),
#   * what users write: pq.read_table(path, columns=['label']) plus the numpy
#     checks, and datasets.load_from_disk(d).with_format('numpy')['label'] plus
#     the same,
# each timed as the command a CI step runs (best of 3), with its peak RSS.
# Targets: within 1.3 times the limit; at least 2 times faster than the
# pyarrow line and 5 times faster than the datasets one; a peak RSS at most
# 32 MiB above the limit program's. BENCH_SCALE (1) scales the rows;
# BENCH_DIR (./bench-data) keeps the data; BENCH_PYTHON (python3) has pyarrow
# and datasets; CXX builds the limit. Exit status: 0, or 1 when a target is missed.
set -u
LABELAUDIT=${LABELAUDIT:-./labelaudit}
PY=${BENCH_PYTHON:-python3}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-./bench-data}/arrow
here=$(cd "$(dirname "$0")" && pwd)
ROWS=$(awk -v s="$SCALE" 'BEGIN { n = int(100000000 * s); print n < 4000 ? 4000 : n }')
THREADS=$(nproc)
failed=0
mkdir -p "$DIR"

if [ "$(cat "$DIR/rows" 2>/dev/null)" != "$ROWS" ]; then
    rm -rf "$DIR" && mkdir -p "$DIR"
    "$PY" - "$DIR" "$ROWS" <<'PYEOF' >/dev/null 2>&1 || { echo "arrow.sh: pyarrow/datasets needed" >&2; exit 1; }
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
out, rows = sys.argv[1], int(sys.argv[2])
per = rows // 4
w = None
for g in range(4):
    i = np.arange(g * per, (g + 1) * per if g < 3 else rows, dtype=np.int64)
    label = i % 1000
    label[i % 10007 == 0] = 1000
    t = pa.table({"id": i, "label": label, "score": (i % 97).astype(np.float64) / 97,
                  "split": (i % 3).astype(np.int8)})
    w = w or pq.ParquetWriter(out + "/train.parquet", t.schema, compression="snappy")
    w.write_table(t, row_group_size=len(i))
w.close()
import datasets
datasets.Dataset.from_parquet(out + "/train.parquet", cache_dir=out + "/cache").save_to_disk(out + "/saved")
PYEOF
    rm -rf "$DIR/cache"
    echo "$ROWS" >"$DIR/rows"
fi
limit="$DIR/limit_arrow"
pyarrow_dir=$("$PY" -c 'import importlib.util as u; print(u.find_spec("pyarrow").submodule_search_locations[0])')
[ "$limit" -nt "$here/limit_arrow.cc" ] ||
    for std in c++17 c++20; do      # Arrow 23 and later need C++20
        ${CXX:-g++} -O2 -std=$std -isystem "$pyarrow_dir/include" -o "$limit" "$here/limit_arrow.cc" \
            "$pyarrow_dir"/libparquet.so.[0-9]* "$pyarrow_dir"/libarrow.so.[0-9]* \
            -Wl,-rpath,"$pyarrow_dir" -pthread 2>/dev/null && break
    done
    [ -x "$limit" ] || exit 1

# best of 3: "SECONDS PEAK_KIB" of a command line
best() {
    local b= m=
    for _ in 1 2 3; do
        local t0 t1 rss
        t0=$(date +%s.%N)
        /usr/bin/time -o "$DIR/rss" -f %M bash -c "$1" >/dev/null 2>&1
        rss=$(tail -1 "$DIR/rss")
        t1=$(date +%s.%N)
        b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { t = z - a; print (b == "" || t < b) ? t : b }')
        m=$rss
    done
    printf '%.3f %s' "$b" "$m"
}
pq_line="$PY -c \"import pyarrow.parquet as pq, numpy as np; y = pq.read_table('$DIR/train.parquet', columns=['label'])['label'].to_numpy(); print(y.min(), y.max(), ((y < 0) | (y >= 1000)).sum())\""
ds_line="$PY -c \"import datasets, numpy as np; y = datasets.load_from_disk('$DIR/saved').with_format('numpy')['label']; y = np.asarray(y); print(y.min(), y.max(), ((y < 0) | (y >= 1000)).sum())\""
row() {   # row NAME LABELAUDIT-PATH LIMIT-PATH USERS-LINE USERS-FACTOR
    local la li us r=$((ROWS / 1000000))
    la=$(best "'$LABELAUDIT' -n 1000 -j $THREADS '$2'")
    li=$(best "'$limit' '$3' label 1000 $THREADS")
    us=$(best "$4")
    set -- "$1" "$2" "$3" "$4" "$5" $la $li $us
    printf '%-26s %8.3f s %6d MiB | limit %7.3f s %6d MiB | users %7.3f s %6d MiB\n' \
        "$1 (${r}M rows)" "$6" $(($7 / 1024)) "$8" $(($9 / 1024)) "${10}" $((${11} / 1024))
    awk -v a="$6" -v l="$8" -v u="${10}" -v f="$5" -v ra="$7" -v rl="$9" 'BEGIN {
        printf "  labelaudit / limit %.2f (target <= 1.3), users / labelaudit %.1f (target >= %d), RSS above the limit %d MiB (target <= 32)\n",
            a / l, u / a, f, (ra - rl) / 1024
        exit !(a <= 1.3 * l && u >= f * a && ra - rl <= 32 * 1024) }' || failed=1
}
echo "== Parquet and datasets folders ($THREADS threads)"
row "parquet, snappy" "$DIR/train.parquet" "$DIR/train.parquet" "$pq_line" 2
row "save_to_disk folder" "$DIR/saved" "$DIR/saved" "$ds_line" 5

# ---- list columns: memory by the batch, not by the rows' lengths or count.
# 70000 rows of 2048 token ids, and 10^7 rows of lengths 1, 2, 1, 2, ...
# (both times BENCH_SCALE): labelaudit's peak RSS against pyarrow's own
# iter_batches over the column. Target: at most pyarrow's, and 256 MiB.
LROWS=$(awk -v s="$SCALE" 'BEGIN { n = int(70000 * s); print n < 2000 ? 2000 : n }')
if [ "$(cat "$DIR/list-rows" 2>/dev/null)" != "$LROWS" ]; then
    "$PY" - "$DIR" "$LROWS" <<'PYEOF' >/dev/null 2>&1 || { echo "arrow.sh: pyarrow needed" >&2; exit 1; }
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
out, n = sys.argv[1], int(sys.argv[2])
def lists(offs, n_vals):
    return pa.ListArray.from_arrays(pa.array(offs), pa.array((np.arange(n_vals) // 7) % 1000))
pq.write_table(pa.table({"input_ids": lists(np.arange(0, n * 2048 + 1, 2048, dtype=np.int64), n * 2048)}),
               out + "/tokens-2048.parquet")
m = n * 1000 // 7 * 2
offs = np.zeros(m + 1, dtype=np.int64)
np.cumsum(np.tile([1, 2], m // 2), out=offs[1:])
pq.write_table(pa.table({"labels": lists(offs, int(offs[-1]))}), out + "/lengths-1-2.parquet")
PYEOF
    echo "$LROWS" >"$DIR/list-rows"
fi
lrow() {   # lrow NAME FILE COLUMN
    local la us
    la=$(best "'$LABELAUDIT' --vocab-size 1000 -j $THREADS '$DIR/$2'")
    us=$(best "$PY -c \"import pyarrow.parquet as pq; [b for b in pq.ParquetFile('$DIR/$2').iter_batches(columns=['$3'])]\"")
    set -- "$1" "$2" "$3" $la $us
    printf '%-26s %8.3f s %6d MiB | pyarrow iter_batches %7.3f s %6d MiB\n' "$1" "$4" $(($5 / 1024)) "$6" $(($7 / 1024))
    awk -v ra="$5" -v ru="$7" 'BEGIN {
        printf "  peak RSS %d MiB (target <= pyarrow %d MiB and <= 256)\n", ra / 1024, ru / 1024
        exit !(ra <= ru && ra <= 256 * 1024) }' || failed=1
}
echo "== list columns: peak RSS"
lrow "2048-token rows" tokens-2048.parquet input_ids
lrow "rows of lengths 1, 2" lengths-1-2.parquet labels
exit $failed
