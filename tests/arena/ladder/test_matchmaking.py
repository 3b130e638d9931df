"""The matchmaking rule (arena/ladder/matchmaking.py) as pure functions."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from arena.ladder.matchmaking import (
    TOP,
    Candidate,
    Pool,
    Table,
    longest_wait,
    next_table,
    quality,
    seat_gains,
    wait_bound,
)
from arena.store.records import PROVISIONAL_HALF_WIDTH


def rated(name: str, elo: float, half: float = 50.0, games: int = 100, owner: str | None = None,
          **more: int) -> Candidate:
    return Candidate(name, owner or name, elo, elo - half, elo + half, games, **more)


def field(n: int = 10) -> list[Candidate]:
    return [rated(f"b{i}", 1200 + 60 * i) for i in range(n)]


def test_a_new_version_is_seated_first() -> None:
    new = Candidate("new@1", "new")
    tables = [next_table([*field(), new], 2, random.Random(seed)) for seed in range(50)]
    focused = [t for t in tables if t is not None and t.why == "focus"]
    assert focused and all("new@1" in t.seats for t in focused)


def test_planned_matches_lower_a_bots_urgency() -> None:
    wide = rated("wide", 1500, half=150, games=20)
    assert wide.urgency > rated("narrow", 1500, half=120, games=20).urgency
    assert wide.urgency > Candidate("same", "same", 1500, 1350, 1650, 20, pending=40).urgency


def test_opponents_are_close_in_rating() -> None:
    candidates = ([rated(f"b{i}", 1000 + 100 * i, half=40) for i in range(10)]
                  + [rated("focus", 1450, half=300, games=5)])
    opponents = Counter()
    for seed in range(200):
        table = next_table(candidates, 2, random.Random(seed))
        assert table is not None
        if table.why == "focus":
            assert table.seats[0] == "focus"
            opponents[table.seats[1]] += 1
    assert set(opponents) <= {"b3", "b4", "b5", "b6"}, opponents  # the TOP=3 closest (1300..1600)


def test_two_bots_of_one_owner_never_share_a_table() -> None:
    candidates = [rated(f"a{i}", 1500 + i, owner="alice") for i in range(6)] + [rated("b", 1500), rated("c", 1400)]
    for seed in range(300):
        table = next_table(candidates, 3, random.Random(seed))
        assert table is not None
        owners = [next(c.owner for c in candidates if c.name == s) for s in table.seats]
        assert len(set(owners)) == 3


def test_no_table_without_enough_owners() -> None:
    assert next_table([rated("a@1", 1500, owner="x"), rated("a@2", 1500, owner="x")], 2, random.Random(1)) is None


def test_a_bot_that_waited_too_long_is_seated_first() -> None:
    candidates = field()
    bound = wait_bound(len(candidates) + 1, 2)
    starved = rated("far", 3000, half=10, waited=bound + 1)
    table = next_table([*candidates, starved], 2, random.Random(3))
    assert table is not None and table.why == "waited" and table.seats[0] == "far"


def test_no_bot_waits_past_the_bound_in_a_long_run() -> None:
    rng = random.Random(5)
    candidates = {c.name: c for c in field(12)}
    candidates["new"] = Candidate("new", "new")
    waited = Counter({name: 0 for name in candidates})
    worst = 0
    for _ in range(2000):
        table = next_table([Candidate(**{**vars(c), "waited": waited[c.name]}) for c in candidates.values()], 2, rng)
        assert table is not None
        for name in candidates:
            waited[name] = 0 if name in table.seats else waited[name] + 1
            worst = max(worst, waited[name])
    assert wait_bound(len(candidates), 2) < worst <= longest_wait(len(candidates), 2)


def test_a_random_share_of_tables() -> None:
    whys = Counter(t.why for t in (next_table(field(), 2, random.Random(s)) for s in range(1000)) if t)
    assert 50 <= whys["random"] <= 150  # EXPLORE = 0.1


def test_quality_prefers_close_and_known_ratings() -> None:
    a = rated("a", 1500)
    assert quality(a, rated("b", 1520)) > quality(a, rated("c", 1700))
    assert quality(a, rated("b", 1520)) > quality(a, rated("d", 1520, half=300))


def test_provisional_is_the_leaderboards_rule() -> None:
    assert Candidate("x", "x").provisional
    assert rated("x", 1500, half=PROVISIONAL_HALF_WIDTH + 1).provisional
    assert not rated("x", 1500, half=PROVISIONAL_HALF_WIDTH - 1).provisional


def test_a_large_field_with_a_known_answer() -> None:
    """10,000 rated bots of distinct owners, one new version, whose owner also has a rated bot next
    to it: the new one is the focus (unrated counts widest) and its opponent is one of the TOP rated
    closest to 1500 (the unrated bot's mean), never the bot of its own owner. Kept as a Pool, seating
    updates `waited` and `pending` in place."""
    rng = random.Random(4)
    field = [rated(f"b{i}@1", 1500 + (1 + i) * (1 if i % 2 else -1) * 0.5, owner=f"o{i}") for i in range(10_000)]
    field[0] = rated("b0@1", 1500.0, owner="new")
    new = Candidate("n@1", "new")
    pool = Pool([*field, new])
    closest = {"b1@1", "b2@1", "b3@1"}  # 1501, 1498.5, 1502: the three nearest 1500 of other owners
    for _ in range(20):
        table = next_table(pool, 2, rng)
        assert table is not None
        if table.why == "focus":
            assert table.seats[0] == "n@1" and table.seats[1] in closest
    pool.seat(Table(("n@1", "b1@1"), "focus"))
    assert pool.waited[pool.index["n@1"]] == 0 and pool.waited[pool.index["b5@1"]] > 0
    assert pool.pending[pool.index["b1@1"]] == 1


def settled(name: str, elo: float, owner: str | None = None) -> Candidate:
    """A bot whose rating is well known: ±30 Elo after 400 games."""
    return rated(name, elo, half=30.0, games=400, owner=owner)


def test_a_newcomer_with_a_wide_interval_among_settled_bots_is_the_focus() -> None:
    """Rated already (after its first games) but ±300 wide among bots known to ±30: its next table
    tells the most, so every table that is not random or a waited one is built around it."""
    candidates = [settled(f"s{i}", 1200 + 50 * i) for i in range(12)] + [rated("new@1", 1440, half=300, games=6)]
    pool = Pool(candidates)
    assert int(np.argmax(pool.focus_gain(2))) == pool.index["new@1"]
    focused = [t for t in (next_table(candidates, 2, random.Random(s)) for s in range(100)) if t and t.why == "focus"]
    assert len(focused) > 50 and all(t.seats[0] == "new@1" for t in focused)


def test_the_most_informative_opponent_is_the_closest_in_rating() -> None:
    """For the newcomer at 1440 the settled bots' gains fall with the Elo gap: 1450 first, then 1400
    and 1500 ... 1200 last; the table takes one of the TOP best."""
    candidates = [settled(f"s{i}", 1200 + 50 * i) for i in range(12)] + [rated("new@1", 1440, half=300, games=6)]
    pool = Pool(candidates)
    gain = seat_gains(pool, ["new@1"], 2)
    by_gain = sorted((n for n in pool.names if n != "new@1"), key=lambda n: -gain[pool.index[n]])
    assert by_gain[:3] == ["s5", "s4", "s6"]  # 1450, 1400, 1500
    assert by_gain[-1] == "s11"  # 1750: the farthest
    tables = [next_table(pool, 2, random.Random(s)) for s in range(100)]
    opponents = {t.seats[1] for t in tables if t and t.why == "focus"}
    assert opponents == set(by_gain[:TOP])


def test_among_equally_known_bots_the_focus_is_where_the_field_is_dense() -> None:
    """The order is uncertain where ratings are close: a bot among many neighbours gains more from a
    game than one far out, and planned matches make a bot worth less."""
    crowd = [rated(f"c{i}", 1500 + 5 * i, half=60, games=60) for i in range(10)]
    loner = rated("far", 2400, half=60, games=60)
    pool = Pool([*crowd, loner])
    gain = pool.focus_gain(2)
    assert gain[pool.index["far"]] < min(gain[pool.index[c.name]] for c in crowd)
    before = gain[pool.index["c0"]]
    pool.seat(Table(("c0", "c1"), "focus"))
    assert pool.focus_gain(2)[pool.index["c0"]] < before


def test_a_newcomer_not_rated_yet_is_the_focus_before_any_rated_bot() -> None:
    candidates = [rated("wide", 1500, half=400, games=2), *field(), Candidate("new@1", "new")]
    tables = [next_table(candidates, 3, random.Random(s)) for s in range(60)]
    assert all("new@1" == t.seats[0] for t in tables if t and t.why == "focus")
