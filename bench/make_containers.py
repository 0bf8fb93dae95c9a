#!/usr/bin/env python3
"""make_containers.py - the inputs of bench/containers.sh: one int64
label array of N elements (values 0..9, one bad label in 65536: 10 or -1) in
each container, written by the library users write it with:

  h5-gzip.h5          h5py, chunked (h5py's own chunk shape) + gzip level 4
  h5-contiguous.h5    h5py, contiguous
  labels.raw          the bare int64 array, for bench/make_mat73.c, which
                      writes mat73.mat through libmatio (h5py-made imitations
                      with MATLAB's header are not read by libmatio)
  mat5.mat            SciPy's savemat (v5, uncompressed), read by loadmat
  labels.safetensors  safetensors.numpy.save_file
  labels.pt           torch.save of the tensor (zip format, data stored)

  make_containers.py DIR N

Writes DIR/index.tsv, a line per container:
  NAME <tab> FILE <tab> DATA-OFFSET (bytes; "-" when compressed) <tab> BAD
or NAME <tab> - <tab> skipped: REASON, when the package that writes it is missing.
"""
import os
import sys
import zipfile

import numpy as np

CLASSES = 10


def labels(n):
    rng = np.random.default_rng(15)
    a = rng.integers(0, CLASSES, size=n, dtype=np.int64)
    a[::65536] = CLASSES
    a[7::131072] = -1
    return a


def write_h5(path, a, gzip):
    import h5py
    kw = {"compression": "gzip", "compression_opts": 4} if gzip else {}
    with h5py.File(path, "w") as f:
        d = f.create_dataset("labels", data=a, **kw)
        return "-" if gzip else d.id.get_offset()


def write_mat5(path, a):
    from scipy.io import savemat
    savemat(path, {"labels": a.reshape(1, -1)})
    return os.path.getsize(path) - a.nbytes      # the only variable's data ends the file


def write_safetensors(path, a):
    from safetensors.numpy import save_file
    save_file({"labels": a}, path)
    with open(path, "rb") as f:
        return 8 + int.from_bytes(f.read(8), "little")   # one tensor: its data opens the data


def write_pt(path, a):
    import torch
    torch.save(torch.from_numpy(a), path)
    with zipfile.ZipFile(path) as z:
        info = next(i for i in z.infolist() if i.filename.endswith("/data/0"))
        assert info.compress_type == zipfile.ZIP_STORED
    with open(path, "rb") as f:                  # past the local header and its extra field
        f.seek(info.header_offset + 26)
        name_len, extra_len = np.frombuffer(f.read(4), "<u2")
    return info.header_offset + 30 + int(name_len) + int(extra_len)


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    a = labels(n)
    bad = int(((a < 0) | (a >= CLASSES)).sum())
    writers = [
        ("h5-gzip", "h5-gzip.h5", "h5py", lambda p: write_h5(p, a, True)),
        ("h5-contiguous", "h5-contiguous.h5", "h5py", lambda p: write_h5(p, a, False)),
        ("mat-v5", "mat5.mat", "scipy", lambda p: write_mat5(p, a)),
        ("safetensors", "labels.safetensors", "safetensors", lambda p: write_safetensors(p, a)),
        ("pt", "labels.pt", "torch", lambda p: write_pt(p, a)),
    ]
    a.tofile(os.path.join(out, "labels.raw"))
    rows = []
    for name, file, package, write in writers:
        try:
            __import__(package)
        except ImportError:
            rows.append("%s\t-\tskipped: no %s in %s (pip install %s)"
                        % (name, package, sys.executable, package))
            continue
        path = os.path.join(out, file)
        offset = write(path)
        rows.append("%s\t%s\t%s\t%d" % (name, path, offset, bad))
    with open(os.path.join(out, "index.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
