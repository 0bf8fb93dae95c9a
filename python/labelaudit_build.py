"""labelaudit_build - the PEP 517 build backend of the labelaudit wheel.

The wheel carries the very binary `make` builds, linked as it is for a
release (static where Debian ships archives, the CUDA runtime static), so
the build is the project's own: ./configure && make, in a build folder.
scikit-build-core and meson-python drive CMake and Meson; wrapping autotools
in them would add a second build description of the same binary, so this
backend only runs the autotools build and packs what it made:

  labelaudit/...                          the Python API (python/labelaudit)
  labelaudit/bin/labelaudit               the binary (on PATH through the
                                          console script labelaudit)
  labelaudit/bin/labelaudit-arrow.so      the Parquet/Arrow module, beside it
                                          (found there: src/read/arrow_module.h)
  labelaudit-V.data/data/share/...        the man page and the completions

Parquet and Arrow: pyarrow is a build requirement (pyproject.toml), so
configure finds its libarrow and libparquet in the build's isolated
environment (PYTHON is this interpreter) and builds the module against
them. The wheel does not carry those libraries (60 MB): it requires the
same pyarrow major version at run time (their sonames, libarrow.so.2600,
carry it) and the API runs the binary with the installed pyarrow's folder
on LD_LIBRARY_PATH (labelaudit/_binary.py). HACKING.md says why.

Environment: LABELAUDIT_CONFIGURE_FLAGS (extra ./configure arguments, e.g.
"--without-cuda"), MAKEFLAGS as usual. The wheel is tagged linux_<arch>;
`auditwheel repair` makes it a manylinux wheel with its shared libraries
bundled and their rpath set.
"""
import base64
import hashlib
import io
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

NAME = "labelaudit"
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SUMMARY = "Audit ML label files before training: find the labels that would make PyTorch fail"


def _version():
    with open(os.path.join(TOP, "configure.ac"), encoding="utf-8") as f:
        m = re.search(r"AC_INIT\(\[labelaudit\],\s*\[([^\]]+)\]", f.read())
    if not m:
        raise RuntimeError("configure.ac: no AC_INIT([labelaudit], [VERSION])")
    return m.group(1)


def _pyarrow_requirement(wheel):
    """The sdist asks for any pyarrow; a wheel for the major version its
    module was linked against (pyarrow's sonames change with it)."""
    if not wheel:
        return "pyarrow"
    try:
        from importlib.metadata import version
        major = int(version("pyarrow").split(".")[0])
    except Exception:       # no pyarrow in the build: the module is not built
        return "pyarrow"
    return f"pyarrow>={major},<{major + 1}"


def _metadata(wheel=True):
    readme = open(os.path.join(TOP, "README.md"), encoding="utf-8").read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\n"
            f"Summary: {SUMMARY}\nLicense: MIT\nRequires-Python: >=3.8\n"
            "Requires-Dist: numpy>=1.17\n"
            f"Requires-Dist: {_pyarrow_requirement(wheel)}\n"
            "Description-Content-Type: text/markdown\n\n" + readme)


def _run(cmd, cwd):
    print("labelaudit_build:", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, check=True)


def _build_binary(tmp):
    """./configure && make in a build folder (in the tree when it is already
    configured there: automake refuses a second build beside an in-tree one)."""
    if not os.path.exists(os.path.join(TOP, "configure")):
        _run(["autoreconf", "-fi"], TOP)
    jobs = str(os.cpu_count() or 1)
    if os.path.exists(os.path.join(TOP, "config.status")):
        build = TOP
    else:
        build = os.path.join(tmp, "build")
        os.makedirs(build)
        flags = shlex.split(os.environ.get("LABELAUDIT_CONFIGURE_FLAGS", ""))
        # PYTHON: the interpreter of this build, whose pyarrow (a build
        # requirement) gives the Arrow libraries and headers
        _run([os.path.join(TOP, "configure"), "--quiet", "PYTHON=" + sys.executable] + flags, build)
    with open(os.path.join(build, "config.h"), encoding="utf-8") as f:
        have_arrow = "#define HAVE_ARROW 1" in f.read()
    if not have_arrow:
        raise RuntimeError("labelaudit_build: the Parquet/Arrow module was not built: "
                           "configure did not find pyarrow's Arrow libraries (see config.log)")
    _run(["make", "-j" + jobs, "labelaudit", "labelaudit-arrow.so"], build)
    return os.path.join(build, "labelaudit"), os.path.join(build, "labelaudit-arrow.so")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{arcname},sha256={digest.decode()},{len(data)}"


class _Wheel:
    """A wheel being written: its files, then RECORD."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, arcname, data, mode=0o644):
        info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        self.records.append(_record_line(arcname, data))

    def add_file(self, arcname, path, mode=0o644):
        with open(path, "rb") as f:
            self.add(arcname, f.read(), mode)

    def close(self, record_name):
        self.records.append(f"{record_name},,")
        self.zip.writestr(record_name, "\n".join(self.records) + "\n")
        self.zip.close()


def _tag():
    return "py3-none-linux_" + platform.machine()


def _dist_info(version):
    return f"{NAME}-{version}.dist-info"


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, _dist_info(_version()))
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return os.path.basename(info)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    name = f"{NAME}-{version}-{_tag()}.whl"
    with tempfile.TemporaryDirectory() as tmp:
        binary, module = _build_binary(tmp)
        wheel = _Wheel(os.path.join(wheel_directory, name))
        pkg = os.path.join(HERE, NAME)
        for f in sorted(os.listdir(pkg)):
            if f.endswith(".py") or f == "py.typed":
                wheel.add_file(f"{NAME}/{f}", os.path.join(pkg, f))
        data = f"{NAME}-{version}.data"
        wheel.add_file(f"{NAME}/bin/labelaudit", binary, 0o755)
        wheel.add_file(f"{NAME}/bin/labelaudit-arrow.so", module, 0o755)
        wheel.add_file(f"{data}/data/share/man/man1/labelaudit.1",
                       os.path.join(TOP, "man", "labelaudit.1"))
        wheel.add_file(f"{data}/data/share/bash-completion/completions/labelaudit",
                       os.path.join(TOP, "completions", "labelaudit"))
        wheel.add_file(f"{data}/data/share/zsh/site-functions/_labelaudit",
                       os.path.join(TOP, "completions", "_labelaudit"))
        info = _dist_info(version)
        wheel.add(f"{info}/METADATA", _metadata().encode())
        wheel.add(f"{info}/entry_points.txt",
                  b"[console_scripts]\nlabelaudit = labelaudit.__main__:main\n")
        wheel.add(f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: labelaudit_build\n"
                                    f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode())
        wheel.add_file(f"{info}/LICENSE", os.path.join(TOP, "COPYING"))
        wheel.close(f"{info}/RECORD")
    return name


def _sdist_files():
    """The files git tracks, or, outside a checkout, the tree less its builds."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=TOP, check=True,
                             capture_output=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(TOP):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build", "dist"))]
            files += [os.path.relpath(os.path.join(root, n), TOP) for n in names]
        return sorted(files)


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for f in _sdist_files():
            path = os.path.join(TOP, f)
            if os.path.isfile(path) and not os.path.islink(path):
                tar.add(path, arcname=f"{base}/{f}")
        pkg_info = _metadata(wheel=False).encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return name


def get_requires_for_build_wheel(config_settings=None):
    return ["pyarrow"]     # also in pyproject.toml: its libraries for the module


def get_requires_for_build_sdist(config_settings=None):
    return []
