#!/usr/bin/env python3
"""gen_batching_table.py - the expected batching numbers, from PyTorch itself.

Writes tests/data/batching-torch.tsv, which tests/unit/test_batching_torch.c
compares labelaudit's batching simulation and batch-size suggestions to, so
that `make check` needs no Python. Each case is run through the real
torch.utils.data.DataLoader, in front of a real DistributedSampler(shuffle=False)
on every rank when W > 1 (none when W == 1, as labelaudit's --world-size=1
means), and the batches it yields are counted.

Regenerate (needs torch; the CPU build is enough):
    python3 tests/gen/gen_batching_table.py > tests/data/batching-torch.tsv

Columns: S B W drop_last sampler_drop_last M, then what torch gives:
samples_per_rank padded dropped_by_sampler batches_per_rank last_batch
dropped_by_loader, then `fixes`: when the last batch is tiny (0 < last < M),
every size B' != B with ceil(B/2) <= B' <= 2B that, run with the same
drop_last and sampler, yields at least one batch and no batch of fewer than M
samples, as B':last_batch separated by commas ("-" when there is none or the
last batch is not tiny). Which of them labelaudit names is its own policy
(nearest first, at most 6); the test checks that policy against this list.
"""
import functools
import sys

import torch
from torch.utils.data import DataLoader, DistributedSampler

SAMPLES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 15, 16, 17, 23, 31, 43, 100]
BATCHES = [1, 2, 3, 4, 5, 7, 8, 13, 16]
WORLDS = [1, 2, 3, 8]
MIN_BATCHES = [1, 2, 4]


def keep_list(batch):
    """collate_fn: the batch as the list of indices, to count them."""
    return batch


@functools.lru_cache(maxsize=None)
def run(s, b, w, drop_last, sampler_drop_last):
    """Batch sizes of one rank, samples per rank, padded and dropped by the sampler."""
    data = list(range(s))
    per_rank, seen, ranks = [], set(), []
    for rank in range(w):
        sampler = None
        if w > 1:
            sampler = DistributedSampler(data, num_replicas=w, rank=rank, shuffle=False,
                                         drop_last=sampler_drop_last)
            indices = list(sampler)
        else:
            indices = data
        loader = DataLoader(data, batch_size=b, sampler=sampler, drop_last=drop_last,
                            collate_fn=keep_list)
        sizes = [len(batch) for batch in loader]
        assert len(sizes) == len(loader), "len(DataLoader) disagrees with its batches"
        per_rank.append(len(indices))
        seen.update(indices)
        ranks.append(tuple(sizes))
    assert len(set(ranks)) == 1 and len(set(per_rank)) == 1, "ranks differ"
    spr = per_rank[0]
    padded = spr * w - len(seen) if spr * w > s else 0
    dropped = s - len(seen)
    return spr, padded, dropped, ranks[0]


def fixes(s, b, w, drop_last, sampler_drop_last, m):
    found = []
    for c in range((b + 1) // 2, 2 * b + 1):
        if c == b:
            continue
        sizes = run(s, c, w, drop_last, sampler_drop_last)[3]
        if sizes and min(sizes) >= m:
            found.append(f"{c}:{sizes[-1]}")
    return ",".join(found) or "-"


def main():
    out = sys.stdout
    out.write(f"# made by tests/gen/gen_batching_table.py with torch {torch.__version__}\n")
    out.write("# S B W drop_last sampler_drop_last M spr padded dropped_by_sampler"
              " batches last dropped_by_loader fixes\n")
    for s in SAMPLES:
        for b in BATCHES:
            for w in WORLDS:
                for dl in (False, True):
                    for sdl in ((False,) if w == 1 else (False, True)):
                        spr, padded, sdrop, sizes = run(s, b, w, dl, sdl)
                        last = sizes[-1] if sizes else 0
                        ldrop = spr - sum(sizes)
                        for m in MIN_BATCHES:
                            tiny = 0 < last < m
                            fix = fixes(s, b, w, dl, sdl, m) if tiny else "-"
                            out.write(f"{s} {b} {w} {dl:d} {sdl:d} {m} {spr} {padded} {sdrop}"
                                      f" {len(sizes)} {last} {ldrop} {fix}\n")


if __name__ == "__main__":
    main()
