"""Lost Cities: Rivals test helpers. The tests are the worked examples of rules §7, coin
conservation, and rule details.

Every position is reached from the start through explicit chance outcomes and actions (helpers
`uncover`, `buy`, ... below), never by writing fields of a state.
"""

from __future__ import annotations

from collections import Counter

from engine import registry
from engine.core import NodeKind
from engine.lost_cities_rivals import actions, components
from engine.lost_cities_rivals.contract import RivalsState
from engine.lost_cities_rivals.game import C_STATE

A, B, C, D = 0, 1, 2, 3


UNCOVER, PASS, END_TAKE, SKIP_BOX = actions.UNCOVER, actions.PASS, actions.END_TAKE, actions.SKIP_BOX


# -- helpers ---------------------------------------------------------------------------------


def game(players: int, **options):
    return registry.make("lost_cities_rivals", players, **options)


def reference(state) -> RivalsState:
    """The RivalsState of a position: itself, or a C state's reference (the compiled engine's):
    queries.* take the reference's data class only."""
    return state.reference() if C_STATE is not None and isinstance(state, C_STATE) else state


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
