#!/usr/bin/python3
"""gen_class_meta.py - the samples whose class count is written beside the
labels, and what the tools that read them make of them (the truth that
tests/readers/class-count.sh holds labelaudit to).

    /usr/bin/python3 tests/gen/gen_class_meta.py            # from the top of the tree

Writes, under samples/:
  model-10/config.json      transformers' BertConfig of a 10-class head (with
                            stray-10.csv, whose labels run to 10: 11 classes)
  lm-added/config.json      a LlamaConfig of vocab_size 100, and
  lm-added/tokenizer.json   a tokenizers WordLevel tokenizer of 100 tokens
                            and 4 added ones (ids 100..103: past vocab_size)
  lm-tokens.txt             ids, one of them 101
  yolo-nc3/data.yaml        nc: 3, and a label file holding class 3
  nnunet-3/dataset.json     labels 0..2, and a mask (labelsTr) holding 3
and tests/data/class-meta-truth.txt: one "NAME KEY VALUE" line per number,
from transformers.AutoConfig, tokenizers.Tokenizer and Ultralytics'
check_det_dataset (imported with cv2 stubbed: only its YAML checks run).

Needs: pip install --break-system-packages --no-deps transformers tokenizers
huggingface_hub safetensors ultralytics; python3-pil. Offline (HF_HUB_OFFLINE).
"""
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
SAMPLES = "samples"
TRUTH = []


def truth(name, key, value):
    TRUTH.append(f"{name} {key} {value}")


def model_10():
    from transformers import AutoConfig, BertConfig
    d = os.path.join(SAMPLES, "model-10")
    names = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse",
             "ship", "truck"]
    cfg = BertConfig(num_labels=10, id2label=dict(enumerate(names)),
                     label2id={n: i for i, n in enumerate(names)},
                     architectures=["BertForSequenceClassification"])
    cfg.save_pretrained(d)
    back = AutoConfig.from_pretrained(d)
    truth("model-10", "num_labels", back.num_labels)
    truth("model-10", "name3", back.id2label[3])


def lm_added():
    from tokenizers import Tokenizer, AddedToken
    from tokenizers.models import WordLevel
    from transformers import AutoConfig, LlamaConfig
    d = os.path.join(SAMPLES, "lm-added")
    os.makedirs(d, exist_ok=True)
    LlamaConfig(vocab_size=100, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                num_attention_heads=1, num_key_value_heads=1,
                architectures=["LlamaForCausalLM"]).save_pretrained(d)
    vocab = {f"w{i}": i for i in range(100)}
    tok = Tokenizer(WordLevel(vocab, unk_token="w0"))
    tok.add_special_tokens([AddedToken(t, special=True) for t in
                            ("<pad>", "<bos>", "<eos>", "<tool>")])
    tok.save(os.path.join(d, "tokenizer.json"))
    back = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    truth("lm-added", "vocab_size", AutoConfig.from_pretrained(d).vocab_size)
    truth("lm-added", "tokenizer_vocab", max(back.get_vocab(with_added_tokens=True).values()) + 1)
    truth("lm-added", "tokenizer_base", back.get_vocab_size(with_added_tokens=False))
    with open(os.path.join(SAMPLES, "lm-tokens.txt"), "w") as f:
        for i in [1, 5, 99, 42, 101, 7, 0, 3]:
            f.write(f"{i}\n")


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


def check_yaml(check, text):
    """What check_det_dataset makes of a data.yaml of text: nc, or its error."""
    d = tempfile.mkdtemp()
    try:
        for split in ("train", "val"):
            os.makedirs(os.path.join(d, "images", split))
        with open(os.path.join(d, "data.yaml"), "w") as f:
            f.write(f"path: {d}\ntrain: images/train\nval: images/val\n" + text)
        try:
            return str(check(os.path.join(d, "data.yaml"), autodownload=False)["nc"])
        except Exception as e:   # what Ultralytics says of it
            return "refused:" + type(e).__name__
    finally:
        shutil.rmtree(d)


def yolo_nc3():
    d = os.path.join(SAMPLES, "yolo-nc3")
    os.makedirs(os.path.join(d, "labels", "train"), exist_ok=True)
    names = "nc: 3\nnames: [person, bicycle, car]\n"
    with open(os.path.join(d, "data.yaml"), "w") as f:
        f.write("# a YOLO dataset of 3 classes; labels/train/b.txt holds a class 3\n"
                "path: .\ntrain: images/train\nval: images/train\n" + names)
    with open(os.path.join(d, "labels", "train", "a.txt"), "w") as f:
        f.write("0 0.5 0.5 0.2 0.2\n1 0.3 0.3 0.1 0.1\n")
    with open(os.path.join(d, "labels", "train", "b.txt"), "w") as f:
        f.write("2 0.5 0.5 0.2 0.2\n3 0.4 0.4 0.1 0.1\n")
    check = import_ultralytics()
    truth("yolo-nc3", "nc", check_yaml(check, names))
    # the hostile ones of tests/malformed, as Ultralytics takes them
    truth("yolo-names-4-nc-3", "nc", check_yaml(check, "nc: 3\nnames: [a, b, c, d]\n"))
    truth("yolo-names-dict", "nc", check_yaml(check, "names:\n  0: a\n  1: b\n"))
    truth("yolo-names-dict-gap", "nc", check_yaml(check, "names:\n  0: a\n  2: c\n"))


def nnunet_3():
    """nnU-Net's conventions (its documentation and verify_dataset_integrity):
    labels map names to consecutive values, background 0."""
    d = os.path.join(SAMPLES, "nnunet-3")
    os.makedirs(os.path.join(d, "labelsTr"), exist_ok=True)
    labels = {"background": 0, "edema": 1, "tumor": 2}
    with open(os.path.join(d, "dataset.json"), "w") as f:
        json.dump({"channel_names": {"0": "T2"}, "labels": labels, "numTraining": 2,
                   "file_ending": ".png"}, f, indent=4)
    a = np.zeros((8, 8), np.uint8)
    a[0:3] = 1                    # background, edema and tumor about as common
    a[3:6] = 2
    Image.fromarray(a).save(os.path.join(d, "labelsTr", "case_000.png"))
    a[7, 7] = 3                   # a label dataset.json does not have
    Image.fromarray(a).save(os.path.join(d, "labelsTr", "case_001.png"))
    truth("nnunet-3", "labels", max(labels.values()) + 1)


def main():
    model_10()
    lm_added()
    yolo_nc3()
    nnunet_3()
    with open("tests/data/class-meta-truth.txt", "w") as f:
        f.write("# made by tests/gen/gen_class_meta.py: NAME KEY VALUE, from the tools themselves\n")
        f.write("\n".join(TRUTH) + "\n")


if __name__ == "__main__":
    main()
