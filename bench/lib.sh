# lib.sh - what run.sh, masks.sh and containers.sh share; sourced, not run:
# strict mode, the C locale, the binary's absolute path (LABELAUDIT, default
# ./labelaudit), and the helpers every table is made with.
set -euo pipefail
export LC_ALL=C
LABELAUDIT=${LABELAUDIT:-./labelaudit}
[ -x "$LABELAUDIT" ] && LABELAUDIT=$(cd "$(dirname "$LABELAUDIT")" && pwd)/$(basename "$LABELAUDIT")

# timed CMD : one run of CMD through bash, under GNU time, with its standard
# output in $DIR/out and its standard error in $DIR/stderr; sets secs (wall
# time, as the user waits, less HARNESS_SECS) and rss_kb (peak resident memory).
timed() {
    local t0=$EPOCHREALTIME
    /usr/bin/time -f %M -o "$DIR/rss" bash -c "$1" >"$DIR/out" 2>"$DIR/stderr" || true
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v h="${HARNESS_SECS:-0}" \
        'BEGIN { s = b - a - h; printf "%.4f", (s > 0 ? s : 0) }')
    rss_kb=$(tail -1 "$DIR/rss")
}

# harness_secs : what timed itself takes (starting GNU time and bash: 3 ms
# here), the median of 9 runs of `true`. Every time is given less this: on a
# 0.05 s run it was 6%, and it narrowed every ratio between two labelaudit runs.
harness_secs() {
    local runs=() HARNESS_SECS=0
    for _ in 1 2 3 4 5 6 7 8 9; do
        timed true
        runs+=("$secs")
    done
    printf '%s\n' "${runs[@]}" | median
}

# in_pass PASS NAME : whether tool NAME is timed in PASS. The C tools (pass c)
# take turns, to share any noise; Python's (pass python) run after them all:
# a run just after a Python process that freed hundreds of MB took up to
# twice as long on a VM, and taking turns with Python made it labelaudit's.
in_pass() {
    case $2 in Python*|numpy*|pandas*) [ "$1" = python ] ;; *) [ "$1" = c ] ;; esac
}

# fastest : the least of the numbers on standard input, one a line (blank
# lines skipped)
fastest() {
    grep . | sort -g | head -1
}

# median : of the numbers on standard input, one a line
median() {
    sort -g | awk '{ v[NR] = $1 }
                   END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
