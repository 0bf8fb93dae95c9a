#!/usr/bin/env python3
"""Make tests/data/multilabel-5.npy: a multi-label 0/1 target matrix (S, C) =
(12, 5), float32 as BCEWithLogitsLoss takes it, with a known number of
positives per column, so that tests/outputs/ci-outputs.sh knows pos_weight from the
SPEC's formula (negatives / positives; null for a column with no positive):

    column     0    1     2     3    4
    positives  3    4     0    12    7
    pos_weight 9/3  8/4  null  0/12  5/7

The rows are shuffled with a fixed seed, so the ones are not in one block.
Run from the source tree:  python3 tests/data/make_multilabel.py
"""
import numpy as np

S = 12
POSITIVES = [3, 4, 0, 12, 7]

rng = np.random.default_rng(19)
y = np.zeros((S, len(POSITIVES)), dtype=np.float32)
for col, k in enumerate(POSITIVES):
    y[rng.permutation(S)[:k], col] = 1.0
assert (y.sum(axis=0) == POSITIVES).all()
np.save("tests/data/multilabel-5.npy", y)
