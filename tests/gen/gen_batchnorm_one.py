#!/usr/bin/python3
"""gen_batchnorm_one.py - what fails on a last batch of one sample, and the
errors of float class targets, by Debian's python3-torch. Its output is
recorded in tests/batching/tiny-batch-gate.sh (tiny-last-batch's wording) and in
diagnose.c (float-labels' prevents); make check does not run it."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def attempt(name, f):
    try:
        f()
        print(f"{name}: runs")
    except Exception as e:  # the message users search for
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")


print(f"torch {torch.__version__}")
torch.manual_seed(0)
attempt("BatchNorm1d, train, (1, 4)", lambda: nn.BatchNorm1d(4).train()(torch.randn(1, 4)))
attempt("BatchNorm1d, train, (1, 4, 5)", lambda: nn.BatchNorm1d(4).train()(torch.randn(1, 4, 5)))
attempt("BatchNorm2d, train, (1, 4, 1, 1)",
        lambda: nn.BatchNorm2d(4).train()(torch.randn(1, 4, 1, 1)))
attempt("BatchNorm2d, train, (1, 4, 7, 7)",
        lambda: nn.BatchNorm2d(4).train()(torch.randn(1, 4, 7, 7)))
attempt("BatchNorm1d, eval, (1, 4)", lambda: nn.BatchNorm1d(4).eval()(torch.randn(1, 4)))
x = torch.randn(3, 5)
for dtype in (torch.float16, torch.float32, torch.float64):
    attempt(f"cross_entropy, target {dtype}",
            lambda: F.cross_entropy(x, torch.tensor([1, 2, 0], dtype=dtype)))
