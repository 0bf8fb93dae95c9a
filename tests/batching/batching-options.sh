#!/bin/sh
# batching-options.sh - the numeric options' usage errors, the note
# for batching options given without -b, and batch-size suggestions simulated
# with the run's own --drop-last (the full grid is tests/unit/test_batching_torch).
. "$srcdir/tests/setup.sh"
printf '0\n1\n0\n1\n0\n' >"$d/five.txt"
seq 1 43 | sed 's/.*/0/' >"$d/43.txt"

echo "# --- a number too large is out of range, not 'not a positive integer'"
for opt in -b --batch-size --world-size --min-batch --max-report -n --num-classes; do
    run "$opt" 9223372036854775808 "$d/five.txt"
    expect_status 2 "$opt 2^63 is a usage error"
    expect_err "out of range: at most 9223372036854775807" "$opt 2^63 says out of range"
done
run -b 99999999999999999999999999 "$d/five.txt"
expect_err "invalid --batch-size '99999999999999999999999999' (out of range" \
    "a number past 2^64 is out of range too"
run -j 5000 "$d/five.txt"
expect_err "invalid --threads '5000' (out of range: at most 1024)" "-j above 1024 is out of range"
run --ignore-index -9223372036854775809 "$d/five.txt"
expect_status 2 "--ignore-index below int64 is a usage error"
expect_err "out of range: -9223372036854775808 to 9223372036854775807" \
    "--ignore-index below int64 says out of range"
for bad in 0 -3 x 1.5 ''; do
    run -b "$bad" "$d/five.txt"
    expect_err "invalid --batch-size '$bad' (expected a positive integer)" \
        "-b '$bad' is not a positive integer"
done
run -b 9223372036854775807 "$d/five.txt"
expect_status 0 "-b 2^63-1 is accepted"

echo "# --- batching options without -b do nothing, and a note says so"
run --world-size 2 "$d/five.txt"
expect_status 0 "--world-size without -b: exit status unchanged"
expect_err "note: --world-size does nothing without -b/--batch-size" "--world-size alone: a note"
run --drop-last --sampler-drop-last --min-batch 3 "$d/five.txt"
expect_err "note: --drop-last, --sampler-drop-last and --min-batch do nothing without -b" \
    "several: one note naming them"
run --json --drop-last "$d/five.txt"
expect_json '.files[0].batching' "null" "--json: still no batching block"
expect_err "note: --drop-last does nothing" "--json: the note is on stderr"
run --drop-last -b 2 "$d/five.txt"
[ ! -s "$d/err" ]
ok $? "with -b: no note"
run -q --drop-last "$d/five.txt"
[ ! -s "$d/err" ]
ok $? "-q: no note"

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
