"""Who plays a seat: a built-in bot in this process, or a connected bot through the gateway.

The match runner asks every seat the same way (`decide(...) -> Answer`) and does not care which
kind it is. A connected seat's answer may carry a fault (timeout, disconnect, ...) instead of an
action; the runner turns faults into strikes and forfeits (see arena/match/runner.py).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from arena.link.client import GatewayClient
from arena.match.clock import Clock
from arena.outcomes import FaultKind
from arena.v1 import bot_pb2 as pb
from bots.base import Bot
from engine.core import Game, State

FAULTS = {  # proto Termination -> the fault it reports
    pb.TERMINATION_TIMEOUT: FaultKind.TIMEOUT,
    pb.TERMINATION_ILLEGAL_ACTION: FaultKind.ILLEGAL_ACTION,
    pb.TERMINATION_PROTOCOL_ERROR: FaultKind.PROTOCOL_ERROR,
    pb.TERMINATION_DISCONNECT: FaultKind.DISCONNECT,
    pb.TERMINATION_CRASH: FaultKind.CRASH,
}


@dataclass
class Answer:
    """A seat's answer to one decision: an action, or a fault."""

    action: int | None
    elapsed_ms: float
    fault: FaultKind | None = None
    reason: str = ""


@dataclass(frozen=True)
class Decision:
    """What a seat is asked: the state (the runner's; only the seat's observation leaves it)."""

    match_id: str
    step: int
    state: State
    seat: int


class BuiltinSeat:
    """A built-in bot, trusted and in-process: its time is recorded, not limited."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def open(self, start: pb.MatchStart, connect_timeout_ms: int) -> Answer | None:
        return None

    def decide(self, decision: Decision) -> Answer:
        state, seat = decision.state, decision.seat
        started = time.perf_counter()
        action = self.bot.act(state.observation(seat), state.legal_actions(seat))
        return Answer(action, round((time.perf_counter() - started) * 1000, 3))

    def close(self, end: pb.MatchEnd) -> None:
        return None


class ConnectedSeat:
    """A registered bot that plays through the gateway, on a clock."""

    def __init__(self, client: GatewayClient, bot_name: str, game: Game, clock: Clock) -> None:
        self.client = client
        self.bot_name = bot_name
        self.game = game
        self.clock = clock
        self.opened = False  # only an opened seat is closed: closing releases a launched bot
        self.declared_version = ""  # what the bot declared in its Hello, known once the seat is open
        # a launched bot's output while the seat was open (or before its launch failed); None for
        # a bot that dials in by itself, whose output the arena never sees
        self.output: bytes | None = None
        self.marks: list[tuple[int, int]] = []  # where each decision starts in `output`: (step, byte offset)
        self._labels: dict[int, str] = {}

    def open(self, start: pb.MatchStart, connect_timeout_ms: int) -> Answer | None:
        """Get the bot connected (or launched) for the match; an Answer with a fault if it cannot be."""
        reply = self.client.open_seat(self.bot_name, start, connect_timeout_ms)
        if reply.fault == pb.TERMINATION_NORMAL:
            self.opened = True
            self.declared_version = reply.version
            return None
        self.output = reply.output_tail if reply.HasField("output_tail") else None
        return Answer(None, 0.0, FAULTS.get(reply.fault, FaultKind.DISCONNECT), reply.reason)

    def decide(self, decision: Decision) -> Answer:
        time_left, deadline = self.clock.time_left_ms(), self.clock.deadline_ms()
        reply = self.client.decide(self.bot_name, self._request(decision), deadline)
        in_time = self.clock.charge(reply.elapsed_ms)
        if reply.fault != pb.TERMINATION_NORMAL:
            reason = reply.reason
            if reply.fault == pb.TERMINATION_TIMEOUT:
                reason = f"{reason} (time left {time_left} ms + grace {self.clock.control.grace_ms} ms)"
            return Answer(None, reply.elapsed_ms, FAULTS.get(reply.fault, FaultKind.PROTOCOL_ERROR), reason)
        if not in_time:
            return Answer(None, reply.elapsed_ms, FaultKind.TIMEOUT,
                          f"answered after {reply.elapsed_ms:.0f} ms; the deadline was {deadline} ms")
        return Answer(reply.action_id, reply.elapsed_ms)

    def close(self, end: pb.MatchEnd) -> None:
        if self.opened:
            reply = self.client.close_seat(self.bot_name, end)
            if reply is not None and reply.HasField("output_tail"):
                self.output = reply.output_tail
                self.marks = [(mark.step, mark.offset) for mark in reply.decision_marks]

    def _request(self, decision: Decision) -> pb.DecisionRequest:
        state, seat = decision.state, decision.seat
        return pb.DecisionRequest(
            match_id=decision.match_id,
            seat=seat,
            game_id=self.game.info.id,
            ruleset=self.game.ruleset,
            step=decision.step,
            observation_json=observation_json(state.observation(seat)),
            legal_actions=[pb.LegalAction(id=a, label=self._label(a)) for a in state.legal_actions(seat)],
            time_left_ms=self.clock.time_left_ms(),
            decision_ms=self.clock.control.decision_ms,
            bank_ms=int(self.clock.bank_ms),
        )

    def _label(self, action: int) -> str:
        if action not in self._labels:
            self._labels[action] = self.game.action_label(action)
        return self._labels[action]


def observation_json(observation: dict[str, Any]) -> str:
    """The observation as sent on the wire: compact JSON with sorted keys."""
    return json.dumps(observation, separators=(",", ":"), sort_keys=True)
