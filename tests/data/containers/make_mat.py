#!/usr/bin/env python3
"""make_mat.py - the MATLAB .mat fixtures of tests/readers/containers.sh, written by
SciPy's savemat (v5, and "-v7", compressed; `pip install scipy numpy`, or
Debian's python3-scipy). The v7.3 ones come from make_mat73.c.
Committed; run it again only to change them."""
import os
import struct
import zlib
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

# a compressed variable longer than read_mat.c's 1 MiB pieces (400,000 int64:
# 3.2 MB), to count that it is inflated once
savemat(path("mat-long-v7.mat"), {"y": (np.arange(400000, dtype=np.int64) * 7) % 10},
        do_compression=True)

# ---- v5 as MATLAB writes it and savemat does not: written byte by byte here.
# MATLAB stores an array's values in the smallest type that holds them (a
# double array of small integers as miUINT8, an int32 one as miUINT32), in
# a "small data element" (inside the tag) when they fit 4 bytes, and may
# store a name as miUTF8: MATLAB and scipy (mat_dtype=True) give the class.
MI = {"int8": 1, "uint8": 2, "int16": 3, "uint16": 4, "int32": 5, "uint32": 6, "single": 7,
      "double": 9, "int64": 12, "uint64": 13, "matrix": 14, "compressed": 15, "utf8": 16}
CLASS = {"double": 6, "single": 7, "int8": 8, "uint8": 9, "int16": 10, "uint16": 11,
         "int32": 12, "uint32": 13, "int64": 14, "uint64": 15}


def element(mi, payload):
    """A data element: its tag, then its bytes padded to 8; a small element
    (4 bytes or fewer) inside its tag."""
    if len(payload) <= 4 and mi != MI["matrix"]:
        return struct.pack("<HH", mi, len(payload)) + payload.ljust(4, b"\0")
    return struct.pack("<II", mi, len(payload)) + payload + b"\0" * (-len(payload) % 8)


def variable(name, cls, values, stored, name_type="int8", compress=False, dims_type="int32"):
    """A numeric variable of class cls whose values (a 2-D array) are stored
    column-major as type `stored`, its dimensions as dims_type."""
    body = (element(MI["uint32"], struct.pack("<II", CLASS[cls], 0))
            + element(MI[dims_type], struct.pack("<2i", *values.shape))
            + element(MI[name_type], name.encode("utf-8"))
            + element(MI[stored], values.astype(stored).tobytes(order="F")))
    matrix = struct.pack("<II", MI["matrix"], len(body)) + body
    if not compress:
        return matrix
    z = zlib.compress(matrix)
    return struct.pack("<II", MI["compressed"], len(z)) + z


def write_v5(name, *variables):
    head = b"MATLAB 5.0 MAT-file, Platform: GLNXA64, Created by: make_mat.py".ljust(116, b" ")
    with open(path(name), "wb") as f:
        f.write(head + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM" + b"".join(variables))


row = np.array([[1, 2, 3, 70000, 5]])
small = np.array([[7, 8, 9]])
matrix = np.arange(6).reshape(2, 3)          # [0 1 2; 3 4 5]
for suffix, z in (("", False), ("-v7", True)):
    write_v5("mat-odd-types%s.mat" % suffix,
             variable("i32_as_u32", "int32", row, "uint32", compress=z),
             variable("f64_as_u8", "double", np.array([[1, 2, 250, 4]]), "uint8", compress=z),
             variable("i32_small", "int32", small, "uint8", compress=z),
             variable("m_as_u16", "int32", matrix, "uint16", compress=z))
    write_v5("mat-utf8-name%s.mat" % suffix,
             variable("y", "int32", np.array([[1, 2, 3, 4, 5]]), "int32", name_type="utf8",
                      compress=z))

# dimensions tagged miUINT32 (as scipy's own miuint32_for_miint32.mat has
# them), which scipy's loadmat reads and libmatio 1.5 does not: a 1x300
# int64 'y' (libmatio reads no dimensions; compressed, it stops the file
# there) and an int32 'z' after it; and
# dimensions tagged miDOUBLE, which scipy refuses ("Expecting miINT32")
from scipy.io import loadmat   # noqa: E402
y300 = (np.arange(300) % 7).reshape(1, 300)
for suffix, z in (("", False), ("-v7", True)):
    write_v5("mat-uint32-dims%s.mat" % suffix,
             variable("y", "int64", y300, "int64", compress=z, dims_type="uint32"),
             variable("z", "int32", np.array([[4, 5, 6]]), "int32", compress=z))
    got = loadmat(path("mat-uint32-dims%s.mat" % suffix))
    assert got["y"].dtype == np.int64 and (got["y"] == y300).all() and got["z"].tolist() == [[4, 5, 6]]
write_v5("mat-double-dims.mat", variable("y", "int64", y300, "int64", dims_type="double"))
try:
    loadmat(path("mat-double-dims.mat"))
    raise SystemExit("scipy read mat-double-dims.mat")
except TypeError:
    pass

# v7.3 (HDF5 inside): SciPy cannot write it; make_mat73.c does, through libmatio

# samples/imagelabels.mat: as Oxford Flowers-102 ships it, 1x60 doubles in 1..102
rng = np.random.default_rng(102)
flowers_all = rng.integers(1, 103, size=(1, 60)).astype(np.float64)
flowers_all[0, 3], flowers_all[0, 40] = 1, 102           # the ends of 1..102
savemat(os.path.join(here, "..", "..", "..", "samples", "imagelabels.mat"), {"labels": flowers_all})

# ---- v7.3 from other writers than libmatio, which reads the class of neither:
# hdf5storage (`pip install hdf5storage`), and h5py in MATLAB's layout (a
# 512-byte user block opening with MATLAB's header, a MATLAB_class attribute
# on each variable, dimensions reversed)
import h5py          # noqa: E402
import hdf5storage   # noqa: E402

hdf5storage.savemat(path("mat-hdf5storage-v73.mat"),
                    {"labels": flowers, "x": np.zeros((2, 3), np.float32),
                     "m": np.arange(12, dtype=np.int32).reshape(3, 4),
                     "t": np.array([[True, False, True]]), "names": "cat"},
                    format="7.3", matlab_compatible=True)
with h5py.File(path("mat-h5py-v73.mat"), "w", userblock_size=512) as f:
    f["y"] = np.array([[1, 9, 2, 10, 3, 10]], np.uint8).T       # MATLAB's 1x6, reversed
    f["y"].attrs["MATLAB_class"] = "uint8"                       # a variable-length string
    f["masks"] = np.arange(12, dtype=np.int32).reshape(3, 4).T   # MATLAB's 3x4
    f["masks"].attrs["MATLAB_class"] = np.bytes_("int32")        # a fixed-length one
    f["e"] = np.array([0, 0], np.uint64)                         # an empty 0x0 double
    f["e"].attrs["MATLAB_class"] = "double"
    f["e"].attrs["MATLAB_empty"] = np.uint8(1)
    f.create_group("#refs#")                                     # no class: not a variable
with open(path("mat-h5py-v73.mat"), "r+b") as g:
    g.write(b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created by: h5py".ljust(116, b" ")
            + b"\0" * 8 + b"\x00\x02IM")
