#!/usr/bin/env python3
"""gen_arrow_shards.py - the fixtures of tests/readers/arrow-shards.sh: folders
and files whose parts disagree, written by pyarrow and Hugging Face `datasets`
themselves (pip install pyarrow datasets pandas), each checked here against
what those libraries do with it (issue 41, items 2, 3, 4, 5 and 16):

  dtype-32-64/, dtype-64-32/  save_to_disk folders whose second shard holds the
                              label as int64 (int32) where the first holds int32
                              (int64); load_from_disk refuses them
  csv-cache/                  a load_dataset cache folder: csv-train.arrow (9
                              rows), csv-test.arrow (7), and the cache-*.arrow of
                              a .filter() on train (6)
  sharded-cache/              a cache folder whose splits are sharded:
                              parquet-train-0000i-of-00002.arrow, parquet-test-...
  dict-rowgroups.parquet      a dictionary column with ['cat', 'dog'] in row
                              group 0 and ['bird'] in row group 1
  dict-swapped.parquet        ['cat', 'dog'] then ['dog', 'cat']: one name, two
                              indices
  dict-replaced.arrow         an IPC stream whose dictionary is replaced
  hub/                        Hub-layout Parquet shards, data/train-0000i-of-00003
                              .parquet, of a ClassLabel (neg, neu, pos) with
                              -1, 3 and 4 stray
  cl-mismatch.parquet         a ClassLabel of 3 names and num_classes 2 in the
                              schema metadata (ClassLabel() refuses the pair)
  cl-mismatch-saved/          the same in a save_to_disk dataset_info.json

    python3 tests/gen/gen_arrow_shards.py

Committed with its output; make check never runs Python."""
import glob
import json
import os
import shutil
import tempfile

import datasets
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "arrow-shards")
datasets.disable_progress_bars()


def out(*name):
    return os.path.join(here, *name)


def must_refuse(what, fn, words):
    try:
        fn()
    except Exception as e:          # what the library says, kept to compare
        assert words in str(e), (what, str(e))
        return
    raise AssertionError(f"{what}: datasets read it")


def dtype_cases():
    """save_to_disk of int32 labels, its second shard swapped for int64's."""
    for first, second, name in [(pa.int32(), pa.int64(), "dtype-32-64"),
                                (pa.int64(), pa.int32(), "dtype-64-32")]:
        vals = [i % 5 for i in range(20)]
        vals[15] = 9                # in the second shard: past -n 5
        tabs = {}
        for typ in (first, second):
            t = pa.table({"label": pa.array(vals, typ)})
            tabs[typ] = t
            d = datasets.Dataset(datasets.table.InMemoryTable(t))
            shutil.rmtree(out(f"{name}-{typ}"), ignore_errors=True)
            d.save_to_disk(out(f"{name}-{typ}"), num_shards=2)
        shutil.rmtree(out(name), ignore_errors=True)
        os.rename(out(f"{name}-{first}"), out(name))
        shutil.copy(out(f"{name}-{second}", "data-00001-of-00002.arrow"),
                    out(name, "data-00001-of-00002.arrow"))
        shutil.rmtree(out(f"{name}-{second}"))
        must_refuse(name, lambda: datasets.load_from_disk(out(name)), "ncompatible")


def cache_cases():
    """What load_dataset leaves in its cache folder, copied without the locks."""
    src = tempfile.mkdtemp()
    for split, n in [("train", 9), ("test", 7)]:
        with open(os.path.join(src, f"{split}.csv"), "w") as f:
            f.write("text,label\n")
            for i in range(n):
                f.write(f"t{i},{i % 3}\n")
    cache = os.path.join(src, "cache")
    files = {s: os.path.join(src, f"{s}.csv") for s in ("train", "test")}
    d = datasets.load_dataset("csv", data_files=files, cache_dir=cache)
    kept = d["train"].filter(lambda x: x["label"] != 0)      # cache-*.arrow, 6 rows
    assert (len(d["train"]), len(d["test"]), len(kept)) == (9, 7, 6)
    copy_cache(glob.glob(os.path.join(cache, "csv", "*", "*", "*", "dataset_info.json")),
               "csv-cache")
    # sharded splits: a builder cut into shards of a few rows
    for split, n in [("train", 30), ("test", 12)]:
        pq.write_table(pa.table({"label": pa.array([i % 4 for i in range(n)], pa.int64())}),
                       os.path.join(src, f"{split}.parquet"), row_group_size=6)
    files = {s: os.path.join(src, f"{s}.parquet") for s in ("train", "test")}
    b = datasets.load_dataset_builder("parquet", data_files=files, cache_dir=cache + "2")
    b.download_and_prepare(max_shard_size=100)
    copy_cache(glob.glob(os.path.join(cache + "2", "parquet", "*", "*", "*", "dataset_info.json")),
               "sharded-cache")
    names = sorted(os.listdir(out("sharded-cache")))
    assert "parquet-train-00000-of-00002.arrow" in names, names
    shutil.rmtree(src)


def copy_cache(infos, name):
    assert len(infos) == 1, infos
    shutil.rmtree(out(name), ignore_errors=True)
    os.makedirs(out(name))
    for f in os.listdir(os.path.dirname(infos[0])):
        if not f.endswith(".lock"):
            shutil.copy(os.path.join(os.path.dirname(infos[0]), f), out(name, f))


def dict_of(idx, names):
    return pa.DictionaryArray.from_arrays(pa.array(idx, pa.int32()), pa.array(names))


def dict_cases():
    for name, chunks in [("dict-rowgroups.parquet",
                          [dict_of([0, 1, 0, 1], ["cat", "dog"]), dict_of([0, 0, 0], ["bird"])]),
                         ("dict-swapped.parquet",
                          [dict_of([0, 1, 0, 1], ["cat", "dog"]), dict_of([0, 1, 1], ["dog", "cat"])])]:
        t = pa.table({"label": pa.chunked_array(chunks)})
        pq.write_table(t, out(name), row_group_size=4)
        back = pq.ParquetFile(out(name))
        assert back.num_row_groups == 2
        # each row group keeps its own dictionary, as the reader hands it out
        dicts = [back.read_row_group(i)["label"].chunk(0).dictionary.to_pylist() for i in range(2)]
        assert dicts == [c.dictionary.to_pylist() for c in chunks], dicts
    t = pa.table({"label": pa.chunked_array([dict_of([0, 1, 0, 1], ["cat", "dog"]),
                                             dict_of([0, 0, 0], ["bird"])])})
    with ipc.new_stream(out("dict-replaced.arrow"), t.schema) as w:
        for b in t.to_batches():
            w.write_batch(b)
    batches = list(ipc.open_stream(out("dict-replaced.arrow")))
    assert batches[1]["label"].dictionary.to_pylist() == ["bird"]
    # the truth: pandas' codes of the unified categories, one line per file
    with open(out("dict-truth.tsv"), "w") as f:
        for name, col in [("dict-rowgroups.parquet", pq.read_table(out("dict-rowgroups.parquet"))),
                          ("dict-swapped.parquet", pq.read_table(out("dict-swapped.parquet"))),
                          ("dict-replaced.arrow", ipc.open_stream(out("dict-replaced.arrow")).read_all())]:
            codes = col["label"].to_pandas().cat.codes.tolist()
            f.write(f"{name}\t{','.join(map(str, codes))}\n")


def hub_cases():
    """Dataset.push_to_hub's layout, written as it writes each shard (to_parquet)."""
    feats = datasets.Features({"text": datasets.Value("string"),
                               "label": datasets.ClassLabel(names=["neg", "neu", "pos"])})
    lab = [i % 3 for i in range(30)]
    lab[4], lab[14], lab[24] = -1, 3, 4       # one below, two above
    raw = pa.table({"text": [f"t{i}" for i in range(30)], "label": pa.array(lab, pa.int64())})
    d = datasets.Dataset(datasets.table.InMemoryTable(raw), info=datasets.DatasetInfo(features=feats))
    shutil.rmtree(out("hub"), ignore_errors=True)
    os.makedirs(out("hub", "data"))
    for i in range(3):
        d.shard(num_shards=3, index=i, contiguous=True).to_parquet(
            out("hub", "data", f"train-{i:05d}-of-00003.parquet"))
    back = datasets.load_dataset("parquet", data_dir=out("hub"), split="train")
    assert back.features["label"].names == ["neg", "neu", "pos"]


def class_label_cases():
    """A ClassLabel whose names and num_classes disagree. The constructor refuses
    it; from a stored dict (schema metadata, dataset_info.json) datasets 5.2
    drops num_classes (an InitVar, not a field) and keeps the names."""
    must_refuse("ClassLabel(names=[3], num_classes=2)",
                lambda: datasets.ClassLabel(names=["a", "b", "c"], num_classes=2),
                "do not match")
    meta = {"info": {"features": {"label": {"names": ["a", "b", "c"], "num_classes": 2,
                                            "_type": "ClassLabel"}}}}
    t = pa.table({"label": pa.array([0, 1, 2, 1], pa.int64())})
    t = t.replace_schema_metadata({"huggingface": json.dumps(meta)})
    pq.write_table(t, out("cl-mismatch.parquet"))
    back = datasets.Dataset.from_parquet(out("cl-mismatch.parquet"), cache_dir=tempfile.mkdtemp())
    assert back.features["label"].num_classes == 3
    feats = datasets.Features({"label": datasets.ClassLabel(names=["a", "b", "c"])})
    d = datasets.Dataset.from_dict({"label": [0, 1, 2, 1]}, features=feats)
    shutil.rmtree(out("cl-mismatch-saved"), ignore_errors=True)
    d.save_to_disk(out("cl-mismatch-saved"))
    path = out("cl-mismatch-saved", "dataset_info.json")
    with open(path) as f:
        info = json.load(f)
    info["features"]["label"]["num_classes"] = 2
    with open(path, "w") as f:
        json.dump(info, f)
    assert datasets.load_from_disk(out("cl-mismatch-saved")).features["label"].num_classes == 3


def main():
    shutil.rmtree(here, ignore_errors=True)
    os.makedirs(here)
    dtype_cases()
    cache_cases()
    dict_cases()
    hub_cases()
    class_label_cases()


main()
