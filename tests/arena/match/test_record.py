"""MatchRecord JSON: the shape other code stores, old records without fault lists, faults round-trip."""

from __future__ import annotations

import json

from arena.match.record import MatchRecord, Termination
from arena.match.runner import run_match
from tests.arena.gateway_fixtures import *  # noqa: F403


def test_a_record_round_trips_through_json_with_its_faults(toy_registered: None) -> None:
    record = run_match("toy", ["random", "random"], 4)
    record.seats[1].faults.append({"step": 2, "fault": "timeout", "reason": "no answer within 1250 ms"})
    record.seats[1].termination = Termination.TIMEOUT
    data = json.loads(json.dumps(record.to_json()))
    assert set(data) == {"game_id", "ruleset", "options", "seed", "seats", "steps", "returns", "ranks", "aborted"}
    assert set(data["seats"][0]) == {"bot", "termination", "reason", "faults", "version"}
    again = MatchRecord.from_json(data)
    assert again == record


def test_a_record_stored_before_fault_lists_still_loads(toy_registered: None) -> None:
    data = run_match("toy", ["random", "random"], 4).to_json()
    for seat in data["seats"]:
        del seat["faults"], seat["version"]
    loaded = MatchRecord.from_json(data)
    assert all(seat.faults == [] and seat.version == "" for seat in loaded.seats)
    assert loaded.replay().returns() == data["returns"]
