"""``python -m evalstream ARGS`` (and the ``evalstream`` console script) run the shipped executable."""

from __future__ import annotations

import os
import subprocess
import sys

from ._core import binary_path


def main() -> None:
    """Run the evalstream executable with this process's arguments; exit with its status."""
    exe = binary_path()
    if sys.platform == "win32":
        sys.exit(subprocess.call([exe, *sys.argv[1:]]))
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
