"""The local live update (arena/rating_fit/local.py, taken by arena.rating.LiveRate): each bot that
played moved alone over the new results only. It is taken while the results since the last fit
are a small share of every such bot's games, agrees with a full refit within 0.5 Elo (intervals
included) there, and gives way to a fit for a bot it cannot place (a newcomer) or once the new
results add up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena import rating
from arena.rating_fit import local_enough, local_update
from arena.store import RatedMatch, Store
from arena.tournament.driver import rated_match
from tests.arena.test_rating_reference import assert_agree, field, stored_result


def stored(store: Store, tournament: int, matches: list[RatedMatch], first: int) -> list[RatedMatch]:
    """Store these matches (as results of `tournament`, from match index `first` on) and return them
    as the rating reads them back."""
    results = [stored_result(first + i, m.entrants, m.ranks, tournament) for i, m in enumerate(matches)]
    assert store.record_matches(results) == len(results)
    return [rated_match(r) for r in results]


@pytest.fixture(scope="module")
def big_field() -> list[RatedMatch]:
    return field(3, 24, 4400, sizes=(2, 4), faults=0.0)


def test_local_updates_are_taken_on_a_big_field_and_agree_with_a_full_refit(
        tmp_path: Path, big_field: list[RatedMatch]) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tournament = store.create_tournament("toy", "toy@1", "round_robin", {}, len(big_field))
    written = stored(store, tournament, big_field[:4000], 0)
    live = rating.LiveRate(store, "toy@1")
    live.rerate()
    for batch in range(3):
        start = 4000 + 20 * batch
        before = {row.entrant: row for row in store.leaderboard("toy@1")}
        new = stored(store, tournament, big_field[start:start + 20], start)
        written += new
        live.add(new)
        live.rerate()
        assert live.local == batch + 1, "20 matches among 24 bots with ~300 games each: a local update"
        played = {name for match in new for name in match.entrants}
        after = {row.entrant: row for row in store.leaderboard("toy@1")}
        assert {name for name in after if after[name] != before[name]} <= played, "only who played moved"
        assert_agree(live.entries(), rating.rate_matches(written))
    assert_agree([e for e in rating.rerate(store, "toy@1")], rating.rate_matches(written))


def test_a_newcomer_or_results_that_add_up_get_a_fit_instead(tmp_path: Path, big_field: list[RatedMatch]) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tournament = store.create_tournament("toy", "toy@1", "round_robin", {}, len(big_field) + 10)
    written = stored(store, tournament, big_field[:4000], 0)
    live = rating.LiveRate(store, "toy@1")
    live.rerate()
    newcomer = [RatedMatch(0, (1, 0), ("newbie", "bot1"), (1, 2), (0, 0), (False, False))]
    written += stored(store, tournament, newcomer, 4000)
    live.add(written[-1:])
    live.rerate()
    assert live.local == 0 and live.updates == 1, "a bot the last fit did not have: a fit"
    entry = {e.entrant: e for e in live.entries()}["newbie"]
    assert entry.low < entry.elo < entry.high and np.isfinite(entry.high)
    many = stored(store, tournament, big_field[4000:4400], 4001)  # ~40 games each: more than LOCAL_SHARE
    written += many
    live.add(many)
    live.rerate()
    assert live.local == 0 and live.updates == 2
    assert_agree(live.entries(), rating.rate_matches(written))


def test_one_bot_moved_alone_reaches_the_peak_of_its_own_likelihood() -> None:
    """With its old games' curvature zero, a local update is the one-dimensional fit of the new
    results against opponents held where they are: its slope there is zero."""
    ratings = np.array([1500.0, 1600.0, 1400.0])
    terms = (np.array([0, 0]), np.array([1, 2]), np.array([4.0, 4.0]), np.array([3.0, 1.5]))
    moved, bend = local_update(terms, ratings, np.array([0.0, 1e9, 1e9]))
    assert moved[1:] == pytest.approx(ratings[1:], abs=1e-3), "pinned by huge curvature"
    p = 1 / (1 + 10 ** ((ratings[1:] - moved[0]) / 400))
    assert float(np.sum(terms[3] - terms[2] * p)) == pytest.approx(0.0, abs=1e-3)
    assert bend[0] == pytest.approx(float(np.sum(terms[2] * p * (1 - p))))
    assert not local_enough(terms, ratings, np.array([0.0, 1e9, 1e9]), np.zeros(3)), "no games before: not local"
