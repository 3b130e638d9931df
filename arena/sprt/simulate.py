"""Simulated SPRTs: pair scores drawn from a known distribution, no games played.

For the error-rate tests and the expected-pairs table of docs/sprt.md (bench/sprt_simulation.py):
a pair distribution with a chosen true Elo is an exponential tilt of a base distribution
(p_i ∝ base_i · e^(θ x_i)), θ found by bisection, so the shape stays realistic.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from arena.outcomes import Verdict
from arena.sprt.stats import NELO_PER_T, SCORES, bounds, decide, llr, logistic_elo, mean_and_variance

# the pair distribution of two evenly matched bots: A level with B in a third of the games
EVEN_PAIRS = (0.07, 0.22, 0.42, 0.22, 0.07)


def true_elo(probabilities: Sequence[float], model: str) -> float:
    """The Elo difference a pair distribution has, in the model's unit."""
    mean, variance = mean_and_variance(probabilities)
    if model == "logistic":
        return logistic_elo(mean)
    return (mean - 0.5) / math.sqrt(variance) * NELO_PER_T / math.sqrt(2)


def with_elo(elo: float, model: str, base: Sequence[float] = EVEN_PAIRS) -> list[float]:
    """The tilt of `base` whose true Elo is `elo` (true_elo rises with the tilt)."""
    low, high = -30.0, 30.0
    for _ in range(100):
        theta = (low + high) / 2
        if true_elo(_tilt(base, theta), model) < elo:
            low = theta
        else:
            high = theta
    return _tilt(base, (low + high) / 2)


def _tilt(base: Sequence[float], theta: float) -> list[float]:
    weights = [b * math.exp(theta * x) for b, x in zip(base, SCORES)]
    return [w / sum(weights) for w in weights]


def run_test(probabilities: Sequence[float], elo0: float, elo1: float, model: str, rng: random.Random,
             alpha: float = 0.05, beta: float = 0.05, max_pairs: int = 100_000) -> tuple[Verdict, int]:
    """One simulated test: (verdict, pairs played), the LLR checked after every pair."""
    counts = [0] * 5
    for pairs in range(1, max_pairs + 1):
        counts[rng.choices(range(5), probabilities)[0]] += 1
        verdict = decide(llr(counts, elo0, elo1, model), alpha, beta)
        if verdict:
            return verdict, pairs
    return Verdict.UNDECIDED, max_pairs


def brownian_outcome(true_nelo: float, elo0: float, elo1: float, alpha: float = 0.05,
                     beta: float = 0.05) -> tuple[float, float]:
    """(chance of accepting H1, expected pairs) of a normalised-model test, the LLR taken as a
    Brownian motion (van den Bergh, "A Brownian approximation of the GSPRT").

    Per pair the LLR moves by (t1 - t0)(2t - t0 - t1) / 2 on average with variance (t1 - t0)^2,
    t being the pair score's t-value: in nElo this holds whatever the game's draw rate."""
    t, t0, t1 = (e * math.sqrt(2) / NELO_PER_T for e in (true_nelo, elo0, elo1))
    lower, upper = bounds(alpha, beta)
    drift, variance = (t1 - t0) * (2 * t - t0 - t1) / 2, (t1 - t0) ** 2
    if abs(drift) < 1e-12:
        return -lower / (upper - lower), -lower * upper / variance
    theta = -2 * drift / variance
    p_h1 = (1 - math.exp(theta * lower)) / (math.exp(theta * upper) - math.exp(theta * lower))
    return p_h1, (p_h1 * upper + (1 - p_h1) * lower) / drift
