#!/usr/bin/env python3
"""gen_wds.py - write the WebDataset shards of the tests (committed; run again
only to change them): the sample (samples/wds-shard-000000.tar) and the test
fixtures (tests/data/wds). Made with the tool users make them with, the
webdataset package's TarWriter (pip install webdataset); make check needs
none of it. The broken shards are tests/malformed/make.py's."""
import gzip, io, os

import webdataset as wds

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_JPG = b"\xff\xd8\xff\xe0fake jpeg\xff\xd9"


def path(*parts):
    p = os.path.join(top, *parts)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def shard(samples):
    """The bytes of a tar shard holding samples (dicts with __key__), as TarWriter writes it."""
    buf = io.BytesIO()
    with wds.TarWriter(buf, mtime=0) as sink:
        for s in samples:
            sink.write(s)
    return buf.getvalue()


def put(rel, data):
    with open(path(*rel.split("/")), "wb") as f:
        f.write(data)


def image_sample(key, cls):
    return {"__key__": key, "jpg": FAKE_JPG, "cls": cls}


# the sample: 12 images of 10 classes, one label 10 (out of range for -n 10),
# and sample 000007 written without its cls
sample = [image_sample("%06d" % i, [0, 1, 4, 1, 5, 9, 2, 6, 5, 3, 10, 8][i]) for i in range(12)]
del sample[7]["cls"]
put("samples/wds-shard-000000.tar", shard(sample))

# clean: 10 samples, labels 0..9
clean = shard([image_sample("%06d" % i, i) for i in range(10)])
put("tests/data/wds/clean-10.tar", clean)
put("tests/data/wds/clean-10.tar.gz", gzip.compress(clean, mtime=0))

# two consecutive shards of a dataset (a folder): 5 + 4 samples, label 7 (bad
# for -n 5) at sample 2 of the second shard, index 7 of the dataset
put("tests/data/wds/shards/shard-000000.tar", shard([image_sample("a%03d" % i, i) for i in range(5)]))
put("tests/data/wds/shards/shard-000001.tar",
    shard([image_sample("b%03d" % i, [0, 1, 7, 2][i]) for i in range(4)]))

# every way to carry a label, in one shard (bytes, as written by hand):
#   0 cls            1 label only       2 target only      3 idx only
#   4 cls and label (cls wins)          5 no label member  6 cls "cat"
#   7 cls " 3\n" (Python's int() takes it)                 8 CLS upper case
#   9 cls "1_0" (int() reads 10)        10 the "lbl" member only (for --key lbl)
put("tests/data/wds/kinds.tar", shard([
    {"__key__": "s00", "jpg": FAKE_JPG, "cls": b"1"},
    {"__key__": "s01", "jpg": FAKE_JPG, "label": b"2"},
    {"__key__": "s02", "jpg": FAKE_JPG, "target": b"3"},
    {"__key__": "s03", "jpg": FAKE_JPG, "idx": b"4"},
    {"__key__": "s04", "jpg": FAKE_JPG, "cls": b"0", "label": b"99"},
    {"__key__": "s05", "jpg": FAKE_JPG, "json": b"{}"},
    {"__key__": "s06", "jpg": FAKE_JPG, "cls": b"cat"},
    {"__key__": "s07", "jpg": FAKE_JPG, "cls": b" 3\n"},
    {"__key__": "s08", "jpg": FAKE_JPG, "CLS": b"2"},
    {"__key__": "s09", "jpg": FAKE_JPG, "cls": b"1_0"},
    {"__key__": "s10", "jpg": FAKE_JPG, "lbl": b"4"},
]))

# keys with directories, as base_plus_ext splits them: "train/a.b/x01" with
# extensions "seg.cls" and "jpg" is one sample; "v1.0/x02" one more; a member
# with no extension is skipped; a __meta__ member too
put("tests/data/wds/dirs.tar", shard([
    {"__key__": "train/a.b/x01", "jpg": FAKE_JPG, "cls": b"1"},
    {"__key__": "v1.0/x02", "jpg": FAKE_JPG, "cls": b"2"},
    {"__key__": "x03", "cls": b"0"},
]))
