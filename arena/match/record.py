"""What a match leaves behind: its record (seats, seeds, steps, terminations, returns, ranks),
how each seat's match ended, and the step's JSON form, as records and live pages store it.

Light on purpose: the live actor and the store read these values without the match runner.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.errors import ArenaError
from arena.outcomes import FaultKind, Termination
from arena.record_encoding import encode_record
from engine import registry
from engine.core import AnyState, Game, Step, replay

__all__ = ["FORFEIT_AT_ONCE", "Fault", "MatchAborted", "MatchRecord", "SeatOutcome", "StepRecord", "Termination",
           "count_strikes", "decode_log", "encode_public", "split_logs", "step_from_json", "step_json"]

FORFEIT_AT_ONCE = frozenset({FaultKind.DISCONNECT, FaultKind.CRASH})


@dataclass(frozen=True)
class Fault:
    """One faulty decision of a seat (a bot that could not be had for the match: step 0), as the
    record keeps it; its JSON is `{"step": index, "fault": kind, "reason": text}`."""

    step: int
    kind: FaultKind
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "fault": self.kind.value, "reason": self.reason}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fault:
        return cls(data["step"], FaultKind(data["fault"]), data["reason"])


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
    faults: list[Fault] = field(default_factory=list)  # every faulty decision, in order
    version: str = ""  # the version a connected bot declared in its Hello ("" if none)
    # PRIVATE: a launched bot's output while its seat was open (its last 64 KiB), None for any
    # other bot. It may show the bot's hidden information: the driver moves it out of the record
    # into the bot_log table (`split_logs`) before the record is stored or shown anywhere.
    log: str | None = None
    # PRIVATE, with `log`: where each decision's part of it starts, [[step, character offset], ...]
    # (what it printed from there to the next one is that decision's); None without a log
    log_steps: list[list[int]] | None = None

    @property
    def strikes(self) -> int:
        """Its faulty decisions (see `count_strikes`)."""
        return count_strikes(self.faults)


def count_strikes(faults: Iterable[Fault]) -> int:
    """The faulty decisions among a seat's recorded faults: timeouts, illegal and malformed answers.

    A disconnect or crash is recorded as a fault too, but it is no strike: it forfeits at once."""
    return sum(fault.kind not in FORFEIT_AT_ONCE for fault in faults)


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
        for seat, outcome in zip(data["seats"], self.seats):
            seat["termination"] = outcome.termination.value
            seat["faults"] = [fault.to_json() for fault in outcome.faults]
            for private in ("log", "log_steps"):
                if seat[private] is None:
                    del seat[private]
        data["steps"] = [step_json(step) for step in self.steps]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchRecord:
        seats = [
            SeatOutcome(s["bot"], Termination(s["termination"]), s["reason"],
                        [Fault.from_json(f) for f in s.get("faults", [])],
                        s.get("version", ""), s.get("log"), s.get("log_steps"))
            for s in data["seats"]
        ]
        steps = [step_from_json(s) for s in data["steps"]]
        fields = {k: v for k, v in data.items() if k not in ("seats", "steps")}
        return cls(seats=seats, steps=steps, **fields)

    def game(self) -> Game:
        return registry.make(self.game_id, self.num_players, **self.options)

    def replay(self) -> AnyState:
        """The final state, rebuilt by applying the recorded steps to a fresh game."""
        return replay(self.game().initial_state(), [step.as_step() for step in self.steps])


def decode_log(output: bytes, marks: Iterable[tuple[int, int]]) -> tuple[str, list[list[int]]]:
    """A launched seat's output as text, and where each decision's part of it starts in characters
    (`marks`: (step, byte offset)). Decoded piece by piece, so that a character cut by a mark (a
    bot printing while the next request went out) cannot shift the offsets after it.

    >>> decode_log(b"start\\nhand 7\\nhand \\xc3\\xa9\\n", [(2, 6), (4, 13)])
    ('start\\nhand 7\\nhand é\\n', [[2, 6], [4, 13]])
    """
    text, steps, start = "", [], 0
    for step, offset in marks:
        text += output[start:offset].decode(errors="replace")
        steps.append([step, len(text)])
        start = offset
    return text + output[start:].decode(errors="replace"), steps


def split_logs(record: Mapping[str, Any]) -> tuple[dict[str, Any], dict[int, str], dict[int, list[list[int]]]]:
    """A record's JSON without its seats' private logs, those logs by seat, and where each
    decision's part of them starts (`SeatOutcome.log_steps`) by seat.

    >>> split_logs({"seats": [{"bot": "a", "log": "hand: 7", "log_steps": [[1, 0]]}, {"bot": "random"}]})
    ({'seats': [{'bot': 'a'}, {'bot': 'random'}]}, {0: 'hand: 7'}, {0: [[1, 0]]})
    """
    seats = [dict(seat) for seat in record.get("seats") or []]
    logs = {n: seat.pop("log") for n, seat in enumerate(seats) if seat.get("log") is not None}
    steps = {n: seat.pop("log_steps") for n, seat in enumerate(seats) if seat.get("log_steps") is not None}
    for seat in seats:
        seat.pop("log", None)
        seat.pop("log_steps", None)
    return ({**record, "seats": seats} if "seats" in record else dict(record)), logs, steps


def encode_public(record: Mapping[str, Any]) -> bytes:
    """A played record as the store keeps it (arena/record_encoding.py): its public part, the
    launched bots' logs taken out by `split_logs` as the driver does. The worker that played the
    match makes it (arena/match/executor.py), so the one writer only inserts."""
    return encode_record(split_logs(record)[0])


def step_json(step: StepRecord) -> dict[str, Any]:
    """A step as JSON (seat keys become strings), as records store it."""
    return {
        "chance": step.chance,
        "actions": None if step.actions is None else {str(s): a for s, a in step.actions.items()},
        "elapsed_ms": None if step.elapsed_ms is None else {str(s): t for s, t in step.elapsed_ms.items()},
    }


def step_from_json(data: Mapping[str, Any]) -> StepRecord:
    """The inverse of `step_json`."""
    return StepRecord(chance=data["chance"], actions=_int_keys(data["actions"]),
                      elapsed_ms=_int_keys(data["elapsed_ms"]))


def _int_keys(mapping: Mapping[str, Any] | None) -> dict[int, Any] | None:
    return None if mapping is None else {int(k): v for k, v in mapping.items()}


class MatchAborted(ArenaError):
    """An error inside the arena stopped the match; `record` holds what was played (unrated).
    `gateway_gone`: the gateway stopped or could not be reached (a tournament plays it again later)."""

    def __init__(self, record: MatchRecord, gateway_gone: bool = False) -> None:
        super().__init__(record.aborted)
        self.record = record
        self.gateway_gone = gateway_gone

