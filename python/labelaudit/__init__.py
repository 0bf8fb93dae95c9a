"""labelaudit: audit the labels before training, from Python.

The binary is the only implementation: these functions write the labels as
a .npy to its standard input (or give it paths), run it with --json, and
return its report as Python objects. Options are the command's own, spelled
with underscores: ``check(y, num_classes=10, batch_size=32)`` runs
``labelaudit --json -n 10 --batch-size=32 -``.

    import labelaudit
    labelaudit.check(train_ds.targets, num_classes=10, batch_size=32,
                     raise_on="error")          # before trainer.fit()
"""
import io
import os
import json
import subprocess
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ._binary import find_binary

__all__ = ["check", "check_path", "check_dataset", "Report", "LabelError", "find_binary"]

# Exit statuses of the binary (man labelaudit, EXIT STATUS).
_FINDINGS, _USAGE, _UNREADABLE = 1, 2, 3
_SEVERITY_RANK = {"warning": 0, "error": 1}


class LabelError(Exception):
    """Raised by check(..., raise_on=...): the message is the text report."""

    def __init__(self, message: str, report: "Report"):
        super().__init__(message)
        self.report = report


class Report(dict):
    """The --json report (man labelaudit, JSON REPORT) as a dict, with:

    ok        no finding at or above --fail-on (the exit status was 0)
    findings  every file's findings, each with its file's "path"
    errors    the findings of severity "error"; warnings likewise
    exit_status, files, summary
    """

    def __init__(self, doc: Dict[str, Any], exit_status: int, argv: List[str]):
        super().__init__(doc)
        self.exit_status = exit_status
        self.argv = argv

    @property
    def ok(self) -> bool:
        return self.exit_status == 0

    @property
    def files(self) -> List[Dict[str, Any]]:
        return self.get("files", [])

    @property
    def summary(self) -> Dict[str, Any]:
        return self.get("summary", {})

    @property
    def findings(self) -> List[Dict[str, Any]]:
        return [dict(f, path=file.get("path")) for file in self.files
                for f in file.get("findings", [])]

    @property
    def errors(self) -> List[Dict[str, Any]]:
        return [f for f in self.findings if f.get("severity") == "error"]

    @property
    def warnings(self) -> List[Dict[str, Any]]:
        return [f for f in self.findings if f.get("severity") == "warning"]


def _option_args(options: Dict[str, Any]) -> List[str]:
    """Keyword options as the command's long options: None and False are left
    out, True is a bare flag, a list repeats the option."""
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if v is None or v is False:
                continue
            args.append(flag if v is True else f"{flag}={v}")
    return args


def _check_args(num_classes, loss, ignore_index, batch_size, drop_last, world_size,
                options) -> List[str]:
    args = ["--json", f"--loss={loss}"]
    if num_classes is not None:
        args.append(f"--num-classes={int(num_classes)}")
    if ignore_index is None:
        args.append("--ignore-index=none")
    elif ignore_index != -100:
        args.append(f"--ignore-index={int(ignore_index)}")
    if batch_size is not None:
        args.append(f"--batch-size={int(batch_size)}")
    if drop_last:
        args.append("--drop-last")
    if world_size != 1:
        args.append(f"--world-size={int(world_size)}")
    return args + _option_args(options)


def _run(args: List[str], stdin: Optional[bytes]) -> "subprocess.CompletedProcess[bytes]":
    return subprocess.run([find_binary()] + args, input=stdin, capture_output=True)


def _report(args: List[str], stdin: Optional[bytes], raise_on: Optional[str]) -> Report:
    run = _run(args, stdin)
    if run.returncode == _USAGE or not run.stdout:
        raise ValueError("labelaudit: " + run.stderr.decode(errors="replace").strip())
    report = Report(json.loads(run.stdout), run.returncode, args)
    if report.exit_status == _UNREADABLE:
        messages = [f"{f.get('path')}: {f['error']}" for f in report.files if f.get("error")]
        raise ValueError("labelaudit: " + "; ".join(messages))
    if raise_on is not None and _fails(report, raise_on):
        text = _run([a for a in args if a != "--json"], stdin).stdout
        raise LabelError(text.decode(errors="replace"), report)
    return report


def _fails(report: Report, raise_on: str) -> bool:
    if raise_on not in _SEVERITY_RANK:
        raise ValueError(f"raise_on must be 'error', 'warning' or None, not {raise_on!r}")
    least = _SEVERITY_RANK[raise_on]
    return any(_SEVERITY_RANK.get(f.get("severity"), 0) >= least for f in report.findings)


def _as_numpy(labels: Any):
    """A numpy array of the labels as they are: a torch tensor (CPU or CUDA:
    copied to the host), a pandas Series, a Hugging Face Dataset column, a
    list or anything numpy.asarray takes."""
    import numpy as np
    if hasattr(labels, "detach") and hasattr(labels, "cpu"):      # torch.Tensor
        labels = labels.detach().cpu()
        if str(labels.dtype) == "torch.bfloat16":
            labels = labels.float()
        return labels.numpy()
    if hasattr(labels, "to_numpy"):                               # pandas, polars
        return labels.to_numpy()
    return np.asarray(labels)


def npy_bytes(labels: Any) -> bytes:
    """The labels as the bytes of a .npy file, as the binary reads them."""
    import numpy as np
    buf = io.BytesIO()
    np.save(buf, _as_numpy(labels), allow_pickle=False)
    return buf.getvalue()


def check(labels: Any, num_classes: Optional[int] = None, loss: str = "ce",
          ignore_index: Optional[int] = -100, batch_size: Optional[int] = None,
          drop_last: bool = False, world_size: int = 1,
          raise_on: Optional[str] = None, **options: Any) -> Report:
    """Audit labels held in memory. labels: a numpy array, a torch tensor, a
    list, a pandas Series or a Hugging Face Dataset column. The other
    arguments are the command's options (loss: 'ce', 'nll' or 'bce';
    ignore_index=None for none); more go by name (vocab_size=, min_batch=,
    sampler_drop_last=True, fail_on=, ...). raise_on='error' (or 'warning')
    raises LabelError, whose message is the text report, when a finding of
    that severity or worse is found."""
    args = _check_args(num_classes, loss, ignore_index, batch_size, drop_last,
                       world_size, options) + ["-"]
    return _report(args, npy_bytes(labels), raise_on)


def check_path(path: Union[str, "os.PathLike[str]", Sequence[Any]],
               raise_on: Optional[str] = None, **options: Any) -> Report:
    """Audit files, as `labelaudit --json OPTIONS PATH...` does: path is a
    path or a list of them; options by name (num_classes=10, format='coco',
    concat=True, ...)."""
    paths = [path] if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") else list(path)
    if "num_classes" in options:
        options["num_classes"] = int(options["num_classes"])
    args = ["--json"] + _option_args(options) + ["--"] + [str(p) for p in paths]
    return _report(args, None, raise_on)


# The attributes torchvision's and other datasets keep their labels in, in
# the order they are tried; ImageFolder's samples are (path, class) pairs.
_LABEL_ATTRIBUTES = ("targets", "labels", "_labels", "y", "samples", "_samples")


def _labels_of(ds: Any) -> Any:
    if hasattr(ds, "dataset") and hasattr(ds, "indices"):           # Subset
        import numpy as np
        return _as_numpy(_labels_of(ds.dataset))[np.asarray(ds.indices, dtype=np.int64)]
    if hasattr(ds, "datasets") and isinstance(ds.datasets, Iterable):  # ConcatDataset
        import numpy as np
        return np.concatenate([_as_numpy(_labels_of(d)) for d in ds.datasets])
    for name in _LABEL_ATTRIBUTES:
        value = getattr(ds, name, None)
        if value is None:
            continue
        if name.endswith("samples"):
            return [s[1] for s in value]
        return value
    tensors = getattr(ds, "tensors", None)                          # TensorDataset
    if isinstance(tensors, tuple) and len(tensors) >= 2:
        return tensors[-1]
    raise TypeError(
        f"labelaudit.check_dataset: cannot find the labels of this {type(ds).__name__}: "
        f"it has none of the attributes {', '.join(_LABEL_ATTRIBUTES)}, tensors; the "
        "dataset is not iterated (that would load every sample): pass its labels to "
        "labelaudit.check() instead")


def check_dataset(ds: Any, **kwargs: Any) -> Report:
    """Audit a torch.utils.data.Dataset by the labels it keeps as an attribute
    (targets, labels, samples of ImageFolder, y, a TensorDataset's last
    tensor; Subset and ConcatDataset followed), without loading a sample. It
    never iterates the dataset: TypeError says so when no labels are found.
    Keyword arguments are check()'s."""
    return check(_labels_of(ds), **kwargs)
