#!/usr/bin/env bash
# tokens.sh - the language-model token goal, in make bench: a 4 GB uint16
# nanoGPT train.bin (2*10^9 ids) and the same ids as a Megatron pair (the
# .bin is the same file, hard-linked; bench/gen_tokens.c writes both), read by
#   * labelaudit --format=raw --dtype uint16 --vocab-size V (and the .idx),
#   * the limit: bench/limit_tokens.c, a plain C read + range check of the
#     same bytes on the same 2 threads,
#   * what users write: np.memmap(...).max() and (a >= V).nonzero(),
#   * megatron-core's IndexedDataset iterated (where megatron-core imports).
# Targets: labelaudit on train.bin within 1.2 times the limit, at least 5
# times faster than the numpy one-liner, peak RSS under 64 MiB.
# BENCH_SCALE (1) scales the id count; BENCH_DIR (./bench-data) keeps the
# files; BENCH_PYTHON (python3) runs numpy and megatron-core; CC builds the
# generator and the limit. Exit status: 0, or 1 when a target is missed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
CC=${CC:-cc}
PY=${BENCH_PYTHON:-python3}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-./bench-data}/tokens
V=50304
COUNT=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 2e9 * s }')
mkdir -p "$DIR"
"$CC" -O2 -o "$DIR/gen_tokens" "$here/gen_tokens.c"
"$CC" -O2 -pthread -o "$DIR/limit_tokens" "$here/limit_tokens.c"
if [ "$(cat "$DIR/count" 2>/dev/null)" != "$COUNT" ]; then
    rm -f "$DIR/train.bin" "$DIR/tokens.bin" "$DIR/tokens.idx"
    "$DIR/gen_tokens" "$DIR/tokens" "$COUNT" $V 2048 >"$DIR/want_bad"
    ln "$DIR/tokens.bin" "$DIR/train.bin"
    echo "$COUNT" >"$DIR/count"
fi
want_bad=$(cat "$DIR/want_bad")
cat "$DIR/train.bin" >/dev/null           # every tool reads it from the page cache
HARNESS_SECS=$(harness_secs)

la_bin="'$LABELAUDIT' -q -j 2 --format=raw --dtype=uint16 --vocab-size=$V '$DIR/train.bin'"
la_idx="'$LABELAUDIT' -q -j 2 --vocab-size=$V '$DIR/tokens.idx'"
lim="'$DIR/limit_tokens' '$DIR/train.bin' $V 2"
np_max="'$PY' -c 'import numpy as np, sys; a = np.memmap(sys.argv[1], dtype=np.uint16, mode=\"r\"); print(a.max())' '$DIR/train.bin'"
np_nz="'$PY' -c 'import numpy as np, sys; a = np.memmap(sys.argv[1], dtype=np.uint16, mode=\"r\"); print(len((a >= $V).nonzero()[0]))' '$DIR/train.bin'"
mc="'$PY' -c 'import sys; sys.path.insert(0, sys.argv[2]); from gen_tokens import mi; import numpy as np
d = mi.IndexedDataset(sys.argv[1]); print(sum(int((d[i] >= $V).sum()) for i in range(len(d))))' '$DIR/tokens' '$here/../tests'"

# the median of 3 runs: seconds, peak RSS MiB, and the last run's output
measure() {
    local ts=() rs=()
    for _ in 1 2 3; do
        timed "$1"
        ts+=("$secs")
        rs+=("$rss_kb")
    done
    t=$(printf '%s\n' "${ts[@]}" | median)
    r=$(printf '%s\n' "${rs[@]}" | median | awk '{ printf "%.1f", $1 / 1024 }')
    o=$(head -1 "$DIR/out")
}
failed=0
"$LABELAUDIT" --json --format=raw --dtype=uint16 --vocab-size=$V "$DIR/train.bin" >"$DIR/report.json" || true
got=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["files"][0]["invalid"]["above"])' "$DIR/report.json")
[ "$got" = "$want_bad" ] || { echo "tokens.sh: labelaudit found $got ids >= V, want $want_bad" >&2; failed=1; }

echo "| $COUNT uint16 ids ($(du -h "$DIR/train.bin" | cut -f1)) | median s | peak RSS MiB | result |"
echo "|---|---|---|---|"
measure "$la_bin"; t_la=$t; r_la=$r; echo "| labelaudit --format=raw --dtype uint16 -j 2 train.bin | $t | $r | exit status |"
measure "$lim"; t_lim=$t; echo "| C limit (read + range check, 2 threads) | $t | $r | $o |"
measure "$la_idx"; t_mt=$t; r_mt=$r; echo "| labelaudit -j 2 tokens.idx (Megatron) | $t | $r | exit status |"
measure "$np_max"; t_np=$t; echo "| np.memmap(...).max() | $t | $r | $o |"
measure "$np_nz"; t_nz=$t; echo "| (np.memmap(...) >= V).nonzero() | $t | $r | $o |"
if "$PY" -c "import sys; sys.path.insert(0, '$here/../tests'); import gen_tokens" 2>/dev/null; then
    measure "$mc"; echo "| megatron-core IndexedDataset iterated | $t | $r | $o |"
fi
verdict() {   # verdict NAME VALUE OP TARGET
    if awk -v a="$2" -v b="$4" "BEGIN { exit !(a $3 b) }"; then echo "$1: $2 (target $3 $4): PASS"
    else echo "$1: $2 (target $3 $4): FAIL"; failed=1; fi
}
verdict "train.bin labelaudit/limit" "$(awk -v a="$t_la" -v b="$t_lim" 'BEGIN { printf "%.2f", a / b }')" "<=" 1.2
verdict "train.bin numpy max/labelaudit" "$(awk -v a="$t_np" -v b="$t_la" 'BEGIN { printf "%.2f", a / b }')" ">=" 5
verdict "train.bin (a >= V).nonzero()/labelaudit" "$(awk -v a="$t_nz" -v b="$t_la" 'BEGIN { printf "%.2f", a / b }')" ">=" 5
verdict "train.bin peak RSS MiB" "$r_la" "<" 64
verdict "tokens.idx peak RSS MiB" "$r_mt" "<" 64
echo "(Megatron: labelaudit/limit $(awk -v a="$t_mt" -v b="$t_lim" 'BEGIN { printf "%.2f", a / b }'))"
exit $failed
