"""One stored match as one seat saw it, for that seat's author (`arena-bot replay`, the /my pages).

Built from the record by replaying it through the engine, and holding only what the engine gave
that seat: at each of its decisions the observation `state.observation(seat)`, its legal actions
and its answer, and at the end its last observation and the public result. Never the full state,
another seat's observation or a chance outcome: what the seat was not shown stays in the engine.
Beside each decision, what the author's launched bot printed from that decision's request to the
next one's (the bot's log cut per decision: `BotLog.by_decision`), which only its author reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.errors import ArenaError
from arena.match.record import MatchRecord
from arena.store import BotLog
from engine.core import advance


class ReplayUnavailable(ArenaError):
    """The record cannot be replayed by this arena's engine (a ruleset it no longer plays)."""


def seat_replay(record_json: Mapping[str, Any], match_id: int, seat: int, entrants: list[str],
                log: BotLog | None) -> dict[str, Any]:
    """The match as `seat` saw it, as JSON: its decisions (observation, legal actions, answer, time,
    fault, printed output) and its final observation with the result."""
    record = MatchRecord.from_json(record_json)
    try:
        game = record.game()
        state = game.initial_state()
    except (KeyError, ValueError) as error:
        raise ReplayUnavailable(f"this arena cannot set up {record.ruleset}: {error}") from None
    printed = log.by_decision() if log is not None else {}
    faults = {fault.step: fault.to_json() for fault in record.seats[seat].faults}
    decisions = []
    for index, step in enumerate(record.steps):
        if step.actions is not None and seat in step.actions:
            action = step.actions[seat]
            decisions.append({
                "step": index, "observation": state.observation(seat),
                "legal_actions": [{"id": a, "label": game.action_label(a)} for a in state.legal_actions(seat)],
                "action": action, "action_label": game.action_label(action),
                "elapsed_ms": (step.elapsed_ms or {}).get(seat), "fault": faults.get(index),
                "output": printed.get(index, ""),
            })
        try:
            state = advance(state, step.as_step())
        except ValueError as error:
            raise ReplayUnavailable(f"step {index} of the record does not replay: {error}") from None
    return {
        "match_id": match_id, "game_id": record.game_id, "ruleset": record.ruleset, "seat": seat,
        "entrant": entrants[seat], "decisions": decisions,
        "output_before_first_decision": _before_first(log),
        "final_observation": state.observation(seat), "result": _result(record, entrants),
    }


def _before_first(log: BotLog | None) -> str:
    """What the bot printed before its first decision's request (all of it when no decision is marked)."""
    if log is None:
        return ""
    return log.text[:log.decisions[0][1]] if log.decisions else log.text


def _result(record: MatchRecord, entrants: list[str]) -> dict[str, Any]:
    """The public result: each seat's entrant, score, rank and how its match ended."""
    unknown: list[None] = [None] * record.num_players  # an aborted match has neither
    returns: list[float | None] = [*(record.returns or unknown)]
    ranks: list[int | None] = [*(record.ranks or unknown)]
    return {"aborted": record.aborted, "seats": [
        {"seat": i, "entrant": entrants[i], "score": returns[i], "rank": ranks[i],
         "termination": outcome.termination.value, "reason": outcome.reason}
        for i, outcome in enumerate(record.seats)]}
