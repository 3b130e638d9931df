"""The Riga state machine (rules/riga.md §2): set-up, seasons, turns, winter, and the end.

A `RigaState` is a value: every field holds an int, a tuple or None, and a change makes a
shallow copy and replaces whole tuples (copy on write), so `apply` never changes `self`.
The transitions are in flow.py; automatic steps (reshuffles, the display shift, empty queues)
run in `flow.settle` until the next chance or decision node.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from engine.core import NodeKind, OneSeatLegalMemo
from engine.riga import actions as a
from engine.riga import components as t
from engine.riga import flow
from engine.riga import scoring as sc
from engine.riga.hidden import resample
from engine.riga.observe import (
    action_visibility,
    chance_label,
    chance_visibility,
    hidden_action_label,
    hidden_chance_label,
    observation,
)
from engine.riga.phases import (
    BUILD,
    DISCARD,
    FLIP,
    GOODS_DRAW_PHASES,
    KIND_OF_PHASE,
    SEASON_NAMES,
    SETUP,
    SETUP_BUILDINGS,
    SPRING_DISPLAY,
    START,
    TAKE,
)

# The state's fields, once: equality, hashing and pickling go by FIELDS, `_copy` copies FIELDS
# and DERIVED and empties MEMOS, `__slots__` is the three, and the class annotations declare
# exactly these (for mypyc); tests/engine/test_state_fields.py checks that the lists agree, and
# that a new game sets every field.
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
        self.kind = KIND_OF_PHASE[self.phase]
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
        flow.apply_chance(s, outcome)
        return s

    def _chance_label(self, outcome: int) -> str:
        return chance_label(self, outcome)

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        return chance_visibility(self, outcome)

    def _hidden_chance_label(self) -> str:
        return hidden_chance_label(self)

    def _action_visibility(self, seat: int, action: int) -> frozenset[int] | None:
        return action_visibility(self, seat, action)

    def _hidden_action_label(self, seat: int) -> str:
        return hidden_action_label(self, seat)

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
        flow.apply_action(s, seat, action)
        return s

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

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> RigaState:
        return resample(self, known_to, rng)
