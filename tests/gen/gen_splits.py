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
