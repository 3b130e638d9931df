"""The observation JSON Schemas (proto/arena/v1/observations) are current, and every observation a
bot is sent in the conformance suite's playouts validates against its game's schema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from arena import observation_schema
from arena.observation_schema import SCHEMA_DIR, Shape, decision_observations, game_schema, variants, walk
from engine import registry
from tests.engine.test_conformance import SEEDS

GAMES = [g for g in registry.game_ids() if g != "toy"]


def committed(game_id: str) -> dict:
    return json.loads((SCHEMA_DIR / f"{game_id}.schema.json").read_text())


@pytest.mark.parametrize("game_id", GAMES)
def test_the_committed_schema_is_what_the_engine_generates(game_id: str) -> None:
    assert committed(game_id) == game_schema(game_id), (
        f"proto/arena/v1/observations/{game_id}.schema.json is out of date: run `python -m arena.observation_schema`"
    )


# jsonschema takes about a millisecond per observation (Riviera: 29,000 in the three conformance
# playouts of its 35 variants), so the default run checks the first seed and the slow run all three.
@pytest.mark.parametrize("seeds", [SEEDS[:1], pytest.param(SEEDS[1:], marks=pytest.mark.slow)], ids=["seed0", "seeds1-2"])
@pytest.mark.parametrize("game_id", GAMES)
def test_every_conformance_observation_validates(game_id: str, seeds: tuple[int, ...]) -> None:
    validator = jsonschema.Draft202012Validator(committed(game_id))
    checked = 0
    for players, options in variants(game_id):
        game = registry.make(game_id, num_players=players, **options)
        for seed in seeds:
            for state in walk(game, seed):
                for observation in decision_observations(state):
                    if not validator.is_valid(observation):  # is_valid first: it is the fast path
                        error = jsonschema.exceptions.best_match(validator.iter_errors(observation))
                        pytest.fail(f"{players}p {options} seed {seed}: {error.message} at {list(error.path)}")
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("game_id", GAMES)
def test_a_schema_refuses_an_observation_of_another_shape(game_id: str) -> None:
    validator = jsonschema.Draft202012Validator(committed(game_id))
    state = next(s for s in walk(registry.make(game_id, num_players=2), 0) if list(decision_observations(s)))
    observation = next(decision_observations(state))
    assert validator.is_valid(observation)
    assert not validator.is_valid({**observation, "an_unknown_field": 1})
    key = sorted(validator.schema["required"])[0]
    assert not validator.is_valid({k: v for k, v in observation.items() if k != key})
    assert not validator.is_valid({**observation, key: object.__name__ if not isinstance(observation[key], str) else 7})


def test_the_inference_merges_types_keys_and_items() -> None:
    shape = Shape()
    for sample in ({"a": 1, "b": [1, 2], "c": None}, {"a": 2.5, "b": [], "c": {"x": True}}):
        shape.add(sample)
    assert shape.schema() == {
        "type": "object", "required": ["a", "b", "c"], "additionalProperties": False,
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "array", "items": {"type": "integer"}},
            "c": {"type": ["null", "object"], "properties": {"x": {"type": "boolean"}}, "required": ["x"],
                  "additionalProperties": False},
        },
    }
    shape.add({"a": 3})
    assert shape.schema()["required"] == ["a"]


def test_the_check_mode_reports_a_stale_file(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(observation_schema, "SCHEMA_DIR", tmp_path)
    monkeypatch.setattr(registry, "game_ids", lambda: ["gang_of_dice"])
    assert observation_schema.main(["--check"]) == 1
    assert observation_schema.main([]) == 0
    assert observation_schema.main(["--check"]) == 0
