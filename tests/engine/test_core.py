"""The registry and the core helpers: clear errors, option handling, ranks."""

from __future__ import annotations

import pytest

from engine import registry
from engine.core import IllegalActionError, NodeKind, State, Step, ranks_from_scores
from engine.visibility import seen_chance_labels
from tests.engine.toy_game import ToyGame, ToyState


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, "toy", "tests.engine.toy_game:ToyGame")


def test_unknown_game_names_the_valid_ones(toy_registered) -> None:
    with pytest.raises(KeyError, match="unknown game 'chess'; valid games: .*toy"):
        registry.make("chess", 2)


@pytest.mark.parametrize("players", [1, 5, 0, "3", True])
def test_bad_player_count_names_the_range(toy_registered, players) -> None:
    with pytest.raises(ValueError, match="played by 2 to 4 players"):
        registry.make("toy", players)


def test_unknown_option_names_the_valid_options(toy_registered) -> None:
    with pytest.raises(ValueError, match="no option 'turbo'; valid options: show_bonus"):
        registry.make("toy", 2, turbo=True)


def test_bad_option_value_names_the_choices(toy_registered) -> None:
    with pytest.raises(ValueError, match=r"show_bonus=7 is not valid; choose one of: 0, 1"):
        registry.make("toy", 2, show_bonus=7)


def test_options_default_and_ruleset_names_changes(toy_registered) -> None:
    assert registry.make("toy", 3).options == {"show_bonus": 0}
    assert registry.make("toy", 3).ruleset == "toy@1"
    assert registry.make("toy", 3, show_bonus=1).ruleset == "toy@1+show_bonus=1"


def test_registry_lists_sorted_ids() -> None:
    assert registry.game_ids() == sorted(registry.GAMES)


def test_wrong_node_kind_is_a_clear_error() -> None:
    state = ToyGame(2).initial_state()
    assert state.kind is NodeKind.CHANCE
    with pytest.raises(IllegalActionError, match="needs a terminal node, but this is a chance node"):
        state.returns()
    with pytest.raises(IllegalActionError, match="seat 2 does not exist; seats are 0 to 1"):
        state.legal_actions(2)


def test_a_game_without_chance_labels_falls_back_to_the_outcome_id() -> None:
    class Unlabelled(ToyState):
        _chance_label = State._chance_label

    state = Unlabelled(num_players=2, bonus=0)
    assert state.chance_label(3) == "outcome 3"
    assert ToyGame(2).initial_state().chance_label(3) == "dealt 3 to seat 0"


def test_a_game_that_does_not_say_who_sees_a_chance_outcome_shows_it_to_nobody() -> None:
    class Unsaid(ToyState):
        _chance_visibility = State._chance_visibility
        _hidden_chance_label = State._hidden_chance_label

    state = Unsaid(num_players=2, bonus=0)
    assert state.chance_visibility(3) == frozenset()
    assert seen_chance_labels([state], [Step(chance=3)], 0) == ["a hidden chance outcome"]
    dealt = ToyGame(2).initial_state()
    assert [seen_chance_labels([dealt], [Step(chance=3)], v)[0] for v in (0, 1, None)] == [
        "dealt 3 to seat 0", "dealt a card to seat 0", "dealt a card to seat 0"]


def test_ranks_share_places_on_ties() -> None:
    assert ranks_from_scores([5, 9, 5]) == [2, 1, 2]
    assert ranks_from_scores([(3, 1), (3, 2), (1, 9)]) == [2, 1, 3]
