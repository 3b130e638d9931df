"""Suspended versions, provisional ratings and retired tokens: what the store keeps of a bot's state."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import UsageError
from arena.store import LeaderboardRow, RatingEntry, Store
from arena.store.records import PROVISIONAL_HALF_WIDTH


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'arena.db'}")


def test_a_suspended_version_keeps_its_reason_until_enable_or_a_new_version(store: Store) -> None:
    store.register_bot("sub")
    store.add_version("sub", "python bot.py", "/files/a", "a" * 64)
    store.add_version("sub", "python bot.py --v2", "/files/b", "b" * 64)
    store.suspend_version("sub", 2, "its last 3 matches all ended in its own crash")
    assert [v.suspended for v in store.versions("sub")] == [None, "its last 3 matches all ended in its own crash"]
    assert store.version("sub").suspended == "its last 3 matches all ended in its own crash"  # type: ignore[union-attr]
    third = store.add_version("sub", "python bot.py --v3", "/files/c", "c" * 64)
    assert third.suspended is None, "a new version starts unsuspended"
    store.set_disabled("sub", False)  # not disabled, but a version is suspended: enable lifts it
    assert [v.suspended for v in store.versions("sub")] == [None, None, None]
    with pytest.raises(UsageError, match="'sub' is not disabled"):
        store.set_disabled("sub", False)


def test_enable_of_a_disabled_bot_lifts_its_suspensions(store: Store) -> None:
    store.register_bot("sub")
    store.add_version("sub", "python bot.py", "/files/a", "a" * 64)
    store.suspend_version("sub", 1, "crashed")
    store.set_disabled("sub", True)
    store.set_disabled("sub", False)
    assert store.version("sub", 1).suspended is None  # type: ignore[union-attr]


def test_suspending_a_missing_version_is_a_one_line_error(store: Store) -> None:
    store.register_bot("sub")
    with pytest.raises(UsageError, match="bot 'sub' has no version 4"):
        store.suspend_version("sub", 4, "crashed")
    with pytest.raises(UsageError, match="no registered bot is named 'ghost'"):
        store.suspend_version("ghost", 1, "crashed")


@pytest.mark.parametrize(("low", "high", "provisional"), [
    (1400.0, 1600.0, False),  # exactly ±100: settled
    (1399.0, 1600.0, True),
    (float("-inf"), 1600.0, True),  # one-sided: a bot that lost every game
    (1450.0, 1550.0, False),
])
def test_a_rating_is_provisional_while_its_interval_is_wider_than_the_bound(low: float, high: float,
                                                                            provisional: bool) -> None:
    assert PROVISIONAL_HALF_WIDTH == 100.0
    entry = RatingEntry("a", 1500.0, low, high, games=10, wins=5, strikes=0, forfeits=0)
    row = LeaderboardRow(1, "a", "toy", "toy@1", 1500.0, low, high, games=10, wins=5, strikes=0, forfeits=0)
    assert entry.provisional is provisional and row.provisional is provisional


def test_a_rotated_or_removed_token_is_kept_as_retired_by_its_hash(store: Store) -> None:
    first = store.register_bot("rotor")
    second = store.rotate_token("rotor")
    third = store.rotate_token("rotor")
    assert [(r.bot, r.why) for r in (store.retired_token(first), store.retired_token(second))] == \
        [("rotor", "rotated"), ("rotor", "rotated")]
    assert store.retired_token(third) is None, "the live token is not retired"
    assert store.retired_token("arena_never-issued") is None
    store.remove_bot("rotor")
    retired = store.retired_token(third)
    assert retired is not None and (retired.bot, retired.why) == ("rotor", "removed")
