#!/bin/sh
# summary.sh BUILDDIR - the closing line CI reads: "N passed, N failed, N skipped".
# Counts every result automake's harness recorded in the .trs files (one per
# TAP point), of this build only: the .trs files under BUILDDIR/tests.
dir=${1:-.}
find "$dir/tests" -name "*.trs" -exec cat {} + 2>/dev/null | awk '
  /^:test-result: (PASS|XFAIL)/ { p++ }
  /^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
  /^:test-result: SKIP/ { s++ }
  END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0) }'
