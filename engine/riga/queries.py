"""Questions about a Riga state that change nothing: chance outcomes, legal actions, hand sizes,
money and scores (rules/riga.md §4)."""

from __future__ import annotations

from engine.riga import actions as a
from engine.riga import components as t
from engine.riga import scoring as sc
from engine.riga.phases import BUILD, DISCARD, FLIP, GOODS_DRAW_PHASES, SETUP_BUILDINGS, SPRING_DISPLAY, START, TAKE
from engine.riga.state import BuildPayments, RigaData


def tile_pool(s: RigaData) -> tuple[int, ...]:
    """The Grand Master tiles used in the set-up shuffle (RIGA only with Riga buildings)."""
    return tuple(tile for tile in range(8) if s.use_riga or tile != t.T_RIGA)


def chance_outcomes(s: RigaData) -> list[tuple[int, float]]:
    phase = s.phase
    if phase in GOODS_DRAW_PHASES:
        return goods_outcomes(s.gdeck)
    if phase in (SETUP_BUILDINGS, SPRING_DISPLAY):
        chance = 1 / len(s.bpool)
        return [(c, chance) for c in s.bpool]
    if phase == START:
        return [(seat, 1 / s.num_players) for seat in range(s.num_players)]
    done = s.flipped if phase == FLIP else s.drawn
    left = [tile for tile in tile_pool(s) if tile not in done]
    return [(tile, 1 / len(left)) for tile in left]


def goods_outcomes(gdeck: tuple[int, ...]) -> list[tuple[int, float]]:
    """A goods draw from a deck of `gdeck` cards of each good: each good in it, by its share."""
    total = sum(gdeck)
    return [(g, n / total) for g, n in enumerate(gdeck) if n]


def legal_actions(s: RigaData, seat: int) -> list[int]:
    phase = s.phase
    if phase == TAKE:
        return _take_actions(s)
    if phase == BUILD:
        return _pay_actions(s, seat) if s.pending else _build_actions(s, seat)
    if phase == DISCARD:
        goods = [a.DISCARD_GOOD + g for g, n in enumerate(s.hgoods[seat]) if n]
        return goods + [a.DISCARD_BUILDING + c for c in s.hbuild[seat]]
    return [a.KEEP_START + i for i in range(len(s.choice))]


def _take_actions(s: RigaData) -> list[int]:
    rows = [a.TAKE_ROW + r for r, row in enumerate(s.rows) if row]
    cards = sorted(a.TAKE_BUILDING + c for c in s.dnew + s.dold)
    return rows + cards or [a.TAKE_NOTHING]


def _build_actions(s: RigaData, seat: int) -> list[int]:
    if s.builds >= t.MAX_BUILDS_PER_TURN:
        return [a.END_TURN]
    cards = s.hbuild[seat] + s.rsupply[seat]
    found = sc.buildable(s.hgoods[seat], s.tableau[seat], s.used[seat], cards)
    actions = [a.START_BUILD + card for card in found]
    actions.sort()
    actions.append(a.END_TURN)
    return actions


def _pay_actions(s: RigaData, seat: int) -> list[int]:
    plan = payment_plan(s, seat)
    items = sc.next_items(plan.payments, plan.paid)
    return [a.PAY_GOOD + item for item in items]  # PAY_CREDIT follows PAY_GOOD directly


def payment_plan(s: RigaData, seat: int) -> BuildPayments:
    """The legal payments of `seat`'s build being paid at `s`: the ones the state carries
    (`s.paying`, from the payment before) when they are this build's, else worked out from the
    tableau and the hand and kept on the state for the next payment."""
    plan = s.paying
    if plan is not None and plan.fits(s, seat):
        return plan
    pending = s.pending
    assert pending is not None  # asked while a build is being paid
    card, paid = pending
    hand, tableau, used = s.hgoods[seat], s.tableau[seat], s.used[seat]
    values_by_city, discounts = sc.build_facts(tableau)
    values = values_by_city[t.CITY_OF_CARD[card]]
    cost = sc.cost_with(card, discounts)
    payments = sc.extending(sc.minimal_payments(values, sc.available_items(hand, tableau, used), cost), paid)
    plan = s.paying = BuildPayments(seat, card, paid, hand, tableau, used, values, cost, payments)
    return plan


def hand_size(s: RigaData, seat: int) -> int:
    """Goods cards plus building cards in hand (Riga supply not included)."""
    return sum(s.hgoods[seat]) + len(s.hbuild[seat])


def money(s: RigaData, seat: int) -> int:
    """§4.3 money: base value of goods in hand plus unused credits."""
    return sc.money(s.hgoods[seat], s.tableau[seat], s.used[seat])


def public_scores(s: RigaData) -> list[int]:
    """Base VP plus Grand Master tile VP: what everyone can count during the game."""
    return list(sc.public_vp(s.tableau, s.tiles, tuple(map(len, s.hbuild))))


def money_tile_scores(s: RigaData) -> list[int]:
    """The Money tile's VP (zero for everyone when it is not in play)."""
    if not any(tile == t.T_MONEY for tile, _, _ in s.tiles):
        return [0] * s.num_players
    side = next(side for tile, side, _ in s.tiles if tile == t.T_MONEY)
    return sc.money_tile_vp([money(s, p) for p in range(s.num_players)], t.MONEY_AWARDS[side])


def totals(s: RigaData) -> list[int]:
    """§4.4 total VP."""
    return [p + m for p, m in zip(public_scores(s), money_tile_scores(s))]


def ranks(s: RigaData) -> list[int]:
    keys = [
        (total, money(s, p), len(s.tableau[p])) for p, total in enumerate(totals(s))
    ]
    return [1 + sum(other > mine for other in keys) for mine in keys]
