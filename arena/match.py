"""run_match(): the one loop that drives a match from a seed to a MatchRecord.

Chance is sampled from a generator seeded by the match seed; each seat's bot gets a seed derived
from the match seed and the seat, so a match replays exactly from its record or from its seed.
"""

from __future__ import annotations

import enum
import hashlib
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bots import make_bot
from engine import registry
from engine.core import Game, NodeKind, State, Step, replay, sample_chance


class Termination(enum.Enum):
    """How a seat's match ended (fastchess `MatchTermination`, python-chess `Termination`)."""

    NORMAL = "normal"  # played to the end by the rules
    TIMEOUT = "timeout"  # ran out of time
    ILLEGAL_ACTION = "illegal_action"  # answered an action that was not legal
    PROTOCOL_ERROR = "protocol_error"  # sent a malformed or unexpected message
    DISCONNECT = "disconnect"  # the connection dropped
    CRASH = "crash"  # a launched bot's process died or never connected
    ABORTED = "aborted"  # an error inside the arena: the match is not rated


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from a parent seed and labels; the same inputs give the same seed anywhere."""
    text = ":".join(str(part) for part in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


@dataclass
class StepRecord:
    """One step: a chance outcome, or the actions of the acting seats with their times."""

    chance: int | None = None
    actions: dict[int, int] | None = None
    elapsed_ms: dict[int, float] | None = None

    def as_step(self) -> Step:
        return Step(chance=self.chance, actions=self.actions)


@dataclass
class SeatOutcome:
    """What happened to one seat: who played it and how its match ended."""

    bot: str
    termination: Termination = Termination.NORMAL
    reason: str = ""


@dataclass
class MatchRecord:
    """Everything needed to rate, show and replay a match."""

    game_id: str
    ruleset: str
    options: dict[str, Any]
    seed: int
    seats: list[SeatOutcome]
    steps: list[StepRecord] = field(default_factory=list)
    returns: list[float] | None = None
    ranks: list[int] | None = None
    aborted: str | None = None  # why the arena gave up on the match; None when it finished

    @property
    def num_players(self) -> int:
        return len(self.seats)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for seat in data["seats"]:
            seat["termination"] = seat["termination"].value
        for step in data["steps"]:
            for key in ("actions", "elapsed_ms"):
                if step[key] is not None:
                    step[key] = {str(s): v for s, v in step[key].items()}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchRecord:
        seats = [
            SeatOutcome(s["bot"], Termination(s["termination"]), s["reason"]) for s in data["seats"]
        ]
        steps = [
            StepRecord(
                chance=s["chance"],
                actions=_int_keys(s["actions"]),
                elapsed_ms=_int_keys(s["elapsed_ms"]),
            )
            for s in data["steps"]
        ]
        fields = {k: v for k, v in data.items() if k not in ("seats", "steps")}
        return cls(seats=seats, steps=steps, **fields)

    def game(self) -> Game:
        return registry.make(self.game_id, self.num_players, **self.options)

    def replay(self) -> State:
        """The final state, rebuilt by applying the recorded steps to a fresh game."""
        return replay(self.game().initial_state(), [step.as_step() for step in self.steps])


def _int_keys(mapping: Mapping[str, Any] | None) -> dict[int, Any] | None:
    return None if mapping is None else {int(k): v for k, v in mapping.items()}


def run_match(
    game_id: str,
    bots: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    chance_seed: int | None = None,
) -> MatchRecord:
    """Play one match between built-in bots (one spec per seat) and record it.

    `chance_seed` seeds the chance generator instead of the match seed: a tournament gives every
    seat rotation of a table the same one (duplicate play).
    """
    game = registry.make(game_id, len(bots), **dict(options or {}))
    agents = [make_bot(spec, game, seat, derive_seed(seed, "bot", seat)) for seat, spec in enumerate(bots)]
    record = MatchRecord(
        game_id=game_id,
        ruleset=game.ruleset,
        options=dict(game.options),
        seed=seed,
        seats=[SeatOutcome(spec) for spec in bots],
    )
    chance_rng = random.Random(derive_seed(seed, "chance") if chance_seed is None else chance_seed)
    state = game.initial_state()
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            step = StepRecord(chance=sample_chance(state, chance_rng))
        else:
            step = _decide(state, agents)
        state = state.apply_chance(step.chance) if step.chance is not None else state.apply(step.actions)
        record.steps.append(step)
    record.returns, record.ranks = state.returns(), state.ranks()
    return record


def _decide(state: State, agents: Sequence[Any]) -> StepRecord:
    actions, elapsed = {}, {}
    for seat in state.acting_players():
        started = time.perf_counter()
        actions[seat] = agents[seat].act(state.observation(seat), state.legal_actions(seat))
        elapsed[seat] = round((time.perf_counter() - started) * 1000, 3)
    return StepRecord(actions=actions, elapsed_ms=elapsed)
