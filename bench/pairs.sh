#!/usr/bin/env bash
# pairs.sh - the pairing goal in make bench: a Pascal VOC folder of 100,000
# mask/image pairs (32x24 PNG masks, 32x24 JPEG images) audited, each mask
# paired with its image and held to its size, at least 5 times faster than
# the Python loop a user writes (PIL's Image.open(p).size over both, the
# sizes compared), with the bytes read per image (headers only: at most
# 64 KiB each, from -v's count of header bytes). The files are hard links
# of one mask and one image: they cost no blocks, and both tools read them
# from the page cache alike. The Python row needs PIL (PYTHON, default
# python3); without it the goal is not checked. BENCH_SCALE (1) scales the
# count; BENCH_DIR keeps the files; BENCH_RUNS (3) runs each, the median.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"   # strict mode, LABELAUDIT's absolute path, timed, median
DIR=${BENCH_DIR:-bench-data}/pairs
RUNS=${BENCH_RUNS:-3}
PYTHON=${PYTHON:-python3}
N=$(awk -v s="${BENCH_SCALE:-1}" 'BEGIN { n = int(100000 * s); print n < 10 ? 10 : n }')
GOAL=5
voc=$DIR/voc
if [ "$(cat "$DIR/count" 2>/dev/null)" != "$N" ]; then
    rm -rf "$voc" && mkdir -p "$voc/JPEGImages" "$voc/SegmentationClass"
    # one 32x24 mask and its image, as PIL wrote them (tests/gen/gen_pairs.py)
    src=$here/../tests/data/pairs/voc
    cp "$src/SegmentationClass/2007_000001.png" "$DIR/one.png"
    cp "$src/JPEGImages/2007_000001.jpg" "$DIR/one.jpg"
    awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "%06d\n", i }' |
        while read -r k; do
            # (past the file system's links to one file, ext4's 65,000: copies)
            ln "$DIR/one.png" "$voc/SegmentationClass/$k.png" 2>/dev/null ||
                cp "$DIR/one.png" "$voc/SegmentationClass/$k.png"
            ln "$DIR/one.jpg" "$voc/JPEGImages/$k.jpg" 2>/dev/null ||
                cp "$DIR/one.jpg" "$voc/JPEGImages/$k.jpg"
        done
    echo "$N" >"$DIR/count"
fi
cat >"$DIR/loop.py" <<'PY'
import os, sys
from PIL import Image
root = sys.argv[1]
bad = 0
for name in os.listdir(f"{root}/SegmentationClass"):
    stem = name[:-4]
    with Image.open(f"{root}/SegmentationClass/{name}") as m, \
         Image.open(f"{root}/JPEGImages/{stem}.jpg") as i:
        bad += m.size != i.size
print(bad)
PY
HARNESS_SECS=$(harness_secs)
la=() py=()
for _ in $(seq "$RUNS"); do
    timed "'$LABELAUDIT' -q -n 21 '$voc'"
    la+=("$secs")
done
"$LABELAUDIT" -v -n 21 "$voc" >/dev/null 2>"$DIR/verbose" || true
bytes=$(sed -n 's/.*paired with the images in .*: \([0-9]*\) of \([0-9]*\) images, \([0-9]*\) bytes of headers read/\3 \2/p' \
    "$DIR/verbose" | awk '{ printf "%.0f", $2 ? $1 / $2 : 0 }')
have_pil=0
"$PYTHON" -c 'import PIL' 2>/dev/null && have_pil=1
for _ in $(seq "$RUNS"); do
    [ "$have_pil" = 1 ] || break
    timed "'$PYTHON' '$DIR/loop.py' '$voc'"
    py+=("$secs")
done
l=$(printf '%s\n' "${la[@]}" | median)
echo "## Pairs: $N mask/image pairs, sizes from the headers (load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| run | seconds | |"
echo "|---|---:|---|"
echo "| labelaudit: the masks audited, paired, sized | $l | $bytes bytes read per image header |"
if [ "$have_pil" = 0 ]; then
    echo "| Python, Image.open(p).size | | not run: $PYTHON has no PIL |"
    exit 0
fi
p=$(printf '%s\n' "${py[@]}" | median)
ratio=$(awk -v p="$p" -v l="$l" 'BEGIN { printf "%.1f", (l > 0 ? p / l : 0) }')
echo "| Python, Image.open(p).size over both | $p | |"
if awk -v r="$ratio" -v g="$GOAL" -v b="$bytes" 'BEGIN { exit !(r >= g && b <= 65536) }'; then
    echo "| labelaudit's speed-up | $ratio x | ok (goal >= $GOAL x, <= 64 KiB a header) |"
else
    echo "| labelaudit's speed-up | $ratio x | MISS (goal >= $GOAL x, <= 64 KiB a header) |"
    exit 1
fi
