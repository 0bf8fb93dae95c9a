#!/usr/bin/env python3
"""make_safetensors.py - the .safetensors fixtures of tests/readers/containers.sh,
written by Hugging Face's safetensors package (`pip install safetensors numpy`;
bfloat16 needs torch: Debian's python3-torch, through safetensors.torch).
Committed; run it again only to change them."""
import os
import numpy as np
from safetensors.numpy import save_file

here = os.path.dirname(os.path.abspath(__file__))


def save(tensors, name, metadata=None):
    save_file(tensors, os.path.join(here, name), metadata=metadata)


labels = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3, 4], dtype=np.int64)
save({"labels": labels}, "st-labels.safetensors")
save({"images": np.zeros((12, 2, 2), np.float32), "labels": labels,
      "weights": np.ones(3, np.float64)}, "st-dict.safetensors", metadata={"format": "np"})
save({"a": np.zeros(2, np.int32), "b": np.ones(3, np.int32)}, "st-two.safetensors")
save({"masks": np.array([[0, 1], [2, 255]], np.uint8)}, "st-uint8-2d.safetensors")
save({"t": np.array([True, False, True])}, "st-bool.safetensors")
save({"t": np.array([0.0, 1.0, 0.5, 2.0], np.float16)}, "st-f16.safetensors")
save({"t": np.array([0, 1, 2], np.int16)}, "st-int16.safetensors")
save({"t": np.zeros(0, np.int64)}, "st-empty.safetensors")
try:        # bfloat16 has no NumPy dtype: write it through torch
    import torch
    from safetensors.torch import save_file as save_torch
    save_torch({"t": torch.tensor([0.0, 1.0, 0.5, 2.0], dtype=torch.bfloat16)},
               os.path.join(here, "st-bf16.safetensors"))
except ImportError:
    print("no torch: st-bf16.safetensors kept as it is")
