"""The time this process stood still in the garbage collector: the arena's pause, not a bot's.

A decision is charged the wall time from its request to its answer (arena/match/clock.py). A full
collection of a large heap stops the whole process for tens of milliseconds (one took 42 ms inside
a decision: BENCHMARKS.md, "One decision at the runner", third pass); a bot that answered in that
time waited on us, and its bank, or a strike, paid for it. `install()` adds a `gc.callbacks` hook
once per process that sums the collections' pauses; a decision notes the sum when it starts and
when it ends (`paused_s()`) and is charged its wall time less the difference (`charged_ms`).

A collection runs holding the interpreter's lock, so no decision starts or ends inside one: each
pause counts whole for the decisions it fell inside, and not at all for the others.
"""

from __future__ import annotations

import gc
from time import perf_counter
from typing import Any

_paused = 0.0  # seconds, every collection's pause since install()
_since = 0.0  # perf_counter() when the collection now running started


def _track(phase: str, info: dict[str, Any]) -> None:
    global _paused, _since
    if phase == "start":
        _since = perf_counter()
    else:
        _paused += perf_counter() - _since


def install() -> None:
    """Start summing the collector's pauses in this process (once; later calls do nothing)."""
    if _track not in gc.callbacks:
        gc.callbacks.insert(0, _track)  # first: its stamps bracket whatever the other callbacks take


def paused_s() -> float:
    """The collector's pauses so far, in seconds (0 until `install()`)."""
    return _paused


def charged_ms(started: float, ended: float, paused_at_start: float, paused_at_end: float) -> float:
    """A decision's time: the wall time from `started` to `ended` (perf_counter) less the
    collector's pauses between (`paused_s()` at each), in ms to the µs."""
    return round(((ended - started) - (paused_at_end - paused_at_start)) * 1000, 3)
