"""Riga's hidden information: `resample` (State.resample) redraws what a group of seats cannot
see, and `sample_state` (Riga.sample_state) rebuilds a full state from one seat's observation.

Secrets in Riga: the goods deck's contents, goods drawn by EXTRA_DRAW (a hand's goods beyond
its publicly known part), each player's kept start building while it stays in hand, the card
each player put under the building deck, the two cards a player is choosing from at set-up,
and the shuffled part of the building deck. Sizes and the public parts never change.

`sample_state`: the observation holds the whole public position plus the seat's own secrets.
What the seat cannot see is drawn uniformly with `rng`: the order-free goods deck and the other
hands' unknown goods (from the goods not accounted for), and the shuffled building deck, the
other players' secret buildings, their cards under the deck and another player's start choice
(from the city buildings not accounted for).

This module imports the state for its type only (state.py imports this module): the state to
fill in comes from the caller, game.py.
"""

from __future__ import annotations

import random
from typing import Any

from engine.riga import components as t
from engine.riga.phases import KEEP, OVER, PHASE_NAMES, SEASON_NAMES, SETUP_BUILDINGS
from engine.riga.state import RigaData


def resample(state: RigaData, known_to: frozenset[int], rng: random.Random) -> RigaData:
    """A state the seats in `known_to` cannot tell from `state`: the other seats' secrets drawn again."""
    if state.phase == OVER:  # hands are shown for the final count
        return state
    hidden = [p for p in range(state.num_players) if p not in known_to]
    s = state._copy()
    redraw_goods(s, hidden, rng)
    chooser = state.queue[0] if state.phase in (SETUP_BUILDINGS, KEEP) else -1
    redraw_buildings(s, hidden, chooser, rng)
    return s


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def redraw_goods(s: RigaData, hidden: list[int], rng: random.Random) -> None:
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


def redraw_buildings(s: RigaData, hidden: list[int], chooser: int, rng: random.Random) -> None:
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


# -- Riga.sample_state: a state rebuilt from one observation ----------------------------------

GOOD_ID = {name: g for g, name in enumerate(t.GOOD_NAMES)}
TILE_ID = {name: i for i, name in enumerate(t.TILE_NAMES)}
SIDE_ID = {name: i for i, name in enumerate(t.SIDE_NAMES)}


def _ids(codes: list[str]) -> tuple[int, ...]:
    return tuple(t.CARD_BY_CODE[code] for code in codes)


def _counts(goods: dict[str, int]) -> tuple[int, ...]:
    return tuple(goods[name] for name in t.GOOD_NAMES)


def _tuple(value: Any) -> Any:
    return tuple(_tuple(v) for v in value) if isinstance(value, list) else value


def sample_state(initial: RigaData, obs: dict[str, Any], rng: random.Random) -> RigaData:
    """`initial` (a new game of the observation's options, which this fills in) made to give
    `obs["seat"]` exactly this observation, hidden parts drawn with `rng`."""
    s = initial
    _public(s, obs)
    _goods(s, obs, rng)
    _buildings(s, obs, rng)
    return s._set_kind()


def _public(s: RigaData, obs: dict[str, Any]) -> None:
    players = obs["players"]
    s.phase = PHASE_NAMES.index(obs["phase"])
    s.season = SEASON_NAMES.index(obs["season"])
    s.year, s.start, s.builds = obs["year"], obs["start_player"], obs["builds_this_turn"]
    s.queue = tuple(obs["turn_queue"])
    s.rows = tuple(tuple(GOOD_ID[g] for g in row) for row in obs["rows"])
    s.gdisc = _counts(obs["goods_discard"])
    s.dnew, s.dold, s.removed = _ids(obs["display_new"]), _ids(obs["display_old"]), _ids(obs["removed_buildings"])
    s.tableau = tuple(_ids(p["tableau"]) for p in players)
    s.rsupply = tuple(_ids(p["riga_supply"]) for p in players)
    s.used = tuple(
        sum(1 << t.CREDIT_INDEX[t.CARD_BY_CODE[code]] for code in p["credits_used"]) for p in players
    )
    s.kgoods = tuple(_counts(p["known_goods"]) for p in players)
    s.tiles = tuple((TILE_ID[x["tile"]], SIDE_ID[x["side"]], x["holder"]) for x in obs["tiles"])
    s.flipped = tuple(TILE_ID[name] for name in obs["tiles_turned_over"])
    s.drawn = tuple(TILE_ID[name] for name in obs["tiles_drawn"])
    s.need = obs["draws_pending"]
    s.log = _tuple(obs["recent_events"])
    pending = obs["pending_build"]
    if pending is not None:
        paid = _counts(pending["paid_goods"]) + tuple(
            int(t.CARDS[card].code in pending["paid_credits"]) for card in t.CREDIT_CARDS
        )
        s.pending = (t.CARD_BY_CODE[pending["card"]], paid)


def _goods(s: RigaData, obs: dict[str, Any], rng: random.Random) -> None:
    seat, players = obs["seat"], obs["players"]
    own = _counts(obs["hand_goods"])
    seen = [s.gdisc[g] + own[g] for g in range(4)]
    for row in s.rows:
        for g in row:
            seen[g] += 1
    for p, known in enumerate(s.kgoods):
        if p != seat:
            seen = [x + k for x, k in zip(seen, known)]
    pool = [g for g in range(4) for _ in range(t.DECK_COUNTS[g] - seen[g])]
    rng.shuffle(pool)
    hands = []
    for p, known in enumerate(s.kgoods):
        if p == seat:
            hands.append(own)
            continue
        secret = players[p]["goods_in_hand"] - sum(known)
        hand = list(known)
        for g in pool[:secret]:
            hand[g] += 1
        pool = pool[secret:]
        hands.append(tuple(hand))
    s.hgoods = tuple(hands)
    s.gdeck = tuple(pool.count(g) for g in range(4))


def _buildings(s: RigaData, obs: dict[str, Any], rng: random.Random) -> None:
    seat, players = obs["seat"], obs["players"]
    own_hand = _ids(obs["hand_buildings"])
    mine_under = list(_ids(obs["my_cards_under_deck"]))
    my_choice = _ids(obs["start_choice"])
    accounted = set(s.dnew + s.dold + s.removed + own_hand + my_choice) | set(mine_under)
    for p, info in enumerate(players):
        accounted |= set(s.tableau[p]) | set(_ids(info["known_buildings"]))
    pool = [c for c in t.CITY_CARD_IDS if c not in accounted]
    rng.shuffle(pool)
    hands, secrets = [], []
    for p, info in enumerate(players):
        known = _ids(info["known_buildings"])
        if p == seat:
            secret = tuple(c for c in own_hand if c not in known)
            hands.append(own_hand)
        else:
            k = info["buildings_in_hand"] - len(known)
            secret, pool = tuple(sorted(pool[:k])), pool[k:]
            hands.append(tuple(sorted(known + secret)))
        secrets.append(secret)
    s.hbuild, s.sbuild = tuple(hands), tuple(secrets)
    bottom = []
    for owner in obs["building_deck_bottom_owners"]:
        if owner == seat:
            card = mine_under.pop(0)
        else:
            card, pool = pool[0], pool[1:]
        bottom.append((card, owner))
    s.bbottom = tuple(bottom)
    if my_choice:
        s.choice = my_choice
    elif obs["start_choice_size"]:
        k = obs["start_choice_size"]
        s.choice, pool = tuple(pool[:k]), pool[k:]
    s.bpool = tuple(sorted(pool))
