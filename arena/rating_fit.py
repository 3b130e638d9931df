"""The numbers behind arena/rating.py, vectorized over every bot: the maximum-likelihood fit and the
likelihood intervals, from the pairwise totals (per pair of bots: games and score).

The model is the one arena/rating.py's docstring states (Bradley-Terry on Elo's 400-point scale,
one virtual draw per pair that met, each connected group of bots centred on 1500). Here it is
solved as a numerical library would:

- the fit is Newton's method on the joint log-likelihood, which is concave: its Hessian is a
  weighted graph Laplacian (pair weight w·p·(1-p)), sparse, solved by conjugate gradients with the
  diagonal as preconditioner (scipy). A Newton step that would lower the likelihood is halved. A
  start near the answer (the ratings before the last batch of results) needs one or two steps.
- each interval end is a root of one bot's own log-likelihood minus its best minus 1.92, the
  others fixed: a one-dimensional, concave problem per bot, solved for all bots at once by
  Newton's method kept inside a bracket (bisection where Newton would leave it), starting from
  the quadratic (Wald) estimate.

Everything works on arrays indexed by pair (a, b, weight, score) and bot; `np.bincount` gathers
the pairs' terms into each bot's sums.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
from scipy.sparse.csgraph import connected_components  # type: ignore[import-untyped]
from scipy.sparse.linalg import LinearOperator, cg  # type: ignore[import-untyped]
from scipy.special import expit  # type: ignore[import-untyped]

INITIAL = 1500.0  # the field's mean rating
PER_ELO = math.log(10) / 400  # d/dR of the logistic's argument, in natural units per Elo point
PRIOR_DRAWS = 1.0  # virtual draws per pair of bots that met
HALF_CHI2_95 = 1.920729  # log-likelihood drop at the ends of a 95 % interval (3.841459 / 2)
TOLERANCE = 1e-4  # Elo points: the fit stops when no rating moves by more
LIVE_TOLERANCE = 0.05  # Elo points: the same for a live update (the next one goes on from there)
SURE_STEP = 10.0  # Elo points: a Newton step no longer than this is taken without checking the likelihood
END_TOLERANCE = 1e-4  # Elo points: an interval end is known to this

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


class PairArrays:
    """Pairwise totals (bot indices a < b, weight, a's score) in growing arrays, and each bot's games,
    wins, strikes and forfeits: everything the fit and the table need, added to as results come in
    (arena.rating.Results adds matches and the store's totals) without recomputing anything."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.pair_index: dict[tuple[int, int], int] = {}
        self.a, self.b = np.zeros(1024, np.int64), np.zeros(1024, np.int64)
        self.weight, self.score = np.zeros(1024), np.zeros(1024)
        self.pairs = 0
        self.games: dict[str, int] = {}
        self.wins: dict[str, float] = {}
        self.strikes: dict[str, int] = {}
        self.forfeits: dict[str, int] = {}
        self._laplacian: Laplacian | None = None
        self._groups: Ints | None = None
        self._groups_pairs = 0
        self._arrays: tuple[Ints, Ints, Floats, Floats] | None = None
        self.curvature = np.zeros(0)  # per bot, at the last table (arena.rating.rating_table's live update)

    def bot(self, name: str) -> int:
        if name not in self.index:
            self.index[name] = len(self.names)
            self.names.append(name)
            for counts in (self.games, self.wins, self.strikes, self.forfeits):
                counts[name] = 0
        return self.index[name]

    def add_pair(self, first: str, second: str, weight: float, score: float) -> None:
        """Add `weight` pairwise games between two bots in which `first` scored `score`."""
        i, j = self.bot(first), self.bot(second)
        if j < i:
            i, j, score = j, i, weight - score
        k = self.pair_index.get((i, j))
        if k is None:
            k = self.pair_index[i, j] = self.pairs
            if k == len(self.a):
                self._grow()
            self.a[k], self.b[k], self.pairs = i, j, k + 1
        self.weight[k] += weight
        self.score[k] += score
        self._arrays = None

    def add_pairs(self, firsts: Sequence[str], seconds: Sequence[str], weights: Sequence[float],
                  scores: Sequence[float]) -> None:
        """`add_pair` for many distinct pairs at once, as arrays (a ruleset's stored totals: one per
        pair that met, hundreds of thousands on a big field). Pairs already known go one by one."""
        for name in dict.fromkeys(chain.from_iterable(zip(firsts, seconds, strict=True))):
            self.bot(name)  # in the order add_pair would meet them: the same indices, the same sums
        i = np.fromiter(map(self.index.__getitem__, firsts), np.int64, len(firsts))
        j = np.fromiter(map(self.index.__getitem__, seconds), np.int64, len(seconds))
        weight, score = np.asarray(weights, np.float64), np.asarray(scores, np.float64)
        swap = j < i
        i, j = np.where(swap, j, i), np.where(swap, i, j)
        score = np.where(swap, weight - score, score)
        keys = list(zip(i.tolist(), j.tolist(), strict=True))
        known = [k in self.pair_index for k in keys] if self.pair_index else []
        if any(known) or len(set(keys)) != len(keys):
            for (a, b), w, x in zip(keys, weight.tolist(), score.tolist(), strict=True):
                self.add_pair(self.names[a], self.names[b], w, x)
            return
        start, stop = self.pairs, self.pairs + len(keys)
        while stop > len(self.a):
            self._grow()
        self.a[start:stop], self.b[start:stop] = i, j
        self.weight[start:stop] += weight
        self.score[start:stop] += score
        self.pair_index.update(zip(keys, range(start, stop), strict=True))
        self.pairs = stop
        self._arrays = None

    def by_name(self) -> dict[tuple[str, str], tuple[float, float]]:
        """The totals as PairTotal has them: (a, b) with a < b by name -> (weight, a's score)."""
        out = {}
        for k in range(self.pairs):
            a, b = self.names[self.a[k]], self.names[self.b[k]]
            weight, score = float(self.weight[k]), float(self.score[k])
            out[(a, b) if a < b else (b, a)] = (weight, score if a < b else weight - score)
        return out

    def _grow(self) -> None:
        size = 2 * len(self.a)
        self.a, self.b = np.resize(self.a, size), np.resize(self.b, size)
        self.weight = np.concatenate([self.weight, np.zeros(size - len(self.weight))])
        self.score = np.concatenate([self.score, np.zeros(size - len(self.score))])

    def laplacian(self) -> Laplacian:
        """The Hessian's pattern, kept while the bots are the same and the pairs added since are few."""
        known = self._laplacian
        if known is None or known.n != len(self.names) or self.pairs - known.built > known.built // 10:
            a, b, _, _ = self.arrays()
            known = self._laplacian = Laplacian(a, b, len(self.names))
        return known

    def groups(self) -> Ints:
        """Each bot's connected group, found again only when it may have changed: new pairs only join
        groups, so once one group holds every bot it stays so until a new bot comes."""
        n, known = len(self.names), self._groups
        whole = known is not None and len(known) == n and not known.any()
        if known is None or not whole and (len(known) != n or self._groups_pairs != self.pairs):
            a, b, _, _ = self.arrays()
            known = self._groups = components(a, b, n)
            self._groups_pairs = self.pairs
        return known

    def arrays(self) -> tuple[Ints, Ints, Floats, Floats]:
        """(a, b, games, a's score) per pair that met, the virtual draw included (kept until a result
        is added)."""
        if self._arrays is None:
            n = self.pairs
            self._arrays = (self.a[:n], self.b[:n], self.weight[:n] + PRIOR_DRAWS, self.score[:n] + PRIOR_DRAWS / 2)
        return self._arrays


def log_sigmoid(x: Floats) -> Floats:
    """log(1 / (1 + e^-x)) without overflow or log(0) (numpy's logaddexp is several times slower)."""
    return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


def pair_log_likelihood(x: Floats, games: Floats, score: Floats) -> Floats:
    """score·log p + (games - score)·log(1 - p) with p the logistic of x: log(1 - p) = log p - x."""
    return games * log_sigmoid(x) - (games - score) * x


def log_likelihood(ratings: Floats, results: PairArrays) -> float:
    a, b, games, score = results.arrays()
    return float(np.sum(pair_log_likelihood(PER_ELO * (ratings[a] - ratings[b]), games, score)))


def fit_array(results: PairArrays, start: Floats | None = None, tolerance: float = TOLERANCE) -> Floats:
    """Maximum-likelihood ratings (Elo points, by bot index), each connected group centred on INITIAL.
    The last Newton step taken is under `tolerance`: Newton's convergence being quadratic, what is
    left is far smaller (a live update takes LIVE_TOLERANCE, saving the step that would confirm it)."""
    n = len(results.names)
    ratings = np.full(n, INITIAL) if start is None else np.array(start, dtype=np.float64)
    if results.pairs == 0:
        return np.full(n, INITIAL)
    a, b, games, score = results.arrays()
    hessian = results.laplacian()
    for _ in range(200):
        step = _newton_step(ratings, a, b, games, score, hessian)
        largest = float(np.max(np.abs(step)))
        # halve a step that lowers the likelihood: only a long one can (far from the answer); within
        # SURE_STEP Elo the quadratic model is good to a few per cent (Elo's logistic bends slowly)
        if largest > SURE_STEP:
            now = log_likelihood(ratings, results)
            while largest > SURE_STEP and log_likelihood(ratings + step, results) < now:
                step, largest = step / 2, largest / 2
        ratings = ratings + step
        if largest < tolerance:
            break
    return centred(ratings, results.groups())


class Laplacian:
    """The off-diagonal part of the Hessian: a sparse matrix over the pairs known when it was built
    (its pattern kept across fits, each Newton step only refills it) plus the pairs added since,
    gathered directly; a PairArrays rebuilds it once those are a tenth of the whole."""

    def __init__(self, a: Ints, b: Ints, n: int) -> None:
        self.built, self.n = len(a), n
        slots = csr_matrix((np.arange(1, 2 * self.built + 1, dtype=np.float64),
                            (np.concatenate([a, b]), np.concatenate([b, a]))), shape=(n, n))
        self.order = slots.data.astype(np.int64) - 1  # which pair term fills each stored slot
        self.matrix = slots

    def operator(self, a: Ints, b: Ints, curvature: Floats) -> Callable[[Floats], Floats]:
        """v -> W v, with W the pairs' curvature between bots."""
        known = self.built
        self.matrix.data = np.concatenate([curvature[:known], curvature[:known]])[self.order]
        tail_a, tail_b, tail = a[known:], b[known:], curvature[known:]
        matrix, n = self.matrix, self.n

        def apply(v: Floats) -> Floats:
            out = np.asarray(matrix @ v, dtype=np.float64)
            if len(tail):
                out += np.bincount(tail_a, tail * v[tail_b], n) + np.bincount(tail_b, tail * v[tail_a], n)
            return out

        return apply


def _newton_step(ratings: Floats, a: Ints, b: Ints, games: Floats, score: Floats, hessian: Laplacian) -> Floats:
    """The Newton step (Elo points) of the joint log-likelihood: solve (D - W) step = gradient."""
    n = hessian.n
    p = expit(PER_ELO * (ratings[a] - ratings[b]))
    surplus = score - games * p
    gradient = np.bincount(a, surplus, n) - np.bincount(b, surplus, n)
    curvature = games * p * (1 - p)
    diagonal = np.bincount(a, curvature, n) + np.bincount(b, curvature, n)
    off = hessian.operator(a, b, curvature)
    ridge = 1e-12 * max(float(diagonal.max()), 1e-300)  # the Laplacian is singular along each group's shift
    operator = LinearOperator((n, n), matvec=lambda v: (diagonal + ridge) * v - off(v), dtype=np.float64)
    inverse_diagonal = 1.0 / np.maximum(diagonal, ridge)
    preconditioner = LinearOperator((n, n), matvec=lambda v: inverse_diagonal * v, dtype=np.float64)
    step, _ = cg(operator, gradient, rtol=1e-8, atol=0.0, maxiter=10 * n + 100, M=preconditioner)
    return np.asarray(step, dtype=np.float64) / PER_ELO


def curvature(results: PairArrays, ratings: Floats) -> Floats:
    """Per bot, minus the second derivative of its log-likelihood in its own rating (natural units):
    how sharply its games pin it; a likelihood interval's width goes as one over its square root."""
    a, b, games, _ = results.arrays()
    p = expit(PER_ELO * (ratings[a] - ratings[b]))
    bend = games * p * (1 - p)
    n = len(ratings)
    return np.asarray(np.bincount(a, bend, n) + np.bincount(b, bend, n), dtype=np.float64)


def components(a: Ints, b: Ints, n: int) -> Ints:
    """Each bot's group: the bots connected to it by games, directly or through others."""
    graph = csr_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return np.asarray(labels, dtype=np.int64)


def centred(ratings: Floats, labels: Ints) -> Floats:
    """Each group of bots connected by games shifted to mean INITIAL: the likelihood fixes only the
    gaps within a group, not where a group lies against another."""
    sums, sizes = np.bincount(labels, ratings), np.bincount(labels)
    return np.asarray(ratings - sums[labels] / sizes[labels] + INITIAL, dtype=np.float64)


def intervals(results: PairArrays, ratings: Floats, which: npt.NDArray[np.bool_] | None = None,
              guesses: tuple[Floats, Floats] | None = None, steps: int = 200) -> tuple[Floats, Floats]:
    """The 95 % likelihood interval (low, high) of each bot (of the bots in `which`, the others are
    nan), the others held at their ratings; (-inf, inf) for a bot that met nobody. `guesses`: each
    end's likely distance from the rating (an earlier interval's; nan where unknown) to start from;
    `steps` caps the root finder's steps (1 from a close guess: a Newton step squares its error)."""
    n = len(ratings)
    a, b, games, score = results.arrays()
    chosen = np.ones(n, bool) if which is None else which
    keep = chosen[a] | chosen[b]
    pairs = (a[keep], b[keep], games[keep], score[keep])
    met = np.bincount(a, minlength=n) + np.bincount(b, minlength=n) > 0
    low, high = np.full(n, np.nan), np.full(n, np.nan)
    low[chosen & ~met], high[chosen & ~met] = -np.inf, np.inf
    solve = chosen & met
    best, _, bend = _side_terms(pairs, ratings, np.zeros(n), 1.0)
    wald = np.sqrt(2 * HALF_CHI2_95 / np.maximum(-bend, 1e-300))  # where the quadratic would reach it
    for side, (direction, ends) in enumerate(((-1.0, low), (1.0, high))):
        guess = wald if guesses is None else np.where(np.isfinite(guesses[side]), guesses[side], wald)
        start = np.where(solve, guess, 0.0)
        distances = _distances(pairs, ratings, direction, solve, best, start, steps)
        ends[solve] = ratings[solve] + direction * distances[solve]
    return low, high


def _side_terms(pairs: tuple[Ints, Ints, Floats, Floats], ratings: Floats, offsets: Floats,
                direction: float) -> tuple[Floats, Floats, Floats]:
    """Per bot, its log-likelihood with its rating moved by direction·offset (the others fixed),
    and the first and second derivatives of that in the offset."""
    a, b, games, score = pairs
    n = len(ratings)
    total, slope, bend = np.zeros(n), np.zeros(n), np.zeros(n)
    for me, other, mine in ((a, b, score), (b, a, games - score)):
        x = PER_ELO * (ratings[me] + direction * offsets[me] - ratings[other])
        p = expit(x)
        total += np.bincount(me, pair_log_likelihood(x, games, mine), n)
        slope += np.bincount(me, direction * PER_ELO * (mine - games * p), n)
        bend += np.bincount(me, -PER_ELO ** 2 * games * p * (1 - p), n)
    return total, slope, bend


def _distances(pairs: tuple[Ints, Ints, Floats, Floats], ratings: Floats, direction: float,
               solve: npt.NDArray[np.bool_], best: Floats, offset: Floats, steps: int) -> Floats:
    """Per bot, how far (Elo, >= 0) its rating moves in `direction` before its log-likelihood falls
    HALF_CHI2_95 below `best` (its value at the rating), from `offset` on: Newton on a concave
    function inside a bracket. Only the bots in `solve` (which met someone) count."""
    n = len(ratings)
    floor = best - HALF_CHI2_95
    near, far = np.zeros(n), np.full(n, np.inf)
    moving = solve.copy()
    for _ in range(steps):
        value, slope, _ = _side_terms(pairs, ratings, offset, direction)
        above = value > floor
        near, far = np.where(above, offset, near), np.where(above, far, offset)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = offset - (value - floor) / slope
        inside = np.isfinite(newton) & (newton >= near) & (newton <= far)
        fallback = np.where(np.isinf(far), 2 * np.maximum(offset, 1.0), (near + far) / 2)
        following = np.where(inside, newton, fallback)
        moving &= np.abs(following - offset) >= END_TOLERANCE  # a settled end stays where it is
        offset = np.where(moving, following, offset)
        if not moving.any():
            break
    return offset
