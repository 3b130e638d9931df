"""Schedules: table counts, equal seating, duplicate-play chance seeds, seeds fixed by position."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from arena.match.seeds import derive_seed
from arena.tournament.schedule import PlannedMatch, TournamentConfig, bot_spec, schedule, seat_counts


def config(n: int, k: int, rounds: int = 1, **fields: object) -> TournamentConfig:
    entrants = tuple(f"random#{i}" for i in range(n))
    return TournamentConfig(game_id="toy", players_per_match=k, entrants=entrants, rounds=rounds, seed=7, **fields)


def by_table(matches: list[PlannedMatch]) -> dict[int, list[PlannedMatch]]:
    tables: dict[int, list[PlannedMatch]] = {}
    for match in matches:
        tables.setdefault(match.table, []).append(match)
    return tables


@pytest.mark.parametrize(("n", "k", "rounds"), [(2, 2, 1), (5, 2, 2), (5, 3, 1), (6, 4, 2), (4, 4, 3)])
def test_round_robin_plays_every_subset_in_every_rotation(n: int, k: int, rounds: int) -> None:
    matches = schedule(config(n, k, rounds))
    assert len(matches) == math.comb(n, k) * k * rounds
    assert [m.index for m in matches] == list(range(len(matches)))
    tables = by_table(matches)
    assert len(tables) == math.comb(n, k) * rounds
    per_round = Counter(frozenset(t[0].seats) for t in tables.values())
    assert set(per_round.values()) == {rounds}, "every k-subset once per round"
    for table in tables.values():
        assert sorted(m.rotation for m in table) == list(range(k))
        assert {m.seats[0] for m in table} == set(table[0].seats), "each member opens once"


@pytest.mark.parametrize(("n", "k", "rounds"), [(5, 2, 1), (5, 3, 2), (6, 4, 1)])
def test_every_bot_sits_in_every_seat_equally_often(n: int, k: int, rounds: int) -> None:
    counts = seat_counts(schedule(config(n, k, rounds)))
    assert len(counts) == n * k
    assert set(counts.values()) == {math.comb(n - 1, k - 1) * rounds}


def test_rotations_of_a_table_share_the_chance_seed_and_nothing_else() -> None:
    matches = schedule(config(5, 3, 2))
    for table in by_table(matches).values():
        assert len({m.chance_seed for m in table}) == 1
    assert len({m.chance_seed for m in matches}) == len(by_table(matches)), "tables differ in their luck"
    assert len({m.seed for m in matches}) == len(matches), "bot seeds differ per match"


def test_seeds_follow_from_the_tournament_seed_and_the_match_index_only() -> None:
    first, again = schedule(config(6, 3, 2)), schedule(config(6, 3, 2))
    assert first == again
    assert all(m.seed == derive_seed(7, "match", m.index) for m in first)
    other = schedule(TournamentConfig(**{**config(6, 3, 2).__dict__, "seed": 8}))
    assert not {m.seed for m in first} & {m.seed for m in other}


def test_too_many_subsets_become_a_balanced_sample() -> None:
    cfg = config(12, 4, rounds=2, max_tables=20)  # C(12, 4) = 495 tables per round would be too many
    matches = schedule(cfg)
    tables = by_table(matches)
    assert len(tables) == 2 * 21, "20 rounded up to a multiple of 12 / gcd(12, 4) = 3"
    assert all(len(set(t[0].seats)) == 4 for t in tables.values())
    appearances = Counter(e for t in tables.values() for e in t[0].seats)
    assert set(appearances.values()) == {2 * 21 * 4 // 12}, "every bot at the same number of tables"
    assert len(set(seat_counts(matches).values())) == 1, "and in every seat equally often"
    met = Counter(frozenset(p) for t in tables.values() for p in _pairs(t[0].seats))
    assert len(met) > 0.9 * math.comb(12, 2), "the sample spreads the pairings out"
    assert schedule(cfg) == matches, "the sample is seeded"


def _pairs(seats: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(seats) for b in seats[i + 1:]]


def test_gauntlet_seats_the_challenger_at_every_table_in_every_seat() -> None:
    cfg = config(5, 3, rounds=2, kind="gauntlet", challenger="random#0")
    matches = schedule(cfg)
    assert len(matches) == math.comb(4, 2) * 3 * 2
    assert all("random#0" in m.seats for m in matches)
    challenger_seats = Counter(m.seats.index("random#0") for m in matches)
    assert set(challenger_seats.values()) == {len(matches) // 3}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (dict(players_per_match=4, entrants=("a", "b", "c")), "4 players per match needs at least 4 bots, but 3"),
        (dict(entrants=("a", "a")), "entrant 'a' is listed twice"),
        (dict(rounds=0), "rounds must be at least 1"),
        (dict(kind="swiss"), "unknown tournament kind 'swiss'"),
        (dict(kind="gauntlet", challenger="z"), "challenger 'z' must be one of the entrants"),
    ],
)
def test_impossible_shapes_are_refused(fields: dict, message: str) -> None:
    base = dict(game_id="toy", players_per_match=2, entrants=("a", "b", "c"))
    with pytest.raises(ValueError, match=message):
        schedule(TournamentConfig(**{**base, **fields}))


def test_an_entrant_label_is_not_part_of_the_bot_spec() -> None:
    assert bot_spec("random#2") == "random"
    assert bot_spec("ismcts:sims=5#fast") == "ismcts:sims=5"
    assert bot_spec("random") == "random"


@pytest.mark.parametrize(
    ("entrants", "hint"),
    [
        (("random", "random"), "e.g. random#2"),
        (("random#1", "random#1"), "e.g. random#2"),  # not random#1#2, which is no valid label
        (("random#2", "random#2", "random"), "e.g. random#3"),  # random#2 is taken
        (("ismcts:sims=5#fast", "ismcts:sims=5#fast"), "e.g. ismcts:sims=5#2"),
    ],
)
def test_the_listed_twice_hint_names_a_free_label(entrants: tuple[str, ...], hint: str) -> None:
    with pytest.raises(ValueError, match=f"listed twice; .*{hint}$") as error:
        schedule(TournamentConfig(game_id="toy", players_per_match=2, entrants=entrants))
    suggestion = str(error.value).rsplit("e.g. ", 1)[1]
    assert suggestion not in entrants and suggestion.count("#") == 1
