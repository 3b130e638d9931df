"""How a match's public record is encoded for the store: the writing half of
arena/store/record_codec.py (which reads records back and says what the encodings are).

On floor 0 so that the worker that played a match encodes its record (arena/match/executor.py
`play_job`) without loading the database's libraries: the single writer then only inserts
(issue #33, "writes that keep up"). The bytes are the same wherever they are made.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

LEVEL = 4  # a Riga record: ~1.5 kB at 4, ~1.36 kB at 6 for ~25 % more CPU (two fit an SQLite page either way)
ONE_SEAT = b"\x02"
COLUMNS = b"\x01"
STEP_KEYS = ["chance", "actions", "elapsed_ms"]
_compact = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def encode_record(record: dict[str, Any]) -> bytes:
    """The stored form of a record whose text is `json.dumps(record)`."""
    steps = record.get("steps")
    if not isinstance(steps, list) or not all(isinstance(step, dict) and list(step) == STEP_KEYS for step in steps):
        return zlib.compress(json.dumps(record).encode("utf-8"), LEVEL)
    head = {key: (None if key == "steps" else value) for key, value in record.items()}
    chances = [step["chance"] for step in steps]
    one_seat = _one_seat(steps)
    if one_seat is not None:
        return ONE_SEAT + zlib.compress(_compact([head, chances, *one_seat]).encode("utf-8"), LEVEL)
    columns = [head, chances, [s["actions"] for s in steps], [s["elapsed_ms"] for s in steps]]
    return COLUMNS + zlib.compress(_compact(columns).encode("utf-8"), LEVEL)


def _one_seat(steps: list[dict[str, Any]]) -> tuple[list[Any], list[Any], list[Any]] | None:
    """(seats, actions, elapsed) when every step is a chance step or one seat's decision, else None."""
    seats: list[Any] = []
    actions: list[Any] = []
    elapsed: list[Any] = []
    for step in steps:
        acted, took = step["actions"], step["elapsed_ms"]
        if acted is None and took is None and step["chance"] is not None:
            seats.append(None)
        elif (step["chance"] is None and type(acted) is dict and type(took) is dict and len(acted) == 1
              and len(took) == 1 and acted.keys() == took.keys() and type(next(iter(acted))) is str):
            ((seat, action),) = acted.items()
            seats.append(seat)
            actions.append(action)
            elapsed.append(took[seat])
        else:
            return None
    return seats, actions, elapsed
