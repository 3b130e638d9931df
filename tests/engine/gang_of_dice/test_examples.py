"""Gang of Dice: the worked examples E1 to E11 of rules §7 (helpers.py: how rounds are driven).
"""

from __future__ import annotations

from engine.core import NodeKind
from engine.gang_of_dice.components import counts, score
from tests.engine.gang_of_dice.helpers import (
    A,
    B,
    C,
    G,
    actor,
    faces_of,
    obs,
    reroll,
    reveal,
    roll,
    setup,
    stake,
    start,
    stop,
)

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
