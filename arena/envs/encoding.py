"""One seat's observation as a fixed-length vector, and its legal actions as a mask.

Observations are nested JSON whose lists grow and shrink (a hand, a log), and the observation
schemas (proto/arena/v1/observations) give no lengths or value sets to lay out a fixed tensor from.
So the encoder uses feature hashing (the "hashing trick", Weinberger et al. 2009), the same for
every game: the observation is flattened into named features, and each name is hashed (CRC-32,
stable across processes and machines) to one of `size` slots, where its value is added.

- a number at path `p` (`"scores[1]"`, `"dice.R"`): feature `p` with that value;
- a boolean, string or null at `p`: feature `p=<value>` with value 1 (one-hot: `phase="turn"`);
- each element of a list also counts once as a member: feature `p[]=<element>` (so a hand
  [12, 40] sets `hand[]=12` and `hand[]=40` whatever the order), and the list's length is
  feature `p[]#`; elements are also features by index (`hand[0]`, `scores[1]`).

Two different features may share a slot (a collision): with the default 4096 slots and the few
hundred features of an observation, few do. Numbers are the engine's own (scores, counts, ids):
scale them in the learner if it needs that.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

DEFAULT_SIZE = 4096

Feature = tuple[str, float]
_TEXT = {True: "true", False: "false", None: "null"}


def features(value: Any) -> list[Feature]:
    """The named features of a JSON value (see the module docstring), depth first."""
    names: list[str] = []
    values: list[float] = []
    _walk(value, "", names, values)
    return list(zip(names, values))


def _walk(value: Any, path: str, names: list[str], values: list[float]) -> None:
    # One recursive function appending to two lists, dispatching on the exact type: the
    # encoder runs at every step of every environment, and this is about 3x faster than
    # generators and isinstance chains. A dict's or a list's scalar items are handled in its own
    # loop, without a call each (most of an observation is scalars): about 1.5x faster again.
    kind = type(value)
    if kind is dict:
        _walk_dict(value, f"{path}." if path else "", names, values)
    elif kind is list:
        _walk_list(value, path, names, values)
    elif kind is int or kind is float:
        names.append(path)
        values.append(value)
    else:
        names.append(f"{path}={_text(value)}")
        values.append(1.0)


def _walk_dict(value: dict[str, Any], prefix: str, names: list[str], values: list[float]) -> None:
    for key, item in value.items():
        kind = type(item)
        if kind is int or kind is float:
            names.append(f"{prefix}{key}")
            values.append(item)
        elif kind is str:
            names.append(f'{prefix}{key}="{item}"')
            values.append(1.0)
        else:
            _walk(item, f"{prefix}{key}", names, values)


def _walk_list(value: list[Any], path: str, names: list[str], values: list[float]) -> None:
    names.append(f"{path}[]#")
    values.append(len(value))
    for index, item in enumerate(value):
        kind = type(item)
        if kind is dict or kind is list:
            _walk(item, f"{path}[{index}]", names, values)
            continue
        text = _text(item)
        names.append(f"{path}[]={text}")
        values.append(1.0)
        if kind is int or kind is float:
            names.append(f"{path}[{index}]")
            values.append(item)
        else:
            names.append(f"{path}[{index}]={text}")
            values.append(1.0)


def _text(scalar: Any) -> str:
    """A scalar as in JSON: true, null, 7, "red" (quotes unescaped: only a hash reads it)."""
    if type(scalar) is str:
        return f'"{scalar}"'
    if scalar is None or type(scalar) is bool:
        return _TEXT[scalar]
    return repr(scalar)


def slot(name: str, size: int) -> int:
    """The slot of a feature name: CRC-32, which, unlike hash(), is the same in every process."""
    return zlib.crc32(name.encode()) % size


class ObservationEncoder:
    """Encodes observations into float32 vectors of one fixed `size`."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"encoding size must be a positive integer, got {size!r}")
        self.size = size
        self._slots: dict[str, int] = {}  # each feature name's slot, once computed

    def encode(self, observation: dict[str, Any]) -> np.ndarray:
        """The observation as a vector of `size` float32 values."""
        names: list[str] = []
        values: list[float] = []
        _walk(observation, "", names, values)
        return np.bincount(self._slots_of(names), values, minlength=self.size).astype(np.float32)

    def encode_batch(self, observations: Sequence[dict[str, Any]]) -> np.ndarray:
        """Many observations as one (len, size) float32 array, row i equal to `encode(observations[i])`.

        Row by row into one array: measured, one bincount over every row's slots (each offset by
        its row) was no faster, the Python walk over the features being most of the cost either
        way (BENCHMARKS.md, "A batch of games")."""
        encoded = np.empty((len(observations), self.size), np.float32)
        for row, observation in enumerate(observations):
            names: list[str] = []
            values: list[float] = []
            _walk(observation, "", names, values)
            encoded[row] = np.bincount(self._slots_of(names), values, minlength=self.size)
        return encoded

    def _slots_of(self, names: list[str]) -> list[int]:
        """The slot of every name, remembered: names repeat from one observation to the next, so
        after the first steps every lookup succeeds, and `map` over the dict's own lookup does them
        at C speed (about 15% of an encoding, against a Python loop)."""
        known = self._slots
        try:
            return list(map(known.__getitem__, names))
        except KeyError:
            for name in names:
                if name not in known:
                    known[name] = slot(name, self.size)
            return list(map(known.__getitem__, names))

    def encode_into(self, observation: dict[str, Any], vector: np.ndarray) -> None:
        """Write the encoding into an existing vector of `size` values."""
        vector[:] = self.encode(observation)


def action_mask(legal_actions: Sequence[int], num_actions: int) -> np.ndarray:
    """An int8 vector of `num_actions` with 1 at every legal action id, 0 elsewhere."""
    mask = np.zeros(num_actions, np.int8)
    mask[list(legal_actions)] = 1
    return mask


def action_masks(legal_actions: Sequence[Sequence[int]], num_actions: int) -> np.ndarray:
    """A (len, num_actions) int8 array, row i equal to `action_mask(legal_actions[i], num_actions)`."""
    masks = np.zeros((len(legal_actions), num_actions), np.int8)
    rows = np.repeat(np.arange(len(legal_actions)), [len(legal) for legal in legal_actions])
    columns = np.fromiter((action for legal in legal_actions for action in legal), np.int64, len(rows))
    masks[rows, columns] = 1
    return masks
