"""The engine contract that every game implements (docs/architecture.md §2).

A game is a `Game` (one configured ruleset: player count and options) that makes `State`s.
A state is a value: `apply` and `apply_chance` return a new state and never change the old one,
and two states are equal (`==`) when they describe the same position.

Chance is explicit: dice, deals and draws are CHANCE nodes whose outcome the caller picks, so
the engine never touches a random generator and a game is a pure function of its history.
Outcomes are integers; `state.chance_label(outcome)` names one for people, as
`game.action_label(action)` names an action. Not every outcome is public (a card dealt to one
seat): `state.chance_visibility(outcome)` says which seats may see it, and
`engine.visibility` turns a replay's steps into what each viewer may read.

What is stable, and what is text for people: within a ruleset (`id@version`, `Game.ruleset`), an
action id always means the same move and a chance outcome the same result, and the observation
fields keep their meaning; a match record holds only ids and outcomes, so it replays to the same
result under any later engine of that ruleset. Labels (`action_label`, `chance_label`,
`hidden_chance_label`, `hidden_action_label`) are text for people: their wording may change in any
release without a new ruleset version. A bot acts on ids and observation fields, never on label text.

Public methods on `State` validate their arguments and the node kind, then call the private
hooks (`_legal_actions`, `_apply`, ...) that a game implements; the hooks only encode rules.
Three more hooks exist for speed only and default to what the rule hooks say:
`_chance_distribution` (the tables `sample_chance` draws from), `_is_chance_outcome` and
`_is_legal` (the checks of `apply_chance` and `apply`); tests/engine/test_conformance.py checks
that a game's overrides agree with its lists.
"""

from __future__ import annotations

import enum
import random
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, repeat
from typing import Any, ClassVar, Final, Protocol

# Part of this contract, defined in engine.info (static facts, options and the engine's errors)
# and re-exported here: every game and caller imports them from engine.core.
from engine.info import EngineError as EngineError
from engine.info import GameInfo as GameInfo
from engine.info import IllegalActionError as IllegalActionError
from engine.info import IllegalChanceOutcomeError as IllegalChanceOutcomeError
from engine.info import InvalidOptionError as InvalidOptionError
from engine.info import InvalidSeatError as InvalidSeatError
from engine.info import OptionSpec as OptionSpec
from engine.info import PlayerCountError as PlayerCountError
from engine.info import UnknownActionError as UnknownActionError
from engine.info import UnknownGameError as UnknownGameError
from engine.info import WrongNodeError as WrongNodeError
from engine.info import check_player_count as check_player_count
from engine.info import mypyc_attr as mypyc_attr
from engine.info import resolve_options as resolve_options


class NodeKind(enum.Enum):
    """Who moves next: chance, one or more players, or nobody (the game is over)."""

    CHANCE = "chance"
    DECISION = "decision"
    TERMINAL = "terminal"


# The members as module globals for the checks every node goes through: reading an Enum member
# off its class (NodeKind.CHANCE) costs several times a global's lookup in Python 3.11.
_CHANCE: Final = NodeKind.CHANCE
_DECISION: Final = NodeKind.DECISION
_TERMINAL: Final = NodeKind.TERMINAL


# Compiled (engine.implementation): classes outside the compiled modules may subclass it.
@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC):
    """A configured ruleset: `registry.make(id, num_players, **options)` returns one."""

    info: ClassVar[GameInfo]

    # Any, not int: check_player_count refuses a bad count with a PlayerCountError; a compiled `int`
    # parameter would refuse a str with a TypeError first (engine.implementation).
    def __init__(self, num_players: Any, **options: Any) -> None:
        self.num_players = check_player_count(self.info, num_players)
        self.options = resolve_options(self.info, options)

    @abstractmethod
    def initial_state(self) -> State:
        """The state before anything has happened (often a CHANCE node: the deal)."""

    @abstractmethod
    def action_label(self, action: int) -> str:
        """A short human string for an action id, e.g. "play card 7": text for people, whose
        wording may change in any release. The id is what is stable: within a ruleset it always
        means the same move (see the module docstring)."""

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> State:
        """A full state consistent with one seat's `observation`, hidden parts drawn with `rng`.

        What a search bot (ISMCTS) needs to plan from what it sees: the returned state gives the
        same observation to that seat, with the same node kind, acting seats and legal actions.
        Since an observation is the seat's complete information state, it holds enough to rebuild
        the public position; everything hidden from that seat is drawn uniformly from what is
        consistent with it.
        """
        raise NotImplementedError(
            f"{self.info.id} does not implement Game.sample_state(observation, rng) yet: rebuild a "
            "State from one seat's observation, drawing what that seat cannot see with rng"
        )

    @property
    def ruleset(self) -> str:
        """`id@version`, plus the options that differ from their defaults: ratings key on it."""
        changed = sorted(
            f"{name}={value}"
            for name, value in self.options.items()
            if value != self.info.options[name].default
        )
        return "+".join([f"{self.info.id}@{self.info.version}", *changed])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players}, options={self.options})"


# Compiled: classes outside the compiled modules (tests' toy games) may subclass it. A compiled
# subclass's `Cls.__new__(Cls)` runs `__init__()` without arguments, as pickle and copy do (Ray
# ships states): a compiled state's `__init__` must accept no arguments (a blank state).
@mypyc_attr(allow_interpreted_subclasses=True)
class State(ABC):
    """One position of a game. Subclasses are values: implement `__eq__` (a dataclass does).

    Subclasses implement the underscore hooks; the public methods check the node kind, the seat
    and the action before calling them, so a hook may assume its input is valid.
    """

    num_players: int

    # -- what a game implements -------------------------------------------------------------

    @property
    @abstractmethod
    def kind(self) -> NodeKind:
        """CHANCE, DECISION or TERMINAL."""

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        raise NotImplementedError

    def _apply_chance(self, outcome: int) -> State:
        raise NotImplementedError

    # Speed hooks: the defaults derive them from the hooks above; a game whose playouts are
    # mostly chance nodes (every die and every dealt card is one) overrides them with tables.

    def _chance_distribution(self) -> tuple[Sequence[int], Sequence[float]]:
        """The outcomes of `_chance_outcomes()` and the running sums of their probabilities
        (`itertools.accumulate`, exactly as `rng.choices` sums them): what `sample_chance` draws
        from. A game may return cached tables; they must equal these."""
        outcomes = self._chance_outcomes()
        return [o for o, _ in outcomes], list(accumulate(p for _, p in outcomes))

    def _is_chance_outcome(self, outcome: Any) -> bool:
        """Whether `outcome` (`==` decides) is one of `_chance_outcomes()`; a game may skip the list."""
        return any(o == outcome for o, _ in self._chance_outcomes())

    def _is_legal(self, seat: int, action: int) -> bool:
        """Whether acting `seat` may play `action` (in `_legal_actions(seat)`); a game may use a memo."""
        return action in self._legal_actions(seat)

    def _chance_label(self, outcome: int) -> str:
        """A short human string for a chance outcome; games override this fallback."""
        return f"outcome {outcome}"

    def _chance_visibility(self, outcome: int) -> frozenset[int] | None:
        """None when every seat sees `outcome`, else the seats that do (the rules' information
        section decides). Nobody by default, so that a game that does not say leaks nothing."""
        return frozenset()

    def _hidden_chance_label(self) -> str:
        """How this chance node reads to a viewer who may not see its outcome: public context
        only ("dealt a card to seat 0"), the same whatever the outcome; games override this."""
        return "a hidden chance outcome"

    def _voided_chance_steps(self, outcome: int) -> int:
        """How many chance steps, this one included, `outcome` throws away unseen: a roll or a
        deal that the rules redo without showing it (0 for none)."""
        return 0

    def _action_visibility(self, seat: int, action: int) -> frozenset[int] | None:
        """None when every seat sees `seat` play `action`, else the seats that do. Public by
        default: in most games every action is played openly (simultaneous ones together)."""
        return None

    def _hidden_action_label(self, seat: int) -> str:
        """How `seat`'s action here reads to a viewer who may not see it: public context only."""
        return f"seat {seat} acts"

    def _acting_players(self) -> tuple[int, ...]:
        raise NotImplementedError

    def _legal_actions(self, seat: int) -> list[int]:
        raise NotImplementedError

    def _apply(self, actions: Mapping[int, int]) -> State:
        raise NotImplementedError

    @abstractmethod
    def _observation(self, seat: int) -> dict[str, Any]:
        """Everything `seat` may know now (its information state), as JSON-able data."""

    def _returns(self) -> list[float]:
        raise NotImplementedError

    def _ranks(self) -> list[int]:
        """Ranks by returns; a game with tie-breaks beyond the score overrides this."""
        return ranks_from_scores(self._returns())

    def _resample(self, known_to: frozenset[int], rng: random.Random) -> State:
        """A state the seats in `known_to` cannot tell apart from this one: what none of them
        knows (other hands, unrevealed choices) drawn again with `rng` from what fits their
        observations. A game without hidden information returns the state itself."""
        raise NotImplementedError

    # -- the public contract ----------------------------------------------------------------

    # Seats, actions and outcomes arrive as Any: these methods check them (IllegalActionError), where
    # a compiled `int` parameter would raise a TypeError first; the hooks get checked ints.

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """`[(outcome, probability), ...]` at a CHANCE node; probabilities sum to 1."""
        self._require(NodeKind.CHANCE, "chance_outcomes")
        return self._chance_outcomes()

    def apply_chance(self, outcome: Any) -> State:
        """The state after chance picks `outcome` (one of `chance_outcomes()`)."""
        # The checks inline, their errors in the helpers: most nodes of a game are chance nodes.
        if self.kind is not _CHANCE:
            self._require(_CHANCE, "apply_chance")
        if not isinstance(outcome, int) or not self._is_chance_outcome(outcome):
            self._check_outcome(outcome)
        return self._apply_chance(outcome)

    def chance_label(self, outcome: Any) -> str:
        """A short human string for `outcome` at this CHANCE node, e.g. "red die: 5", "revealed R7".

        Like `game.action_label(action)`: text for people, whose wording may change in any
        release; the outcome (an integer) is what is stable within a ruleset. It names what the outcome is,
        with public context (which die, which seat draws), and reveals nothing else. It names
        the outcome itself, so show it only to the seats `chance_visibility` names (or use
        `engine.visibility.chance_views`); to anyone else the node reads as `hidden_chance_label()`.
        """
        self._require(NodeKind.CHANCE, "chance_label")
        self._check_outcome(outcome)
        return self._chance_label(outcome)

    def chance_visibility(self, outcome: Any) -> frozenset[int] | None:
        """Who may see `outcome` at this CHANCE node once it stands: None = every seat (a die, a
        revealed card), else the seats that see it (a card dealt to one seat: that seat).

        It is about the chance step itself: a card dealt face down stays hidden here even when
        it is played face up later (the later steps say so themselves)."""
        self._require(NodeKind.CHANCE, "chance_visibility")
        self._check_outcome(outcome)
        return self._chance_visibility(outcome)

    def hidden_chance_label(self) -> str:
        """How this CHANCE node reads to a viewer who may not see its outcome, e.g. "dealt a card
        to seat 0": public context only, the same whatever the outcome."""
        self._require(NodeKind.CHANCE, "hidden_chance_label")
        return self._hidden_chance_label()

    def voided_chance_steps(self, outcome: Any) -> int:
        """How many chance steps, this one included, `outcome` throws away unseen by every seat
        (a busting roll or a deal the rules redo): 0 when it voids nothing."""
        self._require(NodeKind.CHANCE, "voided_chance_steps")
        self._check_outcome(outcome)
        return self._voided_chance_steps(outcome)

    def acting_players(self) -> tuple[int, ...]:
        """The seats that must act now (several at a simultaneous decision); () elsewhere."""
        if self.kind is not _DECISION:
            return ()
        return self._acting_players()

    def legal_actions(self, seat: Any) -> list[int]:
        """The sorted action ids `seat` may choose now; never empty for an acting seat."""
        if not (type(seat) is int and 0 <= seat < self.num_players):  # the check inline: hot
            self._check_seat(seat)
        if self.kind is not _DECISION or seat not in self._acting_players():
            return []
        return self._legal_actions(seat)

    def apply(self, actions: Mapping[Any, Any]) -> State:
        """The state after every acting seat plays its action: `{seat: action, ...}`."""
        if self.kind is not _DECISION:
            self._require(_DECISION, "apply")
        acting = self._acting_players()
        # set(actions) == set(acting), without building two sets: the acting seats are distinct
        # and so are a mapping's keys, so equal sizes and every acting seat in it say the same.
        if len(actions) != len(acting) or not all(seat in actions for seat in acting):
            raise IllegalActionError(
                f"apply needs exactly one action for each acting seat {list(acting)}, "
                f"got seats {sorted(actions)}"
            )
        for seat, action in actions.items():
            if not isinstance(action, int) or not self._is_legal(seat, action):
                raise IllegalActionError(
                    f"action {action!r} is not legal for seat {seat}; "
                    f"legal: {_short(self._legal_actions(seat))}"
                )
        return self._apply(dict(actions))

    def action_visibility(self, seat: Any, action: Any) -> frozenset[int] | None:
        """Who may see acting `seat` play `action` at this DECISION node: None = every seat, else
        the seats that do (a card handed face down to an opponent: its owner, until the swap
        shows it to the opponent)."""
        self._require(NodeKind.DECISION, "action_visibility")
        if action not in self.legal_actions(seat):
            raise IllegalActionError(f"action {action!r} is not legal for seat {seat} here")
        return self._action_visibility(seat, action)

    def hidden_action_label(self, seat: Any) -> str:
        """How acting `seat`'s action reads to a viewer who may not see it, e.g. "seat 0 gives a
        card to seat 2": public context only, the same whatever the action."""
        self._require(NodeKind.DECISION, "hidden_action_label")
        self._check_seat(seat)
        return self._hidden_action_label(seat)

    def observation(self, seat: Any) -> dict[str, Any]:
        """What `seat` may know, nothing more: JSON-able, complete enough for a stateless bot."""
        self._check_seat(seat)
        return self._observation(seat)

    def returns(self) -> list[float]:
        """The final score of each seat in game points, at a TERMINAL node."""
        self._require(NodeKind.TERMINAL, "returns")
        return self._returns()

    def ranks(self) -> list[int]:
        """Each seat's final place, 1 = best; tied seats share a rank (1, 1, 3)."""
        self._require(NodeKind.TERMINAL, "ranks")
        return self._ranks()

    def resample(self, known_to: Collection[Any], rng: random.Random) -> State:
        """A state the seats in `known_to` cannot tell apart from this one, drawn with `rng`.

        `resample({seat}, rng)` gives a determinization for a search bot (ISMCTS): the same
        `observation(seat)`, with every hidden thing drawn again. `resample(others, rng)` with
        every seat but one redraws only that seat's secrets: the no-leak test uses it.
        """
        seats = frozenset(known_to)
        for seat in seats:
            self._check_seat(seat)
        return self._resample(seats, rng)

    # -- helpers ----------------------------------------------------------------------------

    def _require(self, kind: NodeKind, method: str) -> None:
        if self.kind is not kind:
            raise WrongNodeError(
                f"{method}() needs a {kind.value} node, but this is a {self.kind.value} node"
            )

    def _check_outcome(self, outcome: object) -> None:
        if not isinstance(outcome, int) or not self._is_chance_outcome(outcome):
            outcomes = [o for o, _ in self._chance_outcomes()]
            raise IllegalChanceOutcomeError(
                f"chance outcome {outcome!r} is not possible here; possible: {_short(outcomes)}"
            )

    def _check_seat(self, seat: object) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise InvalidSeatError(
                f"seat {seat!r} does not exist; seats are 0 to {self.num_players - 1}"
            )


class OneSeatLegalMemo(State):
    """For a state where one seat acts at a time: `_legal_actions` answered from a memo of the
    state's `_actions_of(seat)`, worked out once per state (a search asks a node again and again).
    The state sets `_legal = None` whenever it is made or copied. A State, so that the compiled
    engine (which has one base class per class) can build on it: subclass it instead of State."""

    _legal: tuple[int, list[int]] | None

    def _legal_actions(self, seat: int) -> list[int]:
        return list(self._legal_memo(seat))  # a copy: the caller may change its list

    def _legal_memo(self, seat: int) -> list[int]:
        if self._legal is None or self._legal[0] != seat:
            self._legal = (seat, self._actions_of(seat))
        return self._legal[1]

    def _actions_of(self, seat: int) -> list[int]:
        raise NotImplementedError


def ranks_from_scores(scores: Sequence[float] | Sequence[tuple[Any, ...]]) -> list[int]:
    """Competition ranks, higher is better: [5, 9, 5] -> [2, 1, 2]; tuples compare as tie-breaks."""
    return [1 + sum(other > mine for other in scores) for mine in scores]  # type: ignore[operator]


def _short(values: Sequence[Any], limit: int = 20) -> str:
    shown = ", ".join(str(v) for v in values[:limit])
    return f"[{shown}{', ...' if len(values) > limit else ''}]"


# -- playing a state to the end ---------------------------------------------------------------


class Agent(Protocol):
    """Anything that picks an action from what one seat sees (every bot in bots/ is one)."""

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int: ...


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class Step:
    """One move of a game: a chance outcome, or the joint action of the acting seats."""

    chance: int | None = None
    actions: Mapping[int, int] | None = None


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class Playthrough:
    """A finished (or cut-off) game: the last state and the steps that led there."""

    final: State
    steps: tuple[Step, ...]


# A State, or a game's State in C (engine/gang_of_dice/c_state.pyx): the same public methods, but
# no subclass (a Cython class cannot extend a mypyc one). Any, so that compiled code takes it.
AnyState = Any


def sample_chance(state: AnyState, rng: random.Random) -> int:
    """Draw one outcome of a CHANCE node with its probability, using only `rng`.

    The very draw `rng.choices(outcomes, probabilities)[0]` makes (one `rng.random()` against
    the running sums), so seeded games stay what they were, without rebuilding the lists.
    """
    if not isinstance(state, State):  # a C state makes the same draw in C
        return state._sample_chance(rng)  # type: ignore[no-any-return]
    if state.kind is not _CHANCE:
        state._require(_CHANCE, "chance_outcomes")
    outcomes, cumulative = state._chance_distribution()
    return outcomes[bisect_right(cumulative, rng.random() * cumulative[-1], 0, len(outcomes) - 1)]


@cache
def uniform_sums(n: int) -> tuple[float, ...]:
    """The running sums of n equally likely outcomes (`1.0 / n` each): the cumulative half of
    `_chance_distribution` for a uniform draw, computed once per n."""
    return tuple(accumulate(repeat(1.0 / n, n)))


def advance(state: AnyState, step: Step) -> AnyState:
    """Apply one recorded step."""
    if step.chance is not None:
        return state.apply_chance(step.chance)
    assert step.actions is not None, "a step holds a chance outcome or actions"
    return state.apply(step.actions)


def play(
    state: AnyState, agents: Sequence[Agent], rng: random.Random, max_steps: int | None = None
) -> Playthrough:
    """Play `state` to the end: chance from `rng`, seat i's decisions from `agents[i]`.

    Stops early after `max_steps` steps (chance and decisions) when that is given.
    """
    steps: list[Step] = []
    while state.kind is not NodeKind.TERMINAL and (max_steps is None or len(steps) < max_steps):
        if state.kind is NodeKind.CHANCE:
            step = Step(chance=sample_chance(state, rng))
        else:
            step = Step(actions=decide(state, agents))
        state = advance(state, step)
        steps.append(step)
    return Playthrough(state, tuple(steps))


def decide(state: AnyState, agents: Sequence[Agent]) -> dict[int, int]:
    """Ask every acting seat's agent for its action at a DECISION node."""
    return {
        seat: agents[seat].act(state.observation(seat), state.legal_actions(seat))
        for seat in state.acting_players()
    }


def replay(state: AnyState, steps: Sequence[Step]) -> AnyState:
    """Apply recorded steps to `state`: the same steps always reach the same state."""
    for step in steps:
        state = advance(state, step)
    return state

