#!/usr/bin/env python3
"""Fixtures of datasets kept as splits (SPEC "Splits"), each written by the
tool users keep them with, and the verdicts tests/datasets/splits.sh holds
labelaudit to: scipy.stats.chi2_contingency and a numpy total variation
distance on the same counts for label-drift, a Python set of the keys for
split-overlap.

    python3 tests/gen/gen_splits.py tests/data/splits

Needs datasets, numpy, scipy and Pillow (PyPI); make check runs no Python.
"""
import hashlib
import os
import shutil
import sys

import numpy as np
from datasets import ClassLabel, Dataset, DatasetDict, Features, Value
from PIL import Image
from scipy.stats import chi2_contingency

out = sys.argv[1]
rng = np.random.default_rng(46)
verdicts = []


def drift_verdict(name, a, b):
    """label-drift's numbers, as scipy and numpy give them."""
    n = max(len(a), len(b))
    a = np.pad(np.asarray(a), (0, n - len(a)))
    b = np.pad(np.asarray(b), (0, n - len(b)))
    keep = (a + b) > 0
    t = chi2_contingency(np.stack([a[keep], b[keep]]))
    tvd = 0.5 * np.abs(a / a.sum() - b / b.sum()).sum()
    verdicts.append(f"{name} tvd={tvd:.3f} chi2={t.statistic:.1f} dof={t.dof} p={t.pvalue:.2g}")


# 1. A DatasetDict saved with save_to_disk: test holds class 3, which train lacks.
feat = Features({"text": Value("string"), "label": ClassLabel(names=["neg", "neu", "pos", "mixed"])})
train = [0, 1, 2] * 20
test = [0, 1, 2, 3, 3, 0, 1, 2, 3, 0]
dd = DatasetDict({
    "train": Dataset.from_dict({"text": [f"t{i}" for i in range(len(train))], "label": train}, features=feat),
    "test": Dataset.from_dict({"text": [f"s{i}" for i in range(len(test))], "label": test}, features=feat),
})
shutil.rmtree(f"{out}/dsdict", ignore_errors=True)
dd.save_to_disk(f"{out}/dsdict")
drift_verdict("dsdict test", np.bincount(train, minlength=4), np.bincount(test, minlength=4))

# 2. Split folders of CSV files (pandas to_csv): val drawn from another distribution.
def write_csv(path, labels):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    import pandas as pd
    pd.DataFrame({"label": labels}).to_csv(path, index=False)

tr = rng.permutation(np.repeat(np.arange(5), 100))
va = rng.permutation(np.repeat(np.arange(5), [60, 10, 10, 10, 10]))
te = rng.permutation(np.repeat(np.arange(5), 20))
shutil.rmtree(f"{out}/csv-drift", ignore_errors=True)
for name, labels in (("train", tr), ("val", va), ("test", te)):
    write_csv(f"{out}/csv-drift/{name}/labels.csv", labels)
drift_verdict("csv-drift val", np.bincount(tr, minlength=5), np.bincount(va, minlength=5))
drift_verdict("csv-drift test", np.bincount(tr, minlength=5), np.bincount(te, minlength=5))

# 3. ImageFolder splits (PIL): cat/dup.png is the same image in train and
#    val (a leak); cat/0001.png is named alike in both but another image
#    (CIFAR-style numbering: no leak); dog/copy.png in val is train's
#    dog/orig.png renamed (found by --overlap=hash only).
root = f"{out}/images"
shutil.rmtree(root, ignore_errors=True)
def png(path, seed):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pixels = np.random.default_rng(seed).integers(0, 256, (4, 4, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(path)
png(f"{root}/train/cat/dup.png", 1)
png(f"{root}/val/cat/dup.png", 1)
png(f"{root}/train/cat/0001.png", 2)
png(f"{root}/val/cat/0001.png", 3)
png(f"{root}/train/dog/orig.png", 4)
png(f"{root}/val/dog/copy.png", 4)
png(f"{root}/train/dog/0002.png", 5)
with open(f"{root}/README.md", "w") as f:
    f.write("images per split\n")

def keys(split, by_content):
    base = f"{root}/{split}"
    ks = {}
    for d, _, files in os.walk(base):
        for name in files:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, base)
            data = open(p, "rb").read()
            ks[hashlib.sha256(data).hexdigest() if by_content else (rel, data)] = rel
    return ks

for by_content in (False, True):
    a, b = keys("train", by_content), keys("val", by_content)
    common = sorted(a[k] for k in set(a) & set(b))
    verdicts.append(f"images overlap={'hash' if by_content else 'path'} "
                    f"count={len(common)} first={','.join(common)}")

with open(f"{out}/verdicts.txt", "w") as f:
    f.write("\n".join(verdicts) + "\n")
print("\n".join(verdicts))

# 4. Random 2 x K tables (1 to 8 classes, zeros among them, dof 1 included):
#    drift.c's statistic and p-value against scipy's, digit for digit.
with open(f"{out}/drift-table.txt", "w") as f:
    f.write("# K a[0..K) b[0..K) tvd chi2 dof p (scipy.stats.chi2_contingency, numpy)\n")
    for case in range(60):
        k = int(rng.integers(2, 9))
        scale = [5, 50, 5000][case % 3]
        a = rng.integers(0, scale, k)
        b = rng.integers(0, scale, k)
        if case % 5 == 0:
            b[int(rng.integers(0, k))] = 0
        if case % 7 == 0:
            a[2:] = 0
            b[2:] = 0
        if a.sum() == 0 or b.sum() == 0:
            continue
        keep = (a + b) > 0
        if keep.sum() < 2:
            continue
        t = chi2_contingency(np.stack([a[keep], b[keep]]))
        tvd = 0.5 * np.abs(a / a.sum() - b / b.sum()).sum()
        f.write(f"{k} {' '.join(map(str, a))} {' '.join(map(str, b))} "
                f"{float(tvd)!r} {float(t.statistic)!r} {t.dof} {float(t.pvalue)!r}\n")

# 5. The README's example: the split folders of CSV files, as a sample.
shutil.rmtree("samples/splits", ignore_errors=True)
shutil.copytree(f"{out}/csv-drift", "samples/splits")

# 6. The layouts that keep splits. YOLO as Ultralytics reads it: data.yaml's
#    train/val image folders, each image's labels where img2label_paths puts
#    them (the last /images/ made /labels/); val/a.jpg and its labels are
#    train's (a leak). A Roboflow export: train/images ... with data.yaml's
#    "../train/images", which check_det_dataset retries without the "../".
def yolo_tree(top, dirs, yaml):
    shutil.rmtree(top, ignore_errors=True)
    for split, files in dirs.items():
        for name, lines in files.items():
            img, lab = split.replace("LABELS", "images"), split.replace("LABELS", "labels")
            os.makedirs(f"{top}/{img}", exist_ok=True)
            os.makedirs(f"{top}/{lab}", exist_ok=True)
            Image.fromarray(np.full((4, 4, 3), len(name) * 17 + len(lines), np.uint8)).save(f"{top}/{img}/{name}.jpg")
            with open(f"{top}/{lab}/{name}.txt", "w") as f:
                f.write("".join(f"{c} 0.5 0.5 0.2 0.2\n" for c in lines))
    with open(f"{top}/data.yaml", "w") as f:
        f.write(yaml)

yolo_tree(f"{out}/yolo", {
    "LABELS/train": {"a": [0, 1], "b": [0], "c": [1, 1]},
    "LABELS/val": {"a": [0, 1], "d": [2]},
}, "path: .\ntrain: images/train\nval: images/val\nnc: 3\nnames: [cat, dog, bird]\n")
yolo_tree(f"{out}/roboflow", {
    "train/LABELS": {"x": [0], "y": [1]},
    "valid/LABELS": {"z": [0]},
    "test/LABELS": {"w": [1]},
}, "train: ../train/images\nval: ../valid/images\ntest: ../test/images\nnc: 2\nnames: [a, b]\n")

# nnU-Net: labelsTr (train) and labelsTs (test), PNG label maps; class 2 in test only.
top = f"{out}/nnunet"
shutil.rmtree(top, ignore_errors=True)
for split, cases in (("Tr", {"case_001": 1, "case_002": 1}), ("Ts", {"case_101": 2})):
    os.makedirs(f"{top}/labels{split}", exist_ok=True)
    os.makedirs(f"{top}/images{split}", exist_ok=True)
    for case, c in cases.items():
        m = np.zeros((8, 8), np.uint8)
        m[2:5, 2:5] = c
        Image.fromarray(m).save(f"{top}/labels{split}/{case}.png")
        Image.fromarray(np.full((8, 8), 100, np.uint8)).save(f"{top}/images{split}/{case}_0000.png")
with open(f"{top}/dataset.json", "w") as f:
    f.write('{"channel_names": {"0": "CT"}, "labels": {"background": 0, "liver": 1, "tumour": 2},'
            ' "numTraining": 2, "file_ending": ".png"}\n')

# COCO: annotations/instances_train.json and instances_val.json; category 3 in val only.
import json
top = f"{out}/coco"
shutil.rmtree(top, ignore_errors=True)
os.makedirs(f"{top}/annotations")
def coco(images, cats):
    return {"images": [{"id": i + 1, "file_name": f, "width": 8, "height": 8} for i, f in enumerate(images)],
            "annotations": [{"id": k + 1, "image_id": k % len(images) + 1, "category_id": c,
                             "bbox": [1, 1, 2, 2], "area": 4, "iscrowd": 0} for k, c in enumerate(cats)],
            "categories": [{"id": c, "name": f"c{c}"} for c in (1, 2, 3)]}
json.dump(coco(["a.jpg", "b.jpg"], [1, 2, 1, 2]), open(f"{top}/annotations/instances_train.json", "w"))
json.dump(coco(["c.jpg"], [3, 1]), open(f"{top}/annotations/instances_val.json", "w"))
