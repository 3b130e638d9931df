"""What a seat sees in Gang of Dice: the observation (the field table is in the package
docstring), chance labels and their visibility (rules §3: cards and dice are open).

This module imports the state for its type only (state.py imports this module).
"""

from __future__ import annotations

from typing import Any

from engine.gang_of_dice import actions as A
from engine.gang_of_dice import queries
from engine.gang_of_dice.components import CARDS, ROUNDS, YELLOW, score
from engine.gang_of_dice.phases import CARD, OVER, PHASE_NAMES, PICK, ROLL, STAKE, STATUS_NAMES
from engine.gang_of_dice.state import GangOfDiceData


def observation(state: GangOfDiceData, seat: int) -> dict[str, Any]:
    actor = queries.seat_to_act(state)
    card = queries.card(state)
    return {
        "seat": seat,
        "phase": PHASE_NAMES[state.phase],
        "round": state.round,
        "rounds": ROUNDS,
        "options": dict(state.cfg.options),
        "card": card.as_json() if card else None,
        "cards_revealed": [CARDS[c - 1].id for c in state.cards],
        "scores": _visible_pools(state, seat),
        "active": list(state.active),
        "pot": state.pot,
        "start_player": state.start_seat,
        "turn_order": list(state.order),
        "to_move": actor,
        "stakes": list(state.stakes),
        "faces": [list(state.cur) if s == actor and state.phase != STAKE else
                  (list(f) if f is not None else None) for s, f in enumerate(state.faces)],
        "rolls": [state.cur_rolls if s == actor else r for s, r in enumerate(state.rolls)],
        "status": ["rolling" if s == actor else STATUS_NAMES[x] for s, x in enumerate(state.status)],
        "leader": _leader(state),
        "picked": list(state.picked) if state.picked is not None else None,
        "pick_face": state.pick_face if state.phase == PICK else None,
        "dice_to_roll": state.to_roll if state.phase == ROLL else 0,
        "log": [{"seat": s, "roll": r, "rerolled": list(p) if p is not None else None,
                 "faces": list(f)} for s, r, p, f in state.log],
        "history": [round_json(h) for h in state.history],
    }


def _visible_pools(state: GangOfDiceData, seat: int) -> list[int | None]:
    if not state.cfg.hide_pools or state.phase == OVER:
        return list(state.pools)
    return [p if s == seat else None for s, p in enumerate(state.pools)]


def _leader(state: GangOfDiceData) -> dict[str, int] | None:
    winner = queries.winner(state) if state.phase != CARD else None
    if winner is None:
        return None
    return {"seat": winner, "score": score(state.faces[winner]), "dice": state.stakes[winner]}  # type: ignore[arg-type]


def round_json(record: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """One round of `history` (see `_summary`) as an observation shows it: its tuples as lists.

    Field by field rather than by a generic recursion over the values: observations repeat the
    whole history at every decision, and this was most of their cost."""
    out = dict(record)
    for name in ("turn_order", "stakes", "rolls", "status", "eliminated"):
        out[name] = list(out[name])
    out["faces"] = [list(f) if f is not None else None for f in out["faces"]]
    return out


def chance_label(state: GangOfDiceData, outcome: int) -> str:
    if state.phase == ROLL:
        face = A.face_name(outcome)
        return f"a die shows {face}" + (" (the gangster)" if face == "G" else "")
    card = CARDS[outcome - 1]
    when = "checked after every roll" if card.colour == YELLOW else "checked on the final dice"
    return f"warning card {card.id}: {card.art}, {card.colour} ({when})"


def chance_visibility(state: GangOfDiceData, outcome: int) -> frozenset[int] | None:
    return None  # rules §3: cards are revealed and dice rolled openly


def hidden_chance_label(state: GangOfDiceData) -> str:
    return "die rolled" if state.phase == ROLL else "warning card revealed"
