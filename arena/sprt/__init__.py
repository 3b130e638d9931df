"""Sequential probability ratio tests between two bots: is A better than B?

`stats` is the statistics (`llr`, `bounds`, `estimate`), `pairs` what a test plays, `driver` how
it runs and is stored. How to choose the bounds and the model: docs/sprt.md.
"""

from arena.sprt.stats import MODELS, Estimate, bounds, decide, estimate, llr

__all__ = ["MODELS", "Estimate", "bounds", "decide", "estimate", "llr"]
