#!/usr/bin/env python3
"""Fixtures of labels and the images they label (SPEC "A label and what it
labels"), made with PIL, and the truth tests/datasets/pairs.sh holds
labelaudit to: each image's size as PIL's Image.open(p).size gives it
(sizes.txt), and the pairs that disagree.

    python3 tests/gen/gen_pairs.py tests/data/pairs

Needs numpy and Pillow (PyPI); make check runs no Python.
"""
import os
import shutil
import sys

import numpy as np
from PIL import Image

out = sys.argv[1]
shutil.rmtree(out, ignore_errors=True)


def image(path, w, h, **save):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.full((h, w, 3), 90, np.uint8)).save(path, **save)


def mask(path, w, h, value=1):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    m = np.zeros((h, w), np.uint8)
    m[: h // 2] = value
    Image.fromarray(m).save(path)


# Pascal VOC: 2007_000001 paired; 2007_000002's mask is 32x24 for a 32x20
# image (size-mismatch); 2007_000003 has no image, 2007_000004 no mask
# (missing-pair both ways).
voc = f"{out}/voc"
image(f"{voc}/JPEGImages/2007_000001.jpg", 32, 24)
mask(f"{voc}/SegmentationClass/2007_000001.png", 32, 24)
image(f"{voc}/JPEGImages/2007_000002.jpg", 32, 20)
mask(f"{voc}/SegmentationClass/2007_000002.png", 32, 24)
mask(f"{voc}/SegmentationClass/2007_000003.png", 32, 24)
image(f"{voc}/JPEGImages/2007_000004.jpg", 32, 24)

# YOLO: a.txt and b.txt have images, c.txt none (missing-pair); bg.jpg has
# no label file: a background image, which Ultralytics trains on (a notice).
yolo = f"{out}/yolo"
for name in ("a", "b", "bg"):
    image(f"{yolo}/images/{name}.jpg", 16, 16)
os.makedirs(f"{yolo}/labels")
for name in ("a", "b", "c"):
    with open(f"{yolo}/labels/{name}.txt", "w") as f:
        f.write("0 0.5 0.5 0.2 0.2\n")
with open(f"{yolo}/data.yaml", "w") as f:
    f.write("path: .\ntrain: images\nval: images\nnc: 1\nnames: [thing]\n")

# Cityscapes: the suffixes each side adds; the second label map is 64x32
# for a 64x30 image.
cs = f"{out}/cityscapes"
for i, h in ((19, 32), (20, 30)):
    stem = f"aachen_000000_0000{i}"
    image(f"{cs}/leftImg8bit/train/aachen/{stem}_leftImg8bit.png", 64, h)
    mask(f"{cs}/gtFine/train/aachen/{stem}_gtFine_labelIds.png", 64, 32, value=7)

# Every header labelaudit reads, with --images: PNG, JPEG (progressive too),
# TIFF, WebP (lossy and lossless), BMP; the masks all 20x12, one image each.
kinds = {"png": {}, "jpg": {}, "progressive.jpg": {"progressive": True}, "tif": {},
         "webp": {"lossless": False}, "lossless.webp": {"lossless": True}, "bmp": {},
         # an ICC profile of 100 KB before the frame header: past the first 64 KiB
         "icc.jpg": {"icc_profile": bytes(100_000)}}
sizes = []
for k, (ext, save) in enumerate(kinds.items()):
    stem = f"img{k}"
    ext = ext.split(".")[-1]                            # the kind is in the fixture list only
    w, h = (20, 12) if k % 2 == 0 else (21, 12)       # the odd ones disagree
    image(f"{out}/formats/images/{stem}.{ext}", w, h, **save)
    mask(f"{out}/formats/masks/{stem}.png", 20, 12)
    with Image.open(f"{out}/formats/images/{stem}.{ext}") as im:
        sizes.append(f"{stem}.{ext} {im.size[0]} {im.size[1]}")
with open(f"{out}/sizes.txt", "w") as f:
    f.write("\n".join(sizes) + "\n")
print("\n".join(sizes))
