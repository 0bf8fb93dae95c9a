#!/usr/bin/env bash
# wds.sh - the WebDataset goal, in make bench: 64 shards of 10,000
# samples (a small fake image and a cls label each), read as one dataset
# (--concat) by labelaudit, against
#   * tar -tvf listing the same shards (the floor: reading every header),
#   * tar -xOf piping the .cls members to awk (what a shell user writes; a
#     timing only: the members' bytes run together without newlines),
#   * the webdataset package iterating the shards in Python (where installed).
# Targets: labelaudit within 1.3 times tar -tvf, at least 10 times faster than
# the Python iteration. BENCH_SCALE (1) scales the shard count; BENCH_DIR
# (./bench-data) keeps the shards; BENCH_PYTHON (python3) runs the generator
# and webdataset. Exit status: 0, or 1 when a target is missed.
set -u
LABELAUDIT=${LABELAUDIT:-./labelaudit}
PY=${BENCH_PYTHON:-python3}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-./bench-data}/wds
SHARDS=$(awk -v s="$SCALE" 'BEGIN { n = int(64 * s); print n < 2 ? 2 : n }')
PER_SHARD=10000
failed=0

# The shards: Python's tarfile writes what webdataset's TarWriter writes (ustar
# members named KEY.jpg and KEY.cls); one label in 10,007 is out of range.
if [ "$(cat "$DIR/shards.count" 2>/dev/null)" != "$SHARDS" ]; then
    rm -rf "$DIR" && mkdir -p "$DIR"
    "$PY" - "$DIR" "$SHARDS" "$PER_SHARD" <<'EOF' || exit 1
import io, os, sys, tarfile
out, shards, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
jpg = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 3 + b"\xff\xd9"
def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size, info.mtime = len(data), 0
    tar.addfile(info, io.BytesIO(data))
for s in range(shards):
    with tarfile.open(os.path.join(out, "shard-%06d.tar" % s), "w", format=tarfile.USTAR_FORMAT) as tar:
        for i in range(per):
            n = s * per + i
            add(tar, "%09d.jpg" % n, jpg)
            add(tar, "%09d.cls" % n, str(1000 if n % 10007 == 0 else n % 1000).encode())
EOF
    echo "$SHARDS" >"$DIR/shards.count"
fi
shards=("$DIR"/shard-*.tar)
want_bad=$(awk -v n=$((SHARDS * PER_SHARD)) 'BEGIN { print int((n - 1) / 10007) + 1 }')

# best of 3 wall-clock seconds of a command line
best() {
    local b=
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s.%N)
        eval "$1" >/dev/null 2>&1
        t1=$(date +%s.%N)
        b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { t = z - a; print (b == "" || t < b) ? t : b }')
    done
    printf '%.3f' "$b"
}

got_bad=$("$LABELAUDIT" --json -n 1000 --concat "${shards[@]}" | "$PY" -c \
    'import json,sys; print(json.load(sys.stdin)["files"][0]["invalid"]["count"])')
[ "$got_bad" = "$want_bad" ] || { echo "wds.sh: labelaudit found $got_bad bad labels, want $want_bad" >&2; failed=1; }

t_la=$(best "'$LABELAUDIT' -q -n 1000 --concat ${shards[*]}")
t_tar=$(best "for f in ${shards[*]}; do tar -tvf \$f; done")
t_awk=$(best "for f in ${shards[*]}; do tar -xOf \$f --wildcards '*.cls'; echo; done | awk '\$1 >= 1000 { n++ } END { print n }'")
t_py=
if "$PY" -c 'import webdataset' 2>/dev/null; then
    t_py=$(best "'$PY' -c 'import sys, webdataset as wds
n = sum(int(s[\"cls\"]) >= 1000 for s in wds.WebDataset(sys.argv[1:], shardshuffle=False))
print(n)' ${shards[*]}")
fi

echo "| $SHARDS shards x $PER_SHARD samples | wall s |"
echo "|---|---|"
echo "| labelaudit -q -n 1000 --concat | $t_la |"
echo "| tar -tvf (each shard) | $t_tar |"
echo "| tar -xOf '*.cls' + awk | $t_awk |"
[ -n "$t_py" ] && echo "| webdataset (Python) | $t_py |"
ratio=$(awk -v a="$t_la" -v b="$t_tar" 'BEGIN { printf "%.2f", a / b }')
verdict=PASS
awk -v r="$ratio" 'BEGIN { exit !(r <= 1.3) }' || { verdict=MISS; failed=1; }
echo "target: within 1.3x tar -tvf: ${ratio}x $verdict"
if [ -n "$t_py" ]; then
    speedup=$(awk -v a="$t_la" -v p="$t_py" 'BEGIN { printf "%.1f", p / a }')
    verdict=PASS
    awk -v s="$speedup" 'BEGIN { exit !(s >= 10) }' || { verdict=MISS; failed=1; }
    echo "target: 10x faster than webdataset: ${speedup}x $verdict"
else
    echo "target: 10x faster than webdataset: skipped (no webdataset for $PY)"
fi
exit "$failed"
