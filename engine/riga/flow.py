"""Riga's transitions (rules/riga.md §2): set-up, seasons, turns, winter and the end, applied to
a fresh copy of a state.

Every function here takes a state `s` that the caller (state.py) has just copied and replaces
its fields; no field value (tuples, ints) is ever changed in place, so the original state stays
intact. Automatic steps (reshuffles, the display shift, empty queues) run in `settle` until the
next chance or decision node.
"""

from __future__ import annotations

from typing import Any

from engine.riga import actions as a
from engine.riga import components as t
from engine.riga import queries
from engine.riga import scoring as sc
from engine.riga.phases import (
    AUTUMN,
    BUILD,
    DISCARD,
    DRAW_TILE,
    EXTRA,
    FLIP,
    GAME_OVER,
    GOODS_DRAW_PHASES,
    KEEP,
    KIND_OF_PHASE,
    OVER,
    SETUP,
    SETUP_BUILDINGS,
    SETUP_GOODS,
    SPRING,
    SPRING_DISPLAY,
    SPRING_ROWS,
    START,
    SUMMER,
    TAKE,
    WINTER,
)  # fmt: skip
from engine.riga.state import BuildPayments, RigaData

LOG_KEEP = 24  # public events kept in the state for observations (the derived fields hold the rest)


# `_put` and `_add` go through a list: two new objects where slicing and joining made five
# (the tuples' allocation and release were the largest share of a compiled playout's own time).
def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    items = list(values)
    items[index] = value
    return tuple(items)


def _add(counts: tuple[int, ...], index: int, delta: int) -> tuple[int, ...]:
    items = list(counts)
    items[index] += delta
    return tuple(items)


def set_up(s: RigaData, num_players: int, use_riga: bool, use_gm: bool) -> None:
    """Fill in blank `s` as a new game (§2.1), before the start player is drawn."""
    n = num_players
    s.num_players, s.use_riga, s.use_gm, s.years = n, use_riga, use_gm, t.YEARS[n]
    s.phase, s.season, s.year, s.start, s.queue, s.builds = START, SETUP, 0, -1, (), 0
    s.gdeck, s.gdisc, s.rows = t.DECK_COUNTS, (0, 0, 0, 0), ((),) * t.rows_per_spring(n)
    s.bpool, s.bbottom, s.dnew, s.dold, s.removed = t.CITY_CARD_IDS, (), (), (), ()
    s.hgoods = s.kgoods = ((0, 0, 0, 0),) * n
    s.hbuild = s.sbuild = s.tableau = ((),) * n
    s.used = (0,) * n
    s.rsupply = (t.RIGA_CARD_IDS if use_riga else (),) * n
    s.tiles, s.flipped, s.drawn = (), (), ()
    s.pending, s.need, s.choice, s.log = None, 0, (), ()
    s.paying = None
    s._legal = s._outcomes = None
    s._set_kind()


def apply_chance(s: RigaData, outcome: int) -> None:
    """Chance picks `outcome` at `s`, a fresh copy: the draw, then the automatic steps."""
    phase = s.phase
    if phase == START:
        s.start = outcome
        log(s, ("start_player", outcome))
        if s.use_gm:
            s.phase = FLIP
        else:
            begin_hands(s)
    elif phase == FLIP:
        s.flipped += (outcome,)
    elif phase == DRAW_TILE:
        s.drawn += (outcome,)
    elif phase in GOODS_DRAW_PHASES:
        s.gdeck = _add(s.gdeck, outcome, -1)
        receive_good(s, outcome)
    else:  # a building card from the shuffled part of the deck
        drawn = s.bpool.index(outcome)  # the shuffled part holds each card once
        s.bpool = s.bpool[:drawn] + s.bpool[drawn + 1 :]
        if phase == SETUP_BUILDINGS:
            s.choice += (outcome,)
        else:
            s.dnew += (outcome,)
            s.need -= 1
    settle(s)


def apply_action(s: RigaData, seat: int, action: int) -> None:
    """`seat` plays `action` at `s`, a fresh copy: the move, then the automatic steps."""
    if action < a.TAKE_ROW:
        keep_start_building(s, seat, action - a.KEEP_START)
    elif action <= a.TAKE_NOTHING:
        take(s, seat, action)
    elif action < a.PAY_GOOD:
        start_build(s, seat, action - a.START_BUILD)
    elif action < a.END_TURN:
        pay(s, seat, action - a.PAY_GOOD)
    elif action == a.END_TURN:
        end_turn(s)
    else:
        discard(s, seat, action)
    settle(s)


def receive_good(s: RigaData, good: int) -> None:
    if s.phase == SPRING_ROWS:
        slot = row_target(s)
        s.rows = _put(s.rows, slot, s.rows[slot] + (good,))  # type: ignore[arg-type,index]
        return
    seat = s.queue[0]
    s.hgoods = _put(s.hgoods, seat, _add(s.hgoods[seat], good, 1))
    if s.phase == SETUP_GOODS:  # starting goods are revealed: public
        s.kgoods = _put(s.kgoods, seat, _add(s.kgoods[seat], good, 1))
        log(s, ("start_good", seat, t.GOOD_NAMES[good]))
    else:  # EXTRA_DRAW: hidden from the opponents
        s.need -= 1
        log(s, ("extra_draw", seat))


def keep_start_building(s: RigaData, seat: int, index: int) -> None:
    kept = s.choice[index]
    s.hbuild = _put(s.hbuild, seat, tuple(sorted(s.hbuild[seat] + (kept,))))
    s.sbuild = _put(s.sbuild, seat, tuple(sorted(s.sbuild[seat] + (kept,))))
    s.bbottom += tuple((c, seat) for i, c in enumerate(s.choice) if i != index)
    s.choice = ()
    log(s, ("keep_start_building", seat))
    s.queue = s.queue[1:]
    if s.queue:
        s.phase = SETUP_GOODS
    else:
        s.year = 1
        begin_spring(s)


def take(s: RigaData, seat: int, action: int) -> None:
    s.phase = BUILD
    if action < a.TAKE_BUILDING:
        slot = action - a.TAKE_ROW
        row = s.rows[slot]
        hand, known = list(s.hgoods[seat]), list(s.kgoods[seat])
        for good in row:
            hand[good] += 1
            known[good] += 1
        s.hgoods = _put(s.hgoods, seat, tuple(hand))
        s.kgoods = _put(s.kgoods, seat, tuple(known))
        s.rows = _put(s.rows, slot, ())
        log(s, ("take_row", seat, slot, tuple(t.GOOD_NAMES[g] for g in row)))
        s.need = sc.extra_draws(s.tableau[seat])
        if s.need:
            s.phase = EXTRA
    elif action < a.TAKE_NOTHING:
        card = action - a.TAKE_BUILDING
        s.dnew = tuple(c for c in s.dnew if c != card)
        s.dold = tuple(c for c in s.dold if c != card)
        s.hbuild = _put(s.hbuild, seat, tuple(sorted(s.hbuild[seat] + (card,))))
        log(s, ("take_building", seat, t.CARD_CODES[card]))
    else:
        log(s, ("take_nothing", seat))


def start_build(s: RigaData, seat: int, card: int) -> None:
    s.pending = (card, (0,) * sc.NUM_ITEMS)
    if sc.build_cost(s.tableau[seat], card) == 0:
        complete_build(s, seat)


def pay(s: RigaData, seat: int, item: int) -> None:
    plan = queries.payment_plan(s, seat)  # the parent's: carried by the copy, asked by apply's check
    card, paid = plan.card, _add(plan.paid, item, 1)
    s.pending = (card, paid)
    payments = sc.still_extending(plan.payments, item, paid[item])
    s.paying = BuildPayments(seat, card, paid, plan.hand, plan.tableau, plan.used, plan.values, plan.cost, payments)
    # complete once the city's values of what is paid reach the cost (§3.3: a legal payment)
    if sc.dot(plan.values, paid) >= plan.cost:
        complete_build(s, seat)


def complete_build(s: RigaData, seat: int) -> None:
    """Pay, move the card to the tableau, count the build, run the Grand Master check."""
    card, paid = s.pending  # type: ignore[misc]  # set while a build is being paid
    s.pending = s.paying = None
    pay_goods(s, seat, paid[:4])
    goods: list[str] = []  # for the log: each good paid, as often as paid, then the credits
    credits: list[str] = []
    used = s.used[seat]
    for index in range(4):
        for _ in range(paid[index]):
            goods.append(t.GOOD_NAMES[index])
        if paid[4 + index]:
            used |= 1 << index
            credits.append(t.CARD_CODES[t.CREDIT_CARDS[index]])
    if used != s.used[seat]:
        s.used = _put(s.used, seat, used)
    if card in s.rsupply[seat]:
        s.rsupply = _put(s.rsupply, seat, tuple(c for c in s.rsupply[seat] if c != card))
    else:
        s.hbuild = _put(s.hbuild, seat, tuple(c for c in s.hbuild[seat] if c != card))
        s.sbuild = _put(s.sbuild, seat, tuple(c for c in s.sbuild[seat] if c != card))
    s.tableau = _put(s.tableau, seat, tuple(sorted(s.tableau[seat] + (card,))))
    s.builds += 1
    log(s, ("build", seat, t.CARD_CODES[card], tuple(goods), tuple(credits)))
    if s.use_gm:
        s.tiles, claims = sc.gm_check(s.tiles, seat, s.tableau)
        for tile, previous in claims:
            log(s, ("claim", seat, t.TILE_NAMES[tile], previous))


def pay_goods(s: RigaData, seat: int, goods: tuple[int, ...]) -> None:
    """Goods leave the hand face up; the public lower bound of the hand shrinks with them."""
    hand, known, discards = s.hgoods[seat], s.kgoods[seat], s.gdisc
    # written out for the 4 goods: the compiled engine runs these natively, where map and zip
    # call into the interpreter per item
    s.hgoods = _put(s.hgoods, seat, (hand[0] - goods[0], hand[1] - goods[1], hand[2] - goods[2], hand[3] - goods[3]))
    s.kgoods = _put(s.kgoods, seat, (_less(known[0], goods[0]), _less(known[1], goods[1]),
                                     _less(known[2], goods[2]), _less(known[3], goods[3])))
    s.gdisc = (discards[0] + goods[0], discards[1] + goods[1], discards[2] + goods[2], discards[3] + goods[3])


def _less(known: int, paid: int) -> int:
    """What is still known of a good's count after `paid` leave the hand (never below 0)."""
    return known - paid if known > paid else 0


def end_turn(s: RigaData) -> None:
    s.queue = s.queue[1:]
    s.builds = 0
    if s.queue:
        s.phase = TAKE
    elif s.season == SUMMER:
        s.season = AUTUMN
        s.queue = summer_order(s)[::-1]
        s.phase = TAKE
    else:
        begin_winter(s)


def discard(s: RigaData, seat: int, action: int) -> None:
    if action < a.DISCARD_BUILDING:
        good = action - a.DISCARD_GOOD
        pay_goods(s, seat, tuple(int(g == good) for g in range(4)))
        log(s, ("discard", seat, t.GOOD_NAMES[good]))
    else:
        card = action - a.DISCARD_BUILDING
        s.hbuild = _put(s.hbuild, seat, tuple(c for c in s.hbuild[seat] if c != card))
        s.sbuild = _put(s.sbuild, seat, tuple(c for c in s.sbuild[seat] if c != card))
        s.removed += (card,)
        log(s, ("discard", seat, t.CARD_CODES[card]))


def settle(s: RigaData) -> None:
    """Run automatic steps until a chance node that has outcomes, a decision, or the end."""
    run_automatic_steps(s)
    s.kind = KIND_OF_PHASE[s.phase]  # `_set_kind`, inlined: once per step


def run_automatic_steps(s: RigaData) -> None:
    while True:
        phase = s.phase
        if phase == FLIP:
            if len(s.flipped) < min(t.TILES_FLIPPED, len(queries.tile_pool(s))):
                return
            s.phase = DRAW_TILE
        elif phase == DRAW_TILE:
            if len(s.drawn) < min(t.TILES_IN_PLAY, len(queries.tile_pool(s))):
                return
            lay_out_tiles(s)
            begin_hands(s)
        elif phase == SETUP_GOODS:
            hand_value = sc.dot(t.BASE_VALUE, s.hgoods[s.queue[0]])
            if hand_value < t.START_GOODS_VALUE and goods_ready(s):
                return
            s.phase, s.choice = SETUP_BUILDINGS, ()
        elif phase == SETUP_BUILDINGS:
            if len(s.choice) < t.START_BUILDING_CHOICES and s.bpool:
                return
            s.phase = KEEP
            return
        elif phase == SPRING_ROWS:
            if row_target(s) is not None and goods_ready(s):
                return
            begin_display(s)
        elif phase == SPRING_DISPLAY:
            if s.need > 0 and s.bpool:
                return
            if s.need > 0 and s.bbottom:  # the shuffled part is gone: the bottom cards follow
                s.dnew += (s.bbottom[0][0],)
                s.bbottom = s.bbottom[1:]
                s.need -= 1
                continue
            begin_summer(s)
        elif phase == EXTRA:
            if s.need > 0 and goods_ready(s):
                return
            s.need, s.phase = 0, BUILD
        elif phase == DISCARD:
            if not s.queue:
                end_winter(s)
                continue
            seat = s.queue[0]
            if queries.hand_size(s, seat) > sc.hand_limit(s.tableau[seat]):
                return
            s.queue = s.queue[1:]
        else:
            return


def goods_ready(s: RigaData) -> bool:
    """True when a goods card can be drawn, reshuffling the discards into the deck if needed."""
    deck, discards = s.gdeck, s.gdisc
    if deck[0] or deck[1] or deck[2] or deck[3]:  # sum(deck), written out: asked at every draw
        return True
    if not (discards[0] or discards[1] or discards[2] or discards[3]):
        return False
    s.gdeck, s.gdisc = s.gdisc, (0, 0, 0, 0)
    log(s, ("reshuffle_goods",))
    return True


def lay_out_tiles(s: RigaData) -> None:
    order = t.TILE_CHECK_ORDER + (t.T_MONEY,)
    tiles = []
    for tile in sorted(s.drawn, key=order.index):
        if tile == t.T_MONEY:
            side = t.money_side(s.num_players)
        else:
            side = t.FIRST if tile in s.flipped else t.MAX
        tiles.append((tile, side, -1))
    s.tiles = tuple(tiles)


def begin_hands(s: RigaData) -> None:
    s.phase, s.season = SETUP_GOODS, SETUP
    s.queue = summer_order(s)


def summer_order(s: RigaData) -> tuple[int, ...]:
    n = s.num_players
    return tuple((s.start + i) % n for i in range(n))


def row_target(s: RigaData) -> int | None:
    """The slot that gets the next spring goods card: short leftovers first, then new rows."""
    for slot, row in enumerate(s.rows):
        if row and sc.row_value(row) < t.MIN_ROW_VALUE:
            return slot
    for slot, row in enumerate(s.rows):
        if not row:
            return slot
    return None


def begin_spring(s: RigaData) -> None:
    s.season, s.phase = SPRING, SPRING_ROWS


def begin_display(s: RigaData) -> None:
    s.removed += s.dold
    s.dold, s.dnew = s.dnew, ()
    s.need = t.new_buildings_per_spring(s.num_players)
    s.phase = SPRING_DISPLAY


def begin_summer(s: RigaData) -> None:
    s.need = 0
    s.season, s.phase, s.builds = SUMMER, TAKE, 0
    s.queue = summer_order(s)


def begin_winter(s: RigaData) -> None:
    s.season, s.phase = WINTER, DISCARD
    s.queue = tuple(p for p in summer_order(s) if queries.hand_size(s, p) > sc.hand_limit(s.tableau[p]))


def end_winter(s: RigaData) -> None:
    s.start = (s.start + 1) % s.num_players
    if s.year == s.years:
        s.season, s.phase = GAME_OVER, OVER
    else:
        s.year += 1
        begin_spring(s)


def log(s: RigaData, event: tuple[Any, ...]) -> None:
    events = s.log + (event,)
    # events[-LOG_KEEP:], without a second tuple while the log is still short
    s.log = events[len(events) - LOG_KEEP:] if len(events) > LOG_KEEP else events
