"""The rules of Arena's games. Standard library only: no I/O, no clock, no global randomness.

Two implementations of the same sources: the modules compiled with mypyc (when
scripts/setup.sh has built them) and the Python sources, the reference; ARENA_ENGINE=pure picks
the sources. `engine.implementation` decides at import (reading the sources once, to refuse a
stale build); `compiled()` says which one runs.
"""

from engine import implementation as _implementation

IMPLEMENTATION = _implementation.select()  # "compiled" or "pure"

# After select(): it decides where engine modules load from (an import inside compiled() would be
# the engine's only import in a function body; tests/engine/test_layout.py allows none).
from engine import core as _core  # noqa: E402


def compiled() -> bool:
    """Whether this process runs the compiled engine (False: the Python sources)."""
    return _implementation.loaded_compiled(_core)
