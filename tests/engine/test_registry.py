"""engine.registry: one description per game, by id or by reference, and what a wrong line says."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from engine import registry
from engine.description import GameDescription
from engine.riviera import DESCRIPTION as RIVIERA
from engine.riviera import Riviera
from tests.engine.toy_game import ToyGame

TOY = "tests.engine.toy_game:ToyGame"


def test_every_built_in_game_is_described_under_its_own_id() -> None:
    assert [d.id for d in registry.descriptions()] == registry.game_ids()
    assert registry.describe("riviera") is RIVIERA and RIVIERA.game is Riviera
    assert registry.game_class("riviera") is Riviera and registry.info("riviera") is Riviera.info


def test_a_reference_loads_without_the_table() -> None:
    assert "toy" not in registry.GAMES
    assert registry.load("engine.riviera:DESCRIPTION") is RIVIERA
    bare = registry.load(TOY)  # a bare Game class: a description with nothing more
    assert bare == GameDescription(ToyGame) and bare.max_chance_outcomes == 0 and bare.heuristic == ""


@pytest.mark.parametrize(("ref", "message"), [
    ("engine.riviera:Nowhere", "does not load"),
    ("no_such_module_anywhere:DESCRIPTION", "does not load"),
    ("engine.riviera.game:HARD_ROUND_CAP", "names a int, not a GameDescription"),
])
def test_a_wrong_reference_says_what_it_should_name(ref: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        registry.load(ref)


def test_a_line_under_another_id_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.GAMES, "showdown", TOY)
    with pytest.raises(ValueError, match="'showdown' is registered as .*which describes 'toy'"):
        registry.describe("showdown")
    with pytest.raises(KeyError, match="unknown game 'nope'; valid games: gang_of_dice, "):
        registry.describe("nope")


def test_entry_points_add_games_and_never_replace_a_built_in(monkeypatch: pytest.MonkeyPatch) -> None:
    points = [EntryPoint("toy", TOY, registry.ENTRY_POINT_GROUP),
              EntryPoint("riviera", TOY, registry.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(registry, "entry_points", lambda group: [p for p in points if p.group == group])
    with pytest.warns(UserWarning, match="'riviera' is a built-in game"):
        assert registry.installed() == {"toy": TOY}
