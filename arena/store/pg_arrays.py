"""PostgreSQL's binary arrays of numbers, packed and read by numpy: columns of numbers sent in
them, and lists the server makes (a refit's pairs, arena/store/pair_lists.py) read from them.

arena/store/bulk.py sends a batch's rows as one array per column. psycopg dumps a Python list
element by element (a Python call and a `struct.pack` per number); a column of ints or floats
without NULLs is packed here at once instead, in PostgreSQL's binary array format (`array_send`: a
header, then each element's length and big-endian value), and the statement's cast
(`::INTEGER[]`) turns the int8 array into the column's type on the server, as it did the list's.
A small gain: writes in batches of 100 at 1M/10k ~1-2 % (BENCHMARKS.md, "PostgreSQL at 1M / 10k:
the refit's read, the writer's caches, fewer bytes"). The other way, an array the server sends is
left as its bytes (`ArrayBytes`) and read in place (`unpacked`).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import psycopg
from numpy.typing import NDArray
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format

INT8, FLOAT8 = psycopg.postgres.types["int8"], psycopg.postgres.types["float8"]
HEADER = struct.Struct(">iiiii")  # one dimension: dimensions, has-NULLs flag, element type, length, lower bound


def elements(value: str) -> np.dtype[Any]:
    """An array's elements after the header: each its length (int32), then its value (`value`,
    a big-endian numpy type such as ">i8")."""
    return np.dtype([("length", ">i4"), ("value", value)])


class PackedArray:
    """A one-dimensional array already in PostgreSQL's binary format."""

    def __init__(self, data: bytes) -> None:
        self.data = data


class Int8Array(PackedArray):
    pass


class Float8Array(PackedArray):
    pass


class _Int8ArrayDumper(Dumper):
    format = Format.BINARY
    oid = INT8.array_oid

    def dump(self, obj: Any) -> bytes:
        return obj.data  # type: ignore[no-any-return]


class _Float8ArrayDumper(_Int8ArrayDumper):
    oid = FLOAT8.array_oid


psycopg.adapters.register_dumper(Int8Array, _Int8ArrayDumper)
psycopg.adapters.register_dumper(Float8Array, _Float8ArrayDumper)


def packed(values: list[Any]) -> Any:
    """`values` as an Int8Array or Float8Array when they are all ints or all floats (bools and
    NULLs excepted, and ints beyond 64 bits), else as they were: psycopg dumps those."""
    if not values or None in values:
        return values
    kinds = set(map(type, values))
    if kinds == {int}:
        if not -(1 << 63) <= min(values) <= max(values) < (1 << 63):
            return values
        return Int8Array(_packed(values, INT8.oid, ">i8"))
    if kinds <= {float, int} and float in kinds:
        return Float8Array(_packed(values, FLOAT8.oid, ">f8"))
    return values


def _packed(values: list[Any], oid: int, value: str) -> bytes:
    body = np.empty(len(values), dtype=elements(value))
    body["length"] = 8
    body["value"] = values
    return HEADER.pack(1, 0, oid, len(values), 1) + body.tobytes()


class ArrayBytes(Loader):
    """A binary array the server sends, left as its bytes (`unpacked` reads them), not made a list
    of Python numbers (register it for the array types wanted on a cursor's adapters)."""

    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        return bytes(data)


def unpacked(data: bytes, value: str) -> NDArray[np.int64]:
    """A one-dimensional binary array of ints without NULLs (its elements of numpy type `value`,
    such as ">i4") as int64, read in place."""
    return np.frombuffer(data, elements(value), offset=HEADER.size)["value"].astype(np.int64)
