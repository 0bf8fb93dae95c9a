#!/usr/bin/python3
"""make_pt.py - the .pt fixtures of tests/readers/containers.sh, written by torch.save
(Debian's python3-torch: `apt-get install python3-torch`; any PyTorch >= 1.6
writes the same layout). Committed; run it again only to change them:
    /usr/bin/python3 tests/data/containers/make_pt.py"""
import collections, io, os, zipfile, torch

here = os.path.dirname(os.path.abspath(__file__))


def save(obj, name, **kw):
    torch.save(obj, os.path.join(here, name), **kw)


# 1-based class indices as MATLAB-born datasets carry them: 10 is out of range for -n 10
labels = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3, 4], dtype=torch.int64)
save(labels, "pt-labels.pt")
save({"images": torch.zeros(12, 2, 2), "labels": labels}, "pt-dict.pt")
save(collections.OrderedDict([("y", labels), ("w", torch.ones(12))]), "pt-ordereddict.pt")
save([torch.zeros(3), labels], "pt-list.pt")
save((labels, torch.zeros(3)), "pt-tuple.pt")
save({"a": torch.zeros(2), "b": torch.ones(2)}, "pt-two-tensors.pt")
save({"labels": labels, "meta": "not a tensor"}, "pt-dict-with-str.pt")
# views: torch.save keeps the whole storage; the tensor is offset, size and stride into it
base = torch.arange(40, dtype=torch.int64)
save(base[3:30:4], "pt-strided-view.pt")                 # 3 7 11 ... 27
save(base.view(5, 8).t(), "pt-transposed.pt")            # C order of the transpose
save(base.view(5, 8)[1:4, 2:5], "pt-slice-2d.pt")
save(torch.tensor([0, 1, 2]).expand(4, 3), "pt-expanded.pt")   # stride 0
save(torch.tensor(7), "pt-scalar.pt")
save(torch.zeros(0, dtype=torch.int64), "pt-empty.pt")
# contiguous views, which labelaudit reads in place at the storage's offset
# (a file run): the tests check both the values and, with -v, the path taken
save(base[5:], "pt-offset-view.pt")                     # 5 .. 39: storage_offset 5
save(base.view(5, 8)[1:4], "pt-rows-2d.pt")              # rows 1..3: offset 8, C-contiguous
save({"a": base[:10], "b": base[20:30]}, "pt-shared-storage.pt")   # one storage, two views
# a dimension of size 1 may have any stride and stay contiguous
save(base.as_strided((1, 8), (1000, 1), 8), "pt-unit-dim.pt")     # 8 .. 15
save(base[::2], "pt-step-2.pt")                          # 0 2 4 ...: not contiguous
# dtypes
save(torch.tensor([0.0, 1.0, 0.5, 2.0], dtype=torch.bfloat16), "pt-bf16.pt")
save(torch.tensor([0.0, 1.0, 0.5, 2.0], dtype=torch.float16), "pt-f16.pt")
save(torch.tensor([0, 1, 255], dtype=torch.uint8), "pt-uint8.pt")
save(torch.tensor([True, False, True]), "pt-bool.pt")
save(torch.tensor([0, 1, 2, 5], dtype=torch.int32), "pt-int32.pt")
save(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), "pt-double.pt")
# the format before PyTorch 1.6, refused by name
save(labels, "pt-legacy.pt", _use_new_zipfile_serialization=False)
# the layout of the torch that runs this (PyTorch 2 adds byteorder,
# .format_version, .storage_alignment and .data/serialization_id members):
# run it once with a PyTorch 2 (pip install torch) and once with Debian's 1.13
save({"labels": labels}, "pt-torch%s-dict.pt" % torch.__version__.split(".")[0])

# torch.save(dataset.targets): Python lists and tuples of numbers, read as
# torch.tensor(x) reads them. 2500 ints: APPENDS in batches of 1000, and
# BININT1, BININT2 (300), BININT (-1) and LONG1 (2**40) among them
ints = [i % 10 for i in range(2500)]
ints[1500], ints[2000], ints[2499] = 300, -1, 2 ** 40
save(ints, "pt-list-ints.pt")
save([0.5, 1, True, 0.1], "pt-list-floats.pt")          # float32, torch's default dtype
save((True, False, True), "pt-tuple-bools.pt")           # bool
save([True, 2], "pt-list-bool-int.pt")                   # int64
save([1, 2 ** 63], "pt-list-int-overflow.pt")            # torch.tensor: Overflow when unpacking long
save([0.5, 2 ** 63], "pt-list-big-int-float.pt")         # float32: 9.223372e18
save([0.5, 2 ** 1100], "pt-list-int-too-large.pt")       # int too large to convert to float
save([], "pt-list-empty.pt")
save([[0, 1, 1], [1, 0, 3]], "pt-list-2d.pt")            # multi-label rows: shape (2, 3)
save([[0, 1], [1]], "pt-list-ragged.pt")
save([[[0]]], "pt-list-3d.pt")
# nested dicts: labels found by their path, train/labels
save({"train": {"images": torch.zeros(4, 2), "labels": [3, 1, 0, 12]},
      "test": {"labels": torch.tensor([1, 2])}}, "pt-nested.pt")
save({"train": {"labels": [3, 1, 0, 12]}, "classes": ["a", "b"]}, "pt-nested-one.pt")
# 1.1M ints, more than the pickle reader's 2^20 values: the packed numbers
# are no values (deflated here, a few KB; torch.save stores it, 2.2 MB)
buf = io.BytesIO()
torch.save([i % 10 for i in range(1100000)], buf)
with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, \
        zipfile.ZipFile(os.path.join(here, "pt-list-1m.pt"), "w", zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        dst.writestr(zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0)),
                     src.read(info), zipfile.ZIP_DEFLATED)

# expand() repeats one stored value: (2^40,) and (2^31, 2^31) over a storage
# of 1 are refused by name (gathered one by one they took hours, or forever);
# (1000, 3) over 3 is audited, each stored value counted as often as it shows
save(torch.tensor([7]).expand(2 ** 40), "pt-expand-2p40.pt")
save(torch.tensor([7]).expand(2 ** 31, 2 ** 31), "pt-expand-2p31-2p31.pt")
save({"labels": torch.tensor([0, 1, 12]).expand(1000, 3)}, "pt-expand-1000x3.pt")
# the bound: 256 times the storage plus 2^24 elements
save(torch.tensor([7]).expand(2 ** 24 + 256), "pt-expand-at-bound.pt")
save(torch.tensor([7]).expand(2 ** 24 + 257), "pt-expand-over-bound.pt")

# samples/targets.pt: a dict as training scripts save it, one label -1 among 0..9
y = torch.arange(40) % 10
y[17] = -1
torch.save({"inputs": torch.zeros(40, 3), "targets": y},
           os.path.join(here, "..", "..", "..", "samples", "targets.pt"))
