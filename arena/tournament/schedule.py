"""Tournament schedules: which bots sit at which table, in which seat, with which seeds.

A round robin for a k-player game over N entrants plays every k-subset of the entrants (a
*table*) in all k cyclic seat rotations, and repeats that R times (*rounds*). Over one round
every entrant therefore sits in every seat equally often: C(N-1, k-1) times.

Duplicate play: the k rotations of one table share one chance seed, so the same deal / the same
dice reach every seat in turn, and luck is shared out between the bots at that table.

Seeds derive from the tournament seed and positions in the schedule (round, table, match index),
never from the order matches finish in, so a tournament is reproducible and resumes exactly.

When C(N, k) tables are too many (more than `max_tables` per round), a *balanced sample* is played
instead (see `balanced_tables`): tables are picked greedily so that every entrant sits at the same
number of tables (± 1; exactly equal when tables × k is a multiple of N — the table count is rounded
up to make it so), and among equally used entrants those that met least often so far are preferred,
which spreads the pairings out. Rotations still give every entrant every seat equally often.

A gauntlet is one challenger against a field: every table is the challenger plus a (k-1)-subset of
the field (sampled the same way when there are too many), in all rotations.

Entrants are bot specs with an optional `#label` that makes the same bot a distinct entrant:
`random#1`, `random#2`, `ismcts:sims=200#fast`. The label is part of the entrant's name (what is
rated); the spec before `#` is what plays.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.match.seeds import derive_seed

DEFAULT_MAX_TABLES = 5000  # tables per round before a round robin switches to a balanced sample
KINDS = ("round_robin", "gauntlet")


@dataclass(frozen=True)
class TournamentConfig:
    """What a tournament is: stored with it, and enough to rebuild its schedule exactly."""

    game_id: str
    players_per_match: int
    entrants: tuple[str, ...]
    rounds: int = 1
    seed: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    kind: str = "round_robin"
    challenger: str | None = None  # gauntlet only: the entrant that sits at every table
    max_tables: int = DEFAULT_MAX_TABLES
    time_per_move_ms: int | None = None
    gateway: str | None = None  # HOST:PORT of the gateway that connected entrants dial in to

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["entrants"] = list(self.entrants)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentConfig:
        return cls(**{**data, "entrants": tuple(data["entrants"])})


@dataclass(frozen=True)
class PlannedMatch:
    """One match of a schedule. `index` is its unique position; everything else follows from it."""

    index: int
    round: int
    table: int  # index of the table within the whole schedule
    rotation: int  # seat rotation 0..k-1 of the table
    seats: tuple[str, ...]  # entrant name per seat
    seed: int  # the match seed: bot seeds derive from it
    chance_seed: int  # shared by every rotation of the table (duplicate play)


def bot_spec(entrant: str) -> str:
    """The bot spec an entrant plays with: `random#2` -> `random`."""
    return entrant.split("#", 1)[0]


def free_label(spec: str, entrants: tuple[str, ...]) -> str:
    """The first `spec#N` (N = 2, 3, ...) that is not an entrant yet: `random` -> `random#2`."""
    return next(f"{spec}#{n}" for n in itertools.count(2) if f"{spec}#{n}" not in entrants)


def schedule(config: TournamentConfig) -> list[PlannedMatch]:
    """Every match of the tournament in index order."""
    check_config_shape(config)
    matches: list[PlannedMatch] = []
    for round_no, tables in enumerate(tables_per_round(config)):
        for table_in_round, table in enumerate(tables):
            table_id = round_no * len(tables) + table_in_round
            chance_seed = derive_seed(config.seed, "chance", round_no, table_id)
            for rotation in range(len(table)):
                index = len(matches)
                seats = tuple(table[rotation:] + table[:rotation])
                matches.append(
                    PlannedMatch(index, round_no, table_id, rotation, seats,
                                 derive_seed(config.seed, "match", index), chance_seed)
                )
    return matches


def check_config_shape(config: TournamentConfig) -> None:
    """ValueError with a one-line reason when the shape of the tournament is impossible."""
    k, entrants = config.players_per_match, config.entrants
    if config.kind not in KINDS:
        raise ValueError(f"unknown tournament kind {config.kind!r}; valid kinds: {', '.join(KINDS)}")
    if len(set(entrants)) != len(entrants):
        dup = next(e for e, n in Counter(entrants).items() if n > 1)
        raise ValueError(f"entrant {dup!r} is listed twice; add a label to enter a bot again, "
                         f"e.g. {free_label(bot_spec(dup), entrants)}")
    if config.rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {config.rounds}")
    if k < 2:
        raise ValueError(f"players per match must be at least 2, not {k}")
    if config.kind == "gauntlet" and config.challenger not in entrants:
        raise ValueError(f"the gauntlet challenger {config.challenger!r} must be one of the entrants")
    if k > len(entrants):
        raise ValueError(f"{k} players per match needs at least {k} bots, but {len(entrants)} were given")


def tables_per_round(config: TournamentConfig) -> list[list[list[str]]]:
    """The tables of each round; a table is a list of entrants in seat order of rotation 0."""
    k = config.players_per_match
    if config.kind == "gauntlet":
        assert config.challenger is not None
        field_ = [e for e in config.entrants if e != config.challenger]
        groups = _subsets_or_sample(field_, k - 1, config)
        return [[[config.challenger, *group] for group in tables] for tables in groups]
    return _subsets_or_sample(list(config.entrants), k, config)


def _subsets_or_sample(pool: list[str], size: int, config: TournamentConfig) -> list[list[list[str]]]:
    if math.comb(len(pool), size) <= config.max_tables:
        tables = [list(group) for group in itertools.combinations(pool, size)]
        return [tables for _ in range(config.rounds)]
    rng = random.Random(derive_seed(config.seed, "sample"))
    per_round = _balanced_table_count(len(pool), size, config.max_tables)
    sampled = balanced_tables(pool, size, per_round * config.rounds, rng)
    return [sampled[r * per_round:(r + 1) * per_round] for r in range(config.rounds)]


def _balanced_table_count(pool_size: int, size: int, limit: int) -> int:
    """`limit` rounded up so that tables × size is a multiple of the pool: equal appearances."""
    step = pool_size // math.gcd(pool_size, size)
    return max(step, math.ceil(limit / step) * step)


def balanced_tables(pool: Sequence[str], size: int, count: int, rng: random.Random) -> list[list[str]]:
    """`count` tables of `size` entrants each, every entrant used equally often (± 1).

    Greedy: each table takes entrants with the fewest appearances so far; ties go to those that
    met the table's members least often, then to a seeded coin. Seat order inside a table does not
    matter since every table is played in all rotations.
    """
    appearances = Counter({entrant: 0 for entrant in pool})
    met: Counter[tuple[str, str]] = Counter()
    tables = []
    for _ in range(count):
        table: list[str] = []
        noise = {e: rng.random() for e in pool}
        for _ in range(size):
            choice = min(
                (e for e in pool if e not in table),
                key=lambda e: (appearances[e], sum(met[_pair(e, m)] for m in table), noise[e]),
            )
            table.append(choice)
        for entrant in table:
            appearances[entrant] += 1
        met.update(_pair(a, b) for a, b in itertools.combinations(table, 2))
        tables.append(table)
    return tables


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def seat_counts(matches: Iterable[PlannedMatch]) -> Counter[tuple[str, int]]:
    """How often each (entrant, seat) occurs: the fairness check of a schedule."""
    return Counter((entrant, seat) for m in matches for seat, entrant in enumerate(m.seats))
