#!/usr/bin/env python3
"""NIfTI labels against their images (SPEC "A label and what it labels":
geometry-mismatch), an nnU-Net raw dataset written with nibabel, and the
verdict of nnU-Net's own check_cases (nnunetv2.experiment_planning.
verify_dataset_integrity, reading with its SimpleITKIO) for each case:
"error" where it returns False (shape or spacing: the dataset is refused),
"warning" where it only prints a warning (origin, direction), "ok" else;
a case whose channels disagree raises in SimpleITKIO.read_images: "error".

    python3 tests/gen/gen_geometry.py tests/data/geometry

Needs nibabel, SimpleITK and nnunetv2 (PyPI; installed with --no-deps: the
check needs none of torch's GPU parts). nnunetv2's package imports
scikit-image and blosc2 for readers and croppers this check never calls;
where they are missing they are stubbed, so that check_cases itself runs
as nnU-Net ships it. make check runs no Python.
"""
import contextlib
import io
import json
import os
import shutil
import sys
import types

import nibabel as nib
import numpy as np


def stub(name, **attrs):
    m = sys.modules.setdefault(name, types.ModuleType(name))
    for k, v in attrs.items():
        setattr(m, k, v)
    return m


try:
    import blosc2  # noqa: F401
except ImportError:
    stub('blosc2', ndarray=types.SimpleNamespace(NDArray=object), NDArray=object)
try:
    import skimage  # noqa: F401
except ImportError:
    sk = stub('skimage')
    for part in ('io', 'morphology', 'measure', 'transform'):
        setattr(sk, part, stub('skimage.' + part))

from nnunetv2.experiment_planning.verify_dataset_integrity import check_cases  # noqa: E402
from nnunetv2.imageio.simpleitk_reader_writer import SimpleITKIO  # noqa: E402

out = sys.argv[1]
root = os.path.join(out, 'Dataset001_Geometry')
shutil.rmtree(out, ignore_errors=True)
for d in ('imagesTr', 'labelsTr'):
    os.makedirs(os.path.join(root, d))

SHAPE = (6, 5, 4)


def affine(spacing=(1.0, 1.0, 2.0), origin=(-3.0, 10.0, 4.5), flip_x=False):
    a = np.diag(list(spacing) + [1.0])
    if flip_x:
        a[0, 0] = -a[0, 0]
    a[:3, 3] = origin
    return a


def save(path, data, aff):
    img = nib.Nifti1Image(data, aff)
    img.set_qform(aff, code=1)   # qform and sform alike: SimpleITK and nibabel agree
    img.set_sform(aff, code=1)
    nib.save(img, path)


rng = np.random.default_rng(7)
# case: (label shape, label affine, affine of channel 1 or None: the label's grid)
base = affine()
cases = {
    'case_ok': (SHAPE, base, None),
    'case_shape': ((6, 5, 3), base, None),
    'case_spacing': (SHAPE, affine(spacing=(1.0, 1.0, 2.5)), None),
    'case_origin': (SHAPE, affine(origin=(0.0, 10.0, 4.5)), None),
    'case_direction': (SHAPE, affine(flip_x=True), None),
    'case_channel': (SHAPE, base, affine(spacing=(1.2, 1.0, 2.0))),
    'case_close': (SHAPE, affine(spacing=(1.0, 1.0, 2.0 * (1 + 1e-7))), None),
}
verdicts = []
for case, (label_shape, label_affine, channel1) in cases.items():
    images = []
    for ch in (0, 1):
        path = os.path.join(root, 'imagesTr', f'{case}_{ch:04d}.nii.gz')
        aff = channel1 if ch == 1 and channel1 is not None else base
        save(path, rng.normal(size=SHAPE).astype(np.float32), aff)
        images.append(path)
    label = os.path.join(root, 'labelsTr', f'{case}.nii.gz')
    seg = np.zeros(label_shape, np.uint8)
    seg[1:3, 1:3, :2] = 1
    save(label, seg, label_affine)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        try:
            ok = check_cases(images, label, 2, SimpleITKIO)
        except RuntimeError:     # read_images: the channels' own grids differ
            ok = False
    text = said.getvalue()
    verdict = 'error' if not ok else 'warning' if 'arning' in text else 'ok'
    verdicts.append(f'{case} {verdict}')
with open(os.path.join(root, 'dataset.json'), 'w') as f:
    json.dump({'channel_names': {'0': 'T1', '1': 'T2'}, 'labels': {'background': 0, 'lesion': 1},
               'numTraining': len(cases), 'file_ending': '.nii.gz'}, f, indent=2)
with open(os.path.join(out, 'verdicts.txt'), 'w') as f:
    f.write('# case verdict: nnunetv2 check_cases (SimpleITKIO), tests/gen/gen_geometry.py\n')
    f.write('\n'.join(verdicts) + '\n')
print('\n'.join(verdicts))
