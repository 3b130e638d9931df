"""Elo by hand (two and four players), K scaling, order independence, error bars."""

from __future__ import annotations

import random

import pytest

from arena.rating import EloRating, InOrderRater, error_bars, pair_score, rate_matches
from arena.store import RatedMatch


def match(index: int, entrants: str, ranks: tuple[int, ...], faults: tuple[bool, ...] | None = None) -> RatedMatch:
    names = tuple(entrants.split())
    return RatedMatch(index + 100, (1, index), names, ranks, faults or (False,) * len(names))


def test_two_player_results_by_hand() -> None:
    rating = rate_matches([match(0, "a b", (1, 2)), match(1, "a b", (2, 1))])
    # Match 0, equal ratings: expected 0.5 each, K = 16 -> a 1508, b 1492.
    # Match 1: b's expectation 1 / (1 + 10 ** ((1508 - 1492) / 400)) = 0.476990; b wins.
    gain = 16 * (1 - 1 / (1 + 10 ** (16 / 400)))
    assert gain == pytest.approx(8.3682, abs=1e-4)
    assert rating.ratings == pytest.approx({"a": 1508 - gain, "b": 1492 + gain})
    assert rating.history[:2] == [(0, 100, "a", 1508.0), (0, 100, "b", 1492.0)]


def test_two_player_draw_moves_the_favourite_down() -> None:
    rating = EloRating(ratings={"a": 1600.0, "b": 1400.0})
    rating.apply(match(0, "a b", (1, 1)))
    expected_a = 1 / (1 + 10 ** (-200 / 400))  # 0.759747
    assert rating.ratings["a"] == pytest.approx(1600 + 16 * (0.5 - expected_a))
    assert rating.ratings["b"] == pytest.approx(1400 - 16 * (0.5 - expected_a))
    assert rating.wins == {"a": 0.5, "b": 0.5}, "a shared first place is half a win each"


def test_four_player_result_counts_pairwise_by_rank_with_k_over_three() -> None:
    rating = rate_matches([match(0, "a b c d", (1, 2, 2, 4), (False, False, False, True))])
    # K' = 16 / 3. a: 3 wins at expectation 0.5 -> +1.5 * K' = +8; b and c: win, draw, loss -> 0; d: -8.
    assert rating.ratings == pytest.approx({"a": 1508, "b": 1500, "c": 1500, "d": 1492})
    assert rating.faults == {"a": 0, "b": 0, "c": 0, "d": 1}
    assert rating.games == {"a": 1, "b": 1, "c": 1, "d": 1}


def test_four_player_by_hand_with_unequal_ratings() -> None:
    start = {"a": 1600.0, "b": 1500.0, "c": 1450.0, "d": 1400.0}
    rating = EloRating(ratings=dict(start))
    rating.apply(match(0, "a b c d", (4, 1, 3, 2)))

    def expect(x: str, y: str) -> float:
        return 1 / (1 + 10 ** ((start[y] - start[x]) / 400))

    # b beat everyone; d beat a and c; c beat a; a lost to all.
    assert rating.ratings["b"] == pytest.approx(1500 + 16 / 3 * (3 - expect("b", "a") - expect("b", "c") - expect("b", "d")))
    assert rating.ratings["d"] == pytest.approx(1400 + 16 / 3 * (2 - expect("d", "a") - expect("d", "b") - expect("d", "c")))
    assert rating.ratings["a"] == pytest.approx(1600 + 16 / 3 * (0 - expect("a", "b") - expect("a", "c") - expect("a", "d")))
    assert sum(rating.ratings.values()) == pytest.approx(sum(start.values())), "Elo is zero-sum"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_one_k_player_win_weighs_one_two_player_win(players: int) -> None:
    names = " ".join("abcde"[:players])
    rating = rate_matches([match(0, names, tuple(range(1, players + 1)))])
    assert rating.ratings["a"] == pytest.approx(1508.0)


def test_pair_scores() -> None:
    assert (pair_score(1, 2), pair_score(2, 2), pair_score(3, 1)) == (1.0, 0.5, 0.0)


def random_matches(count: int, seed: int, strengths: dict[str, float]) -> list[RatedMatch]:
    """Four-player matches where a bot's rank follows a noisy draw around its strength."""
    rng = random.Random(seed)
    matches = []
    for index in range(count):
        seated = rng.sample(sorted(strengths), 4)
        perf = [strengths[e] + rng.gauss(0, 1) for e in seated]
        ranks = tuple(1 + sum(p > mine for p in perf) for mine in perf)
        matches.append(RatedMatch(index, (1, index), tuple(seated), ranks, (False,) * 4))
    return matches


def test_online_in_any_arrival_order_equals_recompute_in_index_order() -> None:
    matches = random_matches(300, 1, {"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.0, "e": -0.5})
    aborted = {5, 17, 200}  # keys that arrive without a rated match
    arrivals = [(m.order, None if m.order[1] in aborted else m) for m in matches]
    random.Random(2).shuffle(arrivals)
    online = InOrderRater([key for key, _ in arrivals])
    for key, rated in arrivals:
        online.add(key, rated)
    assert online.pending == 0
    offline = rate_matches(reversed([m for m in matches if m.order[1] not in aborted]))
    assert online.rating.ratings == offline.ratings
    assert online.rating.history == offline.history


def test_error_bars_shrink_with_more_games_and_order_the_field() -> None:
    strengths = {"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.0, "e": -0.5}
    few, many = error_bars(random_matches(100, 3, strengths)), error_bars(random_matches(400, 3, strengths))
    for name in strengths:
        assert 0 < many[name] < few[name]
        assert many[name] / few[name] == pytest.approx(0.5, abs=0.1), "about 1/sqrt(games)"
    rating = rate_matches(random_matches(2000, 4, strengths))
    assert rating.ratings["a"] > rating.ratings["c"] > rating.ratings["e"]


def test_a_bot_that_always_wins_has_a_finite_error_bar() -> None:
    matches = [match(i, "a b", (1, 2)) for i in range(20)]
    bars = error_bars(matches)
    assert all(0 < bar < 2000 for bar in bars.values())
    assert error_bars([]) == {}


def test_a_winless_bot_does_not_keep_the_other_bars_wide() -> None:
    """`h` and `i` meet each other often; both always beat `r`, which never wins. Their bars must
    shrink as 1/sqrt(games): a bar measures the bot's own games, not the least-known bot's."""

    def field(rounds: int) -> list[RatedMatch]:
        matches = []
        for r in range(rounds):
            matches += [match(3 * r, "h r", (1, 2)), match(3 * r + 1, "i r", (1, 2)),
                        match(3 * r + 2, "i h", (1, 2) if r % 3 else (2, 1))]
        return matches

    few, many = error_bars(field(40)), error_bars(field(640))
    for name in "hi":
        assert many[name] / few[name] == pytest.approx(0.25, abs=0.03), "16x the games, 1/4 the bar"
    assert many["h"] < 35
    assert many["r"] > 200, "how bad a bot that never wins is stays uncertain"
