#!/usr/bin/env python3
"""gen_columns_tokens.py - the fixtures of tests/readers/columns-tokens.sh: token
streams whose samples are held to the model's position table (SPEC "Every
column the model indexes": --seq-len blocks, Megatron sequences, MDS
samples). The models are tests/data/columns/{gpt2,llama} (16 positions;
gpt2 a learned table, llama rotary). Written to tests/data/columns-tokens:

  stream.bin       a nanoGPT-style flat stream (np.memmap, uint16), 100 ids
                   below 50: --seq-len 16 fits, 17 is one past, 32 is past.
  mds-lm/          mosaicml-streaming's MDSWriter: input_ids (ndarray:int32, no
                   shape: each sample its own length) and label (int);
                   mds-lm.truth: "long SAMPLE LENGTH" of every sample whose
                   input_ids, as streaming.StreamingDataset reads them back,
                   are longer than 16.
  mds-bad/         mds-lm with sample 2's input_ids ndarray shape claiming more
                   values than it holds (streaming's reshape fails): exit 3;
                   mds-bad.where names its shard and sample.
  megatron.truth   "long SEQUENCE LENGTH" of tests/data/tokens/rand-int32 (made
                   by gen_tokens.py with megatron-core's IndexedDatasetBuilder)
                   past 16, from its .idx read with numpy as megatron-core's
                   _IndexReader lays it out.

    python3 -m venv /work/venv-seq && /work/venv-seq/bin/pip install mosaicml-streaming numpy
    /work/venv-seq/bin/python tests/gen/gen_columns_tokens.py   # from the top of the tree

make check needs none of this."""
import json
import os
import shutil
import struct

import numpy as np
from streaming import MDSWriter, StreamingDataset

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(top, "tests", "data", "columns-tokens")
LIMIT = 16


def stream():
    ids = np.memmap(os.path.join(OUT, "stream.bin"), dtype=np.uint16, mode="w+", shape=(100,))
    ids[:] = np.arange(100) % 50
    ids.flush()


LENGTHS = [4, 16, 17, 30, 8, 1, 16, 40, 12, 18]


def mds_lm():
    folder = os.path.join(OUT, "mds-lm")
    shutil.rmtree(folder, ignore_errors=True)
    rng = np.random.default_rng(7)
    with MDSWriter(out=folder, columns={"input_ids": "ndarray:int32", "label": "int"},
                   size_limit=1 << 9) as w:
        for i, n in enumerate(LENGTHS):
            w.write({"input_ids": rng.integers(0, 50, n).astype(np.int32), "label": i % 3})
    ds = StreamingDataset(local=folder, shuffle=False, batch_size=1)
    with open(folder + ".truth", "w") as f:
        for i, s in enumerate(ds):
            n = len(np.asarray(s["input_ids"]).reshape(-1))
            if n > LIMIT:
                f.write("long %d %d\n" % (i, n))
    return folder


def mds_bad(good):
    """Sample 2's input_ids shape made the largest its width holds: its values
    no longer fill it."""
    folder = os.path.join(OUT, "mds-bad")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(good, folder)
    index = json.load(open(os.path.join(folder, "index.json")))
    first = 0
    for sh in index["shards"]:
        if first + sh["samples"] > 2:
            break
        first += sh["samples"]
    names, sizes = sh["column_names"], sh["column_sizes"]
    path = os.path.join(folder, sh["raw_data"]["basename"])
    data = bytearray(open(path, "rb").read())
    k = 2 - first
    start = struct.unpack_from("<I", data, 4 + 4 * k)[0]
    var = [i for i, s in enumerate(sizes) if s is None]
    col_sizes = struct.unpack_from("<%dI" % len(var), data, start)
    at = start + 4 * len(var)
    for c in range(names.index("input_ids")):   # the columns before it
        at += sizes[c] if sizes[c] is not None else col_sizes[var.index(c)]
    # ndarray:int32 without a shape: [ndim << 2 | width code][shape...][values]
    width = 1 << (data[at] & 3)
    dim = int.from_bytes(data[at + 1:at + 1 + width], "little")
    big = (1 << (8 * width)) - 1   # the most the shape's width holds: more than it has
    assert big > dim
    data[at + 1:at + 1 + width] = big.to_bytes(width, "little")
    open(path, "wb").write(data)
    with open(folder + ".where", "w") as f:
        f.write("%s sample %d\n" % (sh["raw_data"]["basename"], k))


def megatron_truth():
    """The .idx as megatron-core's _IndexReader reads it: magic (9 bytes),
    version (<Q), dtype code (<B), sequence count (<Q), document count (<Q),
    then int32 sequence lengths."""
    idx = open(os.path.join(top, "tests", "data", "tokens", "rand-int32.idx"), "rb").read()
    assert idx[:9] == b"MMIDIDX\x00\x00"
    n = struct.unpack_from("<Q", idx, 18)[0]
    lengths = np.frombuffer(idx, dtype=np.int32, count=n, offset=34)
    with open(os.path.join(OUT, "megatron.truth"), "w") as f:
        for i, length in enumerate(lengths):
            if length > LIMIT:
                f.write("long %d %d\n" % (i, length))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    stream()
    mds_bad(mds_lm())
    megatron_truth()
