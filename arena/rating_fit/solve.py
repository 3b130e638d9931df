"""The fit and the likelihood intervals, vectorized over every bot (arena/rating_fit/__init__.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.sparse.linalg import LinearOperator, cg  # type: ignore[import-untyped]
from scipy.special import expit  # type: ignore[import-untyped]

from arena.rating_fit.model import (
    END_TOLERANCE,
    HALF_CHI2_95,
    INITIAL,
    PER_ELO,
    SURE_STEP,
    TOLERANCE,
    Floats,
    Ints,
    Pairs,
)
from arena.rating_fit.pairs import PairArrays, blocks


def log_sigmoid(x: Floats) -> Floats:
    """log(1 / (1 + e^-x)) without overflow or log(0) (numpy's logaddexp is several times slower)."""
    return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


def pair_log_likelihood(x: Floats, games: Floats, score: Floats) -> Floats:
    """score·log p + (games - score)·log(1 - p) with p the logistic of x: log(1 - p) = log p - x."""
    return games * log_sigmoid(x) - (games - score) * x


def log_likelihood(ratings: Floats, pairs: Pairs) -> float:
    return sum(float(np.sum(pair_log_likelihood(PER_ELO * (ratings[a] - ratings[b]), games, score)))
               for a, b, games, score in blocks(pairs))


def fit_array(results: PairArrays, start: Floats | None = None, tolerance: float = TOLERANCE) -> Floats:
    """Maximum-likelihood ratings (Elo points, by bot index), each connected group centred on INITIAL.
    The last Newton step taken is under `tolerance`: Newton's convergence being quadratic, what is
    left is far smaller (a live update takes LIVE_TOLERANCE, saving the step that would confirm it)."""
    n = len(results.names)
    ratings = np.full(n, INITIAL) if start is None else np.array(start, dtype=np.float64)
    if results.pairs == 0:
        return np.full(n, INITIAL)
    pairs, groups = results.arrays(), results.groups()
    bends = np.empty(results.pairs)  # each pair's curvature at the step's ratings
    for _ in range(200):
        # a step's shift of a whole group changes nothing (the ridge's answer to rounding in the
        # gradient's sum): taken out, it would otherwise stay as a step that never shrinks
        step = centred(_newton_step(ratings, pairs, n, bends), groups) - INITIAL
        largest = float(np.max(np.abs(step)))
        # halve a step that lowers the likelihood: only a long one can (far from the answer); within
        # SURE_STEP Elo the quadratic model is good to a few per cent (Elo's logistic bends slowly)
        if largest > SURE_STEP:
            now = log_likelihood(ratings, pairs)
            while largest > SURE_STEP and log_likelihood(ratings + step, pairs) < now:
                step, largest = step / 2, largest / 2
        ratings = ratings + step
        if largest < tolerance:
            break
    return centred(ratings, groups)


def _newton_step(ratings: Floats, pairs: Pairs, n: int, bends: Floats) -> Floats:
    """The Newton step (Elo points) of the joint log-likelihood: solve (D - W) step = gradient, W the
    pairs' curvature between bots (kept in `bends`), D its sums per bot."""
    gradient, diagonal = np.zeros(n), np.zeros(n)
    start = 0
    for a, b, games, score in blocks(pairs):
        p = expit(PER_ELO * (ratings[a] - ratings[b]))
        surplus = score - games * p
        gradient += np.bincount(a, surplus, n) - np.bincount(b, surplus, n)
        bend = bends[start:start + len(a)] = games * p * (1 - p)
        diagonal += np.bincount(a, bend, n) + np.bincount(b, bend, n)
        start += len(a)
    ridge = 1e-12 * max(float(diagonal.max()), 1e-300)  # the Laplacian is singular along each group's shift
    spread = (pairs[0], pairs[1], bends, bends)

    def hessian(v: Floats) -> Floats:
        out = (diagonal + ridge) * v
        for a, b, bend, _ in blocks(spread):
            out -= np.bincount(a, bend * v[b], n) + np.bincount(b, bend * v[a], n)
        return out

    operator = LinearOperator((n, n), matvec=hessian, dtype=np.float64)
    inverse_diagonal = 1.0 / np.maximum(diagonal, ridge)
    preconditioner = LinearOperator((n, n), matvec=lambda v: inverse_diagonal * v, dtype=np.float64)
    step, _ = cg(operator, gradient, rtol=1e-8, atol=0.0, maxiter=10 * n + 100, M=preconditioner)
    return np.asarray(step, dtype=np.float64) / PER_ELO


def curvature(results: PairArrays, ratings: Floats) -> Floats:
    """Per bot, minus the second derivative of its log-likelihood in its own rating (natural units):
    how sharply its games pin it; a likelihood interval's width goes as one over its square root."""
    n = len(ratings)
    total = np.zeros(n)
    for a, b, games, _ in blocks(results.arrays()):
        p = expit(PER_ELO * (ratings[a] - ratings[b]))
        bend = games * p * (1 - p)
        total += np.bincount(a, bend, n) + np.bincount(b, bend, n)
    return total


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
    pairs = results.arrays()
    a, b, games, score = pairs
    chosen = np.ones(n, bool) if which is None else which
    if which is not None:
        keep = chosen[a] | chosen[b]
        pairs = (a[keep], b[keep], games[keep], score[keep])
    met = np.bincount(a, minlength=n) + np.bincount(b, minlength=n) > 0
    low, high = np.full(n, np.nan), np.full(n, np.nan)
    low[chosen & ~met], high[chosen & ~met] = -np.inf, np.inf
    solve = chosen & met
    best, _, bend = _side_terms(pairs, ratings, np.zeros(n), 1.0, bend=True)
    wald = np.sqrt(2 * HALF_CHI2_95 / np.maximum(-bend, 1e-300))  # where the quadratic would reach it
    for side, (direction, ends) in enumerate(((-1.0, low), (1.0, high))):
        guess = wald if guesses is None else np.where(np.isfinite(guesses[side]), guesses[side], wald)
        start = np.where(solve, guess, 0.0)
        distances = _distances(pairs, ratings, direction, solve, best, start, steps)
        ends[solve] = ratings[solve] + direction * distances[solve]
    return low, high


def _side_terms(pairs: Pairs, ratings: Floats, offsets: Floats, direction: float,
                bend: bool = False) -> tuple[Floats, Floats, Floats]:
    """Per bot, its log-likelihood with its rating moved by direction·offset (the others fixed),
    and the first and (if `bend`) second derivatives of that in the offset."""
    n = len(ratings)
    totals, slopes, bends = np.zeros(n), np.zeros(n), np.zeros(n)
    for a, b, games, score in blocks(pairs):
        for me, other, mine in ((a, b, score), (b, a, games - score)):
            x = PER_ELO * (ratings[me] + direction * offsets[me] - ratings[other])
            p = expit(x)
            totals += np.bincount(me, pair_log_likelihood(x, games, mine), n)
            slopes += np.bincount(me, direction * PER_ELO * (mine - games * p), n)
            if bend:
                bends += np.bincount(me, -PER_ELO ** 2 * games * p * (1 - p), n)
    return totals, slopes, bends


def _distances(pairs: Pairs, ratings: Floats, direction: float,
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
