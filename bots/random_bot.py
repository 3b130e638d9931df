"""The uniformly random bot: the floor of every leaderboard, and the stand-in for forfeited seats."""

from __future__ import annotations

from typing import Any

from bots.base import Bot


class RandomBot(Bot):
    """Picks a legal action uniformly at random with its own seeded generator."""

    name = "random"

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        return self.rng.choice(legal_actions)
