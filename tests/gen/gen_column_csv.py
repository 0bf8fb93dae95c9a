#!/usr/bin/env python3
"""gen_column_csv.py - the fixtures of tests/data/columns as CSV, written the
way users' tools write them (tests/readers/columns-csv.sh): a row is the
same row in any format, so verdicts.txt (gen_column_verdicts.py: a tiny
transformers model run forward on each row) is the truth for these too.

    /work/genvenv2/bin/python tests/gen/gen_column_csv.py   # pandas, pyarrow

Writes tests/data/columns/csv/:
  FILE.csv          every FILE.parquet of verdicts.txt: pd.read_parquet, its
                    list columns made Python lists, DataFrame.to_csv: the
                    cells read "[101, 2054, 102]"
  bert-numpy.csv    bert.parquet through pyarrow's Table.to_pandas() (numpy
                    arrays, as Dataset.to_pandas() gives): numpy's repr,
                    "[ 3  4  5 ...]", wrapped over lines inside the cell
  tok.csv           bert-tok/tok.parquet, Python lists (the issue's example)
  tok-numpy.csv     ... and as numpy writes it
  summarized.csv    a row of 1200 tokens through numpy: numpy prints
                    "[ 3  4  5 ... 47 48 49]", the middle left out of the file
  scalar.csv        one integer a cell: input_ids, token_type_ids and label
  open-list.csv     a list cell left open: "[1, 2"
Needs pandas and pyarrow (the generator only: make check reads the files).
"""
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "columns")
OUT = os.path.join(TOP, "csv")


def as_lists(df):
    """The frame with each numpy array cell a Python list, as a user's own
    lists would be (pd.DataFrame({"input_ids": [[101, 2054], ...]}))."""
    for col in df.columns:
        if len(df) and isinstance(df[col].iloc[0], np.ndarray):
            df[col] = df[col].map(lambda a: None if a is None else [int(x) for x in a])
    return df


def write_lists(parquet, name):
    as_lists(pd.read_parquet(parquet)).to_csv(os.path.join(OUT, name), index=False)


def write_numpy(table, name):
    table.to_pandas().to_csv(os.path.join(OUT, name), index=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    files = []
    with open(os.path.join(TOP, "verdicts.txt")) as f:
        for line in f:
            if not line.startswith("#") and line.split()[0] not in files:
                files.append(line.split()[0])
    for name in files:
        write_lists(os.path.join(TOP, name + ".parquet"), name + ".csv")
    write_numpy(pq.read_table(os.path.join(TOP, "bert.parquet")), "bert-numpy.csv")
    tok = os.path.join(TOP, "bert-tok", "tok.parquet")
    write_lists(tok, "tok.csv")
    write_numpy(pq.read_table(tok), "tok-numpy.csv")
    ids = [3 + i % 47 for i in range(1200)]
    write_numpy(pa.table({"input_ids": [ids[:8], ids], "labels": [ids[:8], ids]}),
                "summarized.csv")
    pd.DataFrame({"input_ids": [3, 60, 4, 5], "token_type_ids": [0, 0, 2, 1],
                  "label": [1, 1, 0, 0]}).to_csv(os.path.join(OUT, "scalar.csv"), index=False)
    with open(os.path.join(OUT, "open-list.csv"), "w") as f:
        f.write('input_ids,labels\n"[3, 4]","[0, 1]"\n"[1, 2","[0, 1]"\n')


if __name__ == "__main__":
    main()
