"""The engine's sources name no path of one machine: its docstrings are read wherever it is installed."""

from __future__ import annotations

import re
from pathlib import Path

import engine

ABSOLUTE_PATH = re.compile(r"(?<![\w.~])/(?:work|home|root|tmp|usr|opt|srv|mnt)/\S*")


def test_no_engine_source_names_an_absolute_path() -> None:
    found = {
        str(path.relative_to(Path(engine.__file__).parent)): ABSOLUTE_PATH.findall(path.read_text())
        for path in Path(engine.__file__).parent.rglob("*.py")
    }
    assert {name: paths for name, paths in found.items() if paths} == {}
