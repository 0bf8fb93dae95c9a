#!/usr/bin/env python3
"""gen_shards.py - write the sharded token datasets the mds and litdata readers
are tested on (committed; run again only to change them): the samples
(samples/mds-tokens, samples/litdata-tokens) and the fixtures
(tests/data/shards). Made by the writers users use: mosaicml-streaming's
MDSWriter and litdata's optimize(). Each folder gets NAME.truth beside it,
read back by the libraries' own readers (streaming.StreamingDataset, local,
no network; litdata.StreamingDataset) iterating every sample: the values of
the audited column, and from them the count, the range, and each id outside
[0, V) as "sample position value". make check needs none of this.

    pip install --break-system-packages --no-deps mosaicml-streaming litdata \
        xxhash zstd catalogue lightning-utilities filelock tqdm brotli python-snappy

streaming imports transformers and torchvision, and litdata boto3 and
friends, for features no fixture uses: they are stubbed below, so that only
the writers' and readers' own code runs. Debian's torch 1.13 lacks
torch.uint16 (litdata names it in its dtype table): a placeholder stands in."""
import importlib.abc
import importlib.machinery
import os
import shutil
import sys
import types

import numpy as np
import torch


class _Any(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return type(name, (dict,), {})


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    roots = ('transformers', 'torchvision', 'boto3', 'botocore', 'obstore', 'tifffile', 'requests')

    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in self.roots:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _Any(spec.name)

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Stubs())
if not hasattr(torch, 'uint16'):
    torch.uint16 = object()

from streaming import MDSWriter, StreamingDataset as MDSDataset  # noqa: E402
import litdata  # noqa: E402
from litdata.streaming.item_loader import TokensLoader  # noqa: E402

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
V = 1000   # the vocabulary the fixtures are audited against


def fresh(*parts):
    p = os.path.join(top, *parts)
    shutil.rmtree(p, ignore_errors=True)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def write_truth(folder, samples, column=None, vocab=V):
    """NAME.truth (NAME.COLUMN.truth): what the library read, as the test compares it."""
    flat = [int(v) for s in samples for v in s]
    kept = [v for v in flat if v != -100]
    lines = ['samples %d' % len(samples), 'count %d' % len(flat),
             'ignored %d' % (len(flat) - len(kept))]
    if kept:
        lines.append('range %d %d' % (min(kept), max(kept)))
    for i, s in enumerate(samples):
        for p, v in enumerate(s):   # -100: the loss's ignore index, no bad entry
            if (int(v) < 0 or int(v) >= vocab) and int(v) != -100:
                lines.append('bad %d %d %d' % (i, p, int(v)))
    with open(folder + ('.' + column if column else '') + '.truth', 'w') as f:
        f.write('\n'.join(lines) + '\n')


def mds_read(folder, column):
    """Every sample's column, as StreamingDataset (local, no remote) gives it."""
    ds = MDSDataset(local=folder, shuffle=False, batch_size=1, allow_unsafe_types=True)
    out = []
    for s in ds:
        v = s[column]
        out.append(list(np.asarray(v).reshape(-1)) if not isinstance(v, int) else [v])
    return out


def mds(folder, columns, samples, column, size_limit=1 << 10, compression=None, more=()):
    with MDSWriter(out=folder, columns=columns, size_limit=size_limit,
                   compression=compression) as w:
        for s in samples:
            w.write(s)
    write_truth(folder, mds_read(folder, column))
    for c in more:
        write_truth(folder, mds_read(folder, c), c)
    if compression:   # as a remote holds them: only the compressed shards
        for name in os.listdir(folder):
            if name.endswith('.mds'):
                os.remove(os.path.join(folder, name))


def litdata_tokens_read(folder):
    """The stream of ids, read a block of one at a time by the TokensLoader."""
    ds = litdata.StreamingDataset(folder, item_loader=TokensLoader(block_size=1))
    return [int(ds[i][0]) for i in range(len(ds))]


def _same(x):
    return x


def litdata_tokens(folder, items, chunk_bytes=None, compression=None):
    """optimize() with the TokensLoader: items are numpy id arrays. The truth's
    sample boundaries are the items written; its values are what litdata reads."""
    kw = dict(chunk_bytes=chunk_bytes) if chunk_bytes else dict(chunk_size=64)
    if compression:   # whole-chunk compression (.zstd.bin): the TokensLoader's only kind
        kw['compression_level'] = 'chunk'
    litdata.optimize(fn=_same, inputs=items, output_dir=folder, item_loader=TokensLoader(),
                     num_workers=1, compression=compression, mode='overwrite', **kw)
    if compression:   # the reader decompresses chunk-*.zstd.bin beside them: read a copy
        shutil.copytree(folder, folder + '.read')
        flat = litdata_tokens_read(folder + '.read')
        shutil.rmtree(folder + '.read')
    else:
        flat = litdata_tokens_read(folder)
    assert flat == [int(v) for it in items for v in it], folder
    got, at = [], 0
    for it in items:
        got.append(flat[at:at + len(it)])
        at += len(it)
    write_truth(folder, got)


def litdata_blocks(folder, block_sizes):
    """NAME.seqL.truth: what litdata.StreamingDataset(item_loader=TokensLoader(block_size=L))
    yields, block by block (len(ds) of them: each chunk's dim // L, never across
    chunks), as --seq-len L must read the folder; and NAME.seqL.len, the count alone."""
    for L in block_sizes:
        ds = litdata.StreamingDataset(folder, item_loader=TokensLoader(block_size=L))
        blocks = [[int(x) for x in np.asarray(ds[i]).reshape(-1)] for i in range(len(ds))]
        assert all(len(b) == L for b in blocks)
        write_truth(folder, blocks, 'seq%d' % L)


def litdata_tree(folder, items, keys, chunk_size=7, compression=None):
    litdata.optimize(fn=_same, inputs=items, output_dir=folder, chunk_size=chunk_size,
                     num_workers=1, compression=compression, mode='overwrite')
    ds = litdata.StreamingDataset(folder)
    for key in keys:
        got = []
        for i in range(len(ds)):
            v = ds[i][key]
            got.append([int(x) for x in np.asarray(v).reshape(-1)] if not isinstance(v, int)
                       else [v])
        write_truth(folder, got, key)


def samples():
    rng = np.random.default_rng(33)
    # the MDS sample: 40 token sequences, one id past V (sample 17, position 3)
    toks = [rng.integers(0, V, size=int(rng.integers(1, 30)), dtype=np.uint16) for _ in range(40)]
    toks[17][3] = V
    f = fresh('samples', 'mds-tokens')
    mds(f, {'tokens': 'ndarray:uint16', 'label': 'int'},
        [{'tokens': t, 'label': i % 5} for i, t in enumerate(toks)], 'tokens', size_limit=600)
    # the LitData sample: 30 documents of ids, one at V (item 11, position 0)
    docs = [rng.integers(0, V, size=int(rng.integers(1, 40)), dtype=np.int32) for _ in range(30)]
    docs[11][0] = V
    litdata_tokens(fresh('samples', 'litdata-tokens'), docs, chunk_bytes=512)


def fixtures():
    rng = np.random.default_rng(2024)
    # MDS, ndarray of no fixed dtype: every dtype numpy and streaming share,
    # sample by sample, ids at V-1 and V, shards of different sizes
    dtypes = ['uint16', 'int32', 'int64', 'uint32', 'uint8', 'int16']
    rows = []
    for i in range(60):
        dt = dtypes[i % len(dtypes)]
        hi = min(V + 1, np.iinfo(dt).max)
        t = rng.integers(0, hi, size=int(rng.integers(1, 50))).astype(dt)
        if i % 11 == 3 and np.iinfo(dt).max >= V:
            t[-1] = V - 1
        if i % 13 == 5 and np.iinfo(dt).max >= V:
            t[0] = V
        rows.append({'input_ids': t, 'label': int(rng.integers(-1, 6)),
                     'labels': [int(x) for x in rng.integers(-101, V, size=int(rng.integers(0, 5)))]
                     + [-100] * (i % 7 == 2),
                     'meta': 'row %d' % i})
    cols = {'input_ids': 'ndarray', 'label': 'int', 'labels': 'pkl', 'meta': 'str'}
    # and the label column (int), the pkl lists (empty ones too): NAME.COLUMN.truth
    mds(fresh('tests', 'data', 'shards', 'mds-dtypes'), cols, rows, 'input_ids', size_limit=700,
        more=('label', 'labels'))
    # compressed shards
    fixed = {'tokens': 'ndarray:int32', 'y': 'int8'}
    rows = [{'tokens': rng.integers(-2, V + 2, size=int(rng.integers(1, 20))).astype(np.int32),
             'y': int(rng.integers(0, 3))} for _ in range(50)]
    for comp in ('zstd', 'gz'):
        mds(fresh('tests', 'data', 'shards', 'mds-' + comp), fixed, rows, 'tokens',
            size_limit=400, compression=comp)
    # LitData, TokensLoader: uint16 and int64 ids, chunks of different sizes, empty items
    for dt, name in ((np.uint16, 'litdata-u16'), (np.int64, 'litdata-i64')):
        items = [rng.integers(0, V + 1, size=int(rng.integers(0, 25))).astype(dt) for _ in range(45)]
        items[7] = np.array([V - 1, V], dtype=dt)
        items[9] = np.zeros(0, dtype=dt)
        litdata_tokens(fresh('tests', 'data', 'shards', name), items, chunk_bytes=300)
    items = [rng.integers(0, V + 1, size=int(rng.integers(1, 25))).astype(np.int32) for _ in range(30)]
    litdata_tokens(fresh('tests', 'data', 'shards', 'litdata-zstd'), items, chunk_bytes=300,
                   compression='zstd')
    # the TokensLoader's blocks (--seq-len): litdata-i64's 45 items in chunks of
    # different dims, blocks that span items and leave each chunk's tail unread
    litdata_blocks(os.path.join(top, 'tests', 'data', 'shards', 'litdata-i64'), (8, 30))
    # LitData, PyTreeLoader: dict items (an int label, a numpy leaf, a 2-d tensor)
    items = [{'label': int(rng.integers(0, 8)),
              'ids': rng.integers(0, V + 1, size=(2, int(rng.integers(1, 6)))).astype(np.int16),
              'mask': torch.from_numpy(rng.integers(0, V + 1, size=(3, 2)).astype(np.int32))}
             for _ in range(25)]
    items[3]['ids'][1][0] = V
    items[5]['mask'][2, 1] = V + 5
    litdata_tree(fresh('tests', 'data', 'shards', 'litdata-tree'), items, ('label', 'ids', 'mask'))


if __name__ == '__main__':
    samples()
    fixtures()
