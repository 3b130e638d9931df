"""The Riga state machine (rules/riga.md §2): set-up, seasons, turns, winter, and the end.

A `RigaState` is a value: every field holds an int, a tuple or None, and a change makes a
shallow copy and replaces whole tuples (copy on write), so `apply` never changes `self`.
Automatic steps (reshuffles, the display shift, empty queues) run in `_settle` until the
next chance or decision node.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import accumulate
from operator import add, mul, sub
from typing import Any

from engine.core import NodeKind, OneSeatLegalMemo
from engine.riga import actions as a
from engine.riga import scoring as sc
from engine.riga import tables as t
from engine.riga.hidden import redraw_buildings, redraw_goods
from engine.riga.observe import observation
from engine.riga.phases import (  # re-exported: tests and sample.py read them from here
    AUTUMN, BUILD, CHANCE_PHASES, DISCARD, DRAW_TILE, EXTRA, FLIP, GAME_OVER, GOODS_DRAW_PHASES,
    KEEP, OVER, PHASE_NAMES, SEASON_NAMES, SETUP, SETUP_BUILDINGS, SETUP_GOODS, SPRING,
    SPRING_DISPLAY, SPRING_ROWS, START, SUMMER, TAKE, WINTER,
)  # fmt: skip
LOG_KEEP = 24  # public events kept in the state for observations (the derived fields hold the rest)

FIELDS = (
    "num_players", "use_riga", "use_gm", "years",
    "phase", "season", "year", "start", "queue", "builds",
    "gdeck", "gdisc", "rows",
    "bpool", "bbottom", "dnew", "dold", "removed",
    "hgoods", "kgoods", "hbuild", "sbuild",
    "tableau", "used", "rsupply",
    "tiles", "flipped", "drawn",
    "pending", "need", "choice", "log",
)  # fmt: skip
# Copied along with the fields, not compared: the node kind, a plain slot rather than a property
# because the base class reads it several times per node; `_set_kind` sets it from the phase at
# the end of every step (and wherever a state is put together field by field).
DERIVED = ("kind",)
# Filled on first use and never changed after (a state is a value), not compared, not copied:
# (seat, legal actions) of the acting seat and the chance outcomes, each asked for twice per node
# (by the caller, then by the check in State.apply / apply_chance).
MEMOS = ("_legal", "_outcomes")
_KIND_OF_PHASE = tuple(
    NodeKind.TERMINAL if phase == OVER else NodeKind.CHANCE if phase in CHANCE_PHASES else NodeKind.DECISION
    for phase in range(len(PHASE_NAMES))
)


def _put(values: tuple, index: int, value: Any) -> tuple:
    return values[:index] + (value,) + values[index + 1 :]


def _add(counts: tuple[int, ...], index: int, delta: int) -> tuple[int, ...]:
    return counts[:index] + (counts[index] + delta,) + counts[index + 1 :]


def row_value(row: tuple[int, ...]) -> int:
    """Base value of a goods row."""
    return sum(map(_BASE_VALUE, row))


_BASE_VALUE = t.BASE_VALUE.__getitem__


class RigaState(OneSeatLegalMemo):
    """One position of Riga; see the package docstring for actions and observations."""

    __slots__ = FIELDS + DERIVED + MEMOS
    # The slots' types (mypyc compiles the class with them; see the rules file for meanings).
    num_players: int
    use_riga: bool
    use_gm: bool
    years: int
    phase: int
    season: int
    year: int
    start: int
    queue: tuple[int, ...]
    builds: int
    gdeck: tuple[int, ...]
    gdisc: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    bpool: tuple[int, ...]
    bbottom: tuple[tuple[int, int], ...]  # (card, seat of the player who put it there)
    dnew: tuple[int, ...]
    dold: tuple[int, ...]
    removed: tuple[int, ...]
    hgoods: tuple[tuple[int, ...], ...]
    kgoods: tuple[tuple[int, ...], ...]
    hbuild: tuple[tuple[int, ...], ...]
    sbuild: tuple[tuple[int, ...], ...]
    tableau: tuple[tuple[int, ...], ...]
    used: tuple[int, ...]
    rsupply: tuple[tuple[int, ...], ...]
    tiles: tuple[tuple[Any, ...], ...]
    flipped: tuple[int, ...]
    drawn: tuple[int, ...]
    pending: tuple[int, tuple[int, ...]] | None
    need: int
    choice: tuple[int, ...]
    log: tuple[tuple[Any, ...], ...]
    kind: NodeKind  # overrides State.kind
    _outcomes: list[tuple[int, float]] | None

    # -- construction and value semantics ---------------------------------------------------

    @classmethod
    def initial(cls, num_players: int, use_riga: bool, use_gm: bool) -> RigaState:
        s = RigaState.__new__(RigaState)
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
        s._legal = s._outcomes = None
        return s._set_kind()

    def _copy(self) -> RigaState:
        """A new state with the same fields, its memos empty: one line per slot (the hottest
        path of every apply; the compiled engine reads written-out fields fastest)."""
        new = RigaState.__new__(RigaState)
        new.num_players = self.num_players
        new.use_riga = self.use_riga
        new.use_gm = self.use_gm
        new.years = self.years
        new.phase = self.phase
        new.season = self.season
        new.year = self.year
        new.start = self.start
        new.queue = self.queue
        new.builds = self.builds
        new.gdeck = self.gdeck
        new.gdisc = self.gdisc
        new.rows = self.rows
        new.bpool = self.bpool
        new.bbottom = self.bbottom
        new.dnew = self.dnew
        new.dold = self.dold
        new.removed = self.removed
        new.hgoods = self.hgoods
        new.kgoods = self.kgoods
        new.hbuild = self.hbuild
        new.sbuild = self.sbuild
        new.tableau = self.tableau
        new.used = self.used
        new.rsupply = self.rsupply
        new.tiles = self.tiles
        new.flipped = self.flipped
        new.drawn = self.drawn
        new.pending = self.pending
        new.need = self.need
        new.choice = self.choice
        new.log = self.log
        new.kind = self.kind
        new._legal = None
        new._outcomes = None
        return new

    def _values(self) -> tuple[Any, ...]:
        """The fields in FIELDS order: what equality and hashing go by."""
        return (
            self.num_players, self.use_riga, self.use_gm, self.years, self.phase,
            self.season, self.year, self.start, self.queue, self.builds, self.gdeck,
            self.gdisc, self.rows, self.bpool, self.bbottom, self.dnew, self.dold,
            self.removed, self.hgoods, self.kgoods, self.hbuild, self.sbuild, self.tableau,
            self.used, self.rsupply, self.tiles, self.flipped, self.drawn, self.pending,
            self.need, self.choice, self.log
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RigaState) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._legal = self._outcomes = None
        self._set_kind()

    def __repr__(self) -> str:
        return f"RigaState(year={self.year}, season={SEASON_NAMES[self.season]}, phase={self.phase})"

    # -- node kind and chance ---------------------------------------------------------------

    def _set_kind(self) -> RigaState:
        """Set `kind` (CHANCE, DECISION or TERMINAL) from the phase; returns the state."""
        self.kind = _KIND_OF_PHASE[self.phase]
        return self

    @property
    def active(self) -> int:
        """The seat at the head of the current queue (-1 when nobody is queued)."""
        return self.queue[0] if self.queue else -1

    def tile_pool(self) -> tuple[int, ...]:
        """The Grand Master tiles used in the set-up shuffle (RIGA only with Riga buildings)."""
        return tuple(tile for tile in range(8) if self.use_riga or tile != t.T_RIGA)

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._outcome_memo())  # a copy: the caller may change its list

    def _outcome_memo(self) -> list[tuple[int, float]]:
        if self._outcomes is None:
            self._outcomes = self._list_outcomes()
        return self._outcomes

    # The base class's speed hooks (what sample_chance and the checks of apply_chance / apply
    # ask), answered from the memos, or for a goods or building draw from the deck, without a list.

    def _chance_distribution(self) -> tuple[list[int], list[float]]:
        outcomes = self._outcome_memo()
        return [o for o, _ in outcomes], list(accumulate(p for _, p in outcomes))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        if self.phase in GOODS_DRAW_PHASES and type(outcome) is int:
            return 0 <= outcome < len(self.gdeck) and self.gdeck[outcome] > 0
        if self.phase in (SETUP_BUILDINGS, SPRING_DISPLAY):
            return outcome in self.bpool  # the outcomes are the cards of the shuffled part
        return any(o == outcome for o, _ in self._outcome_memo())

    def _is_legal(self, seat: int, action: int) -> bool:
        return action in self._legal_memo(seat)

    def _list_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        if phase in GOODS_DRAW_PHASES:
            total = sum(self.gdeck)
            return [(g, n / total) for g, n in enumerate(self.gdeck) if n]
        if phase in (SETUP_BUILDINGS, SPRING_DISPLAY):
            chance = 1 / len(self.bpool)
            return [(c, chance) for c in self.bpool]
        if phase == START:
            return [(seat, 1 / self.num_players) for seat in range(self.num_players)]
        done = self.flipped if phase == FLIP else self.drawn
        left = [tile for tile in self.tile_pool() if tile not in done]
        return [(tile, 1 / len(left)) for tile in left]

    def _apply_chance(self, outcome: int) -> RigaState:
        s = self._copy()
        phase = s.phase
        if phase == START:
            s.start = outcome
            s._log(("start_player", outcome))
            if s.use_gm:
                s.phase = FLIP
            else:
                s._begin_hands()
        elif phase == FLIP:
            s.flipped += (outcome,)
        elif phase == DRAW_TILE:
            s.drawn += (outcome,)
        elif phase in GOODS_DRAW_PHASES:
            s.gdeck = _add(s.gdeck, outcome, -1)
            s._receive_good(outcome)
        else:  # a building card from the shuffled part of the deck
            drawn = s.bpool.index(outcome)  # the shuffled part holds each card once
            s.bpool = s.bpool[:drawn] + s.bpool[drawn + 1 :]
            if phase == SETUP_BUILDINGS:
                s.choice += (outcome,)
            else:
                s.dnew += (outcome,)
                s.need -= 1
        s._settle()
        return s

    def _chance_label(self, outcome: int) -> str:
        return a.chance_label(PHASE_NAMES[self.phase], outcome)

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        return frozenset({self.queue[0]}) if PHASE_NAMES[self.phase] in a.PRIVATE_DRAWS else None

    def _hidden_chance_label(self) -> str:
        return a.hidden_chance_label(PHASE_NAMES[self.phase], self.active)

    def _action_visibility(self, seat: int, action: int) -> frozenset[int] | None:
        return frozenset({seat}) if self.phase == KEEP else None  # which start building: §2.6

    def _hidden_action_label(self, seat: int) -> str:
        return f"seat {seat} keeps a start building card"

    def _receive_good(self, good: int) -> None:
        if self.phase == SPRING_ROWS:
            slot = self._row_target()
            self.rows = _put(self.rows, slot, self.rows[slot] + (good,))  # type: ignore[arg-type,index]
            return
        seat = self.queue[0]
        self.hgoods = _put(self.hgoods, seat, _add(self.hgoods[seat], good, 1))
        if self.phase == SETUP_GOODS:  # starting goods are revealed: public
            self.kgoods = _put(self.kgoods, seat, _add(self.kgoods[seat], good, 1))
            self._log(("start_good", seat, t.GOOD_NAMES[good]))
        else:  # EXTRA_DRAW: hidden from the opponents
            self.need -= 1
            self._log(("extra_draw", seat))

    # -- decisions --------------------------------------------------------------------------

    def _acting_players(self) -> tuple[int, ...]:
        return (self.queue[0],)

    def _actions_of(self, seat: int) -> list[int]:
        phase = self.phase
        if phase == TAKE:
            return self._take_actions()
        if phase == BUILD:
            return self._pay_actions(seat) if self.pending else self._build_actions(seat)
        if phase == DISCARD:
            goods = [a.DISCARD_GOOD + g for g, n in enumerate(self.hgoods[seat]) if n]
            return goods + [a.DISCARD_BUILDING + c for c in self.hbuild[seat]]
        return [a.KEEP_START + i for i in range(len(self.choice))]

    def _take_actions(self) -> list[int]:
        rows = [a.TAKE_ROW + r for r, row in enumerate(self.rows) if row]
        cards = sorted(a.TAKE_BUILDING + c for c in self.dnew + self.dold)
        return rows + cards or [a.TAKE_NOTHING]

    def _build_actions(self, seat: int) -> list[int]:
        if self.builds >= t.MAX_BUILDS_PER_TURN:
            return [a.END_TURN]
        cards = self.hbuild[seat] + self.rsupply[seat]
        found = sc.buildable(self.hgoods[seat], self.tableau[seat], self.used[seat], cards)
        return sorted(a.START_BUILD + card for card in found) + [a.END_TURN]

    def _pay_actions(self, seat: int) -> list[int]:
        card, paid = self.pending  # type: ignore[misc]  # set while a build is being paid
        tableau = self.tableau[seat]
        values_by_city, discounts = sc.build_facts(tableau)
        avail = sc.available_items(self.hgoods[seat], tableau, self.used[seat])
        items = sc.payable(values_by_city[t.CARDS[card].city], avail, paid, sc.cost_with(card, discounts))
        return [a.PAY_GOOD + item for item in items]  # PAY_CREDIT follows PAY_GOOD directly

    def _apply(self, actions: Mapping[int, int]) -> RigaState:
        seat, action = next(iter(actions.items()))
        s = self._copy()
        if action < a.TAKE_ROW:
            s._keep_start_building(seat, action - a.KEEP_START)
        elif action <= a.TAKE_NOTHING:
            s._take(seat, action)
        elif action < a.PAY_GOOD:
            s._start_build(seat, action - a.START_BUILD)
        elif action < a.END_TURN:
            s._pay(seat, action - a.PAY_GOOD)
        elif action == a.END_TURN:
            s._end_turn()
        else:
            s._discard(seat, action)
        s._settle()
        return s

    def _keep_start_building(self, seat: int, index: int) -> None:
        kept = self.choice[index]
        self.hbuild = _put(self.hbuild, seat, tuple(sorted(self.hbuild[seat] + (kept,))))
        self.sbuild = _put(self.sbuild, seat, tuple(sorted(self.sbuild[seat] + (kept,))))
        self.bbottom += tuple((c, seat) for i, c in enumerate(self.choice) if i != index)
        self.choice = ()
        self._log(("keep_start_building", seat))
        self.queue = self.queue[1:]
        if self.queue:
            self.phase = SETUP_GOODS
        else:
            self.year = 1
            self._begin_spring()

    def _take(self, seat: int, action: int) -> None:
        self.phase = BUILD
        if action < a.TAKE_BUILDING:
            slot = action - a.TAKE_ROW
            row = self.rows[slot]
            hand, known = list(self.hgoods[seat]), list(self.kgoods[seat])
            for good in row:
                hand[good] += 1
                known[good] += 1
            self.hgoods = _put(self.hgoods, seat, tuple(hand))
            self.kgoods = _put(self.kgoods, seat, tuple(known))
            self.rows = _put(self.rows, slot, ())
            self._log(("take_row", seat, slot, tuple(t.GOOD_NAMES[g] for g in row)))
            self.need = sc.extra_draws(self.tableau[seat])
            if self.need:
                self.phase = EXTRA
        elif action < a.TAKE_NOTHING:
            card = action - a.TAKE_BUILDING
            self.dnew = tuple(c for c in self.dnew if c != card)
            self.dold = tuple(c for c in self.dold if c != card)
            self.hbuild = _put(self.hbuild, seat, tuple(sorted(self.hbuild[seat] + (card,))))
            self._log(("take_building", seat, t.CARDS[card].code))
        else:
            self._log(("take_nothing", seat))

    def _start_build(self, seat: int, card: int) -> None:
        self.pending = (card, (0,) * sc.NUM_ITEMS)
        if sc.build_cost(self.tableau[seat], card) == 0:
            self._complete_build(seat)

    def _pay(self, seat: int, item: int) -> None:
        card, paid = self.pending  # type: ignore[misc]  # set while a build is being paid
        paid = _add(paid, item, 1)
        self.pending = (card, paid)
        values_by_city, discounts = sc.build_facts(self.tableau[seat])
        if sum(map(mul, values_by_city[t.CARDS[card].city], paid)) >= sc.cost_with(card, discounts):
            self._complete_build(seat)

    def _complete_build(self, seat: int) -> None:
        """Pay, move the card to the tableau, count the build, run the Grand Master check."""
        card, paid = self.pending  # type: ignore[misc]  # set while a build is being paid
        self.pending = None
        self._pay_goods(seat, paid[:4])
        for index in range(4):
            if paid[4 + index]:
                self.used = _put(self.used, seat, self.used[seat] | 1 << index)
        if card in self.rsupply[seat]:
            self.rsupply = _put(self.rsupply, seat, tuple(c for c in self.rsupply[seat] if c != card))
        else:
            self.hbuild = _put(self.hbuild, seat, tuple(c for c in self.hbuild[seat] if c != card))
            self.sbuild = _put(self.sbuild, seat, tuple(c for c in self.sbuild[seat] if c != card))
        self.tableau = _put(self.tableau, seat, tuple(sorted(self.tableau[seat] + (card,))))
        self.builds += 1
        goods = tuple(t.GOOD_NAMES[g] for g in range(4) for _ in range(paid[g]))
        credits = tuple(t.CARDS[t.CREDIT_CARDS[i]].code for i in range(4) if paid[4 + i])
        self._log(("build", seat, t.CARDS[card].code, goods, credits))
        if self.use_gm:
            self.tiles, claims = sc.gm_check(self.tiles, seat, self.tableau)
            for tile, previous in claims:
                self._log(("claim", seat, t.TILE_NAMES[tile], previous))

    def _pay_goods(self, seat: int, goods: tuple[int, ...]) -> None:
        """Goods leave the hand face up; the public lower bound of the hand shrinks with them."""
        self.hgoods = _put(self.hgoods, seat, tuple(map(sub, self.hgoods[seat], goods)))
        self.kgoods = _put(self.kgoods, seat, tuple(max(0, k - g) for k, g in zip(self.kgoods[seat], goods)))
        self.gdisc = tuple(map(add, self.gdisc, goods))

    def _end_turn(self) -> None:
        self.queue = self.queue[1:]
        self.builds = 0
        if self.queue:
            self.phase = TAKE
        elif self.season == SUMMER:
            self.season = AUTUMN
            self.queue = self._summer_order()[::-1]
            self.phase = TAKE
        else:
            self._begin_winter()

    def _discard(self, seat: int, action: int) -> None:
        if action < a.DISCARD_BUILDING:
            good = action - a.DISCARD_GOOD
            self._pay_goods(seat, tuple(int(g == good) for g in range(4)))
            self._log(("discard", seat, t.GOOD_NAMES[good]))
        else:
            card = action - a.DISCARD_BUILDING
            self.hbuild = _put(self.hbuild, seat, tuple(c for c in self.hbuild[seat] if c != card))
            self.sbuild = _put(self.sbuild, seat, tuple(c for c in self.sbuild[seat] if c != card))
            self.removed += (card,)
            self._log(("discard", seat, t.CARDS[card].code))

    # -- automatic steps --------------------------------------------------------------------

    def _settle(self) -> None:
        """Run automatic steps until a chance node that has outcomes, a decision, or the end."""
        self._run_automatic_steps()
        self.kind = _KIND_OF_PHASE[self.phase]  # `_set_kind`, inlined: once per step

    def _run_automatic_steps(self) -> None:
        while True:
            phase = self.phase
            if phase == FLIP:
                if len(self.flipped) < min(t.TILES_FLIPPED, len(self.tile_pool())):
                    return
                self.phase = DRAW_TILE
            elif phase == DRAW_TILE:
                if len(self.drawn) < min(t.TILES_IN_PLAY, len(self.tile_pool())):
                    return
                self._lay_out_tiles()
                self._begin_hands()
            elif phase == SETUP_GOODS:
                hand_value = sum(map(mul, t.BASE_VALUE, self.hgoods[self.queue[0]]))
                if hand_value < t.START_GOODS_VALUE and self._goods_ready():
                    return
                self.phase, self.choice = SETUP_BUILDINGS, ()
            elif phase == SETUP_BUILDINGS:
                if len(self.choice) < t.START_BUILDING_CHOICES and self.bpool:
                    return
                self.phase = KEEP
                return
            elif phase == SPRING_ROWS:
                if self._row_target() is not None and self._goods_ready():
                    return
                self._begin_display()
            elif phase == SPRING_DISPLAY:
                if self.need > 0 and self.bpool:
                    return
                if self.need > 0 and self.bbottom:  # the shuffled part is gone: the bottom cards follow
                    self.dnew += (self.bbottom[0][0],)
                    self.bbottom = self.bbottom[1:]
                    self.need -= 1
                    continue
                self._begin_summer()
            elif phase == EXTRA:
                if self.need > 0 and self._goods_ready():
                    return
                self.need, self.phase = 0, BUILD
            elif phase == DISCARD:
                if not self.queue:
                    self._end_winter()
                    continue
                seat = self.queue[0]
                if self.hand_size(seat) > sc.hand_limit(self.tableau[seat]):
                    return
                self.queue = self.queue[1:]
            else:
                return

    def _goods_ready(self) -> bool:
        """True when a goods card can be drawn, reshuffling the discards into the deck if needed."""
        if sum(self.gdeck):
            return True
        if not sum(self.gdisc):
            return False
        self.gdeck, self.gdisc = self.gdisc, (0, 0, 0, 0)
        self._log(("reshuffle_goods",))
        return True

    def _lay_out_tiles(self) -> None:
        order = t.TILE_CHECK_ORDER + (t.T_MONEY,)
        tiles = []
        for tile in sorted(self.drawn, key=order.index):
            if tile == t.T_MONEY:
                side = t.money_side(self.num_players)
            else:
                side = t.FIRST if tile in self.flipped else t.MAX
            tiles.append((tile, side, -1))
        self.tiles = tuple(tiles)

    def _begin_hands(self) -> None:
        self.phase, self.season = SETUP_GOODS, SETUP
        self.queue = self._summer_order()

    def _summer_order(self) -> tuple[int, ...]:
        n = self.num_players
        return tuple((self.start + i) % n for i in range(n))

    def _row_target(self) -> int | None:
        """The slot that gets the next spring goods card: short leftovers first, then new rows."""
        for slot, row in enumerate(self.rows):
            if row and sum(map(_BASE_VALUE, row)) < t.MIN_ROW_VALUE:  # row_value, inlined
                return slot
        for slot, row in enumerate(self.rows):
            if not row:
                return slot
        return None

    def _begin_spring(self) -> None:
        self.season, self.phase = SPRING, SPRING_ROWS

    def _begin_display(self) -> None:
        self.removed += self.dold
        self.dold, self.dnew = self.dnew, ()
        self.need = t.new_buildings_per_spring(self.num_players)
        self.phase = SPRING_DISPLAY

    def _begin_summer(self) -> None:
        self.need = 0
        self.season, self.phase, self.builds = SUMMER, TAKE, 0
        self.queue = self._summer_order()

    def _begin_winter(self) -> None:
        self.season, self.phase = WINTER, DISCARD
        self.queue = tuple(p for p in self._summer_order() if self.hand_size(p) > sc.hand_limit(self.tableau[p]))

    def _end_winter(self) -> None:
        self.start = (self.start + 1) % self.num_players
        if self.year == self.years:
            self.season, self.phase = GAME_OVER, OVER
        else:
            self.year += 1
            self._begin_spring()

    def _log(self, event: tuple) -> None:
        self.log = (self.log + (event,))[-LOG_KEEP:]

    # -- derived facts ----------------------------------------------------------------------

    def hand_size(self, seat: int) -> int:
        """Goods cards plus building cards in hand (Riga supply not included)."""
        return sum(self.hgoods[seat]) + len(self.hbuild[seat])

    def money(self, seat: int) -> int:
        """§4.3 money: base value of goods in hand plus unused credits."""
        return sc.money(self.hgoods[seat], self.tableau[seat], self.used[seat])

    def public_scores(self) -> list[int]:
        """Base VP plus Grand Master tile VP: what everyone can count during the game."""
        return list(sc.public_vp(self.tableau, self.tiles, tuple(map(len, self.hbuild))))

    def money_tile_scores(self) -> list[int]:
        """The Money tile's VP (zero for everyone when it is not in play)."""
        if not any(tile == t.T_MONEY for tile, _, _ in self.tiles):
            return [0] * self.num_players
        side = next(side for tile, side, _ in self.tiles if tile == t.T_MONEY)
        return sc.money_tile_vp([self.money(p) for p in range(self.num_players)], t.MONEY_AWARDS[side])

    def totals(self) -> list[int]:
        """§4.4 total VP."""
        return [p + m for p, m in zip(self.public_scores(), self.money_tile_scores())]

    def _returns(self) -> list[float]:
        return [float(total) for total in self.totals()]

    def _ranks(self) -> list[int]:
        keys = [
            (total, self.money(p), len(self.tableau[p])) for p, total in enumerate(self.totals())
        ]
        return [1 + sum(other > mine for other in keys) for mine in keys]

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)

    # -- hidden information -----------------------------------------------------------------

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> RigaState:
        if self.phase == OVER:  # hands are shown for the final count
            return self
        hidden = [p for p in range(self.num_players) if p not in known_to]
        s = self._copy()
        redraw_goods(s, hidden, rng)
        chooser = self.queue[0] if self.phase in (SETUP_BUILDINGS, KEEP) else -1
        redraw_buildings(s, hidden, chooser, rng)
        return s
