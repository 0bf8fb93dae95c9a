#!/usr/bin/env python3
"""gen_column_jsonl.py - the column fixtures of tests/data/columns as JSON
Lines, for tests/readers/columns-jsonl.sh: each FAMILY[-extra].parquet (and
bert-tok/tok.parquet) written the way users write them,
datasets.Dataset.from_parquet(...).to_json(path) (lines=True, its default).
A row is the same row in any format, so verdicts.txt (gen_column_verdicts.py,
transformers' own forward pass on each row) is the truth for these too.

    python3 tests/gen/gen_column_jsonl.py        # from the top of the tree

Writes tests/data/columns/jsonl/NAME.jsonl. Needs datasets (the generator
only; make check reads the committed files): pip install datasets==2.21.0.
"""
import glob
import os

import datasets

SRC = "tests/data/columns"
OUT = os.path.join(SRC, "jsonl")


def main():
    os.makedirs(OUT, exist_ok=True)
    datasets.disable_progress_bars()
    paths = sorted(glob.glob(os.path.join(SRC, "*.parquet")))
    paths.append(os.path.join(SRC, "bert-tok", "tok.parquet"))
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        ds = datasets.Dataset.from_parquet(path, cache_dir=os.path.join(OUT, ".cache"))
        ds.to_json(os.path.join(OUT, name + ".jsonl"))
    print("wrote", len(paths), "files to", OUT)


if __name__ == "__main__":
    main()
