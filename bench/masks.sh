#!/usr/bin/env bash
# masks.sh - the masks' benchmark: folders of segmentation masks, side by side
#   - 2,000 palette PNG masks of 512x512 (deflate level 6, VOC's 21 classes, a
#     few 255 boundary pixels), -n 21;
#   - 1,000 VOC-like palette PNG masks of 512x512 (two to four
#     large smooth objects, each with a 5-pixel 255 boundary, PIL's default
#     compression: about 3.3 KB each), -n 21;
#   - 200 gzipped NIfTI volumes of 128^3 uint8 (labels 0, 1, 2, 4), -n 5;
# through labelaudit (the folder as one argument), the C limit (bench/limit.c
# built with -DLIMIT_MASKS: decode each file with the same library and count,
# on the same threads; for PNG with libspng, and with libpng to show the other
# decoder), and the Python loop users write instead (PIL or nibabel, numpy).
# For the VOC-like masks, the limit is shown beside libspng decoding alone
# (spng-decode: no counting). Prints a markdown table (median wall time, peak
# RSS, ratios) and checks the targets: labelaudit within 1.3 times the limit
# (1.2 for the VOC-like masks), at least 3 times faster than the Python loop,
# peak RSS under 64 MiB; and that every tool counts the same bad pixels.
#
# Environment: LABELAUDIT (the binary), BENCH_SCALE (1: the sizes above;
# 0.05 makes 100 PNGs and 10 volumes), BENCH_RUNS (3), BENCH_DIR
# (./bench-data), BENCH_PYTHON (python3 with pillow, nibabel and numpy; the
# inputs are made with them too, so without them this benchmark is skipped),
# CC, THREADS (nproc). Exit status 0, or 1 when a count disagrees or a target
# is missed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"   # strict mode, LABELAUDIT's absolute path, timed, median
SCALE=${BENCH_SCALE:-1}
RUNS=${BENCH_RUNS:-3}
DIR=${BENCH_DIR:-bench-data}
PY=${BENCH_PYTHON:-python3}
CC=${CC:-cc}
THREADS=${THREADS:-$(nproc)}
MAX_RSS_KB=$((64 * 1024))

formats=$("$LABELAUDIT" --version | sed -n 's/^Formats: \([^(]*\).*/\1/p')
for f in png nifti; do
    case " $formats " in *" $f "*) ;; *) echo "bench/masks: built without $f; skipped"; exit 0 ;; esac
done
"$PY" -c "import PIL, nibabel, numpy" 2>/dev/null ||
    { echo "bench/masks: $PY lacks pillow, nibabel or numpy (pip install pillow nibabel numpy); skipped"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench/masks: GNU time is needed for peak RSS"; exit 2; }

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
HARNESS_SECS=$(harness_secs)   # taken off every time (lib.sh)
"$CC" -O2 -pthread -DLIMIT_MASKS -I"$here" -o "$DIR/limit-masks" "$here/limit.c" -lz -lspng -lpng

n_png=$(awk -v s="$SCALE" 'BEGIN { n = int(2000 * s); print n < 2 ? 2 : n }')
n_nii=$(awk -v s="$SCALE" 'BEGIN { n = int(200 * s); print n < 2 ? 2 : n }')
stamp="$n_png $n_nii v1"
if [ "$(cat "$DIR/masks.stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "bench/masks: making $n_png PNG masks and $n_nii volumes in $DIR" >&2
    rm -rf "$DIR/png-masks" "$DIR/nii-volumes" "$DIR/masks.stamp"
    "$PY" - "$DIR" "$n_png" "$n_nii" <<'EOF'
import os, sys
import nibabel as nib, numpy as np
from PIL import Image
out, n_png, n_nii = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(13)
os.makedirs(out + "/png-masks"); os.makedirs(out + "/nii-volumes")
bad_png = bad_nii = 0
for i in range(n_png):          # blocks of classes, a 255 outline on one in 8 masks
    m = np.repeat(np.repeat(rng.integers(0, 21, (16, 16), dtype=np.uint8), 32, 0), 32, 1)
    if i % 8 == 0:
        m[100, 50:450] = 255
        bad_png += 400
    im = Image.fromarray(m, mode="P")
    im.putpalette([c for k in range(256) for c in (k, k, k)])
    im.save("%s/png-masks/%05d.png" % (out, i), compress_level=6)
for i in range(n_nii):          # a tumour of labels 1, 2, 4 in a 128^3 volume
    v = np.zeros((128, 128, 128), np.uint8)
    v[32:96, 32:96, 32:96] = 2
    v[48:80, 48:80, 48:80] = 1
    v[56:72, 56:72, 56:72] = 4
    nib.save(nib.Nifti1Image(v, np.eye(4)), "%s/nii-volumes/%04d.nii.gz" % (out, i))
print(bad_png, file=open(out + "/png-masks.bad", "w"))
print(0, file=open(out + "/nii-volumes.bad", "w"))
EOF
    echo "$stamp" >"$DIR/masks.stamp"
fi
n_voc=$(awk -v s="$SCALE" 'BEGIN { n = int(1000 * s); print n < 2 ? 2 : n }')
if [ "$(cat "$DIR/voc-masks.stamp" 2>/dev/null)" != "$n_voc v1" ]; then
    echo "bench/masks: making $n_voc VOC-like PNG masks in $DIR" >&2
    rm -rf "$DIR/voc-masks" "$DIR/voc-masks.stamp"
    "$PY" - "$DIR" "$n_voc" <<'EOF'
import os, sys
import numpy as np
from PIL import Image
out, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(29)
os.makedirs(out + "/voc-masks")
yy, xx = np.mgrid[0:512, 0:512]
bad = 0
for i in range(n):              # 2 to 4 objects, their outlines 255 as VOC's are
    m = np.zeros((512, 512), np.uint8)
    for _ in range(rng.integers(2, 5)):
        cy, cx = rng.integers(128, 384, 2)
        ry, rx = rng.integers(40, 140, 2)
        d = np.sqrt(((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2)
        d *= 1 + 0.08 * np.sin(np.arctan2(yy - cy, xx - cx) * rng.integers(3, 9) + rng.uniform(0, 6.3))
        m[d <= 1.0 + 5.0 / min(ry, rx)] = 255
        m[d <= 1.0] = rng.integers(1, 21)
    bad += int((m >= 21).sum())
    im = Image.fromarray(m, mode="P")
    im.putpalette([c for k in range(256) for c in (k, k, k)])
    im.save("%s/voc-masks/%05d.png" % (out, i))
print(bad, file=open(out + "/voc-masks.bad", "w"))
EOF
    echo "$n_voc v1" >"$DIR/voc-masks.stamp"
fi
ls "$DIR"/png-masks/*.png >"$DIR/png-masks.list"
ls "$DIR"/voc-masks/*.png >"$DIR/voc-masks.list"
ls "$DIR"/nii-volumes/*.nii.gz >"$DIR/nii-volumes.list"

py_loop() {   # py_loop OPEN-EXPR LIST CLASSES: the loop users write
    "$PY" -c "import sys, numpy as np, nibabel as nib; from PIL import Image
n = $3; bad = 0; hist = np.zeros(n, np.int64)
for p in open(sys.argv[1]).read().split():
    a = $1
    ok = a < n
    bad += int(a.size - ok.sum()); hist += np.bincount(a[ok].ravel(), minlength=n)
print(bad)" "$2"
}
export -f py_loop
export PY

tools_for() {   # tools_for INPUT: "name|command" lines; each command prints the bad count
    local list=$DIR/$1.list
    case $1 in
    png-masks)
        echo "labelaudit|'$LABELAUDIT' -n 21 --json --no-progress -j $THREADS '$DIR/png-masks'"
        echo "C limit, libspng|'$DIR/limit-masks' spng '$list' 21 $THREADS"
        echo "C limit, libpng|'$DIR/limit-masks' libpng '$list' 21 $THREADS"
        echo "Python: PIL + numpy|py_loop 'np.array(Image.open(p))' '$list' 21" ;;
    voc-masks)
        echo "labelaudit|'$LABELAUDIT' -n 21 --json --no-progress -j $THREADS '$DIR/voc-masks'"
        echo "C limit, libspng|'$DIR/limit-masks' spng '$list' 21 $THREADS"
        echo "libspng decoding alone|'$DIR/limit-masks' spng-decode '$list' 21 $THREADS"
        echo "C limit, libpng|'$DIR/limit-masks' libpng '$list' 21 $THREADS"
        echo "Python: PIL + numpy|py_loop 'np.array(Image.open(p))' '$list' 21" ;;
    nii-volumes)
        echo "labelaudit|'$LABELAUDIT' -n 5 --json --no-progress -j $THREADS '$DIR/nii-volumes'"
        echo "C limit, zlib|'$DIR/limit-masks' niigz '$list' 5 $THREADS"
        echo "Python: nibabel + numpy|py_loop 'np.asarray(nib.load(p).dataobj)' '$list' 5" ;;
    esac
}

measure() {   # measure NAME CMD: sets secs, rss_kb, bad
    timed "$2"
    if [ "$1" = labelaudit ]; then
        bad=$(jq '[.files[].invalid.count] | add' "$DIR/out" 2>/dev/null || echo "?")
    else
        bad=$(cat "$DIR/out")
    fi
}

declare -A times rss found
for input in png-masks voc-masks nii-volumes; do
    mapfile -t tools < <(tools_for "$input")
    cat "$DIR/$input"/* >/dev/null
    for run in $(seq "$RUNS"); do
        for tool in "${tools[@]}"; do
            measure "${tool%%|*}" "${tool#*|}" </dev/null
            times[$input|${tool%%|*}]+="$secs "
            r=${rss[$input|${tool%%|*}]:-0}
            rss[$input|${tool%%|*}]=$((rss_kb > r ? rss_kb : r))
            found[$input|${tool%%|*}]=$bad
        done
    done
done

echo "## Mask folders: scale $SCALE, $THREADS threads, median of $RUNS runs less the harness's $HARNESS_SECS s"
echo
echo "| input | tool | median s | files/s | peak RSS MiB | x limit | labelaudit faster by | bad found |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
status=0
verdicts=()
for input in png-masks voc-masks nii-volumes; do
    n=$(wc -l <"$DIR/$input.list")
    want=$(cat "$DIR/$input.bad")
    mapfile -t tools < <(tools_for "$input")
    la=$(echo "${times[$input|labelaudit]}" | tr ' ' '\n' | median)
    lim=$(echo "${times[$input|${tools[1]%%|*}]}" | tr ' ' '\n' | median)
    py=$(echo "${times[$input|${tools[-1]%%|*}]}" | tr ' ' '\n' | median)
    for tool in "${tools[@]}"; do
        name=${tool%%|*}
        t=$(echo "${times[$input|$name]}" | tr ' ' '\n' | median)
        got=${found[$input|$name]}
        [ "$got" = "$want" ] || [ "$got" = - ] || { got="$got (want $want)"; status=1; }
        awk -v i="$input ($n files)" -v n="$name" -v t="$t" -v f="$n" -v r="${rss[$input|$name]}" \
            -v l="$lim" -v a="$la" -v g="$got" 'BEGIN {
            printf "| %s | %s | %.3f | %.0f | %.1f | %.2f | %s | %s |\n", i, n, t, f / t, r / 1024,
                   t / l, n == "labelaudit" ? "" : sprintf("%.1fx", t / a), g }'
    done
    target=1.3
    [ "$input" = voc-masks ] && target=1.2
    v=$(awk -v a="$la" -v l="$lim" -v p="$py" -v r="${rss[$input|labelaudit]}" -v m=$MAX_RSS_KB \
            -v t=$target 'BEGIN {
        ok = a / l <= t && p / a >= 3 && r <= m
        printf "%s labelaudit/limit %.2f (<= %.1f), Python/labelaudit %.1f (>= 3), RSS %.1f MiB (< 64): %s",
               ok ? "ok" : "MISSED", a / l, t, p / a, r / 1024, ok ? "met" : "missed" }')
    case $v in MISSED*) status=1 ;; esac
    verdicts+=("- \`$input\`: ${v#* }")
done
echo
echo "Targets:"
printf '%s\n' "${verdicts[@]}"
exit $status
