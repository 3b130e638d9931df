"""The ladder's matchmaking rule: which bots sit at the next table, chosen where a game tells the most.

Each table is built around one *focus* bot, then filled with opponents (docs/ladder.md states the
rule with its parameters):

1. **Nobody waits too long.** A bot that has not been seated for more than `wait_bound(N, k)`
   tables (WAIT_FACTOR × N / k, N bots in the field, k seats per table) is seated first, the longest
   waiting first, and the rest of the table too is filled with such bots before anyone else; so
   no bot waits more than (WAIT_FACTOR + 1) × N / k tables (`longest_wait`).
2. **A random share.** With probability EXPLORE the table is drawn uniformly at random (owners
   still apart), so no corner of the field is left unplayed whatever the ratings say.
3. **Uncertain bots first.** Otherwise the focus is the bot whose rating is least known: the widest
   95 % interval (a bot not rated yet counts as infinitely wide, so a new version is seated first;
   a rated one at most HALF_WIDTH_PER_GAME / sqrt(games) wide, since a one-sided interval says the
   bot is far from the others, not where it stands among them), discounted for the matches already
   planned for it but not yet rated — the interval narrows as 1/sqrt(games) — then fewest games.
   A rating is *provisional* while its interval is wider than ±PROVISIONAL_HALF_WIDTH
   (arena/store/records.py), the same rule as the leaderboard's mark.
   Ties (equal urgency and load) are broken at random.
4. **Close opponents.** Each seat left goes to a bot of another owner with the best *match
   quality* against those already seated (TrueSkill's two-player quality on the Elo scale: high
   when the ratings are close and well known), picked at random among the TOP best so that a pair
   is not repeated table after table.

Owners: two bots of one author (or two versions of one bot) never share a table.

The rule is computed on the field as arrays (`Pool`: numpy over every bot at once), so a choice
stays under a millisecond at 10,000 bots (bench/rating_fit.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from arena.store.records import is_provisional

EXPLORE = 0.1  # the share of tables drawn uniformly at random
WAIT_FACTOR = 3.0  # a bot waits at most WAIT_FACTOR × N / k tables for its next one
TOP = 3  # each seat goes to one of the TOP opponents of best quality, at random
PERFORMANCE_SD = 200.0  # β: the spread of one game's performance on the Elo scale (400-point logistic)
UNRATED_SD = 350.0  # the rating's standard deviation assumed for a bot not rated yet
Z95 = 1.959964  # half-width of a 95 % interval in standard deviations
UNRATED_WIDTH = 1e6  # the half-width a bot without a rating counts as (wider than any real one)
HALF_WIDTH_PER_GAME = 680.0  # a 95 % half-width against like opponents is about this / sqrt(games)


@dataclass(frozen=True)
class Candidate:
    """A bot the ladder may seat, as the matchmaker sees it."""

    name: str  # the entrant: `mybot@3` or a built-in spec (an anchor)
    owner: str  # who it belongs to: two of one owner never share a table
    elo: float | None = None  # None: not rated yet
    low: float = -math.inf  # its rating's 95 % interval
    high: float = math.inf
    games: int = 0  # rated games so far
    pending: int = 0  # matches planned for it but not rated yet
    waited: int = 0  # tables planned since it last sat at one (or since it joined)

    @property
    def provisional(self) -> bool:
        return self.elo is None or is_provisional(self.low, self.high)

    @property
    def half_width(self) -> float:
        if self.elo is None or not math.isfinite(self.high - self.low):
            return UNRATED_WIDTH
        return (self.high - self.low) / 2

    @property
    def urgency(self) -> float:
        """How little its place is known: its half-width, at most HALF_WIDTH_PER_GAME / sqrt(games) (an
        interval made one-sided by a bot that wins, or loses, nearly everything says it is far from
        the others, not that its order is unknown), shrunk for the matches planned but not yet rated."""
        width = (self.half_width if self.elo is None
                 else min(self.half_width, HALF_WIDTH_PER_GAME / math.sqrt(max(1, self.games))))
        return width * math.sqrt((self.games + 1) / (self.games + self.pending + 1))

    @property
    def sd(self) -> float:
        return UNRATED_SD if self.elo is None else min(UNRATED_SD, self.half_width / Z95)

    @property
    def mean(self) -> float:
        return 1500.0 if self.elo is None else self.elo


@dataclass(frozen=True)
class Table:
    """The next table: its bots in seat order of rotation 0, and which step of the rule chose it."""

    seats: tuple[str, ...]
    why: str  # "waited", "random" or "focus"


def wait_bound(field_size: int, players: int) -> int:
    """After how many tables without a seat a bot is seated first."""
    return max(1, math.ceil(WAIT_FACTOR * field_size / players))


def longest_wait(field_size: int, players: int) -> int:
    """The most tables a bot can wait: the bound, then at worst every other bot waited as long and
    is seated before it, k per table."""
    return wait_bound(field_size, players) + math.ceil(field_size / players)


def quality(a: Candidate, b: Candidate) -> float:
    """TrueSkill's match quality of two bots: the chance of a draw relative to the best case, 0..1."""
    spread = 2 * PERFORMANCE_SD**2 + a.sd**2 + b.sd**2
    return math.sqrt(2 * PERFORMANCE_SD**2 / spread) * math.exp(-((a.mean - b.mean) ** 2) / (2 * spread))


def can_fill(field: Sequence[Candidate], players: int) -> bool:
    """True when the field has `players` bots of distinct owners."""
    return len({c.owner for c in field}) >= players


class Pool:
    """The field as arrays, one entry per candidate in field order, so that choosing a table costs a
    few passes of numpy over the field instead of Python over every bot (≤ 1 ms at 10,000 bots).
    Build it when the field or its ratings change and keep `pending` and `waited` up to date with
    `seat` (the ladder's driver does)."""

    def __init__(self, field: Sequence[Candidate]) -> None:
        self.field = list(field)
        self.names = [c.name for c in field]
        owners: dict[str, int] = {}
        self.owner = np.array([owners.setdefault(c.owner, len(owners)) for c in field], dtype=np.int64)
        self.owners = len(owners)
        self.rated = np.array([c.elo is not None for c in field], dtype=bool)
        self.mean = np.array([c.mean for c in field], dtype=np.float64)
        self.half_width = np.array([c.half_width for c in field], dtype=np.float64)
        self.variance = np.array([c.sd for c in field], dtype=np.float64) ** 2
        self.spread = 2 * PERFORMANCE_SD**2 + self.variance  # quality's denominator, less the other's variance
        self.index = {name: i for i, name in enumerate(self.names)}
        self.games = np.array([c.games for c in field], dtype=np.float64)
        self.pending = np.array([c.pending for c in field], dtype=np.float64)
        self.waited = np.array([c.waited for c in field], dtype=np.int64)

    def urgency(self) -> npt.NDArray[np.float64]:
        """Candidate.urgency of every bot at once."""
        capped = np.minimum(self.half_width, HALF_WIDTH_PER_GAME / np.sqrt(np.maximum(1.0, self.games)))
        width = np.where(self.rated, capped, self.half_width)
        return np.asarray(width * np.sqrt((self.games + 1) / (self.games + self.pending + 1)), dtype=np.float64)

    def quality(self, seat: int) -> npt.NDArray[np.float64]:
        """quality(c, the bot at `seat`) for every c."""
        spread = self.spread + self.variance[seat]
        gap = self.mean - self.mean[seat]
        return np.asarray(np.sqrt(2 * PERFORMANCE_SD**2 / spread) * np.exp(-(gap * gap) / (2 * spread)),
                          dtype=np.float64)

    def seat(self, table: Table) -> None:
        """A table was planned: its bots waited 0 tables and have one more match pending, the others
        waited one more."""
        seated = [self.index[name] for name in table.seats]
        self.waited += 1
        self.waited[seated] = 0
        self.pending[seated] += 1


def next_table(field: Sequence[Candidate] | Pool, players: int, rng: random.Random) -> Table | None:
    """The next table of `players` bots by the rule above, or None when the field has too few owners."""
    pool = field if isinstance(field, Pool) else Pool(field)
    if pool.owners < players:
        return None
    bound = wait_bound(len(pool.names), players)
    waiting = np.flatnonzero(pool.waited > bound)
    if len(waiting):
        ordered = sorted(waiting.tolist(), key=lambda i: (-int(pool.waited[i]), pool.names[i]))
        return Table(_fill(pool, _distinct_owners(pool, ordered, players), players, rng), "waited")
    if rng.random() < EXPLORE:
        return Table(tuple(pool.names[i] for i in _random_owners(pool, players, rng)), "random")
    urgency = pool.urgency()
    most = np.flatnonzero(urgency == urgency.max())
    load = pool.games[most] + pool.pending[most]
    tied = most[load == load.min()].tolist()  # the rest of the tie is broken at random
    return Table(_fill(pool, [tied[rng.randrange(len(tied))]], players, rng), "focus")


def _distinct_owners(pool: Pool, ordered: Iterable[int], players: int) -> list[int]:
    """The first bots of `ordered`, at most `players`, no two of one owner."""
    chosen: list[int] = []
    for i in ordered:
        if len(chosen) == players:
            break
        if all(pool.owner[i] != pool.owner[c] for c in chosen):
            chosen.append(i)
    return chosen


def _random_owners(pool: Pool, players: int, rng: random.Random) -> list[int]:
    """`players` bots of distinct owners drawn uniformly, as the first ones of a shuffled field would
    be: bots are drawn at random, one already drawn or of an owner seated is drawn again (after a
    few dozen misses, the whole field is shuffled instead)."""
    n, chosen, drawn = len(pool.names), list[int](), set[int]()
    for _ in range(50 * players):
        i = rng.randrange(n)
        if i not in drawn:
            drawn.add(i)
            if all(pool.owner[i] != pool.owner[c] for c in chosen):
                chosen.append(i)
                if len(chosen) == players:
                    return chosen
    order = list(range(n))
    rng.shuffle(order)
    return _distinct_owners(pool, order, players)


def _fill(pool: Pool, seated: list[int], players: int, rng: random.Random) -> tuple[str, ...]:
    """`seated` and then, seat by seat, one of the TOP opponents of best quality against those seated
    (ties in field order)."""
    seated = list(seated)
    worst = np.full(len(pool.names), np.inf)
    for seat in seated:
        worst = np.minimum(worst, pool.quality(seat))
    while len(seated) < players:
        score = worst.copy()
        for seat in seated:
            score[pool.owner == pool.owner[seat]] = -np.inf  # never two of one owner
        top = min(TOP, pool.owners - len(seated))
        threshold = np.partition(score, len(score) - top)[len(score) - top]
        best = np.flatnonzero(score >= threshold)  # the TOP best and any tied with the last of them
        best = best[np.lexsort((best, -score[best]))][:top]  # ties in field order
        chosen = int(best[rng.randrange(len(best))])
        seated.append(chosen)
        worst = np.minimum(worst, pool.quality(chosen))
    return tuple(pool.names[i] for i in seated)
