#!/usr/bin/env bash
# run.sh - labelaudit's benchmark: the same files through labelaudit, a plain C
# read-and-count program (the speed limit), and the numpy / pandas / awk
# one-liners people use instead. Prints a markdown table of median wall time,
# throughput, peak RSS and ratios, then checks every tool found the same bad
# labels and labelaudit met its targets.
#
#   bench/run.sh                    full size: 10^8 labels, 1000 masks, 10^7 CSV rows
#
# and 10^6 rows of a quoted text CSV ("id,text,label" with commas,
# doubled quotes and newlines in the quoted text, 100 MB; the label first in a
# copy; a gzipped copy), read by labelaudit on all cores and on one (-j1),
# and by pandas.
#
# Besides clean-ish inputs (one bad label in 65536), three with dense bad
# entries: 1000 uint8 masks of 512x512 with 0.1% and with 5% of their pixels
# 255, scattered one by one (-n 21), and 10^8 int64 1-based labels (values
# 1..10 with -n 10: 10% bad).
#   BENCH_SCALE=0.01 bench/run.sh   a quick run on files 100 times smaller
#
# Environment: LABELAUDIT (the binary; default ./labelaudit), BENCH_PYTHON (the
# python3 with numpy and pandas; default Debian's /usr/bin/python3), BENCH_SCALE (1),
# BENCH_RUNS (5; the median is reported), BENCH_DIR (./bench-data: the
# generated files, reused while the scale is unchanged), CC (cc),
# BENCH_INPUTS (the inputs to time, of those above: "text.csv labels.csv"
# times the quoted file and the plain CSV its target compares with),
# BENCH_INSTALL=0 to never apt-get the peers (python3-numpy, python3-pandas,
# mawk, time), BENCH_BASELINE=0 to leave out the comparison of the CSV and
# gzip CSV rows with bench/README.md's figures. Exit status: 0, or 1 when a
# tool disagrees on the bad count, a target is missed, or at full size one
# of those two rows is more than 10% slower than README.md says. Timings need a quiet machine: the load average is printed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"   # strict mode, LABELAUDIT's absolute path, timed, median
SCALE=${BENCH_SCALE:-1}
RUNS=${BENCH_RUNS:-5}
DIR=${BENCH_DIR:-bench-data}
CC=${CC:-cc}
PY=${BENCH_PYTHON:-/usr/bin/python3}   # Debian's, where python3-numpy and python3-pandas live
CLASSES=10
MASK_CLASSES=21                # the scattered masks: VOC's 21 classes, 255 forgotten
MAX_RSS_KB=$((32 * 1024))

die() { echo "bench: $*" >&2; exit 2; }
[ -x "$LABELAUDIT" ] || die "no labelaudit binary at $LABELAUDIT (set LABELAUDIT)"
command -v jq >/dev/null || die "jq is needed to read labelaudit's JSON"

# ---- peers: install what is missing, as Debian packages ----------------------------

have_py() { [ -x "$PY" ] && "$PY" -c "import $1" 2>/dev/null; }
need=()
have_py numpy || need+=(python3-numpy)
have_py pandas || need+=(python3-pandas)
command -v mawk >/dev/null || need+=(mawk)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ] && [ "${BENCH_INSTALL:-1}" != 0 ] && [ "$(id -u)" = 0 ] &&
   command -v apt-get >/dev/null; then
    echo "bench: installing ${need[*]}" >&2
    apt-get install -y -q "${need[@]}" >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 &&
          apt-get install -y -q "${need[@]}" >/dev/null 2>&1; } ||
        echo "bench: could not install ${need[*]}; those peers are skipped" >&2
fi
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time, Debian package 'time') is needed for peak RSS"

# ---- inputs ------------------------------------------------------------------------

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
HARNESS_SECS=$(harness_secs)   # taken off every time (lib.sh)
"$CC" -O2 -o "$DIR/gen" "$here/gen.c"
"$CC" -O2 -pthread -o "$DIR/limit" "$here/limit.c" -lz

n_labels=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 1e8 * s }')
n_masks=$(awk -v s="$SCALE" 'BEGIN { n = int(1000 * s); printf "%d", n < 1 ? 1 : n }')
n_rows=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 1e7 * s }')
n_text=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 1e6 * s }')
n_spin=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 1.5e8 * s }')   # about -j1's time on text.csv
stamp="$n_labels $n_masks $n_rows $n_text $CLASSES v3"
if [ "$(cat "$DIR/stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "bench: generating inputs in $DIR ($stamp)" >&2
    rm -f "$DIR/stamp"
    "$DIR/gen" npy-int64 "$DIR/labels.npy" "$n_labels" $CLASSES >"$DIR/labels.npy.bad"
    "$DIR/gen" raw-int32 "$DIR/labels.i32" "$n_labels" $CLASSES >"$DIR/labels.i32.bad"
    "$DIR/gen" npy-mask "$DIR/masks.npy" "$n_masks" 512 512 $CLASSES >"$DIR/masks.npy.bad"
    "$DIR/gen" csv "$DIR/labels.csv" "$n_rows" $CLASSES >"$DIR/labels.csv.bad"
    "$DIR/gen" npy-mask-scattered "$DIR/masks-bad0.1.npy" "$n_masks" 512 512 $MASK_CLASSES 1000 \
        >"$DIR/masks-bad0.1.npy.bad"
    "$DIR/gen" npy-mask-scattered "$DIR/masks-bad5.npy" "$n_masks" 512 512 $MASK_CLASSES 50000 \
        >"$DIR/masks-bad5.npy.bad"
    "$DIR/gen" npy-int64-1based "$DIR/labels-1based.npy" "$n_labels" $CLASSES \
        >"$DIR/labels-1based.npy.bad"
    gzip -6 -c "$DIR/labels.csv" >"$DIR/labels.csv.gz"
    cp "$DIR/labels.csv.bad" "$DIR/labels.csv.gz.bad"
    "$DIR/gen" csv-text "$DIR/text.csv" "$n_text" $CLASSES >"$DIR/text.csv.bad"
    "$DIR/gen" csv-text-first "$DIR/text-first.csv" "$n_text" $CLASSES >"$DIR/text-first.csv.bad"
    gzip -6 -c "$DIR/text.csv" >"$DIR/text.csv.gz"
    cp "$DIR/text.csv.bad" "$DIR/text.csv.gz.bad"
    echo "$stamp" >"$DIR/stamp"
fi
npy_data_offset() {   # v1.0 header: 10 bytes, then a little-endian u16 length
    echo $((10 + $(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')))
}

# ---- the tools, per input: "name|command"; each command prints the bad count -------

# labelaudit's JSON is read by jq after the clock stops (jq's start-up alone is 30 ms)
la="'$LABELAUDIT' -n $CLASSES --json --no-progress"
la_masks="'$LABELAUDIT' -n $MASK_CLASSES --json --no-progress"
np_check="ok=(a>=0)&(a<n); print(int(a.size-ok.sum())); np.bincount(a[ok],minlength=n)"
np_one() {   # np_one EXPR FILE [CLASSES]
    "$PY" -c "import numpy as np,sys; n=${3:-$CLASSES}; a=$1; $np_check" "$2"
}
pd_one() {
    "$PY" -c "import pandas as pd,numpy as np,sys; n=$CLASSES; \
a=pd.read_csv(sys.argv[1])['label'].values; $np_check" "$1"
}
awk_one="NR>1 { x = \$NF + 0; if (x < 0 || x >= $CLASSES) b++; else h[x]++ } END { print b + 0 }"
export -f np_one pd_one
export LABELAUDIT CLASSES MASK_CLASSES PY np_check awk_one

tools_for() {   # tools_for INPUT: one "name|shell command" line per tool
    local f=$DIR/$1
    case $1 in
    labels.npy)
        echo "labelaudit|$la '$f'"
        echo "C limit (2 threads)|'$DIR/limit' bin int64 '$f' $(npy_data_offset "$f") $CLASSES 2"
        have_py numpy && echo "numpy np.load|np_one 'np.load(sys.argv[1])' '$f'" ;;
    labels.i32)
        echo "labelaudit|$la --format=raw --dtype=int32 '$f'"
        echo "C limit (2 threads)|'$DIR/limit' bin int32 '$f' 0 $CLASSES 2"
        have_py numpy &&
            echo "numpy np.fromfile|np_one 'np.fromfile(sys.argv[1],dtype=\"<i4\")' '$f'" ;;
    masks.npy)
        echo "labelaudit|$la '$f'"
        echo "C limit (2 threads)|'$DIR/limit' bin uint8 '$f' $(npy_data_offset "$f") $CLASSES 2"
        have_py numpy && echo "numpy np.load|np_one 'np.load(sys.argv[1])' '$f'" ;;
    masks-bad*.npy)
        echo "labelaudit|$la_masks '$f'"
        echo "C limit (2 threads)|'$DIR/limit' bin uint8 '$f' $(npy_data_offset "$f") $MASK_CLASSES 2"
        have_py numpy &&
            echo "numpy np.load|np_one 'np.load(sys.argv[1])' '$f' $MASK_CLASSES" ;;
    labels-1based.npy)
        echo "labelaudit|$la '$f'"
        echo "C limit (2 threads)|'$DIR/limit' bin int64 '$f' $(npy_data_offset "$f") $CLASSES 2"
        have_py numpy && echo "numpy np.load|np_one 'np.load(sys.argv[1])' '$f'" ;;
    labels.csv)
        echo "labelaudit|$la '$f'"
        echo "C limit (2 threads)|'$DIR/limit' csv '$f' $CLASSES 2"
        have_py pandas && echo "pandas read_csv|pd_one '$f'"
        command -v mawk >/dev/null && echo "mawk|mawk -F, \"\$awk_one\" '$f'"
        echo "wc -l|wc -l <'$f' >/dev/null; echo -" ;;
    labels.csv.gz)
        echo "labelaudit|$la '$f'"
        echo "C limit (inflate + parse threads)|'$DIR/limit' csvgz '$f' $CLASSES"
        have_py pandas && echo "pandas read_csv|pd_one '$f'"
        command -v mawk >/dev/null && echo "zcat + mawk|zcat '$f' | mawk -F, \"\$awk_one\"" ;;
    text*.csv|text.csv.gz)      # no C limit: the targets compare with -j1, pandas, plain CSV
        echo "labelaudit|$la '$f'"
        echo "labelaudit -j1|$la -j1 '$f'"
        # not in the table: what two threads of a loop that shares nothing
        # gain over one, in the same turns (text_verdict)
        echo "spin, 1 thread|'$DIR/limit' spin $n_spin 1"
        echo "spin, 2 threads|'$DIR/limit' spin $n_spin 2"
        have_py pandas && echo "pandas read_csv|pd_one '$f'" ;;
    esac
}

# ---- measuring -----------------------------------------------------------------------

# measure NAME CMD : one run; sets $secs, $rss_kb and $bad (from the command's output)
measure() {
    timed "$2"
    if [ "${1%% *}" = labelaudit ]; then
        bad=$(jq '.files[0].invalid.count' "$DIR/out" 2>/dev/null || true)
    else
        bad=$(cat "$DIR/out")
    fi
    [ -n "$bad" ] || { bad="?"; sed 's/^/bench: stderr: /' "$DIR/stderr" | head -3 >&2; }
}

inputs="labels.npy labels.i32 masks.npy labels.csv labels.csv.gz"
inputs+=" masks-bad0.1.npy masks-bad5.npy labels-1based.npy"   # dense bad entries
inputs+=" text.csv text-first.csv text.csv.gz"                  # quoted text
inputs=${BENCH_INPUTS:-$inputs}
declare -A times rss found
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for f in $inputs; do
    # The list is made before any clock starts: tools_for runs python to see
    # whether numpy is there, and as a process substitution it would run that
    # alongside the first tool's timed run, stealing one of the two cores.
    mapfile -t tools < <(tools_for "$f")
    cat "$DIR/$f" >/dev/null                 # warm the page cache
    for tool in "${tools[@]}"; do            # one untimed run warms the tool too
        bash -c "${tool#*|}" >/dev/null 2>&1 || true
    done
    sleep 2                                  # the last input's Python runs settle
    for pass in c python; do                 # lib.sh: in_pass
        for run in $(seq "$RUNS"); do
            for tool in "${tools[@]}"; do
                name=${tool%%|*} cmd=${tool#*|}
                in_pass $pass "$name" || continue
                measure "$name" "$cmd" </dev/null
                times[$f|$name]+="$secs "
                rss[$f|$name]=$(( ${rss[$f|$name]:-0} > rss_kb ? ${rss[$f|$name]:-0} : rss_kb ))
                found[$f|$name]=$bad
            done
        done
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the table -------------------------------------------------------------------------

target_for() {   # the issues' targets: labelaudit / limit
    case $1 in
    labels.csv) echo 2.0 ;;
    labels.csv.gz) echo 1.3 ;;
    labels.npy|labels.i32|masks.npy) echo 1.2 ;;   # read as the limit reads them
    *) echo 1.5 ;;
    esac
}
# text_verdict INPUT SECONDS: the targets for a quoted text CSV: at least
# 1.7 times the speed of -j1 (not for gzip, whose -j1 already inflates on a
# thread of its own), 12 times pandas', within 2 times the time of the plain
# CSV (labels.csv, or labels.csv.gz) scaled to the same size, and the RSS cap
text_verdict() {
    local f=$1 t=$2 plain=labels.csv
    case $f in *.gz) plain=labels.csv.gz ;; esac
    local j1 pd pl fj1 fj
    j1=$(echo "${times[$f|labelaudit -j1]}" | tr ' ' '\n' | median)
    # the fastest runs too: a shared VM's slow minutes hit a run on both CPUs
    # harder than one on one, and only slow a run down (the verdict: medians)
    fj1=$(echo "${times[$f|labelaudit -j1]}" | tr ' ' '\n' | fastest)
    fj=$(echo "${times[$f|labelaudit]}" | tr ' ' '\n' | fastest)
    local s1 s2
    s1=$(echo "${times[$f|spin, 1 thread]:-}" | tr ' ' '\n' | median)
    s2=$(echo "${times[$f|spin, 2 threads]:-}" | tr ' ' '\n' | median)
    pd=$(echo "${times[$f|pandas read_csv]:-}" | tr ' ' '\n' | median)
    pl=$(echo "${times[$plain|labelaudit]:-}" | tr ' ' '\n' | median)
    awk -v t="$t" -v j1="$j1" -v fj1="$fj1" -v fj="$fj" -v s1="$s1" -v s2="$s2" \
        -v pd="$pd" -v pl="$pl" -v gz="${f##*.}" \
        -v b="$(stat -c %s "$DIR/$f")" -v pb="$(stat -c %s "$DIR/$plain")" \
        -v r="${rss[$f|labelaudit]}" -v m=$MAX_RSS_KB 'BEGIN {
        same = pl * b / pb      # 0 when BENCH_INPUTS left the plain CSV out: not compared
        ok = (gz == "gz" || j1 / t >= 1.7) && (pd == "" || pd / t >= 12) && \
             (same == 0 || t <= 2 * same) && r <= m
        printf "%.2fx -j1 (target >= 1.7%s; fastest runs %.2fx; a loop that shares nothing: %s), " \
               "%s pandas (>= 12), %s the plain CSV time " \
               "at this size (<= 2), RSS %.1f MiB (<= 32): %s", j1 / t,
               gz == "gz" ? ", not for gzip" : "", fj1 / fj,
               (s2 > 0 ? sprintf("%.2fx", s1 / s2) : "not timed"), pd == "" ? "no" : sprintf("%.1fx", pd / t),
               same == 0 ? "not timed:" : sprintf("%.2fx", t / same), r / 1024,
               ok ? "met" : "missed" }'
}
cpu=$(awk -F: '/model name/ { sub(/^ /, "", $2); print $2; exit }' /proc/cpuinfo)
echo "## labelaudit benchmark (scale $SCALE, median of $RUNS warm runs, less the harness's $HARNESS_SECS s)"
echo
echo "$(nproc) CPUs ($cpu), load average before $load_before, after $load_after."
echo "Binary: $LABELAUDIT ($("$LABELAUDIT" --version | head -1))."
echo
echo "| input | tool | median s | MB/s | peak RSS MiB | x limit | labelaudit faster by" \
     "| bad found |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
status=0
summary=()
for f in $inputs; do
    size=$(stat -c %s "$DIR/$f")
    want=$(cat "$DIR/$f.bad")
    desc="\`$f\` ($(awk -v b="$size" 'BEGIN { printf "%.0f MB", b / 1e6 }'))"
    la_t=$(echo "${times[$f|labelaudit]}" | tr ' ' '\n' | median)
    lim_t=""
    while IFS='|' read -r name cmd; do
        case $name in C\ limit*) lim_t=$(echo "${times[$f|$name]}" | tr ' ' '\n' | median) ;; esac
    done < <(tools_for "$f")
    while IFS='|' read -r name cmd; do
        case $name in spin*) continue ;; esac
        t=$(echo "${times[$f|$name]}" | tr ' ' '\n' | median)
        got=${found[$f|$name]}
        mark=""
        if [ "$got" != "-" ] && [ "$got" != "$want" ]; then
            mark=" (want $want)"
            status=1
        fi
        awk -v d="$desc" -v n="$name" -v t="$t" -v b="$size" -v r="${rss[$f|$name]}" \
            -v l="$lim_t" -v a="$la_t" -v g="$got$mark" 'BEGIN {
            printf "| %s | %s | %.3f | %.0f | %.1f | %s | %s | %s |\n", d, n, t, b / 1e6 / t,
                   r / 1024, l == "" ? "-" : sprintf("%.2f", t / l),
                   n == "labelaudit" ? "" : sprintf("%.1fx", t / a), g }'
        desc=""
    done < <(tools_for "$f")
    case $f in text*)
        summary+=("- \`$f\`: $(text_verdict "$f" "$la_t")")
        case ${summary[-1]} in *missed*) status=1 ;; esac
        continue ;;
    esac
    target=$(target_for "$f")
    verdict=$(awk -v a="$la_t" -v l="$lim_t" -v t="$target" -v r="${rss[$f|labelaudit]}" \
                  -v m=$MAX_RSS_KB 'BEGIN {
        ok = a / l <= t && r <= m
        printf "%s: labelaudit/limit %.2f (target <= %.1f), RSS %.1f MiB (<= 32): %s",
               ok ? "ok" : "MISSED", a / l, t, r / 1024, ok ? "met" : "missed" }')
    case $verdict in MISSED*) status=1 ;; esac
    summary+=("- \`$f\`: ${verdict#*: }")
done
echo
echo "Targets:"
printf '%s\n' "${summary[@]}"

# ---- against the committed figures ----------------------------------------------------

# The CSV and gzip CSV rows against labelaudit's median in bench/README.md's
# table (issue 50: both grew 1.3 and 1.7 times over a round of fixes, and
# no target said so: the ratios to the limit stayed under theirs). Only at
# full size, where those figures were measured; BENCH_BASELINE=0 skips it
# (another machine's figures are not this one's).
committed_secs() {   # committed_secs INPUT : labelaudit's committed median s, or nothing
    awk -F'|' -v f="\`$1\`" 'index($2, f " (") == 2 { row = 1 }
        row && $3 ~ /^ *labelaudit *$/ { gsub(/ /, "", $4); print $4; exit }' "$here/README.md"
}
if [ "${BENCH_BASELINE:-1}" != 0 ]; then
    echo
    echo "Against bench/README.md (labelaudit's median, more than 1.10 times flags a regression):"
    for f in labels.csv labels.csv.gz; do
        case " $inputs " in *" $f "*) ;; *) continue ;; esac
        then_s=$(committed_secs "$f")
        now_s=$(echo "${times[$f|labelaudit]}" | tr ' ' '\n' | median)
        if [ -z "$then_s" ]; then
            echo "- \`$f\`: ${now_s} s, not compared (no committed figure)"
            continue
        elif [ "$SCALE" != 1 ]; then
            echo "- \`$f\`: ${now_s} s, not compared (scale $SCALE: the figures are at scale 1)"
            continue
        fi
        line=$(awk -v n="$now_s" -v c="$then_s" -v f="$f" 'BEGIN {
            r = n / c
            slow = r > 1.10
            printf "%s: %.3f s against %.3f s committed, %.2f times: %s", slow ? "SLOWER" : "ok",
                   n, c, r, slow ? "more than 10% slower" : "within 10%" }')
        case $line in SLOWER*) status=1 ;; esac
        echo "- \`$f\`: ${line#*: }"
        [ "${line%%:*}" = ok ] || echo "bench: $f is more than 10% slower than bench/README.md says" >&2
    done
fi
[ $status -eq 0 ] || echo "bench: a tool disagreed on the bad count, a target was missed or a row is slower" >&2
exit $status
