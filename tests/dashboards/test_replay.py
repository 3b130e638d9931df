"""The replay of a stored match, without a server or a browser: what its step log says."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from arena.match.runner import run_match
from dashboards.app import create_app
from dashboards.replay import Replay
from tests.dashboards.conftest import Filled


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


def test_a_match_is_replayed_once_for_its_page_its_api_and_its_frames(filled: Filled, monkeypatch) -> None:  # noqa: ANN001
    """The replay cache: a second request for a match (its page, its JSON, a frame) replays nothing."""
    replayed: list[int] = []
    original = Replay.from_record.__func__  # type: ignore[attr-defined]

    def counting(cls, data, names=None):  # noqa: ANN001, ANN202
        replayed.append(1)
        return original(cls, data, names)

    monkeypatch.setattr(Replay, "from_record", classmethod(counting))
    match = filled.store.matches(tournament_id=filled.lcr, limit=1)[0]
    with TestClient(create_app(filled.store)) as client:
        for path in (f"/matches/{match.id}", f"/api/matches/{match.id}", f"/api/matches/{match.id}/frames/1"):
            assert client.get(path).status_code == 200, path
    assert len(replayed) == 1
