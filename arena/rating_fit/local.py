"""A live update that costs what the new results cost: each bot that played moves alone, its earlier
games kept as the quadratic they make around its rating, its new ones exactly.

After an exact fit every bot's rating maximizes the likelihood of all its games: the slope of its
log-likelihood is zero there and its curvature (`curvature`, natural units) says how sharply its
games pin it. New results add terms. Holding every other bot at its rating, a bot's log-likelihood
near its rating is then the quadratic -curvature·x²/2 of its old games (x: its move, natural units)
plus the new terms, and its new rating is where that peaks: Newton's method on a one-dimensional
concave function, for every bot that played at once, over the new terms only (a few thousand for
1,000 matches, against millions of pairs on a big field: BENCHMARKS.md, "The refit and the live
update at 1M matches").

It is the first step of a block Jacobi iteration, not the fit: it leaves out how the bots that
played pull on each other through their old games. That error is of the order of the new results'
share of a bot's information (curvature), and it adds up from one local update to the next (each
takes the ratings before it as fitted), so arena.rating.LiveRate takes local updates only while the
results since its last fit bring each bot that played at most LOCAL_SHARE of its curvature then
(0.4 Elo at most on the field of tests/arena/test_rating_local.py), and fits exactly every
EXACT_EVERY updates in any case.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit  # type: ignore[import-untyped]

from arena.rating_fit.model import PER_ELO, Floats, Ints, Pairs

LOCAL_SHARE = 0.04  # the most of a bot's curvature its new results may bring for a local update
MOST_STEP = 100.0  # Elo: a Newton step of the one-dimensional problem is cut to this (far from its peak)
STEP_TOLERANCE = 1e-3  # Elo: the per-bot Newton iteration stops when no bot moves by more
STEPS = 50


Terms = Pairs  # the new results (PairArrays.take_fresh)


def new_curvature(terms: Terms, ratings: Floats) -> Floats:
    """Per bot, the curvature (natural units) its new terms bring at these ratings."""
    a, b, games, _ = terms
    p = _expected(ratings, a, b)
    bend = games * p * (1 - p)
    n = len(ratings)
    return np.asarray(np.bincount(a, bend, n) + np.bincount(b, bend, n), dtype=np.float64)


def local_enough(terms: Terms, ratings: Floats, fitted: Floats, added: Floats) -> bool:
    """Whether every bot in the new terms was in the last fit (`fitted`: each bot's curvature then)
    and the local updates since (`added`: the curvature they brought) with these new terms bring
    it at most LOCAL_SHARE of that: the error the local updates leave stays of that order."""
    a, b, _, _ = terms
    if len(a) == 0:
        return True
    touched = np.union1d(a, b)
    if touched.max() >= min(len(fitted), len(added)):
        return False  # a bot the last fit did not have
    brought = added[touched] + new_curvature(terms, ratings)[touched]
    return bool(np.all(brought <= LOCAL_SHARE * fitted[touched]))


def local_update(terms: Terms, ratings: Floats, curvature: Floats) -> tuple[Floats, Floats]:
    """(new ratings, new curvature) after the new terms, each bot that played moved alone."""
    a, b, games, score = terms
    n = len(ratings)
    offset = np.zeros(n)
    for _ in range(STEPS):
        slope, bend = -PER_ELO ** 2 * curvature * offset, PER_ELO ** 2 * curvature.copy()
        for me, other, mine in ((a, b, score), (b, a, games - score)):
            p = _expected(ratings, me, other, offset[me])
            slope += np.bincount(me, PER_ELO * (mine - games * p), n)
            bend += np.bincount(me, PER_ELO ** 2 * games * p * (1 - p), n)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(bend > 0, slope / bend, 0.0)
        step = np.clip(step, -MOST_STEP, MOST_STEP)
        offset += step
        if float(np.max(np.abs(step), initial=0.0)) < STEP_TOLERANCE:
            break
    moved = ratings + offset
    return moved, curvature + new_curvature(terms, moved)


def _expected(ratings: Floats, me: Ints, other: Ints, offset: Floats | float = 0.0) -> Floats:
    """`me`'s expected score against `other`, `me` moved by `offset` Elo."""
    return np.asarray(expit(PER_ELO * (ratings[me] + offset - ratings[other])), dtype=np.float64)
