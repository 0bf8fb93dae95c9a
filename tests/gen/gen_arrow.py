#!/usr/bin/env python3
"""gen_arrow.py - the Parquet, Arrow and `datasets` fixtures of tests/readers/arrow.sh,
written by pyarrow and Hugging Face `datasets` themselves (pip install
pyarrow datasets), with the truth beside them: tests/data/arrow/truth.tsv,
one line per case, computed by pyarrow from what it reads back.

    /usr/bin/python3 tests/gen/gen_arrow.py

Committed with its output; make check never runs Python. Each case is small
(a few KB) but has several row groups, record batches or shards."""
import json
import os
import random
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "arrow")
cases = []     # (name, args, table column as pyarrow reads it, N)


def out(name):
    return os.path.join(here, name)


def labels(n, classes, seed, nulls=0.0, dtype=pa.int64()):
    rng = random.Random(seed)
    vals = [rng.randrange(classes) for _ in range(n)]
    vals[n // 2] = classes            # one stray id, at or above N
    mask = [rng.random() < nulls for _ in range(n)]
    return pa.array([None if m else v for v, m in zip(vals, mask)], dtype)


def table_of(col, name="label"):
    n = len(col)
    return pa.table({"id": pa.array(np.arange(n) % 100, pa.int8()), name: col,
                     "score": pa.array(np.linspace(0, 1, n), pa.float32())})


def record(name, args, column, n_classes):
    cases.append((name, args, column, n_classes))


def parquet_cases():
    col = labels(600, 10, 1)
    t = table_of(col)
    for enc in ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"]:
        for pv in ["1.0", "2.0"]:
            name = f"pq-{enc.lower()}-v{pv[0]}.parquet"
            try:
                pq.write_table(t, out(name), use_dictionary=False, column_encoding={"label": enc},
                               data_page_version=pv, row_group_size=200, data_page_size=512,
                               compression="none")
            except Exception:         # pyarrow too old for this encoding on ints
                continue
            record(name, "-n 10", col, 10)
    for comp in ["snappy", "zstd", "gzip", "lz4", "none"]:
        for pv in ["1.0", "2.0"]:
            name = f"pq-dict-{comp}-v{pv[0]}.parquet"
            pq.write_table(t, out(name), use_dictionary=True, compression=comp,
                           data_page_version=pv, row_group_size=150, data_page_size=512)
            record(name, "-n 10", col, 10)
    # nulls, narrow and unsigned types, bool, float
    for tag, dtype, classes in [("int8", pa.int8(), 5), ("uint16", pa.uint16(), 7),
                                ("int32", pa.int32(), 10), ("uint64", pa.uint64(), 3),
                                ("float32", pa.float32(), 4), ("float64", pa.float64(), 4)]:
        c = labels(400, classes, hash(tag) % 1000, nulls=0.05, dtype=dtype)
        name = f"pq-nulls-{tag}.parquet"
        pq.write_table(table_of(c), out(name), row_group_size=128)
        record(name, f"-n {classes}", c, classes)
    b = pa.array([True, False, None, True] * 50, pa.bool_())
    pq.write_table(table_of(b), out("pq-bool.parquet"), row_group_size=64)
    record("pq-bool.parquet", "-n 2", b, 2)
    # a dictionary column of class names: read by its indices
    names = pa.array(["cat", "dog", "bird", "dog"] * 40).dictionary_encode()
    pq.write_table(pa.table({"label": names}), out("pq-dict-names.parquet"))
    record("pq-dict-names.parquet", "-n 3", pq.read_table(out("pq-dict-names.parquet"))["label"], 3)


def list_cases():
    rng = random.Random(7)
    rows = []
    for i in range(120):
        k = rng.randrange(0, 9)
        r = [rng.randrange(20) for _ in range(k)]
        if i % 17 == 3:
            r[:0] = [-100] * 3          # an ignored run
        if i % 29 == 5 and r:
            r[0] = None                 # a null item
        rows.append(None if i % 41 == 40 else r)
    rows[50] = [25, 1]                  # a stray token id
    for tag, typ in [("list", pa.list_(pa.int64())), ("large-list", pa.large_list(pa.int32()))]:
        c = pa.array(rows, typ)
        name = f"pq-{tag}.parquet"
        pq.write_table(table_of(c, "labels"), out(name), row_group_size=40)
        record(name, "-n 20", c, 20)
    fixed = pa.array([[rng.randrange(6) for _ in range(4)] for _ in range(90)],
                     pa.list_(pa.int16(), 4))
    pq.write_table(table_of(fixed, "labels"), out("pq-fixed-list.parquet"), row_group_size=30)
    record("pq-fixed-list.parquet", "-n 6", fixed, 6)
    c = pa.array(rows, pa.list_(pa.int64()))
    write_stream(out("ipc-list-stream.arrow"), table_of(c, "labels"), 25)
    record("ipc-list-stream.arrow", "-n 20", c, 20)


def write_stream(path, t, batch_rows, compression=None):
    opts = ipc.IpcWriteOptions(compression=compression)
    with ipc.new_stream(path, t.schema, options=opts) as w:
        for b in t.to_batches(max_chunksize=batch_rows):
            w.write_batch(b)


def ipc_cases():
    col = labels(500, 8, 3, nulls=0.02, dtype=pa.int32())
    t = table_of(col)
    for comp in [None, "lz4", "zstd"]:
        tag = comp or "none"
        feather.write_feather(t, out(f"ipc-file-{tag}.feather"), compression=comp or "uncompressed",
                              chunksize=120)
        record(f"ipc-file-{tag}.feather", "-n 8", col, 8)
        write_stream(out(f"ipc-stream-{tag}.arrow"), t, 90, comp)
        record(f"ipc-stream-{tag}.arrow", "-n 8", col, 8)


def datasets_cases():
    import datasets
    import pandas as pd
    feats = datasets.Features({"text": datasets.Value("string"),
                               "label": datasets.ClassLabel(names=["neg", "neu", "pos"])})
    rng = random.Random(11)
    lab = [rng.randrange(3) for _ in range(300)]
    lab[123] = 3                        # a stray id past the ClassLabel's names
    # datasets refuses to encode a stray id, but keeps one it finds in a table
    # (a map without features, a cast): the table, then the features
    raw = pa.table({"text": [f"t{i}" for i in range(300)], "label": pa.array(lab, pa.int64())})
    d = datasets.Dataset(datasets.table.InMemoryTable(raw), info=datasets.DatasetInfo(features=feats))
    d.to_parquet(out("ds-to-parquet.parquet"), batch_size=100)
    record("ds-to-parquet.parquet", "-n 3", pa.array(lab, pa.int64()), 3)
    shutil.rmtree(out("ds-saved"), ignore_errors=True)
    d.save_to_disk(out("ds-saved"), num_shards=3)
    record("ds-saved", "-n 3", pa.array(lab, pa.int64()), 3)
    df = pd.DataFrame({"image": [f"{i}.png" for i in range(250)],
                       "target": [rng.randrange(5) for _ in range(250)]})
    df.to_parquet(out("pandas.parquet"), row_group_size=60)
    record("pandas.parquet", "-n 5", pa.array(df["target"]), 5)


def random_cases():
    rng = random.Random(2024)
    types = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint32(),
             pa.float32(), pa.float64()]
    for k in range(8):
        typ = rng.choice(types)
        n = rng.randrange(50, 700)
        classes = rng.randrange(2, 12)
        c = labels(n, classes, 100 + k, nulls=rng.choice([0, 0, 0.03]), dtype=typ)
        t = table_of(c)
        if k % 3 == 0:
            name = f"rand-{k}.arrow"
            write_stream(out(name), t, rng.randrange(10, 200))
        elif k % 3 == 1:
            name = f"rand-{k}.feather"
            feather.write_feather(t, out(name), chunksize=rng.randrange(10, 200))
        else:
            name = f"rand-{k}.parquet"
            pq.write_table(t, out(name), row_group_size=rng.randrange(10, 200),
                           compression=rng.choice(["snappy", "zstd", "none"]),
                           use_dictionary=rng.random() < 0.5,
                           data_page_version=rng.choice(["1.0", "2.0"]))
        record(name, f"-n {classes}", c, classes)


def truth(column, n_classes):
    """count, samples, min, max, unparsable, ignored, histogram, first bad indices"""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(col.type):
        col = col.indices
    rows = len(col)
    if pa.types.is_list(col.type) or pa.types.is_large_list(col.type) or \
            pa.types.is_fixed_size_list(col.type):
        items = []
        for r in col.to_pylist():
            items.extend([None] if r is None else r)
    else:
        items = col.to_pylist()
    vals = [v for v in items if v is not None]
    vals = [int(v) if isinstance(v, bool) else v for v in vals]
    ignored = sum(1 for v in vals if v == -100)
    real = [v for v in vals if v != -100]
    hist = [0] * n_classes
    bad = []
    for i, v in enumerate(items):
        if v is None:
            bad.append(i)
        elif v != -100 and not (0 <= v < n_classes and float(v).is_integer()):
            bad.append(i)
        elif v != -100:
            hist[int(v)] += 1
    fmt = lambda v: "%d" % v if float(v).is_integer() else repr(float(v))
    return [str(len(items)), str(rows), fmt(min(real)), fmt(max(real)),
            str(sum(1 for v in items if v is None)), str(ignored),
            ",".join(map(str, hist)), ",".join(map(str, bad[:5]))]


def main():
    shutil.rmtree(here, ignore_errors=True)
    os.makedirs(here)
    parquet_cases()
    list_cases()
    ipc_cases()
    datasets_cases()
    random_cases()
    with open(out("truth.tsv"), "w") as f:
        f.write("# name\targs\tcount\tsamples\tmin\tmax\tunparsable\tignored\thistogram\tfirst bad\n")
        for name, args, column, n in cases:
            f.write("\t".join([name, args] + truth(column, n)) + "\n")


main()
