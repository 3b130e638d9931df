"""The compiled engine against the Python sources, the reference, position by position (issue 36).

This process plays seeded random games with the engine it loaded (compiled, when built); a
subprocess with ARENA_ENGINE=pure plays the same seeds with the Python sources. Every position is
compared by its digest (tests/engine/differential.py): node kind, every seat's observation, the
legal actions in order, the chance outcomes and odds, the sampled steps, returns and ranks. On a
difference the test names the playout and the first position that differs.

Default run: 500 seat decisions per game (some thousands of positions); `-m slow`: at least
100,000 seat decisions per game.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import registry
from tests.engine.differential import playouts, positions

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DECISIONS = 500  # 1,500 to 4,000 positions per game: minutes under load with the pure side
SLOW_DECISIONS = 100_000

needs_compiled = pytest.mark.skipif(not engine.compiled(),
                                    reason="the compiled engine is not loaded: nothing to compare")


def start_pure_engine(*args: Any) -> subprocess.Popen[str]:
    """A subprocess running the Python sources: tests.engine.differential with `args`."""
    env = {**os.environ, "ARENA_ENGINE": "pure"}
    return subprocess.Popen([sys.executable, "-m", "tests.engine.differential", *map(str, args)], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def reply_of(pure: subprocess.Popen[str]) -> Any:
    """The subprocess's JSON reply."""
    out, errors = pure.communicate(timeout=3600)
    assert pure.returncode == 0, errors
    return json.loads(out)


def pure_engine(*args: Any) -> Any:
    """tests.engine.differential's JSON reply from a subprocess running the Python sources."""
    return reply_of(start_pure_engine(*args))


def assert_same_playouts(game_id: str, decisions: int) -> None:
    pure = start_pure_engine(game_id, decisions)  # the reference plays on the other core meanwhile
    compiled = [asdict(p) for p in playouts(game_id, decisions)]
    reference = reply_of(pure)
    assert sum(p["decisions"] for p in compiled) >= decisions
    for mine, theirs in zip(compiled, reference):
        if mine != theirs:
            seed = mine["seed"]
            steps = list(zip(positions(game_id, seed), pure_engine(game_id, 0, seed)))
            first = next((n for n, (a, b) in enumerate(steps) if a != b), len(steps))
            pytest.fail(f"{game_id} playout {seed} ({mine['players']} players, options "
                        f"{mine['options']}): the compiled engine differs from the Python sources "
                        f"first at position {first} (0 = the initial state)")
    assert len(compiled) == len(reference)


@needs_compiled
@pytest.mark.parametrize("game_id", registry.game_ids())
def test_compiled_engine_plays_as_the_python_sources(game_id: str) -> None:
    assert_same_playouts(game_id, DEFAULT_DECISIONS)


@pytest.mark.slow
@needs_compiled
@pytest.mark.parametrize("game_id", registry.game_ids())
def test_compiled_engine_plays_as_the_python_sources_at_length(game_id: str) -> None:
    assert_same_playouts(game_id, SLOW_DECISIONS)


def test_a_playout_changes_its_digest_when_a_position_shows_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a different observation at one position changes the chain."""
    from tests.engine import differential

    game_id = registry.game_ids()[0]
    before = differential.chained(game_id, 0)
    real = differential.position_digest
    calls = iter(range(1_000_000))
    monkeypatch.setattr(differential, "position_digest",
                        lambda state: real(state) + ("!" if next(calls) == 5 else ""))
    assert differential.chained(game_id, 0) != before
