#!/usr/bin/env bash
# detection.sh - the detection formats' speed goals, run by `make bench` after run.sh:
#   * a COCO-like instances file of 500 MB (2.2 million annotations with a
#     polygon each; generated), through labelaudit --format=coco, Python's
#     json.load plus the same checks, and jq doing the category-id check:
#     labelaudit at least 5 times faster than json.load, in under 64 MiB;
#   * a YOLO folder of 100,000 label files and an ImageFolder of 100,000 empty
#     files in 100 classes: labelaudit against the Python loop that does the
#     same (Ultralytics' per-file parse; torchvision's make_dataset walk).
# BENCH_SCALE=0.01 makes everything 100 times smaller. Environment as run.sh:
# LABELAUDIT, BENCH_PYTHON, BENCH_SCALE, BENCH_DIR. Exit 1 when a target is
# missed or the tools disagree; 0 with a note when labelaudit lacks coco.
set -euo pipefail
export LC_ALL=C
LABELAUDIT=${LABELAUDIT:-./labelaudit}
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-bench-data}/detection
PY=${BENCH_PYTHON:-python3}
mkdir -p "$DIR"
n_ann=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 2200000 * s + 1 }')
n_files=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 100000 * s + 1 }')
fail=0

# timed LABEL CMD... : CPU seconds (user + sys) into $secs, peak RSS (KiB) into
# $rss. The ratios use CPU time: on a busy machine (2 cores shared by several
# builds) wall time measures the scheduler; on a quiet one the two agree, the
# tools being single-threaded here.
timed() {
    local label=$1 wall user sys
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$DIR/time" "$@" >"$DIR/$label.out" 2>"$DIR/$label.err" || true
    read -r wall user sys rss < <(tail -n 1 "$DIR/time")   # after "Command exited with non-zero status"
    secs=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    printf '| %-34s | %8.2f s | %8.2f s | %8d MiB |\n' "$label" "$secs" "$wall" $((rss / 1024))
}

echo "## Detection: COCO, YOLO, ImageFolder (scale $SCALE; load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| tool | CPU | wall | peak RSS |"
echo "|---|---:|---:|---:|"

# ---- COCO ------------------------------------------------------------------------
coco="$DIR/instances-$n_ann.json"
if [ ! -f "$coco" ]; then
    "$PY" - "$coco" "$n_ann" <<'PY'
import random, sys
path, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(14)
cats = [i for i in range(1, 91) if i not in (12, 26, 29, 30, 45, 66, 68, 69, 71, 83)]
n_img = max(1, n // 7)
with open(path, "w") as f:
    f.write('{"info": {"description": "labelaudit bench"}, "images": [')
    f.write(",".join('{"id": %d, "file_name": "%012d.jpg", "width": 640, "height": 480}' % (i, i)
                     for i in range(1, n_img + 1)))
    f.write('], "categories": [')
    f.write(",".join('{"id": %d, "name": "c%d", "supercategory": "s"}' % (c, c) for c in cats))
    f.write('], "annotations": [')
    for k in range(0, n, 10000):
        rows = []
        for i in range(k, min(n, k + 10000)):
            c = 91 if i % 100000 == 7 else rnd.choice(cats)        # a few ids >= num_classes
            w = 0 if i % 100000 == 11 else rnd.randint(1, 200)     # a few degenerate boxes
            x, y, h = rnd.randint(0, 400), rnd.randint(0, 300), rnd.randint(1, 150)
            poly = ",".join("%.1f" % rnd.uniform(0, 640) for _ in range(16))
            rows.append('{"id": %d, "image_id": %d, "category_id": %d, "bbox": [%d.0, %d.0, %d.0, %d.0], '
                        '"area": %d.0, "iscrowd": 0, "segmentation": [[%s]]}'
                        % (i + 1, 1 + i % n_img, c, x, y, w, h, w * h, poly))
        f.write(("," if k else "") + ",".join(rows))
    f.write("]}\n")
PY
fi
echo "| (COCO file: $((($(stat -c %s "$coco") + 524288) / 1048576)) MB, $n_ann annotations) | | | |"
if "$LABELAUDIT" --version | grep -q '^Formats:.* coco'; then
    timed "labelaudit --format=coco -n 91" "$LABELAUDIT" --json --format=coco -n 91 "$coco"
    la_secs=$secs la_rss=$rss
    la_bad=$(jq '.files[0].invalid.above' "$DIR/labelaudit --format=coco -n 91.out")
    cat >"$DIR/check.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cats = {c["id"] for c in d["categories"]}
imgs = {i["id"]: (i["width"], i["height"]) for i in d["images"]}
bad = unknown = boxes = 0
for a in d["annotations"]:
    bad += a["category_id"] >= 91
    unknown += a["category_id"] not in cats or a["image_id"] not in imgs
    boxes += a["bbox"][2] <= 0 or a["bbox"][3] <= 0
print(bad, unknown, boxes)
PY
    timed "python3 json.load + checks" "$PY" "$DIR/check.py" "$coco"
    py_secs=$secs
    py_bad=$(cut -d' ' -f1 "$DIR/python3 json.load + checks.out")
    if command -v jq >/dev/null; then
        timed "jq (category_id >= 91)" jq '[.annotations[] | select(.category_id >= 91)] | length' "$coco"
    fi
    [ "$la_bad" = "$py_bad" ] || { echo "bench: labelaudit found $la_bad ids >= 91, python $py_bad"; fail=1; }
    ratio=$(awk -v a="$py_secs" -v b="$la_secs" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 99) }')
    echo
    echo "COCO: labelaudit ${ratio}x faster than json.load (target >= 5), $((la_rss / 1024)) MiB (target < 64)"
    awk -v r="$ratio" 'BEGIN { exit !(r >= 5) }' || { echo "bench: missed: COCO speed"; fail=1; }
    [ "$la_rss" -lt $((64 * 1024)) ] || { echo "bench: missed: COCO memory"; fail=1; }
else
    echo "| labelaudit built without yajl: COCO skipped | | | |"
fi

# ---- YOLO and ImageFolder: many small files ----------------------------------------
yolo="$DIR/yolo-$n_files" folder="$DIR/imagefolder-$n_files"
if [ ! -d "$yolo" ]; then
    "$PY" - "$yolo" "$folder" "$n_files" <<'PY'
import os, random, sys
yolo, folder, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(14)
os.makedirs(yolo)
for i in range(n):
    with open(os.path.join(yolo, "%07d.txt" % i), "w") as f:
        for _ in range(rnd.randint(0, 8)):
            f.write("%d %.6f %.6f %.6f %.6f\n" % (rnd.randrange(80), rnd.random(), rnd.random(),
                                                   rnd.uniform(0.01, 0.5), rnd.uniform(0.01, 0.5)))
for c in range(100):
    os.makedirs(os.path.join(folder, "class%03d" % c))
for i in range(n):
    open(os.path.join(folder, "class%03d" % (i % 100), "%07d.jpg" % i), "w").close()
PY
fi
timed "labelaudit --format=yolo -n 80" "$LABELAUDIT" --json --format=yolo -n 80 "$yolo"
yl_secs=$secs
cat >"$DIR/yolo.py" <<'PY'
import os, sys
import numpy as np
top, bad = sys.argv[1], 0
for root, _, files in sorted(os.walk(top)):
    for name in sorted(files):
        if name.endswith(".txt"):
            with open(os.path.join(root, name)) as f:
                lb = [x.split() for x in f.read().strip().splitlines() if len(x)]
            lb = np.array(lb, dtype=np.float32)
            if len(lb):
                bad += int((lb[:, 0] >= 80).sum() + (lb[:, 1:] > 1).any() + (lb < 0).any())
print(bad)
PY
timed "python3 Ultralytics-style loop" "$PY" "$DIR/yolo.py" "$yolo"
echo "YOLO: labelaudit $(awk -v a="$secs" -v b="$yl_secs" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 99) }')x the Python loop's speed"
timed "labelaudit --format=imagefolder" "$LABELAUDIT" --json --format=imagefolder -n 100 "$folder"
if_secs=$secs
if_n=$(jq '.files[0].samples' "$DIR/labelaudit --format=imagefolder.out")
cat >"$DIR/folder.py" <<'PY'
import os, sys
EXT = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")
root = sys.argv[1]
classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
samples = [(os.path.join(r, f), i) for i, c in enumerate(classes)
           for r, _, fs in sorted(os.walk(os.path.join(root, c), followlinks=True))
           for f in sorted(fs) if os.path.join(r, f).lower().endswith(EXT)]
print(len(samples))
PY
timed "python3 make_dataset loop" "$PY" "$DIR/folder.py" "$folder"
[ "$if_n" = "$(cat "$DIR/python3 make_dataset loop.out")" ] || { echo "bench: ImageFolder counts differ"; fail=1; }
echo "ImageFolder: labelaudit $(awk -v a="$secs" -v b="$if_secs" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 99) }')x the Python loop's speed"
exit $fail
