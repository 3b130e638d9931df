"""What the contract promises to keep (engine/core.py, docs/protocol.md "What is stable"): action
ids, chance outcomes and observation fields, within a ruleset; labels are text for people whose
wording may change. A record holds ids and outcomes only, so its replay never reads a label: the
golden games (recorded before every label was reworded) replay here with every label method broken."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

REPLAY_WITHOUT_LABELS = """
from engine import registry
from engine.core import Game, State
from tests.engine.golden.make_golden import OPTIONS
from tests.engine.test_golden_replay import test_golden_games_replay_to_the_same_positions as replay

def no_label(*args, **kwargs):
    raise AssertionError("a replay read a label")

for game_id in sorted(OPTIONS):
    game = registry.make(game_id, registry.info(game_id).min_players)
    state = game.initial_state()
    for cls in {Game, State, type(game), type(state)}:
        for name in ("action_label", "chance_label", "_chance_label", "hidden_chance_label",
                     "_hidden_chance_label", "hidden_action_label", "_hidden_action_label"):
            if name in vars(cls):
                setattr(cls, name, no_label)
    for state_class in State.__subclasses__():
        for name in ("_chance_label", "_hidden_chance_label", "_hidden_action_label"):
            if name in vars(state_class):
                setattr(state_class, name, no_label)
    replay(game_id)
    print("replayed", game_id)
"""


def test_recorded_games_replay_to_the_same_positions_without_reading_a_label() -> None:
    # the Python engine: its classes can be patched (the compiled ones cannot)
    done = subprocess.run([sys.executable, "-c", REPLAY_WITHOUT_LABELS], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "ARENA_ENGINE": "pure"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["replayed", "gang_of_dice", "replayed", "lost_cities_rivals",
                                   "replayed", "riga", "replayed", "riviera"]


def test_the_contract_and_the_protocol_say_ids_are_stable_and_labels_are_text_for_people() -> None:
    source = (ROOT / "engine" / "core.py").read_text()  # the compiled module keeps no docstrings
    contract = " ".join(source.split())
    assert "an action id always means the same move and a chance outcome the same result" in contract
    assert "Labels (`action_label`, `chance_label`," in contract and "are text for people" in contract
    assert "stable across versions" not in source, "no label is promised to be stable"
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    assert "## What is stable: ids, outcomes and observation fields — not labels" in protocol
    assert "**Labels are text for people**" in protocol
