#!/usr/bin/env python3
"""gen_all_ignored.py - list samples whose every label is the ignore index
(-100), in each format whose samples are lists: Parquet (pyarrow), a
save_to_disk folder (datasets), JSON Lines (pandas), MDS ndarray columns
(MDSWriter), LitData dict items and TokensLoader items (optimize()), in
tests/data/all-ignored/. Such a sample trains on nothing; a batch of only
such samples makes the mean loss NaN (the all-ignored warning).

Beside each, NAME.truth is what the library read back: "samples N" and
"all_ignored I J ..." (the samples holding at least one value, all -100;
an empty list holds no target but is no all-ignored sample: it is left
out, as labelaudit leaves it). make check needs none of this.

pyarrow 26 wants numpy 2, Debian's torch 1.13 numpy 1, so two runs:

    python3 -m venv --system-site-packages /tmp/v && /tmp/v/bin/pip install 'numpy>=2' 'pandas>=2'
    /tmp/v/bin/python tests/gen/gen_all_ignored.py arrow
    /usr/bin/python3 tests/gen/gen_all_ignored.py shards   # gen_shards.py's stubs and packages
"""
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if os.environ.get('GEN_ALL_IGNORED') == 'shards':   # also in optimize()'s spawned workers
    sys.path.insert(0, HERE)
    import gen_shards  # noqa: F401,E402  (its stubs: streaming and litdata import no extras)
OUT = os.path.join(HERE, '..', 'data', 'all-ignored')

# rows 1, 3, 5 and 7 hold only -100; row 4 is empty; row 6 ends in -100
ROWS = [[1, 2, -100], [-100, -100], [3], [-100], [], [-100, -100, -100], [4, -100],
        [-100] * 5, [0, 1]]
SCALARS = [1, -100, 2, -100, 0, 3, 1, 2, 0]   # one value a sample: no all-ignored


def truth(name, samples):
    """NAME.truth from the samples as the library read them."""
    flat = [[int(v) for v in np.asarray(s).reshape(-1)] for s in samples]
    alli = [i for i, s in enumerate(flat) if s and all(v == -100 for v in s)]
    with open(os.path.join(OUT, name + '.truth'), 'w') as f:
        f.write('samples %d\nall_ignored %s\n' % (len(flat), ' '.join(map(str, alli))))


def fresh(name):
    p = os.path.join(OUT, name)
    shutil.rmtree(p, ignore_errors=True)
    if os.path.exists(p):
        os.remove(p)
    return p


def arrow():
    import pyarrow as pa
    import pyarrow.parquet as pq
    import pandas as pd
    import datasets
    t = pa.table({'labels': pa.array(ROWS, pa.list_(pa.int64())), 'label': SCALARS})
    pq.write_table(t, fresh('rows.parquet'))
    truth('rows.parquet', pq.read_table(os.path.join(OUT, 'rows.parquet'))['labels'].to_pylist())
    ds = datasets.Dataset.from_dict({'labels': ROWS, 'label': SCALARS})
    ds.save_to_disk(fresh('rows-hf'))
    truth('rows-hf', datasets.load_from_disk(os.path.join(OUT, 'rows-hf'))['labels'])
    pd.DataFrame({'labels': ROWS, 'label': SCALARS}).to_json(fresh('rows.jsonl'),
                                                              orient='records', lines=True)
    truth('rows.jsonl', pd.read_json(os.path.join(OUT, 'rows.jsonl'), lines=True)['labels'])


def _same(x):
    return x


def shards():
    from streaming import MDSWriter, StreamingDataset
    import litdata
    from litdata.streaming.item_loader import TokensLoader
    f = fresh('rows-mds')
    with MDSWriter(out=f, columns={'labels': 'ndarray:int64', 'label': 'int'},
                   size_limit=200) as w:
        for r, y in zip(ROWS, SCALARS):   # MDSWriter refuses an empty array: [5]
            w.write({'labels': np.array(r or [5], dtype=np.int64), 'label': y})
    truth('rows-mds', [s['labels'] for s in StreamingDataset(local=f, shuffle=False,
                                                             batch_size=1)])
    f = fresh('rows-litdata')
    items = [{'labels': np.array(r, dtype=np.int64), 'label': y} for r, y in zip(ROWS, SCALARS)]
    litdata.optimize(fn=_same, inputs=items, output_dir=f, chunk_size=4, num_workers=1,
                     mode='overwrite')
    ds = litdata.StreamingDataset(f)
    truth('rows-litdata', [ds[i]['labels'] for i in range(len(ds))])
    f = fresh('rows-tokens')
    litdata.optimize(fn=_same, inputs=[np.array(r, dtype=np.int64) for r in ROWS], output_dir=f,
                     item_loader=TokensLoader(), chunk_bytes=64, num_workers=1, mode='overwrite')
    # the items, as written (the TokensLoader reads blocks, not items)...
    flat = [int(v) for v in litdata.StreamingDataset(f, item_loader=TokensLoader(block_size=1))]
    at, got = 0, []
    for r in ROWS:
        got.append(flat[at:at + len(r)])
        at += len(r)
    truth('rows-tokens', got)
    # ... and its blocks of 2 (--seq-len 2)
    ds = litdata.StreamingDataset(f, item_loader=TokensLoader(block_size=2))
    truth('rows-tokens.seq2', [ds[i] for i in range(len(ds))])


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    if sys.argv[1] == 'shards' and os.environ.get('GEN_ALL_IGNORED') != 'shards':
        os.environ['GEN_ALL_IGNORED'] = 'shards'
        os.execv(sys.executable, [sys.executable] + sys.argv)
    {'arrow': arrow, 'shards': shards}[sys.argv[1]]()
