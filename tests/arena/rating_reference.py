"""THE REFERENCE: arena/rating.py as it was before the vectorized fit (arena/rating_fit/), bot by bot
in plain Python, kept to check the new numbers against (tests/arena/test_rating_reference.py) and to
time them side by side (bench/rating_fit.py). Not used by the arena.

Elo ratings per game ruleset: Elo's model fitted to all stored results, with likelihood intervals.

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
depends only on the results and tightens as 1/sqrt(games). The field's mean is 1500. As in
bayeselo, every pair of bots that met gets one virtual draw: a prior that keeps the rating of a
bot that never lost (or never won) finite.

The interval beside each rating is a 95 % likelihood interval: the ratings at which the
log-likelihood falls 1.92 (half the 95 % point of chi-square with one degree of freedom) below
its best, moving that bot alone with the others at their fitted ratings, so it measures how well
the bot's own games pin its rating (as bayeselo's margins do). Where the data are one-sided it is
one-sided too: a bot that lost every game is bounded sharply from above and only loosely (by the
prior) from below.

The rating history is the same fit over the first n matches in rating order (tournament id, match
index), at up to HISTORY_POINTS evenly spaced n; the last point uses every match, so a chart ends
at the table's number. Aborted matches are not rated; a seat that faulted keeps the rank the match
gave it, and beside the rating are counted its strikes (faulty decisions) and forfeits (matches
whose seat ended in a fault) apart: three timeouts in one match are 3 strikes and 1 forfeit.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from elo import Elo

from arena.store import RatedMatch, RatingEntry, Store

INITIAL = 1500.0  # the field's mean rating
BETA = 200.0  # the elo package's logistic uses 10 ** (diff / (2 * beta)): 400 is the classic scale
PER_ELO = math.log(10) / 400  # d/dR of the logistic's argument, in natural units per Elo point
PRIOR_DRAWS = 1.0  # virtual draws per pair of bots that met
HALF_CHI2_95 = 1.920729  # log-likelihood drop at the ends of a 95 % interval (3.841459 / 2)
HISTORY_POINTS = 200
TOLERANCE = 1e-4  # Elo points: the fit stops when no rating moves by more
MODEL = Elo(initial=INITIAL, beta=BETA)


def pair_score(rank: int, other_rank: int) -> float:
    """1 for the better rank (1 is best), ½ for a tie, 0 for the worse."""
    return 1.0 if rank < other_rank else 0.5 if rank == other_rank else 0.0


def expected(rating: float, other: float) -> float:
    """Elo's expected score of `rating` against `other`."""
    return MODEL.expect(rating, other)


Opponents = list[tuple[str, float, float]]  # (opponent, games, score against it)


@dataclass
class Results:
    """Pairwise results accumulated match by match, with each bot's games, wins, strikes, forfeits."""

    weight: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))  # (a, b), a < b
    score: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))  # a's against b
    games: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    wins: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    strikes: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    forfeits: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, match: RatedMatch) -> None:
        k = len(match.entrants)
        winners = sum(rank == 1 for rank in match.ranks)
        for i, a in enumerate(match.entrants):
            self.games[a] += 1
            self.wins[a] += 1 / winners if match.ranks[i] == 1 else 0.0
            self.strikes[a] += match.strikes[i]
            self.forfeits[a] += match.forfeits[i]
            for j in range(i + 1, k):
                pair, score = (a, match.entrants[j]), pair_score(match.ranks[i], match.ranks[j])
                if pair[1] < pair[0]:
                    pair, score = (pair[1], pair[0]), 1 - score
                self.weight[pair] += 1 / (k - 1)
                self.score[pair] += score / (k - 1)

    def opponents(self) -> dict[str, Opponents]:
        """Per bot: (opponent, games, score against it), with the virtual draw added."""
        table: dict[str, Opponents] = defaultdict(list)
        for (a, b), w in self.weight.items():
            s = self.score[a, b]
            table[a].append((b, w + PRIOR_DRAWS, s + PRIOR_DRAWS / 2))
            table[b].append((a, w + PRIOR_DRAWS, w - s + PRIOR_DRAWS / 2))
        return table


def log_likelihood(rating: float, opponents: Opponents, ratings: dict[str, float]) -> float:
    """The log-likelihood of one bot's results if it had `rating` and the others `ratings`."""
    total = 0.0
    for other, games, score in opponents:
        p = expected(rating, ratings[other])
        if not 0.0 < p < 1.0:  # so far out that a result with positive weight is impossible
            return -math.inf
        total += score * math.log(p) + (games - score) * math.log1p(-p)
    return total


def climb(rating: float, opponents: Opponents, ratings: dict[str, float]) -> float:
    """One bot's rating one Newton step closer to where its expected score equals its score.

    Far from the optimum the curvature is tiny and a full step can overshoot: halve it until
    the likelihood does not fall."""
    gradient = curvature = 0.0
    for other, games, score in opponents:
        p = expected(rating, ratings[other])
        gradient += score - games * p
        curvature += games * p * (1 - p)
    step = gradient / max(curvature, 1e-12) / PER_ELO
    now = log_likelihood(rating, opponents, ratings)
    while abs(step) > TOLERANCE and log_likelihood(rating + step, opponents, ratings) < now:
        step /= 2
    return rating + step


def fit(results: Results, start: dict[str, float] | None = None) -> dict[str, float]:
    """Maximum-likelihood ratings, one bot at a time until none moves, centred on INITIAL.

    The log-likelihood is concave, so climbing one rating at a time reaches the joint maximum;
    `start` (an earlier fit) only makes it faster."""
    everyone = results.opponents()
    ratings = {name: (start or {}).get(name, INITIAL) for name in sorted(results.games)}
    if len(ratings) < 2:
        return ratings
    for _ in range(10_000):
        moved = 0.0
        for name, opponents in everyone.items():
            before, ratings[name] = ratings[name], climb(ratings[name], opponents, ratings)
            moved = max(moved, abs(ratings[name] - before))
        shift = INITIAL - sum(ratings.values()) / len(ratings)
        ratings = {name: r + shift for name, r in ratings.items()}
        if moved < TOLERANCE:
            break
    return ratings


def interval(name: str, opponents: Opponents, ratings: dict[str, float]) -> tuple[float, float]:
    """The 95 % likelihood interval of one bot's rating, the others held at theirs."""
    best = ratings[name]
    floor = log_likelihood(best, opponents, ratings) - HALF_CHI2_95

    def end(direction: float) -> float:
        near, far = 0.0, 100.0
        while log_likelihood(best + direction * far, opponents, ratings) > floor:
            near, far = far, 2 * far
        for _ in range(50):  # bisection on a concave function: to well under 0.001 Elo
            middle = (near + far) / 2
            if log_likelihood(best + direction * middle, opponents, ratings) > floor:
                near = middle
            else:
                far = middle
        return best + direction * (near + far) / 2

    return end(-1.0), end(1.0)


def rating_table(results: Results, ratings: dict[str, float]) -> list[RatingEntry]:
    """The rating table, best first."""
    opponents = results.opponents()
    entries = []
    for name, rating in ratings.items():
        low, high = interval(name, opponents[name], ratings) if name in opponents else (-math.inf, math.inf)
        entries.append(RatingEntry(name, rating, low, high, results.games[name], results.wins[name],
                                   results.strikes[name], results.forfeits[name]))
    return sorted(entries, key=lambda entry: (-entry.elo, entry.entrant))


def in_rating_order(matches: Iterable[RatedMatch]) -> list[RatedMatch]:
    return sorted(matches, key=lambda m: m.order)


def rate_matches(matches: Iterable[RatedMatch]) -> list[RatingEntry]:
    """The rating table of these matches (their order does not matter)."""
    results = Results()
    for match in matches:
        results.add(match)
    return rating_table(results, fit(results))


def tournament_matches(store: Store, tournament_id: int, ruleset: str) -> list[RatedMatch]:
    """One tournament's rated (finished) matches of a ruleset, in rating order."""
    return [m for m in store.rated_matches(ruleset) if m.order[0] == tournament_id]


def rate_tournament(store: Store, tournament_id: int, ruleset: str) -> list[RatingEntry]:
    """The rating table of one tournament's matches alone (the leaderboard rates every stored match)."""
    return rate_matches(tournament_matches(store, tournament_id, ruleset))


def rating_history(matches: Sequence[RatedMatch], points: int = HISTORY_POINTS) -> list[tuple[int, int, str, float]]:
    """(position, match id, entrant, elo): the fit over the first position + 1 matches in rating
    order, at up to `points` evenly spaced positions ending with the last match, for every
    entrant seen so far."""
    ordered = in_rating_order(matches)
    if not ordered:
        return []
    stops = {len(ordered) * (i + 1) // points - 1 for i in range(points)} - {-1}
    results, ratings, history = Results(), None, []
    for position, match in enumerate(ordered):
        results.add(match)
        if position in stops:
            ratings = fit(results, ratings)
            history += [(position, match.match_id, name, r) for name, r in sorted(ratings.items())]
    return history


def rerate(store: Store, ruleset: str) -> list[RatingEntry]:
    """Recompute a ruleset's ratings and history from its stored matches and store them."""
    matches = in_rating_order(store.rated_matches(ruleset))
    entries = rate_matches(matches)
    store.replace_ratings(ruleset, ruleset.split("@", 1)[0], entries, rating_history(matches))
    return entries
