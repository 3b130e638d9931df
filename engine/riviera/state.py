"""The Riviera state: a flat value object, copied once per step and changed only on the copy.

`flow.py` holds the phase transitions, `queries.py` the read-only rules questions (legality,
powers, piles), `observe.py` the observation, labels and visibility, `hidden.py` the redraw of
hidden cards. This module only dispatches: node kind, chance outcomes, acting seats, legal
actions, and which transition an action triggers.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, repeat
from typing import Any

from engine.core import NodeKind, State, mypyc_attr, uniform_sums
from engine.riviera import flow, queries
from engine.riviera.actions import (
    ACTIVATE,
    ADJUST,
    CRASH,
    DISCARD,
    GIVE,
    LAST_CHANCE,
    MORE,
    PASS,
    PLAY,
    STOP,
    SWAP_WITH,
)
from engine.riviera.components import bits, value_of
from engine.riviera.hidden import resample
from engine.riviera.observe import (
    action_visibility,
    chance_label,
    chance_visibility,
    hidden_action_label,
    hidden_chance_label,
    observation,
    voided_chance_steps,
)
from engine.riviera.phases import (
    ADJUST_DICE,
    BONUS,
    CHANCE_PHASES,
    CHOOSE,
    DEAL,
    FALLBACK_DISCARD,
    GAME_OVER,
    IN,
    POWERS,
    REMOVED_DRAW,
    ROLL,
    STOP_OR_MORE,
    SWAP_GIVE,
)

_DIE_OUTCOMES = tuple((face, 1 / 6) for face in range(1, 7))
# sample_chance's tables (core.State._chance_distribution): most nodes of a game are dice and
# dealt cards, so the running sums are computed once, not per node.
_DIE_FACES = tuple(face for face, _ in _DIE_OUTCOMES)
_DIE_DISTRIBUTION = (_DIE_FACES, tuple(accumulate(p for _, p in _DIE_OUTCOMES)))


@cache
def _in_seats(status: tuple[int, ...]) -> tuple[int, ...]:
    """The seats still IN: the acting seats of a simultaneous phase (asked several times a node)."""
    return tuple(p for p, x in enumerate(status) if x == IN)

_KIND_BY_PHASE = tuple(
    NodeKind.CHANCE if phase in CHANCE_PHASES
    else NodeKind.TERMINAL if phase == GAME_OVER
    else NodeKind.DECISION
    for phase in range(GAME_OVER + 1)
)


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class Rules:
    """The options of one configured game, resolved to what the state machine needs."""

    num_players: int
    sequential: bool  # playMode == "sequential"
    reroll: bool  # rerollBustingFirstRolls
    max_rerolls: int  # maxAutoRerolls
    require_in: bool  # deferredPowersRequireOwnerInRound
    removed: int  # colour to remove: -1 drawn by chance, -2 none (5-6 players), else 0..4
    start: int  # first Holder: -1 drawn by chance, else a seat
    max_same: int  # maxSameColourInHand
    winning_score: int
    max_rounds: int  # the effective round cap (always finite, see game.py)


# The state's fields, once: equality compares FIELDS, `copy` copies FIELDS and DERIVED and
# empties MEMOS, and the class annotations below declare exactly these (for mypyc);
# tests/engine/test_state_fields.py checks that the four lists agree, and that a new game sets
# every field.
FIELDS = (
    "num_players", "rules", "phase", "removed", "in_use", "holder", "scores", "lc_used",
    "round_no", "turn_no", "hands", "columns", "status", "discard", "dice", "gold_on", "reserved",
    "modified", "rerolls", "adjusters", "played", "eligible", "queue", "pend_gold", "pend_res",
    "pend_adj", "target", "picked", "taken", "draws_left", "known", "known_disc", "events",
    "winners", "slam", "colours", "in_deck", "deck",
)  # fmt: skip
# Copied, not compared: the node kind, set from the phase by `settle_kind` (a field, not a
# property: every node is asked its kind several times, a property costs a call each).
DERIVED = ("kind",)
# Neither copied nor compared: `_legal` memoises `_legal_actions` per seat (a state is a value,
# so they never change): `apply` checks each action against the list its caller has just listed.
MEMOS = ("_legal",)


class RivieraState(State):
    """One position. Every field is an int, a bool or a tuple, so copies are cheap and `==` exact.

    Per seat p; masks are ints with one bit per card, seat or die.
    """

    num_players: int
    rules: Rules
    phase: int
    removed: int  # colour or -1
    in_use: int  # card mask of the colours in use
    holder: int  # the Start token, -1 before it is drawn
    scores: tuple[int, ...]
    lc_used: tuple[bool, ...]
    round_no: int
    turn_no: int
    hands: tuple[tuple[int, ...], ...]  # sorted card tuples
    columns: tuple[tuple[int, ...], ...]  # play order
    status: tuple[int, ...]  # IN / STOPPED / CRASHED
    discard: int  # card mask
    dice: tuple[int, ...]  # 6 values, index 5 = gold, 0 = not rolled
    gold_on: bool
    reserved: tuple[int, ...]  # 5 seat masks
    modified: int  # die mask
    rerolls: int
    adjusters: tuple[int, ...]  # seats left to adjust
    played: tuple[tuple[int, ...], ...]  # cards played this turn per seat
    eligible: int  # bonus seat mask
    queue: tuple[int, ...]  # seats still to act in a one-at-a-time phase
    pend_gold: int  # deferred 11 owners
    pend_res: tuple[int, ...]  # deferred 2 owners per colour
    pend_adj: int  # deferred 9 owners
    target: int
    picked: tuple[int, ...]  # cards the power owner chose to give or discard
    taken: tuple[int, ...]  # cards drawn at random from the swap target
    draws_left: int
    known: tuple[int, ...]  # n*n card masks: known[s*n+q] = cards s knows q holds
    known_disc: tuple[int, ...]  # cards each seat knows are in the discard pile
    events: tuple[tuple[Any, ...], ...]  # this turn's public log
    winners: int  # seat mask when the game is over
    slam: bool
    colours: tuple[int, ...]
    in_deck: tuple[int, ...]  # every card in use, sorted
    deck: tuple[int, ...]  # cards not yet dealt (sorted), during the deal only
    kind: NodeKind = NodeKind.CHANCE
    _legal: dict[int, tuple[int, ...]] | None

    def __init__(self, rules: Rules | None = None) -> None:
        """A new game with `rules`; without, a blank state for `copy` and pickle to fill in."""
        self._legal = None
        if rules is None:
            return
        n = rules.num_players
        self.num_players = n
        self.rules = rules
        self.phase = REMOVED_DRAW
        self.removed = -1
        self.in_use = 0
        self.holder = -1
        self.scores = (0,) * n
        self.lc_used = (False,) * n
        self.round_no = 0
        self.turn_no = 0
        self.hands = ((),) * n
        self.columns = ((),) * n
        self.status = (IN,) * n
        self.discard = 0
        self.dice = (0,) * 6
        self.gold_on = False
        self.reserved = (0,) * 5
        self.modified = 0
        self.rerolls = 0
        self.adjusters = ()
        self.played = ((),) * n
        self.eligible = 0
        self.queue = ()
        self.pend_gold = 0
        self.pend_res = (0,) * 5
        self.pend_adj = 0
        self.target = -1
        self.picked = ()
        self.taken = ()
        self.draws_left = 0
        self.known = (0,) * (n * n)
        self.known_disc = (0,) * n
        self.events = ()
        self.winners = 0
        self.slam = False
        self.colours = ()
        self.in_deck = ()
        self.deck = ()
        flow.start_game(self)
        self.settle_kind()

    # -- value semantics ----------------------------------------------------------------------

    def copy(self) -> RivieraState:
        """A shallow copy; callers replace fields (all immutable) instead of mutating them.

        Field by field, FIELDS and DERIVED, MEMOS emptied (the compiled engine has no `__dict__`
        to copy at once); a blank state, not one `__init__` deals."""
        new = RivieraState.__new__(RivieraState)
        new.num_players = self.num_players
        new.rules = self.rules
        new.phase = self.phase
        new.removed = self.removed
        new.in_use = self.in_use
        new.holder = self.holder
        new.scores = self.scores
        new.lc_used = self.lc_used
        new.round_no = self.round_no
        new.turn_no = self.turn_no
        new.hands = self.hands
        new.columns = self.columns
        new.status = self.status
        new.discard = self.discard
        new.dice = self.dice
        new.gold_on = self.gold_on
        new.reserved = self.reserved
        new.modified = self.modified
        new.rerolls = self.rerolls
        new.adjusters = self.adjusters
        new.played = self.played
        new.eligible = self.eligible
        new.queue = self.queue
        new.pend_gold = self.pend_gold
        new.pend_res = self.pend_res
        new.pend_adj = self.pend_adj
        new.target = self.target
        new.picked = self.picked
        new.taken = self.taken
        new.draws_left = self.draws_left
        new.known = self.known
        new.known_disc = self.known_disc
        new.events = self.events
        new.winners = self.winners
        new.slam = self.slam
        new.colours = self.colours
        new.in_deck = self.in_deck
        new.deck = self.deck
        new.kind = self.kind
        new._legal = None
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RivieraState) and self._values() == other._values()

    def _values(self) -> tuple[Any, ...]:
        """The FIELDS, for equality (written out: the compiled engine has no `__dict__`)."""
        return (
            self.num_players, self.rules, self.phase, self.removed, self.in_use,
            self.holder, self.scores, self.lc_used, self.round_no, self.turn_no, self.hands,
            self.columns, self.status, self.discard, self.dice, self.gold_on, self.reserved,
            self.modified, self.rerolls, self.adjusters, self.played, self.eligible,
            self.queue, self.pend_gold, self.pend_res, self.pend_adj, self.target,
            self.picked, self.taken, self.draws_left, self.known, self.known_disc,
            self.events, self.winners, self.slam, self.colours, self.in_deck, self.deck
        )

    __hash__ = None  # type: ignore[assignment]

    # -- node kind and chance -----------------------------------------------------------------

    def settle_kind(self) -> None:
        """Set `kind` from `phase`: call it after changing the phase outside a transition."""
        self.kind = _KIND_BY_PHASE[self.phase]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == ROLL:
            return list(_DIE_OUTCOMES)
        options = flow.chance_options(self)
        return list(zip(options, repeat(1.0 / len(options))))

    def _chance_distribution(self) -> tuple[Sequence[int], Sequence[float]]:
        if self.phase == ROLL:
            return _DIE_DISTRIBUTION
        options = self.deck if self.phase == DEAL else flow.chance_options(self)
        return options, uniform_sums(len(options))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        if self.phase == ROLL:
            return outcome in _DIE_FACES
        if self.phase == DEAL and type(outcome) is int:  # the deck is sorted: bisect, not scan
            deck = self.deck
            i = bisect_left(deck, outcome)
            return i < len(deck) and deck[i] == outcome
        return super()._is_chance_outcome(outcome)

    def _apply_chance(self, outcome: int) -> RivieraState:
        s = self.copy()
        if s.phase == DEAL:  # most nodes of a game: straight to the deal, no dispatch
            flow.deal_card(s, outcome)
        else:
            flow.apply_chance(s, outcome)
        s.kind = _KIND_BY_PHASE[s.phase]
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

    def _voided_chance_steps(self, outcome: int) -> int:
        return voided_chance_steps(self, self._apply_chance(outcome))

    # -- decisions ----------------------------------------------------------------------------

    def _acting_players(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == ADJUST_DICE:
            return self.adjusters[:1]
        if phase == BONUS:
            return tuple(bits(self.eligible))
        if phase in (CHOOSE, STOP_OR_MORE) and not self.rules.sequential:
            return _in_seats(self.status)
        return self.queue[:1]

    def _legal_actions(self, seat: int) -> list[int]:
        return list(self._memo_legal(seat))  # a copy: the caller may change its list

    def _is_legal(self, seat: int, action: int) -> bool:
        return action in self._memo_legal(seat)

    def _memo_legal(self, seat: int) -> tuple[int, ...]:
        memo = self._legal
        if memo is None:
            memo = self._legal = {}
        legal = memo.get(seat)
        if legal is None:
            legal = memo[seat] = tuple(self._list_legal(seat))
        return legal

    def _list_legal(self, seat: int) -> list[int]:
        phase = self.phase
        if phase == CHOOSE:
            cards = queries.legal_cards(self, seat)
            if cards:
                return [PLAY + c for c in cards]
            return [LAST_CHANCE, CRASH] if not self.lc_used[seat] else [CRASH]
        if phase == BONUS:
            return [PLAY + c for c in queries.legal_cards(self, seat)] + [PASS]
        if phase == STOP_OR_MORE:
            return [STOP, MORE]
        if phase == ADJUST_DICE:
            return self._adjust_actions()
        if phase == POWERS:
            return self._power_actions(seat)
        if phase == SWAP_GIVE:
            return [GIVE + c for c in self.hands[seat] if c not in self.picked]
        if phase == FALLBACK_DISCARD:
            return [DISCARD + c for c in self.hands[seat] if c not in self.picked]
        raise AssertionError(f"no decisions in phase {phase}")

    def _adjust_actions(self) -> list[int]:
        dice = [d for d in queries.rolled_dice(self) if not self.modified >> d & 1]
        return sorted([PASS] + [ADJUST + 2 * d for d in dice] + [ADJUST + 2 * d + 1 for d in dice])

    def _power_actions(self, seat: int) -> list[int]:
        value = value_of(queries.power_card(self, seat))
        if value != 10:
            return [PASS, ACTIVATE]
        targets = queries.swap_targets(self, seat)
        if targets:
            return [PASS] + [SWAP_WITH + t for t in targets]
        return [PASS] + [DISCARD + c for c in self.hands[seat]]

    def _apply(self, actions: Mapping[int, int]) -> RivieraState:
        s = self.copy()
        flow.apply_actions(s, actions)
        s.kind = _KIND_BY_PHASE[s.phase]
        return s

    # -- results ------------------------------------------------------------------------------

    def _returns(self) -> list[float]:
        """Stars; a Grand Slam winner gets BGA's display score max(100, best other + 1) (§5.4)."""
        scores = [float(x) for x in self.scores]
        if self.winners and queries.ended_by_grand_slam(self):
            others = [x for p, x in enumerate(scores) if not self.winners >> p & 1]
            top = max(100.0, max(others, default=0.0) + 1)
            return [top if self.winners >> p & 1 else x for p, x in enumerate(scores)]
        return scores

    def _observation(self, seat: int) -> dict[str, Any]:
        return observation(self, seat)

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> RivieraState:
        return resample(self, known_to, rng)

    def __repr__(self) -> str:
        return f"RivieraState(phase={self.phase}, round={self.round_no}, turn={self.turn_no})"

