"""Every game as a PettingZoo AEC environment (extra `[rl]`; docs/rl.md).

    from arena.envs.pettingzoo import env
    game = env("riviera", 4)                 # engine options as keywords: env("riga", 2, use_grand_master=False)
    game.reset(seed=7)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        action = None if terminated or truncated else pick(observation["action_mask"])
        game.step(action)

Agents are `player_0` ... `player_{n-1}` (seat i is `player_i`). An observation is a dict:
`"observation"`, the seat's engine observation encoded as `encoding_size` float32 values
(arena.envs.encoding), and `"action_mask"`, int8 with 1 at each legal action id of the game's
fixed action space (`Discrete(game.info.num_actions)`). The engine's own observation dict, as a bot
receives it, is `info["engine_observation"]` of the selected agent (and `engine_observation(agent)`
for any agent), with `info["legal_actions"]` and their labels in `info["action_labels"]`.

Simultaneous decisions (Riviera's secret choices), the way PettingZoo's AEC model plays them: the
env selects the simultaneous seats one after another, in seat order, and keeps each choice to itself;
every one of them observes the position from before any of them chose (no seat sees another's
choice), and when the last has chosen the env applies the joint action. Chance nodes (deals, dice,
draws) never reach an agent: the env resolves them with its own `random.Random`, seeded by
`reset(seed=...)` (a reset without a seed continues the same generator, as in Gymnasium), so a
seeded episode is reproducible.

Rewards come once, when the game ends: each seat's pairwise record by rank in [-1, 1]
(arena.envs.payoffs), zero-sum; the game points and ranks are in `info["returns"]` and
`info["ranks"]` then. An illegal action raises IllegalActionError naming the legal ones.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from arena.envs.encoding import DEFAULT_SIZE, ObservationEncoder, action_mask
from arena.envs.payoffs import rank_payoffs
from engine import registry
from engine.core import IllegalActionError, NodeKind, State, sample_chance


def env(game_id: str, num_players: int, *, encoding_size: int = DEFAULT_SIZE,
        render_mode: str | None = None, **options: Any) -> AECEnv:
    """The AEC environment of one configured game, wrapped so that misuse (stepping before reset,
    stepping a finished agent with an action) fails with PettingZoo's own clear errors."""
    return wrappers.OrderEnforcingWrapper(raw_env(game_id, num_players, encoding_size=encoding_size,
                                                  render_mode=render_mode, **options))


class raw_env(AECEnv):  # type: ignore[misc]  # noqa: N801 - PettingZoo (untyped) names the unwrapped env so
    """One configured game of the arena as an AEC environment (see the module docstring)."""

    metadata = {"name": "arena", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game_id: str, num_players: int, *, encoding_size: int = DEFAULT_SIZE,
                 render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not supported; choose None or 'ansi'")
        self.game = registry.make(game_id, num_players, **options)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"arena_{game_id}"}
        self.encoder = ObservationEncoder(encoding_size)
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        self.observation_spaces = {agent: self._observation_space() for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(self.game.info.num_actions) for agent in self.possible_agents}
        self._rng = random.Random()
        self._state: State | None = None

    def _observation_space(self) -> spaces.Dict:
        return spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.game.info.num_actions,), np.int8),
        })

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the AEC API ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. `seed` reseeds the chance generator; `options` is unused (engine options
        are fixed when the env is made)."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self._enter(self.game.initial_state())

    def step(self, action: int | None) -> None:
        """The selected agent's action; at a simultaneous decision it waits for the other seats."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        choice = self._legal_choice(seat, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._chosen[seat] = choice
        waiting = [s for s in self._acting if s not in self._chosen]
        if waiting:
            self._select(waiting[0])
        else:
            self._enter(self._now().apply(self._chosen))
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        return {
            "observation": self.encoder.encode(self._now().observation(seat)),
            "action_mask": action_mask(self._now().legal_actions(seat), self.game.info.num_actions),
        }

    def engine_observation(self, agent: str) -> dict[str, Any]:
        """The engine's observation of `agent`'s seat, exactly as a bot receives it."""
        return self._now().observation(self.possible_agents.index(agent))

    def render(self) -> str | None:
        """With render_mode "ansi": who acts now (or the result), as one line of text."""
        if self.render_mode is None or self._state is None:
            return None
        if self._state.kind is NodeKind.TERMINAL:
            return f"{self.game.info.id}: over; returns {self._state.returns()}, ranks {self._state.ranks()}"
        return f"{self.game.info.id}: seats {list(self._acting)} to act; {self.agent_selection} chooses"

    def close(self) -> None:
        """Nothing to release: the env holds no process or file."""

    # -- moving through the game ------------------------------------------------------------

    def _now(self) -> State:
        """The state the env is at: there is none before reset()."""
        if self._state is None:
            raise RuntimeError("the environment has no state yet: call reset() first")
        return self._state

    def _legal_choice(self, seat: int, action: Any) -> int:
        legal = self._now().legal_actions(seat)
        if action is None or int(action) not in legal:
            shown = ", ".join(str(a) for a in legal[:20]) + (", ..." if len(legal) > 20 else "")
            raise IllegalActionError(f"player_{seat} cannot play {action!r} now; legal actions: [{shown}]")
        return int(action)

    def _enter(self, state: State) -> None:
        """Resolve chance nodes with the env's generator, then select the next decision's first seat."""
        while state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, self._rng))
        self._state = state
        self._chosen: dict[int, int] = {}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        if state.kind is NodeKind.TERMINAL:
            self._finish(state)
        else:
            self._acting = tuple(sorted(state.acting_players()))
            self._select(self._acting[0])

    def _select(self, seat: int) -> None:
        agent = self.possible_agents[seat]
        self.agent_selection = agent
        legal = self._now().legal_actions(seat)
        self.infos[agent] = {
            "engine_observation": self._now().observation(seat),
            "legal_actions": legal,
            "action_labels": [self.game.action_label(action) for action in legal],
        }

    def _finish(self, state: State) -> None:
        returns, ranks = state.returns(), state.ranks()
        self._acting = ()
        for seat, payoff in enumerate(rank_payoffs(ranks)):
            agent = self.possible_agents[seat]
            self.rewards[agent] = payoff
            self.terminations[agent] = True
            self.infos[agent] = {"returns": returns, "ranks": ranks}
        self.agent_selection = self.agents[0]
