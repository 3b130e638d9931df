"""Gang of Dice: the warning cards, and the turn: staking, re-roll choices, who wins a round,
action and chance labels.
"""

from __future__ import annotations

import pytest

from engine import registry
from engine.core import IllegalActionError
from engine.gang_of_dice import actions as act_ids
from engine.gang_of_dice.components import CARD_BY_ID, CARDS, counts, score, triggered
from tests.engine.gang_of_dice.helpers import (
    A,
    B,
    G,
    act,
    actor,
    faces_of,
    obs,
    reroll,
    reveal,
    roll,
    stake,
    start,
    stop,
)

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
