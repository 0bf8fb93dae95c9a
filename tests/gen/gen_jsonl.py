#!/usr/bin/env python3
"""gen_jsonl.py - the JSON Lines fixtures of tests/readers/jsonl.sh, written by
pandas (DataFrame.to_json(orient="records", lines=True)) and Hugging Face
`datasets` (Dataset.to_json; a SQuAD-style document read back with
load_dataset("json", field=...)), with the truth beside them:
tests/data/jsonl/truth.tsv, one line per case, computed from what pandas or
`datasets` reads back; and the README's samples/hf-reviews.jsonl (datasets'
to_json of reviews, one stray id 3 and one null label).

    python3 tests/gen/gen_jsonl.py      # needs pandas, and `datasets` (pip install datasets)

Committed with its output; make check never runs Python. The truth is what
labelaudit's JSON report must say: the labels (a list's items each), the
samples (the records), the dtype, the range, the unparsable cells, and the
first bad entries with their values (a null or NaN is "null", a missing key
"", a string its text)."""
import gzip
import json
import math
import os
import random
import shutil

import pandas as pd

try:
    import datasets
except ImportError:          # the pandas cases alone
    datasets = None

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "jsonl")
cases = []      # (name, args, label values as the library read them back, N, dtype)
MAX_REPORT = 5


def out(name):
    return os.path.join(here, name)


def ints(n, classes, seed):
    rng = random.Random(seed)
    vals = [rng.randrange(classes) for _ in range(n)]
    vals[n // 3] = classes      # one stray id, at or above N
    vals[n // 2] = -1
    return vals


def frame(labels, n):
    return pd.DataFrame({"id": range(n), "text": [f"sample {i}" for i in range(n)],
                         "label": labels})


def pandas_cases():
    n = 300
    df = frame(ints(n, 10, 1), n)
    df.to_json(out("pd-int.jsonl"), orient="records", lines=True)
    back = pd.read_json(out("pd-int.jsonl"), lines=True)
    cases.append(("pd-int.jsonl", "-n 10", back["label"].tolist(), 10, "int64"))

    df.to_json(out("pd-int.jsonl.gz"), orient="records", lines=True,
               compression={"method": "gzip", "mtime": 0})   # reproducible bytes
    back = pd.read_json(out("pd-int.jsonl.gz"), lines=True, compression="gzip")
    cases.append(("pd-int.jsonl.gz", "-n 10", back["label"].tolist(), 10, "int64"))

    fl = [float(v) for v in ints(n, 5, 2)]
    fl[7], fl[100] = float("nan"), 2.5      # NaN: pandas writes null
    frame(fl, n).to_json(out("pd-float.ndjson"), orient="records", lines=True)
    back = pd.read_json(out("pd-float.ndjson"), lines=True)
    cases.append(("pd-float.ndjson", "-n 5", back["label"].tolist(), 5, "float64"))

    rng = random.Random(3)
    frame([rng.random() < 0.3 for _ in range(n)], n).to_json(
        out("pd-bool.jsonl"), orient="records", lines=True)
    back = pd.read_json(out("pd-bool.jsonl"), lines=True)
    cases.append(("pd-bool.jsonl", "-n 2", back["label"].tolist(), 2, "bool"))

    lists = [[rng.randrange(4) for _ in range(rng.randrange(4))] for _ in range(n)]
    lists[50] = [1, 4, 2]                  # a stray item
    frame(lists, n).to_json(out("pd-list.jsonl"), orient="records", lines=True)
    back = pd.read_json(out("pd-list.jsonl"), lines=True)
    cases.append(("pd-list.jsonl", "-n 4", back["label"].tolist(), 4, "int64"))

    # what pandas reads but never writes: blank lines, CR LF, no last newline,
    # a missing key, a string, an object
    rows = ['{"y": 1, "note": "a"}', '', '  ', '{"y": 0}', '{"note": "no y"}',
            '{"y": "2"}', '{"y": {"a": [1, 2]}}', '{"y": 2}']
    with open(out("hand-mixed.jsonl"), "w", newline="") as f:
        f.write("\r\n".join(rows))
    back = pd.read_json(out("hand-mixed.jsonl"), lines=True, dtype=False)
    cases.append(("hand-mixed.jsonl", "-n 3 -c y", back["y"].tolist(), 3, "int64"))


def datasets_cases():
    n = 240
    rng = random.Random(4)
    feats = datasets.Features({"question": datasets.Value("string"),
                               "label": datasets.ClassLabel(names=["no", "yes", "maybe"])})
    labels = [rng.randrange(3) for _ in range(n)]
    ds = datasets.Dataset.from_dict({"question": [f"q{i}?" for i in range(n)], "label": labels},
                                    features=feats)
    ds.to_json(out("ds-to-json.jsonl"))
    back = datasets.load_dataset("json", data_files=out("ds-to-json.jsonl"), split="train")
    cases.append(("ds-to-json.jsonl", "-n 3", list(back["label"]), 3, "int64"))

    tokens = [[rng.randrange(50) for _ in range(rng.randrange(1, 8))] for _ in range(n)]
    tokens[17][0] = 50                     # an id past the vocabulary
    ds = datasets.Dataset.from_dict({"input_ids": tokens, "labels": tokens})
    ds.to_json(out("ds-list.jsonl"))
    back = datasets.load_dataset("json", data_files=out("ds-list.jsonl"), split="train")
    cases.append(("ds-list.jsonl", "-n 50", list(back["labels"]), 50, "int64"))

    # SQuAD-style: one document, the records under "data"
    recs = [{"id": str(i), "context": "c" * (i % 7), "answer_start": i % 3,
             "label": rng.randrange(4)} for i in range(n)]
    recs[99]["label"] = None
    recs[100]["label"] = 7
    with open(out("ds-field.json"), "w") as f:
        json.dump({"version": "v2.0", "data": recs}, f, indent=1)
    back = datasets.load_dataset("json", data_files=out("ds-field.json"), field="data",
                                 split="train")
    cases.append(("ds-field.json", "--format=jsonl --field=data -n 4", list(back["label"]), 4,
                  "int64"))


def readme_sample():
    rng = random.Random(6)
    labels = [rng.randrange(3) for _ in range(120)]
    labels[41], labels[87] = 3, None
    ds = datasets.Dataset.from_dict({"text": [f"review {i}" for i in range(120)], "label": labels})
    ds.to_json(os.path.join(here, "..", "..", "..", "samples", "hf-reviews.jsonl"))


def is_missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


def items(vals):
    """The labels in file order: a list's items each, a null one cell."""
    for v in vals:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v


def text_of(v, missing):
    if is_missing(v):
        return missing
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, dict):
        return json.dumps(v, separators=(",", ":"))
    return str(v)


def is_number(v):
    return isinstance(v, (bool, int, float)) and not is_missing(v)


def truth_line(name, args, vals, n_classes, dtype, missing_keys):
    flat = list(items(vals))
    nums = [v for v in flat if is_number(v)]
    bad = [(i, text_of(v, "" if i in missing_keys else "null")) for i, v in enumerate(flat)
           if not is_number(v) or v != int(v) or not 0 <= v < n_classes]
    unparsable = sum(1 for v in flat if not is_number(v))
    lo = min(nums) if nums else None
    hi = max(nums) if nums else None
    return "\t".join([name, args, str(len(flat)), str(len(vals)), dtype,
                      text_of(lo, "null"), text_of(hi, "null"), str(unparsable),
                      ",".join(str(i) for i, _ in bad[:MAX_REPORT]),
                      "|".join(t for _, t in bad[:MAX_REPORT])])


def main():
    shutil.rmtree(here, ignore_errors=True)
    os.makedirs(here)
    pandas_cases()
    if datasets is not None:
        datasets.disable_progress_bars()
        datasets_cases()
        readme_sample()
    with open(out("truth.tsv"), "w") as f:
        f.write("# name\targs\tcount\tsamples\tdtype\tmin\tmax\tunparsable\tfirst bad\ttheir values\n")
        for name, args, vals, n_classes, dtype in cases:
            # the one missing key is hand-mixed's record 2 (pandas reads it as NaN, like null)
            missing = {2} if name == "hand-mixed.jsonl" else set()
            f.write(truth_line(name, args, vals, n_classes, dtype, missing) + "\n")
    shutil.rmtree(os.path.expanduser("~/.cache/huggingface/datasets/json"), ignore_errors=True)


if __name__ == "__main__":
    main()
