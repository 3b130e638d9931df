"""How a test is shown: the CLI's lines and the JSON that `arena sprt --show --json` and the dashboard serve."""

from __future__ import annotations

import math
from typing import Any

from arena.store import SprtInfo, SprtState

UNITS = {"normalized": "nElo", "logistic": "Elo"}
VERDICTS = {"H1": "H1 accepted", "H0": "H0 accepted", "undecided": "undecided (max pairs)", None: "running"}


def state_text(state: SprtState, model: str | None = None) -> str:
    """Pairs, pentanomial counts, LLR (bounds), Elo ± half its 95 % interval, LOS, verdict."""
    counts = " ".join(str(n) for n in state.pentanomial)
    spread = (state.high - state.low) / 2
    elo = f"{state.elo:+.1f} ± {spread:.1f}" if math.isfinite(spread) else "?"
    return (f"{state.pairs} pairs [{counts}]  LLR {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f})  "
            f"{elo}{' ' + UNITS[model] if model else ''}  LOS {100 * state.los:.1f}%  {VERDICTS[state.verdict]}")


def verdict_line(info: SprtInfo) -> str:
    """`sprt 3 (riviera@1): H1 accepted after 147 pairs: heuristic is better than random by at least 5 nElo; ...`."""
    config, state = info.tournament.config, info.state
    unit = UNITS[config["model"]]
    meaning = {"H1": f": {config['a']} is better than {config['b']} by at least {config['elo1']:g} {unit}",
               "H0": f": {config['a']} is not better than {config['b']} by more than {config['elo0']:g} {unit}"}
    return (f"sprt {info.id} ({info.tournament.ruleset}): {VERDICTS[state.verdict]} after {state.pairs} pairs"
            f"{meaning.get(state.verdict or '', '')}; estimate {state.elo:+.1f} {unit} [{state.low:.1f}, "
            f"{state.high:.1f}], LOS {100 * state.los:.1f}%"
            + (f"; {state.aborted_pairs} pairs aborted" if state.aborted_pairs else ""))


def sprt_json(info: SprtInfo) -> dict[str, Any]:
    """A test as JSON (the dashboard API serves the same): config, state, LLR after every pair."""
    state = info.state
    return {
        "id": info.id, "name": info.tournament.name, "game": info.tournament.game_id,
        "ruleset": info.tournament.ruleset, "status": info.tournament.status, "config": info.tournament.config,
        "pairs": state.pairs, "aborted_pairs": state.aborted_pairs, "pentanomial": state.pentanomial,
        "llr": round(state.llr, 4), "lower": round(state.lower, 4), "upper": round(state.upper, 4),
        "elo": finite(state.elo), "low95": finite(state.low), "high95": finite(state.high),
        "los": round(state.los, 4), "unit": UNITS[info.tournament.config["model"]], "verdict": state.verdict,
        "games": info.tournament.done_matches, "created_at": info.tournament.created_at.isoformat(),
        "history": [{"pairs": p, "llr": round(v, 4)} for p, v in info.history],
    }


def finite(value: float) -> float | None:
    """A number for JSON: rounded, or None for an unbounded end."""
    return None if math.isinf(value) or math.isnan(value) else round(value, 2)
