"""The transitions of Gang of Dice (rules §2): stakes, rolls, re-rolls, the end of a turn and of
a round, applied to a fresh copy of a state.

Every function here takes a state `s` that the caller (contract.py) has just copied and replaces
its fields; no field value (tuples, ints) is ever changed in place.
"""

from __future__ import annotations

from typing import Any

from engine.gang_of_dice import queries
from engine.gang_of_dice.components import (
    BLACK,
    BONUS,
    FACES,
    NO_FACES,
    ROUNDS,
    YELLOW,
    triggered,
)  # fmt: skip
from engine.gang_of_dice.phases import (
    BUSTED,
    CARD,
    DECIDE,
    OUT,
    OVER,
    ROLL,
    STAKE,
    STATUS_NAMES,
    VALID,
    WAITING,
)  # fmt: skip
from engine.gang_of_dice.state import GangOfDiceData

# -- the flow (methods below mutate a fresh copy) ----------------------------------------

def stake(s: GangOfDiceData, n: int) -> None:
    seat = s.order[s.turn]
    pools, stakes = list(s.pools), list(s.stakes)
    pools[seat] -= n
    stakes[seat] = n
    s.pools, s.stakes = tuple(pools), tuple(stakes)
    s.cur, s.cur_rolls, s.to_roll, s.phase = NO_FACES, 0, n, ROLL


def pick(s: GangOfDiceData, k: int) -> None:
    picked = list(s.picked)  # type: ignore[arg-type]
    picked[s.pick_face] = k
    s.picked = tuple(picked)
    face = queries.next_face(s, FACES.index(s.pick_face))
    if face is not None:
        s.pick_face = face
        return
    s.cur = tuple(c - p for c, p in zip(s.cur, s.picked))
    s.to_roll, s.pick_face, s.phase = sum(s.picked), 0, ROLL


def roll_landed(s: GangOfDiceData) -> None:
    """All dice of a roll are down: log it, then the yellow check (rules §2.3)."""
    seat, card = s.order[s.turn], queries.card(s)
    s.cur_rolls += 1
    s.log = s.log + ((seat, s.cur_rolls, s.picked, s.cur),)
    s.picked = None
    # The round's card is revealed before any die is rolled.
    if card.colour == YELLOW and triggered(card, s.cur, s.cfg.g_distinct):  # type: ignore[union-attr,arg-type]
        close_turn(s, BUSTED)
    elif s.cur_rolls == 3:
        end_turn(s)
    else:
        s.phase = DECIDE


def end_turn(s: GangOfDiceData) -> None:
    """STOP or the last re-roll: the black check on the final faces (rules §2.3 T3)."""
    card = queries.card(s)
    bust = card.colour == BLACK and triggered(card, s.cur, s.cfg.g_distinct)  # type: ignore[union-attr,arg-type]
    close_turn(s, BUSTED if bust else VALID)


def close_turn(s: GangOfDiceData, result: int) -> None:
    seat = s.order[s.turn]
    s.faces = _put(s.faces, seat, s.cur)
    s.rolls = _put(s.rolls, seat, s.cur_rolls)
    s.status = _put(s.status, seat, result)
    s.cur, s.cur_rolls, s.turn = NO_FACES, 0, s.turn + 1
    if s.turn < len(s.order):
        s.phase = STAKE
    else:
        resolve_round(s)


def resolve_round(s: GangOfDiceData) -> None:
    table = s.pot + sum(s.stakes)
    winner = queries.winner(s)
    pools = list(s.pools)
    if winner is not None:
        pools[winner] += table
    s.pools, s.pot = tuple(pools), 0 if winner is not None else table
    out = [p for p in range(s.num_players) if s.active[p] and s.pools[p] == 0]
    s.active = tuple(a and p not in out for p, a in enumerate(s.active))
    over = s.round == ROUNDS or sum(s.active) <= 1
    discarded = s.pot if over else 0  # nobody owns dice left on the table at the end
    s.history = s.history + (summary(s, winner, table, out, discarded),)
    if over:
        s.pot, s.phase = 0, OVER
        return
    s.start_seat = next_start(s, winner)
    begin_round(s, s.round + 1)


def summary(s: GangOfDiceData, winner: int | None, table: int, out: list[int], discarded: int) -> tuple[Any, ...]:
    """The public record of the round just resolved, as (field, value) pairs."""
    return (
        ("round", s.round), ("card", queries.card(s).id), ("start_player", s.start_seat),  # type: ignore[union-attr]
        ("turn_order", s.order), ("stakes", s.stakes), ("faces", s.faces),
        ("rolls", s.rolls), ("status", tuple(STATUS_NAMES[x] for x in s.status)),
        ("winner", winner), ("dice_won", table if winner is not None else 0),
        ("carried_over", 0 if winner is not None or discarded else s.pot),
        ("discarded", discarded), ("eliminated", tuple(out)),
    )


def next_start(s: GangOfDiceData, winner: int | None) -> int:
    rule = s.cfg.start_rule
    if rule == "winner_starts" and winner is not None:
        return winner
    if rule == "fixed":
        return first_active_from(s, 0)
    return first_active_from(s, s.start_seat + 1)


def first_active_from(s: GangOfDiceData, seat: int) -> int:
    n = s.num_players
    return next((seat + i) % n for i in range(n) if s.active[(seat + i) % n])


def begin_round(s: GangOfDiceData, r: int) -> None:
    n = s.num_players
    s.round, s.pot = r, s.pot + BONUS.get(r, 0)
    s.order = tuple(p for p in ((s.start_seat + i) % n for i in range(n)) if s.active[p])
    s.turn, s.stakes, s.faces = 0, (0,) * n, (None,) * n
    s.rolls = (0,) * n
    s.status = tuple(WAITING if a else OUT for a in s.active)
    s.log, s.phase = (), CARD


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]
