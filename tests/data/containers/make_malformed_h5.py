#!/usr/bin/env python3
"""make_malformed_h5.py - the broken HDF5 and .mat inputs of tests/malformed
(make.py there keeps to the standard library; these need h5py:
`pip install h5py numpy`).
Committed; run it again only to change them. MANIFEST says the answers."""
import os
import h5py
import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "malformed")


def path(name):
    return os.path.join(here, name)


# a dataspace of 2^60 elements: chunked, nothing written (HDF5 allows it)
with h5py.File(path("h5-2p60-elements.h5"), "w") as f:
    f.create_dataset("y", shape=(1 << 60,), dtype="i8", chunks=(1024,))
with h5py.File(path("h5-good.h5"), "w") as f:
    f["y"] = np.arange(5, dtype=np.int64)
with h5py.File(path("h5-compound.h5"), "w") as f:
    f["y"] = np.zeros(3, dtype=[("a", "i4"), ("b", "f4")])
with h5py.File(path("h5-no-datasets.h5"), "w") as f:
    f.create_group("empty")
good = open(path("h5-good.h5"), "rb").read()
open(path("h5-truncated.h5"), "wb").write(good[:len(good) // 2])
open(path("h5-signature-only.h5"), "wb").write(b"\x89HDF\r\n\x1a\n")
# a .mat header and nothing after it; a v5 header over garbage
open(path("mat-header-only.mat"), "wb").write(
    b"MATLAB 5.0 MAT-file, Platform: GLNXA64".ljust(116, b" ") + b"\0" * 8 + b"\x00\x01IM")
open(path("mat-garbage.mat"), "wb").write(
    b"MATLAB 5.0 MAT-file, Platform: GLNXA64".ljust(116, b" ") + b"\0" * 8 + b"\x00\x01IM"
    + bytes(range(256)) * 4)
