#!/usr/bin/env python3
"""gen_arrow_lists.py - tests/data/arrow/pq-lists-batches.parquet for
tests/readers/arrow.sh: a list column whose rows cross labelaudit's batches
(rows of 0..300 items, and one of 70000, longer than a batch), a null row, a
null item, and stray ids (7 with -n 5) among zeros, in three row groups;
with the truth pyarrow reads back in pq-lists-batches.truth: elements,
rows, rows holding a stray, and the row of each stray (each null too: an
unparsable "null" is a bad entry of its row), in index order.

    /usr/bin/python3 tests/gen/gen_arrow_lists.py

Committed with its output; make check never runs Python."""
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "arrow")
rng = np.random.default_rng(1941)
rows = []
for r in range(3000):
    k = 70000 if r == 1500 else int(rng.integers(0, 300))
    row = [0] * k
    for i in rng.integers(0, k, 3) if k and rng.random() < 0.1 else []:
        row[int(i)] = 7
    rows.append(row)
rows[10] = None          # a null row: one "null" element
rows[11] = [0, None, 7]  # a null item
t = pa.table({"input_ids": pa.array(rows, pa.list_(pa.int64()))})
path = os.path.join(here, "pq-lists-batches.parquet")
pq.write_table(t, path, row_group_size=1100, compression="zstd")

back = pq.read_table(path).column("input_ids").to_pylist()
bad_rows, elements = [], 0
for r, row in enumerate(back):
    for v in (row if row is not None else [None]):
        if v is None or v >= 5:
            bad_rows.append(r)
        elements += 1
with open(os.path.join(here, "pq-lists-batches.truth"), "w") as f:
    f.write("%d %d %d\n" % (elements, len(back), len(set(bad_rows))))
    f.write(",".join(map(str, bad_rows)) + "\n")
