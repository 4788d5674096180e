"""The README's Python example runs as written (against the installed wheel)."""

from __future__ import annotations

import re

from conftest import REPO


def test_readme_python_example() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Python\n") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    exec(compile(code.group(1), "README.md (## Python)", "exec"), {})
