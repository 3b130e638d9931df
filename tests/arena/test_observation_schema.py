"""The observation JSON Schemas (proto/arena/v1/observations) are current, and every observation a
bot is sent in the conformance suite's playouts validates against its game's schema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from arena import observation_schema
from arena.observation_schema import (
    SCHEMA_DIR,
    Shape,
    decision_observations,
    game_schema,
    given_observations,
    variants,
    walk,
)
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
@pytest.mark.parametrize("seeds", [SEEDS[:1], pytest.param(SEEDS[1:], marks=pytest.mark.slow)],
                         ids=["seed0", "seeds1-2"])
@pytest.mark.parametrize("game_id", GAMES)
def test_every_conformance_observation_validates(game_id: str, seeds: tuple[int, ...]) -> None:
    validator = jsonschema.Draft202012Validator(committed(game_id))
    checked = 0
    for players, options in variants(game_id):
        game = registry.make(game_id, num_players=players, **options)
        for seed in seeds:
            for state in walk(game, seed):
                for observation in given_observations(state, chance=False):  # decisions, and the end
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


@pytest.mark.parametrize("game_id", GAMES)
def test_every_observation_of_a_game_validates_chance_nodes_and_the_end_included(game_id: str) -> None:
    """Not only what a bot is sent: a replay shows every seat at every chance node, and an RL
    environment hands out every seat's observation at the end (to_move null, final scores ...)."""
    validator = jsonschema.Draft202012Validator(committed(game_id))
    info = registry.info(game_id)
    for players in (info.min_players,):  # the other counts' ends: test_every_conformance_observation_validates
        states = list(walk(registry.make(game_id, num_players=players), SEEDS[0]))
        assert states[-1].kind.value == "terminal"
        for n, state in enumerate(states):
            for seat in range(players):
                observation = state.observation(seat)
                if not validator.is_valid(observation):
                    error = jsonschema.exceptions.best_match(validator.iter_errors(observation))
                    pytest.fail(f"{players}p state {n} ({state.kind.value}) seat {seat}: {error.message} "
                                f"at {list(error.path)}")


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoos_last_engine_observations_validate(game_id: str) -> None:
    from arena.envs.pettingzoo import env

    validator = jsonschema.Draft202012Validator(committed(game_id))
    game, rng = env(game_id, registry.info(game_id).min_players), __import__("random").Random(3)
    game.reset(seed=3)
    for name in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            assert validator.is_valid(last := game.engine_observation(name)), last
            game.step(None)
        else:
            legal = [i for i, allowed in enumerate(observation["action_mask"]) if allowed]
            game.step(rng.choice(legal))


def test_named_values_have_their_enum() -> None:
    riviera, gang, lcr, riga = (committed(g)["properties"]
                                for g in ("riviera", "gang_of_dice", "lost_cities_rivals", "riga"))
    assert "game_over" in riviera["phase"]["enum"] and riviera["colours"]["items"]["enum"] == ["B", "G", "O", "P", "R"]
    assert riviera["events"]["items"]["properties"]["type"]["enum"][0] == "adjust"
    assert gang["status"]["items"]["enum"] == ["busted", "out", "rolling", "valid", "waiting"]
    assert gang["options"]["properties"]["variant"]["enum"] == ["bga", "physical"]
    assert lcr["phase"]["enum"] == sorted(["deal", "turn", "bidding", "take", "box", "reveal", "game_over"])
    assert riga["season"]["enum"] == sorted(["setup", "spring", "summer", "autumn", "winter", "game_over"])
    assert len(riga["hand_buildings"]["items"]["enum"]) == 52, "every card id, not only those the playouts drew"
    # a name the engine sends that the list lacks stops the generation
    shape = Shape()
    shape.add({"phase": "nowhere"})
    with pytest.raises(ValueError,
                       match=r"phase: the engine sent \['nowhere'\], which the game's observation_names do not list"):
        shape.schema({"phase": ("deal", "turn")})


def test_every_string_place_with_few_values_is_named() -> None:
    """A string place whose playouts show a handful of values is a vocabulary: it has its enum."""
    def unnamed(schema: dict, path: str) -> list[str]:
        found = []
        if "string" in schema.get("type", []) and "enum" not in schema:
            found.append(path)
        for key, sub in schema.get("properties", {}).items():
            found += unnamed(sub, f"{path}.{key}".lstrip("."))
        if "items" in schema:
            found += unnamed(schema["items"], f"{path}[]")
        return found

    free_text = {"riga": {"recent_events[][]", "recent_events[][][]", "recent_events[][][][]"}}  # mixed ids and words
    for game_id in GAMES:
        assert set(unnamed(committed(game_id), "")) <= free_text.get(game_id, set()), game_id
