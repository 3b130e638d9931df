"""Hidden information: redraw what a group of seats cannot see (State.resample).

Secrets in Riga: the goods deck's contents, goods drawn by EXTRA_DRAW (a hand's goods beyond
its publicly known part), each player's kept start building while it stays in hand, the card
each player put under the building deck, the two cards a player is choosing from at set-up,
and the shuffled part of the building deck. Sizes and the public parts never change.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.riga.state import RigaState

def _put(values: tuple, index: int, value: Any) -> tuple:
    return values[:index] + (value,) + values[index + 1 :]


def redraw_goods(s: RigaState, hidden: list[int], rng: random.Random) -> None:
    """Redraw the unknown goods of the `hidden` seats together with the goods deck."""
    pool = [g for g, n in enumerate(s.gdeck) for _ in range(n)]
    for p in hidden:
        pool += [g for g in range(4) for _ in range(s.hgoods[p][g] - s.kgoods[p][g])]
    rng.shuffle(pool)
    for p in hidden:
        secret = sum(s.hgoods[p]) - sum(s.kgoods[p])
        hand = list(s.kgoods[p])
        for g in pool[:secret]:
            hand[g] += 1
        pool = pool[secret:]
        s.hgoods = _put(s.hgoods, p, tuple(hand))
    s.gdeck = tuple(pool.count(g) for g in range(4))


def redraw_buildings(s: RigaState, hidden: list[int], chooser: int, rng: random.Random) -> None:
    """Redraw the `hidden` seats' secret buildings, their cards under the deck, the start
    choice of `chooser` (-1: nobody is choosing), and the shuffled part of the building deck."""
    pool = list(s.bpool)
    for p in hidden:
        pool += s.sbuild[p]
    pool += [c for c, owner in s.bbottom if owner in hidden]
    if chooser in hidden:
        pool += s.choice
    rng.shuffle(pool)
    for p in hidden:
        k = len(s.sbuild[p])
        secret, pool = tuple(sorted(pool[:k])), pool[k:]
        public = tuple(c for c in s.hbuild[p] if c not in s.sbuild[p])
        s.sbuild = _put(s.sbuild, p, secret)
        s.hbuild = _put(s.hbuild, p, tuple(sorted(public + secret)))
    bottom = []
    for card, owner in s.bbottom:
        if owner in hidden:
            card, pool = pool[0], pool[1:]
        bottom.append((card, owner))
    s.bbottom = tuple(bottom)
    if chooser in hidden:
        k = len(s.choice)
        s.choice, pool = tuple(pool[:k]), pool[k:]
    s.bpool = tuple(sorted(pool))
