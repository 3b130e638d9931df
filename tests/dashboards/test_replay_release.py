"""A match's replay opens once every rotation of its table has been played (arena/store/release.py),
not once its tournament has finished: a ladder never finishes, and a long tournament's early tables
can be watched while it goes on. Until then it stays hidden, in every view: the rotations share one
chance seed (duplicate play), so a played rotation names the others' cards and dice to come.

Real drivers play real matches; an executor "killed" after a number of results leaves a table half
played, as a kill -9 of the driver does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.ladder.driver import Ladder, open_ladder
from arena.ladder.field import LadderConfig
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob
from arena.store import Store
from arena.store.release import replay_withheld
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from dashboards.app import create_app

# four tables of three rotations (C(4, 3)), dealt cards hidden from the other seats
CUP = TournamentConfig(game_id="riviera", players_per_match=3, entrants=("random#1", "random#2", "random#3",
                                                                          "random#4"), seed=11)


CONFIG = LadderConfig("gang_of_dice", 2, ("random", "heuristic"), gateway=None)


class Killed(Exception):
    """The driver's process dies here (as under kill -9, but the test goes on)."""


class KilledAfter(LocalExecutor):
    """The in-process executor, killed once it has handed back `results` results."""

    def __init__(self, results: int) -> None:
        super().__init__()
        self.left = results

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for outcome in super().run(jobs):
            yield outcome
            self.left -= 1
            if self.left == 0:
                raise Killed


def withheld_everywhere(client: TestClient, match_id: int) -> None:
    """No view of the match's page or API carries its replay, and the reason is the table rule."""
    for view in ("public", "0", "1"):
        data = client.get(f"/api/matches/{match_id}?view={view}").json()
        assert data["log"] == [] and data["positions"] == 0, view
        assert "once every rotation of its table has been played" in data["replay_error"]
        frame = client.get(f"/api/matches/{match_id}/frames/0?view={view}")
        assert frame.status_code == 409 and "once every rotation" in frame.json()["error"]
        page = client.get(f"/matches/{match_id}?view={view}")
        assert page.status_code == 200 and 'id="log"' not in page.text and "once every rotation" in page.text


def shown(client: TestClient, match_id: int) -> None:
    data = client.get(f"/api/matches/{match_id}?view=0").json()
    assert data["replay_error"] is None and data["log"] and data["positions"] > 1
    assert client.get(f"/api/matches/{match_id}/frames/1?view=public").status_code == 200
    assert 'id="log"' in client.get(f"/matches/{match_id}").text


@pytest.mark.parametrize("status", ["running", "interrupted"])
def test_a_tournaments_played_tables_open_while_it_runs_and_a_half_played_table_stays_hidden(
    tmp_path: Path, status: str
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    cup = start_tournament(store, CUP, "long cup")
    with pytest.raises(Killed):
        play_tournament(store, cup, KilledAfter(4))  # table 0's three rotations, and one of table 1's
    store.set_tournament_status(cup, status)
    matches = {m.match_index: m.id for m in store.matches(tournament_id=cup)}
    assert sorted(matches) == [0, 1, 2, 3]
    assert [replay_withheld(store, matches[i]) for i in range(3)] == [None] * 3
    withheld = replay_withheld(store, matches[3])
    assert withheld is not None and (withheld.table, withheld.unplayed) == (1, 2)
    with TestClient(create_app(store)) as client:
        for index in range(3):
            shown(client, matches[index])
        withheld_everywhere(client, matches[3])
        assert f"tournament {cup} still to play" in client.get(f"/api/matches/{matches[3]}").json()["replay_error"]

    with pytest.raises(Killed):
        play_tournament(store, cup, KilledAfter(2))  # the rest of table 1, resumed; killed before table 2
    assert store.tournament(cup).status == "interrupted"
    with TestClient(create_app(store)) as client:
        shown(client, matches[3])


def test_a_ladder_matchs_replay_opens_once_its_tables_rotations_are_played(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    ladder = open_ladder(store, CONFIG)
    with pytest.raises(Killed):
        Ladder(store, ladder, KilledAfter(1)).run()  # the first table planned, one rotation of two played
    [first] = store.matches(tournament_id=ladder)
    [pending] = store.pending_ladder_matches(ladder)
    assert pending.table == 0 and first.match_index == 1 - pending.index
    withheld = replay_withheld(store, first.id)
    assert withheld is not None and withheld.unplayed == 1
    with TestClient(create_app(store)) as client:
        withheld_everywhere(client, first.id)
        assert "of table 0 of the ladder still to play" in client.get(f"/api/matches/{first.id}").json()["replay_error"]

    assert open_ladder(store, CONFIG) == ladder  # taken over, as `arena ladder run` does after a kill
    Ladder(store, ladder, LocalExecutor()).run(until=lambda: store.count_matches(tournament_id=ladder) >= 4)
    assert store.tournament(ladder).status == "stopped"  # a ladder never finishes
    played = store.matches(tournament_id=ladder, limit=1000)
    assert len(played) >= 4 and not store.pending_ladder_matches(ladder)
    assert all(replay_withheld(store, match.id) is None for match in played)
    with TestClient(create_app(store)) as client:
        for match in played[-2:] + [first]:
            shown(client, match.id)


def test_a_dropped_ladder_rotation_holds_nothing_back(tmp_path: Path) -> None:
    """A planned rotation the ladder dropped (a bot left before it) is never played: it does not
    keep its table's played rotation hidden for ever."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    ladder = open_ladder(store, CONFIG)
    with pytest.raises(Killed):
        Ladder(store, ladder, KilledAfter(1)).run()
    [first] = store.matches(tournament_id=ladder)
    [pending] = store.pending_ladder_matches(ladder)
    assert replay_withheld(store, first.id) is not None
    store.drop_ladder_matches(ladder, [pending.index])
    assert replay_withheld(store, first.id) is None
