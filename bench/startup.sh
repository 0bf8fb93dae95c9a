#!/usr/bin/env bash
# startup.sh - the start-up goal in make bench: a CSV of 3 lines (a header
# and two rows, as a CI step or a pre-commit hook audits a small split) in at
# most 3 ms and 8 MiB of peak RSS. What it measures is the process: the
# dynamic loader and the libraries the binary links, the options, one small
# read; nothing of it grows with the data. BENCH_RUNS (9) batches of 20 runs
# straight from this shell (one run of 2 ms is too short for GNU time and
# bash -c around it, which take longer themselves), the median batch's mean:
# of the wall time as a script waits for it, fork and exec included, and of
# the CPU time (user + sys, from bash's `times`). The goal is on the CPU
# time, as detection.sh's: on this project's 2 shared cores at a load of 6
# to 11 even /bin/true takes 6 ms of wall time; on a quiet machine the two
# agree (the run is single-threaded);
# the peak RSS is the highest of 5 runs under GNU time. `labelaudit
# --version` beside it, for the part that is the start alone. Environment as
# run.sh: LABELAUDIT, BENCH_DIR, BENCH_RUNS. Exit 1 when a target is missed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"   # strict mode, LABELAUDIT's absolute path, timed, median
DIR=${BENCH_DIR:-bench-data}/startup
RUNS=${BENCH_RUNS:-9}
BATCH=20
mkdir -p "$DIR"
printf 'path,label\nimg/0.png,1\nimg/1.png,0\n' > "$DIR/small.csv"
GOAL_MS=3
GOAL_MIB=8
failed=0

echo "## Start-up: a 3-line CSV (load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| command | CPU ms | wall ms | peak RSS MiB | goal | |"
echo "|---|---:|---:|---:|---|---|"
# children_cpu : into $child_secs, the CPU seconds (user + sys) this shell's
# finished children took (`times` in this shell: in $(...) it would count a
# subshell's children)
children_cpu() {
    times > "$DIR/times"        # its second line, "0m0.012s 0m0.020s": the children's
    child_secs=$(tail -1 "$DIR/times" |
        awk '{ t = 0; for (k = 1; k <= 2; k++) { split($k, p, /[ms]/); t += p[1] * 60 + p[2] } print t }')
}
row() {   # row LABEL GOALED ARGS...
    local label=$1 goaled=$2 means=() cpus=() peak=0 ms cpu mib verdict= t0 c0 i
    shift 2
    for _ in $(seq "$RUNS"); do
        children_cpu
        c0=$child_secs
        t0=$EPOCHREALTIME
        for ((i = 0; i < BATCH; i++)); do "$LABELAUDIT" "$@" >/dev/null 2>&1 || true; done
        means+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$BATCH" 'BEGIN { print (b - a) / n }')")
        children_cpu
        cpus+=("$(awk -v a="$c0" -v b="$child_secs" -v n="$BATCH" 'BEGIN { print (b - a) / n }')")
    done
    for _ in 1 2 3 4 5; do
        /usr/bin/time -f %M -o "$DIR/rss" "$LABELAUDIT" "$@" >/dev/null 2>&1 || true
        [ "$(tail -1 "$DIR/rss")" -gt "$peak" ] && peak=$(tail -1 "$DIR/rss")
    done
    ms=$(printf '%s\n' "${means[@]}" | median | awk '{ printf "%.2f", $1 * 1000 }')
    cpu=$(printf '%s\n' "${cpus[@]}" | median | awk '{ printf "%.2f", $1 * 1000 }')
    mib=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
    if [ "$goaled" = 1 ]; then
        if awk -v m="$cpu" -v r="$mib" -v gm="$GOAL_MS" -v gr="$GOAL_MIB" \
               'BEGIN { exit !(m <= gm && r <= gr) }'; then
            verdict=ok
        else
            verdict=MISS
            failed=1
        fi
    fi
    printf '| `%s` | %s | %s | %s | %s | %s |\n' "$label" "$cpu" "$ms" "$mib" \
        "$([ "$goaled" = 1 ] && echo "<= $GOAL_MS ms, <= $GOAL_MIB MiB")" "$verdict"
}
row "labelaudit small.csv" 1 "$DIR/small.csv"
row "labelaudit --json small.csv" 1 --json "$DIR/small.csv"
row "labelaudit --version" 0 --version
echo
exit $failed
