#!/usr/bin/env python3
"""gen_lib_reads.py - inputs that labelaudit refused or typed otherwise than
the libraries that read them (issue 41, item 22), written by those libraries,
in tests/data/lib-reads/, each with NAME.truth: what the library read back
(the dtype torch gives the sample, the values). make check needs none of this.

    /usr/bin/python3 tests/gen/gen_lib_reads.py mds   # gen_shards.py's stubs and packages
    /tmp/v/bin/python tests/gen/gen_lib_reads.py jsonl   # pyarrow (numpy 2: gen_all_ignored.py)
    /work/genvenv/bin/python tests/gen/gen_lib_reads.py literals   # pyarrow, pandas, datasets
    /work/genvenv/bin/python tests/gen/gen_lib_reads.py litdata    # litdata 0.2.7x, gen_shards' stubs

mds-json: an MDS json column of [1, 2.0] (json.loads: a float, torch.tensor: a
float tensor), [true, 3] (torch.tensor([True, 3]): int64), [true, false]
(bool) and [4, 5] (int64), read back by streaming.StreamingDataset.
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'data', 'lib-reads')


def mds_json():
    sys.path.insert(0, HERE)
    import gen_shards  # noqa: F401  (its stubs: streaming imports no extras)
    import torch
    from streaming import MDSWriter, StreamingDataset
    f = os.path.join(OUT, 'mds-json')
    shutil.rmtree(f, ignore_errors=True)
    rows = [[1, 2.0], [True, 3], [True, False], [4, 5]]
    with MDSWriter(out=f, columns={'labels': 'json'}, size_limit=1 << 10) as w:
        for r in rows:
            w.write({'labels': r})
    lines = []
    for i, s in enumerate(StreamingDataset(local=f, shuffle=False, batch_size=1)):
        t = torch.tensor(s['labels'])
        lines.append('%d %s %s' % (i, str(t.dtype).replace('torch.', ''),
                                   ' '.join(repr(v) for v in t.tolist())))
    with open(f + '.truth', 'w') as out:
        out.write('\n'.join(lines) + '\n')


def jsonl_line_ends():
    """JSON Lines with a UTF-8 BOM, and with lone-CR line ends (no writer of
    JSON Lines makes them; editors and old tools do): written by hand, read by
    pyarrow.json, which load_dataset("json") reads JSON Lines with."""
    import pyarrow.json as paj
    files = {'bom.jsonl': b'\xef\xbb\xbf{"label": 1}\n{"label": 2}\n{"label": 7}\n',
             'cr.jsonl': b'{"label": 1}\r{"label": 2}\r\n{"label": 7}\r\r{"label": 0}\r'}
    for name, data in files.items():
        p = os.path.join(OUT, name)
        with open(p, 'wb') as f:
            f.write(data)
        labels = paj.read_json(p).column('label').to_pylist()
        with open(p + '.truth', 'w') as f:
            f.write('count %d\nlabels %s\n' % (len(labels), ' '.join(map(str, labels))))


def jsonl_literals():
    """JSON Lines as json.dumps writes NaN and infinities (bare NaN, Infinity,
    -Infinity: allow_nan is its default), read back by pyarrow.json,
    load_dataset("json") and pandas; the truth says what all three read (the
    script stops if they differ; pandas reads a NaN in a list as None, its
    missing value): one value a line, a list's items each."""
    import json
    import math
    import datasets
    import pandas as pd
    import pyarrow.json as paj
    nan, inf = float('nan'), float('inf')
    files = {'nan.jsonl': [1.0, nan, 2.0, inf, -inf, 0.0, 2.5],
             'nan-list.jsonl': [[1, nan], [2], [-inf, 3], [], [inf]]}
    datasets.disable_progress_bars()
    for name, labels in files.items():
        p = os.path.join(OUT, name)
        with open(p, 'w') as f:
            for i, v in enumerate(labels):   # a "NaN" text and key stay text
                f.write(json.dumps({'id': i, 'note': 'NaN' if i == 1 else 'x', 'label': v}) + '\n')
        reads = {'pyarrow': paj.read_json(p).column('label').to_pylist(),
                 'datasets': list(datasets.load_dataset('json', data_files=p, split='train',
                                                        cache_dir=os.path.join(OUT, '.cache'))['label']),
                 'pandas': pd.read_json(p, lines=True)['label'].tolist()}
        shutil.rmtree(os.path.join(OUT, '.cache'), ignore_errors=True)
        flat = {k: [x for v in vs for x in (v if isinstance(v, list) else [v])]
                for k, vs in reads.items()}
        # pandas reads a NaN inside a list as None (its missing value there)
        shown = {k: ' '.join(repr(float('nan' if x is None else x)) for x in vs)
                 for k, vs in flat.items()}
        assert len(set(shown.values())) == 1, shown
        vals = flat['pyarrow']
        bad = [i for i, x in enumerate(vals) if not math.isfinite(x)]
        with open(p + '.truth', 'w') as f:
            f.write('count %d\nlabels %s\nnon_finite %s\n' % (len(vals), shown['pyarrow'],
                                                                ' '.join(map(str, bad))))


def litdata_item(i):
    """Item i of the LitData fixtures (a function of i alone: optimize() calls
    it in a worker process)."""
    import numpy as np
    rng = np.random.default_rng([41, i])
    V = 1000
    toks = [int(x) for x in rng.integers(0, V, size=int(rng.integers(0, 6)))]
    if i % 97 == 5 and toks:
        toks[-1] = V + i          # past the vocabulary
    if i % 89 == 7 and toks:
        toks[0] = -100            # the loss's ignore index
    mixed = [1, 2.0] if i % 50 == 3 else [int(rng.integers(0, 9))]   # [1, 2.0]: JSON text
    return {'label': int(rng.integers(0, 5)), 'tokens': toks, 'mixed': mixed,
            'flags': [bool(b) for b in rng.integers(0, 2, size=3)],
            'scores': [float(rng.integers(0, 4)) for _ in range(2)]}


if 'litdata' in sys.argv[1:]:   # in optimize()'s worker processes too: the stubs
    sys.path.insert(0, HERE)
    import gen_shards  # noqa: F401


def litdata_defaults():
    """LitData as optimize() writes it by default in 0.2.7x: a Python list
    leaf is data format "json" (a tagged list of int64, float64 or bool, an
    empty list tagged as strings, a mixed one as JSON text), and
    compression="zstd" frames the chunk's items in zstd frames of 256 inside
    a .bin (compression_level "batch"). litdata-json: plain chunks, list
    leaves of every tag; litdata-batch: the same items framed, chunks of
    300 items (two frames each). The truths (gen_shards.write_truth, per
    key) are what litdata.StreamingDataset gives back."""
    import litdata
    n = 700
    items = [litdata_item(i) for i in range(n)]
    keys = ('label', 'tokens', 'mixed', 'flags', 'scores')
    for name, kw in (('litdata-json', dict(chunk_size=200)),
                     ('litdata-batch', dict(chunk_size=300, compression='zstd'))):
        f = os.path.join(OUT, name)
        shutil.rmtree(f, ignore_errors=True)
        litdata.optimize(fn=litdata_item, inputs=list(range(n)), output_dir=f,
                         num_workers=1, mode='overwrite', **kw)
        ds = litdata.StreamingDataset(f)
        for key in keys:
            got = []
            for i in range(len(ds)):
                v = ds[i][key]
                got.append([int(x) for x in v] if isinstance(v, list) else [int(v)])
            assert got == [[int(x) for x in (it[key] if isinstance(it[key], list) else [it[key]])]
                           for it in items], (name, key)
            gen_shards.write_truth(f, got, key)


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    {'mds': mds_json, 'jsonl': jsonl_line_ends, 'literals': jsonl_literals,
     'litdata': litdata_defaults}[sys.argv[1]]()
