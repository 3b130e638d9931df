"""Every game as an OpenSpiel game `arena_<game_id>` (extra `[openspiel]`; docs/rl.md).

    from arena.envs import openspiel
    import pyspiel
    openspiel.register()
    game = pyspiel.load_game("arena_riga", {"players": 3, "use_grand_master": False})

`register()` registers one Python game per engine game with `pyspiel.register_game`; its
parameters are `players` (default: the game's fewest) and every engine option, with the engine's
defaults. A state wraps an engine state (`state.engine_state`):

- chance nodes are OpenSpiel chance nodes with the engine's explicit outcomes and probabilities
  (action ids are the engine's outcome ids), so OpenSpiel's algorithms sample or enumerate them;
- a decision with one acting seat is that player's node; a decision with several (Riviera's secret
  choices) is a simultaneous node where the acting seats choose together and the others have no
  legal action (OpenSpiel's `INVALID_ACTION`, -1, in the joint action, as its evaluate_bots sends);
  `pyspiel.convert_to_turn_based` turns it into a sequential game for MCTS; the parameter
  `turn_based=True` makes the game sequential itself (the seats of a simultaneous node choose in
  turn, each unaware of the earlier choices, which `resample_from_infostate` draws again): the
  way to run OpenSpiel's ISMCTS, which needs a sequential game and a resampler; Riviera's
  rulebook mode (playMode=sequential) is sequential as it is (its description's turn_based_option);
- information states and observations: both are the engine's observation of the seat, which the
  engine defines as that seat's complete information state (everything it saw that still
  matters; not the full action history that strict perfect recall would add), as a JSON string
  (sorted keys) and as the shared fixed-length encoding (arena.envs.encoding);
- `resample_from_infostate(player, sampler)` draws a state that player cannot tell from this one
  (the engine's `resample`), which OpenSpiel's Python ISMCTS bot (`open_spiel.python.algorithms.
  ismcts`) needs; its C++ ISMCTSBot cannot call a Python resampler;
- returns come at the end: each seat's pairwise record by rank in [-1, 1], zero-sum
  (arena.envs.payoffs).

`ArenaBot` makes any of our bots (bots/: random, heuristic, ismcts) an OpenSpiel `pyspiel.Bot`,
so `pyspiel.evaluate_bots` plays OpenSpiel's bots against ours. (Use that C++ `evaluate_bots`:
with open_spiel 2.0.2, its C++ bots crash on any Python game when stepped from the Python one.)
`OpenSpielAgent` goes the other way: an OpenSpiel (Python) bot as one of ours, for arena matches.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import pyspiel

import bots
from arena.envs.encoding import DEFAULT_SIZE, ObservationEncoder
from arena.envs.payoffs import MAX_PAYOFF, MIN_PAYOFF, rank_payoffs
from engine import registry
from engine.core import Game, GameInfo, NodeKind, State

T = TypeVar("T")
PREFIX = "arena_"



def max_chance_outcomes(game_id: str) -> int:
    """The largest chance outcome id + 1 (the game's description, engine/description.py): the info does
    not carry it and OpenSpiel needs it up front. A state checks every outcome against it."""
    limit = registry.describe(game_id).max_chance_outcomes
    if limit < 1:
        raise ValueError(f"{game_id} states no max_chance_outcomes in its GameDescription: "
                         "give its largest chance outcome id + 1")
    return limit


# The parameter of a game with simultaneous choices that makes the seats of a simultaneous node
# choose one after another instead, each unaware of the choices before its own (see ArenaState).
TURN_BASED = "turn_based"


def register() -> list[str]:
    """Register every engine game with OpenSpiel (once per process); returns their short names."""
    names = []
    for game_id in registry.game_ids():
        name = PREFIX + game_id
        if name not in pyspiel.registered_names():
            pyspiel.register_game(game_type(registry.info(game_id)), game_class(game_id))
        names.append(name)
    return names


def turn_based(game_id: str, options: dict[str, Any]) -> bool:
    """Whether these options leave a game with simultaneous choices one seat at a time."""
    option = registry.describe(game_id).turn_based_option  # e.g. Riviera's playMode=sequential
    return option is not None and options.get(option[0]) == option[1]


def game_type(info: GameInfo, simultaneous: bool | None = None) -> pyspiel.GameType:
    """What OpenSpiel needs to know about a game before it makes one (`simultaneous`: whether
    this configuration has simultaneous decisions; by default whether any of the game's has)."""
    simultaneous = info.simultaneous if simultaneous is None else simultaneous
    hidden = info.hidden_info or simultaneous  # simultaneous choices are hidden until made
    return pyspiel.GameType(
        short_name=PREFIX + info.id, long_name=f"Arena {info.name}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if simultaneous else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION if hidden
        else pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players, min_num_players=info.min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={"players": info.min_players,
                                 **{name: spec.default for name, spec in info.options.items()},
                                 **({TURN_BASED: False} if info.simultaneous else {})})


def game_class(game_id: str) -> type[ArenaGame]:
    """The class OpenSpiel instantiates with a game's parameters: `ArenaGame_<game_id>`.

    A class, not a closure: pyspiel keeps the registered constructor until the interpreter has
    shut down, and freeing a closure then aborts the process (a module's class outlives it). It is
    a module attribute so that pickle (OpenSpiel's serialization) finds it by name."""
    name = f"ArenaGame_{game_id}"
    if name not in globals():
        def __init__(self: ArenaGame, params: dict[str, Any] | None = None) -> None:
            ArenaGame.__init__(self, game_id, dict(params or {}))
        globals()[name] = type(name, (ArenaGame,), {"__init__": __init__, "__module__": __name__})
    return globals()[name]  # type: ignore[no-any-return]


class ArenaGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """One configured engine game as an OpenSpiel game."""

    def __init__(self, game_id: str, params: dict[str, Any]) -> None:
        info = registry.info(game_id)
        limit = max_chance_outcomes(game_id)
        options = {name: params[name] for name in info.options if name in params}
        players = int(params.get("players", info.min_players))
        self.engine_game: Game = registry.make(game_id, players, **options)
        self.encoder = ObservationEncoder(DEFAULT_SIZE)
        self.chance_limit = limit
        asked = bool(params.get(TURN_BASED, False)) if info.simultaneous else False
        # sequential when the options leave one seat at a time, or when asked to take turns
        self.simultaneous = info.simultaneous and not asked and not turn_based(game_id, self.engine_game.options)
        super().__init__(game_type(info, self.simultaneous), pyspiel.GameInfo(
            num_distinct_actions=info.num_actions, max_chance_outcomes=limit,
            num_players=players, min_utility=MIN_PAYOFF, max_utility=MAX_PAYOFF, utility_sum=0.0,
            max_game_length=info.max_decisions * (players if asked else 1)),
            {"players": players, **self.engine_game.options, **({TURN_BASED: asked} if info.simultaneous else {})})

    def new_initial_state(self) -> ArenaState:
        """The engine's initial state (usually a chance node: the deal)."""
        return ArenaState(self, self.engine_game.initial_state())

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: dict[str, Any] | None = None) -> ArenaObserver:
        """Observations and information states alike: the engine's observation of a seat."""
        return ArenaObserver(self.encoder, iig_obs_type, params)


class ArenaState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """An engine state seen through OpenSpiel's State API (see the module docstring)."""

    def __init__(self, game: ArenaGame, engine_state: State) -> None:
        super().__init__(game)
        self._game = _SharedGame(game)
        self.engine_state = engine_state
        # turn-based play of a simultaneous node: the choices made so far, applied together once
        # every acting seat has chosen; hidden from the seats after (their observations omit them)
        self.pending: dict[int, int] = {}

    @property
    def engine_game(self) -> Game:
        """The configured engine game."""
        return self._game.value.engine_game

    @property
    def engine_state(self) -> State:
        """The engine state this OpenSpiel state wraps."""
        return self._held.state

    @engine_state.setter
    def engine_state(self, state: State) -> None:
        self._held = _Held(state)

    def engine_observation(self, seat: int) -> dict[str, Any]:
        """The seat's engine observation of this state (computed once: observers ask often)."""
        return self._held.view(seat, "observation", lambda: self.engine_state.observation(seat))

    def encoded_observation(self, seat: int) -> np.ndarray:
        """The seat's observation as the shared fixed-length encoding (computed once)."""
        encoder = self._game.value.encoder
        return self._held.view(seat, "encoding", lambda: encoder.encode(self.engine_observation(seat)))

    def current_player(self) -> int:
        """The acting seat, or OpenSpiel's CHANCE, SIMULTANEOUS or TERMINAL player id."""
        kind = self.engine_state.kind
        if kind is NodeKind.TERMINAL:
            return cast(int, pyspiel.PlayerId.TERMINAL)  # pyspiel is untyped: its ids are ints
        if kind is NodeKind.CHANCE:
            return cast(int, pyspiel.PlayerId.CHANCE)
        acting = self.engine_state.acting_players()
        if len(acting) == 1:
            return acting[0]
        if self._game.value.simultaneous:
            return cast(int, pyspiel.PlayerId.SIMULTANEOUS)
        return next(seat for seat in acting if seat not in self.pending)  # turn-based: the next to choose

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine_state.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The engine's outcomes with their probabilities, by outcome id."""
        outcomes = sorted(self.engine_state.chance_outcomes())
        limit = self._game.value.chance_limit
        if outcomes[-1][0] >= limit:
            raise ValueError(f"chance outcome {outcomes[-1][0]} of {self.engine_game.info.id} is beyond its "
                             f"max_chance_outcomes={limit}: raise it in its GameDescription")
        return outcomes

    def _apply_action(self, action: int) -> None:
        if self.engine_state.kind is NodeKind.CHANCE:
            self.engine_state = self.engine_state.apply_chance(action)
            return
        self.pending[self.current_player()] = action
        if len(self.pending) == len(self.engine_state.acting_players()):
            self.engine_state, self.pending = self.engine_state.apply(self.pending), {}

    def _apply_actions(self, actions: list[int]) -> None:
        acting = self.engine_state.acting_players()
        self.engine_state = self.engine_state.apply({seat: actions[seat] for seat in acting})

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.engine_state.kind is NodeKind.CHANCE:
                return self.engine_state.chance_label(action)
            return f"chance outcome {action}"
        return self.engine_game.action_label(action)

    def is_terminal(self) -> bool:
        return self.engine_state.kind is NodeKind.TERMINAL

    def returns(self) -> list[float]:
        """Each seat's rank payoff at the end; 0 for everybody before."""
        if not self.is_terminal():
            return [0.0] * self.engine_game.num_players
        return rank_payoffs(self.engine_state.ranks())

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> ArenaState:
        """A state `player_id` cannot tell from this one, hidden parts drawn again (ISMCTS)."""
        rng = random.Random(int(probability_sampler() * 2**53))
        resampled: ArenaState = self.clone()
        resampled.engine_state = self.engine_state.resample({player_id}, rng)
        # the choices other seats made before this one at a turn-based simultaneous node are
        # hidden from it: drawn again among their legal actions in the redrawn state
        resampled.pending = {seat: action if seat == player_id
                             else rng.choice(resampled.engine_state.legal_actions(seat))
                             for seat, action in self.pending.items()}
        return resampled

    def __str__(self) -> str:
        """The history: with explicit chance it fixes the whole state."""
        return f"{self.engine_game.ruleset} after [{self.history_str()}]"


class _SharedGame:
    """The game, shared by the clones of a state: OpenSpiel clones a Python state with
    copy.deepcopy, which would otherwise copy the whole game with it, and serializes one with
    pickle, where the game travels as its OpenSpiel game string."""

    def __init__(self, game: ArenaGame) -> None:
        self.value = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _SharedGame:
        return self

    def __reduce__(self) -> tuple[Callable[[str], _SharedGame], tuple[str]]:
        return _load_shared_game, (str(self.value),)


def _load_shared_game(game_string: str) -> _SharedGame:
    return _SharedGame(pyspiel.load_game(game_string))


class _Held:
    """An engine state and the views computed from it. An engine state is a value that nothing
    changes, so clones share it (and its views) instead of copying it."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.views: dict[tuple[int, str], Any] = {}

    def view(self, seat: int, kind: str, compute: Callable[[], T]) -> T:
        key = (seat, kind)
        if key not in self.views:
            self.views[key] = compute()
        return cast(T, self.views[key])

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return self


class ArenaObserver:
    """OpenSpiel's Python observer: the engine's observation as a string and as a vector."""

    def __init__(self, encoder: ObservationEncoder, iig_obs_type: pyspiel.IIGObservationType | None,
                 params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"arena observers take no parameters; got {sorted(params)}")
        if iig_obs_type is not None and not (iig_obs_type.public_info and
                                             iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("arena games observe one seat's own view only: public_info=True, "
                             "private_info=SINGLE_PLAYER")
        self.encoder = encoder
        self.tensor = np.zeros(encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ArenaState, player: int) -> None:
        """Fill `tensor` with `player`'s encoded observation of `state`."""
        self.tensor[:] = state.encoded_observation(player)

    def string_from(self, state: ArenaState, player: int) -> str:
        """`player`'s observation of `state` as JSON with sorted keys (and, in a turn-based
        simultaneous node, the choice it made there: its own, so it knows it)."""
        text = json.dumps(state.engine_observation(player), sort_keys=True, separators=(",", ":"))
        return text if player not in state.pending else f"{text} chose {state.pending[player]}"


class ArenaBot(pyspiel.Bot):  # type: ignore[misc]  # pyspiel is untyped
    """One of our bots (a spec as `arena play --bots` takes: "heuristic", "ismcts:sims=200") for
    one seat of an arena game in OpenSpiel: it sees only that seat's observation, as in a match."""

    def __init__(self, game: ArenaGame, seat: int, spec: str = "random", seed: int = 0) -> None:
        super().__init__()
        self.seat = seat
        self.bot = bots.make_bot(spec, game.engine_game, seat, seed)

    def step(self, state: ArenaState) -> int:
        """The bot's action for its seat at this (player or simultaneous) node."""
        observation = state.engine_observation(self.seat)
        return self.bot.act(observation, state.engine_state.legal_actions(self.seat))

    def restart_at(self, state: ArenaState) -> None:
        """Our bots are stateless between decisions: the observation is all they need."""

    def inform_action(self, state: ArenaState, player_id: int, action: int) -> None:
        """Nothing to remember (see restart_at)."""


class OpenSpielAgent:
    """An OpenSpiel bot as one of ours: `act(observation, legal_actions)`, the shape of our bots
    and of the SDK's bot functions, so it plays arena matches (`bots.sdk.run(address, token,
    agent.act)`). Each decision rebuilds a state from the seat's observation alone
    (`Game.sample_state`: what the seat cannot see is drawn with `seed`'s generator) and asks the
    OpenSpiel bot there, so it never sees more than the seat may. Use a Python bot
    (open_spiel.python.algorithms: mcts.MCTSBot, ismcts.ISMCTSBot; see the module docstring) at
    sequential decisions; a simultaneous one is refused."""

    def __init__(self, game: ArenaGame, bot: pyspiel.Bot, seed: int = 0) -> None:
        self.game, self.bot = game, bot
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        """The OpenSpiel bot's action at a state consistent with `observation`."""
        state = ArenaState(self.game, self.game.engine_game.sample_state(observation, self.rng))
        if state.is_simultaneous_node():
            raise ValueError("OpenSpielAgent plays sequential decisions only; for simultaneous ones play "
                             "the game with playMode=sequential or in pyspiel.evaluate_bots")
        action = int(self.bot.step(state))
        if action not in legal_actions:
            raise ValueError(f"the OpenSpiel bot chose {action}, which is not among the legal actions")
        return action


for _game_id in registry.game_ids():  # before any unpickling looks a class up by name
    game_class(_game_id)
