#!/usr/bin/env python3
"""make_megatron.py - the broken Megatron indexed datasets of this folder:
a pair written by megatron-core's IndexedDatasetBuilder (3 int32 sequences in
2 documents: [1 2 3] [4 5] | [6 7 8]), then its .idx damaged as a bad writer,
a cut copy or a hand-merged index would damage it. The loader of the module is
tests/gen/gen_tokens.py's. Run from the top of the tree:
/usr/bin/python3 tests/malformed/make_megatron.py"""
import os
import shutil
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
from gen_tokens import mi  # noqa: E402  (megatron-core's indexed_dataset)

S, D = 3, 3
LEN, PTR, DOC = 34, 34 + 4 * S, 34 + 12 * S     # where the arrays start


def good(prefix):
    b = mi.IndexedDatasetBuilder(prefix + ".bin", dtype=np.int32)
    b.add_item(torch.tensor([1, 2, 3]))
    b.add_item(torch.tensor([4, 5]))
    b.end_document()
    b.add_item(torch.tensor([6, 7, 8]))
    b.end_document()
    b.finalize(prefix + ".idx")


def damaged(name, edit, with_bin=True):
    prefix = os.path.join(HERE, name)
    good("/tmp/mt-good")
    idx = bytearray(open("/tmp/mt-good.idx", "rb").read())
    idx = edit(idx)
    open(prefix + ".idx", "wb").write(bytes(idx))
    if with_bin:
        shutil.copy("/tmp/mt-good.bin", prefix + ".bin")


def put(fmt, at, v):
    def edit(idx):
        struct.pack_into(fmt, idx, at, v)
        return idx
    return edit


damaged("mt-overrun", put("<i", LEN + 8, 9))               # sequence 2: 9 tokens, the .bin has 3
damaged("mt-pointer-past-end", put("<q", PTR + 8, 4096))   # sequence 1 at byte 4096
damaged("mt-negative-length", put("<i", LEN + 4, -2))
damaged("mt-doc-out-of-order", lambda i: (struct.pack_into("<qqq", i, DOC, 0, 3, 2), i)[1])
damaged("mt-doc-past-end", put("<q", DOC + 16, 7))
damaged("mt-doc-short", put("<q", DOC + 16, 2))            # the last document ends at sequence 2 of 3
damaged("mt-truncated-header", lambda i: i[:20])
damaged("mt-truncated-arrays", lambda i: i[:PTR + 5])
damaged("mt-trailing-bytes", lambda i: i + b"\0" * 5)
damaged("mt-bad-version", put("<Q", 9, 2))
damaged("mt-bad-dtype", put("<B", 17, 9))
damaged("mt-huge-count", put("<Q", 18, 1 << 62))
damaged("mt-no-bin", lambda i: i, with_bin=False)
