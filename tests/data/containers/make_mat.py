#!/usr/bin/env python3
"""make_mat.py - the MATLAB .mat fixtures of tests/containers.sh, written by
SciPy's savemat (v5, and "-v7", compressed; `pip install scipy numpy`, or
Debian's python3-scipy). The v7.3 ones come from make_mat73.c.
Committed; run it again only to change them."""
import os
import numpy as np
from scipy.io import savemat

here = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(here, name)


# Oxford Flowers-102's imagelabels.mat: 'labels', 1x8189 doubles in 1..102
flowers = np.array([[77, 77, 1, 102, 52, 73]], dtype=np.float64)
savemat(path("mat-flowers-v5.mat"), {"labels": flowers})
savemat(path("mat-flowers-v7.mat"), {"labels": flowers}, do_compression=True)
# SVHN's train_32x32.mat: 'X' images and 'y', an Nx1 column of 1..10 (10 is the digit 0)
svhn_y = np.array([[1], [9], [2], [10], [3], [10]], dtype=np.uint8)
savemat(path("mat-svhn.mat"), {"X": np.zeros((4, 4, 3, 6), np.uint8), "y": svhn_y},
        do_compression=True)
# a matrix: MATLAB keeps it column-major; reported in C order
savemat(path("mat-matrix.mat"), {"masks": np.arange(12, dtype=np.int32).reshape(3, 4)})
savemat(path("mat-two.mat"), {"a": np.zeros(3), "b": np.ones(3)})
savemat(path("mat-cell.mat"), {"names": np.array(["cat", "dog"], dtype=object)})
savemat(path("mat-logical.mat"), {"t": np.array([[True, False, True]])})

# v7.3 (HDF5 inside): SciPy cannot write it; make_mat73.c does, through libmatio

# samples/imagelabels.mat: as Oxford Flowers-102 ships it, 1x60 doubles in 1..102
rng = np.random.default_rng(102)
flowers_all = rng.integers(1, 103, size=(1, 60)).astype(np.float64)
flowers_all[0, 3], flowers_all[0, 40] = 1, 102           # the ends of 1..102
savemat(os.path.join(here, "..", "..", "..", "samples", "imagelabels.mat"), {"labels": flowers_all})
