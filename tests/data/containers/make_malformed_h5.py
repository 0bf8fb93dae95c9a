#!/usr/bin/env python3
"""make_malformed_h5.py - the broken HDF5 and .mat inputs of tests/malformed
(make.py there keeps to the standard library; these need h5py:
`pip install h5py numpy`).
Committed; run it again only to change them (`make_malformed_h5.py NAME ...`
writes only those). MANIFEST says the answers."""
import os
import sys
import h5py
import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "malformed")


only = set(sys.argv[1:])


def path(name):
    return os.path.join(here, name)


def want(name):
    return not only or name in only


# a dataspace of 2^60 elements: chunked, nothing written (HDF5 allows it)
if want("h5-2p60-elements.h5"):
    with h5py.File(path("h5-2p60-elements.h5"), "w") as f:
        f.create_dataset("y", shape=(1 << 60,), dtype="i8", chunks=(1024,))
if want("h5-good.h5"):
    with h5py.File(path("h5-good.h5"), "w") as f:
        f["y"] = np.arange(5, dtype=np.int64)
if want("h5-compound.h5"):
    with h5py.File(path("h5-compound.h5"), "w") as f:
        f["y"] = np.zeros(3, dtype=[("a", "i4"), ("b", "f4")])
if want("h5-no-datasets.h5"):
    with h5py.File(path("h5-no-datasets.h5"), "w") as f:
        f.create_group("empty")
good = open(path("h5-good.h5"), "rb").read()
if want("h5-truncated.h5"):
    open(path("h5-truncated.h5"), "wb").write(good[:len(good) // 2])
if want("h5-signature-only.h5"):
    open(path("h5-signature-only.h5"), "wb").write(b"\x89HDF\r\n\x1a\n")
# a .mat header and nothing after it; a v5 header over garbage
if want("mat-header-only.mat"):
    open(path("mat-header-only.mat"), "wb").write(
        b"MATLAB 5.0 MAT-file, Platform: GLNXA64".ljust(116, b" ") + b"\0" * 8 + b"\x00\x01IM")
if want("mat-garbage.mat"):
    open(path("mat-garbage.mat"), "wb").write(
        b"MATLAB 5.0 MAT-file, Platform: GLNXA64".ljust(116, b" ") + b"\0" * 8 + b"\x00\x01IM"
        + bytes(range(256)) * 4)


def spoil_chunk(name, chunk, data):
    """Overwrite the stored bytes of the chunk at offset chunk with data."""
    with h5py.File(path(name), "r") as f:
        info = f["y"].id.get_chunk_info_by_coord(chunk)
    with open(path(name), "r+b") as g:
        g.seek(info.byte_offset)
        g.write(data[:info.size])


# gzip chunks (read as stored, inflated by labelaudit): a chunk whose deflate
# stream is garbage, and one cut short (its stream ends before the chunk does)
if want("h5-chunk-garbage.h5"):
    with h5py.File(path("h5-chunk-garbage.h5"), "w") as f:
        f.create_dataset("y", data=np.arange(64, dtype=np.int64) % 7, chunks=(16,),
                         compression="gzip")
    spoil_chunk("h5-chunk-garbage.h5", (16,), bytes(range(7, 255)))
if want("h5-chunk-short.h5"):
    import zlib
    with h5py.File(path("h5-chunk-short.h5"), "w") as f:
        d = f.create_dataset("y", shape=(64,), dtype=np.int64, chunks=(16,), compression="gzip")
        d[:] = np.arange(64) % 7
        d.id.write_direct_chunk((32,), zlib.compress(np.zeros(8, np.int64).tobytes()))


# -v7 (compressed) variables damaged after their head, where libmatio's own
# checks do not look: a byte of the deflate data, and the Adler-32 at the
# end of the zlib stream (scipy's loadmat refuses both)
def damaged_v7(name, offset_from_end):
    from scipy.io import savemat
    import struct
    y = np.random.default_rng(7).integers(0, 10, size=20000).astype(np.int64)
    savemat(path(name), {"y": y}, do_compression=True)
    b = bytearray(open(path(name), "rb").read())
    _, n = struct.unpack("<II", b[128:136])
    b[136 + n - offset_from_end] ^= 0x55
    open(path(name), "wb").write(bytes(b))


if want("mat-v7-bad-data.mat"):
    damaged_v7("mat-v7-bad-data.mat", 2000)
if want("mat-v7-bad-adler.mat"):
    damaged_v7("mat-v7-bad-adler.mat", 1)


# a gzip chunk whose values would take 2 GiB (nothing written: a small file),
# over the 1 GiB one chunk may take
if want("h5-chunk-2gib.h5"):
    with h5py.File(path("h5-chunk-2gib.h5"), "w") as f:
        f.create_dataset("y", shape=(1 << 28,), dtype="i8", chunks=(1 << 28,), compression="gzip")


# a v7.3 file whose MATLAB_class strings are variable-length (h5py's default
# for a str) and whose global heap, where such strings live, is damaged (the
# size of its first object): libhdf5 1.10 loops forever reading the attribute,
# so a variable-length MATLAB_class is not read, the class comes from the
# dataset's type, and the file's values read as they are
if want("mat-v73-bad-heap.mat"):
    import struct
    with h5py.File(path("mat-v73-bad-heap.mat"), "w", userblock_size=512) as f:
        f["y"] = np.array([[0, 1, 2, 9, 10]], dtype=np.uint8)
        f["y"].attrs["MATLAB_class"] = "uint8"
    b = bytearray(open(path("mat-v73-bad-heap.mat"), "rb").read())
    head = b"MATLAB 7.3 MAT-file, written by make_malformed_h5.py".ljust(116)
    b[:128] = head + b"\0" * 8 + b"\x00\x02IM"
    gcol = b.index(b"GCOL")
    b[gcol + 24:gcol + 32] = b"\xff" * 8          # the first object's size
    open(path("mat-v73-bad-heap.mat"), "wb").write(bytes(b))
