"""Lost Cities: Rivals: the worked examples 1 to 6 of rules §7 (set-up, auctions, placement,
pile ends) (helpers.py: how positions are reached).
"""

from __future__ import annotations

from engine.lost_cities_rivals import components, queries, scoring
from tests.engine.lost_cities_rivals.helpers import (
    END_TAKE,
    PASS,
    SKIP_BOX,
    UNCOVER,
    A,
    B,
    C,
    D,
    act,
    bid,
    bids,
    box,
    buy,
    example_2_position,
    finish,
    game,
    legal,
    obs,
    place,
    reference,
    reveal,
    spare,
    tableau,
    take_sets,
    uncover,
)

# -- Example 1: setup (3 players) and first-turn legal actions --------------------------------


def test_example_1_setup_and_first_turn() -> None:
    state = game(3).start_with(["RG", "GB", "YW"])
    o = obs(state)
    assert (o["coins"], o["centre"], o["display"], o["box"]) == ([12, 12, 12], 0, [], [])
    assert (o["pile"], o["pile_cards_left"], o["piles_to_come"]) == (1, 20, 3)
    assert tableau(state, A) == {"R": (1, []), "G": (1, [])}
    assert tableau(state, B) == {"G": (1, []), "B": (1, [])}
    assert tableau(state, C) == {"Y": (1, []), "W": (1, [])}
    assert state.acting_players() == (A,) and legal(state) == [UNCOVER]
    state = uncover(state, "B7")
    o = obs(state)
    assert (o["display"], o["pile_cards_left"], o["turn_player"]) == (["B7"], 19, B)
    assert legal(state) == [UNCOVER] + bids(*range(1, 13)) and len(legal(state)) == 13


def test_example_2_four_player_auction() -> None:
    state = example_2_position()
    o = obs(state)
    assert (o["coins"], o["centre"], o["pile"], o["pile_cards_left"]) == ([9, 9, 4, 9], 5, 2, 12)
    assert (o["display"], o["box"], o["turn_player"]) == (["R4", "G7", "B*"], [], A)
    assert tableau(state, B) == {"R": (1, []), "G": (1, [8])}

    script = [(A, bid(2)), (B, bid(3)), (C, PASS), (D, bid(5)), (A, PASS), (B, bid(6)), (D, PASS)]
    for seat, action in script:
        assert state.acting_players() == (seat,)
        state = act(state, action)
    assert obs(state)["phase"] == "take" and state.acting_players() == (B,)
    assert obs(state)["coins"] == [9, 3, 4, 9] and obs(state)["centre"] == 11

    assert legal(state) == [place("R4"), place("B*"), END_TAKE]
    assert take_sets(state) == {(), ("R4",), ("B*",), ("B*", "R4")}
    state = act(act(act(state, place("R4")), place("B*")), END_TAKE)
    assert tableau(state, B) == {"R": (1, [4]), "G": (1, [8]), "B": (1, [])}
    assert obs(state)["display"] == ["G7"]

    state = act(state, box("G7"))
    assert obs(state)["box"] == ["G7"] and obs(state)["display"] == []
    state = reveal(state, "Y2")
    o = obs(state)
    assert (o["display"], o["pile_cards_left"], o["turn_player"]) == (["Y2"], 11, C)
    assert state.acting_players() == (C,)
    assert (o["coins"], o["centre"]) == ([9, 3, 4, 9], 11)


# -- Example 3: placement: equal allowed, lower refused, wager after number refused ------------


def test_example_3_placement_rules() -> None:
    state = game(4).start_with(["RG", "BW", "RB", "YG"])
    state = uncover(state, "Y3", "Y5", "Y5")  # A B C
    state = buy(state, 1, take=["Y3", "Y5"], then="Y4")  # D: one Y5 stays
    state = uncover(state, "Y*", "Y9")  # A B
    # C opens, D outbids, everyone else passes: D wins on C's turn.
    for action in (bid(1), bid(2), PASS, PASS, PASS):
        state = act(state, action)
    assert obs(state)["display"] == ["Y5", "Y4", "Y*", "Y9"]
    assert state.acting_players() == (D,) and tableau(state, D)["Y"] == (1, [3, 5])

    assert legal(state) == [place("Y5"), place("Y9"), END_TAKE]  # not Y4 (4 < 5), not Y*
    assert take_sets(state) == {(), ("Y5",), ("Y9",), ("Y5", "Y9")}
    state = act(act(act(state, place("Y5")), place("Y9")), END_TAKE)
    assert tableau(state, D)["Y"] == (1, [3, 5, 5, 9])
    assert obs(state)["display"] == ["Y4", "Y*"]
    assert legal(state) == [box("Y*"), box("Y4"), SKIP_BOX]
    assert queries.can_place(reference(state), D, components.parse_card("Y10"))
    assert queries.can_place(reference(state), D, components.parse_card("Y9"))
    assert not queries.can_place(reference(state), D, components.parse_card("Y8"))


# -- Example 4: several wagers plus numbers in one take; wager on a starting wager -------------


def test_example_4_wagers_and_numbers_in_one_take() -> None:
    state = game(2).start_with(["RB", "YW"])
    state = uncover(state, "G*", "G*", "G6", "G2", "R*")  # A B A B A
    for action in (bid(1), bid(2), PASS):  # B opens, A outbids, B passes
        state = act(state, action)
    assert obs(state)["display"] == ["G*", "G*", "G6", "G2", "R*"]
    assert state.acting_players() == (A,)
    # The step form needs the set's placing order: G6 first would shut out G2.
    assert act(state, place("G6")).legal_actions(A) == [place("R*"), END_TAKE]
    for label in ("G*", "G*", "G2", "G6", "R*"):
        assert place(label) in legal(state)
        state = act(state, place(label))
    assert tableau(state, A) == {"G": (2, [2, 6]), "R": (2, []), "B": (1, [])}
    assert obs(state)["display"] == []
    assert queries.can_place(reference(state), A, components.parse_card("R*"))
    assert not queries.can_place(reference(state), A, components.parse_card("G5"))
    assert queries.can_place(reference(state), A, components.parse_card("G6"))
    assert scoring.expedition_score(2, (2, 6)) == 9 and scoring.expedition_score(2, ()) == 0
    assert queries.expedition_points(reference(state), A) == 9 and obs(state)["scores"][A] == 9 + obs(state)["coins"][A]


# -- Example 5: end of a pile with an uneven split (3 players) ----------------------------------


def test_example_5_pile_end_uneven_split() -> None:
    state = game(3).start_with(["GB", "YW", "RG"])
    blues = ["B*", "B*", "B*", "B2", "B2", "B3", "B3", "B4", "B4", "B5", "B5", "B6", "B7", "B8",
             "B9", "B10"]  # fmt: skip
    state = uncover(state, "G2")  # A
    for action in (bid(1), bid(3), PASS, PASS):  # B opens, C wins at 3; C's next turn is skipped
        state = act(state, action)
    state = finish(state, take=["G2"], then=blues[0])
    state = uncover(state, *blues[1:16])  # A B C ... B (turns 2..16)
    state = buy(state, 9, take=blues, then="Y2")  # A, turn 17
    state = buy(state, 2, take=["Y2"], then="R2")  # B, turn 18
    o = obs(state)
    assert (o["coins"], o["centre"], o["pile"], o["pile_cards_left"]) == ([3, 10, 9], 14, 1, 1)
    assert (o["display"], o["turn_player"]) == (["R2"], C)

    state = uncover(state, "W8")
    o = obs(state)
    assert (o["coins"], o["centre"]) == ([7, 14, 13], 2)
    assert (o["pile"], o["pile_cards_left"], o["piles_to_come"]) == (2, 20, 2)
    assert o["display"] == ["R2", "W8"] and o["turn_player"] == A and state.acting_players() == (A,)


# -- Example 6: the auction winner's reveal triggers the distribution (2 players) --------------


def test_example_6_winner_reveal_triggers_distribution() -> None:
    state = game(2).start_with(["RG", "YW"])
    for_b = ["W2", "W3"]
    reserved = ["R5", "R9", "B10", *for_b]
    junk = [label for label in spare(state, reserved) if label[0] != "R"][:55]
    for_a = ["R5", *junk]
    state = uncover(state, *for_a[:40])  # piles 1 and 2: nobody pays, nothing to share
    state = uncover(state, *for_a[40:])  # turns 40..55
    assert obs(state)["coins"] == [18, 18] and len(obs(state)["display"]) == 56
    state = buy(state, 12, take=for_a, then=for_b[0])  # A, turn 56
    state = uncover(state, for_b[1])  # B
    for action in (bid(1), bid(4), PASS):  # A opens, B wins: A plays twice in a row
        state = act(state, action)
    state = finish(state, take=for_b, then="R9")
    o = obs(state)
    assert (o["coins"], o["centre"], o["pile"], o["pile_cards_left"]) == ([6, 14], 16, 3, 1)
    assert (o["display"], o["turn_player"], tableau(state, A)["R"]) == (["R9"], A, (1, [5]))

    state = act(act(state, bid(4)), PASS)
    assert obs(state)["coins"] == [2, 14] and obs(state)["centre"] == 20
    state = act(act(state, place("R9")), END_TAKE)
    assert tableau(state, A)["R"] == (1, [5, 9])
    assert legal(state) == [SKIP_BOX]
    state = reveal(act(state, SKIP_BOX), "B10")
    o = obs(state)
    assert (o["coins"], o["centre"]) == ([12, 24], 0)
    assert (o["pile"], o["pile_cards_left"], o["display"]) == (4, 20, ["B10"])
    assert o["turn_player"] == B and state.acting_players() == (B,)
