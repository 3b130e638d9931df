"""One agent, two homes: evaluated in the PettingZoo environment, then playing as a connected bot.

    .venv/bin/python bots/examples/python/pettingzoo_agent.py evaluate --game riviera --players 3 --episodes 20
    .venv/bin/python bots/examples/python/pettingzoo_agent.py play --token TOKEN [--address 127.0.0.1:50051]

The agent is what a reinforcement-learning policy looks like from outside: it maps the encoded
observation vector and the action mask to an action id. Here it is a fixed, seeded linear scorer
(one weight row per action, the highest-scoring legal action wins), a stand-in for the network you
would train; replace `LinearAgent.scores` with yours. `evaluate` plays it in seat 0 of
`arena.envs.pettingzoo.env(...)` against uniformly random seats and prints its mean payoff (the
env's zero-sum rank payoff, in [-1, 1]). `play` connects it to the arena through the SDK: each
decision's observation goes through the same encoder (arena.envs.encoding) and its legal actions
become the same mask, so the bot plays exactly as the agent did in the environment.
Needs the `[rl]` extra (docs/rl.md) and the arena's checkout (its environments and engine, which
the agent was trained in): unlike random_bot.py it does not run from the kit alone.
"""

from __future__ import annotations

import argparse
import logging
import os
import random

import numpy as np

from arena.envs.encoding import DEFAULT_SIZE, ObservationEncoder, action_mask
from arena.envs.pettingzoo import env
from arena_sdk import Bot, Decision, run
from engine import registry


class LinearAgent:
    """Scores every action with a fixed random linear function of the observation vector."""

    def __init__(self, num_actions: int, size: int = DEFAULT_SIZE, seed: int = 0) -> None:
        self.weights = np.random.default_rng(seed).standard_normal((num_actions, size), dtype=np.float32)

    def scores(self, vector: np.ndarray) -> np.ndarray:
        """One score per action id (your trained policy's logits would go here)."""
        return self.weights @ np.tanh(vector / 8)  # tanh: counts and ids of very different sizes

    def act(self, vector: np.ndarray, mask: np.ndarray) -> int:
        """The best-scoring action that the mask allows."""
        return int(np.argmax(np.where(mask == 1, self.scores(vector), -np.inf)))


def evaluate(game_id: str, players: int, episodes: int, seed: int) -> float:
    """The agent's mean payoff in seat 0 against random seats over `episodes` seeded games."""
    game, rng = env(game_id, players), random.Random(seed)
    agent = LinearAgent(registry.info(game_id).num_actions, seed=seed)
    total = 0.0
    for episode in range(episodes):
        game.reset(seed=seed + episode)
        for name in game.agent_iter():
            observation, reward, terminated, truncated, _ = game.last()
            if name == "player_0":
                total += reward
            if terminated or truncated:
                game.step(None)
            elif name == "player_0":
                game.step(agent.act(observation["observation"], observation["action_mask"]))
            else:
                game.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return total / episodes


class AgentBot(Bot):
    """The same agent behind the SDK: one agent per game, fed the env's encoding of each decision."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.encoder = ObservationEncoder()
        self.agents: dict[str, LinearAgent] = {}

    def decide(self, decision: Decision) -> int:
        if decision.game_id not in self.agents:
            self.agents[decision.game_id] = LinearAgent(registry.info(decision.game_id).num_actions, seed=self.seed)
        agent = self.agents[decision.game_id]
        mask = action_mask(decision.legal_actions, agent.weights.shape[0])
        return agent.act(self.encoder.encode(decision.observation), mask)


def main() -> None:
    parser = argparse.ArgumentParser(description="Evaluate an agent in the PettingZoo env, or play it as a bot.")
    commands = parser.add_subparsers(dest="command", required=True)
    rate = commands.add_parser("evaluate", help="mean payoff in seat 0 against random seats")
    rate.add_argument("--game", default="lost_cities_rivals", choices=registry.game_ids())
    rate.add_argument("--players", type=int, default=2)
    rate.add_argument("--episodes", type=int, default=10)
    rate.add_argument("--seed", type=int, default=0)
    play = commands.add_parser("play", help="connect to the arena's gateway through the SDK")
    play.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    play.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="bot token (default $ARENA_TOKEN)")
    play.add_argument("--matches", type=int, help="stop after this many matches (default: run until stopped)")
    play.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.command == "evaluate":
        try:
            payoff = evaluate(args.game, args.players, args.episodes, args.seed)
        except ValueError as error:  # a player count the game does not allow
            parser.error(str(error))
        print(f"{args.game} with {args.players} players: mean payoff {payoff:+.3f} over {args.episodes} episodes")
        return
    if not args.token:
        parser.error("give --token TOKEN (from `arena bot register NAME`) or set ARENA_TOKEN")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    played = run(args.address, args.token, AgentBot(args.seed), max_matches=args.matches,
                 client_name="pettingzoo-example/1.0")
    print(f"played {played} matches")


if __name__ == "__main__":
    main()
