"""Elo ratings (the `elo` package) per game ruleset, and how sure each rating is.

A k-player result counts as the pairwise results by rank: against each other seat a bot scores
1 (ranked better), ½ (tied) or 0 (ranked worse). The K factor is divided by k-1, so a k-player
match moves a rating at most as far as one two-player game (K = 16).

Ratings are a function of the stored matches taken in rating order, (tournament id, match index),
never in the order they finished: `rate_matches` recomputes them from the store, and the
`InOrderRater` used while a tournament runs holds back early finishers until the matches before
them are in, so both give the same numbers.

The error bar beside each rating is the half-width of a 95 % interval from a maximum-likelihood
Bradley-Terry fit of the same pairwise results (each pair weighted 1/(k-1) like the K factor):
±1.96 standard errors of the bot's strength with the other bots' strengths held at their fitted
values, i.e. from the bot's own Fisher information (as bayeselo reports its margins). So a bar
measures how well the bot's own games pin its rating and shrinks as 1/sqrt(games). (Measured
against the field's mean instead, every bar carries a share of the least-known bot's
uncertainty: one bot that never wins keeps everyone's bar above ±110 however many games are
played.) To compare two bots directly, read the LOS column or the head-to-head page. As in
bayeselo, every pair of bots that met gets one virtual draw (a prior that keeps an undefeated
bot's strength and error bar finite without pulling well-measured gaps).
Aborted matches are not rated; a seat that faulted keeps the rank the match gave it and the fault
is counted beside the rating.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from elo import Elo

from arena.store import RatedMatch, RatingEntry, Store

K_FACTOR = 16.0
INITIAL = 1500.0
BETA = 200.0  # the elo package's logistic uses 10 ** (diff / (2 * beta)): 400 is the classic scale
ELO_PER_NATURAL = 400 / math.log(10)  # Elo points per unit of the Bradley-Terry log-strength
PRIOR_DRAWS = 1.0  # virtual draws per pair of bots that met
RIDGE = 1e-6  # only fixes the field's mean: strengths are defined up to a constant
Z95 = 1.96


def pair_score(rank: int, other_rank: int) -> float:
    """1 for the better rank (1 is best), ½ for a tie, 0 for the worse."""
    return 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0


@dataclass
class EloRating:
    """Sequential Elo over matches applied in order; keeps games, wins, faults and the history."""

    k_factor: float = K_FACTOR
    initial: float = INITIAL
    ratings: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    wins: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    faults: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    history: list[tuple[int, int, str, float]] = field(default_factory=list)  # position, match, entrant, elo
    matches: int = 0  # matches applied so far: the position of the next one
    _envs: dict[int, Elo] = field(default_factory=dict)

    def apply(self, match: RatedMatch) -> None:
        """Rate one match: every seat against every other seat by rank, K scaled by 1/(k-1)."""
        before = [self.ratings.get(e, self.initial) for e in match.entrants]
        env = self._env(len(match.entrants))
        winners = sum(rank == 1 for rank in match.ranks)
        for i, entrant in enumerate(match.entrants):
            series = [(pair_score(match.ranks[i], match.ranks[j]), before[j])
                      for j in range(len(before)) if j != i]
            self.ratings[entrant] = float(env.rate(before[i], series))
            self.games[entrant] += 1
            self.wins[entrant] += 1 / winners if match.ranks[i] == 1 else 0.0
            self.faults[entrant] += match.faults[i]
            self.history.append((self.matches, match.match_id, entrant, self.ratings[entrant]))
        self.matches += 1

    def _env(self, players: int) -> Elo:
        if players not in self._envs:
            self._envs[players] = Elo(k_factor=self.k_factor / (players - 1), initial=self.initial, beta=BETA)
        return self._envs[players]

    def entries(self, errors: dict[str, float]) -> list[RatingEntry]:
        """The rating table, best first."""
        return sorted(
            (RatingEntry(e, r, errors.get(e, math.inf), self.games[e], self.wins[e], self.faults[e])
             for e, r in self.ratings.items()),
            key=lambda entry: (-entry.elo, entry.entrant),
        )


def rate_matches(matches: Iterable[RatedMatch], k_factor: float = K_FACTOR) -> EloRating:
    """Elo from scratch over matches sorted into rating order."""
    rating = EloRating(k_factor=k_factor)
    for match in sorted(matches, key=lambda m: m.order):
        rating.apply(match)
    return rating


class InOrderRater:
    """Online Elo for results arriving in any order: applies them strictly in rating order.

    `expected` is every order key that will arrive (rated or not); `add(key, match)` with
    match None marks a key that will not be rated (an aborted match).
    """

    def __init__(self, expected: Iterable[tuple[int, int]], rating: EloRating | None = None) -> None:
        self.rating = rating or EloRating()
        self._waiting = sorted(expected, reverse=True)  # next key to apply at the end
        self._arrived: dict[tuple[int, int], RatedMatch | None] = {}

    def add(self, key: tuple[int, int], match: RatedMatch | None) -> None:
        self._arrived[key] = match
        while self._waiting and self._waiting[-1] in self._arrived:
            ready = self._arrived.pop(self._waiting.pop())
            if ready is not None:
                self.rating.apply(ready)

    @property
    def pending(self) -> int:
        """Results held back until an earlier match finishes."""
        return len(self._arrived)


def error_bars(matches: Sequence[RatedMatch]) -> dict[str, float]:
    """95 % half-widths in Elo points from a Bradley-Terry fit of the pairwise results."""
    names = sorted({e for m in matches for e in m.entrants})
    if len(names) < 2:
        return {name: math.inf for name in names}
    index = {name: i for i, name in enumerate(names)}
    weights, scores = _pairwise_totals(matches, index)
    for pair in weights:
        weights[pair] += PRIOR_DRAWS
        scores[pair] += PRIOR_DRAWS / 2
    _, hessian = _fit(len(names), weights, scores)
    return {name: Z95 * ELO_PER_NATURAL / math.sqrt(hessian[i][i]) for name, i in index.items()}


def _pairwise_totals(matches: Sequence[RatedMatch], index: dict[str, int]):  # noqa: ANN202
    weights: dict[tuple[int, int], float] = defaultdict(float)  # (a, b) with a < b
    scores: dict[tuple[int, int], float] = defaultdict(float)  # a's weighted score against b
    for match in matches:
        w = 1 / (len(match.entrants) - 1)
        for i, a in enumerate(match.entrants):
            for j in range(i + 1, len(match.entrants)):
                ia, ib = index[a], index[match.entrants[j]]
                s = pair_score(match.ranks[i], match.ranks[j])
                if ia > ib:
                    ia, ib, s = ib, ia, 1 - s
                weights[ia, ib] += w
                scores[ia, ib] += w * s
    return weights, scores


def _fit(n: int, weights: dict, scores: dict) -> tuple[list[float], list[list[float]]]:
    """Newton's method on the log-likelihood (with the virtual draws); strengths and the Hessian."""
    prior = RIDGE
    theta = [0.0] * n
    for _ in range(100):
        gradient = [-prior * t for t in theta]
        hessian = [[prior if a == b else 0.0 for b in range(n)] for a in range(n)]
        for (a, b), w in weights.items():
            p = 1 / (1 + math.exp(theta[b] - theta[a]))
            gradient[a] += scores[a, b] - w * p
            gradient[b] -= scores[a, b] - w * p
            info = w * p * (1 - p)
            hessian[a][a] += info
            hessian[b][b] += info
            hessian[a][b] -= info
            hessian[b][a] -= info
        step = _solve(hessian, gradient)
        theta = [t + s for t, s in zip(theta, step)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return theta, hessian


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    augmented = [row[:] + [v] for row, v in zip(matrix, vector)]
    return [row[-1] for row in _gauss_jordan(augmented, len(vector))]


def _gauss_jordan(rows: list[list[float]], n: int) -> list[list[float]]:
    """Reduce [A | B] to [I | A⁻¹B] with partial pivoting (A is positive definite here)."""
    for col_ in range(n):
        pivot = max(range(col_, n), key=lambda r: abs(rows[r][col_]))
        rows[col_], rows[pivot] = rows[pivot], rows[col_]
        lead = rows[col_][col_]
        rows[col_] = [v / lead for v in rows[col_]]
        for r in range(n):
            if r != col_ and rows[r][col_] != 0.0:
                factor = rows[r][col_]
                rows[r] = [v - factor * p for v, p in zip(rows[r], rows[col_])]
    return rows


def rerate(store: Store, ruleset: str) -> list[RatingEntry]:
    """Recompute a ruleset's ratings and history from its stored matches and store them."""
    matches = store.rated_matches(ruleset)
    rating = rate_matches(matches)
    entries = rating.entries(error_bars(matches))
    store.replace_ratings(ruleset, ruleset.split("@", 1)[0], entries, rating.history)
    return entries
