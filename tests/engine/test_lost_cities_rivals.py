"""Lost Cities: Rivals: the worked examples of rules §7, coin conservation, and rule details.

Every position is reached from the start through explicit chance outcomes and actions (helpers
`uncover`, `buy`, ... below), never by writing fields of a state.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import registry
from engine.core import IllegalActionError, NodeKind, sample_chance
from engine.lost_cities_rivals import actions, components, scoring
from engine.lost_cities_rivals.state import RivalsState

A, B, C, D = 0, 1, 2, 3
UNCOVER, PASS, END_TAKE, SKIP_BOX = actions.UNCOVER, actions.PASS, actions.END_TAKE, actions.SKIP_BOX


# -- helpers ---------------------------------------------------------------------------------


def game(players: int, **options):
    return registry.make("lost_cities_rivals", players, **options)


def bid(coins: int) -> int:
    return actions.bid_action(coins)


def place(label: str) -> int:
    return actions.PLACE_BASE + components.parse_card(label)


def box(label: str) -> int:
    return actions.BOX_BASE + components.parse_card(label)


def bids(*amounts: int) -> list[int]:
    return [bid(b) for b in amounts]


def act(state: RivalsState, action: int) -> RivalsState:
    (seat,) = state.acting_players()
    return state.apply({seat: action})


def reveal(state: RivalsState, label: str) -> RivalsState:
    assert state.kind is NodeKind.CHANCE and state.observation(0)["phase"] == "reveal"
    return state.apply_chance(components.parse_card(label))


def uncover(state: RivalsState, *labels: str) -> RivalsState:
    """One UNCOVER turn per label, each revealing that card."""
    for label in labels:
        state = reveal(act(state, UNCOVER), label)
    return state


def placing_order(labels) -> list[str]:
    """Wagers first, then numbers ascending: the order in which any legal set can be placed."""
    return sorted(labels, key=lambda label: (label[1:] != "*", 0 if label[1:] == "*" else int(label[1:])))


def finish(state: RivalsState, take=(), boxed: str | None = None, then: str | None = None) -> RivalsState:
    """From the take phase: place `take`, end the take, box `boxed` (or skip), reveal `then`."""
    for label in placing_order(take):
        state = act(state, place(label))
    state = act(act(state, END_TAKE), box(boxed) if boxed else SKIP_BOX)
    return reveal(state, then) if then else state


def buy(state: RivalsState, price: int, take=(), boxed=None, then=None) -> RivalsState:
    """The turn player opens at `price`, everyone else passes, it takes, boxes and reveals."""
    state = act(state, bid(price))
    while obs(state)["phase"] == "bidding":
        state = act(state, PASS)
    return finish(state, take, boxed, then)


def obs(state: RivalsState) -> dict:
    return state.observation(0)


def spare(state: RivalsState, reserved) -> list[str]:
    """Labels of unseen cards (one entry per copy) that the script has not reserved for later."""
    left = Counter({components.card_label(k): n for k, n in enumerate(state.unseen) if n})
    left.subtract(Counter(reserved))
    assert min(left.values(), default=0) >= 0, "the script reserves a card twice"
    return sorted(left.elements())


def tableau(state: RivalsState, seat: int) -> dict[str, tuple[int, list[int]]]:
    """Seat's started expeditions as {colour: (wagers, numbers)}."""
    return {
        colour: (e["wagers"], e["numbers"])
        for colour, e in obs(state)["expeditions"][seat].items()
        if e["wagers"] or e["numbers"]
    }


def take_sets(state: RivalsState) -> set[tuple[str, ...]]:
    """Every set of display cards the winner can end up taking (step form, explored fully)."""
    results, frontier, seen = set(), [(state, ())], set()
    while frontier:
        current, taken = frontier.pop()
        if (current, taken) in seen:
            continue
        seen.add((current, taken))
        results.add(taken)
        for action in current.legal_actions(current.acting_players()[0]):
            if action != END_TAKE:
                label = components.card_label(action - actions.PLACE_BASE)
                frontier.append((act(current, action), tuple(sorted(taken + (label,)))))
    return results


def legal(state: RivalsState) -> list[int]:
    return state.legal_actions(state.acting_players()[0])


def check_coins(state: RivalsState) -> None:
    assert sum(state.coins) + state.centre == components.TOTAL_COINS


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


# -- Example 2: full 4-player auction; next turn to the winner's left --------------------------


def example_2_position() -> RivalsState:
    """Coins 9/9/4/9, centre 5, pile 2 with 12 left, display [R4, G7, B*], turn A.

    Pile 1: B buys G8 for 1, C buys 17 cards for 3, share 1 each. Pile 2: A, C and D pay 1, 3, 1.
    """
    state = game(4).start_with(["YW", "RG", "BY", "RW"])
    pile_1_for_c = ["Y*", "Y*", "Y*", "Y2", "Y3", "Y3", "Y4", "Y4", "Y5", "Y5", "Y6", "Y7", "Y8",
                    "Y9", "Y10", "W2", "W3"]  # fmt: skip
    state = uncover(state, "G8")  # A
    state = buy(state, 1, take=["G8"], then=pile_1_for_c[0])  # B
    state = uncover(state, *pile_1_for_c[1:17])  # C D A B ... A (turns 2..17)
    state = buy(state, 3, take=pile_1_for_c, then="B2")  # C, turn 18
    state = uncover(state, "B3")  # D: last card of pile 1, centre 4 shared
    assert obs(state)["coins"] == [10, 9, 7, 10] and obs(state)["centre"] == 0
    state = buy(state, 1, take=["B2", "B3"], then="W4")  # A
    state = uncover(state, "W5")  # B
    state = buy(state, 3, take=["W4", "W5"], then="R4")  # C
    state = uncover(state, "G7", "G2", "G3", "B4")  # D A B C
    return buy(state, 1, take=["G2", "G3", "B4"], then="B*")  # D


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
    assert state.can_place(D, components.parse_card("Y10")) and state.can_place(D, components.parse_card("Y9"))
    assert not state.can_place(D, components.parse_card("Y8"))


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
    assert state.can_place(A, components.parse_card("R*"))
    assert not state.can_place(A, components.parse_card("G5")) and state.can_place(A, components.parse_card("G6"))
    assert scoring.expedition_score(2, (2, 6)) == 9 and scoring.expedition_score(2, ()) == 0
    assert state.expedition_points(A) == 9 and obs(state)["scores"][A] == 9 + obs(state)["coins"][A]


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


# -- Example 7: bidding limits and a 0-coin player (3 players) ---------------------------------


def test_example_7_bidding_limits_and_zero_coins() -> None:
    state = game(3).start_with(["RG", "BY", "WR"])
    a_pile_1 = ["B*", "B*", "B*", "B2", "B2", "B3", "B3", "B4", "B4", "B5", "B5", "B6", "B7",
                "B8", "B9", "B10", "Y2", "Y2"]  # fmt: skip
    a_pile_2 = ["G*", "G*", "G*", "G2", "G2", "G3", "G3", "G4"]
    state = uncover(state, *a_pile_1)  # turns 0..17
    state = buy(state, 12, take=a_pile_1, then="R2")  # A, turn 18
    state = buy(state, 10, take=["R2"], then=a_pile_2[0])  # B: last card of pile 1
    assert obs(state)["coins"] == [7, 9, 19] and obs(state)["centre"] == 1  # 22 // 3 = 7 each
    state = uncover(state, *a_pile_2[1:7])  # C A B C A B (turns 20..25)
    state = uncover(state, a_pile_2[7])  # C
    state = buy(state, 7, take=a_pile_2, then="R3")  # A, turn 27
    state = buy(state, 7, take=["R3"], then="R4")  # B
    state = buy(state, 5, take=["R4"], then="W3")  # C
    o = obs(state)
    assert (o["coins"], o["centre"], o["pile"], o["pile_cards_left"]) == ([0, 2, 14], 20, 2, 10)
    assert (o["display"], o["turn_player"]) == (["W3"], A)

    assert legal(state) == [UNCOVER]
    state = uncover(state, "G5")
    assert obs(state)["display"] == ["W3", "G5"] and state.acting_players() == (B,)
    assert legal(state) == [UNCOVER, bid(1), bid(2)]
    state = act(state, bid(2))
    assert state.acting_players() == (C,) and legal(state) == [PASS] + bids(*range(3, 15))
    state = act(state, bid(3))
    assert state.acting_players() == (A,) and legal(state) == [PASS]
    state = act(state, PASS)
    assert state.acting_players() == (B,) and legal(state) == [PASS]
    state = act(state, PASS)
    o = obs(state)
    assert o["phase"] == "take" and state.acting_players() == (C,)
    assert (o["coins"], o["centre"]) == ([0, 2, 11], 23)
    state = finish(state, then="G6")
    assert obs(state)["turn_player"] == A and state.acting_players() == (A,)


# -- Example 8: game end and full final scoring (3 players) ------------------------------------

EXAMPLE_8_TABLEAUX = {
    A: {"R": (2, [2, 3, 3, 7, 10]), "G": (1, []), "B": (0, [6, 8, 9]), "Y": (0, [2, 4, 5, 5])},
    B: {"W": (1, [6, 7, 8, 9, 10]), "G": (1, [2, 2, 4])},
    C: {"Y": (3, [6]), "R": (1, [4, 5, 5]), "B": (1, [2, 3, 4, 5])},
}
EXAMPLE_8_SCORES = {
    A: {"R": 29, "G": 0, "B": 6, "Y": 12},
    B: {"W": 28, "G": 6},
    C: {"Y": 8, "R": 6, "B": 16},
}


def example_8_position() -> RivalsState:
    """Every seat buys once at 1 in piles 1 and 2 (shared back), A pays 7 in pile 4."""
    state = game(3).start_with(["RG", "GW", "YR"])
    a_cards = ["R*", "R2", "R3", "R3", "R7", "B6", "B8", "B9", "Y2", "Y4", "Y5", "Y5"]
    b_cards = ["W6", "W7", "W8", "W9", "W10", "G2", "G2", "G4"]
    c_cards = ["Y*", "Y*", "Y6", "R4", "R5", "R5", "B*", "B2", "B3", "B4", "B5"]
    state = uncover(state, *a_cards)  # turns 0..11
    state = buy(state, 1, take=a_cards, then=b_cards[0])  # A, turn 12
    state = buy(state, 1, take=b_cards[:1], then=c_cards[0])  # B
    state = buy(state, 1, take=c_cards[:1], then=b_cards[1])  # C
    state = uncover(state, *b_cards[2:], "R10")  # turns 15..21: the last 2 of pile 1 are shared
    state = buy(state, 1, take=b_cards[1:], then=c_cards[1])  # B, turn 22
    state = uncover(state, c_cards[2])  # C
    state = buy(state, 1, take=["R10"], then=c_cards[3])  # A, turn 24
    state = uncover(state, *c_cards[4:])  # turns 25..31
    state = buy(state, 1, take=c_cards[1:], then=None)  # C, turn 32
    junk = spare(state, [])
    state = reveal(state, junk[0])
    state = uncover(state, *junk[1:28])  # turns 33..59
    state = buy(state, 7, then=junk[28])  # A, turn 60: pays 7, takes nothing
    return uncover(state, *junk[29:47])  # turns 61..78


def test_example_8_game_end_and_final_scoring() -> None:
    state = example_8_position()
    o = obs(state)
    assert (o["pile"], o["pile_cards_left"], o["centre"], o["coins"]) == (4, 1, 7, [5, 12, 12])
    assert state.acting_players() == (B,)
    for seat, expected in EXAMPLE_8_TABLEAUX.items():
        assert tableau(state, seat) == expected
        for colour, (wagers, numbers) in expected.items():
            assert scoring.expedition_score(wagers, tuple(numbers)) == EXAMPLE_8_SCORES[seat][colour]

    last = spare(state, [])
    assert len(last) == 1
    state = uncover(state, last[0])
    assert state.kind is NodeKind.TERMINAL and state.acting_players() == ()
    o = obs(state)
    assert (o["phase"], o["coins"], o["centre"]) == ("game_over", [5, 12, 12], 7)  # not shared
    assert last[0] in o["display"]  # the last card is never sold
    assert state.returns() == [52.0, 46.0, 42.0]
    assert state.ranks() == [1, 2, 3] and o["winners"] == [A]


# -- Example 9: all other players pass (4 players) ---------------------------------------------


def test_example_9_everyone_passes_starter_pays() -> None:
    state = game(4, start_player=D).start_with(["RG", "GB", "BY", "YW"])
    state = uncover(state, "B3")  # D
    o = obs(state)
    assert (o["coins"], o["centre"], o["pile_cards_left"], o["display"]) == ([9] * 4, 0, 19, ["B3"])
    assert state.acting_players() == (A,)
    state = act(state, bid(1))
    for seat in (B, C, D):
        assert state.acting_players() == (seat,)
        state = act(state, PASS)
    assert obs(state)["phase"] == "take" and state.acting_players() == (A,)
    assert (obs(state)["coins"], obs(state)["centre"]) == ([8, 9, 9, 9], 1)
    assert place("B3") in legal(state)
    state = finish(state, take=["B3"], then="R2")
    assert state.acting_players() == (B,)


def test_example_9_no_auction_ends_without_payment() -> None:
    """Every reachable bidding line from Example 9's opening ends with the high bidder paying."""
    state = game(4, start_player=D).start_with(["RG", "GB", "BY", "YW"])
    state = act(uncover(state, "B3"), bid(1))
    frontier, seen, endings = [state], set(), 0
    while frontier:
        current = frontier.pop()
        if current in seen:
            continue
        seen.add(current)
        if obs(current)["phase"] != "bidding":
            winner, price = current.high_bidder, current.high_bid
            assert price >= 1 and current.centre == price and current.coins[winner] == 9 - price
            assert current.still_in == (winner,) and current.acting_players() == (winner,)
            endings += 1
            continue
        frontier.extend(act(current, action) for action in legal(current))
    assert endings > 30


# -- Example 10: 2-player turn order after an auction ------------------------------------------


def test_example_10_two_player_turn_order() -> None:
    state = uncover(game(2).start_with(["RG", "BY"]), "R5", "R6")
    o = obs(state)
    assert (o["coins"], o["pile_cards_left"], o["display"]) == ([18, 18], 18, ["R5", "R6"])
    assert state.acting_players() == (A,)
    state = act(act(act(state, bid(2)), bid(3)), PASS)
    assert state.acting_players() == (B,) and obs(state)["phase"] == "take"
    assert (obs(state)["coins"], obs(state)["centre"]) == ([18, 15], 3)
    state = finish(state, take=["R5", "R6"], then="G4")
    assert state.acting_players() == (A,) and obs(state)["turn_player"] == A


# -- Example 11: tie -------------------------------------------------------------------------


def test_example_11_tie_is_a_shared_victory() -> None:
    """A 40, B 40, C 35: A and B share the win (coins 10/10/11, centre 5 lost)."""
    state = game(3).start_with(["RG", "BY", "WR"])
    a_cards = ["R2", "R6", "R7", "R8", "R9", "R10"]  # R[w=1]: 2 x 11 + 8 = 30
    b_cards = ["B2", "B6", "B7", "B8", "B9", "B10"]  # B[w=1]: 30
    c_cards = ["W2", "W3", "W4", "W5", "W6", "W7"]  # W[w=1]: 2 x 8 + 8 = 24
    wanted = a_cards + b_cards + c_cards
    state = uncover(state, *wanted)  # kept in the display across the piles
    junk = spare(state, [])
    state = uncover(state, *junk[:42])  # up to turn 59
    state = buy(state, 2, take=a_cards, then=junk[42])  # A, turn 60
    state = buy(state, 2, take=b_cards, then=junk[43])  # B
    state = buy(state, 1, take=c_cards, then=junk[44])  # C
    state = uncover(state, *junk[45:])
    assert state.kind is NodeKind.TERMINAL
    assert state.returns() == [40.0, 40.0, 35.0]
    assert state.ranks() == [1, 1, 3]
    assert obs(state)["winners"] == [A, B]


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
    assert actions.action_label(place("Y10")) == "place yellow 10" and actions.action_label(place("B2")) == "place blue 2"
    assert labels[END_TAKE] == "take no more cards" and labels[SKIP_BOX] == "box nothing"


def test_chance_labels_name_the_starting_wager_and_the_revealed_card() -> None:
    state = game(2).initial_state()
    assert state.chance_label(components.COLOURS.index("B")) == "seat 0 draws the blue starting wager"
    state = state.apply_chance(0).apply_chance(1)
    assert state.chance_label(components.COLOURS.index("W")) == "seat 1 draws the white starting wager"
    state = act(game(2).start_with(["RG", "GB"]), UNCOVER)
    assert state.chance_label(components.parse_card("R7")) == "revealed red 7"
    assert state.chance_label(components.parse_card("G*")) == "revealed green wager"
