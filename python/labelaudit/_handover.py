"""How labels held in memory reach the binary.

A numeric array is not copied: its .npy header goes to the binary's standard
input and LABELAUDIT_STDIN_MEMORY=PID:ADDRESS:LENGTH names where its bytes
lie in this process; the binary reads them from here with
process_vm_readv(2) (src/stdin_memory.h) as the rest of that .npy stream.
Where the kernel refuses that (Yama's ptrace_scope, a seccomp filter), the
binary says so and the same .npy goes through a memfd instead, one copy.

What numpy cannot hold as numbers -- pandas' nullable columns with NA, ragged
lists (token lists), string labels, Arrow columns -- becomes one Arrow column
"label" in a temporary Arrow file: NA is a null, which the binary counts as
an unparsable entry at its place; a list per row is one sample of its items;
strings are a dictionary column, each name a class in order of first
appearance. pyarrow converts; no row is iterated here."""
import io
import os
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from ._binary import binary_env

MEMORY_ENV = "LABELAUDIT_STDIN_MEMORY"
_memory_refused = False      # once refused, not tried again in this process


class Handover:
    """One run's input: args (the path operand), stdin and env, made afresh
    for each run (the text report of raise_on is a second run)."""

    def __init__(self, array=None, arrow=None):
        self.array = array          # a numeric numpy array, C-contiguous
        self.arrow = arrow          # a pyarrow Table of one column "label"
        self._tmp = None
        self.path = "-"
        if arrow is not None:
            import pyarrow as pa
            self._tmp = tempfile.TemporaryDirectory(prefix="labelaudit-")
            self.path = os.path.join(self._tmp.name, "labels.arrow")
            with pa.OSFile(self.path, "wb") as sink:
                with pa.ipc.new_file(sink, arrow.schema) as writer:
                    writer.write_table(arrow)

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def header(self) -> bytes:
        import numpy as np
        buf = io.BytesIO()
        fmt = np.lib.format          # the header np.save writes (version 1.0)
        fmt.write_array_header_1_0(buf, fmt.header_data_from_array_1_0(self.array))
        return buf.getvalue()

    def run(self, run_binary, args: List[str]):
        """run_binary(args, stdin_fd, env) -> CompletedProcess, for this input."""
        if self.array is None:
            return run_binary(args + ["--", self.path], None, binary_env())
        if not _memory_refused:
            done = self._run_in_memory(run_binary, args)
            if done is not None:
                return done
        return self._run_copied(run_binary, args)

    def _run_in_memory(self, run_binary, args):
        global _memory_refused
        head = self.header()
        r, w = os.pipe()
        try:
            os.write(w, head)           # a few hundred bytes: fits the pipe
            os.close(w)
            env = binary_env()
            env[MEMORY_ENV] = f"{os.getpid()}:{self.array.ctypes.data}:{self.array.nbytes}"
            done = run_binary(args + ["-"], r, env)
        finally:
            os.close(r)
        if done.returncode == 3 and MEMORY_ENV.encode() in done.stdout + done.stderr:
            _memory_refused = True
            return None
        return done

    def _run_copied(self, run_binary, args):
        """The .npy in a memfd (a regular file the binary scans in place),
        else a temporary file."""
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("labelaudit-labels")
        else:
            fd, name = tempfile.mkstemp(prefix="labelaudit-", suffix=".npy")
            os.unlink(name)
        try:
            with os.fdopen(os.dup(fd), "wb") as f:
                f.write(self.header())
                f.write(memoryview(self.array).cast("B"))
            os.lseek(fd, 0, os.SEEK_SET)
            return run_binary(args + ["-"], fd, binary_env())
        finally:
            os.close(fd)


def _arrow_column(values: Any):
    """values (a pyarrow array, a list, a pandas Series) as a Table "label"."""
    import pyarrow as pa
    if isinstance(values, pa.ChunkedArray):
        column = values
    elif isinstance(values, pa.Array):
        column = values
    else:
        try:
            column = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise ValueError(f"labelaudit: these labels are neither numbers, strings nor "
                             f"lists of numbers: {e}") from None
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = column.dictionary_encode()
    if pa.types.is_dictionary(column.type):
        # int64 indices (pandas' categories are int8): the class indices a
        # training script makes of names, not a dtype to warn about
        column = column.cast(pa.dictionary(pa.int64(), column.type.value_type))
    return pa.table({"label": column})


def _needs_arrow(array) -> bool:
    return array.dtype.kind in "OUS" or array.dtype.names is not None


def handover(labels: Any) -> Handover:
    """A Handover for labels: a numpy array, a torch tensor, a pandas Series,
    a pyarrow array, a Hugging Face Dataset column, a list, ragged or not."""
    import numpy as np
    if hasattr(labels, "detach") and hasattr(labels, "cpu"):            # torch.Tensor
        labels = labels.detach().cpu()
        if str(labels.dtype) == "torch.bfloat16":
            labels = labels.float()
        return Handover(array=np.ascontiguousarray(labels.numpy()))
    column = _hf_column(labels)
    if column is not None:
        labels = column
    if type(labels).__module__.startswith("pyarrow"):
        return Handover(arrow=_arrow_column(labels))
    if hasattr(labels, "dtype") and hasattr(labels, "to_numpy") and hasattr(labels, "isna"):
        if _pandas_as_arrow(labels):                                    # pandas
            return Handover(arrow=_arrow_column(labels))
        labels = labels.to_numpy(dtype=getattr(labels.dtype, "numpy_dtype", None))
    elif hasattr(labels, "to_numpy") and not isinstance(labels, np.ndarray):  # polars
        labels = labels.to_numpy()
    if isinstance(labels, np.ndarray):
        if _needs_arrow(labels):
            return Handover(arrow=_arrow_column(labels.tolist() if labels.dtype.kind == "O" else labels))
        return Handover(array=np.ascontiguousarray(labels))
    try:
        array = np.asarray(labels)
    except ValueError:                                                  # ragged
        return Handover(arrow=_arrow_column(labels))
    if _needs_arrow(array):
        return Handover(arrow=_arrow_column(labels))
    return Handover(array=np.ascontiguousarray(array))


def _pandas_as_arrow(series) -> bool:
    """A nullable extension column (Int64, boolean, string) that holds an NA,
    a categorical, or objects: Arrow holds its NA and its names, numpy would
    not. A nullable numeric column without NA is its numpy array."""
    import numpy as np
    if isinstance(series.dtype, np.dtype):
        return series.dtype.kind == "O"
    return getattr(series.dtype, "numpy_dtype", None) is None or bool(series.hasnans)


def _hf_column(labels: Any):
    """A datasets Column (datasets 4: ds["label"]): its Arrow column, read
    from the table, not row by row."""
    if type(labels).__name__ != "Column" or not type(labels).__module__.startswith("datasets"):
        return None
    source = getattr(labels, "source", None)
    name = getattr(labels, "column_name", None)
    data = getattr(source, "data", None)
    if data is None or name is None:
        return None
    column = data.column(name)
    if getattr(source, "_indices", None) is not None:   # select, shuffle, filter
        column = column.take(source._indices.column(0))
    return column
