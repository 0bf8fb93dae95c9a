#!/usr/bin/env python3
"""gen_fix.py - fixtures for --fix (tests/outputs/fix.sh): each original with
the copy labelaudit must write of it, byte for byte.

CSV/TSV/text: the original and its expected copy are built from the same rows
(random quoting, padding, CR LF or LF line ends, blank lines, a byte order mark,
other columns holding delimiters, quotes and newlines); only the label values
differ, by exactly the rule. pandas then reads both: every other column must
be equal and the label column must be the original's with the rule applied,
or the script stops. npy and raw: the copy is what np.save / ndarray.tofile
write of the corrected array.

Regenerate (Python 3 with NumPy and pandas):
    python3 tests/gen/gen_fix.py tests/data/fix

Each case is NAME.ORIG (the original, its own extension) and NAME.expect.EXT
(the copy); cases.txt lists "NAME<TAB>FILE<TAB>EXPECTED<TAB>ARGS<TAB>RULES<TAB>CHANGED<TAB>DROPPED".
"""
import io
import json
import os
import random
import sys

import numpy as np
import pandas as pd

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/data/fix"
rng = random.Random(46)
cases = []


def text_field(rng, delim, eol):
    """Another column's cell: plain, or quoted holding delimiters, quotes, newlines."""
    parts = rng.choices(["ab", " x", delim, '""', "\n", "é", "z9"], k=rng.randint(1, 5))
    if any(p in (delim, '""', "\n") for p in parts):
        return '"' + "".join(eol if p == "\n" else p for p in parts) + '"'
    return "".join(parts).strip() or "w"


def label_field(rng, v):
    """A label cell as writers write it: plain, padded or quoted."""
    return rng.choice(["{}", "{}", " {}", '"{}"', "{} "]).format(v)


def csv_pair(name, labels, fixed, delim=",", header=True, col=1, ncols=3, ext="csv",
             bom=False, args="", rules="", dropped_rows=()):
    eol = rng.choice(["\n", "\r\n"])
    rows_o, rows_e = [], []
    if header:
        names = ["c%d" % i for i in range(ncols)]
        names[col] = "label"
        h = delim.join(names) + eol
        rows_o.append(h)
        rows_e.append(h)
    for i, (v, w) in enumerate(zip(labels, fixed)):
        cells = [text_field(rng, delim, eol) for _ in range(ncols)]
        fmt = label_field(rng, "{}")
        cells_o = list(cells)
        cells_o[col] = fmt.format(v)
        cells_e = list(cells)
        cells_e[col] = fmt.format(w)
        rows_o.append(delim.join(cells_o) + eol)
        if i not in dropped_rows:
            rows_e.append(delim.join(cells_e) + eol)
        if rng.random() < 0.1:             # a blank line is no row: kept as it is
            rows_o.append(eol)
            rows_e.append(eol)
    pre = "\ufeff" if bom else ""
    orig, expect = pre + "".join(rows_o), pre + "".join(rows_e)
    fo, fe = "%s.%s" % (name, ext), "%s.expect.%s" % (name, ext)
    with open(os.path.join(OUT, fo), "w", encoding="utf-8", newline="") as f:
        f.write(orig)
    with open(os.path.join(OUT, fe), "w", encoding="utf-8", newline="") as f:
        f.write(expect)
    # the truth: pandas reads both; other columns equal, the label column fixed
    kw = dict(sep=delim, header=0 if header else None, skip_blank_lines=True,
              encoding="utf-8-sig", dtype=str, keep_default_na=False)
    a = pd.read_csv(os.path.join(OUT, fo), **kw)
    b = pd.read_csv(os.path.join(OUT, fe), **kw)
    keep = [i for i in range(len(labels)) if i not in dropped_rows]
    a = a.iloc[keep].reset_index(drop=True)
    for k in range(ncols):
        ca, cb = a.iloc[:, k], b.iloc[:, k]
        if k == col:
            want = [str(fixed[i]) for i in keep]
            got = [s.strip().strip('"').strip() for s in cb]
            assert got == want, (name, got, want)
        else:
            assert list(ca) == list(cb), (name, k)
    changed = sum(1 for i in keep if labels[i] != fixed[i])
    cases.append((name, fo, fe, args, rules, changed, len(dropped_rows)))


def text_pair(name, labels, fixed, args, rules):
    eol = rng.choice(["\n", "\r\n"])
    rng2 = random.Random(name)
    pads = [rng2.choice(["", " "]) for _ in labels]
    o = "".join("%s%s%s" % (p, v, eol) for p, v in zip(pads, labels))
    e = "".join("%s%s%s" % (p, w, eol) for p, w in zip(pads, fixed))
    open(os.path.join(OUT, name + ".txt"), "w", newline="").write(o)
    open(os.path.join(OUT, name + ".expect.txt"), "w", newline="").write(e)
    assert list(np.loadtxt(os.path.join(OUT, name + ".expect.txt"), dtype=np.int64)) == fixed
    cases.append((name, name + ".txt", name + ".expect.txt", args, rules,
                  sum(a != b for a, b in zip(labels, fixed)), 0))


def npy_pair(name, arr, expect, args, rules, changed, dropped=0):
    np.save(os.path.join(OUT, name + ".npy"), arr)
    np.save(os.path.join(OUT, name + ".expect.npy"), expect)
    cases.append((name, name + ".npy", name + ".expect.npy", args, rules, changed, dropped))


def raw_pair(name, arr, expect, ext, args, rules, changed):
    arr.tofile(os.path.join(OUT, name + "." + ext))
    expect.tofile(os.path.join(OUT, name + ".expect." + ext))
    cases.append((name, name + "." + ext, name + ".expect." + ext, args, rules, changed, 0))


def main():
    os.makedirs(OUT, exist_ok=True)
    n = 40
    # CSV: one-based (1..5 with -n 5), the label column in the middle, a BOM
    lab = [rng.randint(1, 5) for _ in range(n)] + [1, 5]
    csv_pair("csv-one-based", lab, [v - 1 for v in lab], bom=True, args="-n 5",
             rules="one-based")
    # CSV: -1 marks "no label": it becomes -100
    lab = [rng.randint(0, 4) for _ in range(n)] + [-1] * 6
    rng.shuffle(lab)
    csv_pair("csv-ignore", lab, [-100 if v == -1 else v for v in lab], col=0, args="-n 5",
             rules="ignore-like-value")
    # CSV: BraTS's 0, 1, 2, 4 with -n 4: 4 -> 3
    lab = [rng.choice([0, 1, 2, 4]) for _ in range(n)] + [0, 1, 2, 4]
    csv_pair("csv-gap", lab, [3 if v == 4 else v for v in lab], col=2, args="-n 4",
             rules="label-gap")
    # CSV: --fix-drop leaves out the rows of 7 and "x" with -n 3
    lab = [rng.randint(0, 2) for _ in range(n)]
    bad = sorted(rng.sample(range(n), 4))
    for k, i in enumerate(bad):
        lab[i] = 7 if k % 2 == 0 else "x"
    csv_pair("csv-drop", lab, lab, args="-n 3 --fix-drop", rules="fix-drop",
             dropped_rows=set(bad))
    # TSV: one-based, no header (-c 1 --no-header)
    lab = [rng.randint(1, 3) for _ in range(n)] + [1, 3]
    csv_pair("tsv-one-based", lab, [v - 1 for v in lab], delim="\t", header=False, col=0,
             ncols=2, ext="tsv", args="-n 3 --no-header -c 1", rules="one-based")
    # CSV: --fix-map (JSON): 10 -> 0, 20 -> 1, 30 -> 2
    lab = [rng.choice([10, 20, 30]) for _ in range(n)]
    m = {10: 0, 20: 1, 30: 2}
    with open(os.path.join(OUT, "map.json"), "w") as f:
        json.dump({str(k): v for k, v in m.items()}, f)
    csv_pair("csv-map", lab, [m[v] for v in lab], args="--fix-map=MAPDIR/map.json",
             rules="fix-map")
    # text: one-based
    lab = [rng.randint(1, 4) for _ in range(n)] + [1, 4]
    text_pair("text-one-based", lab, [v - 1 for v in lab], "-n 4", "one-based")
    # npy: int32 1-based: int64 and minus 1 (the header re-padded as np.save pads it)
    a = np.array([rng.randint(1, 5) for _ in range(n)] + [1, 5], dtype=np.int32)
    npy_pair("npy-int32-one-based", a, a.astype(np.int64) - 1, "-n 5",
             "one-based, int-labels-dtype", len(a))
    # npy: big-endian int16, int64 only (labels in range): '>i2' becomes '>i8'
    a = np.array([rng.randint(0, 3) for _ in range(n)], dtype=">i2")
    npy_pair("npy-be-int16", a, a.astype(">i8"), "-n 4", "int-labels-dtype", 0)
    # npy: uint8 masks (S, H, W) with a gap: 4 -> 3 under -n 4
    m = np.array([rng.choice([0, 1, 2, 4]) for _ in range(6 * 8 * 8)], dtype=np.uint8)
    m = m.reshape(6, 8, 8)
    e = m.copy()
    e[e == 4] = 3
    npy_pair("npy-masks-gap", m, e, "-n 4", "label-gap", int((m == 4).sum()))
    # npy: int64 with out-of-range samples, --fix-drop: the rows left out
    a = np.array([rng.randint(0, 2) for _ in range(n)], dtype=np.int64)
    bad = sorted(rng.sample(range(n), 3))
    a[bad] = 9
    keep = [i for i in range(n) if i not in bad]
    npy_pair("npy-drop", a, a[keep], "-n 3 --fix-drop", "fix-drop", 0, len(bad))
    # raw int32 (--dtype), one-based
    a = np.array([rng.randint(1, 6) for _ in range(n)] + [1, 6], dtype=np.int32)
    raw_pair("raw-one-based", a, a - 1, "raw", "--format=raw --dtype=int32 -n 6", "one-based",
             len(a))
    # nanoGPT .bin (uint16), one-based labels of 10 classes
    a = np.array([rng.randint(1, 10) for _ in range(n)] + [1, 10], dtype=np.uint16)
    raw_pair("bin-one-based", a, a - 1, "bin", "--format=raw --dtype=uint16 -n 10",
             "one-based", len(a))
    with open(os.path.join(OUT, "cases.txt"), "w") as f:
        for c in cases:
            f.write("\t".join(str(x) for x in c) + "\n")


main()
