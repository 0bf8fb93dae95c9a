#!/usr/bin/env python3
"""Truth for tests/readers/imagefolder.sh from torchvision itself.

Builds the tree described in tests/data/imagefolder/tree.txt in a temporary
folder, runs torchvision.datasets.folder.find_classes and make_dataset on it
(allow_empty=True, to see past the empty class; ImageFolder's own constructor
is run too, for the error it raises), and writes tests/data/imagefolder/truth.json:
class_to_idx, samples per class, the samples in order, the files under the
class folders that torchvision skips, and ImageFolder's error.

The same for unloadable.txt (dangling links, a FIFO, a link loop, a device
named like images) into truth-unloadable.json, with what open(path, "rb"),
the first step of torchvision's loader, does with each sample: "ok", the
exception it raises, or "blocks" (a FIFO waits for a writer: the epoch hangs).

    python3 -m venv v && v/bin/pip install torchvision && v/bin/python tests/gen/gen_imagefolder.py

make check never runs this; it reads the committed truth.json.
"""
import json
import os
import signal
import stat
import sys
import tempfile

import torchvision
from torchvision.datasets.folder import IMG_EXTENSIONS, ImageFolder, find_classes, make_dataset

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "imagefolder")


def build(top, tree="tree.txt"):
    for line in open(os.path.join(HERE, tree), encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, rest = line.split(" ", 1)
        if kind == "d":
            os.makedirs(os.path.join(top, rest), exist_ok=True)
        elif kind == "f":
            open(os.path.join(top, rest), "wb").close()
        elif kind == "l":
            path, target = rest.rsplit(" ", 1)
            os.symlink(target, os.path.join(top, path))
        elif kind == "p":
            os.mkfifo(os.path.join(top, rest))


def opened(path):
    """What open(path, "rb") does: "ok", "blocks", or the exception's name."""
    def blocked(*_):
        raise TimeoutError
    old = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(2)
    try:
        with open(path, "rb"):
            pass
        return "ok"
    except TimeoutError:
        return "blocks"
    except OSError as e:
        return type(e).__name__
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def unloadable_truth():
    with tempfile.TemporaryDirectory() as top:
        build(top, "unloadable.txt")
        root = os.path.join(top, "root")
        classes, class_to_idx = find_classes(root)
        samples = make_dataset(root, class_to_idx, extensions=IMG_EXTENSIONS, allow_empty=True)
        rel = lambda p: os.path.relpath(p, top)
        def kind(p):
            try:
                m = os.stat(p).st_mode
            except OSError:
                return "none"
            return "file" if stat.S_ISREG(m) else "fifo" if stat.S_ISFIFO(m) else "device" \
                if stat.S_ISCHR(m) or stat.S_ISBLK(m) else "other"
        truth = {
            "torchvision": torchvision.__version__,
            "class_to_idx": class_to_idx,
            "samples": [[rel(p), t, kind(p), opened(p)] for p, t in samples],
        }
    with open(os.path.join(HERE, "truth-unloadable.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


def main():
    with tempfile.TemporaryDirectory() as top:
        build(top)
        root = os.path.join(top, "root")
        classes, class_to_idx = find_classes(root)
        samples = make_dataset(root, class_to_idx, extensions=IMG_EXTENSIONS, allow_empty=True)
        rel = lambda p: os.path.relpath(p, top)
        kept = {p for p, _ in samples}
        skipped = []
        for c in classes:
            for dirpath, _, fnames in sorted(os.walk(os.path.join(root, c), followlinks=True)):
                skipped += [rel(os.path.join(dirpath, f)) for f in sorted(fnames)
                            if os.path.join(dirpath, f) not in kept]
        try:
            ImageFolder(root)
            error = None
        except Exception as e:  # the error users meet
            error = f"{type(e).__name__}: {e}".replace(root, "ROOT")
        truth = {
            "torchvision": torchvision.__version__,
            "class_to_idx": class_to_idx,
            "samples_per_class": [sum(1 for _, t in samples if t == i) for i in range(len(classes))],
            "samples": [[rel(p), t] for p, t in samples],
            "not_images": skipped,
            "imagefolder_error": error,
        }
    with open(os.path.join(HERE, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
    unloadable_truth()
