"""What the author pages show of one of the author's bots: its versions with ratings and state, and
its recent and running matches (dashboards/authors.py renders them; static/author.js redraws the
matches from the same dicts, polled as JSON).

The bot comes as the authors' service listed it (an AuthorBot message: so it is the author's); what
the service does not send — a version's suspension, the matches — is read from the database.
"""

from __future__ import annotations

from typing import Any

from arena.store import Store
from arena.store import dashboard_queries as dq
from arena.store.records import PROVISIONAL_HALF_WIDTH, is_provisional
from dashboards.pages import _game_name as game_name

RECENT = 20  # matches on the bot's page


def bot_url(bot: str) -> str:
    return f"/my/bots/{bot}"  # bot names are letters, digits, '_', '.', '-': nothing to quote


def bot_view(store: Store, listed: Any) -> dict[str, Any]:
    """One of the author's bots for its pages: versions (newest first) with ratings and state."""
    suspended = {v.number: v.suspended for v in store.versions(listed.name)}
    versions = []
    for v in listed.versions:
        ratings = [{"game": r.game_id, "ruleset": r.ruleset, "elo": r.elo, "games": r.games, "place": r.place,
                    "low95": r.low if abs(r.low) != float("inf") else None,
                    "high95": r.high if abs(r.high) != float("inf") else None,
                    "provisional": is_provisional(r.low, r.high)} for r in v.ratings]
        versions.append({"entrant": f"{v.bot}@{v.number}", "number": v.number, "sha256": v.sha256,
                         "command": v.command, "submitted_at": v.submitted_at, "ratings": ratings,
                         "suspended": suspended.get(v.number), "hold": v.hold})
    return {"name": listed.name, "disabled": listed.disabled, "registered_at": listed.registered_at,
            "versions": versions[::-1], "state": state(listed.disabled, versions[-1] if versions else None)}


def state(disabled: bool, latest: dict[str, Any] | None) -> dict[str, str]:
    """The bot's state as its author sees it: disabled, suspended (why), validating, provisional or active."""
    if disabled:
        return {"name": "disabled", "text": "disabled: it may not connect or be seated (enable lifts it)"}
    if latest is None:
        return {"name": "active", "text": "active: it dials in with its token (no version submitted)"}
    if latest["suspended"]:
        return {"name": "suspended", "text": f"suspended: {latest['suspended']}"}
    if latest["hold"]:  # not seated until its validation match has played (arena/ladder/validation.py)
        return {"name": "validating", "text": f"validating: {latest['entrant']} is {latest['hold']}"}
    if not latest["ratings"] or any(r["provisional"] for r in latest["ratings"]):
        return {"name": "provisional", "text": f"provisional: {latest['entrant']} is still being placed (not rated "
                                               f"yet, or a 95 % interval wider than ±{PROVISIONAL_HALF_WIDTH:g} Elo)"}
    return {"name": "active", "text": f"active: {latest['entrant']} plays"}


def recent_matches(store: Store, bot: str, entrants: list[str]) -> dict[str, Any]:
    """The bot's latest matches (its seats, with a link to each seat's log) and those playing now."""
    names = [bot, *entrants]
    rows = []
    for match in dq.matches_of(store, names, limit=RECENT):
        mine = [s for s in match.seats if s.entrant in names]
        rows.append({"id": match.id, "url": f"/matches/{match.id}", "game": match.game_id,
                     "game_name": game_name(match.game_id), "status": match.status,
                     "finished_at": match.finished_at.isoformat() if match.finished_at else None,
                     "opponents": [s.entrant for s in match.seats if s.entrant not in names],
                     "seats": [{"seat": s.seat, "entrant": s.entrant, "rank": s.rank, "termination": s.termination,
                                "reason": s.reason, "log": f"{bot_url(bot)}/logs/{match.id}",
                                "replay": f"{bot_url(bot)}/replays/{match.id}"} for s in mine]})
    live = [{"url": f"/tournaments/{t}/live/{i}", "tournament": t, "index": i, "seats": seats}
            for t, i, seats in dq.live_seats_of(store, names)]
    return {"matches": rows, "live": live}
