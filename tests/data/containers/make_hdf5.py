#!/usr/bin/env python3
"""make_hdf5.py - the HDF5 fixtures of tests/readers/containers.sh, written by h5py
(`pip install h5py numpy`, or Debian's python3-h5py). Committed; run it
again only to change them: `make_hdf5.py NAME.h5 ...` writes only those
(the others are written to memory and dropped), so a new fixture leaves the
committed ones as they are."""
import io
import os
import sys
import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
labels = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3, 4], dtype=np.int64)


only = set(sys.argv[1:])


def h5(name, **kw):
    where = os.path.join(here, name) if not only or name in only else io.BytesIO()
    return h5py.File(where, "w", track_order=True, **kw)


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

# ---- read in place (contiguous) and chunk by chunk (gzip): read_hdf5.c's fast paths
# MATLAB v7.3's 512-byte userblock before the HDF5 superblock: the run's
# offset must count it
with h5("h5-userblock.h5", userblock_size=512) as f:
    f["y"] = np.arange(1, 301, dtype=np.int64) % 97 + 1
    f.create_dataset("gz", data=np.arange(1, 301, dtype=np.int64) % 83 + 1, chunks=(64,),
                     compression="gzip")
# big-endian and contiguous: converted by libhdf5, never read in place
with h5("h5-contig-be.h5") as f:
    f["y"] = (np.arange(1, 301) % 89 + 1).astype(">i8")
g2 = (np.arange(23 * 17, dtype=np.int32).reshape(23, 17) * 7) % 101 + 1
g3 = ((np.arange(6 * 5 * 7).reshape(6, 5, 7) * 3) % 50 + 1).astype(np.float32)
with h5("h5-chunks.h5") as f:
    # 2-D gzip, chunks that do not divide the shape on either axis
    f.create_dataset("gzip2d", data=g2, chunks=(5, 4), compression="gzip")
    # 3-D, shuffle then gzip
    f.create_dataset("shuffle3d", data=g3, chunks=(4, 2, 3), compression="gzip", shuffle=True)
    # 1-D uint16, shuffle + gzip, the last chunk cut short
    f.create_dataset("u16", data=np.arange(1, 1001, dtype=np.uint16), chunks=(64,),
                     compression="gzip", shuffle=True)
    # chunks never written read as the fill value (9)
    d = f.create_dataset("fill", shape=(10, 6), dtype=np.int16, chunks=(3, 4),
                         compression="gzip", fillvalue=9)
    d[0:3, 0:4] = np.arange(1, 13, dtype=np.int16).reshape(3, 4) + 20
    d[6:9, 4:6] = np.arange(1, 7, dtype=np.int16).reshape(3, 2) + 40
    # chunks whose filters were skipped (the filter mask): stored as they are
    d = f.create_dataset("skipped", shape=(12,), dtype=np.int32, chunks=(4,),
                         compression="gzip", shuffle=True)
    d[0:4] = [1, 2, 3, 4]
    raw = np.array([5, 6, 7, 8], np.int32)
    shuffled = raw.view(np.uint8).reshape(4, 4).T.copy().tobytes()
    d.id.write_direct_chunk((4,), shuffled, filter_mask=2)      # gzip skipped
    d.id.write_direct_chunk((8,), np.array([9, 10, 11, 12], np.int32).tobytes(),
                            filter_mask=3)                      # both skipped
    # a filter read_hdf5.c leaves to libhdf5 (fletcher32)
    f.create_dataset("fletcher", data=np.arange(1, 41, dtype=np.int64), chunks=(16,),
                     compression="gzip", fletcher32=True)
    # one 2.4 MB chunk, gzip and fletcher32 (so read by H5Dread, in slices):
    # libhdf5's default 1 MiB chunk cache cannot hold it
    f.create_dataset("big-chunk", data=np.arange(300000, dtype=np.int64) % 50 + 1,
                     chunks=(300000,), compression="gzip", fletcher32=True)
    # gzip of a big-endian type: left to libhdf5
    f.create_dataset("gzip-be", data=np.arange(1, 41, dtype=">i4"), chunks=(16,),
                     compression="gzip")
# one dataset only (the fuzz target's seed, tests/fuzz/corpus/hdf5): after a
# userblock, shuffle + gzip, edge chunks on both axes, chunks never written
with h5("h5-ub-fill.h5", userblock_size=512) as f:
    d = f.create_dataset("y", shape=(9, 5), dtype=np.int32, chunks=(4, 2), compression="gzip",
                         shuffle=True, fillvalue=3)
    d[0:4, 0:4] = np.arange(16, dtype=np.int32).reshape(4, 4) + 10
    d[8:9, :] = [5, 6, 7, 8, 9]

# ---- enums: h5py's bool (a 1-byte enum FALSE = 0, TRUE = 1, in h5-dtypes.h5)
# is bool; any other enum holds its base type's integers, as h5py reads them
with h5("h5-enums.h5") as f:
    def enum(name, members, base, values):
        f.create_dataset(name, data=np.array(values, base),
                         dtype=h5py.enum_dtype(members, basetype=base))
    enum("colors", {"RED": 0, "GREEN": 1, "BLUE": 42}, "u1", [0, 1, 42])
    enum("yes-no", {"NO": 0, "YES": 1}, "i1", [1, 0, 1])        # not FALSE/TRUE: int8
    enum("maybe", {"FALSE": 0, "TRUE": 1, "MAYBE": 2}, "u1", [0, 2, 1])
    enum("e2", {"A": 0, "B": 300}, "<i2", [300, 0])
    enum("e4", {"A": 0, "B": 1, "C": -7, "D": 100000}, "<i4", [0, 1, -7, 100000])
    enum("e4-be", {"A": 0, "B": 5}, ">i4", [5, 0, 5])
    enum("e8", {"A": 0, "B": 1 << 40}, "<u8", [1 << 40, 0])
    f.create_dataset("gz-chunked", data=np.array([1, 42] * 50, "<i4"), chunks=(16,),
                     compression="gzip", dtype=h5py.enum_dtype({"A": 1, "B": 42}, basetype="<i4"))

# libver='latest' with HDF5 1.12 or later (pip's h5py wheel; Debian's h5py is
# built on 1.10, which cannot write it) encodes an enum's type in a datatype
# message of version 4 or 5, that libhdf5 1.10 cannot decode: such a libhdf5
# refuses the dataset by name, a newer one reads it
if tuple(map(int, h5py.version.hdf5_version.split(".")[:2])) >= (1, 12):
    with h5("h5-enum-latest.h5", libver="latest") as f:
        f.create_dataset("y", data=np.array([0, 1, 42], "u1"),
                         dtype=h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="u1"))
elif "h5-enum-latest.h5" in only:
    sys.exit("h5-enum-latest.h5 needs h5py on HDF5 1.12 or later (pip install h5py)")
