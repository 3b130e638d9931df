"""What each page shows, as plain JSON-able data: the JSON API returns it as it is and the HTML
pages render it, so the two always agree.

Every function takes the open Store and checked parameters; one that names something not
stored raises BadRequest with status 404.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import replace
from datetime import datetime
from typing import Any

from arena.outcomes import MatchStatus
from arena.sprt.report import sprt_json
from arena.standings import row_json, tournament_standings
from arena.store import LeaderboardRow, MatchSummary, SprtInfo, Store, TournamentInfo
from arena.store import dashboard_queries as dq
from arena.store import leaderboard_queries as lq
from arena.store.records import PROVISIONAL_HALF_WIDTH
from arena.store.shared_matches import shared_matches
from arena.tournament.entrants import bot_name, latest_versions_only, version_number
from arena.tournament.schedule import bot_spec
from bots import is_builtin
from dashboards.params import BadRequest, check_page_exists
from dashboards.stats import downsample, los
from engine import registry

TOP_BOTS = 5
LEADERBOARD_PER_PAGE = 100  # rows of a leaderboard page (`?page=`, `?per_page=` up to 200)
BOTS_PER_PAGE = 100  # rows of the bots page, the same way
FIELD_PER_PAGE = 100  # bots of each ladder's field on the ladder page, the same way
STANDINGS_PER_PAGE = 100  # rows of a tournament's standings, the same way
RATED_NAMED = 50  # the rated bots an error about an unrated one names (the top ones)


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


# -- games and leaderboards ---------------------------------------------------------------------


def games(store: Store) -> list[dict[str, Any]]:
    """Every registered game with the rulesets that have stored matches."""
    stored = dq.rulesets(store)
    return [
        {"game": game_id, "name": registry.info(game_id).name,
         "rulesets": [r for r in stored if ruleset_game(r) == game_id]}
        for game_id in registry.game_ids()
    ]


def ruleset_game(ruleset: str) -> str:
    """`riviera@1+mode=sequential` -> `riviera`."""
    return ruleset.split("@", 1)[0]


def pick_ruleset(store: Store, game_id: str | None, ruleset: str | None) -> tuple[str, str | None]:
    """(game, ruleset) to show: the given ones checked, else the first game and ruleset with matches."""
    if ruleset:
        if game_id and ruleset_game(ruleset) != game_id:
            raise BadRequest(f"ruleset {ruleset!r} is not a ruleset of {game_id!r}")
        if ruleset not in dq.rulesets(store, ruleset_game(ruleset)):
            known = ", ".join(dq.rulesets(store)) or "none yet"
            raise BadRequest(f"no matches of ruleset {ruleset!r} are stored; stored rulesets: {known}", 404)
        return ruleset_game(ruleset), ruleset
    if game_id:
        found = dq.rulesets(store, game_id)
        return game_id, found[-1] if found else None
    stored = dq.rulesets(store)
    if stored:
        return ruleset_game(stored[0]), stored[0]
    return registry.game_ids()[0], None


def leaderboard(store: Store, game_id: str, ruleset: str | None, all_versions: bool = False, page: int = 1,
                per_page: int = LEADERBOARD_PER_PAGE) -> dict[str, Any]:
    """One page of the ratings of one ruleset, best first, with what the table shows beside each:
    each bot's latest rated version (`mybot@2`), or every version with `all_versions`. Only the
    page's rows are read and looked up (a field of thousands costs per row shown, not per bot):
    the older versions left out are found among the few rated entrants past version 1, and the
    page is read past those above it."""
    hidden = hidden_versions(store, ruleset) if ruleset and not all_versions else {}
    total = lq.rating_count(store, ruleset) - len(hidden) if ruleset else 0
    pages = check_page_exists(page, per_page, total)
    read = _page_rows(store, ruleset, hidden, (page - 1) * per_page, per_page + 1) if ruleset else []
    rows = read[:per_page]  # and the next one down, for the last row's LOS
    shown = [row.entrant for row in rows]
    played = dq.last_played(store, ruleset, shown) if ruleset else {}
    versions = dq.latest_versions(store, ruleset, shown) if ruleset else {}
    below_of = dict(zip(shown, [row.entrant for row in read[1:]], strict=False))
    pairs = dq.pair_records(store, ruleset, list(below_of.items())) if ruleset else {}
    entries = [{**rating_row(row), "version": _version(versions.get(row.entrant)),
                "last_played": iso(played.get(row.entrant)),
                "los_next": _pair_los(pairs, row.entrant, below_of[row.entrant]) if row.entrant in below_of else None}
               for row in rows]
    return {
        "game": game_id, "ruleset": ruleset, "rulesets": dq.rulesets(store, game_id),
        "matches": store.rated_count(ruleset) if ruleset else 0,  # the matches the table rates
        "stored_matches": store.count_matches(ruleset=ruleset, status=MatchStatus.FINISHED) if ruleset else 0,
        "provisional_half_width": PROVISIONAL_HALF_WIDTH, "rows": entries,
        "all_versions": all_versions, "hidden_versions": len(hidden),
        "page": page, "pages": pages, "per_page": per_page, "total": total,
        "elo_range": lq.elo_range(store, ruleset, sorted(hidden)) if ruleset else None,
    }


def hidden_versions(store: Store, ruleset: str) -> dict[str, int]:
    """The older versions the leaderboard leaves out (`latest_versions_only`), each with its place
    among every rating: an older version is hidden by a later one, so only the families of the
    rated entrants past version 1 are read."""
    names: set[str] = set()
    for entrant in lq.later_versions(store, ruleset):
        spec, mark, label = entrant.partition("#")
        names |= {f"{bot_name(spec)}{version}{mark}{label}"
                  for version in ["", *(f"@{n}" for n in range(1, version_number(entrant) + 1))]}
    rated = [row for rows in dq.every_entrant_ratings(store, sorted(names)).values() for row in rows
             if row.ruleset == ruleset] if names else []
    kept = {row.entrant for row in latest_versions_only(rated)}
    return {row.entrant: row.place for row in rated if row.entrant not in kept}


def _page_rows(store: Store, ruleset: str, hidden: dict[str, int], first: int, count: int) -> list[LeaderboardRow]:
    """`count` rows of the leaderboard without the `hidden` versions from its `first` row, placed
    1, 2, 3... over the whole of it (the stored order, Elo down, read past the hidden rows above)."""
    above = sorted(place - 1 for place in hidden.values())  # their indexes among every rating
    start = first
    while (moved := first + bisect_right(above, start)) != start:
        start = moved
    read = store.leaderboard(ruleset, limit=count + len(hidden), offset=start)
    return [replace(row, place=row.place - bisect_left(above, row.place - 1))
            for row in read if row.entrant not in hidden][:count]


def rating_row(row: LeaderboardRow) -> dict[str, Any]:
    """The CLI's leaderboard row (`arena leaderboard --json`), marked provisional or not."""
    return row_json(row)  # marked provisional by the leaderboard's rule (arena/store/records.py)


def _version(info: dq.VersionInfo | None) -> str | None:
    return info.version if info else None


def _pair_los(pairs: dict[tuple[str, str], dq.PairRecord], a: str, b: str) -> float | None:
    first, second = sorted((a, b))
    record = pairs.get((first, second))
    if record is None:
        return None
    ahead, behind = (record.a_ahead, record.b_ahead) if first == a else (record.b_ahead, record.a_ahead)
    value = los(ahead, behind)
    return None if value is None else round(value, 4)


def rating_history(store: Store, ruleset: str, bots: list[str] | None = None, *, rated: bool = False,
                   ) -> dict[str, Any]:
    """Each bot's rating fitted to the matches so far, as they came in (x = matches in rating order).

    Without `bots`: the TOP_BOTS best of the leaderboard. `rated`: the caller read `bots` from the
    ruleset's leaderboard (its page's chart), so they are not looked up again (404 for one without
    a rating otherwise)."""
    if bots and not rated:
        rated_in(store, ruleset, bots, placed=False)
    names = bots or [row.entrant for row in store.leaderboard(ruleset, limit=TOP_BOTS)]
    histories = dq.rating_histories(store, ruleset, names)
    series = []
    for name in names:
        points = [(position + 1, round(elo, 1)) for position, elo in histories[name]]
        series.append({"bot": name, "points": [list(p) for p in downsample(points)]})
    return {"ruleset": ruleset, "series": series}


def rated_in(store: Store, ruleset: str, bots: list[str], placed: bool = True) -> dict[str, LeaderboardRow]:
    """The leaderboard rows of `bots` in a ruleset, looked up by name (a field may hold far more
    bots than one leaderboard read), with their places if `placed`; 404 naming the first one
    without a rating, and some that have one."""
    found = {name: row for name, rows in dq.every_entrant_ratings(store, bots, placed).items()
             for row in rows if row.ruleset == ruleset}
    for bot in bots:
        if bot not in found:
            some = [row.entrant for row in store.leaderboard(ruleset, limit=RATED_NAMED + 1)]
            named = ", ".join(sorted(some[:RATED_NAMED])) + (", ..." if len(some) > RATED_NAMED else "")
            raise BadRequest(f"bot {bot!r} has no rating in {ruleset}; rated: {named or 'none'}", 404)
    return found


# -- head to head -------------------------------------------------------------------------------


def head_to_head(store: Store, ruleset: str, a: str, b: str) -> dict[str, Any]:
    """Two bots' record at the tables they shared and the likelihood that `a` is the stronger."""
    rated = rated_in(store, ruleset, [a, b])
    if a == b:
        raise BadRequest("choose two different bots to compare")
    record = dq.head_to_head(store, ruleset, a, b)
    value = los(record.a_ahead, record.b_ahead)
    return {
        "ruleset": ruleset, "a": rating_row(rated[a]), "b": rating_row(rated[b]), "matches": record.matches,
        "a_ahead": record.a_ahead, "b_ahead": record.b_ahead, "ties": record.ties,
        "los": None if value is None else round(value, 4),
        "recent": [match_row(m) for m in shared_matches(store, ruleset, a, b)],
    }


# -- tournaments --------------------------------------------------------------------------------


def tournaments(store: Store, number: int, per_page: int) -> dict[str, Any]:
    """One page of tournaments, newest first, with their progress."""
    total = dq.count_tournaments(store)
    pages = check_page_exists(number, per_page, total)
    found = store.tournaments(limit=per_page, offset=(number - 1) * per_page)
    return {"page": number, "pages": pages, "per_page": per_page, "total": total,
            "tournaments": [tournament_row(t) for t in found]}


def tournament_row(info: TournamentInfo) -> dict[str, Any]:
    done = info.done_matches
    return {
        "id": info.id, "name": info.name, "game": info.game_id, "ruleset": info.ruleset, "kind": info.kind,
        "status": info.status, "total_matches": info.total_matches, "done_matches": done,
        "aborted_matches": info.aborted_matches,
        "progress": round(done / info.total_matches, 4) if info.total_matches else 1.0,
        "entrants": list(info.config.get("entrants", [])), "created_at": iso(info.created_at),
        "finished_at": iso(info.finished_at),
    }


def tournament(store: Store, tournament_id: int, page: int = 1, per_page: int = STANDINGS_PER_PAGE) -> dict[str, Any]:
    """One tournament: config, progress and one page of its standings from its own matches (best
    first; `standings_page` says which page of how many: a field of thousands shows a page)."""
    info = store.tournament(tournament_id)
    if info is None:
        raise BadRequest(f"no tournament {tournament_id} is stored", 404)
    key = (store.url, info.id, info.done_matches, info.status)
    if key not in _STANDINGS:
        if len(_STANDINGS) >= 64:
            _STANDINGS.pop(next(iter(_STANDINGS)))
        _STANDINGS[key] = _standings(store, info)
    every = _STANDINGS[key]
    pages = check_page_exists(page, per_page, len(every))
    shown = every[(page - 1) * per_page:page * per_page]
    return {**tournament_row(info), "config": public_config(info.config), "standings": shown,
            "standings_page": {"page": page, "pages": pages, "per_page": per_page, "total": len(every)}}


def public_config(config: dict[str, Any]) -> dict[str, Any]:
    """A tournament's config without its seed: every match's chance seed derives from it, so it
    would name every hidden card, the next ones of a running tournament included."""
    return {key: value for key, value in config.items() if key != "seed"}


# Standings are a function of the tournament's stored matches: rated again only when more arrive.
_STANDINGS: dict[tuple[str, int, int, str], list[dict[str, Any]]] = {}


def _standings(store: Store, info: TournamentInfo) -> list[dict[str, Any]]:
    """The CLI's tournament standings (`arena tournament show --json`), with each bot's win rate."""
    return [{**row, "win_rate": round(row["wins"] / row["games"], 4) if row["games"] else 0.0}
            for row in tournament_standings(store, info)]


# -- matches ------------------------------------------------------------------------------------


def matches(store: Store, filters: dict[str, Any], number: int, per_page: int) -> dict[str, Any]:
    """One page of matches, newest first, filtered by game, bot, tournament and termination."""
    if filters.get("bot") and not dq.played(store, [filters["bot"]]):
        raise BadRequest(f"no bot named {filters['bot']!r} has played a stored match", 404)
    found, total = dq.match_page(
        store, game_id=filters.get("game"), entrant=filters.get("bot"), tournament_id=filters.get("tournament"),
        termination=filters.get("termination"), limit=per_page, offset=(number - 1) * per_page,
    )
    pages = check_page_exists(number, per_page, total)
    return {"filters": {k: v for k, v in filters.items() if v is not None}, "page": number, "pages": pages,
            "per_page": per_page, "total": total, "matches": [match_row(m) for m in found]}


def match_row(match: MatchSummary) -> dict[str, Any]:
    return {
        "id": match.id, "key": match.key, "tournament": match.tournament_id, "match_index": match.match_index,
        "game": match.game_id, "ruleset": match.ruleset, "status": match.status,
        "aborted_reason": match.aborted_reason, "decisions": match.decisions,
        "duration_ms": round(match.duration_ms, 1), "finished_at": iso(match.finished_at),
        "node": match.node,  # the node that played it ("" for matches stored before nodes were)
        "seats": [
            {"seat": s.seat, "bot": s.entrant, "spec": s.spec, "version": s.version, "score": s.score,
             "rank": s.rank, "termination": s.termination, "reason": s.reason}
            for s in match.seats
        ],
    }


# -- bots ---------------------------------------------------------------------------------------


def bots(store: Store, number: int = 1, per_page: int = BOTS_PER_PAGE) -> dict[str, Any]:
    """One page of the entrants that played, by name, with their ratings."""
    found, total = dq.bot_summaries(store, limit=per_page, offset=(number - 1) * per_page)
    pages = check_page_exists(number, per_page, total)
    ratings = dq.every_entrant_ratings(store, [s.name for s in found])
    return {"page": number, "pages": pages, "per_page": per_page, "total": total, "bots": [
        {"bot": s.name, "matches": s.matches, "strikes": s.strikes, "forfeits": s.forfeits,
         "last_played": iso(s.last_played),
         "ratings": [rating_row(r) for r in ratings.get(s.name, [])]}
        for s in found
    ]}


def bot(store: Store, name: str, fault_page: int = 1, per_page: int = 50) -> dict[str, Any]:
    """One entrant: its versions, its rating per ruleset, its recent matches and its faults.

    A submitted bot's page lists every version with its ratings; its plain name (`mybot`)
    shows the latest version that played (`mybot@2`)."""
    submitted = submitted_versions(store, name)
    entrant = name
    if not dq.entrant_versions(store, name):
        entrant = next((v["entrant"] for v in reversed(submitted) if v["played"]), name)
    versions = dq.entrant_versions(store, entrant)
    if not versions:
        raise BadRequest(f"no bot named {name!r} has played a stored match", 404)
    faults, fault_total = dq.fault_history(store, entrant, limit=per_page, offset=(fault_page - 1) * per_page)
    recent, match_total = dq.match_page(store, entrant=entrant, limit=20)
    return {
        "bot": entrant, "submitted_versions": submitted,
        "versions": [{"spec": v.spec, "kind": v.kind, "version": v.version, "first_seen": iso(v.first_seen)}
                     for v in versions],
        "ratings": [rating_row(r) for r in dq.entrant_ratings(store, entrant)],
        "matches": match_total, "recent_matches": [match_row(m) for m in recent],
        "faults": {"total": fault_total, "page": fault_page, "per_page": per_page,
                   "pages": check_page_exists(fault_page, per_page, fault_total),
                   "entries": [_fault_row(f) for f in faults]},
    }


def submitted_versions(store: Store, name: str) -> list[dict[str, Any]]:
    """Every submitted version of the registered bot behind an entrant name, with its ratings."""
    spec = bot_spec(name)
    if is_builtin(spec):
        return []
    versions = store.versions(bot_name(spec))
    played = dq.played(store, [v.entrant for v in versions])
    return [
        {"entrant": v.entrant, "version": v.number, "sha256": v.sha256, "submitted_at": iso(v.created_at),
         "command": v.command, "played": v.entrant in played, "suspended": v.suspended,
         "ratings": [rating_row(r) for r in dq.entrant_ratings(store, v.entrant)]}
        for v in versions
    ]


def _fault_row(fault: dq.FaultEntry) -> dict[str, Any]:
    return {"match": fault.match_id, "key": fault.match_key, "tournament": fault.tournament_id,
            "game": fault.game_id, "ruleset": fault.ruleset, "seat": fault.seat,
            "termination": fault.termination, "reason": fault.reason, "finished_at": iso(fault.finished_at)}


# -- SPRT tests ---------------------------------------------------------------------------------


def sprt_tests(store: Store, number: int, per_page: int) -> dict[str, Any]:
    """One page of SPRT tests, newest first, with their counts, LLR and verdict."""
    total = store.count_sprts()
    pages = check_page_exists(number, per_page, total)
    found = store.sprts(limit=per_page, offset=(number - 1) * per_page)
    return {"page": number, "pages": pages, "per_page": per_page, "total": total,
            "tests": [public_sprt(test) for test in found]}


def sprt_test(store: Store, test_id: int) -> dict[str, Any]:
    """One SPRT test: config, counts, Elo estimate, verdict and the LLR after every pair."""
    found = store.sprt(test_id, history=True)
    if found is None:
        raise BadRequest(f"no SPRT test {test_id} is stored", 404)
    return public_sprt(found)


def public_sprt(test: SprtInfo) -> dict[str, Any]:
    """An SPRT test as the dashboard shows it: without its seed, from which its pairs' chance
    seeds derive (`public_config`)."""
    data = sprt_json(test)
    return {**data, "config": public_config(data["config"])}
