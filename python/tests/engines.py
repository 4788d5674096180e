"""Helpers of the engine tests: marker files that tasks leave, and killing one process of the
cluster under test (found by what it runs, never by a broad name)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Callable


def require_engines() -> bool:
    """CI sets EVALSTREAM_REQUIRE_ENGINES=1: an engine that cannot start fails the run there
    instead of skipping its tests."""
    return os.environ.get("EVALSTREAM_REQUIRE_ENGINES") == "1"


def wait_for(cond: Callable[[], bool], what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def processes_running(*needles: str) -> list[int]:
    """Pids of this user's processes whose command line contains every needle."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if all(n in cmd for n in needles):
            out.append(int(d.name))
    return out


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
