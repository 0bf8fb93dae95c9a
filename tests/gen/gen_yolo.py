#!/usr/bin/env python3
"""Truth for tests/readers/yolo.sh from Ultralytics itself.

Writes the label files of CASES below into tests/data/yolo/labels/, runs
ultralytics.data.utils.verify_image_label on each (with a 16x16 PNG as its
image, nc = 5, a detection task: no keypoints) and writes
tests/data/yolo/truth.tsv, one line per file:

    NAME <tab> kept|dropped <tab> DUPLICATES <tab> ULTRALYTICS' MESSAGE

kept: Ultralytics trains on the file's labels (less DUPLICATES rows, which it
removes with a warning); dropped: it logs "ignoring corrupt image/label: ..."
and the image trains with no labels.

    pip install --no-deps ultralytics opencv-python-headless   # and torch, torchvision, numpy, PIL
    python3 tests/gen/gen_yolo.py

make check never runs this; it reads the committed files.
"""
import os
import re
import shutil
import sys
import tempfile

from PIL import Image
import ultralytics
from ultralytics.data.utils import verify_image_label

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "yolo")
NC = 5
BOX = "0 0.5 0.5 0.2 0.2\n"
POLY = "1 0.1 0.1 0.4 0.1 0.4 0.4\n"

CASES = {
    "box-ok": BOX + "1 0.5 0.5 0.2 0.2\n",
    "poly-ok": POLY + "2 0.1 0.1 0.4 0.1 0.4 0.4 0.1 0.4\n",
    # a box among polygons, either order
    "mixed-box-first": BOX + POLY,
    "mixed-poly-first": POLY + BOX,
    # what strtod reads and Python's float() does not, and the other way round
    "hex-coordinate": "0 0x1p-1 0.5 0.2 0.2\n",
    "hex-class": "0x1 0.5 0.5 0.2 0.2\n",
    "hex-integer": "0 0x0 0.5 0.2 0.2\n",
    "nan-payload": "0 nan(1) 0.5 0.2 0.2\n",
    "underscore": "0 0.5 0.5 0.2_5 0.2\n",
    "underscore-bad": "0 0.5 0.5 0._25 0.2\n",
    "underscore-double": "0 0.5 0.5 0.2__5 0.2\n",
    "exponent-plus-dot": "+0 5e-1 +.5 .2 2E-1\n",
    "infinity-word": "0 0.5 0.5 Infinity 0.2\n",
    "inf-truncated": "0 0.5 0.5 infinit 0.2\n",
    "overflow-float32": "0 0.5 0.5 1e39 0.2\n",
    "underflow-float32": "0 0.5 0.5 1e-50 0.2\n",
    "nan-coordinate": "0 nan 0.5 0.2 0.2\n",
    "nan-class": "nan 0.5 0.5 0.2 0.2\n",
    # Ultralytics' 1% tolerance
    "above-1-within": "0 1.005 0.5 0.2 0.2\n",
    "below-0-within": "0 -0.005 0.5 0.2 0.2\n",
    "above-1-beyond": "0 1.02 0.5 0.2 0.2\n",
    "below-0-beyond": "0 -0.02 0.5 0.2 0.2\n",
    "width-negative-within": "0 0.5 0.5 -0.005 0.2\n",
    "width-zero": "0 0.5 0.5 0 0.2\n",
    # the class
    "class-one-point-zero": "1.0 0.5 0.5 0.2 0.2\n",
    "class-float32-integer": "1.00000001 0.5 0.5 0.2 0.2\n",
    "class-fraction": "1.5 0.5 0.5 0.2 0.2\n",
    "class-negative": "-1 0.5 0.5 0.2 0.2\n",
    "class-negative-zero": "-0 0.5 0.5 0.2 0.2\n",
    "class-small-negative": "-0.005 0.5 0.5 0.2 0.2\n",
    "class-too-big": "7 0.5 0.5 0.2 0.2\n",
    # field counts
    "six-fields": "0 0.1 0.2 0.3 0.4 0.5\n",
    "three-fields": "1 2 3\n",
    "ragged": BOX + "0 0.5 0.5 0.2\n",
    "poly-and-point": POLY + "1 0.5 0.5\n",
    "poly-and-four": POLY + "1 0.5 0.5 0.5\n",
    "poly-and-class-only": POLY + "1\n",
    "poly-and-six": POLY + "1 0.1 0.2 0.3 0.4 0.5\n",
    "poly-even": "0 0.1 0.1 0.4 0.1 0.4 0.4 0.5\n",
    # a polygon is checked by its box (centre, size), not by its points
    "poly-point-above-1": "0 0.5 0.5 1.5 0.5 1.5 1.5\n",
    "poly-box-above-1": "0 0.9 0.9 1.2 0.9 1.2 1.2\n",
    "poly-point-negative": "0 -0.1 0.1 0.5 0.1 0.5 0.5\n",
    "poly-inf": "0 0.1 0.1 inf 0.1 0.4 0.4\n",
    # duplicates, as float32 rows
    "duplicate-box": BOX + "0 0.50000001 0.5 0.2 0.2\n" + BOX,
    "duplicate-poly": POLY + POLY + "1 0.1 0.1 0.4 0.4 0.4 0.1\n",
    # what Python calls a line and a field
    "bom": "\ufeff" + BOX,
    "cr-lines": BOX.replace("\n", "\r") + "1 0.5 0.5 0.2 0.2\r",
    "crlf-lines": BOX.replace("\n", "\r\n") + "1 0.5 0.5 0.2 0.2\r\n",
    "vt-line-break": BOX.replace("\n", "\x0b") + "1 0.5 0.5 0.2 0.2\n",
    "ff-line-break": BOX.replace("\n", "\x0c") + "1 0.5 0.5 0.2 0.2\n",
    "fs-line-break": BOX.replace("\n", "\x1c") + "1 0.5 0.5 0.2 0.2\n",
    "unit-separator-space": "0\x1f0.5 0.5 0.2 0.2\n",
    "nbsp-space": "0\u00a00.5 0.5 0.2 0.2\n",
    "ideographic-space": "0\u30000.5 0.5 0.2 0.2\n",
    "line-separator": BOX.replace("\n", "\u2028") + "1 0.5 0.5 0.2 0.2\n",
    "next-line": BOX.replace("\n", "\u0085") + "1 0.5 0.5 0.2 0.2\n",
    "tabs": "0\t0.5\t0.5\t0.2\t0.2\n",
    "blank-lines": "\n  \n" + BOX + "\n\t\n",
    "whitespace-only": " \n\t\n",
    "empty": "",
    "invalid-utf8": BOX.encode() + b"\xff\n",
    "utf8-in-field": "0 0.5\u00e9 0.5 0.2 0.2\n",
}


def verdict(lb_file, im_file):
    r = verify_image_label((im_file, lb_file, "", False, NC, 0, 0, False))
    nc, msg = r[8], r[9]
    if nc:
        return "dropped", 0, msg.split("ignoring corrupt image/label: ", 1)[1]
    m = re.search(r"(\d+) duplicate labels removed", msg)
    return "kept", int(m.group(1)) if m else 0, msg


def main():
    labels = os.path.join(HERE, "labels")
    shutil.rmtree(labels, ignore_errors=True)
    os.makedirs(labels)
    rows = []
    with tempfile.TemporaryDirectory() as top:
        im_file = os.path.join(top, "im.png")
        Image.new("L", (16, 16)).save(im_file)
        for name, text in sorted(CASES.items()):
            lb_file = os.path.join(labels, name + ".txt")
            with open(lb_file, "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
            kind, dups, msg = verdict(lb_file, im_file)
            msg = " ".join(msg.replace(im_file, "IMAGE").split())
            rows.append(f"{name}\t{kind}\t{dups}\t{msg}\n")
    with open(os.path.join(HERE, "truth.tsv"), "w", encoding="utf-8") as f:
        f.write(f"# verify_image_label of ultralytics {ultralytics.__version__}, nc = {NC}\n")
        f.writelines(rows)


if __name__ == "__main__":
    sys.exit(main())
