#!/usr/bin/env python3
"""A COCO JSON whose image entries are held to their files (SPEC "A label and
what it labels": size-mismatch for COCO, detectron2's check_image_size), made
with PIL, and the truth tests/datasets/pairs.sh holds labelaudit to: for each
entry, detectron2's rule ((width, height) stated against the file's, as
PIL's Image.open(p).size gives it) or its missing file (verdicts.txt).

    python3 tests/gen/gen_coco_sizes.py tests/data/pairs/coco-sizes

Needs numpy and Pillow (PyPI); make check runs no Python.
"""
import json
import os
import shutil
import sys

import numpy as np
from PIL import Image

out = sys.argv[1]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(os.path.join(out, 'annotations'))
os.makedirs(os.path.join(out, 'val'))
# file, its true (w, h) or None (not written), the (w, h) the entry states
entries = [('a.jpg', (8, 6), (8, 6)), ('b.png', (10, 4), (4, 10)), ('c.jpg', None, (8, 8)),
           ('sub/d.png', (5, 7), (5, 7)), ('e.jpg', (12, 9), (12, 10))]
images, verdicts = [], []
for i, (name, size, stated) in enumerate(entries, 1):
    path = os.path.join(out, 'val', name)
    if size:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Image.fromarray(np.full((size[1], size[0], 3), 80, np.uint8)).save(path)
    images.append({'id': i, 'file_name': name, 'width': stated[0], 'height': stated[1]})
    if not os.path.exists(path):
        verdicts.append(f'{name} missing')
    else:
        verdicts.append(f'{name} {"ok" if Image.open(path).size == stated else "size-mismatch"}')
doc = {'images': images, 'categories': [{'id': 1, 'name': 'thing'}],
       'annotations': [{'id': k, 'image_id': k, 'category_id': 1, 'bbox': [0, 0, 2, 2],
                        'area': 4, 'iscrowd': 0} for k in range(1, len(entries) + 1)]}
with open(os.path.join(out, 'annotations', 'instances_val.json'), 'w') as f:
    json.dump(doc, f)
with open(os.path.join(out, 'verdicts.txt'), 'w') as f:
    f.write('# file_name verdict: detectron2 check_image_size on PIL sizes (gen_coco_sizes.py)\n')
    f.write('\n'.join(verdicts) + '\n')
print('\n'.join(verdicts))
