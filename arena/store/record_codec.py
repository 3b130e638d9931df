"""How a match's record is stored: compressed, in the BLOB `match.record`, read back exactly.

The encoding itself (`encode_record`) is arena/record_encoding.py, on floor 0, so that the worker
that played a match encodes it (arena/match/executor.py) and the writer only inserts; this module
reads records back.

A record's text is the one the arena has always stored, `json.dumps(record)`; what is kept is one
of three encodings, told apart by the first byte, each zlib-compressed compact JSON:

- `0x02`, one seat per step: `[head, chances, seats, actions, elapsed]`, when every step is a
  chance step `{"chance": c, "actions": null, "elapsed_ms": null}` or one seat's decision
  `{"chance": null, "actions": {seat: a}, "elapsed_ms": {seat: ms}}` (seat null on a chance step;
  `actions` and `elapsed` list the decisions only). `head` is the record with `"steps": null`
  in its place. A 4-player Riga record of ~31 kB keeps ~1.5 kB.
- `0x01`, steps in columns: `[head, chances, actions, elapsed]`, when every step has exactly the
  keys `chance`, `actions`, `elapsed_ms` in that order (what `StepRecord` writes) but some step
  is neither of the above (several seats at once).
- `0x03`, against a preset dictionary of the game's (from revision 0019's arena on): then the
  dictionary's id (one byte, `DICTIONARIES` in arena/record_encoding.py), then a zlib stream,
  compressed with that dictionary, of `0x02` or `0x01` and its compact JSON as above. A 4-player
  Riga record keeps ~1.0 kB.
- a plain zlib stream of the text (RFC 1950: first byte 0x78): any other record.

Decoding rebuilds the same dict (keys in the same order), so `json.dumps` gives back the same
text: the keys repeated hundreds of times a match are gone. JSON turns a seat's key into a
string either way, so a record given with int keys reads back as its text did.

NULL is a pruned record (`arena store prune`): the match's row and seats stay, so its result
still counts. Every reader of a stored record goes through `decode_record` or `record_text`: the
dashboard's replay and API (`Store.match_record`), `arena store export`.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from arena.errors import StoreError
from arena.record_encoding import COLUMNS, DICTIONARY, LEVEL, ONE_SEAT, dictionary, encode_record

__all__ = ["COLUMNS", "DICTIONARY", "ONE_SEAT", "RecordPruned", "decode_record", "encode_record", "encode_text",
           "record_text"]
IN_COLUMNS = (ONE_SEAT, COLUMNS, DICTIONARY)

ZLIB_FIRST_BYTE = 0x78


class RecordPruned(StoreError):
    """The match is stored but its record was pruned: its result counts, its replay is gone."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"the record of match {match_id} was pruned (arena store prune): "
                         "its result still counts, its replay is no longer stored")
        self.match_id = match_id


def encode_text(text: str) -> bytes:
    """The stored form of a record's JSON text (a record stored as text before revision 0014):
    in columns only when they give back exactly this text, else the text itself compressed."""
    columns = encode_record(json.loads(text))
    if columns[:1] in IN_COLUMNS and record_text(columns) == text:
        return columns
    return zlib.compress(text.encode("utf-8"), LEVEL)


def record_text(stored: bytes | str, match_id: int = 0) -> str:
    """The JSON text of a stored record, exactly as it was written (a str: text before 0014)."""
    if isinstance(stored, str):
        return stored
    data = bytes(stored)  # PostgreSQL's driver may hand back a memoryview
    if data[:1] in IN_COLUMNS:
        return json.dumps(_from_columns(data, match_id))
    return zlib.decompress(_zlib(data, match_id)).decode("utf-8")


def decode_record(stored: bytes | str | None, match_id: int = 0) -> dict[str, Any]:
    """The record of a stored match; RecordPruned when its record was pruned (NULL)."""
    if stored is None:
        raise RecordPruned(match_id)
    if isinstance(stored, str):
        record: dict[str, Any] = json.loads(stored)
        return record
    data = bytes(stored)
    if data[:1] in IN_COLUMNS:
        return _from_columns(data, match_id)
    record = json.loads(zlib.decompress(_zlib(data, match_id)))
    return record


def _from_columns(data: bytes, match_id: int) -> dict[str, Any]:
    form, columns = _columns(data, match_id)
    head: dict[str, Any] = columns[0]
    if form == COLUMNS:
        _, chances, actions, elapsed = columns
        head["steps"] = [{"chance": c, "actions": a, "elapsed_ms": e} for c, a, e in zip(chances, actions, elapsed)]
        return head
    _, chances, seats, actions, elapsed = columns
    decisions = iter(zip(actions, elapsed))
    steps = []
    for chance, seat in zip(chances, seats):
        if seat is None:
            steps.append({"chance": chance, "actions": None, "elapsed_ms": None})
        else:
            action, took = next(decisions)
            steps.append({"chance": None, "actions": {seat: action}, "elapsed_ms": {seat: took}})
    head["steps"] = steps
    return head


def _columns(data: bytes, match_id: int) -> tuple[bytes, list[Any]]:
    """A record's form (ONE_SEAT or COLUMNS) and its columns."""
    if data[:1] != DICTIONARY:
        return data[:1], json.loads(zlib.decompress(data[1:]))
    try:
        preset = dictionary(data[1])
    except (IndexError, KeyError):
        raise StoreError(f"the stored record of match {match_id} was compressed with a dictionary this arena "
                         f"does not have (id {data[1:2].hex() or 'none'}): was it written by a newer arena?") from None
    decompressor = zlib.decompressobj(zdict=preset)
    inner = decompressor.decompress(data[2:]) + decompressor.flush()
    return inner[:1], json.loads(inner[1:])


def _zlib(data: bytes, match_id: int) -> bytes:
    if not data or data[0] != ZLIB_FIRST_BYTE:
        raise StoreError(f"the stored record of match {match_id} is in an unknown encoding "
                         f"(first byte {data[:1].hex() or 'none'}; known: 01, 02, 03, 78): "
                         "was it written by a newer arena?")
    return data
