"""One game as a PettingZoo ParallelEnv, moved by the batch core (extra `[rl]`; docs/rl.md).

    from arena.envs.parallel import parallel_env
    game = parallel_env("riga", 3)
    observations, infos = game.reset(seed=7)
    while game.agents:
        actions = {agent: pick(observations[agent]["action_mask"]) for agent in game.agents}
        observations, rewards, terminations, truncations, infos = game.step(actions)

The same game as `arena.envs.pettingzoo.env` and `arena.envs.vector.BatchEnv` with one game
(arena.envs.batch moves it): every agent (`player_i`, seat i) observes its own seat each step;
only the selected seat (`infos[agent]["selected"]`) has legal actions in its `action_mask`, the
others' masks are all zero and their actions, if given, are ignored (a turn-based game in the
parallel API, as PettingZoo's own conversion of turn-based games does). A simultaneous decision
selects its seats one step after another, each seeing the position from before any chose. When
the game ends every agent gets its rank payoff, is terminated, and `agents` becomes empty.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from arena.envs.batch import GameBatch
from arena.envs.encoding import DEFAULT_SIZE, ObservationEncoder, action_mask
from arena.envs.payoffs import rank_payoffs
from engine import registry
from engine.core import IllegalActionError

AgentDict = dict[str, Any]


def parallel_env(game_id: str, num_players: int, *, encoding_size: int = DEFAULT_SIZE,
                 **options: Any) -> ParallelEnv:
    """The ParallelEnv of one configured game (module docstring)."""
    return ArenaParallelEnv(game_id, num_players, encoding_size=encoding_size, **options)


class ArenaParallelEnv(ParallelEnv):  # type: ignore[misc]  # PettingZoo is untyped (pyproject: mypy overrides)
    """One configured game of the arena in PettingZoo's parallel API (module docstring)."""

    metadata = {"name": "arena_parallel", "render_modes": []}

    def __init__(self, game_id: str, num_players: int, *, encoding_size: int = DEFAULT_SIZE,
                 **options: Any) -> None:
        self.game = registry.make(game_id, num_players, **options)
        self.batch = GameBatch(self.game, 1, autoreset=False)
        self.encoder = ObservationEncoder(encoding_size)
        self.metadata = {**self.metadata, "name": f"arena_{game_id}_parallel"}
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        self.agents: list[str] = []
        num_actions = self.game.info.num_actions
        space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        })
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(num_actions) for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[AgentDict, AgentDict]:
        """A new game; `seed` reseeds its chance generator, else it continues (as in Gymnasium)."""
        self.batch.reset(seed)
        self.agents = self.possible_agents[:]
        return self._observe(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[AgentDict, AgentDict, AgentDict, AgentDict, AgentDict]:
        """The selected agent's action moves the game; the other agents' actions are ignored."""
        if not self.agents:
            raise RuntimeError("the game is over or not started: call reset() first")
        selected = f"player_{self.batch.selected()[0]}"
        if selected not in actions:
            raise IllegalActionError(f"{selected} is selected to act, but actions has no entry for it "
                                     f"(got {sorted(actions)})")
        action = actions[selected]
        endings = self.batch.act([int(action) if isinstance(action, (int, np.integer)) else action])
        observations = self._observe()
        rewards = dict.fromkeys(self.agents, 0.0)
        ended = bool(endings)
        if ended:
            rewards = dict(zip(self.agents, rank_payoffs(endings[0].ranks)))
        terminations = dict.fromkeys(self.agents, ended)
        truncations = dict.fromkeys(self.agents, False)
        infos = self._infos()
        if ended:
            for agent in self.agents:
                infos[agent] = {"returns": endings[0].returns, "ranks": endings[0].ranks}
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observe(self) -> AgentDict:
        state, selected = self.batch.states()[0], self.batch.selected()[0]
        legal = self.batch.legal_actions()[0]
        num_actions = self.game.info.num_actions
        return {
            agent: {"observation": self.encoder.encode(state.observation(seat)),
                    "action_mask": action_mask(legal if seat == selected else [], num_actions)}
            for seat, agent in enumerate(self.possible_agents)
        }

    def _infos(self) -> AgentDict:
        selected = self.batch.selected()[0]
        return {agent: {"selected": seat == selected} for seat, agent in enumerate(self.possible_agents)}

    def engine_observation(self, agent: str) -> dict[str, Any]:
        """The engine's observation of `agent`'s seat, exactly as a bot receives it."""
        return self.batch.states()[0].observation(self.possible_agents.index(agent))
