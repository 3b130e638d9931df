"""What an SPRT plays: its config, and the two games of each pair (duplicate play).

A pair is two games on one chance seed with A and B in swapped seats, so the luck of the deal
or the dice reaches both. On a k-player table (k > 2) the other k - 2 seats hold fixed
*reference* bots (`random#ref1`, ...), and the pair's score counts only who finished ahead of
whom between A and B: per game 1 (A ahead), ½ (level) or 0, so 0 to 2 points per pair, the
pentanomial cells the test is built on. Pair p puts A and B on the seats of the
(p mod C(k, 2))-th seat pair, in both orders, the references on the other seats in order: over
C(k, 2) pairs A and B sit in every seat equally often, always against the same references with
the same luck. Seeds derive from the test seed and the pair number, never from the order games
finish in, so a test is reproducible and resumes exactly.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.match.seeds import derive_seed
from arena.rating import pair_score
from arena.sprt.stats import MODELS
from arena.store import SPRT_KIND
from arena.tournament.schedule import PlannedMatch, TournamentConfig, bot_spec

DEFAULT_MAX_PAIRS = 100_000  # far beyond the expected length of any sensible test (docs/sprt.md)


@dataclass(frozen=True)
class SprtConfig:
    """What an SPRT is: stored as its tournament's config, enough to rebuild every pair."""

    game_id: str
    a: str
    b: str
    players_per_match: int = 2
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"
    max_pairs: int = DEFAULT_MAX_PAIRS
    seed: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    reference: str = "random"  # the bot on the other seats of a k-player table
    time_per_move_ms: int | None = None
    gateway: str | None = None

    @property
    def references(self) -> tuple[str, ...]:
        """The reference entrants on the seats A and B leave free: `random#ref1`, ..."""
        return tuple(f"{bot_spec(self.reference)}#ref{i + 1}" for i in range(self.players_per_match - 2))

    @property
    def entrants(self) -> tuple[str, ...]:
        return (self.a, self.b, *self.references)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "kind": SPRT_KIND, "entrants": list(self.entrants)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SprtConfig:
        return cls(**{k: v for k, v in data.items() if k not in ("kind", "entrants")})

    def as_tournament(self) -> TournamentConfig:
        """The round-robin config with the same game, seats and entrants: checked like one."""
        return TournamentConfig(
            game_id=self.game_id, players_per_match=self.players_per_match, entrants=self.entrants,
            seed=self.seed, options=self.options, time_per_move_ms=self.time_per_move_ms, gateway=self.gateway,
        )


def check_sprt_shape(config: SprtConfig) -> None:
    """ValueError with a one-line reason for test parameters that cannot work."""
    if config.a == config.b:
        raise ValueError(f"--a and --b are both {config.a!r}; label one to test a bot against itself, "
                         f"e.g. --b {config.b}#2")
    if config.model not in MODELS:
        raise ValueError(f"unknown --model {config.model!r}; valid models: {', '.join(MODELS)}")
    if not config.elo0 < config.elo1:
        raise ValueError(f"--elo0 must be below --elo1, not {config.elo0:g} and {config.elo1:g}")
    for name, value in (("alpha", config.alpha), ("beta", config.beta)):
        if not 0 < value < 0.5:
            raise ValueError(f"--{name} must be between 0 and 0.5 (exclusive), not {value:g}")
    if config.max_pairs < 1:
        raise ValueError(f"--max-pairs must be at least 1, not {config.max_pairs}")
    if config.players_per_match < 2:
        raise ValueError(f"players per match must be at least 2, not {config.players_per_match}")


def seat_pairs(players: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(players), 2))


def pair_matches(config: SprtConfig, pair: int) -> tuple[PlannedMatch, PlannedMatch]:
    """The two games of pair `pair` (match indexes 2·pair and 2·pair + 1), A and B swapped."""
    k = config.players_per_match
    first, second = seat_pairs(k)[pair % len(seat_pairs(k))]
    chance_seed = derive_seed(config.seed, "chance", pair)
    games = []
    for game, (a_seat, b_seat) in enumerate(((first, second), (second, first))):
        seats = list(config.references)
        seats.insert(min(a_seat, b_seat), config.a if a_seat < b_seat else config.b)
        seats.insert(max(a_seat, b_seat), config.b if a_seat < b_seat else config.a)
        index = 2 * pair + game
        games.append(PlannedMatch(index, pair, pair, game, tuple(seats), derive_seed(config.seed, "match", index),
                                  chance_seed))
    return games[0], games[1]


def game_points(config: SprtConfig, seats: tuple[str, ...], ranks: list[int]) -> float:
    """A's score against B in one game: 1 ahead, ½ level, 0 behind (by rank)."""
    return pair_score(ranks[seats.index(config.a)], ranks[seats.index(config.b)])
