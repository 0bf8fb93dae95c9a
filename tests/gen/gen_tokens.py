#!/usr/bin/env python3
"""gen_tokens.py - the language-model token fixtures of tests/readers/tokens.sh, made
by the writers users use, with the truth read back by the readers they use:

  train.bin        a nanoGPT memmap (np.memmap, uint16), one id past V = 50304;
                   train.truth: INDEX<TAB>VALUE of every id >= V (np.memmap).
  doc.{idx,bin}    a Megatron pair made by megatron-core's IndexedDatasetBuilder
                   (int32), whose document 2 holds an id past V and a -1.
  rand-*.{idx,bin} seeded random Megatron pairs: several dtypes, empty
                   sequences, documents of several sequences, ids at V-1, V,
                   65535, -1 and -100.
  *.truth          INDEX<TAB>SEQUENCE<TAB>DOCUMENT<TAB>POSITION<TAB>VALUE of every
                   id outside [0, V), read back with megatron-core's IndexedDataset
                   (sequence by sequence, documents from its document_indices).
  labels.npy       token-classification labels (S, L) int64, some rows all -100;
                   labels.truth: the rows whose every label is -100 (numpy).
  ignored.bin      a raw int32 stream of 10 blocks of 64 with blocks 3 and 7 all -100;
                   ignored.truth: those blocks.

megatron-core is installed with
  /usr/bin/python3 -m pip install --break-system-packages --no-deps megatron-core
Its package __init__ wants a newer torch.distributed than Debian's, so its
indexed_dataset.py is loaded by path, with its storage helpers (S3, MSC,
logging) stubbed: they are not used for local files.

Run from the top of the tree: /usr/bin/python3 tests/gen/gen_tokens.py
"""
import importlib.util
import os
import sys
import types

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tokens")
V = 50304


def load_indexed_dataset():
    import megatron
    for name in ("megatron.core", "megatron.core.datasets"):
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
    osu = types.ModuleType("megatron.core.datasets.object_storage_utils")
    for n in ("S3Config", "ObjectStorageConfig"):
        setattr(osu, n, type(n, (), {}))
    for n in ("cache_index_file", "dataset_exists", "get_index_cache_path",
              "get_object_storage_access", "parse_s3_path"):
        setattr(osu, n, lambda *a, **k: None)
    osu.is_object_storage_path = lambda p: False
    sys.modules[osu.__name__] = osu
    msc = types.ModuleType("megatron.core.msc_utils")
    msc.MultiStorageClientFeature = type("F", (), {"is_enabled": staticmethod(lambda: False)})
    sys.modules[msc.__name__] = msc
    ut = types.ModuleType("megatron.core.utils")
    ut.log_single_rank = lambda *a, **k: None
    sys.modules[ut.__name__] = ut
    path = os.path.join(megatron.__path__[0], "core", "datasets", "indexed_dataset.py")
    spec = importlib.util.spec_from_file_location("megatron.core.datasets.indexed_dataset", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


mi = load_indexed_dataset()


def build(prefix, dtype, documents):
    """documents: a list of documents, each a list of sequences (lists of ids)."""
    b = mi.IndexedDatasetBuilder(os.path.join(OUT, prefix + ".bin"), dtype=dtype)
    for doc in documents:
        for seq in doc:
            b.add_item(torch.tensor(np.array(seq, dtype=np.int64)))
        b.end_document()
    b.finalize(os.path.join(OUT, prefix + ".idx"))


def megatron_truth(prefix, lo, hi):
    """Every id outside [lo, hi), as megatron-core's IndexedDataset reads it back."""
    ds = mi.IndexedDataset(os.path.join(OUT, prefix))
    docs = ds.document_indices
    rows, index = [], 0
    for s in range(len(ds)):
        seq = np.asarray(ds[s]).astype(np.int64)
        doc = int(np.searchsorted(docs, s, side="right") - 1)
        for pos, v in enumerate(seq):
            if v < lo or v >= hi:
                rows.append(f"{index + pos}\t{s}\t{doc}\t{pos}\t{v}")
        index += len(seq)
    with open(os.path.join(OUT, prefix + ".truth"), "w") as f:
        f.write(f"# {len(ds)} sequences, {len(docs) - 1} documents, {index} tokens\n")
        f.writelines(r + "\n" for r in rows)


def nanogpt():
    rng = np.random.default_rng(7)
    path = os.path.join(OUT, "train.bin")
    ids = rng.integers(0, V, size=4096, dtype=np.int64)
    ids[1234] = V            # one id past the embedding
    ids[0], ids[4095] = V - 1, 0
    a = np.memmap(path, dtype=np.uint16, mode="w+", shape=ids.shape)   # as prepare.py writes
    a[:] = ids
    a.flush()
    del a
    m = np.memmap(path, dtype=np.uint16, mode="r")
    with open(os.path.join(OUT, "train.truth"), "w") as f:
        for i in (m >= V).nonzero()[0]:
            f.write(f"{i}\t{m[i]}\n")


def bad_document():
    rng = np.random.default_rng(11)
    seq = lambda n: list(rng.integers(0, V, size=n))
    docs = [[seq(5), seq(3)], [seq(4)], [seq(2), seq(6), seq(1)], [seq(3)]]
    docs[2][1][4] = V + 7    # document 2, its second sequence
    docs[2][2][0] = -1       # a pad sentinel
    build("doc", np.int32, docs)
    megatron_truth("doc", 0, V)


def randomized(name, dtype, seed, specials):
    rng = np.random.default_rng(seed)
    docs = []
    for _ in range(int(rng.integers(3, 9))):
        doc = []
        for _ in range(int(rng.integers(1, 5))):       # documents span several sequences
            n = int(rng.integers(0, 40))                # empty sequences too
            s = list(rng.integers(0, min(V, np.iinfo(dtype).max), size=n))
            for k in range(n):
                if rng.random() < 0.05:
                    s[k] = int(rng.choice(specials))
            doc.append(s)
        docs.append(doc)
    build(name, dtype, docs)
    megatron_truth(name, 0, V)


def all_ignored():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 50, size=(12, 16), dtype=np.int64)
    y[:, :5] = -100                      # the prompt, masked
    y[[2, 9, 10]] = -100                 # no answer token at all
    np.save(os.path.join(OUT, "labels.npy"), y)
    with open(os.path.join(OUT, "labels.truth"), "w") as f:
        f.writelines(f"{i}\n" for i in np.nonzero((y == -100).all(axis=1))[0])
    s = rng.integers(0, 50, size=640).astype(np.int32)
    s[3 * 64:4 * 64] = -100
    s[7 * 64:8 * 64] = -100
    s[1 * 64 + 3] = -100                 # a masked id in a block with targets
    s.tofile(os.path.join(OUT, "ignored.bin"))
    blocks = s.reshape(10, 64)
    with open(os.path.join(OUT, "ignored.truth"), "w") as f:
        f.writelines(f"{i}\n" for i in np.nonzero((blocks == -100).all(axis=1))[0])


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    nanogpt()
    bad_document()
    randomized("rand-uint16", np.uint16, 1, [V - 1, V, 65535])
    randomized("rand-int32", np.int32, 2, [V - 1, V, -1, -100, 65535])
    randomized("rand-int64", np.int64, 3, [V - 1, V, -1, -100, 1 << 40])
    randomized("rand-uint8", np.uint8, 4, [0, 255])
    all_ignored()
