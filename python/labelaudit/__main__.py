"""python -m labelaudit, and the labelaudit console script: the binary, run
with the installed pyarrow's libraries found (_binary.binary_env)."""
import os
import sys

from ._binary import binary_env, find_binary


def main() -> None:
    binary = find_binary()
    os.execve(binary, [binary] + sys.argv[1:], binary_env())


if __name__ == "__main__":
    main()
