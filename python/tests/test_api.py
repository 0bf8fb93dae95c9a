"""The Python API against the binary: every report check() returns must be
the very report the command prints for the same bytes (the binary is the
only implementation). Run by python/ci.sh in a venv where the wheel is
installed; torch, pandas and datasets cases are skipped where those are
missing."""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import labelaudit


def cli(args, stdin=None):
    """The command's report for the same arguments: (exit status, JSON)."""
    run = subprocess.run([labelaudit.find_binary()] + args, input=stdin, capture_output=True)
    return run.returncode, json.loads(run.stdout)


def stray_labels():
    y = np.arange(1041, dtype=np.int64) % 10
    y[[17, 230, 1000]] = 10
    return y


class CheckMatchesTheCommand(unittest.TestCase):
    def assert_same_as_cli(self, labels, **kwargs):
        report = labelaudit.check(labels, **kwargs)
        args = labelaudit._check_args(
            kwargs.get("num_classes"), kwargs.get("loss", "ce"),
            kwargs.get("ignore_index", -100), kwargs.get("batch_size"),
            kwargs.get("drop_last", False), kwargs.get("world_size", 1), {}) + ["-"]
        status, doc = cli(args, labelaudit.npy_bytes(labels))
        self.assertEqual(dict(report), doc)
        self.assertEqual(report.exit_status, status)
        return report

    def test_numpy(self):
        r = self.assert_same_as_cli(stray_labels(), num_classes=10, batch_size=8)
        self.assertFalse(r.ok)
        self.assertEqual([f["code"] for f in r.errors], ["out-of-range"])
        self.assertIn("tiny-last-batch", [f["code"] for f in r.warnings])
        self.assertEqual([b["index"] for b in r.files[0]["bad"]], [17, 230, 1000])

    def test_clean_list(self):
        r = self.assert_same_as_cli([0, 1, 2, 1, 0], num_classes=3)
        self.assertTrue(r.ok)
        self.assertEqual(r.findings, [])

    def test_bce_and_ignore_none(self):
        r = self.assert_same_as_cli(np.array([0.0, 0.5, 1.2, np.nan]), loss="bce")
        self.assertEqual(sorted(f["code"] for f in r.errors), ["non-finite", "out-of-range"])
        self.assert_same_as_cli(np.array([0, 1, -100]), num_classes=2, ignore_index=None)

    def test_masks(self):
        masks = np.zeros((4, 8, 8), dtype=np.uint8)
        masks[2, 3, 3] = 255
        r = self.assert_same_as_cli(masks, num_classes=21)
        self.assertEqual(r.files[0]["bad_samples"], 1)
        self.assertTrue(self.assert_same_as_cli(masks, num_classes=21, ignore_index=255).ok)

    def test_torch(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch is not installed")
        t = torch.as_tensor(stray_labels())
        self.assertEqual(dict(labelaudit.check(t, num_classes=10)),
                         dict(labelaudit.check(stray_labels(), num_classes=10)))
        self.assert_same_as_cli(t.to(torch.int32), num_classes=10)   # int-labels-dtype

    def test_pandas(self):
        try:
            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed")
        s = pd.Series(stray_labels())
        self.assert_same_as_cli(s, num_classes=10, batch_size=8, drop_last=True)

    def test_datasets_column(self):
        try:
            import datasets
        except ImportError:
            self.skipTest("datasets is not installed")
        ds = datasets.Dataset.from_dict({"label": stray_labels().tolist()})
        r = self.assert_same_as_cli(ds["label"], num_classes=10)
        self.assertEqual(len(r.errors), 1)


class RaiseOn(unittest.TestCase):
    def test_label_error_is_the_text_report(self):
        with self.assertRaises(labelaudit.LabelError) as caught:
            labelaudit.check(stray_labels(), num_classes=10, raise_on="error")
        text = str(caught.exception)
        self.assertIn("error [out-of-range]", text)
        self.assertEqual(caught.exception.report.exit_status, 1)

    def test_warning_level(self):
        y = np.arange(9) % 3          # batch 8 leaves one sample: a warning only
        labelaudit.check(y, num_classes=3, batch_size=8, raise_on="error")
        with self.assertRaises(labelaudit.LabelError):
            labelaudit.check(y, num_classes=3, batch_size=8, raise_on="warning")

    def test_usage_error(self):
        with self.assertRaises(ValueError):
            labelaudit.check([0, 1], num_classes=0)


class CheckPath(unittest.TestCase):
    def test_same_as_cli(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "y.npy")
            np.save(path, stray_labels())
            r = labelaudit.check_path(path, num_classes=10, batch_size=8)
            status, doc = cli(["--json", "--num-classes=10", "--batch-size=8", "--", path])
            self.assertEqual((dict(r), r.exit_status), (doc, status))
            with open(path, "wb") as f:
                f.write(b"\x93NUMPY garbage")
            with self.assertRaises(ValueError) as caught:
                labelaudit.check_path(path, num_classes=10)
            self.assertIn("y.npy", str(caught.exception))


class CheckDataset(unittest.TestCase):
    def test_attributes_and_never_iterated(self):
        class Targets:
            targets = [0, 1, 2, 3]

            def __getitem__(self, i):
                raise AssertionError("the dataset was iterated")

        class Folder:
            samples = [("a.png", 0), ("b.png", 5)]

        self.assertEqual(len(labelaudit.check_dataset(Targets(), num_classes=3).errors), 1)
        self.assertEqual(labelaudit.check_dataset(Folder(), num_classes=3).files[0]["max"], 5)
        with self.assertRaises(TypeError) as caught:
            labelaudit.check_dataset(object(), num_classes=3)
        self.assertIn("not iterated", str(caught.exception))

    def test_torch_datasets(self):
        try:
            import torch
            from torch.utils.data import ConcatDataset, Subset, TensorDataset
        except ImportError:
            self.skipTest("torch is not installed")
        y = torch.as_tensor(stray_labels())
        td = TensorDataset(torch.zeros(len(y), 2), y)
        self.assertEqual(dict(labelaudit.check_dataset(td, num_classes=10)),
                         dict(labelaudit.check(y, num_classes=10)))
        sub = Subset(td, [0, 17, 18])
        self.assertEqual(labelaudit.check_dataset(sub, num_classes=10).files[0]["bad"][0]["index"], 1)
        both = ConcatDataset([td, td])
        self.assertEqual(labelaudit.check_dataset(both, num_classes=10).files[0]["count"], 2 * len(y))


class TheReadmeRecipe(unittest.TestCase):
    def test_training_script_recipe(self):
        """The README's recipe without the package, run as it is."""
        readme = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
        text = open(readme, encoding="utf-8").read()
        section = text.split("### From a training script, without the package", 1)[1]
        code = section.split("```python\n", 1)[1].split("```", 1)[0]
        definition = code.split("\ncheck_labels(", 1)[0]     # the call needs a dataset
        scope = {}
        exec(definition, scope)
        os.environ["PATH"] = os.path.dirname(labelaudit.find_binary()) + os.pathsep + os.environ["PATH"]
        self.assertEqual(scope["check_labels"]([0, 1, 2], 3, 3)["summary"]["exit_status"], 0)
        with self.assertRaises(ValueError) as caught:
            scope["check_labels"](stray_labels(), 10, 8)
        self.assertIn("out-of-range", str(caught.exception))


class TheCommand(unittest.TestCase):
    def test_on_path_and_python_m(self):
        on_path = shutil.which("labelaudit")
        self.assertIsNotNone(on_path, "the wheel put labelaudit on PATH")
        a = subprocess.run([on_path, "--version"], capture_output=True)
        b = subprocess.run([sys.executable, "-m", "labelaudit", "--version"], capture_output=True)
        self.assertEqual(a.returncode, 0)
        self.assertEqual((a.stdout, a.returncode), (b.stdout, b.returncode))


if __name__ == "__main__":
    unittest.main(verbosity=2)
