"""Many games of one configured game stepped together: the core of the batch environments.

`GameBatch` holds `num_games` games, each with its own state and its own chance generator, and
moves them the way the AEC environment (arena/envs/pettingzoo.py) moves one game: chance is
resolved inside with the game's `random.Random`; one seat is *selected* per game at a time; at a
simultaneous decision the acting seats are selected one after another in seat order, each
observing the position from before any of them chose, and the joint action is applied when the
last has chosen. So game i of a batch, reset with seed s + i, is the AEC env reset with that seed
and given the same actions (tests/arena/envs/test_batch.py checks it).

`act(actions)` takes one action per game, for its selected seat, checks them all before it
changes anything, and moves every game. A game that ends reports its final returns and ranks;
with `autoreset` it then starts again at once, its generator continuing (as a Gymnasium vector
env's sub-environment does after its first seed).

The engine has no batch primitive to call: a state is one native object, and stepping many of
them is a loop over them in this process. What a batch saves is in the numpy half (one encoding
and one mask array for every game: `ObservationEncoder.encode_batch`, `action_masks`) and in the
caller's per-call overhead; BENCHMARKS.md ("A batch of games") measures it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.core import Game, IllegalActionError, NodeKind, State, sample_chance


@dataclass
class Ending:
    """A game of the batch that has just ended: which game, and its final state's results."""

    game: int
    returns: list[float]
    ranks: list[int]


@dataclass
class _Table:
    """One game of the batch: where it is, its generator, and who chooses now."""

    rng: random.Random
    state: State | None = None
    acting: tuple[int, ...] = ()
    chosen: dict[int, int] = field(default_factory=dict)
    seat: int = -1  # the selected seat; -1 when the game is over (and not reset)
    legal: list[int] = field(default_factory=list)  # the selected seat's legal actions


class GameBatch:
    """`num_games` games of one configured `game`, stepped together (module docstring)."""

    def __init__(self, game: Game, num_games: int, *, autoreset: bool = True) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a whole number >= 1, got {num_games!r}")
        self.game = game
        self.num_games = num_games
        self.autoreset = autoreset
        self._tables = [_Table(random.Random()) for _ in range(num_games)]

    def reset(self, seed: int | None = None) -> None:
        """Start every game anew; with `seed`, game i's generator is seeded with seed + i (as
        Gymnasium seeds a vector env's sub-environments), else each continues its generator."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        for index, table in enumerate(self._tables):
            if seed is not None:
                table.rng = random.Random(seed + index)
            self._enter(table, self.game.initial_state())

    # -- what the games show ------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._tables[0].state is not None

    def states(self) -> list[State]:
        """Every game's current state (a decision node, or a terminal one when not autoreset)."""
        return [self._state(table) for table in self._tables]

    def selected(self) -> list[int]:
        """Every game's selected seat (-1 for a game that is over)."""
        return [table.seat for table in self._tables]

    def legal_actions(self) -> list[list[int]]:
        """Every game's selected seat's legal actions ([] for a game that is over)."""
        return [table.legal for table in self._tables]

    def observations(self) -> list[dict[str, object]]:
        """Every game's selected seat's engine observation: what that seat may know, no more."""
        return [self._state(table).observation(max(table.seat, 0)) for table in self._tables]

    # -- moving -------------------------------------------------------------------------------

    def act(self, actions: Sequence[int]) -> list[Ending]:
        """One action per game for its selected seat; every game moves. Returns the games that ended."""
        if len(actions) != self.num_games:
            raise ValueError(f"act needs one action per game ({self.num_games}), got {len(actions)}")
        for index, (table, action) in enumerate(zip(self._tables, actions)):
            self._check(index, table, action)
        endings: list[Ending] = []
        for index, (table, action) in enumerate(zip(self._tables, actions)):
            ending = self._move(table, int(action))
            if ending is not None:
                endings.append(Ending(index, *ending))
        return endings

    def _check(self, index: int, table: _Table, action: object) -> None:
        if table.seat < 0:
            raise IllegalActionError(f"game {index} is over (autoreset is off): reset() before stepping it")
        if isinstance(action, bool) or not isinstance(action, int) or action not in table.legal:
            legal = table.legal
            shown = ", ".join(str(a) for a in legal[:20]) + (", ..." if len(legal) > 20 else "")
            raise IllegalActionError(
                f"game {index}: player_{table.seat} cannot play {action!r} now; legal actions: [{shown}]")

    def _move(self, table: _Table, action: int) -> tuple[list[float], list[int]] | None:
        """The selected seat's action; the joint action is applied once every acting seat chose."""
        table.chosen[table.seat] = action
        waiting = [seat for seat in table.acting if seat not in table.chosen]
        if waiting:
            self._select(table, waiting[0])
            return None
        final = self._enter(table, self._state(table).apply(table.chosen))
        if final is None:
            return None
        if self.autoreset:
            self._enter(table, self.game.initial_state())
        return final

    def _enter(self, table: _Table, state: State) -> tuple[list[float], list[int]] | None:
        """Resolve chance with the game's generator, then select the first acting seat; at the
        end, the final returns and ranks."""
        while state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, table.rng))
        table.state, table.chosen = state, {}
        if state.kind is NodeKind.TERMINAL:
            table.acting, table.seat, table.legal = (), -1, []
            return state.returns(), state.ranks()
        table.acting = tuple(sorted(state.acting_players()))
        self._select(table, table.acting[0])
        return None

    def _select(self, table: _Table, seat: int) -> None:
        table.seat = seat
        table.legal = self._state(table).legal_actions(seat)

    @staticmethod
    def _state(table: _Table) -> State:
        if table.state is None:
            raise RuntimeError("the batch has no games yet: call reset() first")
        return table.state
