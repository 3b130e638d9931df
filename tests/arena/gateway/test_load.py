"""A small load through bench/load.py's own code: 50 connected kit bots, 10 matches in flight, real
processes (`arena serve`, the bots' and the runners' processes) on 127.0.0.1. What is asserted is
what the arena promises, not speed: every bot connects, no decision the bots answer after 5 ms
(inside a 1 s deadline) times out, every match started is finished, no process is left behind."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("load_bench", ROOT / "bench" / "load.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def children_of(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def test_a_small_load_has_no_arena_timeout_and_loses_no_match() -> None:
    bench = load_bench()
    before = set(children_of(os.getpid()))
    result = bench.run_load(bench.Plan(bots=50, matches=10, seconds=3.0, think_ms=5.0, idle_s=0.5))
    assert result["connections"] == 50 and result["matches_planned"] >= 10
    assert result["arena_timeouts"] == 0 and result["faults"] == {}, result["faults"]
    assert result["matches_lost"] == 0 and result["problems"] == [], result["problems"]
    assert result["decisions"] > 0 and result["gateway_rss_mb"]["idle"] > 0
    left = set(children_of(os.getpid())) - before
    assert not left, [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in left]


def test_a_plan_with_fewer_than_two_bots_a_match_is_refused_in_one_line() -> None:
    bench = load_bench()
    with pytest.raises(SystemExit, match="--bots must be at least twice --matches"):
        bench.Plan(bots=10, matches=6).check()
