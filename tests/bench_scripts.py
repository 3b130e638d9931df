"""Loading a script of bench/ (not a package) as a module, for the tests of the benchmarks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench_script(name: str) -> ModuleType:
    """bench/`name`.py as the module `name`, registered in sys.modules (dataclasses look their
    module up there, and the scripts import each other by name)."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None, name
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
