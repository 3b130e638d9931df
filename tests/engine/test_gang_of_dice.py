"""Gang of Dice: the worked examples of rules §7, every warning card, options and the flow.

Positions are set up only through explicit chance outcomes (card numbers, die faces) and
actions. Die faces are written as in the rules, with G = 0.
"""

from __future__ import annotations

import random

import pytest

from engine import registry
from engine.core import IllegalActionError, NodeKind
from engine.gang_of_dice import actions as act_ids
from engine.gang_of_dice.components import CARD_BY_ID, CARDS, counts, score, triggered

G = 0
A, B, C, D = 0, 1, 2, 3


# -- helpers ------------------------------------------------------------------------------------


def start(players: int, **options):
    return registry.make("gang_of_dice", players, **options).initial_state()


def obs(state, seat: int = 0) -> dict:
    return state.observation(seat)


def actor(state) -> int:
    return state.acting_players()[0]


def act(state, action: int):
    return state.apply({actor(state): action})


def reveal(state, card_id: str):
    assert obs(state)["phase"] == "card"
    return state.apply_chance(CARD_BY_ID[card_id].number)


def roll(state, dice):
    for face in dice:
        state = state.apply_chance(face)
    return state


def stake(state, dice):
    """The seat to act stakes len(dice) dice, which land showing `dice`."""
    return roll(act(state, act_ids.stake_action(len(dice))), dice)


def reroll(state, old, new):
    """Re-roll dice showing the faces in `old`; they land showing `new`."""
    assert len(old) == len(new)
    state = act(state, act_ids.REROLL)
    wanted = counts(old)
    while obs(state)["phase"] == "pick":
        face = obs(state)["pick_face"]
        state = act(state, act_ids.pick_action(face, wanted[face]))
    return roll(state, new)


def stop(state):
    return act(state, act_ids.STOP)


def faces_of(state, seat: int) -> list[int]:
    return obs(state)["faces"][seat]


def setup_round(state, card_id: str, stakes, winner: int):
    """Play a round whose result is fixed: `winner` rolls one 2 and Gs, everyone else only Gs.

    A single 2 among Gs triggers no card and beats 0, so `winner` takes every staked die.
    """
    state = reveal(state, card_id)
    for _ in obs(state)["turn_order"]:
        seat = actor(state)
        n = stakes[seat]
        state = stop(stake(state, [2] + [G] * (n - 1) if seat == winner else [G] * n))
    assert obs(state)["history"][-1]["winner"] == winner
    return state


def setup(players: int, plan, avoid=()):
    """Play `plan` = [(stakes, winner), ...] from the start with cards not in `avoid`."""
    cards = [card.id for card in CARDS if card.id not in avoid]
    state = start(players)
    for (stakes, winner), card_id in zip(plan, cards):
        state = setup_round(state, card_id, stakes, winner)
    return state


# -- rules §7 worked examples ---------------------------------------------------------------


def test_e1_black_threshold_intermediate_excess_is_harmless():
    s = reveal(start(3), "W03")
    s = stake(s, [5, 4, 3])  # 12: above 11+, but a black card is not checked yet
    assert obs(s)["phase"] == "decide" and obs(s)["status"][A] == "rolling"
    s = reroll(s, [5], [2])
    assert faces_of(s, A) == list(counts([2, 4, 3]))
    s = stop(s)
    s = stop(stake(s, [3, 3, 2, G]))
    s = stop(stake(s, [5, 5]))
    record = obs(s)["history"][-1]
    assert record["status"] == ["valid", "valid", "valid"]
    assert record["winner"] == C and record["dice_won"] == 9
    assert obs(s)["scores"] == [45, 44, 55]


def test_e2_same_opening_roll_busts_under_a_yellow_card():
    s = reveal(start(2), "W13")
    s = stake(s, [5, 4, 3])
    # busted on roll 1: the turn passed to B with no re-roll decision
    assert obs(s)["status"][A] == "busted" and obs(s)["rolls"][A] == 1
    assert obs(s)["phase"] == "stake" and actor(s) == B
    s = stop(stake(s, [2]))
    assert obs(s)["history"][-1]["winner"] == B and obs(s)["history"][-1]["dice_won"] == 4
    assert obs(s)["scores"] == [45, 51]


def test_e3_two_gangsters_are_not_a_pair():
    s = reveal(start(2), "W10")
    s = stop(stake(s, [G, G, 5, 3]))
    assert obs(s)["status"][A] == "valid"
    s = stake(s, [5, 5, 4, 2, 1])  # a pair, not checked yet
    assert obs(s)["phase"] == "decide"
    s = stop(reroll(s, [5], [3]))
    record = obs(s)["history"][-1]
    assert record["status"] == ["valid", "valid"]
    assert score(record["faces"][A]) == 8 and score(record["faces"][B]) == 15
    assert record["winner"] == B and record["dice_won"] == 9
    assert obs(s)["scores"] == [44, 52]


def play_e4():
    s = reveal(start(3), "W14")
    s = stop(stake(s, [3, 4, 2, G]))
    s = stop(stake(s, [4, 3, 2]))
    return stop(stake(s, [5, 4]))


def test_e4_tie_on_score_more_dice_wins():
    s = play_e4()
    record = obs(s)["history"][-1]
    assert record["status"] == ["valid"] * 3
    assert [score(f) for f in record["faces"]] == [9, 9, 9]
    assert record["winner"] == A and record["dice_won"] == 9
    assert obs(s)["scores"] == [53, 45, 46]


def test_e5_tie_on_score_and_dice_earlier_turn_wins_and_start_rotates():
    s = play_e4()
    assert obs(s)["round"] == 2 and obs(s)["start_player"] == B and obs(s)["turn_order"] == [B, C, A]
    s = reveal(s, "W02")
    s = stop(stake(s, [4, 3]))
    s = stop(stake(s, [5, 2]))
    s = stop(stake(s, [1, G]))
    record = obs(s)["history"][-1]
    assert record["status"] == ["valid"] * 3
    assert record["winner"] == B and record["dice_won"] == 6
    assert obs(s)["scores"] == [51, 49, 44]


def test_e6_yellow_trigger_on_a_reroll_ends_the_turn():
    s = reveal(start(2), "W17")
    s = stake(s, [5, 3, 2, 1])
    assert obs(s)["phase"] == "decide"
    s = reroll(s, [2, 1], [5, 4])
    assert obs(s)["status"][A] == "busted" and obs(s)["rolls"][A] == 2
    assert obs(s)["faces"][A] == list(counts([5, 3, 5, 4]))
    assert actor(s) == B and obs(s)["phase"] == "stake"  # the second re-roll is gone
    s = stake(s, [4, 1])
    s = stop(reroll(s, [1], [5]))
    record = obs(s)["history"][-1]
    assert record["status"] == ["busted", "valid"] and score(record["faces"][B]) == 9
    assert record["winner"] == B and record["dice_won"] == 6
    assert obs(s)["scores"] == [44, 52]


def test_e7_black_run_card_busts_only_on_the_final_state():
    s = reveal(start(3), "W04")
    s = stake(s, [4, 5, G])  # a run, not checked yet
    s = stop(reroll(s, [4], [2]))
    s = stop(stake(s, [1, 1, 3]))
    s = stake(s, [3, 3])
    s = reroll(s, [3], [4])  # 3,4 is a run, still not checked
    assert obs(s)["phase"] == "decide" and actor(s) == C
    s = reroll(s, [4], [2])  # the second re-roll ends the turn by itself
    record = obs(s)["history"][-1]
    assert record["status"] == ["valid", "valid", "busted"]
    assert [score(f) for f in record["faces"]] == [7, 5, 5]
    assert record["rolls"] == [2, 1, 3]
    assert record["winner"] == A and record["dice_won"] == 8
    assert obs(s)["scores"] == [53, 45, 46]


def test_e8_everyone_busts_and_the_stakes_carry_over():
    s = setup(2, [((1, 1), B), ((1, 1), B), ((1, 1), A), ((7, 1), B)], avoid=("W06", "W01"))
    assert obs(s)["round"] == 5 and obs(s)["scores"] == [40, 56] and obs(s)["start_player"] == A
    s = reveal(s, "W06")
    s = stop(stake(s, [2, 4, 3]))
    s = stop(stake(s, [5]))
    record = obs(s)["history"][-1]
    assert record["status"] == ["busted", "busted"] and record["winner"] is None
    assert record["carried_over"] == 4
    assert obs(s)["scores"] == [37, 55] and obs(s)["pot"] == 4
    assert obs(s)["start_player"] == B
    s = reveal(s, "W01")
    s = stop(stake(s, [4]))
    s = stop(stake(s, [2, G]))
    record = obs(s)["history"][-1]
    assert record["winner"] == B and record["dice_won"] == 7
    assert obs(s)["scores"] == [35, 61] and obs(s)["pot"] == 0


def test_e9_bonus_dice_in_round_ten():
    plan = [((1, 1, 1), w) for w in (B, B, A, B, C, B, B)] + [((1, 1, 6), A), ((1, 15, 1), C)]
    s = setup(3, plan, avoid=("W15",))
    assert obs(s)["round"] == 10 and obs(s)["scores"] == [50, 40, 54]
    assert obs(s)["pot"] == 3 and obs(s)["start_player"] == A
    s = reveal(s, "W15")
    s = stake(s, [1, 3, G])  # two odd: safe
    assert obs(s)["phase"] == "decide"
    s = reroll(s, [G], [5])
    assert obs(s)["status"][A] == "busted"
    s = stop(stake(s, [4, 2]))
    s = stop(stake(s, [2, 4, 1, G]))
    record = obs(s)["history"][-1]
    assert record["status"] == ["busted", "valid", "valid"]
    assert record["winner"] == C and record["dice_won"] == 12
    assert obs(s)["scores"] == [47, 38, 62] and sum(obs(s)["scores"]) == 147


def test_e10_staking_everything_losing_elimination_and_early_end():
    plan = [((1, 1), w) for w in (B, B, A, B, A)] + [((44, 1), B)]
    s = setup(2, plan, avoid=("W01",))
    assert obs(s)["round"] == 7 and obs(s)["scores"] == [3, 93] and obs(s)["start_player"] == A
    s = reveal(s, "W01")
    s = stop(stake(s, [2, 2, G]))
    s = stop(stake(s, [3, 2]))
    assert s.kind is NodeKind.TERMINAL
    record = obs(s)["history"][-1]
    assert record["winner"] == B and record["dice_won"] == 5 and record["eliminated"] == [A]
    assert obs(s)["active"] == [False, True] and obs(s)["phase"] == "over"
    assert s.returns() == [0.0, 96.0] and s.ranks() == [2, 1]


def test_e11_joint_winners():
    plan = [((1, 1, 1), w) for w in (B, B, A, B, C, B, B, B, B, B)] + [((1, 3, 12), A)]
    s = setup(3, plan, avoid=("W18",))
    assert obs(s)["round"] == 12 and obs(s)["scores"] == [62, 62, 29] and obs(s)["pot"] == 9
    s = reveal(s, "W18")
    for _ in range(3):  # everyone busts at once on a pair of 1s: the table leaves the game
        s = stake(s, [1, 1])
    assert s.kind is NodeKind.TERMINAL
    assert obs(s)["history"][-1]["discarded"] == 15 and obs(s)["pot"] == 0
    assert s.returns() == [60.0, 60.0, 27.0]
    assert s.ranks() == [1, 1, 3]


# -- warning cards --------------------------------------------------------------------------

# card: (faces that trigger it, faces that do not), from rules §4.4
CARD_CASES = {
    "W01": ([3, 3, 1], [2, 2, 2, G]),
    "W02": ([5, 5], [5, 4, G]),
    "W03": ([5, 4, 2], [5, 5, G]),
    "W04": ([2, 3], [1, 3, 5, G]),
    "W05": ([4, 2, 3], [1, 2, 4, 5]),
    "W06": ([2, 2, 3], [2, 4, G]),
    "W07": ([1, 2, 5], [1, 2, 4, G]),
    "W08": ([3, 4], [3, 3, G]),
    "W09": ([1, 2, 2, 4], [4, 4, 1, G, G]),
    "W10": ([4, 1, 4], [G, G, 1, 2]),
    "W11": ([1, 2, 5], [1, 2, 3, G]),
    "W12": ([2, 3], [1, 2, 2, G]),
    "W13": ([5, 5], [5, 4, G]),
    "W14": ([5, 5, 3], [5, 5, 2, G]),
    "W15": ([1, 3, 5], [1, 3, G, G]),
    "W16": ([4, 1, 4], [1, 2, 3, 4, 5, G, G]),
    "W17": ([5, 5, 1], [5, G, G]),
    "W18": ([1], [2, 3, 4, 5, G]),
}


def test_the_deck_has_18_cards_12_black_and_6_yellow():
    assert sorted(CARD_CASES) == [card.id for card in CARDS]
    assert [card.number for card in CARDS] == list(range(1, 19))
    assert sum(card.colour == "black" for card in CARDS) == 12
    assert {card.id for card in CARDS if card.colour == "yellow"} == {f"W{i}" for i in range(13, 19)}


@pytest.mark.parametrize("card_id", sorted(CARD_CASES))
def test_warning_card_predicate(card_id):
    yes, no = CARD_CASES[card_id]
    card = CARD_BY_ID[card_id]
    assert triggered(card, counts(yes))
    assert not triggered(card, counts(no))
    assert not triggered(card, counts([G] * 7)), "G never helps a card trigger"


@pytest.mark.parametrize("card_id", sorted(CARD_CASES))
def test_warning_card_in_play(card_id):
    """A busts on the triggering roll (yellow: at once; black: after STOP); B is valid."""
    yes, no = CARD_CASES[card_id]
    yellow = CARD_BY_ID[card_id].colour == "yellow"
    s = stake(reveal(start(2), card_id), yes)
    if yellow:
        assert obs(s)["status"][A] == "busted" and actor(s) == B
    else:
        assert obs(s)["phase"] == "decide" and obs(s)["status"][A] == "rolling"
        s = stop(s)
    s = stake(s, no)
    assert obs(s)["phase"] == "decide", "the safe roll must not bust"
    s = stop(s)
    record = obs(s)["history"][-1]
    assert record["status"] == ["busted", "valid"] and record["winner"] == B
    assert obs(s)["scores"] == [48 - len(yes), 48 + len(yes)]


def test_yellow_card_is_checked_after_the_second_reroll():
    s = stake(reveal(start(2), "W18"), [2, 3])
    s = reroll(s, [2], [4])
    s = reroll(s, [3], [1])
    assert obs(s)["status"][A] == "busted" and obs(s)["rolls"][A] == 3 and actor(s) == B
    assert obs(s)["log"][-1] == {"seat": A, "roll": 3, "rerolled": list(counts([3])),
                                 "faces": list(counts([4, 1]))}


def test_g_counts_as_distinct_flag():
    w08, w09 = CARD_BY_ID["W08"], CARD_BY_ID["W09"]
    assert not triggered(w08, counts([G, 3]))
    assert triggered(w08, counts([G, 3]), g_distinct=True)
    assert triggered(w08, counts([G, G]), g_distinct=True)
    assert triggered(w09, counts([4, 4, G, G]), g_distinct=True)
    assert not triggered(w09, counts([4, 4, G]), g_distinct=True)
    s = stake(reveal(start(2, g_counts_as_distinct=True), "W08"), [G, 3])
    s = stop(s)
    assert obs(s)["status"][A] == "busted"


# -- the turn: staking and re-roll choices ----------------------------------------------------


def test_stake_choices_are_one_to_all_dice():
    s = reveal(start(4), "W01")
    assert s.legal_actions(A) == [act_ids.stake_action(n) for n in range(1, 37)]
    with pytest.raises(IllegalActionError):
        act(s, act_ids.stake_action(37))


def test_reroll_is_chosen_face_by_face_and_never_empty():
    s = stake(reveal(start(2), "W01"), [5, G, 2, 2])
    assert s.legal_actions(A) == [act_ids.STOP, act_ids.REROLL]
    s = act(s, act_ids.REROLL)
    asked = []
    for k in (0, 0):  # keep the 2s and the 5 ...
        asked.append(obs(s)["pick_face"])
        assert s.legal_actions(A)[0] == act_ids.pick_action(asked[-1], 0)
        s = act(s, act_ids.pick_action(asked[-1], k))
    assert asked == [2, 5] and obs(s)["pick_face"] == G
    # ... so the last face shown (G) must give at least one die
    assert s.legal_actions(A) == [act_ids.pick_action(G, 1)]
    with pytest.raises(IllegalActionError):
        act(s, act_ids.pick_action(G, 0))
    s = act(s, act_ids.pick_action(G, 1))
    assert obs(s)["phase"] == "roll" and obs(s)["dice_to_roll"] == 1
    assert obs(s)["picked"] == list(counts([G]))
    s = roll(s, [4])
    assert faces_of(s, A) == list(counts([5, 4, 2, 2]))


def test_reroll_of_every_die_is_allowed():
    s = stake(reveal(start(2), "W01"), [3, 3])
    s = act(s, act_ids.REROLL)
    assert s.legal_actions(A) == [act_ids.pick_action(3, k) for k in (1, 2)]
    s = act(s, act_ids.pick_action(3, 2))
    assert obs(s)["dice_to_roll"] == 2


def test_a_turn_has_at_most_two_rerolls():
    s = stake(reveal(start(2), "W01"), [1, 1])
    s = reroll(s, [1], [1])
    assert s.legal_actions(A) == [act_ids.STOP, act_ids.REROLL]
    s = reroll(s, [1], [1])
    assert actor(s) == B and obs(s)["history"] == [] and obs(s)["phase"] == "stake"


def test_score_tie_goes_to_more_dice_even_when_rolled_later():
    s = reveal(start(3), "W01")
    s = stop(stake(s, [2, 2]))
    s = stop(stake(s, [2, 2, G, G]))  # same score as A, more dice (G counts), later turn
    s = stop(stake(s, [4]))
    record = obs(s)["history"][-1]
    assert [score(f) for f in record["faces"]] == [4, 4, 4]
    assert record["winner"] == B and obs(s)["scores"] == [46, 51, 47]


def test_higher_score_beats_more_dice():
    s = reveal(start(2), "W01")
    s = stop(stake(s, [1, 1, 1, G]))
    s = stop(stake(s, [4]))
    assert obs(s)["history"][-1]["winner"] == B


def test_all_gangsters_score_zero_and_beat_a_bust():
    s = stake(reveal(start(2), "W18"), [1])
    s = stop(stake(s, [G, G]))
    record = obs(s)["history"][-1]
    assert record["status"] == ["busted", "valid"] and record["winner"] == B


def test_action_labels_are_words_that_follow_the_seat():
    label = registry.make("gang_of_dice", 2).action_label
    assert label(act_ids.STOP) == "stops"
    assert label(act_ids.REROLL) == "re-rolls some dice"
    assert label(act_ids.stake_action(7)) == "stakes 7 dice" and label(act_ids.stake_action(1)) == "stakes 1 die"
    assert label(act_ids.pick_action(5, 2)) == "re-rolls 2 dice showing 5"
    assert label(act_ids.pick_action(1, 1)) == "re-rolls 1 die showing 1"
    assert label(act_ids.pick_action(G, 0)) == "keeps every die showing G"
    assert len({label(a) for a in range(act_ids.NUM_ACTIONS)}) == act_ids.NUM_ACTIONS
    assert act_ids.NUM_ACTIONS == registry.info("gang_of_dice").num_actions == 1142
    with pytest.raises(ValueError):
        label(act_ids.NUM_ACTIONS)


def test_chance_labels_name_the_warning_card_and_the_die_face():
    s = start(2)
    assert s.chance_label(CARD_BY_ID["W05"].number) == "warning card W05: X X+1 X+2, black (checked on the final dice)"
    assert s.chance_label(CARD_BY_ID["W18"].number) == "warning card W18: 1, yellow (checked after every roll)"
    s = act(reveal(s, "W01"), act_ids.stake_action(2))
    assert s.chance_label(4) == "a die shows 4" and s.chance_label(G) == "a die shows G (the gangster)"


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
