"""Time controls and forfeit ranking: the arithmetic the match runner relies on."""

from __future__ import annotations

import pytest

from arena.match.clock import Clock, TimeControl
from arena.match.runner import forfeit_ranks


def test_the_bank_pays_for_time_past_the_allowance_and_grace_is_never_told() -> None:
    clock = Clock(TimeControl(decision_ms=100, bank_ms=500, grace_ms=50))
    assert (clock.time_left_ms(), clock.deadline_ms()) == (600, 650)
    assert clock.charge(80)  # within the allowance: the bank is untouched, the rest is not saved
    assert clock.time_left_ms() == 600
    assert clock.charge(400)  # 300 ms past the allowance come out of the bank
    assert clock.time_left_ms() == 300
    assert clock.charge(330)  # inside the grace: in time, and the bank is empty
    assert clock.time_left_ms() == 100
    assert not clock.charge(151)  # past 100 + 0 + 50: a timeout


@pytest.mark.parametrize("bad", [{"decision_ms": -1}, {"bank_ms": 1.5}, {"decision_ms": 0, "bank_ms": 0}])
def test_a_bad_time_control_says_what_is_valid(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="TimeControl"):
        TimeControl(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ranks", "forfeited", "expected"),
    [([1, 2, 3], set(), [1, 2, 3]), ([1, 2, 3], {0}, [3, 1, 2]), ([1, 1, 3, 4], {1, 3}, [1, 3, 2, 4]),
     ([2, 1, 2], {0, 2}, [2, 1, 2])],
)
def test_forfeited_seats_rank_after_the_others(ranks: list[int], forfeited: set[int], expected: list[int]) -> None:
    assert forfeit_ranks(ranks, forfeited) == expected
