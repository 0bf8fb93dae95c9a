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


# ---- damaged files: each a clear message naming the row group or record
# batch (labelaudit built with Arrow), or the refusal by name (without)
def zigzag_varint(v):
    v = (v << 1) ^ (v >> 63)
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def parquet_of(t, **kw):
    buf = io.BytesIO()
    pq.write_table(t, buf, **kw)
    return buf.getvalue()


good = parquet_of(pa.table({"label": pa.array(range(1000), pa.int64()) }), compression="none",
                  row_group_size=1000)
put("parquet-truncated-footer.parquet", good[:-10])
# the footer's row group says 2024 rows where its column chunk holds 1000
footer_len = int.from_bytes(good[-8:-4], "little")
footer_at = len(good) - 8 - footer_len
footer = good[footer_at:-8]
rows = zigzag_varint(1000)
last = footer.rfind(rows)
lying = footer[:last] + zigzag_varint(2024) + footer[last + len(rows):]
put("parquet-row-group-lies.parquet",
    good[:footer_at] + lying + len(lying).to_bytes(4, "little") + b"PAR1")
# the column chunk's pages cut out: its offset and size run past the end
put("parquet-chunk-past-eof.parquet", b"PAR1" + good[footer_at:])


def stream_of(t):
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    return sink.getvalue().to_pybytes()


lists = pa.table({"labels": pa.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], pa.list_(pa.int64()))})
s = stream_of(lists)
offsets = b"".join(v.to_bytes(4, "little") for v in (0, 3, 6, 9))
at = s.find(offsets)
put("arrow-list-offset-past-values.arrow",
    s[:at + 12] + (900).to_bytes(4, "little") + s[at + 16:])
s = stream_of(pa.table({"label": pa.array(range(5000), pa.int64())}))
put("arrow-stream-cut.arrow", s[:len(s) // 2])
