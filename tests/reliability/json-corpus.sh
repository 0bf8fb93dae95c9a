#!/bin/sh
# json-corpus.sh - a developer's check that a change left the JSON report
# alone: two labelaudit binaries, run with --json on every input of the test
# corpus, must write the same bytes and exit with the same status. Not part
# of `make check` (it needs a second binary): run it by hand around a
# refactor, the old binary built from the commit before it.
#
#   git stash; make -j2; cp labelaudit /tmp/old-labelaudit; git stash pop; make -j2
#   sh tests/reliability/json-corpus.sh /tmp/old-labelaudit ./labelaudit
#
# The inputs: every file under samples/, tests/data/ and tests/malformed/,
# every folder there (a folder is one dataset), a --concat of the quoted CSV
# fixtures, and a few CSVs generated here large enough that the CSV reader
# parses them on several threads (a quoted text column with stray quotes
# and unparsable labels, a quote-free one, one with floats). Each runs with
# -j1 and -j2 (the generated ones with -j4 too), with and without -n 10; the
# small CSV and text files also with LABELAUDIT_CSV_BLOCK=64, so that a few
# hundred bytes cross many read blocks. Prints each run whose output or exit
# status differs (its stdout diff, cut to 20 lines), then
# "json-corpus: N runs, N differ"; exits 1 when any differs.
set -u
OLD=${1:?usage: json-corpus.sh OLD_BINARY NEW_BINARY}
NEW=${2:?usage: json-corpus.sh OLD_BINARY NEW_BINARY}
# the binaries by absolute path: the runs are made from the tree's top
case $OLD in /*) ;; */*) OLD=$PWD/$OLD ;; esac
case $NEW in /*) ;; */*) NEW=$PWD/$NEW ;; esac
top=$(cd "$(dirname "$0")/../.." && pwd)   # the tree: this script lives in tests/reliability/
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
runs=0 differ=0

# compare WHAT ENV ARGS... : run both binaries (with ENV, "-" for none, in
# the environment) and report when stdout or the exit status differ
compare() {
    what=$1 env=$2
    shift 2
    runs=$((runs + 1))
    if [ "$env" = - ]; then
        "$OLD" "$@" >"$d/old" 2>/dev/null </dev/null; old_rc=$?
        "$NEW" "$@" >"$d/new" 2>/dev/null </dev/null; new_rc=$?
    else
        env "$env" "$OLD" "$@" >"$d/old" 2>/dev/null </dev/null; old_rc=$?
        env "$env" "$NEW" "$@" >"$d/new" 2>/dev/null </dev/null; new_rc=$?
    fi
    if [ $old_rc != $new_rc ] || ! cmp -s "$d/old" "$d/new"; then
        differ=$((differ + 1))
        echo "DIFFERS: $what ($env $*): exit $old_rc then $new_rc"
        diff "$d/old" "$d/new" | head -20
    fi
}

# each INPUT JOBS... : the runs of one input at each -j, with and without -n
each() {
    input=$1
    shift
    for j in "$@"; do
        compare "$input" - --json "$j" "$input"
        compare "$input" - --json "$j" -n 10 "$input"
    done
    case $input in
    *.csv | *.tsv | *.txt)
        compare "$input" LABELAUDIT_CSV_BLOCK=64 --json -j2 -n 10 "$input" ;;
    esac
}

cd "$top" || exit 2
find samples tests/data tests/malformed -type f | LC_ALL=C sort >"$d/files"
while IFS= read -r f; do
    each "$f" -j1 -j2
done <"$d/files"
find samples tests/data tests/malformed -mindepth 1 -type d | LC_ALL=C sort >"$d/dirs"
while IFS= read -r f; do
    each "$f" -j1 -j2
done <"$d/dirs"
for j in -j1 -j2; do
    compare "--concat quoted" - --json "$j" --concat tests/data/quoted/*.csv
done

# generated: large enough for the parallel parse (steps of blocks, the
# fast path's helper), made the same each run
g=$d/gen
mkdir "$g"
awk -v rows=200000 -v every=20011 -f tests/gen/text-csv.awk >"$g/text.csv"
awk -v rows=30000 -v every=499 -f tests/gen/text-csv.awk >"$g/text-dense.csv"
awk 'BEGIN { print "id,label"; for (i = 0; i < 400000; i++) print i "," (i % 97 == 5 ? -1 : i % 10) }' \
    >"$g/plain.csv"
awk 'BEGIN { print "x\tlabel"; for (i = 0; i < 300000; i++) print i "\t" (i == 150000 ? 0.5 : i % 7) }' \
    >"$g/float.tsv"
for f in "$g"/*; do
    each "$f" -j1 -j2 -j4
    compare "$f" LABELAUDIT_CSV_SLOW=1 --json -j2 "$f"
done

echo "json-corpus: $runs runs, $differ differ"
[ $differ = 0 ]
