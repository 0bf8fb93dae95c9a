#!/bin/sh
# tsan-csv.sh - the CSV reader's threads under ThreadSanitizer: .ci/run builds
# labelaudit with -fsanitize=thread and runs this, which reads the quoted
# fixtures and a generated text CSV at -j2 and -j3, with reads of 7, 64 and
# 65536 bytes (so that a few KB cross hundreds of blocks and steps, and the
# steps published ahead are dropped and taken), from the file and from a
# pipe, and a 5 MB one whose steps are of full size. A race makes
# ThreadSanitizer exit 66; any exit but 0, 1 (findings) or 3 (a file
# refused) fails. Prints "tsan-csv: N runs, N failed".
#
#   LABELAUDIT=build-tsan/labelaudit sh tests/reliability/tsan-csv.sh
set -u
LA=${LABELAUDIT:?LABELAUDIT=path of a -fsanitize=thread labelaudit}
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# 20000 rows of a text column with quotes doubled and stray, and 1 in 500
# labels not a number (a block stops there: the step after it is dropped)
awk -v rows=20000 -v every=500 -f "${srcdir:-.}/tests/gen/text-csv.awk" >"$d/text.csv"
runs=0 failed=0
# judge RC OK-EXITS WHAT : count a run, and report it unless it exited with
# one of OK-EXITS
judge() {
    runs=$((runs + 1))
    case " $2 " in *" $1 "*) return ;; esac
    failed=$((failed + 1))
    echo "tsan-csv: $3: exit $1"
    head -20 "$d/err"
}
for f in "${srcdir:-.}"/tests/data/quoted/*.csv "$d/text.csv"; do
    for j in -j2 -j3; do
        for block in 7 64 65536; do
            for how in file pipe; do
                if [ $how = pipe ]; then
                    LABELAUDIT_CSV_BLOCK=$block "$LA" $j -n 10 -q - <"$f" >/dev/null 2>"$d/err"
                else
                    LABELAUDIT_CSV_BLOCK=$block "$LA" $j -n 10 -q "$f" >/dev/null 2>"$d/err"
                fi
                judge $? "0 1 3" "$f $j, reads of $block bytes, $how"
            done
        done
    done
done
# Ten times as many rows, in steps of full size: the reader thread takes
# blocks of the step ahead while the last of its own finish (take_ahead),
# and that step is dropped at each label that is not a number.
awk -v rows=200000 -v every=20011 -f "${srcdir:-.}/tests/gen/text-csv.awk" >"$d/big.csv"
for j in -j2 -j2 -j3 -j3; do
    "$LA" $j -n 10 -q "$d/big.csv" >/dev/null 2>"$d/err"
    judge $? "0 1" "big.csv $j"
done
echo "tsan-csv: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
