"""Live matches through the API: the sibling rule, the public view only, and the result at the end.

The live rows are written through the real store as the driver writes them (the driver's side
is tests/arena/match/test_live.py); the steps are those of real matches of the same table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.match.executor import JobOutcome, MatchJob
from arena.match.record import MatchRecord
from arena.match.runner import run_match
from arena.store import LiveMatch, Store
from arena.tournament.driver import match_result, start_tournament
from arena.tournament.schedule import TournamentConfig, schedule
from dashboards.app import create_app
from dashboards.live import visible_steps
from dashboards.replay import Replay, public_view

CONFIG = TournamentConfig(game_id="riviera", players_per_match=3, entrants=("random#1", "random#2", "random#3"), seed=8)


def test_the_sibling_rule_cuts_before_the_first_chance_step_a_sibling_has_not_drawn() -> None:
    chance, move = {"chance": 0}, {"chance": None}
    steps = [chance, move, chance, move, move, chance, move]
    assert visible_steps(steps, []) == 7  # no unfinished sibling: everything
    assert visible_steps(steps, [3, 5]) == 7  # the siblings drew as much: everything
    assert visible_steps(steps, [2, 5]) == 5  # the slowest drew 2: up to the third chance step
    assert visible_steps(steps, [1]) == 2
    assert visible_steps(steps, [0, 9]) == 0  # a sibling not started yet: not even the deal


class Table:
    """A tournament of one table (3 rotations sharing a chance seed), its matches played for real."""

    def __init__(self, tmp_path: Path) -> None:
        self.store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
        self.id = start_tournament(self.store, CONFIG, "live cup")
        self.info = self.store.tournament(self.id)
        self.planned = schedule(CONFIG)
        self.records = [run_match("riviera", [e.split("#")[0] for e in m.seats], m.seed, chance_seed=m.chance_seed)
                        for m in self.planned]

    def live(self, index: int, steps: int) -> LiveMatch:
        m = self.planned[index]
        json_steps = self.records[index].to_json()["steps"][:steps]
        return LiveMatch(self.id, index, m.table, m.rotation, m.chance_seed, list(m.seats), json_steps)

    def chance_at(self, index: int, steps: int) -> int:
        return sum(s.chance is not None for s in self.records[index].steps[:steps])

    def store_result(self, index: int) -> None:
        m = self.planned[index]
        job = MatchJob.for_game("riviera", key=(self.id, index), bots=m.seats, seed=m.seed, chance_seed=m.chance_seed)
        self.store.record_match(match_result(self.info, m, JobOutcome(job, self.records[index].to_json())))


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


@pytest.fixture
def client(table: Table) -> Iterator[TestClient]:
    with TestClient(create_app(table.store)) as test_client:
        yield test_client


def test_a_live_match_is_shown_only_as_far_as_its_running_siblings_drew(table: Table, client: TestClient) -> None:
    table.store.put_live([table.live(0, 200), table.live(1, 60), table.live(2, 120)])
    slowest = table.chance_at(1, 60)
    data = client.get(f"/api/tournaments/{table.id}/live/0").json()
    shown = data["steps_shown"]
    assert table.chance_at(0, shown) == slowest < table.chance_at(0, shown + 1)  # cut right before the next draw
    assert data["held_back"] and data["frame"]["position"] == shown and len(data["log"]) == shown
    listed = {m["index"]: m for m in client.get(f"/api/tournaments/{table.id}/live").json()["matches"]}
    assert listed[0]["steps_shown"] == shown and listed[0]["url"] == f"/tournaments/{table.id}/live/0"
    table.store_result(1)  # a finished sibling no longer holds the others back
    assert table.store.live_match(table.id, 1) is None  # storing the result removed its live row
    data = client.get(f"/api/tournaments/{table.id}/live/0").json()
    assert table.chance_at(0, data["steps_shown"]) == table.chance_at(2, 120)


def test_a_sibling_not_started_yet_holds_a_live_match_at_the_start(table: Table, client: TestClient) -> None:
    table.store.put_live([table.live(0, 200), table.live(1, 200)])  # rotation 2 has not started
    data = client.get(f"/api/tournaments/{table.id}/live/0").json()
    assert table.chance_at(0, data["steps_shown"]) == 0 and data["held_back"]


def test_the_live_api_never_shows_a_seat_view_or_a_hidden_card(table: Table, client: TestClient) -> None:
    for steps in (20, 80, 150):
        table.store.put_live([table.live(0, steps)])
        for index in (1, 2):
            table.store_result(index) if table.store.match_id_at(table.id, index) is None else None
        data = client.get(f"/api/tournaments/{table.id}/live/0").json()
        assert data["steps_shown"] == steps  # its siblings finished: nothing is held back
        state = Replay.from_record(table.records[0].to_json()).states[steps]
        assert data["frame"]["view"] == "public" and data["frame"]["state"] == public_view(state)
        text = json.dumps(data)
        for seat in range(3):
            hand = state.observation(seat)["hand"]
            if hand:
                assert json.dumps(hand) not in text  # no seat's hand (the observation's hidden part)
        hidden = [e for e in data["log"] if e.get("hidden")]
        assert hidden and all(e["outcome"] is None for e in hidden)  # the deals to seats stay hidden
        assert "seed" not in text
    refused = client.get(f"/api/tournaments/{table.id}/live/0?view=1")
    assert refused.status_code == 400 and "public view only" in refused.json()["error"]


def test_a_finished_live_match_gives_its_result_and_withholds_its_replay(table: Table, client: TestClient) -> None:
    table.store.put_live([table.live(0, 50)])
    table.store_result(0)
    data = client.get(f"/api/tournaments/{table.id}/live/0").json()
    assert data["status"] == "finished" and data["tournament_status"] == "running"
    assert [s["score"] for s in data["match"]["seats"]] == table.records[0].returns
    assert data["replay_open"] is False, "its table's two other rotations are still to play"
    replay = client.get(f"/api/matches/{data['match']['id']}/frames/0")
    assert replay.status_code == 409 and "once every rotation of its table" in replay.json()["error"]
    table.store_result(1)
    table.store_result(2)
    assert client.get(f"/api/tournaments/{table.id}/live/0").json()["replay_open"] is True
    assert client.get(f"/api/matches/{data['match']['id']}/frames/0").status_code == 200


def test_bad_live_addresses_say_what_is_valid(table: Table, client: TestClient) -> None:
    assert "matches 0 to 2" in client.get(f"/api/tournaments/{table.id}/live/7").json()["error"]
    waiting = client.get(f"/api/tournaments/{table.id}/live/1").json()  # not started yet: the page waits
    assert waiting["status"] == "waiting" and "not being played now" in waiting["message"]
    assert client.get(f"/api/tournaments/{table.id}/live/x").status_code == 400
    assert client.get("/api/tournaments/99/live/0").status_code == 404
    assert client.get(f"/tournaments/{table.id}/live/9").status_code == 404
