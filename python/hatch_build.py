"""Hatchling build hook: put the static evalstream executable into the wheel.

The wheel carries a native executable and no Python extension, so it is tagged
``py3-none-<platform>`` (as ruff's and uv's wheels are): any Python 3 on that platform can
install it, and no Go toolchain is needed to install it.

The executable is ``$EVALSTREAM_BINARY`` when set (a prebuilt or cross-compiled binary,
then ``$EVALSTREAM_WHEEL_PLATFORM`` names its platform tag), else it is built from the
repository this directory sits in with ``CGO_ENABLED=0 go build -trimpath``.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _platform_tag() -> str:
    if tag := os.environ.get("EVALSTREAM_WHEEL_PLATFORM"):
        return tag
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    if sys.platform.startswith("linux"):
        # A static executable links no libc: any glibc or musl Linux of the architecture runs it.
        arch = platform.machine()
        return f"manylinux_2_17_{arch}.manylinux2014_{arch}.musllinux_1_1_{arch}"
    return plat


class CustomBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        exe = "evalstream.exe" if sys.platform == "win32" else "evalstream"
        out = root / "build" / "bin" / exe
        out.parent.mkdir(parents=True, exist_ok=True)
        prebuilt = os.environ.get("EVALSTREAM_BINARY")
        if prebuilt:
            shutil.copyfile(prebuilt, out)
        else:
            repo = root.parent
            env = dict(os.environ, CGO_ENABLED="0")
            subprocess.run(
                [
                    "go", "build", "-trimpath",
                    # The binary's release (in every metric signature) is the package's.
                    "-ldflags=-s -w -X github.com/evalstream/evalstream/internal/buildinfo.Version="
                    + self.metadata.version,
                    "-o", str(out), "./cmd/evalstream",
                ],
                cwd=repo,
                env=env,
                check=True,
            )
        out.chmod(0o755)
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{_platform_tag()}"
        build_data["force_include"][str(out)] = f"evalstream/bin/{exe}"
