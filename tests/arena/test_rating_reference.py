"""The vectorized fit (arena/rating.py, arena/rating_fit/) against the bot-by-bot reference it
replaced (tests/arena/rating_reference.py): the same ratings and intervals within 0.5 Elo on varied
fields; a live update (totals in memory, refit from the ratings before) against a full refit; the
history appended one point per rerate."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from arena import rating
from arena.rating_fit import LIVE_TOLERANCE, TOLERANCE
from arena.store import MatchResult, RatedMatch, RatingEntry, SeatResult, Store
from arena.tournament.driver import LiveRerate, rated_match
from tests.arena import rating_reference as reference

AGREE = 0.5  # Elo points


def field(seed: int, bots: int, matches: int, sizes: tuple[int, int] = (2, 6), ties: float = 0.1,
          faults: float = 0.05) -> list[RatedMatch]:
    """Tables of 2 to 6 seats ranked by a noisy draw around each bot's strength, with ties, strikes
    and forfeits."""
    rng = random.Random(seed)
    strength = {f"bot{i}": rng.gauss(0, 1) for i in range(bots)}
    out = []
    for index in range(matches):
        seats = rng.sample(sorted(strength), rng.randint(sizes[0], min(sizes[1], bots)))
        perf = {s: strength[s] + rng.gauss(0, 1) for s in seats}
        if rng.random() < ties:
            perf[seats[1]] = perf[seats[0]]
        ranks = tuple(1 + sum(p > perf[s] for p in perf.values()) for s in seats)
        strikes = tuple(rng.randint(1, 3) if rng.random() < faults else 0 for _ in seats)
        out.append(RatedMatch(index, (1, index), tuple(seats), ranks, strikes, tuple(n > 2 for n in strikes)))
    return out


def one_sided(rounds: int) -> list[RatedMatch]:
    """`top` never loses, `bottom` never wins, `mid` does both: one-sided records at both ends."""
    out = []
    for r in range(rounds):
        out += [RatedMatch(3 * r, (1, 3 * r), ("top", "mid"), (1, 2), (0, 0), (False, False)),
                RatedMatch(3 * r + 1, (1, 3 * r + 1), ("mid", "bottom"), (1, 2), (0, 0), (False, False)),
                RatedMatch(3 * r + 2, (1, 3 * r + 2), ("top", "bottom", "mid"), (1, 3, 2 if r % 2 else 1),
                           (0, 0, 0), (False, False, False))]
    return out


def assert_agree(ours: list[RatingEntry], theirs: list[RatingEntry]) -> None:
    mine, other = {e.entrant: e for e in ours}, {e.entrant: e for e in theirs}
    assert sorted(mine) == sorted(other)
    for name, e in other.items():
        got = mine[name]
        assert (got.games, got.strikes, got.forfeits) == (e.games, e.strikes, e.forfeits)
        assert got.wins == pytest.approx(e.wins)
        for value, expected in ((got.elo, e.elo), (got.low, e.low), (got.high, e.high)):
            assert value == pytest.approx(expected, abs=AGREE), name


@pytest.mark.parametrize("matches", [
    field(1, 2, 40, sizes=(2, 2)),
    field(2, 8, 300),
    field(3, 30, 600, sizes=(3, 6), ties=0.3),
    field(4, 12, 200, sizes=(2, 3), faults=0.3),
    one_sided(30),
], ids=["two-bots", "mixed-tables", "big-tables-many-ties", "many-faults", "one-sided"])
def test_the_vectorized_fit_agrees_with_the_reference(matches: list[RatedMatch]) -> None:
    assert_agree(rating.rate_matches(matches), reference.rate_matches(matches))


def test_disconnected_groups_agree_within_each_group_and_are_each_centred() -> None:
    """Two groups that never met: the reference leaves the offset between them to its path; within
    a group the gaps are the data's, and each group has mean 1500 here."""
    left = field(5, 5, 150)
    right = [RatedMatch(m.match_id + 1000, (2, m.order[1]), tuple(e.replace("bot", "x") for e in m.entrants),
                        m.ranks, m.strikes, m.forfeits) for m in field(6, 4, 120)]
    ours = {e.entrant: e for e in rating.rate_matches(left + right)}
    theirs = {e.entrant: e for e in reference.rate_matches(left + right)}
    for prefix in ("bot", "x"):
        group = [n for n in ours if n.startswith(prefix)]
        assert sum(ours[n].elo for n in group) / len(group) == pytest.approx(1500, abs=1e-6)
        shift = sum(theirs[n].elo - ours[n].elo for n in group) / len(group)
        for n in group:
            assert ours[n].elo + shift == pytest.approx(theirs[n].elo, abs=AGREE)
            assert ours[n].high - ours[n].low == pytest.approx(theirs[n].high - theirs[n].low, abs=AGREE)


def test_a_live_update_agrees_with_a_full_refit() -> None:
    """Totals in memory, 10 batches added, each refitted from the ratings before to LIVE_TOLERANCE
    and the live table (intervals kept, scaled by curvature for who played): the same table as one
    fit of everything."""
    matches = field(7, 40, 2000)
    results = rating.Results()
    ratings: dict[str, float] = {}
    table: dict[str, RatingEntry] | None = None
    for start in range(0, 2000, 200):
        batch = matches[start:start + 200]
        for m in batch:
            results.add(m)
        ratings = rating.fit(results, ratings or None, LIVE_TOLERANCE if ratings else TOLERANCE)
        played = {e for m in batch for e in m.entrants}
        table = {e.entrant: e for e in rating.rating_table(results, ratings, table, played)}
    assert table is not None
    assert_agree(list(table.values()), rating.rate_matches(matches))


def stored_result(index: int, entrants: tuple[str, ...], ranks: tuple[int, ...], tournament: int) -> MatchResult:
    seats = [SeatResult(i, e, e, score=0.0, rank=r) for i, (e, r) in enumerate(zip(entrants, ranks, strict=True))]
    return MatchResult(tournament_id=tournament, match_index=index, round=0, table_no=index, rotation=0,
                       game_id="toy", ruleset="toy@1", seed=index, chance_seed=index, seats=seats,
                       record={"ranks": list(ranks)}, aborted_reason=None, decisions=1, duration_ms=1.0)


def test_the_history_gets_a_point_per_rerate_and_the_store_agrees_with_the_matches(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tournament = store.create_tournament("toy", "toy@1", "round_robin", {"entrants": []}, 90, "t")
    rng = random.Random(8)
    written: list[MatchResult] = []
    live = None
    for batch in range(3):
        results = [stored_result(30 * batch + i, tuple(rng.sample(["a", "b", "c", "d"], 2)), (1, 2), tournament)
                   for i in range(30)]
        assert store.record_matches(results) == 30
        written += results
        if live is None:
            live = rating.LiveRate(store, "toy@1")
        else:
            live.add([rated_match(r) for r in results])
        live.rerate()
        assert store.rated_count("toy@1") == len(written)
    assert store.history_positions("toy@1") == [29, 59, 89]
    final = {r.entrant: r.elo for r in store.leaderboard("toy@1")}
    assert final == pytest.approx({e.entrant: e.elo for e in reference.rate_matches(store.rated_matches("toy@1"))},
                                  abs=AGREE)
    assert [p.elo for p in store.rating_history("toy@1", "a")][-1] == pytest.approx(final["a"])
    rating.rerate(store, "toy@1")  # nothing new: the last point is replaced, not added
    assert store.history_positions("toy@1") == [29, 59, 89]


def test_the_drivers_live_rerate_reads_the_totals_once_and_again_after_a_partly_stored_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tournament = store.create_tournament("toy", "toy@1", "round_robin", {"entrants": []}, 100, "t")
    reads = []
    real = store.pair_chunks
    monkeypatch.setattr(store, "pair_chunks", lambda ruleset: reads.append(ruleset) or real(ruleset))
    rerating = LiveRerate(store, "toy@1")
    rng = random.Random(9)
    batches = [[stored_result(20 * n + i, tuple(rng.sample(["a", "b", "c", "d", "e"], 3)), (1, 2, 2), tournament)
                for i in range(20)] for n in range(4)]
    for batch in batches[:3]:
        rerating.add(batch, store.record_matches(batch))
        rerating.last = -math.inf  # due now
        rerating.maybe()
    assert len(reads) == 1
    assert store.rated_count("toy@1") == 60
    again = batches[2][-1:] + batches[3]  # one of them stored before: the totals are read again
    rerating.add(again, store.record_matches(again))
    rerating.last = -math.inf
    rerating.maybe()
    assert len(reads) == 2
    assert_agree(rating.rate_matches(store.rated_matches("toy@1")),
                 reference.rate_matches(store.rated_matches("toy@1")))
    live = {r.entrant: r.elo for r in store.leaderboard("toy@1")}
    assert live == pytest.approx({e.entrant: e.elo for e in reference.rate_matches(store.rated_matches("toy@1"))},
                                 abs=AGREE)
