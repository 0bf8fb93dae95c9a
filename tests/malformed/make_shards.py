#!/usr/bin/env python3
"""make_shards.py - write the broken MDS and LitData folders of tests/malformed/
(committed; run again only to change them). Python's standard library only:
the shards are built byte by byte in the layout MDSWriter and litdata's
optimize() write (tests/gen/gen_shards.py makes the good ones with the real
writers), then broken one way each. MANIFEST says what labelaudit answers."""
import gzip, json, os, pickle, shutil, struct

here = os.path.dirname(os.path.abspath(__file__))


def folder(name, files):
    p = os.path.join(here, name)
    shutil.rmtree(p, ignore_errors=True)
    os.makedirs(p)
    for fname, data in files.items():
        with open(os.path.join(p, fname), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())


def container(items, gap=b"", offsets=None):
    """count | offsets[count+1] | gap | items: the shard layout of both formats."""
    n = len(items)
    start = 4 + 4 * (n + 1) + len(gap)
    if offsets is None:
        offsets = [start]
        for it in items:
            offsets.append(offsets[-1] + len(it))
    return struct.pack("<I", n) + struct.pack("<%dI" % (n + 1), *offsets) + gap + b"".join(items)


# ---- MDS: columns tokens (ndarray:int32, variable size) and label (int, 8 bytes)
MDS_COLS = {"column_encodings": ["int", "ndarray:int32"], "column_names": ["label", "tokens"],
            "column_sizes": [8, None]}


def mds_sample(label, tokens):
    body = struct.pack("<%di" % len(tokens), *tokens)
    return struct.pack("<I", len(body)) + struct.pack("<q", label) + body


def mds_index(shards, cols=MDS_COLS, compression=None):
    out = []
    for basename, samples, zipname in shards:
        s = dict(cols, compression=compression, format="mds", hashes=[], samples=samples,
                 size_limit=1 << 26, version=2,
                 raw_data={"basename": basename, "bytes": 0, "hashes": {}},
                 zip_data={"basename": zipname, "bytes": 0, "hashes": {}} if zipname else None)
        out.append(s)
    return json.dumps({"shards": out, "version": 2})


def mds_shard(samples, cols=MDS_COLS, offsets=None):
    return container(samples, json.dumps(cols).encode(), offsets)


good = [mds_sample(i, [i, i + 1, 7]) for i in range(3)]
folder("mds-missing-shard", {"index.json": mds_index([("shard.00000.mds", 3, None),
                                                      ("shard.00001.mds", 3, None)]),
                             "shard.00000.mds": mds_shard(good)})
start = 4 + 16 + len(json.dumps(MDS_COLS))
lens = [len(s) for s in good]
folder("mds-offsets-backwards", {
    "index.json": mds_index([("shard.00000.mds", 3, None)]),
    "shard.00000.mds": mds_shard(good, offsets=[start, start + lens[0], start + 2,
                                                start + sum(lens)])})
folder("mds-truncated-shard", {"index.json": mds_index([("shard.00000.mds", 3, None)]),
                               "shard.00000.mds": mds_shard(good)[:-5]})
folder("mds-truncated-gz", {"index.json": mds_index([("shard.00000.mds", 3, "shard.00000.mds.gz")],
                                                    compression="gz"),
                            "shard.00000.mds.gz": gzip.compress(mds_shard(good), mtime=0)[:-12]})
folder("mds-count-mismatch", {"index.json": mds_index([("shard.00000.mds", 5, None)]),
                              "shard.00000.mds": mds_shard(good)})
# an ndarray of no fixed dtype or shape: int32 (code 33), one axis of 5, 3 values
DYN_COLS = dict(MDS_COLS, column_encodings=["int", "ndarray"])
arr = bytes([33, 1 << 2 | 0, 5]) + struct.pack("<3i", 1, 2, 3)
folder("mds-ndarray-short", {
    "index.json": mds_index([("shard.00000.mds", 1, None)], cols=DYN_COLS),
    "shard.00000.mds": mds_shard([struct.pack("<I", len(arr)) + struct.pack("<q", 0) + arr],
                                 cols=DYN_COLS)})
folder("mds-column-overrun", {"index.json": mds_index([("shard.00000.mds", 1, None)]),
                              "shard.00000.mds": mds_shard([struct.pack("<I", 1000) + good[0][4:]])})
folder("mds-bad-json", {"index.json": '{"shards": [', "shard.00000.mds": mds_shard(good)})
folder("mds-name-escape", {"index.json": mds_index([("../shard.00000.mds", 3, None)])})
folder("mds-brotli", {"index.json": mds_index([("shard.00000.mds", 3, "shard.00000.mds.br")],
                                              compression="br"),
                      "shard.00000.mds.br": b"\x0b\x02\x80"})
folder("mds-jsonl", {"index.json": json.dumps({"shards": [{"format": "json", "samples": 1}],
                                               "version": 2})})


# a pkl column holding a pickle that calls os.system: never run, refused by name
class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


PKL_COLS = {"column_encodings": ["pkl"], "column_names": ["labels"], "column_sizes": [None]}
evil = pickle.dumps(Evil(), protocol=2)
fine = pickle.dumps([1, 2, 3], protocol=2)
folder("mds-pkl-callable", {
    "index.json": mds_index([("shard.00000.mds", 2, None)], cols=PKL_COLS),
    "shard.00000.mds": mds_shard([struct.pack("<I", len(fine)) + fine,
                                  struct.pack("<I", len(evil)) + evil], cols=PKL_COLS)})
folder("mds-pkl-dict", {
    "index.json": mds_index([("shard.00000.mds", 1, None)], cols=PKL_COLS),
    "shard.00000.mds": mds_shard([struct.pack("<I", len(p)) + p for p in
                                  [pickle.dumps({"a": 1}, protocol=2)]], cols=PKL_COLS)})


# ---- LitData: TokensLoader chunks of int32 ids (no_header_numpy:2)
def lit_index(chunks, loader="TokensLoader", fmt=("no_header_numpy:2",), **config):
    cfg = {"chunk_bytes": None, "chunk_size": 4, "compression": None, "data_format": list(fmt),
           "data_spec": '[1, {"type": null, "context": null, "children_spec": []}]',
           "encryption": None, "item_loader": loader}
    cfg.update(config)
    return json.dumps({"chunks": [{"chunk_bytes": 0, "chunk_size": n, "dim": None, "filename": f}
                                  for f, n in chunks], "config": cfg})


ids = [struct.pack("<3i", i, i + 1, 5) for i in range(3)]
folder("litdata-missing-chunk", {"index.json": lit_index([("chunk-0-0.bin", 3), ("chunk-0-1.bin", 3)]),
                                 "chunk-0-0.bin": container(ids)})
folder("litdata-offsets-backwards", {
    "index.json": lit_index([("chunk-0-0.bin", 3)]),
    "chunk-0-0.bin": container(ids, offsets=[20, 32, 24, 56])})
folder("litdata-first-offset", {"index.json": lit_index([("chunk-0-0.bin", 3)]),
                                "chunk-0-0.bin": container(ids, offsets=[24, 32, 44, 56])})
folder("litdata-truncated-chunk", {"index.json": lit_index([("chunk-0-0.bin", 3)]),
                                   "chunk-0-0.bin": container(ids)[:-1]})
folder("litdata-odd-bytes", {"index.json": lit_index([("chunk-0-0.bin", 1)]),
                             "chunk-0-0.bin": container([b"\x01\x00\x00"])})
folder("litdata-encrypted", {"index.json": lit_index([("chunk-0-0.bin", 3)],
                                                     encryption={"algorithm": "fernet"}),
                             "chunk-0-0.bin": container(ids)})
# PyTreeLoader: a dict {label: int, name: str}; its leaf sizes overrun the item
spec = ('[1, {"type": "builtins.dict", "context": "[\\"label\\", \\"name\\"]", "children_spec": '
        '[{"type": null, "context": null, "children_spec": []}, '
        '{"type": null, "context": null, "children_spec": []}]}]')
tree = [struct.pack("<II", 8, 3) + struct.pack("<q", 4) + b"cat"]
folder("litdata-leaf-overrun", {
    "index.json": lit_index([("chunk-0-0.bin", 1)], loader="PyTreeLoader", fmt=("int", "str"),
                            data_spec=spec),
    "chunk-0-0.bin": container([struct.pack("<II", 80, 3) + tree[0][8:]])})
folder("litdata-str-key", {
    "index.json": lit_index([("chunk-0-0.bin", 1)], loader="PyTreeLoader", fmt=("int", "str"),
                            data_spec=spec),
    "chunk-0-0.bin": container(tree)})
