#!/usr/bin/env python3
"""make.py - write the broken inputs of tests/malformed/ (committed; run again
only to change them). Python's standard library only (and the zstd command for
the .zst cases). MANIFEST says what labelaudit must answer for each."""
import bz2, gzip, io, json, lzma, os, pickle, shutil, struct, subprocess, tarfile, zipfile, zlib

here = os.path.dirname(os.path.abspath(__file__))


def gz(data):
    return gzip.compress(data, mtime=0)        # reproducible bytes


def put(name, data):
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)


def header(d, version=1):
    pre = 10 if version == 1 else 12
    pad = (64 - (pre + len(d) + 1) % 64) % 64
    h = (d + " " * pad + "\n").encode("latin1")
    lenf = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + lenf + h


def npy(descr="<i8", shape="(5,)", fortran="False", data=None, version=1):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    if data is None:
        data = struct.pack("<5q", 0, 1, 2, 3, 4)
    return header(d, version) + data


good = npy()

# ---- .npy ----------------------------------------------------------------------
put("npy-zero-bytes.npy", b"")
put("npy-bad-magic.npy", b"\x93NUMPX" + good[6:])
put("npy-truncated-preamble.npy", good[:7])
put("npy-version-9.npy", good[:6] + b"\x09\x00" + good[8:])
put("npy-header-len-1gb.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30) + b"{'descr'")
put("npy-header-truncated.npy", good[:50])
put("npy-complex-dtype.npy", npy(descr="<c16"))
put("npy-object-dtype.npy", npy(descr="|O"))
put("npy-structured-dtype.npy",
    header("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (5,), }")
    + b"\0" * 20)
put("npy-bad-dict-literal.npy",
    header("{'descr': '<i8' 'fortran_order': False, 'shape': (5,), }") + good[128:])
put("npy-not-a-dict.npy", header("['descr', '<i8']") + good[128:])
put("npy-missing-shape.npy", header("{'descr': '<i8', 'fortran_order': False, }") + good[128:])
put("npy-duplicate-key.npy",
    header("{'descr': '<i8', 'descr': '<i4', 'fortran_order': False, 'shape': (5,), }")
    + good[128:])
put("npy-unknown-key.npy",
    header("{'descr': '<i8', 'fortran_order': False, 'shape': (5,), 'x': 1}") + good[128:])
put("npy-negative-dim.npy", npy(shape="(-5,)"))
put("npy-shape-not-tuple.npy", npy(shape="(5)"))
put("npy-fortran-not-bool.npy", npy(fortran="'no'"))
put("npy-unterminated-string.npy", header("{'descr': '<i8"))
put("npy-33-dims.npy", npy(shape="(" + "1, " * 33 + ")", data=struct.pack("<q", 0)))
put("npy-dim-too-large.npy", npy(shape="(99999999999999999999,)"))
put("npy-shape-overflows-64-bits.npy", npy(shape="(4294967296, 4294967296)"))
put("npy-bytes-overflow-64-bits.npy", npy(shape="(2305843009213693952,)"))   # 2^61 * 8
put("npy-claims-2p62-elements.npy", npy(descr="|i1", shape="(4611686018427387904,)"))
put("npy-fortran-claims-2p62.npy",
    npy(descr="|i1", shape="(2147483648, 2147483648)", fortran="True"))
put("npy-truncated-data.npy", npy(shape="(100,)"))
put("npy-partial-value.npy", good[:-3])
put("npy-trailing-bytes.npy", good + b"\0\0\0\0")
put("npy-empty-array.npy", npy(shape="(0,)", data=b""))
gzn = gz(npy(shape="(1000,)", data=bytes(range(256)) * 31 + bytes(64)))
put("npy-truncated.npy.gz", gzn[:len(gzn) // 2])

# ---- gzip -------------------------------------------------------------------------
text = b"".join(b"%d\n" % (i % 10) for i in range(2000))
gzt = gz(text)
put("gz-truncated.txt.gz", gzt[:len(gzt) // 2])
put("gz-bad-crc.txt.gz", gzt[:-8] + bytes([gzt[-8] ^ 0xff]) + gzt[-7:])
put("gz-bad-length.txt.gz", gzt[:-4] + struct.pack("<I", len(text) + 1))
put("gz-corrupt-deflate.txt.gz", gzt[:10] + b"\xff" * 16 + gzt[26:])
put("gz-magic-only.txt.gz", b"\x1f\x8b")
put("gz-header-only.txt.gz", gzt[:10])
put("gz-second-member-truncated.txt.gz", gzt + gzt[:30])
put("gz-trailing-garbage.txt.gz", gzt + b"GARBAGE\n")
put("gz-zero-padding.txt.gz", gzt + bytes(5000))

# ---- xz, bzip2, zstd: read like gzip -------------------------------------
xzt = lzma.compress(text, format=lzma.FORMAT_XZ)
put("xz-truncated.txt.xz", xzt[:len(xzt) // 2])
put("xz-header-only.txt.xz", xzt[:12])
put("xz-corrupt.txt.xz", xzt[:40] + b"\xff" * 16 + xzt[56:])
bzt = bz2.compress(text)
put("bz2-truncated.txt.bz2", bzt[:len(bzt) // 2])
put("bz2-corrupt.txt.bz2", bzt[:40] + b"\xff" * 16 + bzt[56:])
if shutil.which("zstd"):              # no zstd in Python's standard library before 3.14
    zst = subprocess.run(["zstd", "-q", "-c", "--no-check"], input=text, check=True,
                         stdout=subprocess.PIPE).stdout
    put("zst-truncated.txt.zst", zst[:len(zst) // 2])
    put("zst-corrupt.txt.zst", zst[:20] + b"\xff" * 16 + zst[36:])

# ---- text encodings: UTF-16 is decoded, broken UTF-16 and UTF-32 refused ------------
put("utf16-unpaired-surrogate.txt", b"\xff\xfe" + "1\n".encode("utf-16-le") + b"\x00\xd8\n\x00")
put("utf16-odd-length.txt", b"\xff\xfe" + "1\n2".encode("utf-16-le") + b"\n")
put("utf32.txt", "1\n2\n".encode("utf-32"))
zipped = io.BytesIO()
with zipfile.ZipFile(zipped, "w") as z:
    z.writestr(zipfile.ZipInfo("labels.csv", (1980, 1, 1, 0, 0, 0)), b"label\n1\n2\n")
put("zip-not-npz.zip", zipped.getvalue())
put("zip-not-npz", zipped.getvalue())

# ---- binary files that are not labels: refused by name, never parsed as text ------
workbook = io.BytesIO()
with zipfile.ZipFile(workbook, "w") as z:      # an .xlsx opens with its content types
    z.writestr(zipfile.ZipInfo("[Content_Types].xml", (1980, 1, 1, 0, 0, 0)), b"<Types/>")
put("binary-workbook.xlsx", workbook.getvalue())
put("binary-sqlite.csv", b"SQLite format 3\0" + b"\x10\0\1\1\0\x40\x20\x20" + b"\0" * 4072)
put("binary-pdf.txt", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
put("binary-jpeg.csv", b"\xff\xd8\xff\xe0\0\x10JFIF\0\1\1\0\0\1\0\1\0\0\xff\xd9")
put("binary-pickle.txt", pickle.dumps([0, 1, 2, 10], protocol=4))
put("binary-pickle-0.txt", pickle.dumps([0, 1, 2, 10], protocol=0))
put("binary-elf", b"\x7fELF\2\1\1\0" + b"\0" * 56)
put("binary-nul-late.csv", b"label\n" + b"1\n" * 100 + b"2\0\n")
put("binary-nul.csv.gz", gz(b"label\n1\n\0\0\0\0\n"))   # judged once decompressed
put("binary-utf16-no-bom.txt", "1\n2\n3\n".encode("utf-16-le"))
# a COCO file given without --format=coco: JSON, which CSV parsing turned into an
# "empty" file with a column named "1]}]}"
put("json-coco-no-format.json", b' {"images": [{"id": 1}], "annotations": [{"id": 1, "image_id": 1, "category_id": 1}]}\n')


# ---- .npz -------------------------------------------------------------------------
def npz(members, method=zipfile.ZIP_STORED):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data,
                       compress_type=method)
    return bytearray(b.getvalue())


stored = npz([("labels.npy", good)])
put("npz-zero-bytes.npz", b"")
put("npz-truncated.npz", stored[:len(stored) - 30])
put("npz-no-directory.npz", stored[:60])
bad = bytearray(stored)
bad[30 + len("labels.npy") + 130] ^= 0x01          # a data byte of the member
put("npz-bad-crc.npz", bad)
eocd = stored.rfind(b"PK\x05\x06")
bad = bytearray(stored)
struct.pack_into("<I", bad, eocd + 12, 4096)        # directory size: past its end record
put("npz-directory-past-end.npz", bad)
bad = bytearray(stored)
struct.pack_into("<H", bad, eocd + 10, 3)           # 3 entries, 1 in the directory's bytes
struct.pack_into("<H", bad, eocd + 8, 3)
put("npz-directory-entry-count-lies.npz", bad)
put("npz-non-npy-member.npz", npz([("labels.txt", b"1\n2\n")]))
put("npz-member-not-npy.npz", npz([("labels.npy", b"1\n2\n3\n")]))
cd = stored.find(b"PK\x01\x02")
bad = bytearray(stored)
struct.pack_into("<H", bad, cd + 8, 1)              # general purpose flag: encrypted
struct.pack_into("<H", bad, 6, 1)
put("npz-encrypted.npz", bad)
bad = bytearray(stored)
struct.pack_into("<H", bad, cd + 10, 12)            # bzip2
struct.pack_into("<H", bad, 8, 12)
put("npz-bzip2-member.npz", bad)
put("npz-several-arrays.npz", npz([("a.npy", good), ("b.npy", good)]))
put("npz-member-name-newline.npz", npz([("a\nb\x1b[31m.npy", b"not an array")]))
deflated = npz([("labels.npy", npy(shape="(200,)", data=bytes(1600)))], zipfile.ZIP_DEFLATED)
bad = bytearray(deflated)
for i in range(30 + len("labels.npy") + 2, 30 + len("labels.npy") + 12):
    bad[i] ^= 0x55
put("npz-corrupt-deflate.npz", bad)
bad = bytearray(stored)
struct.pack_into("<I", bad, cd + 42, 7)             # local header offset: not a header
put("npz-bad-local-header.npz", bad)


def zip64_lie(usize, entries=1, csize=None):
    """A stored member whose zip64 extra field claims usize; a zip64 end record
    that claims `entries` entries."""
    name = b"labels.npy"
    data = good
    crc = zlib.crc32(data)
    extra = struct.pack("<HHQQ", 1, 16, usize, len(data) if csize is None else csize)
    local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 0, 0, 0, crc, 0xFFFFFFFF,
                        0xFFFFFFFF, len(name), len(extra)) + name + extra
    cdent = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 0, 0, 0, crc,
                        0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra), 0, 0, 0, 0, 0) + name + extra
    body = local + data
    cd_off = len(body)
    z64_off = cd_off + len(cdent)
    z64 = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, entries, entries,
                      len(cdent), cd_off)
    loc = struct.pack("<IIQI", 0x07064b50, 0, z64_off, 1)
    end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return body + cdent + z64 + loc + end


put("npz-zip64-size-2p62.npz", zip64_lie(1 << 62))
put("npz-zip64-sizes-both-2p62.npz", zip64_lie(1 << 62, csize=1 << 62))
put("npz-zip64-entries-2p62.npz", zip64_lie(len(good), entries=1 << 62))
put("npz-zip64-ok.npz", zip64_lie(len(good)))
big = npy(shape="(200,)", data=bytes(1600))
bad = npz([("labels.npy", big)], zipfile.ZIP_DEFLATED)
cd = bad.find(b"PK\x01\x02")
struct.pack_into("<I", bad, cd + 24, 1 << 31)       # uncompressed size: a lie
put("npz-usize-lie.npz", bad)

# ---- csv, text, raw ---------------------------------------------------------------
put("csv-unterminated-quote.csv", b'id,label\n1,2\n2,"3\n3,4\n')
put("csv-non-numeric.csv", b"id,label\n1,cat\n2,3\n3,dog\n")
put("csv-empty-cells.csv", b"id,label\n1,\n2,3\n3,\n")
put("csv-zero-bytes.csv", b"")
put("csv-binary-garbage.csv", bytes(range(256)) * 4)
put("csv-ragged.csv", b"a,b,label\n1,2,3\n4\n5,6,7,8\n")
put("text-binary-garbage.txt", b"\x00\x01\xff\xfe\n1\n\x7fELF\n")
put("text-zero-bytes.txt", b"")
put("text-huge-number.txt", b"1\n99999999999999999999999\n")
put("text-hex-and-junk.txt", b"0x10\n1p3\n--1\n1e\n")
put("text-escape-sequences.txt", b"1\n\x1b[2J\x1b]0;owned\x07\n")
put("raw-odd-size.bin", b"\x01\x00\x00\x00\x02")
put("raw-zero-bytes.bin", b"")
put("good-5.txt", b"0\n1\n2\n3\n4\n")

# ---- .pt (torch.save's zip) and .safetensors ---------------------------
# Written by hand, as torch.save lays them out: PREFIX/data.pkl, a protocol-2
# pickle, and one stored member PREFIX/data/KEY per storage.


def pkl_str(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def pkl_tuple(items):
    return b"(" + b"".join(items) + b"t"


def pkl_int(i):
    return b"J" + struct.pack("<i", i)


def tensor_pkl(numel, offset, size, stride, storage="LongStorage", key="0"):
    pid = pkl_tuple([pkl_str("storage"), b"ctorch\n" + storage.encode() + b"\n", pkl_str(key),
                     pkl_str("cpu"), pkl_int(numel)]) + b"Q"
    args = pkl_tuple([pid, pkl_int(offset), pkl_tuple([pkl_int(n) for n in size]),
                      pkl_tuple([pkl_int(n) for n in stride]), b"\x89",
                      b"ccollections\nOrderedDict\n)R"])
    return b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n" + args + b"R."


def pt(members, method=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return bytearray(buf.getvalue())


five = struct.pack("<5q", 0, 1, 2, 3, 4)
put("pt-good.pt", pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1])), ("p/data/0", five)]))


class Shell:                       # what a malicious .pt carries: torch.load would run it
    def __reduce__(self):
        return (os.system, ("echo labelaudit-ran-the-pickle > /tmp/labelaudit-pwned",))


class Eval:
    def __reduce__(self):
        return (eval, ("1",))


put("pt-os-system.pt", pt([("p/data.pkl", pickle.dumps(Shell(), protocol=2))]))
put("pt-builtins-eval.pt", pt([("p/data.pkl", pickle.dumps({"labels": Eval()}, protocol=2))]))
# a "billion laughs": 40 levels of lists, each ten references to the one below
bomb = b"\x80\x02]q\x000"
for level in range(40):
    bomb += b"(" + (b"h" + bytes([level % 2])) * 10 + b"lq" + bytes([(level + 1) % 2]) + b"0"
put("pt-pickle-bomb.pt", pt([("p/data.pkl", bomb + b"h\x00.")]))
put("pt-pickle-million-values.pt",
    pt([("p/data.pkl", b"\x80\x02(" + b"N" * 1100000 + b"l.")], zipfile.ZIP_DEFLATED))
put("pt-pickle-truncated.pt", pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1])[:-20])]))
put("pt-offset-past-storage.pt",
    pt([("p/data.pkl", tensor_pkl(5, 3, [5], [1])), ("p/data/0", five)]))
put("pt-stride-past-storage.pt",
    pt([("p/data.pkl", tensor_pkl(5, 0, [3], [2 ** 31 - 1])), ("p/data/0", five)]))
put("pt-storage-short.pt", pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1])), ("p/data/0", five[:32])]))
put("pt-storage-missing.pt", pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1]))]))
put("pt-complex-storage.pt",
    pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1], "ComplexFloatStorage")), ("p/data/0", five)]))
bad = pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1])), ("p/data/0", five)])
bad[bad.find(b"p/data/0") + 8 + 8] ^= 0xFF          # a byte of the storage's values
put("pt-storage-bad-crc.pt", bad)
# the local header's own extra-field length (torch.save pads there, not in the
# central directory) puts the storage's data past the directory: refused at
# open, before any read of it (in place or not)
bad = pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1])), ("p/data/0", five)])
struct.pack_into("<H", bad, bad.find(b"p/data/0") - 30 + 28, 0xFFFF)   # its local header
put("pt-local-extra-past-end.pt", bad)
put("pt-torchscript.pt", pt([("m/data.pkl", b"\x80\x02}."), ("m/constants.pkl", b"\x80\x02)."),
                             ("m/code/m.py", b"")]))
put("pt-not-torch.pt", pt([("labels.txt", b"1\n2\n")]))
put("pt-legacy.pt", b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.\x80\x02M\xe9\x03.")
put("pt-truncated.pt", pt([("p/data.pkl", tensor_pkl(5, 0, [5], [1])), ("p/data/0", five)])[:150])
# lists of numbers by hand, where the pickle reader packs them: a DUP'd and a
# memo'd int, then an int beyond int64 and a float (float32 in the end, as
# torch.tensor makes it); LONG4 and LONG1 forms of int64 values; numbers
# unpacked again when a str joins them, the list of 5 and 6 found inside
put("pt-pickle-list-shared.pt", pt([("p/data.pkl", b"\x80\x02]q\x00(K\x01K\x022K\x03q\x01eh\x01a"
                                     + b"\x8a\x09" + (2 ** 64).to_bytes(9, "little") + b"a"
                                     + b"G" + struct.pack(">d", 0.5) + b"a.")]))
put("pt-pickle-list-longs.pt", pt([("p/data.pkl", b"\x80\x02](\x8b\x03\x00\x00\x00\x05\x00\x00"
                                    + b"\x8a\x08" + (-2 ** 63).to_bytes(8, "little", signed=True)
                                    + b"\x8a\x09" + (-2 ** 63).to_bytes(9, "little", signed=True)
                                    + b"\x8a\x00e.")]))
put("pt-pickle-list-mixed.pt",
    pt([("p/data.pkl", b"\x80\x02](K\x01K\x02X\x01\x00\x00\x00a](K\x05K\x06ee.")]))


def st(header, data, length=None):
    h = json.dumps(header).encode() if isinstance(header, dict) else header
    return struct.pack("<Q", len(h) if length is None else length) + h + data


one = {"labels": {"dtype": "I64", "shape": [5], "data_offsets": [0, 40]}}
put("st-good.safetensors", st(one, five))
put("st-header-100mb.safetensors", st(b'{"labels":', b"", length=100 << 20))
put("st-header-past-end.safetensors", st(b'{"labels": {}}', b"", length=4096))
put("st-header-not-json.safetensors", st(b"{'labels': 1}", five))
put("st-size-lies.safetensors",
    st({"labels": {"dtype": "I64", "shape": [4], "data_offsets": [0, 40]}}, five))
put("st-offsets-overlap.safetensors",
    st({"a": {"dtype": "I64", "shape": [5], "data_offsets": [0, 40]},
        "b": {"dtype": "I64", "shape": [1], "data_offsets": [32, 40]}}, five))
put("st-offsets-gap.safetensors",
    st({"labels": {"dtype": "I64", "shape": [4], "data_offsets": [8, 40]}}, five))
put("st-offset-past-end.safetensors",
    st({"labels": {"dtype": "I64", "shape": [5], "data_offsets": [0, 40]}}, five[:24]))
put("st-trailing-bytes.safetensors", st(one, five + b"junk"))
put("st-complex-dtype.safetensors",
    st({"labels": {"dtype": "C64", "shape": [5], "data_offsets": [0, 40]}}, five))
put("st-zero-bytes.safetensors", b"")
# a name with a tab and an escape sequence goes into a one-line message
put("st-name-control-bytes.safetensors",
    st({"a\tb\x1b[31m": {"dtype": "I64", "shape": [4], "data_offsets": [0, 40]}}, five))
# what the library's serde_json refuses, though cJSON reads it: a dimension or
# offset that is not an unsigned integer token, a field given twice; and a
# tensor name given twice, whose last entry counts
def st_text(text, data):
    return st(text.encode(), data)


put("st-float-dim.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[5.0],"data_offsets":[0,40]}}', five))
put("st-exponent-dim.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[5e0],"data_offsets":[0,40]}}', five))
put("st-float-offset.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[5],"data_offsets":[0,40.0]}}', five))
put("st-negative-dim.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[-5],"data_offsets":[0,40]}}', five))
put("st-minus-zero-dim.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[5,-0],"data_offsets":[0,0]}}', b""))
put("st-dim-over-u64.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[0,18446744073709551616],"data_offsets":[0,0]}}', b""))
put("st-dim-2p53-plus-1.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[0,9007199254740993],"data_offsets":[0,0]}}', b""))
put("st-elements-overflow.safetensors",
    st_text('{"labels":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}', b""))
put("st-field-twice.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[4],"shape":[5],"data_offsets":[0,40]}}', five))
put("st-metadata-twice.safetensors",
    st_text('{"__metadata__":{},"__metadata__":{},"labels":{"dtype":"I64","shape":[5],'
            '"data_offsets":[0,40]}}', five))
put("st-metadata-number.safetensors",
    st_text('{"__metadata__":{"n":1},"labels":{"dtype":"I64","shape":[5],"data_offsets":[0,40]}}',
            five))
put("st-name-twice-last-good.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[4],"data_offsets":[0,32]},'
            '"labels":{"dtype":"I64","shape":[5],"data_offsets":[0,40]}}', five))
put("st-name-twice-last-short.safetensors",
    st_text('{"labels":{"dtype":"I64","shape":[5],"data_offsets":[0,40]},'
            '"labels":{"dtype":"I64","shape":[4],"data_offsets":[0,32]}}', five))


# ---- WebDataset shards: tar members, written with tarfile -----------
def tar(members):
    """A ustar archive of (name, bytes) members, reproducible (mtime 0)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 0
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


wds_good = tar([("%06d.%s" % (i, ext), data) for i in range(4)
                for ext, data in (("jpg", b"\xff\xd8fake\xff\xd9"), ("cls", b"%d" % i))])
put("wds-truncated.tar", wds_good[:1800])          # inside the third member's data
# a cls member whose header claims 1 GB, then the shard ends: it is not read into memory
claim = bytearray(tar([("000000.cls", b"1")])[:512])
claim[124:136] = b"%011o\0" % (1 << 30)
claim[148:156] = b"        "
claim[148:156] = b"%06o\0 " % sum(claim)
put("wds-claims-1gb.tar", bytes(claim) + b"1" + b"\0" * 511)
put("wds-non-numeric-cls.tar", tar([("000000.jpg", b"x"), ("000000.cls", b"cat"),
                                    ("000001.jpg", b"x"), ("000001.cls", b"1")]))
put("wds-no-label.tar", tar([("000000.jpg", b"x"), ("000000.cls", b"0"),
                             ("000001.jpg", b"x"), ("000001.json", b"{}")]))


# ---- the class count beside the labels: a data.yaml, an nnU-Net dataset.json
def put_tree(files):
    for name, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(here, name)), exist_ok=True)
        put(name, data)


box = b"0 0.5 0.5 0.2 0.2\n"
# a YAML bomb of more aliases than a data.yaml could hold (never expanded)
bomb_yaml = b"a: &a [x, x, x, x, x, x, x, x, x, x]\n" + b"".join(
    b"b%d: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" % i for i in range(120)) + b"nc: 1\n"
put_tree({"yolo-yaml-bomb/data.yaml": bomb_yaml, "yolo-yaml-bomb/labels/a.txt": box})
# nc and names disagree: Ultralytics refuses it; labelaudit reads it, a finding
put_tree({"yolo-names-vs-nc/data.yaml": b"nc: 3\nnames: [a, b, c, d]\n",
          "yolo-names-vs-nc/labels/a.txt": box})
put_tree({"yolo-yaml-broken/data.yaml": b"nc: 3\nnames: [a, b\n",
          "yolo-yaml-broken/labels/a.txt": box})
mask = bytes.fromhex("89504e470d0a1a0a0000000d494844520000000200000002080000000057dd52f8"
                     "0000000b49444154789c636000010000060001fe8c67c80000000049454e44ae426082")   # a 2x2 8-bit grey PNG of zeros
put_tree({"nnunet-gap/dataset.json": b'{"labels": {"background": 0, "tumor": 2}}',
          "nnunet-gap/labelsTr/case_000.png": mask})
put_tree({"nnunet-no-labels/dataset.json": b'{"labels": [0, 1]}',
          "nnunet-no-labels/labelsTr/case_000.png": mask})

# JSON Lines (--format=jsonl, or the .jsonl/.ndjson name): lines that are no
# records, each refused naming its line; --field documents without the records
put("jsonl-two-per-line.jsonl", b'{"label": 1}\n{"label": 2} {"label": 3}\n')
put("jsonl-array-line.jsonl", b'{"label": 1}\n\n[1, 2]\n')
put("jsonl-cut.jsonl.gz", gz(b'{"label": 1}\n{"label": [1, 2'))
put("jsonl-bad-json.ndjson", b'{"label": 1}\n{label: 2}\n')
put("jsonl-no-label.jsonl", b'{"a": 1, "b": 2}\n{"a": 3, "b": 4}\n')
put("jsonl-long-string.jsonl.gz", gz(b'{"label": 1, "text": "' + b"a" * (17 << 20) + b'"}\n'))
put("jsonl-deep.jsonl", b'{"label": ' + b"[" * 600 + b"]" * 600 + b"}\n")
put("jsonl-field-not-array.json", b'{"version": "v2.0",\n "data": {"label": 1}}\n')
put("jsonl-field-missing.json", b'{"version": "v2.0", "rows": [{"label": 1}]}\n')
