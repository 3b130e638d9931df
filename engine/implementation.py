"""Which engine runs: the modules compiled with mypyc, or the Python sources (the reference).

`scripts/build_engine.py` (run by scripts/setup.sh) compiles `SOURCES` into C extension
modules beside them (engine/**/*.so, git-ignored) and writes `STAMP`, the hash of the sources it
compiled. Python imports an extension module in preference to its .py, so a build that no longer
matches its sources would run old rules; `select()` refuses that instead of running them.

The switch, the environment variable ARENA_ENGINE:
  unset   the compiled engine when it is built, else the Python sources
  compiled  the compiled engine; an error when it is not built
  pure    the Python sources, even when the compiled engine is built
Subprocesses (Ray workers, bot sandboxes) inherit it, so one run uses one engine throughout.

C states: a game may also have its State written in Cython (`engine/<game>/c_state.pyx`), which
the build compiles after the mypyc modules when Cython and the compiler can. The compiled engine
plays that game with it (`c_state_class`); the Python sources never do. It is optional: a build
without it says so in one line and the game runs its mypyc state. The stamp covers it too.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

PACKAGE = Path(__file__).resolve().parent
STAMP = PACKAGE / "compiled-sources.sha256"
MODES = ("compiled", "pure")
# Not compiled: package __init__ files (mypyc would compile them into a module the import
# system treats as the package itself), the game table and this module (they decide what loads).
_KEPT_AS_SOURCE = {"__init__.py", "registry.py", "implementation.py"}


def sources() -> list[Path]:
    """The engine modules that are compiled, sorted: core, visibility and every game module."""
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name not in _KEPT_AS_SOURCE)


def c_sources() -> list[Path]:
    """The games' C states, sorted: `engine/<game>/c_state.pyx`."""
    return sorted(PACKAGE.rglob("*.pyx"))


def sources_hash() -> str:
    """sha256 over the names and texts of `sources()` and `c_sources()`: what a build is checked
    against."""
    digest = hashlib.sha256()
    for path in sources() + c_sources():
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def extension_of(source: Path) -> Path | None:
    """The compiled module built from `source`, when there is one."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = source.with_suffix(suffix)
        if built.exists():
            return built
    return None


def built_extensions() -> list[Path]:
    """Every extension module in the package (a module and its mypyc runtime, `*__mypyc.*.so`)."""
    return [p for p in PACKAGE.rglob("*") if p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))]


def requested_mode() -> str | None:
    """ARENA_ENGINE: "compiled", "pure", or None when unset (compiled when built)."""
    mode = os.environ.get("ARENA_ENGINE", "")
    if mode and mode not in MODES:
        raise ValueError(f"ARENA_ENGINE={mode!r} is not valid; use one of: {', '.join(MODES)} "
                         "(or leave it unset: the compiled engine when it is built)")
    return mode or None


def build_problem() -> str | None:
    """Why the compiled engine cannot run (not built, partly built, built from other sources)."""
    if not built_extensions():
        return "it is not built"
    missing = [p for p in sources() if extension_of(p) is None]
    if missing:
        return f"{missing[0].relative_to(PACKAGE.parent)} has no compiled module"
    if not STAMP.exists() or STAMP.read_text().strip() != sources_hash():
        return "the engine sources changed since it was built"
    return None


def select() -> str:
    """Choose the engine for this process ("compiled" or "pure"), before any engine module loads.

    RuntimeError when the compiled engine is built but stale or incomplete (unless ARENA_ENGINE
    is pure), and when ARENA_ENGINE=compiled but it is not built: never old rules, never a quiet
    switch to the other engine.
    """
    global SELECTED
    SELECTED = _select()
    return SELECTED


SELECTED = ""  # what select() chose


def _select() -> str:
    mode = requested_mode()
    if mode == "pure":
        sys.meta_path.insert(0, SourceOnlyFinder())
        return "pure"
    problem = build_problem()
    if problem is None:
        return "compiled"
    if mode is None and problem == "it is not built":
        return "pure"
    raise RuntimeError(
        f"engine: the compiled engine cannot be used: {problem}. Run `bash scripts/setup.sh` "
        "(or .venv/bin/python scripts/build_engine.py) to build it, or set ARENA_ENGINE=pure "
        "to run the Python sources"
    )


# The games that have a C state, and its class ("module:Class").
C_STATES = {
    "gang_of_dice": "engine.gang_of_dice.c_state:GangOfDiceCState",
    "lost_cities_rivals": "engine.lost_cities_rivals.c_state:LostCitiesRivalsCState",
    "riga": "engine.riga.c_state:RigaCState",
    "riviera": "engine.riviera.c_state:RivieraCState",
}


def c_state_class(game_id: str) -> Any:
    """The class of `game_id`'s C state when this process runs the compiled engine and the build
    made it (engine/<game>/c_state.pyx), else None: the game's own State then."""
    name = C_STATES.get(game_id)
    if name is None or SELECTED != "compiled" or extension_of(PACKAGE / game_id / "c_state.pyx") is None:
        return None
    return pkgutil.resolve_name(name)


def loaded_compiled(module: ModuleType) -> bool:
    """Whether `module` was loaded from a compiled extension module, not from its .py."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)


class SourceOnlyFinder(importlib.abc.MetaPathFinder):
    """Finds engine modules among the .py files only (ARENA_ENGINE=pure), ignoring extensions."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("engine.") or not path:
            return None
        loader = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for folder in path:
            spec = importlib.machinery.FileFinder(folder, loader).find_spec(fullname, target)
            if spec is not None:
                return spec
        return None
