"""Where the labelaudit binary is: the one the wheel put on PATH."""
import os
import shutil
import sys
import sysconfig


def find_binary() -> str:
    """The labelaudit executable: $LABELAUDIT_BINARY; else the binary of a
    repaired wheel (auditwheel moves it beside the package, into
    labelaudit.scripts/, and leaves a Python shim in the scripts folder that
    execs it: calling it directly saves that interpreter's start); else the
    scripts folder of this installation (where pip put the binary of an
    unrepaired wheel); else PATH."""
    env = os.environ.get("LABELAUDIT_BINARY")
    if env:
        return env
    name = "labelaudit" + (".exe" if sys.platform == "win32" else "")
    site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    repaired = os.path.join(site, "labelaudit.scripts", name)
    if os.path.isfile(repaired) and os.access(repaired, os.X_OK):
        return repaired
    schemes = [sysconfig.get_default_scheme()] if hasattr(sysconfig, "get_default_scheme") else []
    schemes += ["posix_user", "posix_prefix"]
    for scheme in schemes:
        try:
            path = os.path.join(sysconfig.get_path("scripts", scheme), name)
        except KeyError:
            continue
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError("the labelaudit binary is not installed (pip install labelaudit, "
                            "or set LABELAUDIT_BINARY)")
