"""The replay of a stored match, without a server or a browser: what its step log says."""

from __future__ import annotations

import pytest

from arena.match.runner import run_match
from dashboards.replay import Replay


@pytest.mark.parametrize("game_id", ["gang_of_dice", "lost_cities_rivals"])
def test_chance_steps_carry_the_engines_label(game_id: str) -> None:
    record = run_match(game_id, ["random", "random"], seed=1)
    replay = Replay.from_record(record.to_json())
    chances = [entry for entry in replay.log() if entry["kind"] == "chance"]
    assert chances
    for entry in chances:
        before = replay.states[entry["step"] - 1]
        assert entry["label"] == before.chance_label(entry["outcome"]) != f"outcome {entry['outcome']}"


def test_a_warning_card_and_a_die_read_as_words() -> None:
    replay = Replay.from_record(run_match("gang_of_dice", ["random", "random"], seed=1).to_json())
    labels = [entry["label"] for entry in replay.log() if entry["kind"] == "chance"]
    assert labels[0].startswith("warning card W") and labels[1].startswith("a die shows ")
