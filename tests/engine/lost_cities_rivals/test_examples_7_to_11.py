"""Lost Cities: Rivals: the worked examples 7 to 11 of rules §7 (bidding limits, game end and
scoring, everyone passes, turn order, ties).
"""

from __future__ import annotations

from engine.core import NodeKind
from engine.lost_cities_rivals import scoring
from engine.lost_cities_rivals.contract import RivalsState
from tests.engine.lost_cities_rivals.helpers import (
    PASS,
    UNCOVER,
    A,
    B,
    C,
    D,
    act,
    bid,
    bids,
    buy,
    finish,
    game,
    legal,
    obs,
    place,
    reveal,
    spare,
    tableau,
    uncover,
)

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
