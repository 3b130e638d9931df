"""How a match's record is stored: compressed, in the BLOB `match.record`, read back exactly.

A record's text is the one the arena has always stored, `json.dumps(record)`; what is kept is one
of two encodings, told apart by the first byte:

- `0x01` + zlib: the record with its steps turned into columns, `[head, chances, actions, elapsed]`
  as compact JSON (`head` is the record with `"steps": null` in its place), when every step has
  exactly the keys `chance`, `actions`, `elapsed_ms` in that order (what `StepRecord` writes).
  Decoding rebuilds the same dict, so `json.dumps` gives the same text: the keys repeated 400
  times a match are gone, and a 4-player Riga record of ~31 kB keeps ~1.7 kB (plain zlib: ~2.2 kB).
- a plain zlib stream of the text (RFC 1950: first byte 0x78): any other record.

NULL is a pruned record (`arena store prune`): the match's row and seats stay, so its result
still counts. Every reader of a stored record goes through `decode_record` or `record_text`: the
dashboard's replay and API (`Store.match_record`), `arena store export`.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from arena.errors import StoreError

LEVEL = 6  # zlib's default: level 9 keeps ~3 % more of a Riga record for 1.5x the time
COLUMNS = b"\x01"
ZLIB_FIRST_BYTE = 0x78
STEP_KEYS = ["chance", "actions", "elapsed_ms"]


class RecordPruned(StoreError):
    """The match is stored but its record was pruned: its result counts, its replay is gone."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"the record of match {match_id} was pruned (arena store prune): "
                         "its result still counts, its replay is no longer stored")
        self.match_id = match_id


def encode_record(record: dict[str, Any]) -> bytes:
    """The stored form of a record whose text is `json.dumps(record)`."""
    steps = record.get("steps")
    if isinstance(steps, list) and all(isinstance(step, dict) and list(step) == STEP_KEYS for step in steps):
        head = {key: (None if key == "steps" else value) for key, value in record.items()}
        columns = [head, [s["chance"] for s in steps], [s["actions"] for s in steps], [s["elapsed_ms"] for s in steps]]
        return COLUMNS + zlib.compress(json.dumps(columns, separators=(",", ":")).encode("utf-8"), LEVEL)
    return zlib.compress(json.dumps(record).encode("utf-8"), LEVEL)


def encode_text(text: str) -> bytes:
    """The stored form of a record's JSON text (a record stored as text before revision 0013):
    in columns only when they give back exactly this text, else the text itself compressed."""
    columns = encode_record(json.loads(text))
    if columns[:1] == COLUMNS and record_text(columns) == text:
        return columns
    return zlib.compress(text.encode("utf-8"), LEVEL)


def record_text(stored: bytes | str, match_id: int = 0) -> str:
    """The JSON text of a stored record, exactly as it was written (a str: text before 0013)."""
    if isinstance(stored, str):
        return stored
    data = bytes(stored)  # PostgreSQL's driver may hand back a memoryview
    if data[:1] == COLUMNS:
        return json.dumps(_from_columns(data))
    return zlib.decompress(_zlib(data, match_id)).decode("utf-8")


def decode_record(stored: bytes | str | None, match_id: int = 0) -> dict[str, Any]:
    """The record of a stored match; RecordPruned when its record was pruned (NULL)."""
    if stored is None:
        raise RecordPruned(match_id)
    if isinstance(stored, str):
        record: dict[str, Any] = json.loads(stored)
        return record
    data = bytes(stored)
    if data[:1] == COLUMNS:
        return _from_columns(data)
    record = json.loads(zlib.decompress(_zlib(data, match_id)))
    return record


def _from_columns(data: bytes) -> dict[str, Any]:
    head, chances, actions, elapsed = json.loads(zlib.decompress(data[1:]))
    head["steps"] = [{"chance": c, "actions": a, "elapsed_ms": e} for c, a, e in zip(chances, actions, elapsed)]
    record: dict[str, Any] = head
    return record


def _zlib(data: bytes, match_id: int) -> bytes:
    if not data or data[0] != ZLIB_FIRST_BYTE:
        raise StoreError(f"the stored record of match {match_id} is in an unknown encoding "
                         f"(first byte {data[:1].hex() or 'none'}; known: 01, 78): was it written by a newer arena?")
    return data
