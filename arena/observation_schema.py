"""JSON Schemas of every game's observations, generated from the engine itself.

A bot author in any language can generate types from `proto/arena/v1/observations/<game>.schema.json`.
The schemas are inferred from what the engine really gives: every seat's observation at every
decision and at the end of seeded random playouts (the end too: PettingZoo's `engine_observation`
and OpenSpiel hand them out, with null where nobody moves any more), and at every chance node of the
first playout of each player count; for every player count and every non-default option
value (the conformance suite's variants; its seeds are not among the ones sampled here, so its
check that every observation validates is a check on unseen play). An object lists every key ever
seen (`required`: those present in every sample; no other keys allowed); an array's items merge
every element seen; a value seen both as a number and as null has both types. A named string
value (a phase, a colour, a status, a card id, an option) has an `enum`: every name the engine
defines there (observation_names.py), not only those seen; a name seen that the list lacks stops
the generation. The inference is deterministic, so the committed files are regenerated exactly
(tests/engine/test_observation_schemas.py fails when they drift) and every observation of the
conformance playouts must validate against them.

    python -m arena.observation_schema            # rewrite the committed schema files
    python -m arena.observation_schema --check    # exit 1 when a committed file is out of date
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import observation_names
from engine import registry
from engine.core import Game, NodeKind, State, sample_chance

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "proto" / "arena" / "v1" / "observations"
PLAYOUTS_PER_PLAYER_COUNT = 12  # with the default options
PLAYOUTS_PER_OPTION = 2  # each non-default option value, at the most players
FIRST_SEED = 1000  # apart from the conformance suite's seeds 0, 1, 2
JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
              (list, "array"), (dict, "object"), (type(None), "null"))


@dataclass
class Shape:
    """Everything seen at one place of an observation, merged over all samples."""

    types: set[str] = field(default_factory=set)
    objects: int = 0  # how many objects were seen here
    keys: dict[str, Shape] = field(default_factory=dict)
    key_counts: dict[str, int] = field(default_factory=dict)
    items: Shape | None = None
    strings: set[str] = field(default_factory=set)  # the string values seen here

    def add(self, value: Any) -> None:
        kind = json_type(value)
        self.types.add(kind)
        if kind == "object":
            self.objects += 1
            for key, item in value.items():
                self.keys.setdefault(key, Shape()).add(item)
                self.key_counts[key] = self.key_counts.get(key, 0) + 1
        elif kind == "array":
            for item in value:
                self.items = self.items or Shape()
                self.items.add(item)
        elif kind == "string":
            self.strings.add(value)

    def schema(self, names: Mapping[str, Sequence[str]] | None = None, path: str = "") -> dict[str, Any]:
        """This shape as a JSON Schema (draft 2020-12); `names` gives the string places (paths like
        "phase", "status[]", "events[].type") their enum."""
        names = names or {}
        types = sorted(self.types - {"integer"} if "number" in self.types else self.types)
        out: dict[str, Any] = {"type": types[0] if len(types) == 1 else types}
        if "string" in self.types and path in names:
            out["enum"] = enum_of(path, names[path], self.strings, "null" in self.types)
        if "object" in self.types:
            out["properties"] = {key: shape.schema(names, f"{path}.{key}".lstrip("."))
                                 for key, shape in sorted(self.keys.items())}
            out["required"] = sorted(k for k, n in self.key_counts.items() if n == self.objects)
            out["additionalProperties"] = False
        if "array" in self.types and self.items is not None:
            out["items"] = self.items.schema(names, f"{path}[]")
        return out


def enum_of(path: str, defined: Sequence[str], seen: set[str], nullable: bool) -> list[str | None]:
    """The names defined for one place (plus null where null was seen); ValueError when the
    engine sent a name the definition lacks (its description's observation_names are then out of date)."""
    if unknown := seen - set(defined):
        raise ValueError(f"{path}: the engine sent {sorted(unknown)}, which the game's observation_names do not list")
    return [*sorted(set(defined)), *([None] if nullable else [])]


def json_type(value: Any) -> str:
    for python_type, name in JSON_TYPES:  # bool before int: a bool is an int in Python
        if isinstance(value, python_type):
            return name
    raise TypeError(f"an observation holds {type(value).__name__!r}, which is not JSON")


def variants(game_id: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every player count with the defaults, then each non-default option value at most players."""
    info = registry.info(game_id)
    for players in range(info.min_players, info.max_players + 1):
        yield players, {}
    for name, spec in info.options.items():
        for value in spec.choices:
            if value != spec.default:
                yield info.max_players, {name: value}


def walk(game: Game, seed: int) -> Iterator[State]:
    """Every state of one seeded random playout."""
    state, rng = game.initial_state(), random.Random(seed)
    yield state
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
        else:
            state = state.apply({s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})
        yield state


def decision_observations(state: State) -> Iterator[dict[str, Any]]:
    """The observations a DecisionRequest carries at this state: one per acting seat."""
    if state.kind is NodeKind.DECISION:
        for seat in state.acting_players():
            yield state.observation(seat)


def given_observations(state: State, chance: bool = True) -> Iterator[dict[str, Any]]:
    """Every observation the engine gives at this state: a decision's acting seats (what a bot is
    sent), every seat at the end (an RL environment's last observation), every seat at a chance
    node (a replay; with `chance`)."""
    if state.kind is NodeKind.DECISION:
        yield from decision_observations(state)
    elif state.kind is NodeKind.TERMINAL or chance:
        for seat in range(state.num_players):
            yield state.observation(seat)


def observations(game_id: str) -> Iterator[dict[str, Any]]:
    """Every observation given in the sample playouts of every variant (chance nodes: in the
    first playout of each player count; there are many, and they vary little)."""
    for players, options in variants(game_id):
        game = registry.make(game_id, num_players=players, **options)
        playouts = PLAYOUTS_PER_OPTION if options else PLAYOUTS_PER_PLAYER_COUNT
        for seed in range(FIRST_SEED, FIRST_SEED + playouts):
            for state in walk(game, seed):
                yield from given_observations(state, chance=seed == FIRST_SEED and not options)


def game_schema(game_id: str) -> dict[str, Any]:
    """The JSON Schema of one game's observations."""
    shape = Shape()
    for observation in observations(game_id):
        shape.add(observation)
    info = registry.info(game_id)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"arena.v1/observations/{game_id}.schema.json",
        "title": f"{game_id} observation (DecisionRequest.observation_json)",
        "description": (f"What one seat of {game_id} (engine version {info.version}) may know, as sent in "
                        "DecisionRequest.observation_json. Generated from the engine by "
                        "`python -m arena.observation_schema`; the fields are described in the "
                        f"docstring of engine/{game_id}."),
        **shape.schema(observation_names.names(game_id)),
    }


def schema_text(game_id: str) -> str:
    return json.dumps(game_schema(game_id), indent=2, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write (or --check) the observation JSON Schemas")
    parser.add_argument("--check", action="store_true", help="only check that the committed files are current")
    args = parser.parse_args(argv)
    stale = []
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    for game_id in registry.game_ids():
        path = SCHEMA_DIR / f"{game_id}.schema.json"
        text = schema_text(game_id)
        if path.exists() and path.read_text() == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(text)
    for path in stale:
        print(f"{'out of date' if args.check else 'wrote'}: {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
