#!/usr/bin/env python3
"""make_hdf5.py - the HDF5 fixtures of tests/containers.sh, written by h5py
(`pip install h5py numpy`, or Debian's python3-h5py). Committed; run it
again only to change them."""
import os
import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
labels = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3, 4], dtype=np.int64)


def h5(name):
    return h5py.File(os.path.join(here, name), "w", track_order=True)


with h5("h5-labels.h5") as f:                        # the only dataset
    f["y"] = labels
with h5("h5-groups.h5") as f:                        # --array /train/labels
    f.create_dataset("train/images", data=np.zeros((12, 2, 2), np.float32))
    f.create_dataset("train/labels", data=labels)
    f.create_dataset("test/labels", data=labels[:4] - 1)
with h5("h5-two.h5") as f:                           # the default rule: /labels
    f["x"] = np.zeros((12, 3), np.float32)
    f["labels"] = labels
# PatchCamelyon's camelyonpatch_level_2_split_*_y.h5: (N, 1, 1, 1) uint8, gzip
with h5("h5-pcam-y.h5") as f:
    f.create_dataset("y", data=np.array([0, 1, 1, 0, 2, 1], np.uint8).reshape(6, 1, 1, 1),
                     chunks=(2, 1, 1, 1), compression="gzip", shuffle=True)
# chunked and gzip + shuffle, chunks that do not divide the shape, big-endian
rows = np.arange(7 * 5, dtype=">i4").reshape(7, 5) % 13
with h5("h5-chunked.h5") as f:
    f.create_dataset("masks", data=rows, chunks=(3, 2), compression="gzip", shuffle=True)
with h5("h5-dtypes.h5") as f:
    f["bool"] = np.array([True, False, True])
    f["f16"] = np.array([0.0, 1.0, 0.5, 2.0], np.float16)
    f["f64"] = np.array([1.0, 2.0, 3.0])
    f["u16"] = np.array([0, 1, 65535], np.uint16)
    f["scalar"] = np.int64(7)
    f["text"] = np.array([b"cat", b"dog"])
    f["empty"] = np.zeros(0, np.int64)
