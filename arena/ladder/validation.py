"""The validation gate: a new version plays one match against the ladder's anchors before it is seated.

A version the ladder would seat (the latest, or kept active; not disabled, not suspended) but that
has not passed validation (`submission.validated_at` is NULL) is first played by the ladder's
driver in one validation match: sandboxed and launched as a ladder match is (the same job, time
control and launch limits), its other seats the ladder's anchors, which stay in for ever and never
fault. The match is unrated and stored nowhere: not in the ratings, not in any match list. Played
without a fault of its own, the version is marked validated and seated at the next poll; with one
(a crash, a timeout, an illegal or malformed answer, a dropped stream), it is rejected: suspended
with the reason, shown to its author, until a new version or `arena bot enable`, which asks for a
new validation. So a broken version never takes a ladder seat and never costs the field a forfeit.

An arena-side failure (aborted, the gateway gone) is nobody's fault: the validation is played again.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import cycle, islice
from typing import Any

from arena.ladder.field import LadderConfig
from arena.match.seeds import derive_seed
from arena.outcomes import Termination
from arena.store import Store
from arena.tournament.schedule import PlannedMatch

FALLBACK_OPPONENT = "random"  # a ladder without anchors validates against the random bot
REJECTED = "rejected by its validation match"  # how a rejection's reason begins (shown to its author)


def awaiting_validation(store: Store) -> list[str]:
    """The versions (`NAME@N`) the ladder would seat once they pass validation, by name."""
    return [v.entrant for v in store.ladder_versions() if v.awaiting_validation]


def opponents(config: LadderConfig) -> tuple[str, ...]:
    """The other seats of a validation (or trial) match: the ladder's anchors, repeated as needed."""
    return tuple(islice(cycle(config.anchors or (FALLBACK_OPPONENT,)), config.players_per_match - 1))


def validation_match(config: LadderConfig, entrant: str, index: int, rotation: int = 0) -> PlannedMatch:
    """The match that validates `entrant` (rotation r: it sits at seat r). `index` is negative, so
    that its job's key is never a stored ladder match's; the seeds follow from the entrant."""
    seats = (entrant, *opponents(config))
    seats = seats[-rotation:] + seats[:-rotation] if rotation else seats
    return PlannedMatch(index, 0, -1, rotation, seats, derive_seed(config.seed, "validation", entrant, rotation),
                        derive_seed(config.seed, "validation chance", entrant))


def fault_of(record: Mapping[str, Any], seat: int) -> str | None:
    """The seat's own fault in a played match's record (JSON), in one line; None: it played cleanly."""
    outcome = record["seats"][seat]
    if outcome.get("termination", Termination.NORMAL) != Termination.NORMAL:
        return f"{outcome['termination']}: {outcome.get('reason') or 'no reason given'}"
    if faults := outcome.get("faults"):
        first = faults[0]
        return f"{first['fault']} at step {first['step']}: {first['reason']}"
    return None


def rejection(game_id: str, fault: str) -> str:
    return f"{REJECTED} (ladder of {game_id}): {fault}"
