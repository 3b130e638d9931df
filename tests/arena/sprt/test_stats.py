"""The SPRT statistics: LLR against published reference values, bounds, estimates, error rates."""

from __future__ import annotations

import math
import random

import pytest

from arena.sprt import bounds, decide, estimate, llr
from arena.sprt.simulate import run_test, true_elo, with_elo
from arena.sprt.stats import NELO_PER_T, fit_mean, fit_t_value, mean_and_variance, regularized

# Published reference values: fastchess, tests/sprt_test.cpp (Disservin/fastchess), the
# "normalized pentanomial 1/2" and "logistic pentanomial 1/2" cases, checked there to 1 %.
# fastchess writes a pentanomial as Stats(LL, LD, WL, DD, WD, WW); our cells are
# [LL, LD, WL + DD, WD, WW].
FASTCHESS = [
    ([365, 16618, 36029 + 200, 16974, 390], 0.0, 2.0, "normalized", 2.25),
    ([127, 4883, 10311 + 401, 5150, 104], -1.75, 0.25, "normalized", 3.01),
    ([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5, "logistic", -3.07),
    ([871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0, "logistic", -4.98),
]


@pytest.mark.parametrize(("pentanomial", "elo0", "elo1", "model", "expected"), FASTCHESS)
def test_llr_equals_the_published_reference_values(pentanomial, elo0, elo1, model, expected) -> None:
    assert llr(pentanomial, elo0, elo1, model) == pytest.approx(expected, rel=0.01, abs=0.005)


def test_normalized_llr_agrees_with_the_independent_approximation() -> None:
    # Independent of the maximum-likelihood fit: van den Bergh's closed form, "Normalized Elo
    # practical", section 4.2, (games / 2) ln((1 + (t - t0)^2) / (1 + (t - t1)^2)) with the
    # per-game t-value t; close to the exact GSPRT for many pairs and small t.
    for pentanomial, elo0, elo1, _, _ in FASTCHESS:
        counts = regularized(pentanomial)
        mean, variance = mean_and_variance([n / sum(counts) for n in counts])
        t = (mean - 0.5) / math.sqrt(2 * variance)
        t0, t1 = elo0 / NELO_PER_T, elo1 / NELO_PER_T
        approx = sum(counts) * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))
        assert llr(pentanomial, elo0, elo1, "normalized") == pytest.approx(approx, rel=0.02)


def test_the_fits_meet_their_constraints_and_are_distributions() -> None:
    observed = [0.05, 0.2, 0.45, 0.2, 0.1]
    for fitted, check in ((fit_mean(observed, 0.53), lambda m, v: m - 0.53),
                          (fit_t_value(observed, 0.1), lambda m, v: (m - 0.5) / math.sqrt(v) - 0.1)):
        assert sum(fitted) == pytest.approx(1.0) and all(q > 0 for q in fitted)
        assert check(*mean_and_variance(fitted)) == pytest.approx(0.0, abs=1e-9)


def test_llr_is_zero_without_pairs_and_refuses_a_bad_pentanomial_or_model() -> None:
    assert llr([0, 0, 0, 0, 0], 0, 5) == 0.0
    with pytest.raises(ValueError, match="five pair counts"):
        llr([1, 2, 3], 0, 5)
    with pytest.raises(ValueError, match="valid models: normalized, logistic"):
        llr([1, 2, 3, 4, 5], 0, 5, model="bayes")


def test_bounds_and_decisions() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert (lower, upper) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert lower == pytest.approx(-2.944, abs=1e-3)
    assert decide(upper, 0.05, 0.05) == "H1" and decide(lower, 0.05, 0.05) == "H0"
    assert decide(0.0, 0.05, 0.05) is None


def test_estimate_centre_interval_and_los() -> None:
    even = estimate([10, 40, 100, 40, 10], "logistic")
    assert even.elo == pytest.approx(0.0, abs=1e-9) and even.los == pytest.approx(0.5)
    assert even.low < 0 < even.high and even.high == pytest.approx(-even.low)
    ahead = estimate([10, 30, 100, 50, 20], "logistic")
    mean = (30 * 0.25 + 100 * 0.5 + 50 * 0.75 + 20) / 210
    assert ahead.elo == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert ahead.low < ahead.elo < ahead.high and 0.99 < ahead.los < 1
    normalized = estimate([10, 30, 100, 50, 20], "normalized")
    assert normalized.high - normalized.low == pytest.approx(2 * 1.96 * NELO_PER_T / math.sqrt(2 * 210), rel=1e-3)
    assert estimate([0, 0, 0, 0, 0]).low == -math.inf


def test_a_tilted_distribution_has_the_asked_elo() -> None:
    for model in ("normalized", "logistic"):
        assert true_elo(with_elo(37.0, model), model) == pytest.approx(37.0, abs=1e-6)


# Simulated tests (no games): wide bounds keep each run to a few dozen pairs. At the bounds the
# error rates must be within alpha and beta, up to three binomial standard deviations of the run
# count; beyond them the verdict is the right one nearly always.
SIMULATIONS = [("normalized", 150), ("logistic", 300)]


@pytest.mark.parametrize(("model", "runs"), SIMULATIONS)
def test_simulated_error_rates_are_within_alpha_and_beta(model: str, runs: int) -> None:
    elo0, elo1, alpha, beta = 0.0, 80.0, 0.05, 0.05
    rng = random.Random(2026)
    at_elo0 = [run_test(with_elo(elo0, model), elo0, elo1, model, rng)[0] for _ in range(runs)]
    at_elo1 = [run_test(with_elo(elo1, model), elo0, elo1, model, rng)[0] for _ in range(runs)]
    assert at_elo0.count("H1") / runs <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    assert at_elo1.count("H0") / runs <= beta + 3 * math.sqrt(beta * (1 - beta) / runs)
    assert at_elo0.count("H0") > at_elo0.count("H1") and at_elo1.count("H1") > at_elo1.count("H0")


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_simulated_runs_accept_h1_above_elo1_and_h0_below_elo0(model: str) -> None:
    rng = random.Random(16)
    above = [run_test(with_elo(140.0, model), 0.0, 80.0, model, rng)[0] for _ in range(40)]
    below = [run_test(with_elo(-60.0, model), 0.0, 80.0, model, rng)[0] for _ in range(40)]
    assert above.count("H1") >= 38 and below.count("H0") >= 38


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_a_side_that_won_every_pair_gets_a_bound_not_an_estimate(model: str) -> None:
    for pairs in (1, 10, 100):
        won, lost = estimate([0, 0, 0, 0, pairs], model), estimate([pairs, 0, 0, 0, 0], model)
        assert won.elo == math.inf and won.high == math.inf and math.isfinite(won.low)
        assert (won.low > 0) is (pairs > 1), "one pair won proves little: the bound is below 0"
        assert lost.elo == -math.inf and lost.low == -math.inf and lost.high == -won.low
    # the bound is the Elo of the least favourable counts that win every pair 5 % of the time
    q = 1 - 0.05 ** (1 / 10)
    least = estimate([q * 1e6, 0, 0, 0, (1 - q) * 1e6], model)
    assert estimate([0, 0, 0, 0, 10], model).low == pytest.approx(least.elo, rel=1e-3)
    assert estimate([0, 0, 0, 0, 10], model).low < estimate([0, 0, 0, 0, 100], model).low, "more pairs, tighter"
    assert math.isfinite(estimate([0, 0, 0, 1, 10], model).elo), "one pair not won: an estimate again"
