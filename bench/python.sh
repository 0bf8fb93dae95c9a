#!/usr/bin/env bash
# python.sh - the Python package in make bench: labelaudit.check() on 10^7
# int64 labels (1 in 10,007 out of range) held in memory, against
#   * the numpy one-liner users write: ((y < 0) | (y >= 10)).nonzero(),
#   * the binary on the same labels saved as a .npy file (a subprocess, as
#     check() runs it, its JSON parsed),
# each the best of 7 inside one interpreter (no interpreter start counted).
# check() hands the array over without a copy (python/labelaudit/_handover.py,
# src/stdin_memory.h). Targets: at most 2 times the one-liner, at most 1.5
# times the binary. BENCH_SCALE (1) scales the labels; BENCH_DIR
# (./bench-data) keeps the .npy; BENCH_PYTHON (python3) has numpy; the API
# is the tree's (python/), the binary $LABELAUDIT. Exit status: 0, or 1 when
# a target is missed.
set -u
LABELAUDIT=${LABELAUDIT:-./labelaudit}
PY=${BENCH_PYTHON:-python3}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-./bench-data}/python
here=$(cd "$(dirname "$0")" && pwd)
N=$(awk -v s="$SCALE" 'BEGIN { n = int(10000000 * s); print n < 100000 ? 100000 : n }')
mkdir -p "$DIR"
case $LABELAUDIT in /*) ;; *) LABELAUDIT=$PWD/$LABELAUDIT ;; esac
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "== Python: $PY cannot import numpy: skipped"
    exit 0
fi
echo "== Python: check() on $((N / 1000000))M int64 labels in memory"
LABELAUDIT_BINARY=$LABELAUDIT PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}" \
    "$PY" - "$N" "$DIR/y.npy" "$LABELAUDIT" <<'PY'
import json, subprocess, sys, time
import numpy as np
import labelaudit

n, path, binary = int(sys.argv[1]), sys.argv[2], sys.argv[3]
y = np.arange(n, dtype=np.int64) % 10
y[::10007] = 10
np.save(path, y)

def best(f, runs=7):
    t = min(_timed(f) for _ in range(runs))
    return t

def _timed(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0

def cli():
    run = subprocess.run([binary, "--json", "--num-classes=10", path], capture_output=True)
    return json.loads(run.stdout)

r = labelaudit.check(y, num_classes=10)
assert r.files[0]["invalid"]["count"] == len(y[::10007]), r.files[0]["invalid"]
assert dict(r)["files"][0]["histogram"] == cli()["files"][0]["histogram"]
one_liner = best(lambda: ((y < 0) | (y >= 10)).nonzero())
on_file = best(cli)
check = best(lambda: labelaudit.check(y, num_classes=10))
print(f"{'check()':<26} {check:8.3f} s | numpy one-liner {one_liner:7.3f} s | binary on the .npy {on_file:7.3f} s")
ok = check <= 2 * one_liner and check <= 1.5 * on_file
print(f"  check() / one-liner {check / one_liner:.2f} (target <= 2), "
      f"check() / binary {check / on_file:.2f} (target <= 1.5)")
sys.exit(0 if ok else 1)
PY
