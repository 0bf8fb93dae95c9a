"""labelaudit: audit the labels before training, from Python.

The binary is the only implementation: these functions hand it the labels
(an array without copying it, _handover.py) or paths, run it with --json, and
return its report as Python objects. Options are the command's own, spelled
with underscores: ``check(y, num_classes=10, batch_size=32)`` runs
``labelaudit --json -n 10 --batch-size=32 -``.

    import labelaudit
    labelaudit.check(train_ds.targets, num_classes=10, batch_size=32,
                     raise_on="error")          # before trainer.fit()
"""
import difflib
import json
import operator
import os
import re
import subprocess
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ._binary import binary_env, find_binary
from ._handover import handover

__all__ = ["check", "check_path", "check_dataset", "Report", "LabelError", "find_binary"]

# Exit statuses of the binary (man labelaudit, EXIT STATUS).
_FINDINGS, _USAGE, _UNREADABLE = 1, 2, 3
_SEVERITY_RANK = {"warning": 0, "error": 1}


class LabelError(Exception):
    """Raised by check(..., raise_on=...): the message is the text report,
    .report the Report (its findings, exit_status, ...)."""

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


_OPTION_NAMES: Optional[List[str]] = None
# Options the API sets itself, or that would change what the binary prints
# where the API parses JSON: not accepted by name.
_RESERVED = {"json", "help", "version", "quiet", "junit", "annotations", "color"}


def _option_names() -> List[str]:
    """The command's long options, spelled as keywords (from its --help, once)."""
    global _OPTION_NAMES
    if _OPTION_NAMES is None:
        text = subprocess.run([find_binary(), "--help"], capture_output=True,
                              env=binary_env()).stdout.decode(errors="replace")
        names = {m.replace("-", "_") for m in re.findall(r"--([a-z][a-z0-9-]+)", text)}
        _OPTION_NAMES = sorted(names - _RESERVED)
    return _OPTION_NAMES


def _check_keywords(func: str, options: Dict[str, Any], own: Sequence[str]) -> None:
    """TypeError for a keyword that is neither func's nor the command's
    option, naming it and its closest spelling."""
    known = _option_names()
    for key in options:
        if key in known:
            continue
        close = difflib.get_close_matches(key, list(own) + known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(f"{func}() got an unexpected keyword argument {key!r}{hint}")


def _integer(name: str, value: Any) -> int:
    """value as an int; ValueError when it is not one (2.9, -100.5, "10", True)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, not {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        pass
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValueError(f"{name} must be an integer, not {value!r}")


_CHECK_PARAMS = ("labels", "num_classes", "loss", "ignore_index", "batch_size",
                 "drop_last", "world_size", "raise_on")


def _check_args(num_classes, loss, ignore_index, batch_size, drop_last, world_size,
                options) -> List[str]:
    args = ["--json", f"--loss={loss}"]
    if num_classes is not None:
        args.append(f"--num-classes={_integer('num_classes', num_classes)}")
    if ignore_index is None:
        args.append("--ignore-index=none")
    else:
        ignore_index = _integer("ignore_index", ignore_index)
        if ignore_index != -100:
            args.append(f"--ignore-index={ignore_index}")
    if batch_size is not None:
        args.append(f"--batch-size={_integer('batch_size', batch_size)}")
    if drop_last:
        args.append("--drop-last")
    world_size = _integer("world_size", world_size)
    if world_size != 1:
        args.append(f"--world-size={world_size}")
    return args + _option_args(options)


def _run(args: List[str], stdin: Any = None, env: Optional[Dict[str, str]] = None,
         input_bytes: Optional[bytes] = None) -> "subprocess.CompletedProcess[bytes]":
    return subprocess.run([find_binary()] + args, stdin=stdin, input=input_bytes,
                          capture_output=True, env=env if env is not None else binary_env())


def _run_fd(args: List[str], stdin_fd: Optional[int], env: Dict[str, str]):
    return subprocess.run([find_binary()] + args, stdin=stdin_fd if stdin_fd is not None
                          else subprocess.DEVNULL, capture_output=True, env=env)


def _report(args: List[str], raise_on: Optional[str], how=None) -> Report:
    """Run the binary with args (and how: a Handover for labels in memory)."""
    if raise_on is not None and raise_on not in _SEVERITY_RANK:
        raise ValueError(f"raise_on must be 'error', 'warning' or None, not {raise_on!r}")
    run = how.run(_run_fd, args) if how else _run(args)
    if run.returncode == _USAGE or not run.stdout:
        raise ValueError("labelaudit: " + run.stderr.decode(errors="replace").strip())
    report = Report(json.loads(run.stdout), run.returncode, args)
    if report.exit_status == _UNREADABLE:
        messages = [f"{f.get('path')}: {f['error']}" for f in report.files if f.get("error")]
        raise ValueError("labelaudit: " + "; ".join(messages))
    if raise_on is not None and _fails(report, raise_on):
        text_args = [a for a in args if a != "--json"]
        text = (how.run(_run_fd, text_args) if how else _run(text_args)).stdout
        raise LabelError(text.decode(errors="replace"), report)
    return report


def _fails(report: Report, raise_on: str) -> bool:
    least = _SEVERITY_RANK[raise_on]
    return any(_SEVERITY_RANK.get(f.get("severity"), 0) >= least for f in report.findings)


def npy_bytes(labels: Any) -> bytes:
    """The labels as the bytes of the .npy file check() hands the binary
    (for comparing with the command; check() itself does not copy them)."""
    how = handover(labels)
    if how.array is None:
        raise ValueError("labelaudit: these labels go to the binary as an Arrow file, not a .npy")
    return how.header() + how.array.tobytes()


def check(labels: Any, num_classes: Optional[int] = None, loss: str = "ce",
          ignore_index: Optional[int] = -100, batch_size: Optional[int] = None,
          drop_last: bool = False, world_size: int = 1,
          raise_on: Optional[str] = None, **options: Any) -> Report:
    """Audit labels held in memory. labels: a numpy array, a torch tensor, a
    list (ragged: each row one sample), a pandas Series (nullable Int64: NA
    is an unparsable entry), a pyarrow array or a Hugging Face Dataset
    column. A numeric array is not copied (_handover.py). The other
    arguments are the command's options (loss: 'ce', 'nll' or 'bce';
    ignore_index=None for none); more go by name (vocab_size=, min_batch=,
    sampler_drop_last=True, fail_on=, ...): a name that is not one raises
    TypeError. raise_on='error' (or 'warning') raises LabelError, whose
    message is the text report and whose .report is the Report, when a
    finding of that severity or worse is found."""
    _check_keywords("check", options, _CHECK_PARAMS)
    args = _check_args(num_classes, loss, ignore_index, batch_size, drop_last,
                       world_size, options)
    how = handover(labels)
    try:
        return _report(args, raise_on, how)
    finally:
        how.close()


def check_path(path: Union[str, "os.PathLike[str]", Sequence[Any]],
               raise_on: Optional[str] = None, **options: Any) -> Report:
    """Audit files, as `labelaudit --json OPTIONS PATH...` does: path is a
    path or a list of them; options by name (num_classes=10, format='coco',
    concat=True, ...)."""
    _check_keywords("check_path", options, ("path", "raise_on"))
    paths = [path] if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") else list(path)
    for name in ("num_classes", "ignore_index", "batch_size", "world_size"):
        if options.get(name) is not None and not (name == "ignore_index" and options[name] == "none"):
            options[name] = _integer(name, options[name])
    args = ["--json"] + _option_args(options) + ["--"] + [os.fspath(p) for p in paths]
    return _report(args, raise_on)


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


def _as_numpy(labels: Any):
    """Numeric labels as a numpy array (for Subset's and ConcatDataset's indexing)."""
    import numpy as np
    how = handover(labels)
    try:
        return how.array if how.array is not None else np.asarray(how.arrow.column(0).to_pylist())
    finally:
        how.close()


def _is_hf_dataset(ds: Any) -> bool:
    return (type(ds).__module__.startswith("datasets")
            and hasattr(ds, "cache_files") and hasattr(ds, "features"))


def _is_hf_dataset_dict(ds: Any) -> bool:
    return (type(ds).__module__.startswith("datasets") and isinstance(ds, dict)
            and bool(ds) and all(_is_hf_dataset(v) for v in ds.values()))


def _hf_label_column(ds: Any, column: Optional[str]) -> Optional[str]:
    """column, else the first ClassLabel feature (also in a Sequence or a
    list), else None: the binary's own choice (label, labels, ..., input_ids)."""
    if column is not None:
        if column not in ds.features:
            close = difflib.get_close_matches(column, list(ds.features), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"labelaudit: the dataset has no column {column!r}{hint}; "
                             f"its columns: {', '.join(ds.features)}")
        return column
    for name, feature in ds.features.items():
        inner = feature
        while hasattr(inner, "feature"):                  # Sequence, List, LargeList
            inner = inner.feature
        if type(inner).__name__ == "ClassLabel":
            return name
    return None


def _files_as_they_are(ds: Any) -> List[str]:
    """The Arrow files behind ds when they hold its rows, in order, with its
    columns as they are: a memory-mapped table, or tables of them stacked
    row-wise (save_to_disk's shards), none changed since it was read (a
    rename or a cast is replayed on the file in memory: its file holds the
    old column; load_from_disk's own replay of the features' metadata is no
    change) and no indices mapping. Else []."""
    if getattr(ds, "_indices", None) is not None:
        return []
    data = ds.data
    tables = [data]
    if type(data).__name__ == "ConcatenationTable":
        blocks = getattr(data, "blocks", [])
        if any(len(row) != 1 for row in blocks):      # columns side by side
            return []
        tables = [row[0] for row in blocks]
    files = []
    for t in tables:
        changes = {op[0] for op in getattr(t, "replays", None) or []}
        if type(t).__name__ != "MemoryMappedTable" or changes - {"replace_schema_metadata"}:
            return []
        files.append(t.path)
    return files


def _hf_files(ds: Any, column: Optional[str], tmp: str) -> List[str]:
    """The Arrow files behind ds, as they are when they hold its rows in
    order (no indices mapping from select/shuffle/filter); else its label
    column written once to one Arrow file in tmp, with the features'
    metadata (ClassLabel's names)."""
    files = _files_as_they_are(ds)
    if files:
        return files
    import pyarrow as pa
    table = ds.data.table if hasattr(ds.data, "table") else ds.data
    if column is not None:
        table = table.select([column])
    if getattr(ds, "_indices", None) is not None:         # the rows ds shows, by Arrow's take
        table = table.take(ds._indices.column(0))
    table = table.replace_schema_metadata(ds.features.arrow_schema.metadata)
    path = os.path.join(tmp, "dataset.arrow")
    with pa.OSFile(path, "wb") as sink:
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    return [path]


def _check_hf(ds: Any, column: Optional[str], raise_on: Optional[str], kwargs) -> Report:
    import tempfile
    label = _hf_label_column(ds, column)
    with tempfile.TemporaryDirectory(prefix="labelaudit-") as tmp:
        files = _hf_files(ds, label, tmp)
        args = _check_args(kwargs.pop("num_classes", None), kwargs.pop("loss", "ce"),
                           kwargs.pop("ignore_index", -100), kwargs.pop("batch_size", None),
                           kwargs.pop("drop_last", False), kwargs.pop("world_size", 1), kwargs)
        if label is not None:
            args.append(f"--column={label}")
        if len(files) > 1:
            args.append("--concat")
        return _report(args + ["--"] + files, raise_on)


def check_dataset(ds: Any, **kwargs: Any) -> Union[Report, Dict[str, Report]]:
    """Audit a dataset by the labels it keeps, without loading a sample:

    - a Hugging Face datasets.Dataset: the Arrow files behind it
      (ds.cache_files) are read by the binary, the label column (column=, else
      its ClassLabel feature, which also gives N and the class names, else
      label, labels, ...) and no other; an in-memory or re-indexed dataset's
      label column is written once to a temporary Arrow file. A DatasetDict
      gives {split: Report}, each split its own report.
    - a torch.utils.data.Dataset: the labels it keeps as an attribute
      (targets, labels, samples of ImageFolder, y, a TensorDataset's last
      tensor; Subset and ConcatDataset followed).

    It never iterates the dataset: TypeError says so when no labels are
    found. Keyword arguments are check()'s."""
    _check_keywords("check_dataset", {k: v for k, v in kwargs.items() if k != "column"},
                    _CHECK_PARAMS + ("column",))
    if _is_hf_dataset_dict(ds):
        return {split: check_dataset(d, **dict(kwargs)) for split, d in ds.items()}
    if _is_hf_dataset(ds):
        kwargs = dict(kwargs)
        return _check_hf(ds, kwargs.pop("column", None), kwargs.pop("raise_on", None), kwargs)
    if "column" in kwargs:
        raise TypeError("check_dataset(): column= is for a Hugging Face dataset")
    return check(_labels_of(ds), **kwargs)
