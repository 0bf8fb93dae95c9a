#!/usr/bin/env python3
"""gen_lib_reads.py - inputs that labelaudit refused or typed otherwise than
the libraries that read them (issue 41, item 22), written by those libraries,
in tests/data/lib-reads/, each with NAME.truth: what the library read back
(the dtype torch gives the sample, the values). make check needs none of this.

    /usr/bin/python3 tests/gen/gen_lib_reads.py   # gen_shards.py's stubs and packages

mds-json: an MDS json column of [1, 2.0] (json.loads: a float, torch.tensor: a
float tensor), [true, 3] (torch.tensor([True, 3]): int64), [true, false]
(bool) and [4, 5] (int64), read back by streaming.StreamingDataset.
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_shards  # noqa: F401,E402  (its stubs: streaming imports no extras)
import torch  # noqa: E402
from streaming import MDSWriter, StreamingDataset  # noqa: E402

OUT = os.path.join(HERE, '..', 'data', 'lib-reads')


def mds_json():
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


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    mds_json()
