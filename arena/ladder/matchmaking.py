"""The ladder's matchmaking rule: which bots sit at the next table, chosen where a game tells the most.

Each table is built around one *focus* bot, then filled with opponents (docs/ladder.md states the
rule with its parameters). What a table is worth is its *expected information*: how many pairs of
the field it is expected to put in the right order, from Elo's model at the current ratings.

1. **Nobody waits too long.** A bot that has not been seated for more than `wait_bound(N, k)`
   tables (WAIT_FACTOR × N / k, N bots in the field, k seats per table) is seated first, the longest
   waiting first, and the rest of the table too is filled with such bots before anyone else; so
   no bot waits more than (WAIT_FACTOR + 1) × N / k tables (`longest_wait`).
2. **A random share.** With probability EXPLORE the table is drawn uniformly at random (owners
   still apart), so no corner of the field is left unplayed whatever the ratings say.
3. **A new version first.** A bot not rated yet is the focus (the least planned for first, ties at
   random): nothing is known of its place.
4. **The most informative focus.** Otherwise the focus is the bot whose next even game removes the
   most expected misordered pairs (`Pool.focus_gain`): its neighbours (bots within ±NEIGHBOURHOOD
   of its rating, itself included) times the fall of its rating's standard deviation that one
   table's Fisher information would bring. The standard deviation is its 95 % interval / 1.96, at
   most HALF_WIDTH_PER_GAME / 1.96 / sqrt(games) (a one-sided interval says the bot is far from
   the others, not where it stands among them), narrowed for the matches already planned for it
   but not yet rated. A rating is *provisional* while its interval is wider than
   ±PROVISIONAL_HALF_WIDTH (arena/store/records.py), the same rule as the leaderboard's mark.
5. **The most informative opponents.** Each seat left goes to the bot of another owner that adds
   the most (`Pool.seat_gain`): for it and for each bot already seated, neighbours × the fall of
   the standard deviation, where a game between a and b tells a about
   1 / (1 / (k/(k-1) · c · p(1-p)) + σb²) (p from the Elo gap, c = (ln 10 / 400)²: the closer the
   ratings, the more; the better known the opponent, the more). Only the SHORTLIST bots nearest the
   focus in rating are weighed (a game far apart tells little: p(1-p) = 0.03 at 600 Elo). Picked
   at random among the TOP best so that one pair is not repeated table after table.

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
TOP = 2  # each seat goes to one of the TOP most informative opponents, at random
PERFORMANCE_SD = 200.0  # β: the spread of one game's performance on the Elo scale (400-point logistic)
UNRATED_SD = 350.0  # the rating's standard deviation assumed for a bot not rated yet
Z95 = 1.959964  # half-width of a 95 % interval in standard deviations
UNRATED_WIDTH = 1e6  # the half-width a bot without a rating counts as (wider than any real one)
HALF_WIDTH_PER_GAME = 680.0  # a 95 % half-width against like opponents is about this / sqrt(games)
ELO_INFO = (math.log(10) / 400) ** 2  # Fisher information of a game about a rating, per p(1-p)
PENDING_INFO = 0.2 * ELO_INFO  # what a planned match is expected to tell (p(1-p) of a close game)
SHORTLIST = 256  # opponents are chosen among the bots this close in rating order to the focus
NEIGHBOURHOOD = 100.0  # Elo: the bots a rating's error can misorder are those within ± this


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
    """TrueSkill's match quality of two bots: the chance of a draw relative to the best case, 0..1
    (the rule before expected information chose opponents by it; kept as a measure of a pairing)."""
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
        self.index = {name: i for i, name in enumerate(self.names)}
        self.games = np.array([c.games for c in field], dtype=np.float64)
        self.pending = np.array([c.pending for c in field], dtype=np.float64)
        self.waited = np.array([c.waited for c in field], dtype=np.int64)
        capped = np.minimum(self.half_width, HALF_WIDTH_PER_GAME / np.sqrt(np.maximum(1.0, self.games)))
        sd = np.where(self.rated, np.minimum(UNRATED_SD, capped / Z95), UNRATED_SD)
        self.rated_variance = sd * sd  # before the planned matches
        self.by_rating = np.argsort(self.mean, kind="stable")
        self.sorted_mean = self.mean[self.by_rating]
        self.neighbours = (np.searchsorted(self.sorted_mean, self.mean + NEIGHBOURHOOD, "right")
                           - np.searchsorted(self.sorted_mean, self.mean - NEIGHBOURHOOD, "left")).astype(np.float64)

    def variance(self, rows: npt.NDArray[np.int64] | list[int] | None = None) -> npt.NDArray[np.float64]:
        """Each rating's variance (of `rows`, default all) once its planned matches are rated
        (PENDING_INFO each)."""
        chosen = slice(None) if rows is None else rows
        rated = self.rated_variance[chosen]
        return np.asarray(rated / (1 + rated * self.pending[chosen] * PENDING_INFO), dtype=np.float64)

    def near(self, seat: int) -> npt.NDArray[np.int64]:
        """The SHORTLIST bots closest in rating to the bot at `seat` (all of a smaller field)."""
        if len(self.names) <= SHORTLIST:
            return np.arange(len(self.names))
        middle = int(np.searchsorted(self.sorted_mean, self.mean[seat]))
        start = min(max(0, middle - SHORTLIST // 2), len(self.names) - SHORTLIST)
        return np.asarray(self.by_rating[start:start + SHORTLIST], dtype=np.int64)

    def focus_gain(self, players: int) -> npt.NDArray[np.float64]:
        """Each bot's worth as the focus: neighbours × the fall of its standard deviation that a table
        of even games (p = ½) would bring."""
        variance = self.variance()
        after = 1 / (1 / variance + players * ELO_INFO / 4)
        return np.asarray(self.neighbours * (np.sqrt(variance) - np.sqrt(after)), dtype=np.float64)

    def seat(self, table: Table, matches: int = 1) -> None:
        """A table was planned: its bots waited 0 tables and have `matches` more pending, the others
        waited one more."""
        seated = [self.index[name] for name in table.seats]
        self.waited += 1
        self.waited[seated] = 0
        self.pending[seated] += matches

    def count_pending(self, names: Iterable[str], change: int) -> None:
        """`change` more matches pending (fewer, when negative) for each of `names` in the pool (a bot
        not in it is not the matchmaker's concern)."""
        rows = [self.index[name] for name in names if name in self.index]
        self.pending[rows] += change


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
    unrated = np.flatnonzero(~pool.rated)
    if len(unrated):
        load = pool.games[unrated] + pool.pending[unrated]
        tied = unrated[load == load.min()].tolist()
    else:
        gain = pool.focus_gain(players)
        tied = np.flatnonzero(gain == gain.max()).tolist()
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


def pair_info(gap: npt.NDArray[np.float64] | float, players: int) -> npt.NDArray[np.float64]:
    """Fisher information a table of `players` gives about the rating gap of two of its bots: they
    meet in every rotation, weighted 1/(k-1); p(1-p) from the gap by Elo's formula."""
    odds = np.exp(-np.abs(gap) * (math.log(10) / 400))
    return np.asarray(players / (players - 1) * ELO_INFO * odds / (1 + odds) ** 2, dtype=np.float64)


class _Table:
    """A table being filled, its next seat chosen among `rows`: for each bot seated, the information
    its tablemates give about it."""

    def __init__(self, pool: Pool, players: int, rows: npt.NDArray[np.int64]) -> None:
        self.pool, self.players, self.rows = pool, players, rows
        self.variance = pool.variance(rows)
        self.neighbours = pool.neighbours[rows]
        self.seated: list[int] = []
        self.told: list[float] = []  # information about each seated bot from those seated with it
        self.infos: list[npt.NDArray[np.float64]] = []  # each seated bot's pair_info with every row

    def gain(self) -> npt.NDArray[np.float64]:
        """For every row: the expected misordered pairs removed if it took the next seat
        (neighbours × the fall of the standard deviation, its own and each seated bot's)."""
        variance = self.variance
        told_new = np.zeros(len(self.rows))
        gain = np.zeros(len(self.rows))
        for seat, told, info in zip(self.seated, self.told, self.infos, strict=True):
            seat_variance = float(self.pool.variance([seat])[0])
            about_seat = 1 / (1 / info + variance)  # what each row would tell about `seat`
            told_new += 1 / (1 / info + seat_variance)  # and `seat` about it
            before = 1 / math.sqrt(1 / seat_variance + told)
            gain += self.pool.neighbours[seat] * (before - 1 / np.sqrt(1 / seat_variance + told + about_seat))
        own = np.sqrt(variance) - 1 / np.sqrt(1 / variance + told_new)
        return np.asarray(gain + self.neighbours * own, dtype=np.float64)

    def add(self, seat: int, full: bool = False) -> None:
        """Seat `seat`: what it and each bot seated before tell about one another (`full`: the last
        seat, after which no gain is asked)."""
        pool, variance = self.pool, self.pool.variance(self.seated + [seat])
        told_seat = 0.0
        for k, other in enumerate(self.seated):
            info = float(pair_info(pool.mean[seat] - pool.mean[other], self.players))
            self.told[k] += 1 / (1 / info + variance[-1])
            told_seat += 1 / (1 / info + variance[k])
        self.seated.append(seat)
        self.told.append(told_seat)
        if not full:
            self.infos.append(pair_info(pool.mean[self.rows] - pool.mean[seat], self.players))


def seat_gains(pool: Pool, seated: Sequence[str], players: int) -> npt.NDArray[np.float64]:
    """For every bot of the pool, what its seat at a table of `players` with `seated` would add: the
    expected misordered pairs it removes (the rule's step 5, before owners and TOP)."""
    table = _Table(pool, players, np.arange(len(pool.names)))
    for name in seated:
        table.add(pool.index[name])
    return table.gain()


def _fill(pool: Pool, seated: list[int], players: int, rng: random.Random) -> tuple[str, ...]:
    """`seated` and then, seat by seat, one of the TOP bots (of owners not seated yet) among the
    focus's SHORTLIST whose seat adds the most information (ties in rating order)."""
    rows = pool.near(seated[0])
    if len(np.unique(pool.owner[rows])) < players:
        rows = np.arange(len(pool.names))  # too few owners close by: the whole field
    table = _Table(pool, players, rows)
    for i, seat in enumerate(seated):
        table.add(seat, full=len(seated) == players and i == players - 1)
    owners = pool.owner[rows]
    while len(table.seated) < players:
        score = table.gain()
        for seat in table.seated:
            score[owners == pool.owner[seat]] = -np.inf  # never two of one owner
        top = min(TOP, len(np.unique(owners)) - len(table.seated))
        threshold = np.partition(score, len(score) - top)[len(score) - top]
        best = np.flatnonzero(score >= threshold)  # the TOP best and any tied with the last of them
        best = best[np.lexsort((best, -score[best]))][:top]
        table.add(int(rows[best[rng.randrange(len(best))]]), full=len(table.seated) == players - 1)
    return tuple(pool.names[i] for i in table.seated)
