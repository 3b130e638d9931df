"""The validation gate on the real engine, a real gateway and real sandboxed bots: a new version
plays one unrated validation match against the anchors before the ladder seats it (arena/ladder/validation.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from arena.ladder.field import LadderConfig
from arena.ladder.validation import REJECTED, fault_of, opponents, validation_match
from arena.store import Store
from tests.arena.gateway_fixtures import FAULT_BOT, SDK_BOT, gateway, store, toy_registered  # noqa: F401
from tests.arena.ladder.test_ladder import GAME, Running, running, wait_until  # noqa: F401


def stored_games(store: Store, ladder_id: int) -> Counter[str]:
    return Counter(s.entrant for m in store.matches(tournament_id=ladder_id, limit=100_000) for s in m.seats)


def assert_ratings_count_only_stored_matches(store: Store, ladder_id: int) -> None:
    """Each rated entrant's games are its stored ladder matches: no validation match was rated."""
    games = stored_games(store, ladder_id)
    rows = store.leaderboard(f"{GAME}@1")
    assert rows and all(row.games == games[row.entrant] for row in rows), (rows, games)


@pytest.mark.slow
def test_a_version_that_crashes_in_validation_never_enters_the_ladder(running: Callable[..., Running],  # noqa: F811
                                                                      store: Store) -> None:  # noqa: F811
    store.register_bot("crasher", command=f"python3 {FAULT_BOT.name} --mode crash", files=str(FAULT_BOT.parent))
    ladder = running()
    wait_until(lambda: store.version("crasher", 1).suspended, "crasher@1 is rejected")  # type: ignore[union-attr]
    version = store.version("crasher", 1)
    assert version is not None and not version.validated
    assert version.suspended.startswith(REJECTED) and "crash" in version.suspended, version.suspended  # type: ignore[union-attr]
    tables = len(ladder.tables)
    wait_until(lambda: len(ladder.tables) >= tables + 3, "three more tables")
    ladder.stop()
    assert not any("crasher@1" in field for field in ladder.fields), "never in the field"
    assert not any("crasher@1" in match.seats for _, match in ladder.tables), "never at a ladder table"
    assert stored_games(store, ladder.id)["crasher@1"] == 0, "no ladder match of it is stored"
    assert all(s.termination == "normal" for m in store.matches(tournament_id=ladder.id, limit=100_000)
               for s in m.seats), "the field never paid a forfeit for it"
    assert "crasher@1" not in {row.entrant for row in store.leaderboard(f"{GAME}@1")}
    assert_ratings_count_only_stored_matches(store, ladder.id)


@pytest.mark.slow
def test_a_good_version_passes_validation_then_is_seated(running: Callable[..., Running],  # noqa: F811
                                                         store: Store) -> None:  # noqa: F811
    store.register_bot("good", command=f"python3 {SDK_BOT.name}", files=str(SDK_BOT.parent))
    assert not store.version("good", 1).validated, "a new version waits for its validation"  # type: ignore[union-attr]
    ladder = running()
    wait_until(lambda: len(ladder.matches_of("good@1")) >= 2, "good@1 played 2 ladder matches", 180)
    ladder.stop()
    version = store.version("good", 1)
    assert version is not None and version.validated and version.suspended is None
    first = next(i for i, field in enumerate(ladder.fields) if "good@1" in field)
    assert all("good@1" not in match.seats for _, match in ladder.tables[:first]), "seated only once validated"
    assert all(m.match_index >= 0 for m in store.matches(tournament_id=ladder.id, limit=100_000))
    assert_ratings_count_only_stored_matches(store, ladder.id)


def test_enable_asks_a_rejected_version_for_a_new_validation(store: Store) -> None:  # noqa: F811
    store.register_bot("fixed", command="python3 bot.py")
    store.suspend_version("fixed", 1, f"{REJECTED} (ladder of {GAME}): crash: exited")
    assert not store.mark_validated("fixed", 1), "a rejected version is not validated by a late result"
    [version] = store.ladder_versions()
    assert not version.active and not version.awaiting_validation
    store.set_disabled("fixed", False)
    [version] = store.ladder_versions()
    assert version.awaiting_validation and not version.active
    assert store.mark_validated("fixed", 1)
    [version] = store.ladder_versions()
    assert version.active


def test_the_validation_match_seats_the_version_against_the_anchors() -> None:
    config = LadderConfig("riga", 4, ("random", "heuristic"))
    assert opponents(config) == ("random", "heuristic", "random")
    assert opponents(LadderConfig(GAME, 2)) == ("random",), "no anchors: the random bot"
    match = validation_match(config, "bot@2", -1)
    assert match.seats == ("bot@2", "random", "heuristic", "random") and match.index < 0
    assert validation_match(config, "bot@2", -5).seed == match.seed, "its seeds follow from the version"
    assert validation_match(config, "bot@2", -1, rotation=2).seats.index("bot@2") == 2


def test_a_fault_of_its_own_is_named_in_one_line() -> None:
    clean = {"termination": "normal", "reason": "", "faults": []}
    assert fault_of({"seats": [clean, clean]}, 0) is None
    crashed = {"termination": "crash", "reason": "exited with status 3", "faults": []}
    assert fault_of({"seats": [crashed, clean]}, 0) == "crash: exited with status 3"
    assert fault_of({"seats": [clean, crashed]}, 0) is None, "another seat's fault is not its own"
    strike = {**clean, "faults": [{"step": 7, "fault": "timeout", "reason": "no answer in 1000 ms"}]}
    assert fault_of({"seats": [strike, clean]}, 0) == "timeout at step 7: no answer in 1000 ms"
