"""Games played by the engines before the speed work replay, position by position, to what they
showed then: every seat's observation, the legal actions in order, the chance odds, the result.
A faster engine that changes any of it changes behaviour (records made before would mean
something else). The games are in tests/engine/golden/, made by its make_golden.py."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from engine import registry
from engine.core import NodeKind, Step, advance
from tests.engine.golden.make_golden import HERE, MATCHES_PER_SETUP, OPTIONS, playthrough, position_digest


def riviera_deal_as_recorded(observation: dict[str, Any]) -> dict[str, Any]:
    """Riviera's observation during the deal as the golden games recorded it: every hand empty,
    no pile. Since #26 (item 6) a seat sees the cards dealt to it so far, every hand's size and
    the cards still to deal; nobody decides during a deal (it is chance nodes only), so no bot
    ever saw the old view, and every step, legal action and result is unchanged: only these three
    fields, at deal positions only, are compared as they were shown then."""
    if observation["phase"] != "deal":
        return observation
    n = observation["num_players"]
    return {**observation, "hand": [], "hand_sizes": [0] * n, "draw_pile_size": 0}


AS_RECORDED = {"riviera": riviera_deal_as_recorded}


def golden_games(game_id: str) -> list[dict[str, Any]]:
    with gzip.open(HERE / f"{game_id}.json.gz", "rt") as stored:
        return json.load(stored)  # type: ignore[no-any-return]


@pytest.mark.parametrize("game_id", sorted(OPTIONS))
def test_golden_games_replay_to_the_same_positions(game_id: str) -> None:
    games = golden_games(game_id)
    assert {g["players"] for g in games} == set(range(registry.info(game_id).min_players,
                                                     registry.info(game_id).max_players + 1))
    for game in games:
        state = registry.make(game_id, game["players"], **game["options"]).initial_state()
        as_recorded = AS_RECORDED.get(game_id)
        assert position_digest(state, as_recorded) == game["digests"][0], f"{_name(game)}: the initial position differs"
        for n, step in enumerate(game["steps"], start=1):
            state = advance(state, _step(step))
            assert position_digest(state, as_recorded) == game["digests"][n], f"{_name(game)}: position {n} differs"
        assert state.kind is NodeKind.TERMINAL, f"{_name(game)}: the game does not end where it did"


@pytest.mark.parametrize("game_id", sorted(OPTIONS))
def test_the_golden_seeds_still_make_the_golden_games(game_id: str) -> None:
    """Seeded chance draws the same outcomes as before (sample_chance makes rng.choices' draw),
    so a seeded match or search plays as it did; one game of each setup is made again."""
    for game in golden_games(game_id)[::MATCHES_PER_SETUP]:
        again = playthrough(game_id, game["players"], game["options"], game["seed"])
        assert again["steps"] == game["steps"], f"{_name(game)}: the seed plays another game"


def _step(stored: int | dict[str, int]) -> Step:
    if isinstance(stored, int):
        return Step(chance=stored)
    return Step(actions={int(seat): action for seat, action in stored.items()})


def _name(game: dict[str, Any]) -> str:
    return f"{game['game']} {game['players']}p {game['options']} seed {game['seed']}"
