#!/usr/bin/env python3
"""make_arrow.py - the Parquet and Arrow files of tests/malformed/, written by
pyarrow (`pip install pyarrow`): labelaudit has no Arrow reader yet, so each
is refused by name with the pyarrow command that exports its label column,
never parsed as CSV or text. Committed; run again only to change them.
MANIFEST says what labelaudit must answer for each."""
import gzip
import io
import os
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq

here = os.path.dirname(os.path.abspath(__file__))
table = pa.table({"image": ["a.jpg", "b.jpg", "c.jpg", "d.jpg"],
                  "label": pa.array([0, 1, 2, 10], pa.int64())})


def put(name, data):
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)


def parquet():
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="none")
    return buf.getvalue()


def arrow_file():                   # Feather v2 is the Arrow IPC file format
    buf = io.BytesIO()
    feather.write_feather(table, buf, compression="uncompressed")
    return buf.getvalue()


def arrow_stream():                 # what Hugging Face `datasets` writes as data-*.arrow
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


put("arrow-labels.parquet", parquet())
put("arrow-parquet-named.csv", parquet())       # the magic wins over the name
put("arrow-labels.parquet.gz", gzip.compress(parquet(), mtime=0))
put("arrow-labels.feather", arrow_file())
put("arrow-stream.arrow", arrow_stream())
put("arrow-stream-named.txt", arrow_stream())
