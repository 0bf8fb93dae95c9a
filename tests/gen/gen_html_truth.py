#!/usr/bin/env python3
"""gen_html_truth.py - write tests/data/html-bad-255.txt (committed; run again
only when the masks change): for each mask tests/outputs/html.sh draws, its name and
how many of its pixels are 255, as PIL reads the image (np.array(Image.open(p))).
With -n 21 those are exactly its bad pixels, which the --overlays PNG and the
--html thumbnail must mark. Needs PIL and numpy; make check does not."""
import glob, os

import numpy as np
from PIL import Image

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
masks = sorted(glob.glob(os.path.join(top, "samples/voc-masks/*.png")))
masks.append(os.path.join(top, "tests/data/masks/voc512.png"))
with open(os.path.join(top, "tests/data/html-bad-255.txt"), "w") as out:
    for p in masks:
        a = np.array(Image.open(p))
        out.write("%s %d %dx%d\n" % (os.path.basename(p), int((a == 255).sum()), a.shape[1], a.shape[0]))
