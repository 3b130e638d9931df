"""N games of one game as one Gymnasium vector environment (extra `[rl]`; docs/rl.md).

    from arena.envs.vector import BatchEnv
    envs = BatchEnv("riga", 3, num_games=64)          # engine options as keywords, as env(...)
    observations, infos = envs.reset(seed=7)
    while training:
        seats = infos["current_player"]               # who chooses in each game
        actions = policy(observations["observation"], observations["action_mask"], seats)
        observations, rewards, terminations, truncations, infos = envs.step(actions)

Gymnasium's vector API (`gymnasium.vector.VectorEnv`: `reset(seed=...)`, `step(actions)`, the
batched `observation_space`, `single_observation_space`, `single_action_space`, `num_envs`), with
the two things a multi-player turn-based game adds named as in pgx (a vectorized game library):
each game's seat to act, `infos["current_player"]`, and `rewards` of shape (num_envs, players),
one column per seat.

- Observations: a dict of two stacked arrays, as Gymnasium batches the AEC env's Dict space:
  `"observation"` (num_envs, encoding_size) float32, row i the selected seat's engine observation
  of game i encoded by arena.envs.encoding, and `"action_mask"` (num_envs, num_actions) int8, its
  legal actions. Each row is what that seat may know, nothing more.
- `step(actions)`: one action id per game (shape (num_envs,), integers), for its selected seat.
  Every action is checked before any game moves: an illegal one raises IllegalActionError naming
  the game, the seat and the legal ids; a wrong shape or type a one-line ValueError.
- Moves, chance and simultaneous decisions exactly as the AEC env (arena.envs.batch): game i is
  `env(...)` reset with seed + i and given the same actions.
- Autoreset in the same step (`AutoresetMode.SAME_STEP`): when game i ends, `terminations[i]` is
  True, `rewards[i]` holds every seat's rank payoff (arena.envs.payoffs), `infos["returns"][i]` and
  `infos["ranks"][i]` the game's points and places (valid where `infos["_returns"]` is True), and
  the observation of game i is already the first of its next game. Rewards are 0 otherwise;
  truncations are always False (no game is cut short).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from arena.envs.batch import Ending, GameBatch
from arena.envs.encoding import DEFAULT_SIZE, ObservationEncoder, action_masks
from arena.envs.payoffs import rank_payoffs
from engine import registry

Observations = dict[str, np.ndarray]
StepResult = tuple[Observations, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]


class BatchEnv(VectorEnv):
    """`num_games` games of one configured game, stepped together (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game_id: str, num_players: int, *, num_games: int,
                 encoding_size: int = DEFAULT_SIZE, **options: Any) -> None:
        game = registry.make(game_id, num_players, **options)
        self.games = GameBatch(game, num_games)
        self.encoder = ObservationEncoder(encoding_size)
        self.num_envs = num_games
        self.num_players = num_players
        self.num_actions = game.info.num_actions
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_games)
        self.action_space = spaces.MultiDiscrete([self.num_actions] * num_games)
        self.metadata = {**self.metadata, "name": f"arena_{game_id}_batch"}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observations, dict[str, Any]]:
        """Every game anew; `seed` seeds game i with seed + i. `options` is unused (engine options
        are fixed when the env is made)."""
        super().reset(seed=seed)
        self.games.reset(seed)
        return self._observe(), {"current_player": np.array(self.games.selected(), np.int64)}

    def step(self, actions: Any) -> StepResult:
        """One action per game for its selected seat (module docstring)."""
        if not self.games.started:
            raise RuntimeError("the environment has no games yet: call reset() first")
        endings = self.games.act(self._checked(actions))
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        terminations = np.zeros(self.num_envs, np.bool_)
        infos = self._endings(endings, rewards, terminations)
        infos["current_player"] = np.array(self.games.selected(), np.int64)
        return self._observe(), rewards, terminations, np.zeros(self.num_envs, np.bool_), infos

    def _checked(self, actions: Any) -> list[int]:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,) or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer action ids, one per game (shape "
                             f"({self.num_envs},)); got shape {array.shape} of {array.dtype}")
        return [int(action) for action in array.tolist()]

    def _endings(self, endings: list[Ending], rewards: np.ndarray, terminations: np.ndarray) -> dict[str, Any]:
        """Fill in the games that ended: their rewards, terminations and results in the infos."""
        if not endings:
            return {}
        returns = np.zeros((self.num_envs, self.num_players), np.float64)
        ranks = np.zeros((self.num_envs, self.num_players), np.int64)
        ended = np.zeros(self.num_envs, np.bool_)
        for ending in endings:
            rewards[ending.game] = rank_payoffs(ending.ranks)
            returns[ending.game], ranks[ending.game] = ending.returns, ending.ranks
            terminations[ending.game] = ended[ending.game] = True
        return {"returns": returns, "_returns": ended, "ranks": ranks, "_ranks": ended.copy()}

    def _observe(self) -> Observations:
        return {
            "observation": self.encoder.encode_batch(self.games.observations()),
            "action_mask": action_masks(self.games.legal_actions(), self.num_actions),
        }

    def engine_observations(self) -> list[dict[str, Any]]:
        """Every game's selected seat's engine observation, exactly as a bot receives it."""
        return self.games.observations()

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the env holds no process or file."""
