"""The generalised SPRT on pentanomial pair scores, in the normalised and the logistic Elo model.

A *pair* is two games on one chance seed with A and B in swapped seats. A scores 0, ½ or 1 in
each game (behind B, level, ahead), so 0, ½, 1, 1½ or 2 points per pair; `pentanomial` is the
list of pair counts `[n0, n½, n1, n1½, n2]`. Per game that is a score x of 0, ¼, ½, ¾ or 1.

The test (Michel Van den Bergh's GSPRT, as fishtest and fastchess run it): H0 says the true Elo
is elo0, H1 that it is elo1. Each hypothesis fixes one number of the unknown pair distribution —
its mean score (logistic model: s = 1 / (1 + 10^(-elo/400))) or its t-value (mu - ½) / sigma
(normalised model: nElo = t / sqrt(2) · 800 / ln 10 per pair) — and the log-likelihood ratio
compares the maximum-likelihood distributions under the two constraints. The test accepts H1
when the LLR reaches ln((1-β)/α), H0 when it falls to ln(β/(1-α)).

Empty cells are counted as 0.001 pairs, as fishtest does: the constrained maximum-likelihood
distribution needs every outcome to have some weight.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.outcomes import Verdict

MODELS = ("normalized", "logistic")
SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's score per game, by pentanomial cell
NELO_PER_T = 800 / math.log(10)  # normalised Elo per unit of per-game t-value
EMPTY_CELL = 1e-3  # pairs counted in an empty cell (regularisation)
Z95 = 1.959963984540054  # the normal distribution's 97.5 % point


def llr(pentanomial: Sequence[float], elo0: float, elo1: float, model: str = "normalized") -> float:
    """The log-likelihood ratio of H1 (Elo = elo1) against H0 (Elo = elo0) for these pair counts."""
    check_pentanomial(pentanomial)
    if sum(pentanomial) == 0:
        return 0.0
    counts = regularized(pentanomial)
    observed = [n / sum(counts) for n in counts]
    if model == "logistic":
        fitted0, fitted1 = (fit_mean(observed, logistic_score(elo)) for elo in (elo0, elo1))
    elif model == "normalized":
        fitted0, fitted1 = (fit_t_value(observed, elo * math.sqrt(2) / NELO_PER_T) for elo in (elo0, elo1))
    else:
        raise ValueError(f"unknown Elo model {model!r}; valid models: {', '.join(MODELS)}")
    return sum(n * (math.log(q1) - math.log(q0)) for n, q0, q1 in zip(counts, fitted0, fitted1))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR bounds: accept H0 at or below the first, H1 at or above the second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def decide(value: float, alpha: float, beta: float) -> Verdict | None:
    """H1 or H0 once the LLR `value` has reached a bound, else None (play on)."""
    lower, upper = bounds(alpha, beta)
    return Verdict.H1 if value >= upper else Verdict.H0 if value <= lower else None


def check_pentanomial(pentanomial: Sequence[float]) -> None:
    """ValueError unless `pentanomial` is five counts, none negative."""
    if len(pentanomial) != 5 or any(n < 0 for n in pentanomial):
        raise ValueError(f"a pentanomial is five pair counts [n0, n1/2, n1, n3/2, n2], not {list(pentanomial)}")


def regularized(pentanomial: Sequence[float]) -> list[float]:
    return [n if n > 0 else EMPTY_CELL for n in pentanomial]


def logistic_score(elo: float) -> float:
    """The expected score per game at this logistic Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def logistic_elo(score: float) -> float:
    """The logistic Elo difference of a score per game (±inf at 0 and 1)."""
    if score <= 0 or score >= 1:
        return math.copysign(math.inf, score - 0.5)
    return -400 * math.log10(1 / score - 1)


def mean_and_variance(probabilities: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of the per-game pair score under these cell probabilities."""
    mean = sum(p * x for p, x in zip(probabilities, SCORES))
    return mean, sum(p * (x - mean) ** 2 for p, x in zip(probabilities, SCORES))


def fit_mean(observed: Sequence[float], score: float) -> list[float]:
    """The distribution closest (most likely) to `observed` whose mean is `score`.

    By Lagrange: q_i = p_i / (1 + x (a_i - score)) with x the root of sum q_i (a_i - score) = 0."""
    shifted = [a - score for a in SCORES]
    x = secular_root(observed, shifted)
    return [p / (1 + x * a) for p, a in zip(observed, shifted)]


def fit_t_value(observed: Sequence[float], t: float, reference: float = 0.5) -> list[float]:
    """The most likely distribution whose t-value (mu - reference) / sigma is `t`.

    The constraint is not linear in q; freezing mu and sigma at the current fit makes it so,
    and a few rounds of that reach the fixed point (van den Bergh, "Normalized Elo", 4.1)."""
    fitted = [1 / len(observed)] * len(observed)  # from uniform: sigma > 0 even for one-sided data
    x = 0.0
    for _ in range(50):
        mu, variance = mean_and_variance(fitted)
        sigma = math.sqrt(variance)
        linear = [a - reference - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2 for a in SCORES]
        x = secular_root(observed, linear, x)  # the last round's root: a close first guess
        previous, fitted = fitted, [p / (1 + x * a) for p, a in zip(observed, linear)]
        if max(abs(q - r) for q, r in zip(fitted, previous)) < 1e-11:
            break
    return fitted


def secular_root(weights: Sequence[float], values: Sequence[float], guess: float = 0.0) -> float:
    """The x with sum w_i a_i / (1 + x a_i) = 0 where every 1 + x a_i > 0.

    The sum falls strictly in x on that interval, from +inf to -inf: Newton's steps, kept inside a
    shrinking bracket by bisection when one would leave it."""
    low, high = -1 / max(values), -1 / min(values)
    if not low < high or max(values) <= 0 or min(values) >= 0:
        raise ValueError("the hypothesis lies outside what these results can fit")
    x = guess if low < guess < high else 0.0
    for _ in range(100):
        f = slope = 0.0
        for w, a in zip(weights, values):
            term = a / (1 + x * a)
            f += w * term
            slope -= w * term * term
        low, high = (x, high) if f > 0 else (low, x)
        step = x - f / slope
        step = step if low < step < high else (low + high) / 2
        if abs(step - x) <= 1e-13 * max(1.0, abs(x)):
            return step
        x = step
    return x


@dataclass(frozen=True)
class Estimate:
    """The Elo difference A - B the pairs show, in the model's unit, with a 95 % interval and LOS."""

    elo: float
    low: float
    high: float
    los: float  # likelihood of superiority: the probability that A is the stronger


def estimate(pentanomial: Sequence[float], model: str = "normalized") -> Estimate:
    """The Elo estimate of these pairs: the mean score and its normal 95 % interval, in Elo.

    Logistic: the logistic Elo of the per-game score. Normalised: the t-value of the pair scores
    in nElo. The LOS is the normal probability that the true mean score is above ½."""
    check_pentanomial(pentanomial)
    pairs = sum(pentanomial)
    if pairs == 0:
        return Estimate(0.0, -math.inf, math.inf, 0.5)
    mean, variance = mean_and_variance([n / sum(regularized(pentanomial)) for n in regularized(pentanomial)])
    error = math.sqrt(variance / pairs)
    los = 0.5 * math.erfc(-(mean - 0.5) / error / math.sqrt(2))
    if pentanomial[0] == pairs or pentanomial[4] == pairs:
        return one_sided(pairs, pentanomial[4] == pairs, los, model)
    if model == "logistic":
        return Estimate(logistic_elo(mean), logistic_elo(mean - Z95 * error), logistic_elo(mean + Z95 * error), los)
    per_pair = NELO_PER_T / math.sqrt(2)
    centre, spread = (mean - 0.5) / math.sqrt(variance) * per_pair, Z95 * per_pair / math.sqrt(pairs)
    return Estimate(centre, centre - spread, centre + spread, los)


def one_sided(pairs: float, won: bool, los: float, model: str) -> Estimate:
    """One side took both games of every pair: the score is 1 (or 0), its Elo infinite, and any
    finite estimate would only echo the regularisation. What the pairs do show is a bound: a side
    that loses a pair with probability q wins all n with probability (1 - q)^n, which is 5 % at
    q = 1 - 0.05^(1/n). The Elo of that least favourable distribution (q of the pairs lost 0-2, the
    rest won 2-0) is the 95 % lower bound (upper, for a side that lost every pair); the estimate
    is infinite with that end of the interval finite."""
    q = 1 - 0.05 ** (1 / pairs)
    cells = [q, 0.0, 0.0, 0.0, 1 - q]
    mean, variance = mean_and_variance(cells)
    if model == "logistic":
        bound = logistic_elo(mean)
    else:
        bound = (mean - 0.5) / math.sqrt(variance) * NELO_PER_T / math.sqrt(2)
    if won:
        return Estimate(math.inf, bound, math.inf, los)
    return Estimate(-math.inf, -math.inf, -bound, los)
