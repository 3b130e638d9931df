"""Gang of Dice: rounds (pot, elimination, start player), deck modes, information, options and
player counts, dice conserved in random games.
"""

from __future__ import annotations

import random

import pytest

from engine import registry
from engine.core import IllegalActionError, NodeKind
from engine.gang_of_dice.components import counts, score
from tests.engine.gang_of_dice.helpers import (
    A,
    B,
    C,
    G,
    act,
    actor,
    obs,
    reroll,
    reveal,
    roll,
    setup,
    setup_round,
    stake,
    start,
    stop,
)

# -- rounds: pot, elimination, start player ---------------------------------------------------


def test_bonus_dice_enter_the_pot_in_rounds_10_11_12_and_stack_with_carry_over():
    s = setup(2, [((1, 1), w) for w in (A, B) * 4], avoid=("W18", "W17", "W16", "W15"))
    assert obs(s)["round"] == 9 and obs(s)["pot"] == 0
    s = reveal(s, "W18")
    s = stake(s, [1, 2])
    s = stake(s, [1])  # everyone busts: 3 dice carry over
    assert obs(s)["round"] == 10 and obs(s)["pot"] == 3 + 3
    s = setup_round(s, "W17", (1, 1), A)
    assert obs(s)["history"][-1]["dice_won"] == 8
    assert obs(s)["round"] == 11 and obs(s)["pot"] == 6
    s = setup_round(s, "W16", (1, 1), A)
    assert obs(s)["round"] == 12 and obs(s)["pot"] == 9
    s = setup_round(s, "W15", (2, 1), B)
    assert s.kind is NodeKind.TERMINAL and sum(s.returns()) == 96 + 18


def test_eliminated_player_is_skipped_in_turns_and_rotation():
    s = setup(3, [((48, 1, 1), B)])
    assert obs(s)["active"] == [False, True, True]
    assert obs(s)["history"][-1]["eliminated"] == [A]
    assert obs(s)["turn_order"] == [B, C] and obs(s)["status"][A] == "out"
    s = setup_round(s, "W02", (0, 1, 1), C)
    assert obs(s)["start_player"] == C and obs(s)["turn_order"] == [C, B]
    s = setup_round(s, "W03", (0, 1, 1), C)
    assert obs(s)["start_player"] == B  # seat A is passed over


def test_start_rule_winner_starts():
    s = setup(3, [((1, 1, 1), C)])
    s2 = registry.make("gang_of_dice", 3, start_rule="winner_starts").initial_state()
    s2 = setup_round(s2, "W01", (1, 1, 1), C)
    assert obs(s)["start_player"] == B and obs(s2)["start_player"] == C
    s2 = reveal(s2, "W18")
    for _ in range(3):
        s2 = stake(s2, [1])  # all bust: fall back to rotation
    assert obs(s2)["start_player"] == A


def test_start_rule_fixed():
    s = registry.make("gang_of_dice", 3, start_rule="fixed").initial_state()
    s = setup_round(s, "W01", (1, 1, 1), C)
    assert obs(s)["start_player"] == A
    s = setup_round(s, "W02", (47, 1, 1), B)
    assert obs(s)["active"][A] is False and obs(s)["start_player"] == B


def test_starting_dice_by_player_count():
    assert obs(start(2))["scores"] == [48, 48]
    assert obs(start(3))["scores"] == [48] * 3
    assert obs(start(4))["scores"] == [36] * 4
    assert obs(start(4, variant="physical"))["scores"] == [36, None, None, None]


# -- deck modes -----------------------------------------------------------------------------


def test_uniform_deck_draws_12_of_18_without_replacement():
    s = start(2)
    assert s.chance_outcomes() == [(n, 1 / 18) for n in range(1, 19)]
    s = setup_round(s, "W05", (1, 1), A)
    assert [n for n, _ in s.chance_outcomes()] == [n for n in range(1, 19) if n != 5]
    with pytest.raises(IllegalActionError):
        s.apply_chance(5)


def test_two_deck_mode_rounds_1_to_9_bright_then_10_to_12_dark():
    s = start(2, deck_mode="two_deck")
    assert s.chance_outcomes() == [(n, 1 / 12) for n in range(1, 13)]
    with pytest.raises(IllegalActionError):
        s.apply_chance(13)
    for card in range(1, 10):
        s = setup_round(s, f"W{card:02d}", (1, 1), A)
    assert obs(s)["round"] == 10
    assert s.chance_outcomes() == [(n, 1 / 6) for n in range(13, 19)]


def test_physical_variant_implies_two_deck_and_hidden_pools_unless_given():
    game = registry.make("gang_of_dice", 3, variant="physical")
    assert game.options["deck_mode"] == "two_deck" and game.options["hide_pools"] is True
    game = registry.make("gang_of_dice", 3, variant="physical", hide_pools=False, deck_mode="uniform")
    assert game.options["deck_mode"] == "uniform" and game.options["hide_pools"] is False


# -- information ----------------------------------------------------------------------------


def test_hidden_pools_show_only_your_own_until_the_end():
    s = reveal(start(2, hide_pools=True), "W01")
    s = stop(stake(s, [2]))
    assert obs(s, A)["scores"] == [47, None] and obs(s, B)["scores"] == [None, 48]
    assert obs(s, A)["stakes"] == [1, 0]


@pytest.mark.parametrize("players, options, seed", [
    (3, {"hide_pools": True}, 7), (2, {"variant": "physical"}, 8), (4, {"hide_pools": True}, 9),
    (4, {"start_rule": "winner_starts"}, 10),
])
def test_sample_state_rebuilds_the_exact_state_even_with_hidden_pools(players, options, seed):
    game = registry.make("gang_of_dice", players, **options)
    rng = random.Random(seed)
    s = game.initial_state()
    while s.kind is not NodeKind.TERMINAL:
        for seat in range(players):
            assert game.sample_state(obs(s, seat), rng) == s
        if s.kind is NodeKind.CHANCE:
            s = s.apply_chance(rng.choice(s.chance_outcomes())[0])
        else:
            s = act(s, rng.choice(s.legal_actions(actor(s))))


def test_observation_shows_card_and_this_rounds_log():
    s = reveal(start(2), "W17")
    o = obs(s, B)
    assert o["card"] == {"id": "W17", "art": "5 5", "colour": "yellow",
                         "predicate": "VALUE_AT_LEAST", "param": [5, 2]}
    assert o["cards_revealed"] == ["W17"] and o["to_move"] == A and o["phase"] == "stake"
    s = reroll(stake(s, [5, 3]), [3], [G])
    assert obs(s, B)["log"] == [
        {"seat": A, "roll": 1, "rerolled": None, "faces": list(counts([5, 3]))},
        {"seat": A, "roll": 2, "rerolled": list(counts([3])), "faces": list(counts([5, G]))},
    ]
    s = stop(s)
    assert obs(s, B)["leader"] == {"seat": A, "score": 5, "dice": 2}


# -- options and player counts ----------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 5])
def test_bad_player_counts_are_refused(players):
    with pytest.raises(ValueError, match="2 to 4"):
        registry.make("gang_of_dice", players)


def test_unknown_options_and_values_are_refused():
    with pytest.raises(ValueError, match="deck_mode, g_counts_as_distinct, hide_pools, start_rule, variant"):
        registry.make("gang_of_dice", 2, dice=30)
    with pytest.raises(ValueError, match="'uniform', 'two_deck'"):
        registry.make("gang_of_dice", 2, deck_mode="random")
    with pytest.raises(ValueError, match="'bga', 'physical'"):
        registry.make("gang_of_dice", 2, variant="box")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_dice_are_conserved_in_random_games(players):
    """Rules §2.8: pools + pot + stakes = starting dice + bonus added - dice discarded."""
    for seed in range(5):
        rng = random.Random(seed)
        s = start(players)
        total = sum(obs(s)["scores"])
        while s.kind is not NodeKind.TERMINAL:
            if s.kind is NodeKind.CHANCE:
                s = s.apply_chance(rng.choice(s.chance_outcomes())[0])
            else:
                s = act(s, rng.choice(s.legal_actions(actor(s))))
            o = obs(s)
            bonus = sum(b for r, b in ((10, 3), (11, 6), (12, 9)) if r <= o["round"])
            discarded = sum(h["discarded"] for h in o["history"])
            assert sum(o["scores"]) + o["pot"] + sum(o["stakes"]) * (o["phase"] != "over") \
                == total + bonus - discarded
        assert s.returns() == [float(x) for x in obs(s)["scores"]]
