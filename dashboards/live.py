"""Live matches: what the dashboard may show of the matches a tournament is playing now.

The driver writes each running match's steps so far to the store about once a second
(arena/match/live.py). Live pages are public, so a live match shows the public view only (what every
seat sees alike: dashboards/replay.py `public_view`, and the public step log), never a seat's.

The sibling rule. The seat rotations of a table share one chance seed (duplicate play), so a
rotation that is ahead shows dice and cards that its siblings have not drawn yet; a watcher could
pass them to a connected bot playing a sibling. A live match is therefore shown only up to the
last position whose number of chance steps does not exceed that of any sibling still to finish:
a running sibling counts the chance steps the driver last wrote for it, a sibling not started
yet (or not written yet) counts 0, a finished (stored) sibling does not constrain. docs/dashboard.md
says where the rule stops.
"""

from __future__ import annotations

import enum
from typing import Any

from arena.outcomes import Termination, TournamentStatus
from arena.store import LiveMatch, Store, TournamentInfo
from arena.store import dashboard_queries as dq
from arena.store.release import replay_withheld
from dashboards import views
from dashboards.params import BadRequest
from dashboards.replay import PUBLIC, Replay


class LiveStatus(enum.StrEnum):
    """A match's live state (`live_state`): being played, not (yet) sending steps, or stored."""

    RUNNING = "running"
    WAITING = "waiting"
    FINISHED = "finished"


def visible_steps(steps: list[dict[str, Any]], sibling_chance: list[int]) -> int:
    """How many of a live match's steps may be shown: all of them up to (not including) the
    chance step that would exceed the fewest chance steps any unfinished sibling has drawn.

    >>> visible_steps([{"chance": 1}, {"chance": None}, {"chance": 2}], [1])
    2
    """
    if not sibling_chance:
        return len(steps)
    allowed, drawn = min(sibling_chance), 0
    for n, step in enumerate(steps):
        if step.get("chance") is not None:
            drawn += 1
            if drawn > allowed:
                return n
    return len(steps)


def sibling_chance(store: Store, info: TournamentInfo, live: LiveMatch, running: list[LiveMatch]) -> list[int]:
    """The chance steps drawn by each sibling of `live` that has not finished (0: not started)."""
    rotations = int(info.config["players_per_match"])
    stored = store.stored_in_table(info.id, live.table_no)
    drawn = {m.match_index: m.chance_steps for m in running if m.table_no == live.table_no}
    first = live.match_index - live.rotation  # the rotations of a table have consecutive indexes
    siblings = [first + r for r in range(rotations) if first + r != live.match_index]
    return [drawn.get(index, 0) for index in siblings if index not in stored]


def shown_steps(store: Store, info: TournamentInfo, live: LiveMatch, running: list[LiveMatch]) -> int:
    """How many steps of a running match the live pages show (the sibling rule)."""
    return visible_steps(live.steps, sibling_chance(store, info, live, running))


def live_list(store: Store, info: TournamentInfo) -> list[dict[str, Any]]:
    """The tournament's running matches as its page lists them (nothing unless it is running)."""
    if info.status != TournamentStatus.RUNNING:
        return []
    running = store.live_matches(info.id)
    return [
        {"index": m.match_index, "table": m.table_no, "rotation": m.rotation, "seats": m.seats,
         "steps_shown": (shown := shown_steps(store, info, m, running)), "held_back": shown < len(m.steps),
         "updated_at": m.updated_at.isoformat() if m.updated_at else None,
         "url": f"/tournaments/{info.id}/live/{m.match_index}"}
        for m in running
    ]


def live_replay(info: TournamentInfo, live: LiveMatch, steps: int) -> Replay:
    """The first `steps` steps of a running match as a replay (no seeds: they would name the deal)."""
    record = {
        "game_id": info.game_id, "ruleset": info.ruleset, "options": info.config.get("options", {}), "seed": 0,
        "seats": [{"bot": name, "termination": Termination.NORMAL, "reason": ""} for name in live.seats],
        "steps": live.steps[:steps],
    }
    return Replay.from_record(record, list(live.seats))


def live_state(store: Store, info: TournamentInfo, index: int) -> dict[str, Any]:
    """A running match's latest position that may be shown, publicly (status `running`); once its
    result is stored, that result (`finished`); else `waiting`. 404 for an index the tournament lacks."""
    live = store.live_match(info.id, index) if info.status == TournamentStatus.RUNNING else None
    if live is None:
        return _not_live(store, info, index)
    shown = shown_steps(store, info, live, store.live_matches(info.id))
    replay = live_replay(info, live, shown)
    return {
        "status": LiveStatus.RUNNING, "tournament": info.id, "index": index, "game": info.game_id,
        "seats": [{"seat": s, "bot": name} for s, name in enumerate(live.seats)],
        "steps_shown": shown, "held_back": shown < len(live.steps), "view": PUBLIC,
        "seat_fields": replay.seat_fields(), "log": replay.log(PUBLIC), "frame": replay.frame(shown, PUBLIC),
        "updated_at": live.updated_at.isoformat() if live.updated_at else None,
    }


def _not_live(store: Store, info: TournamentInfo, index: int) -> dict[str, Any]:
    if not 0 <= index < info.total_matches:
        raise BadRequest(f"tournament {info.id} has matches 0 to {info.total_matches - 1}, not {index}", 404)
    match_id = store.match_id_at(info.id, index)
    summary = match_id and dq.match_summary(store, match_id)
    if not summary:  # not a wrong address: the page waits for it
        return {"status": LiveStatus.WAITING, "tournament": info.id, "index": index, "game": info.game_id,
                "message": f"match {index} of tournament {info.id} is not being played now (the tournament is "
                           f"{info.status}; the match has not started, or has not sent its first steps yet)"}
    return {"status": LiveStatus.FINISHED, "tournament": info.id, "index": index, "game": info.game_id,
            "tournament_status": info.status, "match": views.match_row(summary),
            "replay_open": replay_withheld(store, match_id) is None}
