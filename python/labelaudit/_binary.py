"""Where the labelaudit binary is, and the environment it runs in."""
import importlib.util
import os
import shutil
import sys
from typing import Dict, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
_NAME = "labelaudit" + (".exe" if sys.platform == "win32" else "")


def find_binary() -> str:
    """The labelaudit executable: $LABELAUDIT_BINARY; else the wheel's, in
    labelaudit/bin/ beside this file (its Parquet/Arrow module lies beside
    it); else PATH (a labelaudit installed by make install)."""
    env = os.environ.get("LABELAUDIT_BINARY")
    if env:
        return env
    packaged = os.path.join(_HERE, "bin", _NAME)
    if os.path.isfile(packaged) and os.access(packaged, os.X_OK):
        return packaged
    found = shutil.which(_NAME)
    if found and os.path.realpath(found) != os.path.realpath(sys.argv[0] or ""):
        return found
    raise FileNotFoundError("the labelaudit binary is not installed (pip install labelaudit, "
                            "or set LABELAUDIT_BINARY)")


def pyarrow_dir() -> Optional[str]:
    """The installed pyarrow's folder, where its libarrow and libparquet lie
    (what pyarrow.get_library_dirs() gives first for a pip-installed
    pyarrow), found without importing it: the import costs a tenth of a
    second and needs a NumPy pyarrow agrees with, which the binary does not."""
    try:
        spec = importlib.util.find_spec("pyarrow")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


_ENV: Optional[Dict[str, str]] = None


def binary_env() -> Dict[str, str]:
    """os.environ, plus the installed pyarrow's folder on LD_LIBRARY_PATH:
    the wheel's labelaudit-arrow.so links pyarrow's libraries (the wheel does
    not carry them) and the loader looks for them there."""
    global _ENV
    if _ENV is None:
        env = dict(os.environ)
        env.pop("LABELAUDIT_STDIN_MEMORY", None)    # set per run, by _handover only
        found = pyarrow_dir()
        if found:
            old = env.get("LD_LIBRARY_PATH")
            env["LD_LIBRARY_PATH"] = found + (os.pathsep + old if old else "")
        _ENV = env
    return dict(_ENV)
