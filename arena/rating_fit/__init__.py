"""The numbers behind arena/rating.py, vectorized over every bot: the maximum-likelihood fit and the
likelihood intervals, from the pairwise totals (per pair of bots: games and score).

The model is the one arena/rating.py's docstring states (Bradley-Terry on Elo's 400-point scale,
one virtual draw per pair that met, each connected group of bots centred on 1500). Here it is
solved as a numerical library would:

- the fit is Newton's method on the joint log-likelihood, which is concave: its Hessian is a
  weighted graph Laplacian (pair weight w·p·(1-p)), sparse, solved by conjugate gradients with the
  diagonal as preconditioner (scipy), applied pair by pair (no matrix is built: a random field's
  Laplacian is so well conditioned that about 7 products solve it). A Newton step that would lower
  the likelihood is halved. A start near the answer (the stored ratings, or those before the last
  batch of results) needs one or two steps.
- each interval end is a root of one bot's own log-likelihood minus its best minus 1.92, the
  others fixed: a one-dimensional, concave problem per bot, solved for all bots at once by
  Newton's method kept inside a bracket (bisection where Newton would leave it), starting from
  the quadratic (Wald) estimate.

- a live update after a few new results moves each bot that played alone, over the new results
  only (`local`), while they are a small share of its games; else it is a fit from the ratings
  before.

Everything works on arrays indexed by pair (a, b, games, score: `pairs.PairArrays`) and bot;
`np.bincount` gathers the pairs' terms into each bot's sums, a block of pairs at a time
(`pairs.blocks`): on a big field (5.7M pairs at 1M matches among 10k bots) arrays of the pairs'
size made new for every operation cost more in memory first touched than in arithmetic, so no
kernel makes them, and the process keeps the memory it freed (`pairs.keep_freed_memory`).
"""

from arena.rating_fit.local import local_enough, local_update
from arena.rating_fit.model import (
    HALF_CHI2_95,
    INITIAL,
    LIVE_TOLERANCE,
    PER_ELO,
    PRIOR_DRAWS,
    TOLERANCE,
    Floats,
    Ints,
    Pairs,
)
from arena.rating_fit.pairs import Columns, PairArrays, components, keep_freed_memory
from arena.rating_fit.solve import centred, curvature, fit_array, intervals, log_likelihood

__all__ = ["HALF_CHI2_95", "INITIAL", "LIVE_TOLERANCE", "PER_ELO", "PRIOR_DRAWS", "TOLERANCE", "Columns", "Floats",
           "Ints", "PairArrays", "Pairs", "centred", "components", "curvature", "fit_array", "intervals",
           "keep_freed_memory", "local_enough", "local_update", "log_likelihood"]
