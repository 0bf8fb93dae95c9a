#!/bin/sh
# batching-options.sh - batch-size suggestions simulated with the run's own
# --drop-last (the full grid is tests/unit/test_batching_torch), on label
# files no sample has. The numeric options' usage errors and the note for
# batching options given without -b are tests/cases/ (usage-2p63-*,
# usage-batch-size-*, usage-past-2p64, usage-threads-5000,
# usage-ignore-index-below-int64, batch-size-2p63-1, note-*).
. "$srcdir/tests/setup.sh"
printf '0\n1\n0\n1\n0\n' >"$d/five.txt"
seq 1 43 | sed 's/.*/0/' >"$d/43.txt"

echo "# --- suggestions simulated with the run's own --drop-last"
run --json -b 3 --drop-last --min-batch 4 "$d/five.txt"
expect_json '[.files[0].batching.suggestions[] | "\(.batch_size):\(.last_batch)"] | join(",")' \
    "4:4,5:5" "5 samples, -b 3 --drop-last --min-batch 4: 4 and 5, not 6"
run --json -b 1 --drop-last "$d/43.txt"
expect_json '[.files[0].batching.suggestions[] | "\(.batch_size):\(.last_batch)"] | join(",")' \
    "2:2" "43 samples, -b 1 --drop-last: 2 (21 batches of 2)"
run -b 1 --drop-last "$d/43.txt"
expect_out "Fix: batch_size 2 (last 2)" "the text report names it"
finish
