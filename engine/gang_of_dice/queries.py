"""Questions about a Gang of Dice state that change nothing: the round's card, the seat to act,
the card pile, dice faces, the round's winner (rules §2)."""

from __future__ import annotations

from engine.gang_of_dice.components import (
    BRIGHT_CARDS,
    BRIGHT_ROUNDS,
    CARDS,
    DARK_CARDS,
    FACES,
    Card,
    score,
)  # fmt: skip
from engine.gang_of_dice.phases import (
    DECIDE,
    PICK,
    ROLL,
    STAKE,
    VALID,
)  # fmt: skip
from engine.gang_of_dice.state import GangOfDiceData


def card(s: GangOfDiceData) -> Card | None:
    """The warning card of the current round (None before it is revealed)."""
    return CARDS[s.cards[-1] - 1] if len(s.cards) == s.round else None


def seat_to_act(s: GangOfDiceData) -> int | None:
    """The seat whose turn it is (also while its dice are rolling), else None."""
    return s.order[s.turn] if s.phase in (STAKE, DECIDE, PICK, ROLL) else None


def last_face_with_dice(s: GangOfDiceData) -> int:
    return [f for f in FACES if s.cur[f]][-1]


def cards_left(s: GangOfDiceData) -> tuple[int, ...]:
    """The card numbers this round's card may be: its pile less the cards already revealed."""
    return tuple(c for c in card_pile(s) if c not in s.cards)


def card_pile(s: GangOfDiceData) -> tuple[int, ...]:
    """Card numbers the current round's card can come from."""
    if s.cfg.deck_mode == "uniform":
        return tuple(card.number for card in CARDS)
    return BRIGHT_CARDS if s.round <= BRIGHT_ROUNDS else DARK_CARDS


def next_face(s: GangOfDiceData, after: int) -> int | None:
    """The next face (in FACES order) after position `after` that some die shows."""
    for i in range(after + 1, len(FACES)):
        if s.cur[FACES[i]]:
            return FACES[i]
    return None


def winner(s: GangOfDiceData) -> int | None:
    """The best VALID seat of this round: score, then dice rolled, then turn order (§2.5)."""
    valid = [seat for seat in s.order if s.status[seat] == VALID]
    if not valid:
        return None
    return max(valid, key=lambda seat: (score(s.faces[seat]), s.stakes[seat],  # type: ignore[arg-type]
                                        -s.order.index(seat)))
