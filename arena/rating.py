"""Elo ratings per game ruleset: Elo's model fitted to all stored results, with likelihood intervals.

A k-player result counts as the pairwise results by rank: against each other seat a bot scores
1 (ranked better), ½ (tied) or 0 (ranked worse), each weighted 1/(k-1), so one k-player match
weighs as much as one two-player game.

The rating is the one that fits Elo's model best to every stored result of the ruleset at once:
the ratings at which each bot's expected score (Elo's formula on the 400-point scale, from the
`elo` package) summed over its games equals the score it made. This is the maximum-likelihood
Bradley-Terry fit that bayeselo and Ordo rate chess engines with. Sequential Elo (each result
moving two ratings by K) is not used for the table: for bots of fixed strength its numbers depend
on the order the results came in and never settle (two bots with a true score of 0.7, K = 16: the
gap between them keeps a standard deviation of 54 Elo however many games are played). The fit
depends only on the results and tightens as 1/sqrt(games). The field's mean is 1500 (each group of
bots that are connected by games has mean 1500: nothing in the results places one group against
another). As in bayeselo, every pair of bots that met gets one virtual draw: a prior that keeps the
rating of a bot that never lost (or never won) finite.

The interval beside each rating is a 95 % likelihood interval: the ratings at which the
log-likelihood falls 1.92 (half the 95 % point of chi-square with one degree of freedom) below
its best, moving that bot alone with the others at their fitted ratings, so it measures how well
the bot's own games pin its rating (as bayeselo's margins do). Where the data are one-sided it is
one-sided too: a bot that lost every game is bounded sharply from above and only loosely (by the
prior) from below.

The fit only needs each pair's totals (games and score, `Store.pair_chunks`) and is computed for
all bots at once (arena/rating_fit/: Newton's method with a sparse solve, the intervals by a
bracketed Newton root find per bot). A live rerate (`LiveRate`, used by the drivers' LiveRerate)
keeps the totals in memory, adds each new batch of results and refits from the ratings before,
to LIVE_TOLERANCE (0.05 Elo: usually two Newton steps); each interval keeps its distances to the
rating, those of a bot that played scaled by its curvature (width ~ 1/sqrt(curvature)). Every
EXACT_EVERY-th live rerate, and every full rerate (a run's end, `arena leaderboard --rerate`),
fits to convergence and finds every interval again.

A live rerate writes only the ratings that changed since it last wrote them (new counts, or a
rating or interval end moved by more than WRITE_TOLERANCE, the live fit's own tolerance): the stored
table lags the one in memory by at most that, and a live update of a big field writes the bots
that played, not the field.

The rating history gets one point per rerate (the fit over every match rated then; position: the
number of rated matches - 1), never recomputed from the start: a full rerate stores every entrant
there, a live one the entrants whose rating it writes, and a chart carries a bot's last value over
the points without its row (arena/store/rating_history.py). The newest point replaces the one
before it while that one is less than 1/HISTORY_POINTS of the matches past its own predecessor, and
when a ruleset has more than 2 * HISTORY_POINTS points every other older one is dropped, so a chart
keeps between HISTORY_POINTS and 2 * HISTORY_POINTS points and ends at the table's number.
The newest point that is replaced moves on to the new position as one row (the entrants' rows
stay with it), so a live update writes the entrants that changed, whatever the field's size.

Aborted matches are not rated; a seat that faulted keeps the rank the match gave it, and beside the
rating are counted its strikes (faulty decisions) and forfeits (matches whose seat ended in a
fault) apart: three timeouts in one match are 3 strikes and 1 forfeit.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from elo import Elo

from arena.rating_fit import (
    HALF_CHI2_95,
    INITIAL,
    LIVE_TOLERANCE,
    PRIOR_DRAWS,
    TOLERANCE,
    Floats,
    PairArrays,
    Pairs,
    curvature,
    fit_array,
    intervals,
    local_enough,
    local_update,
)
from arena.store import EntrantTotal, PairColumns, RatedMatch, RatingEntry, Store, match_pairs, pair_score

__all__ = ["HALF_CHI2_95", "HISTORY_POINTS", "INITIAL", "PRIOR_DRAWS", "LiveRate", "Results", "expected", "fit",
           "history_drops", "pair_score", "rate_matches", "rate_tournament", "rating_table", "rerate",
           "tournament_matches"]

BETA = 200.0  # the elo package's logistic uses 10 ** (diff / (2 * beta)): 400 is the classic scale
HISTORY_POINTS = 200
EXACT_EVERY = 10  # a live rerate fits to convergence and finds every interval again after this many updates
WRITE_TOLERANCE = LIVE_TOLERANCE  # Elo a stored rating may lag the live table by before it is written again
MODEL = Elo(initial=INITIAL, beta=BETA)


class Results(PairArrays):
    """The pair totals and counts of arena/rating_fit/, added to from rated matches or from the
    store's totals (Store.pair_chunks and Store.entrant_totals of one ruleset)."""

    def add(self, match: RatedMatch) -> None:
        self.add_matches([match])

    def add_matches(self, matches: Iterable[RatedMatch]) -> None:
        """Rated matches' counts, and their pairs gathered into one `add_pairs`."""
        firsts: list[str] = []
        seconds: list[str] = []
        weights: list[float] = []
        scores: list[float] = []
        for match in matches:
            winners = sum(rank == 1 for rank in match.ranks)
            for i, name in enumerate(match.entrants):
                self.bot(name)
                self.games[name] += 1
                self.wins[name] += 1 / winners if match.ranks[i] == 1 else 0.0
                self.strikes[name] += match.strikes[i]
                self.forfeits[name] += match.forfeits[i]
            for first, second, weight, score in match_pairs(match):
                firsts.append(first)
                seconds.append(second)
                weights.append(weight)
                scores.append(score)
        if firsts:
            self.add_pairs(firsts, seconds, weights, scores)

    def add_totals(self, pairs: Iterable[PairColumns], entrants: Iterable[EntrantTotal]) -> None:
        """Stored totals: the pairs in chunks of columns (Store.pair_chunks), the entrants' counts."""
        for total in entrants:
            self.bot(total.entrant)
            self.games[total.entrant] += total.games
            self.wins[total.entrant] += total.wins
            self.strikes[total.entrant] += total.strikes
            self.forfeits[total.entrant] += total.forfeits
        self.add_columns(pairs)


def expected(rating: float, other: float) -> float:
    """Elo's expected score of `rating` against `other`."""
    return float(MODEL.expect(rating, other))


def fit(results: Results, start: dict[str, float] | None = None, tolerance: float = TOLERANCE) -> dict[str, float]:
    """Maximum-likelihood ratings by name; `start` (an earlier fit) makes it faster; `tolerance`:
    LIVE_TOLERANCE for a live update (arena/rating_fit/)."""
    known = start or {}
    ratings = fit_array(results, np.array([known.get(name, INITIAL) for name in results.names]), tolerance)
    return dict(zip(results.names, ratings.tolist(), strict=True))


def rating_table(results: Results, ratings: dict[str, float], before: dict[str, RatingEntry] | None = None,
                 played: set[str] | None = None, guesses: dict[str, RatingEntry] | None = None) -> list[RatingEntry]:
    """The rating table, best first, with every interval found by root finding (from `guesses`' if
    given: an earlier table's, whose distances to the rating are close); or, given `before` (the
    last table, computed from `results` before the latest ones) and `played` (who has results
    since), a live update of it: an interval keeps its distances to the rating; a bot that played
    takes one Newton step of the root finder from its old distances scaled by how much its games'
    curvature grew (width ~ 1/sqrt(curvature)); a bot not in `before` gets its interval found."""
    values = np.array([ratings[name] for name in results.names])
    bend = curvature(results, values)
    if before is None:
        low, high = intervals(results, values, guesses=None if guesses is None else distances(guesses, results.names))
    else:
        low, high = _live_intervals(results, values, bend, before, played or set())
    results.curvature = bend
    return sorted((table_entry(results, name, float(values[i]), float(low[i]), float(high[i]))
                   for i, name in enumerate(results.names)), key=lambda e: (-e.elo, e.entrant))


def table_entry(results: Results, name: str, elo: float, low: float, high: float) -> RatingEntry:
    return RatingEntry(name, elo, low, high, results.games[name], results.wins[name], results.strikes[name],
                       results.forfeits[name])


def distances(table: dict[str, RatingEntry], names: list[str]) -> tuple[Floats, Floats]:
    """Each bot's interval ends' distances to its rating in `table` (nan where it has none; inf for a
    bot that met nobody)."""
    below = np.array([table[n].elo - table[n].low if n in table else np.nan for n in names])
    above = np.array([table[n].high - table[n].elo if n in table else np.nan for n in names])
    return below, above


def _live_intervals(results: Results, values: Floats, bend: Floats, before: dict[str, RatingEntry],
                    played: set[str]) -> tuple[Floats, Floats]:
    names, was = results.names, results.curvature
    fresh = np.array([name not in before for name in names])
    again = np.array([name in played for name in names]) & ~fresh
    below, above = distances(before, names)
    known = np.zeros(len(names), bool)
    known[:len(was)] = True
    scale = np.ones(len(names))
    grew = again & known & (bend > 0)
    scale[grew] = np.sqrt(was[np.flatnonzero(grew)] / bend[grew])
    low, high = values - below * scale, values + above * scale
    if again.any():
        step_low, step_high = intervals(results, values, again, (below * scale, above * scale), steps=1)
        low[again], high[again] = step_low[again], step_high[again]
    if fresh.any():
        new_low, new_high = intervals(results, values, fresh)
        low[fresh], high[fresh] = new_low[fresh], new_high[fresh]
    return low, high


def rate_matches(matches: Iterable[RatedMatch]) -> list[RatingEntry]:
    """The rating table of these matches (their order does not matter)."""
    results = Results()
    results.add_matches(matches)
    return rating_table(results, fit(results))


def tournament_matches(store: Store, tournament_id: int, ruleset: str) -> list[RatedMatch]:
    """One tournament's rated (finished) matches of a ruleset, in rating order."""
    return [m for m in store.rated_matches(ruleset) if m.order[0] == tournament_id]


def rate_tournament(store: Store, tournament_id: int, ruleset: str) -> list[RatingEntry]:
    """The rating table of one tournament's matches alone (the leaderboard rates every stored match)."""
    return rate_matches(tournament_matches(store, tournament_id, ruleset))


def history_drops(positions: list[int], position: int, points: int = HISTORY_POINTS) -> list[int]:
    """The stored history positions (ascending) to delete before a point at `position` is added."""
    drop = [p for p in positions[-1:] if p >= position]  # a rerate with nothing new replaces its point
    kept = positions[:len(positions) - len(drop)]
    if len(kept) >= 2 and kept[-1] - kept[-2] < max(1, (kept[-2] + 1) // points):
        drop.append(kept.pop())  # the newest point was too close to its predecessor: it moves on
    if len(kept) + 1 > 2 * points:
        drop += kept[1::2]  # every other older point (the first kept)
    return drop


def rerate(store: Store, ruleset: str) -> list[RatingEntry]:
    """Recompute a ruleset's ratings from its stored totals, store them and a history point."""
    once = LiveRate(store, ruleset, live=False)
    once.rerate()
    return once.entries()


class LiveRate:
    """A ruleset's totals, ratings and history positions in memory: `add` the results as they are
    written, `rerate` refits and writes the table and a history point.

    Its first rerate fits from the stored ratings (their intervals as the root finder's first
    guesses) and writes the whole table (every rating replaced, every entrant at the point). Each
    later one is a live update: local (arena/rating_fit/local.py: each bot that played moved alone,
    over the new results only) while the new results are a small share of every such bot's games,
    else a refit from the ratings before to LIVE_TOLERANCE; every EXACT_EVERY-th is an exact fit.
    A live update writes only the entrants whose rating changed since it last wrote them
    (`changed`): after a few matches of a big field a few rows, not the field."""

    def __init__(self, store: Store, ruleset: str, *, live: bool = True) -> None:
        """`live`: results will be added (else one rerate, `rerate`'s: nothing kept for adding)."""
        self.store, self.ruleset = store, ruleset
        self.results = Results()
        self.results.add_totals(store.pair_chunks(ruleset), store.entrant_totals(ruleset))
        if live:
            self.results.fresh = []  # from here on the terms each update adds are kept for the local one
            self.results.reindex()  # the pairs' keys sorted now: the first live update finds them at once
        self.count, self.newest = store.rated_span(ruleset)
        self.positions = store.history_positions(ruleset)
        self.stored = store.stored_ratings(ruleset)  # where the first fit starts
        self.ratings: dict[str, float] = {}
        self.table: dict[str, RatingEntry] | None = None
        self.written: dict[str, RatingEntry] | None = None  # the ratings as this object last stored them
        self.played: set[str] = set()
        self.updated: list[RatingEntry] = []  # the entries the last update made (the others stayed)
        self.changed = True
        self.updates = 0  # live updates since the last exact table
        self.local = 0  # local ones since the last fit (exact or live)
        self.fitted, self.added = np.zeros(0), np.zeros(0)  # curvature at the last fit; what local updates added

    def add(self, matches: Iterable[RatedMatch]) -> None:
        matches = list(matches)
        self.results.add_matches(matches)
        for match in matches:
            self.played.update(match.entrants)
        self.count += len(matches)
        self.changed = self.changed or bool(matches)

    def entries(self) -> list[RatingEntry]:
        """The table as the last rerate left it, best first."""
        return sorted((self.table or {}).values(), key=lambda entry: (-entry.elo, entry.entrant))

    def rerate(self) -> None:
        """Update the table with the results added since (or fit it, the first time) and write it."""
        if self.changed or self.table is None:
            self._update()
        assert self.table is not None
        updated = list(self.table.values()) if self.written is None else self.updated
        newest = self.store.newest_match_id(self.ruleset)
        point = None if self.count == 0 or newest is None else (self.count - 1, newest)
        drop = history_drops(self.positions, point[0]) if point else []
        written = self.written
        moved = updated if written is None else [e for e in updated if changed(written.get(e.entrant), e)]
        self.store.write_ratings(self.ruleset, self.ruleset.split("@", 1)[0], moved, point, drop,
                                 every=written is None)
        self.written = {**(written or {}), **{e.entrant: e for e in moved}}
        self.positions = sorted(set(self.positions) - set(drop) | ({point[0]} if point else set()))

    def _update(self) -> None:
        terms, results, table = self.results.take_fresh(), self.results, self.table
        values = np.array([self.ratings.get(name, INITIAL) for name in results.names])
        if table is None or self.updates >= EXACT_EVERY:
            start = self.ratings or {name: e.elo for name, e in self.stored.items()}
            self.ratings = fit(results, start or None, TOLERANCE)
            entries = rating_table(results, self.ratings, guesses=table or self.stored)
            self.updates = self.local = 0
        elif local_enough(terms, values, self.fitted, self.added):
            entries = self._local_entries(terms, values, table)
            self.updates, self.local = self.updates + 1, self.local + 1
        else:
            self.ratings = fit(results, self.ratings, LIVE_TOLERANCE)
            entries = rating_table(results, self.ratings, table, self.played)
            self.updates, self.local = self.updates + 1, 0
        if self.local == 0:  # a fit: the local updates' reference from here on
            self.fitted, self.added = results.curvature.copy(), np.zeros(len(results.names))
        self.table = {**(table or {}), **{e.entrant: e for e in entries}}
        self.updated, self.played, self.changed = entries, set(), False

    def _local_entries(self, terms: Pairs, values: Floats, table: dict[str, RatingEntry]) -> list[RatingEntry]:
        """The table's entries of the bots that played, after a local update: each interval keeps
        its distances to the rating, scaled by how much its curvature grew (width ~ 1/sqrt)."""
        results, was = self.results, self.results.curvature
        moved, bend = local_update(terms, values, was)
        results.curvature, self.added = bend, self.added + (bend - was)
        entries = []
        played = np.union1d(terms[0], terms[1])  # their scales and ratings as floats at once, not numpy scalars
        for i, elo, scale in zip(played.tolist(), moved[played].tolist(), np.sqrt(was[played] / bend[played]).tolist(),
                                 strict=True):
            name = results.names[i]
            before = table[name]
            self.ratings[name] = elo
            entries.append(table_entry(results, name, elo, elo - (before.elo - before.low) * scale,
                                       elo + (before.high - before.elo) * scale))
        return entries


def changed(stored: RatingEntry | None, entry: RatingEntry) -> bool:
    """Whether a rating must be written again: new, other counts, or its rating or an interval end
    moved by more than WRITE_TOLERANCE (the live fit's own tolerance, half the charts' 0.1 Elo)."""
    if stored is None or (stored.games, stored.wins, stored.strikes, stored.forfeits) != (
            entry.games, entry.wins, entry.strikes, entry.forfeits):
        return True
    return any(not (old == new or abs(old - new) <= WRITE_TOLERANCE)
               for old, new in ((stored.elo, entry.elo), (stored.low, entry.low), (stored.high, entry.high)))
