"""MatchRecord JSON: the shape other code stores, old records without fault lists, faults round-trip."""

from __future__ import annotations

import json

from arena.match.record import Fault, MatchRecord, Termination
from arena.match.runner import run_match
from arena.outcomes import FaultKind
from tests.arena.gateway_fixtures import *  # noqa: F403


def test_a_record_round_trips_through_json_with_its_faults(toy_registered: None) -> None:
    record = run_match("toy", ["random", "random"], 4)
    record.seats[1].faults.append(Fault(2, FaultKind.TIMEOUT, "no answer within 1250 ms"))
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


# A record as the store wrote it (`json.dumps` of MatchRecord.to_json) before faults were typed:
# a seat with a strike and a forfeit, a seat that could not be had (step 0), one without faults.
STORED = (
    '{"game_id": "toy", "ruleset": "toy@1", "options": {}, "seed": 7, "seats": ['
    '{"bot": "slow", "termination": "timeout", "reason": "2 faulty decisions (max 2); last: no answer; '
    'the random bot played the rest", "faults": [{"step": 1, "fault": "illegal_action", "reason": "answered 9"}, '
    '{"step": 3, "fault": "timeout", "reason": "no answer"}], "version": "1.2"}, '
    '{"bot": "gone", "termination": "crash", "reason": "never connected; the random bot played the rest", '
    '"faults": [{"step": 0, "fault": "crash", "reason": "never connected"}], "version": ""}, '
    '{"bot": "random", "termination": "normal", "reason": "", "faults": [], "version": ""}], '
    '"steps": [{"chance": 3, "actions": null, "elapsed_ms": null}, '
    '{"chance": null, "actions": {"0": 1, "1": 0, "2": 1}, "elapsed_ms": {"0": 12.5, "1": 0.01, "2": 0.02}}], '
    '"returns": [0.0, 0.0, 1.0], "ranks": [2, 3, 1], "aborted": null}'
)


def test_a_stored_record_with_faults_reads_back_and_writes_the_same_bytes() -> None:
    record = MatchRecord.from_json(json.loads(STORED))
    assert record.seats[0].faults == [Fault(1, FaultKind.ILLEGAL_ACTION, "answered 9"),
                                      Fault(3, FaultKind.TIMEOUT, "no answer")]
    assert [s.strikes for s in record.seats] == [2, 0, 0], "a crash forfeits at once: no strike"
    assert json.dumps(record.to_json()) == STORED
    written = record.to_json()["seats"][0]["faults"][0]
    assert [type(v) for v in written.values()] == [int, str, str], "plain JSON values, not enum members"


def test_a_record_encoded_where_it_was_played_is_the_public_record_the_writer_would_store() -> None:
    from arena.match.record import SeatOutcome, encode_public, split_logs
    from arena.store.record_codec import decode_record, encode_record, record_text

    played = run_match("riga", ["heuristic", "random", "heuristic", "random"], 11).to_json()
    played["seats"][0] |= {"log": "my hand: 7 of cups\n", "log_steps": [[1, 0]]}  # as a launched bot's seat
    public = split_logs(played)[0]
    encoded = encode_public(played)
    assert encoded == encode_record(public), "the worker's bytes are the writer's, byte for byte"
    assert decode_record(encoded) == public and record_text(encoded) == json.dumps(public)
    assert "my hand" not in record_text(encoded) and "log" not in decode_record(encoded)["seats"][0]
    quiet = MatchRecord("riga", "riga@1", {}, 1, [SeatOutcome("random", log="x")]).to_json()
    assert decode_record(encode_public(quiet))["seats"] == [{k: v for k, v in quiet["seats"][0].items() if k != "log"}]
