#!/usr/bin/python3
"""gen_class_verdicts.py - hand-written class-count files at the edges of
their formats, and what the libraries that read them make of each (the
truth that tests/readers/class-count.sh holds labelaudit to, issue 41).

    /usr/bin/python3 tests/gen/gen_class_verdicts.py        # from the top of the tree

Writes tests/data/class-meta/:
  config-NAME.json   a model's config.json, read by transformers' AutoConfig
  yaml-NAME.yaml     a YOLO data.yaml, read by Ultralytics' check_det_dataset
                     (PyYAML's YAML 1.1 resolver: nc: 010 is 8)
  nnunet-brats/      a region-based nnU-Net dataset.json (BraTS) and a mask,
                     read by nnU-Net's LabelManager
  verdicts.txt       one "FILE KEY VALUE" line each: KEY is what labelaudit
                     checks there (num_labels of a head, vocab of a language
                     model's embedding, top_id of id2label, nc, labels), VALUE
                     the library's number or "refused:ErrorType"

Needs: pip install --break-system-packages --no-deps transformers tokenizers
huggingface_hub safetensors ultralytics nnunetv2 (and what transformers
imports: regex, tqdm, filelock, httpx2, ...); python3-yaml, python3-pil.
Offline. Ultralytics is imported with cv2 stubbed and nnU-Net with
acvl_utils, batchgenerators and blosc2 stubbed: only their YAML and label
checks run.
"""
import importlib.abc
import importlib.machinery
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
import types

import numpy as np
from PIL import Image

os.environ["HF_HUB_OFFLINE"] = "1"
OUT = "tests/data/class-meta"
VERDICTS = []

# config.json texts: (name, kind, text); kind is what the model's count is:
# "head" (num_labels) or "lm" (the embedding's rows)
BERT = '"model_type": "bert"'
IDS3 = '"id2label": {"0": "a", "1": "b", "2": "c"}'
CONFIGS = [
    ("num-labels-3.0", "head", '{%s, "num_labels": 3.0}' % BERT),
    ("num-labels-3.0-ids-3", "head", '{%s, "num_labels": 3.0, %s}' % (BERT, IDS3)),
    ("num-labels-5.0-ids-3", "head", '{%s, "num_labels": 5.0, %s}' % (BERT, IDS3)),
    ("num-labels-null-ids-3", "head", '{%s, "num_labels": null, %s}' % (BERT, IDS3)),
    ("num-labels-null", "head", '{%s, "num_labels": null}' % BERT),
    ("num-labels-true", "head", '{%s, "num_labels": true}' % BERT),
    ("num-labels-5-ids-3", "head", '{%s, "num_labels": 5, %s}' % (BERT, IDS3)),
    ("num-labels-twice", "head", '{%s, "num_labels": 2, "num_labels": 4}' % BERT),
    ("num-labels-neg", "head", '{%s, "num_labels": -1}' % BERT),
    ("key-1_0", "head", '{%s, "id2label": {"0": "a", "1_0": "b"}}' % BERT),
    ("key-blanks", "head", '{%s, "id2label": {" 1 ": "a", "0": "b"}}' % BERT),
    ("key-01-and-1", "head", '{%s, "id2label": {"01": "a", "1": "b", "0": "c"}}' % BERT),
    ("key-1.0", "head", '{%s, "id2label": {"1.0": "a", "0": "b"}}' % BERT),
    ("ids-empty", "head", '{%s, "id2label": {}}' % BERT),
    ("ids-null", "head", '{%s, "id2label": null}' % BERT),
    ("neither", "head", '{%s}' % BERT),
    ("causal-lm-ids", "lm", '{"model_type": "llama", "architectures": ["LlamaForCausalLM"], '
     '"vocab_size": 100, "id2label": {"0": "LABEL_0", "1": "LABEL_1"}}'),
    ("lm-head-ids", "lm", '{"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], '
     '"vocab_size": 120, "id2label": {"0": "LABEL_0", "1": "LABEL_1"}}'),
    ("llava-stale-vocab", "lm", '{"model_type": "llava", "architectures": '
     '["LlavaForConditionalGeneration"], "vocab_size": 1000, '
     '"text_config": {"model_type": "llama", "vocab_size": 300}}'),
]

# data.yaml bodies (after train: and val:)
YAMLS = [
    ("nc-octal", "nc: 010\n"),
    ("nc-hex", "nc: 0x0a\n"),
    ("nc-binary", "nc: 0b1010\n"),
    ("nc-underscore", "nc: 1_0\n"),
    ("nc-sexagesimal", "nc: 1:30\n"),
    ("nc-plus", "nc: +7\n"),
    ("nc-08", "nc: 08\n"),
    ("nc-0o10", "nc: 0o10\n"),
    ("nc-quoted-octal", 'nc: "010"\n'),
    ("nc-float", "nc: 3.0\n"),
    ("nc-float-frac", "nc: 2.5\n"),
    ("nc-1e1", "nc: 1e1\n"),
    ("nc-yes", "nc: yes\n"),
    ("nc-zero", "nc: 0\n"),
    ("nc-negative", "nc: -3\n"),
    ("nc-tilde-names", "nc: ~\nnames: [a]\n"),
    ("nc-twice", "nc: 5\nnc: 3\n"),
    ("names-null", "nc: 3\nnames:\n"),
    ("names-None", "nc: 4\nnames: None\n"),
    ("names-twice", "names: [a, b, c]\nnames: [d]\n"),
    ("names-keys-octal", "names:\n  0: a\n  01: b\n  02: c\n"),
    ("names-keys-quoted", "names:\n  '0': a\n  '01': b\n"),
    ("two-documents", "nc: 3\n---\nnc: 4\n"),
    ("nc-octal-underscore", "nc: 0_10\n"),
    ("nc-double-underscore", "nc: 1__0\n"),
    ("nc-hex-underscore", "nc: 0x_A\n"),
    ("nc-binary-empty", "nc: 0b_\n"),
    ("nc-sexagesimal-60", "nc: 1:60\n"),
    ("nc-dot", "nc: 10.\n"),
    ("nc-dot-exponent", "nc: .5e+1\n"),
    ("nc-minus-zero", "nc: -0\n"),
    ("nc-quoted-blanks", "nc: '  12  '\n"),
    ("nc-comment", "nc: 12 # twelve\n"),
    ("nc-str-tag", "nc: !!str 5\n"),
    ("nc-sexagesimal-float", "nc: 1:30.0\n"),
    ("nc-inf", "nc: .inf\n"),
]


def verdict(name, key, value):
    VERDICTS.append(f"{name} {key} {value}")


def configs():
    import transformers
    from transformers import AutoConfig
    transformers.logging.set_verbosity_error()
    for name, kind, text in CONFIGS:
        path = os.path.join(OUT, f"config-{name}.json")
        with open(path, "w") as f:
            f.write(text + "\n")
        d = tempfile.mkdtemp()
        try:
            shutil.copy(path, os.path.join(d, "config.json"))
            c = AutoConfig.from_pretrained(d)
        except Exception as e:
            verdict(f"config-{name}.json", "num_labels" if kind == "head" else "vocab",
                    "refused:" + type(e).__name__)
            continue
        finally:
            shutil.rmtree(d)
        if kind == "lm":   # the embedding is the text model's (the decoder's)
            verdict(f"config-{name}.json", "vocab", c.get_text_config(decoder=True).vocab_size)
        else:
            verdict(f"config-{name}.json", "num_labels", c.num_labels)
            verdict(f"config-{name}.json", "top_id", max(c.id2label) if c.id2label else -1)


def import_ultralytics():
    """check_det_dataset without OpenCV (the YAML checks need none of it)."""
    class Stub(types.ModuleType):
        def __getattr__(self, k):
            if k.startswith("__"):
                raise AttributeError(k)
            return lambda *a, **kw: None
    sys.modules.setdefault("cv2", Stub("cv2"))
    version = importlib.metadata.version
    importlib.metadata.version = lambda n: "0.14.0" if n == "torchvision" else version(n)
    os.environ["YOLO_CONFIG_DIR"] = tempfile.mkdtemp()
    from ultralytics.data.utils import check_det_dataset
    return check_det_dataset


def yamls():
    check = import_ultralytics()
    for name, body in YAMLS:
        text = "train: images/train\nval: images/val\n" + body
        path = os.path.join(OUT, f"yaml-{name}.yaml")
        with open(path, "w") as f:
            f.write(text)
        d = tempfile.mkdtemp()
        try:
            for split in ("train", "val"):
                os.makedirs(os.path.join(d, "images", split))
            shutil.copy(path, os.path.join(d, "data.yaml"))
            try:
                nc = check(os.path.join(d, "data.yaml"), autodownload=False)["nc"]
                nc = str(int(nc))    # nc: yes is True, an int: range(True) is 1 class
            except Exception as e:   # what Ultralytics says of it
                nc = "refused:" + type(e).__name__
        finally:
            shutil.rmtree(d)
        verdict(f"yaml-{name}.yaml", "nc", nc)


def import_nnunet():
    """nnU-Net's LabelManager, with the modules only its training needs stubbed."""
    class Stub(types.ModuleType):
        __path__ = []

        def __getattr__(self, k):
            if k.startswith("__"):
                raise AttributeError(k)
            return os.path.join if k == "join" else (lambda *a, **kw: None)

    class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in ("acvl_utils", "batchgenerators", "blosc2"):
                return importlib.machinery.ModuleSpec(name, self, is_package=True)
            return None

        def create_module(self, spec):
            return Stub(spec.name)

        def exec_module(self, module):
            pass
    sys.meta_path.insert(0, Finder())
    from nnunetv2.utilities.label_handling.label_handling import LabelManager
    return LabelManager


def nnunet_brats():
    """BraTS as nnU-Net's region-based training reads it: masks of 0..3."""
    LabelManager = import_nnunet()
    d = os.path.join(OUT, "nnunet-brats")
    os.makedirs(os.path.join(d, "labelsTr"), exist_ok=True)
    labels = {"background": 0, "whole tumor": [1, 2, 3], "tumor core": [2, 3],
              "enhancing tumor": [3]}
    with open(os.path.join(d, "dataset.json"), "w") as f:
        json.dump({"channel_names": {"0": "FLAIR"}, "labels": labels,
                   "regions_class_order": [1, 2, 3], "numTraining": 1,
                   "file_ending": ".png"}, f, indent=4)
    a = np.zeros((8, 8), np.uint8)
    a[0:2] = 1                    # edema, non-enhancing core, enhancing tumor
    a[2:4] = 2
    a[4:6] = 3
    Image.fromarray(a).save(os.path.join(d, "labelsTr", "case_000.png"))
    lm = LabelManager(labels, regions_class_order=[1, 2, 3])
    verdict("nnunet-brats", "labels", max(lm.all_labels) + 1)
    verdict("nnunet-brats", "mask_max", int(a.max()))


def main():
    os.makedirs(OUT, exist_ok=True)
    configs()
    yamls()
    nnunet_brats()
    with open(os.path.join(OUT, "verdicts.txt"), "w") as f:
        f.write("# made by tests/gen/gen_class_verdicts.py: FILE KEY VALUE, from transformers "
                f"{importlib.metadata.version('transformers')}, ultralytics "
                f"{importlib.metadata.version('ultralytics')}, nnunetv2 "
                f"{importlib.metadata.version('nnunetv2')}\n")
        f.write("\n".join(VERDICTS) + "\n")


if __name__ == "__main__":
    main()
