"""How a test is shown: the CLI's lines and the JSON that `arena sprt --show --json` and the dashboard serve."""

from __future__ import annotations

import math
from typing import Any

from arena.outcomes import TournamentStatus, Verdict
from arena.store import SprtInfo, SprtState

UNITS = {"normalized": "nElo", "logistic": "Elo"}
VERDICTS: dict[str | None, str] = {Verdict.H1: "H1 accepted", Verdict.H0: "H0 accepted",
                                   Verdict.UNDECIDED: "undecided (max pairs)", None: TournamentStatus.RUNNING}


def state_text(state: SprtState, model: str | None = None) -> str:
    """Pairs, pentanomial counts, LLR (bounds), Elo ± half its 95 % interval, LOS, verdict."""
    counts = " ".join(str(n) for n in state.pentanomial)
    spread = (state.high - state.low) / 2
    unit = " " + UNITS[model] if model else ""
    if (bound := elo_bound(state)) is not None:
        elo = f"{bound}{unit} (95 % bound)"
    else:
        elo = f"{state.elo:+.1f} ± {spread:.1f}{unit}" if math.isfinite(spread) else "?"
    return (f"{state.pairs} pairs [{counts}]  LLR {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f})  "
            f"{elo}  LOS {100 * state.los:.1f}%  {VERDICTS[state.verdict]}")


def elo_bound(state: SprtState) -> str | None:
    """"> +135.2" when one side won every pair (the estimate is infinite, only a bound is known:
    stats.one_sided), "< -135.2" when it lost every pair; else None."""
    if state.elo == math.inf and math.isfinite(state.low):
        return f"> {state.low:+.1f}"
    if state.elo == -math.inf and math.isfinite(state.high):
        return f"< {state.high:+.1f}"
    return None


def verdict_line(info: SprtInfo) -> str:
    """`sprt 3 (riviera@1): H1 accepted after 147 pairs: heuristic is better than random by at least 5 nElo; ...`."""
    config, state = info.tournament.config, info.state
    unit = UNITS[config["model"]]
    meaning: dict[str, str] = {
        Verdict.H1: f": {config['a']} is better than {config['b']} by at least {config['elo1']:g} {unit}",
        Verdict.H0: f": {config['a']} is not better than {config['b']} by more than {config['elo0']:g} {unit}"}
    return (f"sprt {info.id} ({info.tournament.ruleset}): {VERDICTS[state.verdict]} after {state.pairs} pairs"
            f"{meaning.get(state.verdict or '', '')}; estimate {estimate_text(state, unit)}, LOS {100 * state.los:.1f}%"
            + (f"; {state.aborted_pairs} pairs aborted" if state.aborted_pairs else ""))


def estimate_text(state: SprtState, unit: str) -> str:
    """`+12.3 nElo [-1.0, 25.6]`, or `> +135.2 nElo (every pair won: a 95 % bound)`."""
    if (bound := elo_bound(state)) is not None:
        side = "won" if state.elo > 0 else "lost"
        return f"{bound} {unit} (every pair {side}: a 95 % bound)"
    return f"{state.elo:+.1f} {unit} [{state.low:.1f}, {state.high:.1f}]"


def sprt_json(info: SprtInfo) -> dict[str, Any]:
    """A test as JSON (the dashboard API serves the same): config, state, LLR after every pair."""
    state = info.state
    return {
        "id": info.id, "name": info.tournament.name, "game": info.tournament.game_id,
        "ruleset": info.tournament.ruleset, "status": info.tournament.status, "config": info.tournament.config,
        "pairs": state.pairs, "aborted_pairs": state.aborted_pairs, "pentanomial": state.pentanomial,
        "llr": round(state.llr, 4), "lower": round(state.lower, 4), "upper": round(state.upper, 4),
        "elo": finite(state.elo), "low95": finite(state.low), "high95": finite(state.high),
        "elo_bound": elo_bound(state),  # "> +135.2" when every pair went one way (elo is then null)
        "los": round(state.los, 4), "unit": UNITS[info.tournament.config["model"]], "verdict": state.verdict,
        "games": info.tournament.done_matches, "created_at": info.tournament.created_at.isoformat(),
        "history": [{"pairs": p, "llr": round(v, 4)} for p, v in info.history],
    }


def finite(value: float) -> float | None:
    """A number for JSON: rounded, or None for an unbounded end."""
    return None if math.isinf(value) or math.isnan(value) else round(value, 2)
