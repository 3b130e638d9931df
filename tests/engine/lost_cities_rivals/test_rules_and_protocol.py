"""Lost Cities: Rivals: coins and cards conserved, the starting-wager deal, reveal probabilities,
options, sample_state and labels.
"""

from __future__ import annotations

import random

import pytest

from engine.core import IllegalActionError, NodeKind, sample_chance
from engine.lost_cities_rivals import actions, components, scoring
from tests.engine.lost_cities_rivals.helpers import (
    END_TAKE,
    PASS,
    SKIP_BOX,
    UNCOVER,
    B,
    D,
    act,
    bid,
    bids,
    box,
    check_coins,
    example_2_position,
    game,
    legal,
    obs,
    place,
    reveal,
    tableau,
    uncover,
)

# -- the coin conservation and other rule details --------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_coins_and_cards_are_conserved_in_random_playouts(players: int) -> None:
    for seed in range(8):
        rng = random.Random(seed)
        state = game(players).initial_state()
        reveals = 0
        while state.kind is not NodeKind.TERMINAL:
            check_coins(state)
            dealt = sum(len(got) for got in state.starting)
            placed = sum(len(n) for n in state.numbers) + sum(state.wagers) - dealt
            assert sum(state.unseen) + len(state.display) + len(state.box) + placed == components.DECK_SIZE
            if state.kind is NodeKind.CHANCE:
                reveals += obs(state)["phase"] == "reveal"
                state = state.apply_chance(sample_chance(state, rng))
            else:
                state = act(state, rng.choice(legal(state)))
        check_coins(state)
        assert reveals == components.DECK_SIZE and sum(state.unseen) == 0  # exactly 80 turns


def test_starting_wager_deal_puts_a_same_colour_second_card_under_the_stack() -> None:
    state = game(4).initial_state()
    for colour in "RRGBBYWWG":  # seat 0: R, R (under), G; seat 1: B, B (under), Y; seat 2: W, W, G
        state = state.apply_chance(components.COLOURS.index(colour))
    assert obs(state)["starting_wagers"] == [["R", "G"], ["B", "Y"], ["W", "G"], []]
    assert obs(state)["starting_wager_bottom"] == ["R", "B", "W"]
    state = state.apply_chance(components.COLOURS.index("Y"))
    # The shuffled part is empty: the cards put under the stack come up in order.
    assert state.chance_outcomes() == [(components.COLOURS.index("R"), 1.0)]
    state = state.apply_chance(components.COLOURS.index("R"))
    assert obs(state)["starting_wagers"][3] == ["Y", "R"] and obs(state)["starting_wager_bottom"] == ["B", "W"]
    assert state.kind is NodeKind.DECISION and tableau(state, D) == {"R": (1, []), "Y": (1, [])}


def test_first_deal_outcomes_follow_the_stack() -> None:
    state = game(2).initial_state()
    assert state.chance_outcomes() == [(c, 0.2) for c in range(5)]
    state = state.apply_chance(0)
    assert state.chance_outcomes() == [(0, 1 / 9)] + [(c, 2 / 9) for c in range(1, 5)]
    with pytest.raises(ValueError):
        game(2).start_with(["RR", "GB"])


def test_reveal_probabilities_count_copies() -> None:
    state = uncover(game(2).start_with(["RG", "BY"]), "R2")
    state = act(state, UNCOVER)
    outcomes = dict(state.chance_outcomes())
    assert outcomes[components.parse_card("R2")] == pytest.approx(1 / 79)
    assert outcomes[components.parse_card("R*")] == pytest.approx(3 / 79)
    assert outcomes[components.parse_card("R10")] == pytest.approx(1 / 79)


def test_footprints_not_face_values() -> None:
    assert [components.footprints(v) for v in range(2, 11)] == [1, 1, 1, 1, 2, 2, 2, 2, 2]
    assert scoring.expedition_score(0, (2, 3, 4)) == 3
    assert scoring.expedition_score(3, (6, 7, 8, 9)) == 4 * 8 + 8
    assert scoring.expedition_score(1, (10,)) == 4


def test_auction_needs_a_display_and_bids_stay_within_coins() -> None:
    state = game(2).start_with(["RG", "BY"])
    with pytest.raises(IllegalActionError):
        act(state, bid(1))
    state = uncover(state, "R2")
    with pytest.raises(IllegalActionError):
        act(state, bid(19))
    state = act(state, bid(5))
    assert legal(state) == [PASS] + bids(*range(6, 19))


def test_display_limit_forces_an_auction_for_a_seat_with_coins() -> None:
    state = uncover(game(2, display_limit=4).start_with(["RG", "BY"]), "R2", "R3", "R4")
    assert UNCOVER in legal(state)
    state = uncover(state, "R5")
    assert legal(state) == bids(*range(1, 19))
    assert UNCOVER in legal(uncover(game(2).start_with(["RG", "BY"]), "R2", "R3", "R4", "R5"))


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="start_player"):
        game(2, start_player=2)
    with pytest.raises(ValueError):
        game(2, display_limit=5)
    assert game(3, start_player=2).start_with(["RG", "GB", "YW"]).acting_players() == (2,)


def test_sample_state_rebuilds_the_exact_state() -> None:
    state = example_2_position()
    rng = random.Random(0)
    for action in (bid(2), bid(3), PASS):
        state = act(state, action)
        assert game(4).sample_state(obs(state), rng) == state


def test_action_labels() -> None:
    labels = [actions.action_label(a) for a in range(actions.NUM_ACTIONS)]
    assert len(set(labels)) == actions.NUM_ACTIONS
    assert labels[:3] == ["uncover a card", "pass", "bid 1"] and labels[37] == "bid 36"
    assert actions.action_label(place("R7")) == "place red 7" and actions.action_label(box("W*")) == "box white wager"
    assert actions.action_label(place("Y10")) == "place yellow 10"
    assert actions.action_label(place("B2")) == "place blue 2"
    assert labels[END_TAKE] == "take no more cards" and labels[SKIP_BOX] == "box nothing"


def test_chance_labels_name_the_starting_wager_and_the_revealed_card() -> None:
    state = game(2).initial_state()
    assert state.chance_label(components.COLOURS.index("B")) == "seat 0 draws the blue starting wager"
    state = state.apply_chance(0).apply_chance(1)
    assert state.chance_label(components.COLOURS.index("W")) == "seat 1 draws the white starting wager"
    state = act(game(2).start_with(["RG", "GB"]), UNCOVER)
    assert state.chance_label(components.parse_card("R7")) == "revealed red 7"
    assert state.chance_label(components.parse_card("G*")) == "revealed green wager"
