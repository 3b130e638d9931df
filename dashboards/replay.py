"""A stored match, replayed through its engine so the viewer can step through it move by move.

The record holds every step (chance outcomes; each acting seat's action and time). Replaying it
from the game's initial state rebuilds every position, and the engine says what each seat saw
there: `state.observation(seat)` — exactly what that bot was given, nothing more. The public
view is what every seat saw alike: the parts of the observations that are equal for all seats.
The step log, likewise, names a chance outcome or an action only to the views the engine lets
see it (`chance_views`, `action_visibility`): a card dealt to seat 0 reads "dealt a card to
seat 0" elsewhere.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from arena.errors import ArenaError
from arena.match.record import MatchRecord
from engine.core import Game, NodeKind, State, advance
from engine.visibility import ChanceView, chance_views, may_see

PUBLIC = "public"


@dataclass
class Replay:
    """Every position of one match: `states[n]` is the position after `n` steps.

    `names` are the seats' entrant names (`random#2`), which the record does not hold: it names
    what played (`random`)."""

    record: MatchRecord
    game: Game
    states: list[State]
    names: list[str]
    _logs: dict[str | int, list[dict[str, Any]]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_record(cls, data: dict[str, Any], names: list[str] | None = None) -> Replay:
        """Replay a stored record; ReplayUnavailable when this engine cannot (any more)."""
        record = MatchRecord.from_json(data)
        try:
            game = record.game()
        except (KeyError, ValueError) as error:
            raise ReplayUnavailable(f"this arena cannot set up {record.ruleset}: {error}") from None
        if game.ruleset != record.ruleset:
            raise ReplayUnavailable(f"the match was played under {record.ruleset}; this engine plays {game.ruleset}")
        states = [game.initial_state()]
        for n, step in enumerate(record.steps):
            try:
                states.append(advance(states[-1], step.as_step()))
            except ValueError as error:  # IllegalActionError: the record and the engine disagree
                raise ReplayUnavailable(f"step {n + 1} of the record does not replay: {error}") from None
        return cls(record, game, states, names or [seat.bot for seat in record.seats])

    @property
    def positions(self) -> int:
        """How many positions there are: the start plus one after each step."""
        return len(self.states)

    def log(self, view: str | int = PUBLIC) -> list[dict[str, Any]]:
        """Every step as `view` (a seat, or PUBLIC) may read it: what chance drew (id and label;
        for an outcome hidden from that view, only what was drawn for whom), or what each acting
        seat played and how long it took; `words` is the step as a sentence naming each seat and
        its bot ("seat 0 · random#2: bids 4")."""
        if view not in self._logs:  # a replay is cached: each view's log is worked out once
            faults = self._faults_by_step()
            viewer = None if view == PUBLIC else int(view)
            self._logs[view] = [self._log_entry(n, faults, viewer) for n in range(len(self.record.steps))]
        return self._logs[view]

    @cached_property
    def chance_views(self) -> list[ChanceView | None]:
        """Each step's chance outcome as its viewers may read it (None for a decision)."""
        return chance_views(self.states[:-1], [step.as_step() for step in self.record.steps])

    def _log_entry(self, n: int, faults: dict[tuple[int, int], dict[str, Any]], viewer: int | None) -> dict[str, Any]:
        step = self.record.steps[n]
        entry: dict[str, Any] = {"step": n + 1, "phase": _phase(self.states[n])}
        if step.chance is not None:
            chance = self._chance_entry(n, viewer)
            return {**entry, **chance, "words": chance["label"]}
        assert step.actions is not None
        times = step.elapsed_ms or {}
        entry["kind"] = "decision"
        entry["actions"] = [
            {"seat": seat, "bot": self.names[seat], **self._action(n, seat, action, viewer),
             "elapsed_ms": times.get(seat), "fault": faults.get((n, seat))}
            for seat, action in sorted(step.actions.items())
        ]
        entry["words"] = "; ".join(f"seat {a['seat']} · {a['bot']}: {a['label']}" for a in entry["actions"])
        return entry

    def _action(self, n: int, seat: int, action: int, viewer: int | None) -> dict[str, Any]:
        """The action id and label `viewer` may read: a card handed face down reads "seat 0
        gives a card to seat 2" to the others, with no id."""
        state = self.states[n]
        if may_see(state.action_visibility(seat, action), viewer):
            return {"action": action, "label": self.game.action_label(action), "hidden": False}
        return {"action": None, "label": state.hidden_action_label(seat), "hidden": True}

    def _chance_entry(self, n: int, viewer: int | None) -> dict[str, Any]:
        view, outcome = self.chance_views[n], self.record.steps[n].chance
        assert view is not None
        if not view.visible_to(viewer):  # the id, the odds and the count could name it too
            return {"kind": "chance", "hidden": True, "label": view.hidden_label, "outcome": None,
                    "choices": None, "probability": None}
        outcomes = self.states[n].chance_outcomes()
        return {"kind": "chance", "hidden": False, "label": view.label, "outcome": outcome,
                "choices": len(outcomes), "probability": dict(outcomes).get(outcome)}

    def _faults_by_step(self) -> dict[tuple[int, int], dict[str, Any]]:
        return {
            (fault.step, seat): fault.to_json()
            for seat, outcome in enumerate(self.record.seats) for fault in outcome.faults
        }

    def seat_fields(self, samples: int = 16) -> list[str]:
        """Observation fields that hold one value per seat (scores, statuses, ...): lists of one
        scalar per seat at every sampled position, so a hand that happens to hold as many cards
        as there are seats is not mistaken for one."""
        n = self.record.num_players
        step = max(1, len(self.states) // samples)
        observations = [s.observation(0) for s in self.states[::step]]
        return sorted(
            key for key in observations[0]
            if all(_one_scalar_per_seat(o.get(key), n) for o in observations)
        )

    def frame(self, position: int, view: str | int) -> dict[str, Any]:
        """The position after `position` steps, as one seat saw it or as every seat saw it."""
        state = self.states[position]
        shown = public_view(state) if view == PUBLIC else state.observation(int(view))
        frame: dict[str, Any] = {
            "position": position, "positions": self.positions, "view": view, "node": state.kind.value,
            "acting": list(state.acting_players()), "state": shown,
        }
        if state.kind is NodeKind.TERMINAL:
            frame["result"] = self.result()
        return frame

    def result(self) -> dict[str, Any]:
        """The final scores and ranks as recorded, with each seat's bot and how its match ended."""
        record = self.record
        return {
            "seats": [
                {"seat": i, "bot": self.names[i], "score": (record.returns or [None] * len(record.seats))[i],
                 "rank": (record.ranks or [None] * len(record.seats))[i], "termination": s.termination.value,
                 "reason": s.reason}
                for i, s in enumerate(record.seats)
            ],
            "aborted": record.aborted,
        }


def public_view(state: State) -> dict[str, Any]:
    """What every seat sees alike: the observation parts equal for all seats ("seat" left out)."""
    observations = [state.observation(seat) for seat in range(state.num_players)]
    common = common_part(observations)
    common.pop("seat", None)
    return common


def common_part(values: list[Any]) -> Any:
    """The part of several JSON values that all of them share; dicts are compared key by key."""
    first = values[0]
    if all(v == first for v in values[1:]):
        return first
    if all(isinstance(v, dict) for v in values):
        shared: dict[str, Any] = {}
        for key in first:
            if all(key in v for v in values[1:]):
                part = common_part([v[key] for v in values])
                if part is not _HIDDEN:
                    shared[key] = part
        return shared
    if all(isinstance(v, list) for v in values) and len({len(v) for v in values}) == 1:
        parts = [common_part([v[i] for v in values]) for i in range(len(first))]
        if all(p is not _HIDDEN for p in parts):
            return parts
    return _HIDDEN


class _Hidden:
    """Marks a value the seats do not all see alike (left out of the public view)."""


_HIDDEN: Any = _Hidden()


def _one_scalar_per_seat(value: Any, seats: int) -> bool:
    return isinstance(value, list) and len(value) == seats and all(
        v is None or isinstance(v, (str, int, float, bool)) for v in value
    )


def _phase(state: State) -> str | None:
    if state.kind is NodeKind.TERMINAL:
        return None
    observation = state.observation(0)
    phase = observation.get("phase")
    return phase if isinstance(phase, str) else None


class ReplayUnavailable(ArenaError):
    """A stored record that this arena's engine cannot replay (a ruleset it no longer plays)."""


class ReplayCache:
    """The last few replays, so stepping through a match does not replay it at every step."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._replays: OrderedDict[int, Replay] = OrderedDict()
        self._lock = threading.Lock()  # pages are served from a thread pool

    def get(self, match_id: int, load: Any) -> Replay | None:
        """The replay of a match; `load()` gives its record JSON and its seats' entrant names,
        or None when there is no such match."""
        with self._lock:
            return self._get(match_id, load)

    def _get(self, match_id: int, load: Any) -> Replay | None:
        if match_id in self._replays:
            self._replays.move_to_end(match_id)
            return self._replays[match_id]
        loaded = load()
        if loaded is None:
            return None
        replay = Replay.from_record(*loaded)
        self._replays[match_id] = replay
        if len(self._replays) > self.size:
            self._replays.popitem(last=False)
        return replay
