#!/usr/bin/env python3
"""gen_quoted_csv.py - random quoted CSVs and their label columns, as Python reads them.

Writes tests/data/quoted/NN.csv and NN.expect, which tests/readers/csv-quoted.sh
compares labelaudit's JSON counts and --indices-out with (at -j1..3, with the
CSV reader's blocks cut every few bytes, and on the one-thread libcsv path),
so that `make check` needs no Python. The files are what breaks a parallel
CSV parse: quoted fields holding newlines (LF and CR LF), doubled quotes and
delimiters, stray quotes in unquoted text ('he said "meh"') and quotes that
close a field early ('"Great" movie'), blank lines, CR LF
line ends, a UTF-8 byte order mark, the label column first, in the middle or
last, and labels that are quoted, out of range or not numbers.

The truth is Python's csv module (csv.reader, newline='', utf-8-sig), the
reader pandas' python engine wraps; when pandas is importable, pandas'
default C parser must read the same label column, or the script stops.

Regenerate (Python 3; pandas optional):
    python3 tests/gen/gen_quoted_csv.py tests/data/quoted

NN.expect: "samples N", "histogram h0 .. h9" (in-range labels per class with
-n 10), then one line per bad label, "ROW<TAB>VALUE", as --indices-out writes
them after the path.
"""
import csv
import io
import os
import random
import re
import sys

FILES = 12
CLASSES = 10
INT = re.compile(r"-?[0-9]+")


def quoted(rng, eol):
    """A properly quoted field: newlines, doubled quotes and delimiters inside."""
    parts = rng.choices(["ab", " ", ",", '"', "\n", "\r\n", "x y", "é", ";"], k=rng.randint(0, 8))
    text = "".join(eol if p == "\n" else p for p in parts)
    return '"' + text.replace('"', '""') + '"'


def plain(rng):
    """An unquoted field with stray quotes after its first byte."""
    parts = rng.choices(["ab", " ", '"', "meh", "é", "'"], k=rng.randint(0, 6))
    return "t" + "".join(parts)


def closed_early(rng):
    """A quote that closes the field before its end: '"Great" movie'."""
    return '"' + rng.choice(["Great", "a,b", "x\ny", ""]) + '"' + rng.choice([" movie", "x", 'x"y'])


def text_field(rng, eol):
    kind = rng.random()
    if kind < 0.45:
        return quoted(rng, eol)
    if kind < 0.75:
        return plain(rng)
    if kind < 0.85:
        return closed_early(rng)
    return ""


def label_field(rng):
    r = rng.random()
    if r < 0.80:
        return str(rng.randrange(CLASSES))
    if r < 0.88:
        return '"%d"' % rng.randrange(CLASSES)
    return rng.choice(["-1", "10", "12", "cat", "", '"-3"', "n/a"])


def make_file(rng):
    eol = rng.choice(["\n", "\r\n"])
    bom = rng.random() < 0.3
    ncols = rng.choice([2, 3, 4])
    col = rng.randrange(ncols)
    header = ["c%d" % i for i in range(ncols)]
    header[col] = "label"
    out = [("\ufeff" if bom else "") + ",".join(header) + eol]
    for _ in range(rng.randint(150, 400)):
        if rng.random() < 0.03:
            out.append(eol)                       # a blank line: not a row
        out.append(make_row(rng, eol, ncols, col))
    return "".join(out)


def make_row(rng, eol, ncols, col):
    """A row that Python reads as one row of ncols fields (a wide row is an
    error in labelaudit and pandas, so the files have none)."""
    while True:
        cells = [label_field(rng) if i == col else text_field(rng, eol) for i in range(ncols)]
        row = ",".join(cells) + eol
        rows = list(csv.reader(io.StringIO(row, newline="")))
        if len(rows) == 1 and len(rows[0]) == ncols:
            return row


def labels_csv_module(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [r for r in csv.reader(f) if r]
    col = rows[0].index("label")
    return [r[col] for r in rows[1:]]


def check_pandas(path, want):
    try:
        import pandas as pd
    except ImportError:
        return
    got = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")["label"]
    if list(got) != want:
        sys.exit("%s: pandas and the csv module read different labels" % path)


def expect(labels):
    hist = [0] * CLASSES
    bad = []
    for i, v in enumerate(labels):
        if INT.fullmatch(v) and 0 <= int(v) < CLASSES:
            hist[int(v)] += 1
        else:
            bad.append("%d\t%s" % (i, v))
    return "samples %d\nhistogram %s\n" % (len(labels), " ".join(map(str, hist))) + \
        "".join(b + "\n" for b in bad)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "tests/data/quoted"
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(20)
    for n in range(FILES):
        path = os.path.join(outdir, "%02d.csv" % n)
        with open(path, "w", newline="", encoding="utf-8") as f:
            f.write(make_file(rng))
        labels = labels_csv_module(path)
        check_pandas(path, labels)
        with open(os.path.join(outdir, "%02d.expect" % n), "w") as f:
            f.write(expect(labels))


if __name__ == "__main__":
    main()
