#!/usr/bin/env bash
# shards.sh - sharded token datasets in make bench: an MDS folder and a
# LitData (TokensLoader) folder of 10^8 uint16 token ids (200 MB; samples of
# 2048 ids in 64 MiB shards, one id in 10^6 at V = 50304), read by labelaudit
# --vocab-size-style (-n 50304) against
#   * labelaudit --format=raw over the same ids in one file (the limit: the
#     scan of the same values, with no shard to parse), and cat to /dev/null,
#   * what users write: numpy over every sample (np.frombuffer of each
#     sample's bytes, by the offsets table; (a >= V).sum()), in Python.
# Targets: labelaudit within 1.2x of the raw scan, at least 2x faster than
# the numpy loop (an idealized one: StreamingDataset's own iteration costs
# far more per sample). BENCH_SCALE (1) scales the token count; BENCH_DIR (./bench-data)
# keeps the folders; BENCH_PYTHON (python3, with numpy) writes them in the
# layout MDSWriter and litdata.optimize write (tests/gen/gen_shards.py checks the
# readers against those writers). Exit status: 0, or 1 when a target is missed.
set -u
LABELAUDIT=${LABELAUDIT:-./labelaudit}
PY=${BENCH_PYTHON:-python3}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-./bench-data}/shards
TOKENS=$(awk -v s="$SCALE" 'BEGIN { n = int(100000000 * s); print n < 1000000 ? 1000000 : n }')
failed=0

if [ "$(cat "$DIR/tokens.count" 2>/dev/null)" != "$TOKENS" ]; then
    rm -rf "$DIR" && mkdir -p "$DIR/mds" "$DIR/litdata"
    "$PY" - "$DIR" "$TOKENS" <<'EOF' || exit 1
import json, os, struct, sys
import numpy as np
out, tokens = sys.argv[1], int(sys.argv[2])
V, L, PER = 50304, 2048, (64 << 20) // 4096
rng = np.random.default_rng(0)
ids = rng.integers(0, V, size=tokens, dtype=np.uint16)
ids[::1000000] = V
samples = [ids[i:i + L] for i in range(0, tokens, L)]
def container(items, gap=b""):
    n = len(items)
    offs = np.cumsum([4 + 4 * (n + 1) + len(gap)] + [len(x) for x in items]).astype(np.uint32)
    return struct.pack("<I", n) + offs.tobytes() + gap + b"".join(items)
cols = {"column_encodings": ["ndarray:uint16"], "column_names": ["tokens"], "column_sizes": [None]}
shards, chunks = [], []
for k in range(0, len(samples), PER):
    part = samples[k:k + PER]
    name = "shard.%05d.mds" % (k // PER)
    # ndarray:uint16 with no fixed shape: ndim 1 << 2 | uint16 shape (code 1), the shape, the ids
    items = [struct.pack("<IBH", s.nbytes + 3, 1 << 2 | 1, len(s)) + s.tobytes() for s in part]
    with open(os.path.join(out, "mds", name), "wb") as f:
        f.write(container(items, json.dumps(cols).encode()))
    shards.append(dict(cols, compression=None, format="mds", hashes=[], samples=len(part),
                       size_limit=1 << 26, version=2, zip_data=None,
                       raw_data={"basename": name, "bytes": 0, "hashes": {}}))
    name = "chunk-0-%d.bin" % (k // PER)
    with open(os.path.join(out, "litdata", name), "wb") as f:
        f.write(container([s.tobytes() for s in part]))
    chunks.append({"chunk_bytes": 0, "chunk_size": len(part), "dim": int(sum(len(s) for s in part)),
                   "filename": name})
json.dump({"shards": shards, "version": 2}, open(os.path.join(out, "mds", "index.json"), "w"))
json.dump({"chunks": chunks, "config": {"compression": None, "data_format": ["no_header_numpy:5"],
           "encryption": None, "item_loader": "TokensLoader", "data_spec": None}},
          open(os.path.join(out, "litdata", "index.json"), "w"))
EOF
    cat "$DIR"/litdata/chunk-*.bin >"$DIR/all.u16"   # the headers are a few ids more
    echo "$TOKENS" >"$DIR/tokens.count"
fi
want_bad=$(awk -v n="$TOKENS" 'BEGIN { print int((n - 1) / 1000000) + 1 }')

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

# the numpy loop: every sample by the offsets table (the MDS sample's size and shape skipped)
numpy_loop() {
    printf '%s' "'$PY' -c 'import glob, sys, numpy as np
n = 0
for f in sorted(glob.glob(sys.argv[1] + \"/*.[bm]*\")):
    b = open(f, \"rb\").read()
    k = int(np.frombuffer(b, np.uint32, 1)[0])
    offs = np.frombuffer(b, np.uint32, k + 1, 4)
    skip = int(sys.argv[2])
    for i in range(k):
        a = np.frombuffer(b, np.uint16, (int(offs[i + 1]) - int(offs[i]) - skip) // 2, int(offs[i]) + skip)
        n += int((a >= 50304).sum())
print(n)' '$1' $2"
}

for fmt in mds litdata; do
    got_bad=$("$LABELAUDIT" --json -n 50304 --format=$fmt -c tokens "$DIR/$fmt" | "$PY" -c \
        'import json,sys; print(json.load(sys.stdin)["files"][0]["invalid"]["count"])')
    [ "$got_bad" = "$want_bad" ] || { echo "shards.sh: $fmt: $got_bad bad ids, want $want_bad" >&2; failed=1; }
done
t_mds=$(best "'$LABELAUDIT' -q -n 50304 --format=mds -c tokens '$DIR/mds'")
t_lit=$(best "'$LABELAUDIT' -q -n 50304 --format=litdata '$DIR/litdata'")
t_raw=$(best "'$LABELAUDIT' -q -n 50304 --format=raw --dtype uint16 '$DIR/all.u16'")
t_cat=$(best "cat '$DIR'/mds/*.mds")
t_np=$(best "$(numpy_loop "$DIR/mds" 7)")

echo "| $TOKENS uint16 ids, samples of 2048 | wall s |"
echo "|---|---|"
echo "| labelaudit --format=mds | $t_mds |"
echo "| labelaudit --format=litdata | $t_lit |"
echo "| labelaudit --format=raw, the same ids in one file | $t_raw |"
echo "| cat shards > /dev/null | $t_cat |"
echo "| numpy per sample (Python) | $t_np |"
for t in "mds $t_mds" "litdata $t_lit"; do
    ratio=$(awk -v a="${t#* }" -v b="$t_raw" 'BEGIN { printf "%.2f", a / b }')
    verdict=PASS
    awk -v r="$ratio" 'BEGIN { exit !(r <= 1.2) }' || { verdict=MISS; failed=1; }
    echo "target: ${t% *} within 1.2x the raw scan: ${ratio}x $verdict"
done
speedup=$(awk -v a="$t_mds" -v p="$t_np" 'BEGIN { printf "%.1f", p / a }')
verdict=PASS
awk -v s="$speedup" 'BEGIN { exit !(s >= 2) }' || { verdict=MISS; failed=1; }
echo "target: 2x faster than the numpy loop: ${speedup}x $verdict"
exit "$failed"
