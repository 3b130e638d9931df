"""The rating model's constants and the array types of arena/rating_fit/ (the model itself:
arena/rating.py's docstring)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

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
Pairs = tuple[Ints, Ints, Floats, Floats]  # (a, b, games, a's score) per pair, the virtual draw included
