#!/usr/bin/env python3
"""gen_int_dtype_verdicts.py - what PyTorch 2's cross_entropy does with class
labels of each integer dtype, as each loader hands them over (issue 47): the
truth tests/batching/int-labels-dtype.sh holds int-labels-dtype's severity to.

    /work/genvenv/bin/python tests/gen/gen_int_dtype_verdicts.py   # from the top of the tree

Writes tests/data/int-dtype/: y-DTYPE.{npy,safetensors,pt,h5,parquet,csv},
the labels 0 1 1 0 written by NumPy, safetensors, torch.save, h5py, pyarrow
and pandas; each is read back the way a training script reads it (np.load,
safetensors.numpy.load_file, torch.load, h5py, pyarrow.parquet, pandas), cut
into one label per sample, put through DataLoader's default_collate, and the
batch given to F.cross_entropy. verdicts.txt: one "FILE COLLATED VERDICT" line
each, VERDICT "ok" or "raises" (the error's first line follows, after "#").
Needs torch >= 2, numpy, safetensors, h5py, pyarrow, pandas.
"""
import os

import h5py
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import safetensors.numpy
import safetensors.torch
import torch
import torch.nn.functional as F
from torch.utils.data import default_collate

OUT = "tests/data/int-dtype"
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
Y = [0, 1, 1, 0]


def write_and_read(fmt, dt, path):
    """Write Y as dtype dt in format fmt; return it as the loader reads it."""
    y = np.array(Y, dtype=dt)
    if fmt == "npy":
        np.save(path, y)
        return np.load(path)
    if fmt == "safetensors":
        safetensors.numpy.save_file({"labels": y}, path)
        return safetensors.torch.load_file(path)["labels"]
    if fmt == "pt":
        torch.save({"labels": torch.from_numpy(y)}, path)
        return torch.load(path)["labels"]
    if fmt == "h5":
        with h5py.File(path, "w") as f:
            f["y"] = y
        with h5py.File(path, "r") as f:
            return f["y"][()]
    if fmt == "parquet":
        pq.write_table(pa.table({"label": pa.array(y)}), path)
        return pq.read_table(path).column("label").to_numpy()
    if fmt == "csv":
        pd.DataFrame({"label": y.astype(np.int64) if dt != "bool" else y.astype(int)}).to_csv(
            path, index=False)
        return pd.read_csv(path)["label"].to_numpy()
    raise ValueError(fmt)


def verdict(labels):
    try:
        batch = default_collate([labels[i] for i in range(len(labels))])
    except Exception as e:  # np.bool_ scalars: torch.as_tensor refuses them
        return "none", "raises", "default_collate: " + str(e).splitlines()[0]
    logits = torch.zeros(len(Y), 2)
    try:
        F.cross_entropy(logits, batch)
        return str(batch.dtype).replace("torch.", ""), "ok", ""
    except Exception as e:  # the error a user sees
        return str(batch.dtype).replace("torch.", ""), "raises", str(e).splitlines()[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    lines = ["# torch %s: FILE COLLATED VERDICT # first line of the error" % torch.__version__]
    for fmt in ["npy", "safetensors", "pt", "h5", "parquet", "csv"]:
        for dt in DTYPES:
            name = "y-%s.%s" % (dt, fmt)
            got = write_and_read(fmt, dt, os.path.join(OUT, name))
            collated, v, msg = verdict(got)
            lines.append("%s %s %s%s" % (name, collated, v, " # " + msg if msg else ""))
    with open(os.path.join(OUT, "verdicts.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
