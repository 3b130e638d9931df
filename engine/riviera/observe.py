"""What one seat sees (rules §2.3): its own hand, everything public, nothing else; and how a
chance outcome reads in a replay (`chance_label`) and who may read it (`chance_visibility`).

The field list is documented in the package docstring (engine/riviera/__init__.py).
"""

from __future__ import annotations

from typing import Any, Final

from engine.riviera import queries
from engine.riviera.actions import GIVE
from engine.riviera.components import (
    COLOUR_NAMES,
    COLOURS,
    DIE_LONG_NAMES,
    DIE_NAMES,
    GOLD,
    HAND_SIZE,
    STARS,
    VALUES,
    bits,
    card_words,
)  # fmt: skip
from engine.riviera.phases import (
    DEAL,
    DRAW,
    FALLBACK_DISCARD,
    HOLDER_DRAW,
    PHASE_NAMES,
    POWERS,
    REMOVED_DRAW,
    ROLL,
    STATUS_NAMES,
    SWAP_GIVE,
    SWAP_PICK,
)  # fmt: skip
from engine.riviera.state import RivieraData

POWER_PHASES: Final = (POWERS, SWAP_GIVE, SWAP_PICK, FALLBACK_DISCARD, DRAW)
# `bits` of every seat or die mask (< 64), looked up: an observation lists about twenty such
# masks, most of them empty, and a call each was a good part of its cost. Unpack into a list.
SMALL_BITS: Final = tuple(tuple(bits(mask)) for mask in range(64))
STAR_SUM: Final = STARS.__getitem__


def observation(s: RivieraData, seat: int) -> dict[str, Any]:
    n = s.num_players
    # Before the deal (the removed colour, the first holder) nobody holds a card and no pile is
    # formed. During the deal a seat sees the cards dealt to it so far, every hand's size and the
    # cards still to deal; what others hold, nobody knows until it stands (known_hands).
    setup = s.phase in (REMOVED_DRAW, HOLDER_DRAW)
    dealing = setup or s.phase == DEAL
    return {
        "seat": seat,
        "phase": PHASE_NAMES[s.phase],
        "num_players": n,
        "mode": "sequential" if s.rules.sequential else "simultaneous",
        "winning_score": s.rules.winning_score,
        "colours": [COLOURS[c] for c in s.colours],
        "removed_colour": COLOURS[s.removed] if s.removed >= 0 else None,
        "round": s.round_no,
        "turn": s.turn_no,
        "holder": s.holder if s.holder >= 0 else None,
        "scores": list(s.scores),
        "status": list(map(STATUS_NAMES.__getitem__, s.status)),
        "last_chance_used": list(s.lc_used),
        "hand": [] if setup else list(s.hands[seat]),
        "hand_sizes": [0] * n if setup else list(map(len, s.hands)),
        "columns": list(map(list, s.columns)),
        "column_stars": [sum(map(STAR_SUM, column)) for column in s.columns],
        "played_this_turn": list(map(list, s.played)),
        **_dice(s),
        "pending": {
            "gold": [*SMALL_BITS[s.pend_gold]],
            "reservations": {COLOURS[c]: [*SMALL_BITS[s.pend_res[c]]] for c in s.colours},
            "adjusters": [*SMALL_BITS[s.pend_adj]],
        },
        "adjust_queue": list(s.adjusters),
        "bonus_eligible": [*SMALL_BITS[s.eligible]],
        "acting": list(s.acting_players()),
        "queue": list(s.queue),
        "power": _power(s, seat),
        "draw_pile_size": 0 if setup else queries.draw_pile_size(s),
        "discard_size": s.discard.bit_count(),
        "known_hands": [[] if dealing else bits(mask) for mask in s.known[seat * n : seat * n + n]],
        "known_discards": bits(s.known_disc[seat]),
        "events": [_event(e, seat) for e in s.events],
        "winners": [*SMALL_BITS[s.winners]],
        "grand_slam": s.slam,
    }


def _dice(s: RivieraData) -> dict[str, Any]:
    """Dice values once the roll stands; an unfinished roll (maybe rejected, §6.2) is hidden."""
    shown = s.phase != ROLL
    dice = s.dice
    return {
        "dice": {COLOURS[c]: dice[c] if shown and dice[c] else None for c in s.colours},
        "gold_in_roll": s.gold_on,
        "gold": dice[GOLD] if shown and s.gold_on and dice[GOLD] else None,
        "reserved_by": {COLOURS[c]: [*SMALL_BITS[s.reserved[c]]] for c in s.colours},
        "modified_dice": [DIE_NAMES[d] for d in SMALL_BITS[s.modified]],
    }


def _power(s: RivieraData, seat: int) -> dict[str, Any] | None:
    """The power being settled: public owner, card and target; the chosen cards only to the owner."""
    if s.phase not in POWER_PHASES:
        return None
    owner = s.queue[0]
    card = queries.power_card(s, owner)
    swapping = s.target >= 0
    return {
        "seat": owner,
        "card": card,
        "target": s.target if swapping else None,
        "count": queries.swap_size(s) if swapping else None,
        "selected": list(s.picked) if seat == owner else [],
        "draws_left": s.draws_left,
    }


def _event(event: tuple[Any, ...], seat: int) -> dict[str, Any]:
    kind, who = event[0], event[1]
    out: dict[str, Any] = {"type": kind, "seat": who}
    if kind in ("play", "bonus"):
        out["card"] = event[2]
    elif kind == "adjust":
        out["die"] = DIE_NAMES[event[2]] if event[2] >= 0 else None
        out["delta"] = event[3]
    elif kind == "power":
        out["card"], out["used"] = event[2], event[3]
        out["value"] = event[2] % VALUES + 1
    elif kind == "swap":
        target, given, taken = event[2], event[3], event[4]
        out["target"], out["count"] = target, len(given)
        if seat in (who, target):  # only the two players in a swap see the cards (§2.3)
            out["to_target"], out["to_swapper"] = list(given), list(taken)
    elif kind == "fallback":
        out["count"] = event[2]
    return out


def chance_label(s: RivieraData, outcome: int) -> str:
    """A chance outcome in words: "red die: 5", "dealt red 7 to seat 1", ..."""
    phase = s.phase
    if phase == ROLL:
        return f"{DIE_LONG_NAMES[queries.dice_to_roll(s)[0]]}: {outcome}"
    if phase == DEAL:
        return f"dealt {card_words(outcome)} to seat {queries.dealt_to(s)}"
    if phase == SWAP_PICK:
        return f"seat {s.queue[0]} takes {card_words(outcome)} from seat {s.target}"
    if phase == DRAW:
        return f"seat {s.queue[0]} draws {card_words(outcome)}"
    if phase == REMOVED_DRAW:
        return f"colour removed: {COLOUR_NAMES[outcome]}"
    return f"first holder: seat {outcome}"  # HOLDER_DRAW


def chance_visibility(s: RivieraData, outcome: int) -> frozenset[int] | None:
    """A dealt or drawn card: its new owner (§2.3); a card taken in a swap: the two players in
    the swap; dice, the removed colour and the first holder: everyone."""
    phase = s.phase
    if phase == DEAL:
        return frozenset({queries.dealt_to(s)})
    if phase == SWAP_PICK:
        return frozenset({s.queue[0], s.target})
    if phase == DRAW:
        return frozenset({s.queue[0]})
    return None


def hidden_chance_label(s: RivieraData) -> str:
    """A card's chance node without the card: "dealt a card to seat 1", "seat 0 draws a card"."""
    phase = s.phase
    if phase == DEAL:
        return f"dealt a card to seat {queries.dealt_to(s)}"
    if phase == SWAP_PICK:
        return f"seat {s.queue[0]} takes a card from seat {s.target}"
    if phase == DRAW:
        return f"seat {s.queue[0]} draws a card"
    if phase == ROLL:
        return f"{DIE_LONG_NAMES[queries.dice_to_roll(s)[0]]} rolled"
    return "colour removed" if phase == REMOVED_DRAW else "first holder drawn"  # always public


def action_visibility(s: RivieraData, seat: int, action: int) -> frozenset[int] | None:
    """A card given in a swap or thrown away by the fallback: only its owner sees which (§2.3;
    the others see how many); every other action is public once played."""
    return frozenset({seat}) if action >= GIVE else None


def hidden_action_label(s: RivieraData, seat: int) -> str:
    """A card 10 decision without the card: "seat 0 gives a card to seat 2", "seat 0 discards a card"."""
    if s.phase == SWAP_GIVE:
        return f"seat {seat} gives a card to seat {s.target}"
    return f"seat {seat} discards a card"


def voided_chance_steps(before: RivieraData, after: RivieraData) -> int:
    """How many chance steps the outcome that led from `before` to `after` threw away unseen:
    a whole roll redone because it bust (§6.2), or a whole deal redone for its colour spread."""
    if before.phase == ROLL and after.phase == ROLL and after.rerolls > before.rerolls:
        return len(queries.rolled_dice(before))
    last_card = HAND_SIZE * before.num_players - 1
    if before.phase == DEAL and after.phase == DEAL and len(before.in_deck) - len(before.deck) == last_card:
        return last_card + 1
    return 0
