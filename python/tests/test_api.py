"""The Python API against the binary: every report check() returns must be
the very report the command prints for the same bytes (the binary is the
only implementation). Run by python/ci.sh in a venv where the wheel is
installed; a torch, pandas, pyarrow or datasets case is skipped where that
cannot be imported, saying why (the import's own error)."""
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
from labelaudit._binary import binary_env
from labelaudit._handover import handover


def cli(args, stdin=None):
    """The command's report for the same arguments: (exit status, JSON)."""
    run = subprocess.run([labelaudit.find_binary()] + args, input=stdin, capture_output=True,
                         env=binary_env())
    return run.returncode, json.loads(run.stdout)


def need(test, name):
    """The module, or the test skipped with what its import said (a module
    that is installed but fails to import names its own failure)."""
    import importlib
    try:
        return importlib.import_module(name)
    except Exception as e:        # ImportError, and what a broken install raises
        test.skipTest(f"import {name} failed: {type(e).__name__}: {e}")


def need_torch(test):
    """torch, where it imports and reads numpy arrays (Debian's torch 1.13
    cannot under NumPy 2): else the test skipped, saying what failed."""
    torch = need(test, "torch")
    try:
        torch.as_tensor(np.zeros(2, dtype=np.int64))
    except Exception as e:
        test.skipTest(f"torch {torch.__version__} cannot read a numpy {np.__version__} array: "
                      f"{type(e).__name__}: {e}")
    return torch


def without_path(doc):
    """A report with its files' paths left out (a temporary Arrow file's name)."""
    doc = json.loads(json.dumps(doc))
    for f in doc.get("files", []):
        f.pop("path", None)
    return doc


def stray_labels():
    y = np.arange(1041, dtype=np.int64) % 10
    y[[17, 230, 1000]] = 10
    return y


class CheckMatchesTheCommand(unittest.TestCase):
    def assert_same_as_cli(self, labels, **kwargs):
        """check()'s report against the command's on the same bytes: the
        .npy through a pipe, or the same Arrow file."""
        report = labelaudit.check(labels, **kwargs)
        args = labelaudit._check_args(
            kwargs.get("num_classes"), kwargs.get("loss", "ce"),
            kwargs.get("ignore_index", -100), kwargs.get("batch_size"),
            kwargs.get("drop_last", False), kwargs.get("world_size", 1), {})
        how = handover(labels)
        try:
            if how.array is not None:
                status, doc = cli(args + ["-"], labelaudit.npy_bytes(labels))
                self.assertEqual(dict(report), doc)
            else:
                status, doc = cli(args + ["--", how.path])
                self.assertEqual(without_path(dict(report)), without_path(doc))
        finally:
            how.close()
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

    def test_large_int64(self):
        """10^6 labels: several reads of the reader, the last value included."""
        y = np.arange(10 ** 6, dtype=np.int64) % 10
        y[-1] = 10
        r = self.assert_same_as_cli(y, num_classes=10)
        self.assertEqual(r.files[0]["bad"][-1]["index"], 10 ** 6 - 1)

    def test_non_contiguous_and_big_endian(self):
        self.assert_same_as_cli(stray_labels()[::2], num_classes=10)
        self.assert_same_as_cli(stray_labels().astype(">i4"), num_classes=10)

    def test_copied_when_memory_is_refused(self):
        """Where the kernel refuses the read, the .npy goes through a memfd."""
        from labelaudit import _handover
        old = _handover._memory_refused
        _handover._memory_refused = True
        try:
            self.assertEqual(dict(labelaudit.check(stray_labels(), num_classes=10)),
                             cli(["--json", "--num-classes=10", "-"],
                                 labelaudit.npy_bytes(stray_labels()))[1])
        finally:
            _handover._memory_refused = old

    def test_ragged_lists(self):
        need(self, "pyarrow")
        r = self.assert_same_as_cli([[1, 2], [3], [4, 11], []], num_classes=10)
        self.assertEqual(r.files[0]["bad"], [{"index": 4, "sample": 2, "value": 11}])

    def test_string_labels(self):
        need(self, "pyarrow")
        r = self.assert_same_as_cli(["cat", "dog", "cat", "bird"])
        self.assertEqual(r.files[0]["count"], 4)
        self.assertEqual(r.files[0]["histogram"], [2, 1, 1])   # in order of first appearance
        self.assertEqual(r.findings, [])
        pd = need(self, "pandas")
        r = self.assert_same_as_cli(pd.Series(["b", "a", "b"], dtype="category"))
        self.assertEqual((r.files[0]["histogram"], r.findings), ([1, 2], []))

    def test_torch(self):
        torch = need_torch(self)
        t = torch.as_tensor(stray_labels())
        self.assertEqual(dict(labelaudit.check(t, num_classes=10)),
                         dict(labelaudit.check(stray_labels(), num_classes=10)))
        self.assert_same_as_cli(t.to(torch.int32), num_classes=10)   # int-labels-dtype

    def test_pandas(self):
        pd = need(self, "pandas")
        s = pd.Series(stray_labels())
        self.assert_same_as_cli(s, num_classes=10, batch_size=8, drop_last=True)

    def test_pandas_nullable_na_is_unparsable(self):
        pd = need(self, "pandas")
        need(self, "pyarrow")
        s = pd.Series([0, 1, None, 12, 2], dtype="Int64")
        r = self.assert_same_as_cli(s, num_classes=10)
        self.assertEqual(sorted(f["code"] for f in r.errors), ["out-of-range", "unparsable"])
        self.assertEqual(r.files[0]["invalid"]["unparsable"], 1)
        r = self.assert_same_as_cli(pd.Series([0, 1, 2], dtype="Int64"), num_classes=3)
        self.assertEqual((r.files[0]["format"], r.files[0]["dtype"], r.ok), ("npy", "int64", True))

    def test_datasets_column(self):
        datasets = need(self, "datasets")
        ds = datasets.Dataset.from_dict({"label": stray_labels().tolist()})
        r = self.assert_same_as_cli(ds["label"], num_classes=10)
        self.assertEqual(len(r.errors), 1)
        picked = ds.select([0, 17, 18])                 # an indices mapping
        self.assertEqual(labelaudit.check(picked["label"], num_classes=10).files[0]["bad"][0]["index"], 1)


class PythonManners(unittest.TestCase):
    def test_misspelled_keyword(self):
        with self.assertRaises(TypeError) as caught:
            labelaudit.check([0, 1], num_clases=2)
        self.assertIn("'num_clases'", str(caught.exception))
        self.assertIn("did you mean 'num_classes'", str(caught.exception))
        with self.assertRaises(TypeError) as caught:
            labelaudit.check([0, 1], num_classes=2, batch_sise=4)
        self.assertIn("'batch_size'", str(caught.exception))
        with self.assertRaises(TypeError):
            labelaudit.check_path("x.npy", num_clases=2)

    def test_command_options_by_name(self):
        r = labelaudit.check([0, 1, 1], num_classes=2, fail_on="error", min_batch=2)
        self.assertTrue(r.ok)

    def test_non_integers(self):
        for kwargs in ({"num_classes": 2.9}, {"ignore_index": -100.5}, {"num_classes": "10"},
                       {"batch_size": 8.5}, {"num_classes": True}):
            with self.assertRaises(ValueError, msg=kwargs) as caught:
                labelaudit.check([0, 1], **kwargs)
            self.assertIn(next(iter(kwargs)), str(caught.exception))
        self.assertTrue(labelaudit.check([0, 1], num_classes=np.int64(2), ignore_index=-100.0).ok)


class RaiseOn(unittest.TestCase):
    def test_label_error_is_the_text_report(self):
        with self.assertRaises(labelaudit.LabelError) as caught:
            labelaudit.check(stray_labels(), num_classes=10, raise_on="error")
        text = str(caught.exception)
        self.assertIn("error [out-of-range]", text)
        self.assertEqual(caught.exception.report.exit_status, 1)
        self.assertEqual([f["code"] for f in caught.exception.report.errors], ["out-of-range"])

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

    def test_parquet(self):
        """The wheel carries the Parquet/Arrow module, which finds pyarrow's libraries."""
        pa = need(self, "pyarrow")
        import pyarrow.parquet as pq
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.parquet")
            pq.write_table(pa.table({"label": stray_labels()}), path)
            r = labelaudit.check_path(path, num_classes=10)
            self.assertEqual(r.files[0]["format"], "parquet")
            self.assertEqual([b["index"] for b in r.files[0]["bad"]], [17, 230, 1000])
            status, doc = cli(["--json", "--num-classes=10", "--", path])
            self.assertEqual((dict(r), r.exit_status), (doc, status))


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
        torch = need_torch(self)
        from torch.utils.data import ConcatDataset, Subset, TensorDataset
        y = torch.as_tensor(stray_labels())
        td = TensorDataset(torch.zeros(len(y), 2), y)
        self.assertEqual(dict(labelaudit.check_dataset(td, num_classes=10)),
                         dict(labelaudit.check(y, num_classes=10)))
        sub = Subset(td, [0, 17, 18])
        self.assertEqual(labelaudit.check_dataset(sub, num_classes=10).files[0]["bad"][0]["index"], 1)
        both = ConcatDataset([td, td])
        self.assertEqual(labelaudit.check_dataset(both, num_classes=10).files[0]["count"], 2 * len(y))


class HuggingFaceDatasets(unittest.TestCase):
    def dataset(self, datasets):
        features = datasets.Features({"text": datasets.Value("string"),
                                      "label": datasets.ClassLabel(names=["a", "b", "c"])})
        return datasets.Dataset.from_dict({"text": ["x"] * 6, "label": [0, 1, 2, 0, 1, 1]},
                                          features=features)

    def test_cache_files_each_split(self):
        datasets = need(self, "datasets")
        with tempfile.TemporaryDirectory() as d:
            ds = self.dataset(datasets)
            datasets.DatasetDict(train=ds, test=ds.select([0, 3])).save_to_disk(d)
            dd = datasets.load_from_disk(d)
            reports = labelaudit.check_dataset(dd, batch_size=4)
            self.assertEqual(sorted(reports), ["test", "train"])
            train = reports["train"].files[0]
            self.assertEqual(train["path"], dd["train"].cache_files[0]["filename"])
            self.assertEqual((train["count"], train["num_classes"], train["class_names"]),
                             (6, 3, ["a", "b", "c"]))
            self.assertEqual(reports["test"].files[0]["missing_classes"], [1, 2])
            status, doc = cli(["--json", "--batch-size=4", "--column=label", "--",
                               dd["train"].cache_files[0]["filename"]])
            self.assertEqual(dict(reports["train"]), doc)

    def test_in_memory_and_reindexed(self):
        datasets = need(self, "datasets")
        ds = self.dataset(datasets)
        self.assertEqual(ds.cache_files, [])
        r = labelaudit.check_dataset(ds)
        self.assertEqual((r.files[0]["count"], r.files[0]["num_classes"]), (6, 3))
        picked = ds.select([2, 2, 0])
        self.assertEqual(labelaudit.check_dataset(picked).files[0]["histogram"], [1, 0, 2])
        with self.assertRaises(ValueError) as caught:
            labelaudit.check_dataset(ds, column="lable")
        self.assertIn("did you mean 'label'", str(caught.exception))

    def test_changed_since_saved(self):
        """A rename is replayed in memory: its file holds the old name, so
        the column is written out; shards read in order, as one dataset."""
        datasets = need(self, "datasets")
        with tempfile.TemporaryDirectory() as d:
            self.dataset(datasets).save_to_disk(d, num_shards=2)
            ds = datasets.load_from_disk(d)
            self.assertEqual(len(ds.cache_files), 2)
            r = labelaudit.check_dataset(ds)
            self.assertEqual((r.files[0]["count"], r.files[0]["format"]), (6, "dataset"))
            renamed = ds.rename_column("label", "target")
            r = labelaudit.check_dataset(renamed)
            self.assertEqual((r.files[0]["column"], r.files[0]["count"]), ("target", 6))
            self.assertEqual(r.files[0]["class_names"], ["a", "b", "c"])

    def test_out_of_range_class(self):
        datasets = need(self, "datasets")
        ds = datasets.Dataset.from_dict({"label": [0, 1, 5]}).cast_column(
            "label", datasets.Value("int64"))
        r = labelaudit.check_dataset(ds, num_classes=2)
        self.assertEqual([f["code"] for f in r.errors], ["out-of-range"])


class TheReadmeRecipe(unittest.TestCase):
    def test_training_script_recipe(self):
        """The README's recipe without the package, run as it is."""
        readme = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
        with open(readme, encoding="utf-8") as f:
            text = f.read()
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
