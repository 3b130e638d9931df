"""Riga: a build's legal payments carried on the state from one payment to the next
(`state.BuildPayments` in the derived field `paying`, engine issue 36's fourth pass).

At every payment of seeded random playouts: the carried payments are the ones worked out afresh
(and the payable items the rules' definition, `scoring.payable`); a payment that does not
complete the build hands them on to the next state, which uses them; the field changes neither
equality, hashing nor any seat's observation; and a state whose acting hand was drawn again
(`resample`) or that was pickled does not use stale ones.
"""

from __future__ import annotations

import pickle
import random

from engine.core import NodeKind, State, sample_chance
from engine.riga import actions as a
from engine.riga import components as t
from engine.riga import scoring as sc
from engine.riga.contract import RigaState


def pay_nodes(players: int, seed: int, games: int) -> list[tuple[State, int]]:
    """(state, acting seat) at every payment decision of `games` random playouts of RigaState,
    the state that carries payments (the compiled engine's C state, c_state.pyx, carries none:
    it walks the payments in C at each node)."""
    rng, found = random.Random(seed), []
    for _ in range(games):
        s = RigaState.initial(players, True, True)
        while s.kind is not NodeKind.TERMINAL:
            if s.kind is NodeKind.CHANCE:
                s = s.apply_chance(sample_chance(s, rng))
                continue
            seat = s.acting_players()[0]
            if s.pending is not None:  # type: ignore[attr-defined]
                found.append((s, seat))
            s = s.apply({seat: rng.choice(s.legal_actions(seat))})
    return found


def fresh_legal(s: State, seat: int) -> list[int]:
    """The legal actions of a copy that carries no payments: worked out from the fields alone."""
    blank = s._copy()  # type: ignore[attr-defined]
    blank.paying = None
    return blank.legal_actions(seat)  # type: ignore[no-any-return]


def defined_legal(s: State, seat: int) -> list[int]:
    """The payable items by the rules' definition (`scoring.payable` from the card data)."""
    card, paid = s.pending  # type: ignore[attr-defined]
    tableau = s.tableau[seat]  # type: ignore[attr-defined]
    values = sc.item_values(tableau, t.CARDS[card].city)
    avail = sc.available_items(s.hgoods[seat], tableau, s.used[seat])  # type: ignore[attr-defined]
    return [a.PAY_GOOD + item for item in sc.payable(values, avail, paid, sc.build_cost(tableau, card))]


def test_carried_payments_are_the_fresh_ones_and_are_handed_on() -> None:
    carried = 0
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        for s, seat in pay_nodes(players, seed, games=12):
            legal = s.legal_actions(seat)
            assert legal == fresh_legal(s, seat) == defined_legal(s, seat)
            plan = s.paying  # type: ignore[attr-defined]
            assert plan is not None and plan.fits(s, seat), "the listed payments are kept on the state"
            for action in legal:
                child = s.apply({seat: action})
                if child.pending is None:  # type: ignore[attr-defined]
                    assert child.paying is None, "a completed build carries nothing"  # type: ignore[attr-defined]
                    continue
                handed = child.paying  # type: ignore[attr-defined]
                assert handed is not None and handed.fits(child, seat), "the next payment uses them"
                carried += 1
                assert child.legal_actions(seat) == fresh_legal(child, seat) == defined_legal(child, seat)
    assert carried > 100, f"only {carried} carried payments: the playouts hardly paid"


def test_the_carried_payments_change_no_value_nor_what_a_seat_sees() -> None:
    for s, seat in pay_nodes(3, seed=4, games=6):
        s.legal_actions(seat)  # the payments are now on the state
        blank = s._copy()  # type: ignore[attr-defined]
        blank.paying = None
        assert blank == s and hash(blank) == hash(s)
        for viewer in range(3):
            assert blank.observation(viewer) == s.observation(viewer)
        assert "paying" not in s.__getstate__()  # type: ignore[attr-defined]


def test_a_hand_drawn_again_or_a_pickled_state_does_not_use_stale_payments() -> None:
    rng, checked = random.Random(5), 0
    for s, seat in pay_nodes(3, seed=6, games=10):
        s.legal_actions(seat)
        other = (seat + 1) % 3
        redrawn = s.resample(frozenset({other}), rng)  # the payer's hidden goods drawn again
        assert redrawn.legal_actions(seat) == fresh_legal(redrawn, seat) == defined_legal(redrawn, seat)
        if redrawn.hgoods[seat] != s.hgoods[seat]:  # type: ignore[attr-defined]
            checked += 1
        restored = pickle.loads(pickle.dumps(s))
        assert restored.paying is None and restored.legal_actions(seat) == s.legal_actions(seat)
    assert checked > 10, f"only {checked} payers' hands drawn differently"
