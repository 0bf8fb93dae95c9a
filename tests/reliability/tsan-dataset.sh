#!/bin/sh
# tsan-dataset.sh - a folder's files audited several at a time, under
# ThreadSanitizer: .ci/run builds labelaudit with -fsanitize=thread and runs
# this over a folder (and a --concat list) of HDF5 and MATLAB files (the
# readers of libhdf5 and libmatio, which formats.c flags to take turns: one
# such file open at a time), quoted CSV files (parsed on the pool while
# those are read), PNG masks (each thread decodes into the buffer of its
# last) and a few that each reader refuses (libmatio logs its error through
# a callback), at -j2 to -j4. A race makes ThreadSanitizer exit
# 66; any exit but 1 (findings) or 3 (a file refused) fails, as does a run
# whose report lost a file. Prints "tsan-dataset: N runs, N failed".
# Without the turns, the first run already stops on a race in read_mat.c
# (two files opened by libmatio at once). No suppressions are needed: with
# the turns, the HDF5 calls are ordered by our own lock too.
#
#   LABELAUDIT=build-tsan/labelaudit sh tests/reliability/tsan-dataset.sh
set -u
LA=${LABELAUDIT:?LABELAUDIT=path of a -fsanitize=thread labelaudit}
src=${srcdir:-.}/tests
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/ds"
# three rounds of each, in an order that puts HDF5, MATLAB and CSV files side
# by side in the file order the workers take them in
n=0
for round in 1 2 3; do
    for f in "$src"/data/containers/h5-labels.h5 "$src"/data/containers/mat-flowers-v5.mat \
             "$src"/data/quoted/00.csv "$src"/data/containers/h5-chunked.h5 \
             "$src"/data/containers/mat-flowers-v7.mat "$src"/data/quoted/03.csv \
             "$src"/data/containers/mat-flowers-v73.mat "$src"/data/containers/h5-chunks.h5 \
             "$src"/data/quoted/07.csv "$src"/data/containers/mat-svhn.mat \
             "$src"/malformed/mat-garbage.mat "$src"/malformed/h5-chunk-garbage.h5 \
             "$src"/malformed/mat-lying-name-size.mat "$src"/data/masks/voc512.png \
             "$src"/data/masks/palette4.png; do
        n=$((n + 1))
        cp "$f" "$d/ds/$(printf %03d $n)-$(basename "$f")"
    done
done
runs=0 failed=0
# judge RC WHAT : count a run, and report it unless it exited 1 or 3 with
# every file in the report
judge() {
    runs=$((runs + 1))
    got=$(grep -c '"path"' "$d/out" 2>/dev/null || echo 0)
    case $1 in 1|3) [ "$got" -gt "$n" ] && return ;; esac
    failed=$((failed + 1))
    echo "tsan-dataset: $2: exit $1, $got paths in the report for $n files"
    head -30 "$d/err"
}
for j in -j2 -j3 -j4 -j2 -j3; do
    "$LA" $j -n 300 --json --no-progress "$d/ds" >"$d/out" 2>"$d/err"
    judge $? "the folder, $j"
    "$LA" $j -n 300 --json --no-progress --concat "$d"/ds/* >"$d/out" 2>"$d/err"
    judge $? "--concat, $j"
done
echo "tsan-dataset: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
