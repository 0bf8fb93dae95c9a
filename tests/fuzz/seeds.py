#!/usr/bin/env python3
"""seeds.py - write the seed corpora in tests/fuzz/corpus/ (committed; run
again only to change them). Python's standard library only: no numpy."""
import gzip, io, os, struct, zipfile

here = os.path.dirname(os.path.abspath(__file__))


def npy(descr, shape, data, fortran=False, version=(1, 0)):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False",
        "(%s)" % "".join("%d, " % s for s in shape) if len(shape) != 1 else "(%d,)" % shape[0])
    pre = 10 if version[0] == 1 else 12
    pad = (64 - (pre + len(d) + 1) % 64) % 64
    h = (d + " " * pad + "\n").encode("latin1")
    lenf = struct.pack("<H", len(h)) if version[0] == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes(version) + lenf + h + data


def gz(data):
    return gzip.compress(data, mtime=0)        # reproducible bytes


def put(target, name, data):
    os.makedirs(os.path.join(here, "corpus", target), exist_ok=True)
    with open(os.path.join(here, "corpus", target, name), "wb") as f:
        f.write(data)


def npz(members, method):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data,
                       compress_type=method)
    return b.getvalue()


arrays = {
    "i8": npy("<i8", (5,), struct.pack("<5q", 0, 1, 2, 9, 10)),
    "u1-2d": npy("|u1", (2, 3), bytes([0, 1, 2, 255, 4, 5])),
    "f4-be": npy(">f4", (3,), struct.pack(">3f", 0.0, 1.5, float("nan"))),
    "f2": npy("<f2", (2,), struct.pack("<2H", 0x3c00, 0x7c00)),
    "fortran": npy("<i2", (2, 3), struct.pack("<6h", 0, 3, 1, 4, 2, -1), fortran=True),
    "bool": npy("|b1", (4,), bytes([0, 1, 2, 0])),
    "v2": npy("<u4", (2,), struct.pack("<2I", 1, 7), version=(2, 0)),
    "v3": npy("<u8", (1,), struct.pack("<Q", 2**63 + 5), version=(3, 0)),
    "scalar": npy("<i4", (), struct.pack("<i", 3)),
    "empty": npy("<i8", (0, 4), b""),
    "3d": npy("<i1", (2, 2, 2), bytes([0, 1, 2, 3, 4, 5, 6, 7])),
}
for k, v in arrays.items():
    put("npy", k + ".npy", v)
    put("npy_header", k + ".npy", v[:v.index(b"\n") + 1])

put("npz", "stored.npz", npz([("labels.npy", arrays["i8"]), ("x.npy", arrays["u1-2d"])],
                             zipfile.ZIP_STORED))
put("npz", "deflated.npz", npz([("y.npy", arrays["fortran"])], zipfile.ZIP_DEFLATED))
put("npz", "one.npz", npz([("a.npy", arrays["f4-be"])], zipfile.ZIP_DEFLATED))

csvs = {
    "plain": (0x00, b"id,label\n0,1\n1,2\n2,11\n"),
    "quoted": (0x01, b'name,label\n"a,b",3\n"x ""y""",-1\n"multi\nline",4\n'),
    "semicolon": (0x04, b"a;b\n1;2\n3;x\n"),
    "tab-col2": (0x28, b"1\t2\n3\t4\n"),
    "bce": (0x40, b"target\n0\n1\n0.5\n1.5\n"),
    "crlf-col-name": (0x30, b"x,label\r\n1,2\r\n3,nan\r\n"),
    "stdin": (0x80, b"label\n1\n2\n\n3"),
}
for k, (opt, body) in csvs.items():
    put("csv", k, bytes([opt]) + body)

# --fix's CSV writer: the first byte is format (csv, tsv, text) | header << 2 | column << 3
fix_csvs = {
    "plain": (0x0C, b"id,label\n0,1\n1,2\n2,11\n"),
    "quoted": (0x0C, b'name,label\r\n"a,b",1\r\n"x ""y""", "2" \r\n"multi\nline",x\r\n\r\n0'),
    "bom-tsv": (0x01, b"\xef\xbb\xbf1\t2\n\n3\t0\r4\t1"),
    "text": (0x02, b"0\n 1 \r\n\n2\n1e0\nnan"),
}
for k, (opt, body) in fix_csvs.items():
    put("fix_csv", k, bytes([opt]) + body)

texts = {"ints": b"0\n1\n2\n10\n", "floats": b"1.0\n2.5\ninf\n-nan\n", "mixed": b"1\r\ncat\n\n 3 \n1e3",
         "ignore": b"-100\n255\n255\n3\n"}
for k, v in texts.items():
    put("text", k, v)

put("gzip", "csv.gz", gz(b"label\n1\n2\n3\n"))
put("gzip", "npy.gz", gz(arrays["fortran"]))
put("gzip", "text-2members.gz", gz(b"1\n2\n") + gz(b"3\n"))
put("gzip", "npz.gz", gz(npz([("labels.npy", arrays["i8"])], zipfile.ZIP_STORED)))

raws = {"int64": (7, struct.pack("<3q", 0, 5, -1)), "float32-be": (0x1a, struct.pack(">2f", 0.5, 2.0)),
        "uint8-stdin": (0x42, bytes([0, 1, 2, 3])), "float16": (9, struct.pack("<H", 0x3c00)),
        "odd-int32": (5, b"\x01\x00\x00\x00\x02"), "uint64-n3": (0x88, struct.pack("<Q", 2**64 - 1))}
for k, (opt, body) in raws.items():
    put("raw", k, bytes([opt]) + body)

# decode: xz, bzip2, zstd and UTF-16 (the fuzz target puts a mark in front of
# inputs that lack one; these start with theirs)
import bz2, lzma, shutil, subprocess  # noqa: E402  (this section came later)
put("decode", "text.xz", lzma.compress(b"1\n2\n3\n", format=lzma.FORMAT_XZ))
put("decode", "csv-2streams.xz", lzma.compress(b"label\n1\n", format=lzma.FORMAT_XZ)
    + lzma.compress(b"2\n", format=lzma.FORMAT_XZ))
put("decode", "npy.bz2", bz2.compress(arrays["i8"]))
put("decode", "text-2streams.bz2", bz2.compress(b"1\n") + bz2.compress(b"2\n"))
if shutil.which("zstd"):
    put("decode", "csv.zst", subprocess.run(["zstd", "-q", "-c"], input=b"id,label\n0,1\n1,12\n",
                                            check=True, stdout=subprocess.PIPE).stdout)
put("decode", "utf16le.txt", "1\r\n2\r\n\r\n 3 \r\n".encode("utf-16"))
put("decode", "utf16be.csv", b"\xfe\xff" + "label\n1\n9\n".encode("utf-16-be"))
put("decode", "selector-xz", b"\x00" + b"\x00\x00\x04\xe6\xd6\xb4\x46")

# jsonl: JSON Lines (the target reads them as lines, then as a --field=data document)
jsonls = {
    "ints.jsonl": b'{"text": "a", "label": 1}\n\n{"label": 12}\r\n{"label": -1}',
    "mixed.jsonl": b'{"y": 1.5, "label": true}\n{"label": null}\n{"x": 2}\n{"label": "3"}\n'
                   b'{"label": {"a": [1, "b"]}}\n{"label": [0, [1], 2, null]}\n',
    "names.jsonl": b'{"category": 3, "y": 2}\n{"y": 9, "y": 1}\n{}\n',
    "field.json": b'{"version": 1, "data": [{"y": 1}, {"y": [2, 3]}, {"label": 4}], "more": {}}',
    "bad-line.jsonl": b'{"label": 1}\n{"label": 2} {"label": 3}\n[4]\n',
    # json.dumps' bare NaN, Infinity, -Infinity (json_literals.c), and near misses
    "literals.jsonl": b'{"label": NaN, "NaN": "NaN"}\n{"label": [Infinity, -Infinity, 1]}\n'
                      b'{"y": {"a": NaN}, "label": -0.5}\n{"label":NaN}',
    "literal-near.jsonl": b'{"label": 1}\n{"label": Nan}\n{"label": -NaN}\n{"label": NaNx}\n'
                          b'{"label": Infinit}\n{"label": "\\"NaN"}\n',
    "field-literals.json": b'{"data": [{"y": NaN}, {"y": [Infinity, 2]}, {"y": -Infinity}]}',
}
for k, v in jsonls.items():
    put("jsonl", k, v)

# litdata: LitData's 0.2.7x defaults, from the fixtures litdata wrote
# (tests/data/lib-reads): json leaves, and a framed zstd chunk (level batch);
# index.json cut to that one chunk, under the name the harness writes
import json as _json


def litdata_seed(folder, chunk):
    d = os.path.join(here, "..", "data", "lib-reads", folder)
    with open(os.path.join(d, "index.json")) as f:
        index = _json.load(f)
    entry = [c for c in index["chunks"] if c["filename"] == chunk][0]
    index["chunks"] = [dict(entry, filename="chunk-0-0.bin")]
    with open(os.path.join(d, chunk), "rb") as f:
        shard = f.read()
    return _json.dumps(index).encode() + b"@@SHARD@@" + shard


put("litdata", "litdata-batch", litdata_seed("litdata-batch", "chunk-0-2.bin"))
put("litdata", "litdata-json", litdata_seed("litdata-json", "chunk-0-3.bin"))

# image_size: the headers of every kind, as PIL wrote them (tests/gen/gen_pairs.py),
# a JPEG cut inside its header, and a BMP of the old 12-byte core header
images = os.path.join(here, "..", "data", "pairs", "formats", "images")
for name in sorted(os.listdir(images)):
    with open(os.path.join(images, name), "rb") as f:
        data = f.read()
    if len(data) < 16384:       # not the 100 KB ICC profile's
        put("image_size", name.replace(".", "-"), data)
with open(os.path.join(images, "img1.jpg"), "rb") as f:
    put("image_size", "cut-jpg", f.read()[:30])
put("image_size", "core-bmp", b"BM" + bytes(12) + struct.pack("<IHH", 12, 5, 3))
