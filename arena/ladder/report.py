"""What `arena ladder status` and the dashboard's ladder page show of one ladder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from arena.ladder.field import LadderConfig
from arena.ladder.matchmaking import Candidate
from arena.store import Store, TournamentInfo

# why the matchmaker chose a table (arena/ladder/matchmaking.py, docs/ladder.md "How a table is chosen"),
# in words; {focus} is the bot the table was built around (seat 0 of its first rotation)
WHY_WORDS = {
    "waited": "{focus} had waited longest: a bot left out for a while is seated first",
    "random": "a random table (1 in 10), so that no corner of the field goes unplayed",
    "focus": "to place {focus}: its rating is the least certain (the widest 95 % interval; a new version "
             "first), so it meets the bots closest to it",
}


def why_words(why: str, focus: str) -> str:
    """What the matchmaker's reason for a table means, for a reader of the ladder page."""
    return WHY_WORDS.get(why, why).format(focus=focus)


def ladder_report(store: Store, info: TournamentInfo, first: int = 0, count: int | None = None) -> dict[str, Any]:
    """What `status` (the whole field) and the dashboard's ladder page (`count` bots of the field
    from place `first`) show of one ladder. The field is ordered, counted and paged by the
    database: a page costs its own rows, not the field's."""
    config = LadderConfig.from_json(info.config)
    entries, total = store.field_page(info.ruleset, config.anchors, offset=first, limit=count)
    hour = store.games_since(info.id, datetime.now(UTC) - timedelta(hours=1), [e.entrant for e in entries])
    field = []
    for entry in entries:
        rated = () if entry.elo is None else (entry.elo, entry.low, entry.high, entry.games)
        field.append({"bot": entry.entrant, "elo": entry.elo, "games": entry.games,
                      "provisional": Candidate(entry.entrant, entry.owner, *rated).provisional,
                      "last_hour": hour.get(entry.entrant, 0), "anchor": entry.anchor})
    suspended = [{"bot": entrant, "reason": reason} for entrant, reason in store.suspended_ladder_versions()]
    live = [{"index": m.match_index, "table": m.table_no, "seats": list(m.seats), "steps": len(m.steps)}
            for m in store.live_matches(info.id)]
    playing = {m["index"] for m in live}
    queue = [{"index": m.index, "table": m.table, "seats": list(m.seats), "why": m.why,
              "why_words": why_words(m.why, m.seats[-m.rotation % len(m.seats)])}
             for m in store.pending_ladder_matches(info.id) if m.index not in playing]
    stale = info.seems_stopped(datetime.now(UTC), after_s=30)
    return {"id": info.id, "game": info.game_id, "ruleset": info.ruleset, "players": config.players_per_match,
            "status": info.status + (" (no sign of life for 30 s: not running?)" if stale else ""),
            "matches": info.done_matches, "aborted": info.aborted_matches, "anchors": list(config.anchors),
            "field": field, "field_total": total, "suspended": suspended, "queue": queue,
            "live": live, "note": info.note}
