#!/usr/bin/env bash
# containers.sh - the array containers' benchmark: a 10^8-element int64 label array
# (values 0..9, one bad label in 65536) in each array container, written by
# the library users write it with (bench/make_containers.py; the MATLAB -v7.3
# file through libmatio, bench/make_mat73.c):
#   HDF5 chunked + gzip and contiguous (h5py), .mat v7.3 (chunked + gzip, as
#   MATLAB's save -v7.3 writes it), .mat v5 (SciPy's savemat), safetensors,
#   torch.save's .pt;
# each read by labelaudit -n 10 (all cores), by the C limit of reading the same
# bytes (bench/limit.c: for uncompressed data, the array's bytes pread at their
# offset in the file and counted on the same threads; for gzip HDF5 and v7.3,
# H5Dread of the dataset in the same 4 MiB hyperslabs as read_hdf5.c, one
# thread, built with -DLIMIT_HDF5 where pkg-config finds hdf5), and by the
# Python one-liner people write (h5py, scipy.io.loadmat, h5py for v7.3, which
# loadmat refuses, safetensors.numpy.load_file, torch.load) followed by the
# same check: count the values outside [0, 10), histogram the rest. Python's
# time includes starting the interpreter and importing the library, as the
# one-liner's user pays them.
#
# Prints a markdown table (median wall time, peak RSS, ratios) and checks the
# issue's targets, PASS or MISS each: labelaudit within 1.3 times the limit on
# uncompressed data (gzip rows: the ratio is shown, no target), at least 8
# times faster than Python, peak RSS at most 64 MiB (constant: it must not
# grow with BENCH_SCALE); and that every tool counts the same bad labels.
#
# Environment: LABELAUDIT (the binary), BENCH_SCALE (1: 10^8 labels; 0.05
# makes 5 million), BENCH_RUNS (3; the median is reported), BENCH_DIR
# (./bench-data; the inputs are made once into BENCH_DIR/containers and reused
# while the scale is unchanged), BENCH_PYTHON (python3 with numpy, and h5py,
# scipy, safetensors, torch: a row whose package is missing is skipped with
# the reason), CC, THREADS (nproc). Exit status 0, or 1 when a count disagrees
# or a target is missed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"   # strict mode, LABELAUDIT's absolute path, timed, median
SCALE=${BENCH_SCALE:-1}
RUNS=${BENCH_RUNS:-3}
DIR=${BENCH_DIR:-bench-data}/containers
PY=${BENCH_PYTHON:-python3}
CC=${CC:-cc}
THREADS=${THREADS:-$(nproc)}
CLASSES=10
MAX_RSS_KB=$((64 * 1024))

command -v jq >/dev/null || { echo "bench/containers: jq is needed to read labelaudit's JSON"; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/containers: GNU time is needed for peak RSS"; exit 2; }
"$PY" -c "import numpy" 2>/dev/null ||
    { echo "bench/containers: $PY lacks numpy (pip install numpy h5py scipy safetensors torch); skipped"; exit 0; }
formats=$("$LABELAUDIT" --version | sed -n 's/^Formats: \([^(]*\).*/\1/p')

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
HARNESS_SECS=$(harness_secs)   # taken off every time (lib.sh)
n=$(awk -v s="$SCALE" 'BEGIN { n = int(1e8 * s); print n < 1000 ? 1000 : n }')
"$CC" -O2 -pthread -o "$DIR/limit" "$here/limit.c" -lz
if pkg-config --exists hdf5; then
    # shellcheck disable=SC2046  # pkg-config's flags are words
    "$CC" -O2 -pthread -DLIMIT_HDF5 $(pkg-config --cflags hdf5) -o "$DIR/limit-h5" "$here/limit.c" \
        $(pkg-config --libs hdf5) -lz
fi

# ---- the inputs, made once per scale ----------------------------------------------
stamp="$n v1"
if [ "$(cat "$DIR/stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "bench/containers: making $n labels in each container in $DIR" >&2
    rm -f "$DIR"/*.h5 "$DIR"/*.mat "$DIR"/*.safetensors "$DIR"/*.pt "$DIR/index.tsv" "$DIR/stamp"
    "$PY" "$here/make_containers.py" "$DIR" "$n"
    bad=$(awk -F'\t' '$2 != "-" { print $4; exit }' "$DIR/index.tsv")
    if pkg-config --exists matio; then
        # shellcheck disable=SC2046
        "$CC" -O2 -o "$DIR/make_mat73" "$here/make_mat73.c" $(pkg-config --cflags --libs matio)
        "$DIR/make_mat73" "$DIR/labels.raw" "$n" "$DIR/mat73.mat"
        printf 'mat-v7.3\t%s\t-\t%s\n' "$DIR/mat73.mat" "$bad" >>"$DIR/index.tsv"
    else
        printf 'mat-v7.3\t-\tskipped: pkg-config finds no matio to write it\n' >>"$DIR/index.tsv"
    fi
    rm -f "$DIR/labels.raw"
    echo "$stamp" >"$DIR/stamp"
fi

# ---- the tools ------------------------------------------------------------------------
# shellcheck disable=SC2317  # run through bash -c
py_check() {   # py_check MODULE EXPR FILE: the one-liner, then the check; prints the bad count
    "$PY" -c "import sys, numpy as np, $1
p = sys.argv[1]
a = np.asarray($2)
ok = (a >= 0) & (a < $CLASSES)
hist = np.bincount(a[ok].ravel(), minlength=$CLASSES)
print(int(a.size - ok.sum()))" "$3"
}
export -f py_check
export PY CLASSES

format_of() {   # the labelaudit format a container needs
    case $1 in h5-*) echo hdf5 ;; mat-*) echo mat ;; *) echo "$1" ;; esac
}

python_for() {   # python_for NAME: "label|module|expression"
    case $1 in
    h5-*) echo 'h5py|h5py|h5py.File(p, "r")["labels"][()]' ;;
    mat-v7.3) echo 'h5py (loadmat refuses v7.3)|h5py|h5py.File(p, "r")["labels"][()]' ;;
    mat-v5) echo 'scipy.io.loadmat|scipy.io|scipy.io.loadmat(p)["labels"]' ;;
    safetensors) echo 'safetensors.numpy.load_file|safetensors.numpy|safetensors.numpy.load_file(p)["labels"]' ;;
    pt) echo 'torch.load|torch|torch.load(p).numpy()' ;;
    esac
}

tools_for() {   # tools_for NAME FILE OFFSET: "name|command" lines, the limit second
    local py
    echo "labelaudit -j $THREADS|'$LABELAUDIT' -n $CLASSES --json --no-progress -j $THREADS '$2'"
    if [ "$3" != - ]; then
        echo "C limit: pread at offset, $THREADS threads|'$DIR/limit' bin int64 '$2' $3 $CLASSES $THREADS $n"
    elif [ -x "$DIR/limit-h5" ]; then
        echo "C limit: H5Dread, 1 thread|'$DIR/limit-h5' h5 '$2' /labels $CLASSES"
    fi
    py=$(python_for "$1")
    IFS='|' read -r label module expr <<<"$py"
    if "$PY" -c "import $module" 2>/dev/null; then
        echo "Python: $label|py_check '$module' '$expr' '$2'"
    fi
}

measure() {   # measure NAME CMD: sets secs, rss_kb, bad
    timed "$2"
    case $1 in
    labelaudit*) bad=$(jq '[.files[].invalid.count] | add' "$DIR/out" 2>/dev/null || echo "?") ;;
    *) bad=$(tail -1 "$DIR/out") ;;
    esac
    [ -n "$bad" ] || bad="? ($(head -c 200 "$DIR/stderr" | tr '\n' ' '))"
}

echo "## Array containers: $n int64 labels (scale $SCALE), $THREADS threads," \
     "median of $RUNS runs less the harness's $HARNESS_SECS s, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| container | tool | median s | M labels/s | peak RSS MiB | x limit | labelaudit faster by | bad found |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
status=0
verdicts=()
while IFS=$'\t' read -r -u 3 name file offset want; do
    if [ "$file" = - ]; then
        echo "| $name | $offset | | | | | | |"
        continue
    fi
    case " $formats " in
    *" $(format_of "$name") "*) ;;
    *) echo "| $name | skipped: labelaudit built without $(format_of "$name") | | | | | | |"; continue ;;
    esac
    mapfile -t tools < <(tools_for "$name" "$file" "$offset")
    declare -A times=() rss=() found=()
    sleep 2                                     # the last container's Python runs settle
    cat "$file" >/dev/null                      # every tool reads from the page cache
    for pass in c python; do                    # lib.sh: in_pass
        for _ in $(seq "$RUNS"); do
            for tool in "${tools[@]}"; do
                in_pass $pass "${tool%%|*}" || continue
                measure "${tool%%|*}" "${tool#*|}" </dev/null
                times[${tool%%|*}]+="$secs "
                r=${rss[${tool%%|*}]:-0}
                rss[${tool%%|*}]=$((rss_kb > r ? rss_kb : r))
                found[${tool%%|*}]=$bad
            done
        done
    done
    la_name=${tools[0]%%|*}
    la=$(echo "${times[$la_name]}" | tr ' ' '\n' | median)
    lim="" py=""
    for tool in "${tools[@]}"; do
        case ${tool%%|*} in C\ limit*) lim=$(echo "${times[${tool%%|*}]}" | tr ' ' '\n' | median) ;; esac
        case ${tool%%|*} in Python*) py=$(echo "${times[${tool%%|*}]}" | tr ' ' '\n' | median) ;; esac
    done
    for tool in "${tools[@]}"; do
        tname=${tool%%|*}
        t=$(echo "${times[$tname]}" | tr ' ' '\n' | median)
        got=${found[$tname]}
        [ "$got" = "$want" ] || { got="$got (want $want)"; status=1; }
        awk -v c="$name" -v n="$tname" -v t="$t" -v e="$n" -v r="${rss[$tname]}" -v l="$lim" \
            -v a="$la" -v g="$got" 'BEGIN {
            printf "| %s | %s | %.3f | %.1f | %.1f | %s | %s | %s |\n", c, n, t, e / t / 1e6, r / 1024,
                   l == "" ? "" : sprintf("%.2f", t / l),
                   n ~ /^labelaudit/ ? "" : sprintf("%.1fx", t / a), g }'
    done
    v=$(awk -v a="$la" -v l="$lim" -v p="$py" -v r="${rss[$la_name]}" -v m=$MAX_RSS_KB \
            -v gz="$([ "$offset" = - ] && echo 1 || echo 0)" 'BEGIN {
        if (l == "")
            s = "no C limit (libhdf5 not found)"
        else if (gz)
            s = sprintf("labelaudit/limit %.2f (gzip: no target)", a / l)
        else
            s = sprintf("labelaudit/limit %.2f (<= 1.3) %s", a / l, a / l <= 1.3 ? "PASS" : "MISS")
        if (p == "")
            s = s ", no Python row"
        else
            s = s sprintf(", Python/labelaudit %.1f (>= 8) %s", p / a, p / a >= 8 ? "PASS" : "MISS")
        s = s sprintf(", peak RSS %.1f MiB (<= 64) %s", r / 1024, r <= m ? "PASS" : "MISS")
        print s }')
    case $v in *MISS*) status=1 ;; esac
    verdicts+=("- \`$name\`: $v")
done 3<"$DIR/index.tsv"
echo
echo "Targets:"
printf '%s\n' "${verdicts[@]}"
[ "$status" = 0 ] || echo "bench/containers: a target was missed or a count disagrees"
exit $status
