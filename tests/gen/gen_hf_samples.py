#!/usr/bin/env python3
"""gen_hf_samples.py - the Hugging Face samples, written by `datasets`
(pip install datasets pyarrow): samples/hf-sentiment.parquet, a
Dataset.to_parquet of a ClassLabel column (neg, neu, pos) with one stray id
3, and samples/hf-tokens/, a save_to_disk folder of two shards with a
list<int> labels column (token classification) whose prompt tokens are a
run of -100 and one of whose ids is past the 9 tags. Committed; run again
only to change them.

    /usr/bin/python3 tests/gen/gen_hf_samples.py"""
import os
import random
import shutil

import datasets
import pyarrow as pa

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples")
rng = random.Random(5)

# datasets refuses to encode a stray id, but keeps one it finds in a table
lab = [rng.randrange(3) for _ in range(200)]
lab[137] = 3
feats = datasets.Features({"text": datasets.Value("string"),
                           "label": datasets.ClassLabel(names=["neg", "neu", "pos"])})
raw = pa.table({"text": [f"review {i}" for i in range(200)], "label": pa.array(lab, pa.int64())})
d = datasets.Dataset(datasets.table.InMemoryTable(raw), info=datasets.DatasetInfo(features=feats))
d.to_parquet(os.path.join(here, "hf-sentiment.parquet"))

tags = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]
rows = []
for i in range(60):
    n = rng.randrange(4, 12)
    rows.append([-100] * 3 + [rng.randrange(9) for _ in range(n)])
rows[41][5] = 9
feats = datasets.Features({"id": datasets.Value("int32"),
                           "labels": datasets.Sequence(datasets.ClassLabel(names=tags))})
raw = pa.table({"id": pa.array(range(60), pa.int32()), "labels": pa.array(rows, pa.list_(pa.int64()))})
d = datasets.Dataset(datasets.table.InMemoryTable(raw), info=datasets.DatasetInfo(features=feats))
shutil.rmtree(os.path.join(here, "hf-tokens"), ignore_errors=True)
d.save_to_disk(os.path.join(here, "hf-tokens"), num_shards=2)
