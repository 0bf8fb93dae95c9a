"""columns_loop.py - what a user writes instead of `labelaudit --model DIR`:
the checks of every column the model indexes, a row at a time, over a
tokenized Parquet file (bench/columns.sh times it against labelaudit).

    python columns_loop.py FILE VOCAB TYPE_VOCAB MAX_POSITIONS [pandas|datasets]

Per row: input_ids in [0, VOCAB), token_type_ids in [0, TYPE_VOCAB),
attention_mask 0 or 1, labels -100 or in [0, VOCAB), the four of one length,
at most MAX_POSITIONS long. Prints the bad input_ids and the rows with a
finding, so the harness can compare the count with labelaudit's.

pandas: pd.read_parquet, then a loop over the columns' rows (numpy arrays);
datasets: load_dataset("parquet") with the numpy format, a loop over its rows.
"""
import sys

import numpy as np


def rows_pandas(path):
    import pandas as pd

    df = pd.read_parquet(path, columns=["input_ids", "token_type_ids", "attention_mask", "labels"])
    return zip(df["input_ids"], df["token_type_ids"], df["attention_mask"], df["labels"])


def rows_datasets(path):
    import datasets

    ds = datasets.load_dataset("parquet", data_files=path, split="train").with_format("numpy")
    for ex in ds:
        yield ex["input_ids"], ex["token_type_ids"], ex["attention_mask"], ex["labels"]


def main():
    path, vocab, types, positions = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    via = sys.argv[5] if len(sys.argv) > 5 else "pandas"
    rows = rows_pandas(path) if via == "pandas" else rows_datasets(path)
    bad_ids = bad_rows = 0
    for ids, tt, mask, labels in rows:
        ids, tt, mask, labels = (np.asarray(x) for x in (ids, tt, mask, labels))
        b = int(((ids < 0) | (ids >= vocab)).sum())
        bad_ids += b
        bad = b > 0
        bad |= bool(((tt < 0) | (tt >= types)).any())
        bad |= bool(((mask != 0) & (mask != 1)).any())
        bad |= bool(((labels != -100) & ((labels < 0) | (labels >= vocab))).any())
        bad |= not (len(ids) == len(tt) == len(mask) == len(labels)) or len(ids) > positions
        bad_rows += bad
    print(bad_ids, bad_rows)


if __name__ == "__main__":
    main()
