"""How a match's public record is encoded for the store: the writing half of
arena/store/record_codec.py (which reads records back and says what the encodings are).

On floor 0 so that the worker that played a match encodes its record (arena/match/executor.py
`play_job`) without loading the database's libraries: the single writer then only inserts
(issue #33, "writes that keep up"). The bytes are the same wherever they are made.

A game with a preset dictionary (`DICTIONARIES`: a file in arena/record_dictionaries/, the
compact JSON of two of its records) has its records in columns compressed against it (`0x03`):
the head, the keys and the typical runs of a record are then in the dictionary, not in each
record (a 4-player Riga record: ~1.0 kB instead of ~1.4 kB, so three match rows fit an SQLite
page instead of two). A dictionary is frozen once released (its sha256 is checked when it is
loaded): records made with it must decode for ever; a better one gets a new id.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from functools import cache
from pathlib import Path
from typing import Any

LEVEL = 4  # a Riga record: ~1.5 kB at 4, ~1.36 kB at 6 for ~25 % more CPU (two fit an SQLite page either way)
# against a dictionary, 6 gives ~0.99 kB (0.2 ms a Riga record) where 4 gives ~1.18 kB: three rows a page
DICTIONARY_LEVEL = 6
ONE_SEAT = b"\x02"
COLUMNS = b"\x01"
DICTIONARY = b"\x03"  # then the dictionary's id (one byte), then zlib(ONE_SEAT or COLUMNS + JSON) against it
STEP_KEYS = ["chance", "actions", "elapsed_ms"]
DICTIONARY_FOLDER = Path(__file__).parent / "record_dictionaries"
# id -> (game, file in DICTIONARY_FOLDER, its sha256); never changed or reused once released
DICTIONARIES: dict[int, tuple[str, str, str]] = {
    1: ("riga", "riga-1.zdict", "7915b8d5d5398dc211d0e96ebafebe5dbba098f7ed1f94ca2e1201c9d666d414"),
    2: ("gang_of_dice", "gang_of_dice-2.zdict", "6535c5fa1bf5069e797293b9b79dfb6e8472b74766ee7c2dc783291a18319b87"),
    3: ("lost_cities_rivals", "lost_cities_rivals-3.zdict",
        "99742c1230ad28f403f9263f7df6f78b1352988203c88f5968ef1743afe16e30"),
    4: ("riviera", "riviera-4.zdict", "63ca17f3c2ac0e64ea697fe2f0718d353fa8aec3fcad3f69e5cbdf5ab0e0a689"),
}
_compact = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def encode_record(record: dict[str, Any]) -> bytes:
    """The stored form of a record whose text is `json.dumps(record)`."""
    inner = columns_text(record)
    if not inner:
        return zlib.compress(json.dumps(record).encode("utf-8"), LEVEL)
    dictionary_id = GAME_DICTIONARY.get(record.get("game_id"))  # type: ignore[arg-type]
    if dictionary_id is None:
        return inner[:1] + zlib.compress(inner[1:], LEVEL)
    compressor = zlib.compressobj(DICTIONARY_LEVEL, zdict=dictionary(dictionary_id))
    return DICTIONARY + bytes([dictionary_id]) + compressor.compress(inner) + compressor.flush()


def columns_text(record: dict[str, Any]) -> bytes:
    """A record in columns: its form (ONE_SEAT or COLUMNS) and compact JSON; b"" when its steps are not
    StepRecord's. What a dictionary is made of, too (scripts/make_record_dictionary.py)."""
    steps = record.get("steps")
    if not isinstance(steps, list) or not all(isinstance(step, dict) and list(step) == STEP_KEYS for step in steps):
        return b""
    head = {key: (None if key == "steps" else value) for key, value in record.items()}
    chances = [step["chance"] for step in steps]
    one_seat = _one_seat(steps)
    if one_seat is not None:
        return ONE_SEAT + _compact([head, chances, *one_seat]).encode("utf-8")
    return COLUMNS + _compact([head, chances, [s["actions"] for s in steps], [s["elapsed_ms"] for s in steps]]).encode()


@cache
def dictionary(dictionary_id: int) -> bytes:
    """A released preset dictionary, checked against its sha256; KeyError for an unknown id."""
    game, name, sha256 = DICTIONARIES[dictionary_id]
    data = (DICTIONARY_FOLDER / name).read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(f"the record dictionary {name} of {game} was changed (sha256 differs): records stored "
                         "with it would no longer read back; restore the file, and give a new one a new id")
    return data


# the dictionary a game's new records use: its newest
GAME_DICTIONARY: dict[str, int] = {game: number for number, (game, _, _) in sorted(DICTIONARIES.items())}


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

