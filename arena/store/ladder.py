"""The ladder's rows: its planned matches (ladder_match), who it may seat, and what its pages show.

A ladder is a tournament of kind `ladder`, one per game and seats per table, whose matches are
appended as the ladder plans them (`t<id>:m<index>` keys like any match). Its status is also how
other processes steer it: `arena ladder pause|resume|stop` write `paused`, `running` or
`stopping`, and the running ladder reads it about once a second (arena/ladder/driver.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, String, and_, case, cast, func, insert, literal, or_, union_all, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import UsageError
from arena.outcomes import MatchStatus
from arena.store.queries import Queries
from arena.store.records import TournamentInfo
from arena.store.tables import (
    BotRow,
    LadderMatchRow,
    MatchRow,
    RatingRow,
    SeatRow,
    SubmissionRow,
    TournamentRow,
    now,
    select_columns,
)

LADDER_KIND = "ladder"


@dataclass(frozen=True)
class FieldEntry:
    """A bot of a ladder's field with its rating in the ladder's ruleset (elo None: not rated yet)."""

    entrant: str
    owner: str
    anchor: bool
    elo: float | None
    low: float
    high: float
    games: int


@dataclass(frozen=True)
class LadderMatch:
    """A match the ladder planned: its place, seats and seeds (as a tournament's PlannedMatch)."""

    tournament_id: int
    index: int
    table: int
    rotation: int
    seats: tuple[str, ...]
    seed: int
    chance_seed: int
    why: str
    planned_at: datetime | None = None


@dataclass(frozen=True)
class LadderVersion:
    """A stored version of a registered bot, with what decides whether the ladder seats it."""

    bot: str
    number: int
    author_id: int | None  # None: the operator's bot
    latest: bool  # the bot's newest version
    keep_active: bool  # kept in the ladder although not the latest
    disabled: bool  # the bot is disabled
    suspended: str | None  # why this version is suspended (or was rejected by its validation), or None
    validated: bool = True  # it passed its validation match (arena/ladder/validation.py)

    @property
    def entrant(self) -> str:
        return f"{self.bot}@{self.number}"

    @property
    def owner(self) -> str:
        """Two versions with one owner never share a table: the author, or else the bot itself."""
        return f"author:{self.author_id}" if self.author_id is not None else f"bot:{self.bot}"

    @property
    def wanted(self) -> bool:
        """The ladder would seat it: not disabled, not suspended, the latest or kept active."""
        return not self.disabled and self.suspended is None and (self.latest or self.keep_active)

    @property
    def active(self) -> bool:
        return self.wanted and self.validated

    @property
    def awaiting_validation(self) -> bool:
        return self.wanted and not self.validated


class LadderStore(Queries):
    """Mixed into Store: the ladder's reads and writes over its `engine`."""

    engine: Engine
    _writing: Callable[[], AbstractContextManager[Session]]

    def ladders(self) -> list[TournamentInfo]:
        """Every stored ladder, newest first."""
        return self.tournaments(kind=LADDER_KIND)

    def ladder(self, game_id: str, players: int) -> TournamentInfo | None:
        """The ladder of a game with `players` seats per table, or None."""
        return next((t for t in self.ladders()
                     if t.game_id == game_id and t.config["players_per_match"] == players), None)

    def set_tournament_config(self, tournament_id: int, config: dict[str, Any]) -> None:
        """Replace a ladder's config (a restart may change its anchors, time control or gateway)."""
        with self._writing() as session:
            session.execute(update(TournamentRow).where(col(TournamentRow.id) == tournament_id)
                            .values(config=json.dumps(config), updated_at=now()))
            session.commit()

    def plan_ladder_matches(self, matches: Sequence[LadderMatch]) -> None:
        """Store matches the ladder is about to play (before they are handed to a worker)."""
        if not matches:
            return
        rows = [dict(tournament_id=m.tournament_id, match_index=m.index, table_no=m.table, rotation=m.rotation,
                     seats=json.dumps(list(m.seats)), seed=m.seed, chance_seed=m.chance_seed, why=m.why,
                     planned_at=now()) for m in matches]
        with self._writing() as session:
            session.execute(insert(LadderMatchRow), rows)
            session.commit()

    def pending_ladder_matches(self, tournament_id: int) -> list[LadderMatch]:
        """The planned matches without a stored result, in index order (the queue)."""
        stored = select(MatchRow.match_index).where(MatchRow.tournament_id == tournament_id)
        query = (select(LadderMatchRow).where(LadderMatchRow.tournament_id == tournament_id,
                                              col(LadderMatchRow.match_index).not_in(stored))
                 .order_by(col(LadderMatchRow.match_index)))
        with Session(self.engine) as session:
            return [_ladder_match(row) for row in session.exec(query)]

    def drop_ladder_matches(self, tournament_id: int, indexes: Sequence[int]) -> None:
        """Forget planned matches that will not be played (a bot left the ladder before them)."""
        with self._writing() as session:
            session.execute(LadderMatchRow.__table__.delete().where(  # type: ignore[attr-defined]
                col(LadderMatchRow.tournament_id) == tournament_id, col(LadderMatchRow.match_index).in_(list(indexes))))
            session.commit()

    def next_ladder_position(self, tournament_id: int) -> tuple[int, int]:
        """(match index, table number) the ladder's next planned table starts at."""
        query = select(func.max(LadderMatchRow.match_index), func.max(LadderMatchRow.table_no)).where(
            LadderMatchRow.tournament_id == tournament_id)
        with Session(self.engine) as session:
            index, table = session.exec(query).one()
        return (0, 0) if index is None else (index + 1, table + 1)

    def ladder_versions(self) -> list[LadderVersion]:
        """Every version of every registered (not removed) bot, with what the ladder needs to know."""
        latest = (select(SubmissionRow.bot_id, func.max(SubmissionRow.number).label("number"))
                  .group_by(col(SubmissionRow.bot_id)).subquery())
        query = (select_columns(BotRow.name, SubmissionRow.number, BotRow.author_id, latest.c.number,
                                SubmissionRow.keep_active, BotRow.disabled, SubmissionRow.suspended_reason,
                                SubmissionRow.validated_at)
                 .join(BotRow, col(BotRow.id) == col(SubmissionRow.bot_id))
                 .join(latest, latest.c.bot_id == col(SubmissionRow.bot_id))
                 .where(col(BotRow.removed_at).is_(None)).order_by(col(BotRow.name), col(SubmissionRow.number)))
        with Session(self.engine) as session:
            return [LadderVersion(name, number, author, number == newest, keep, disabled, suspended, ok is not None)
                    for name, number, author, newest, keep, disabled, suspended, ok in session.exec(query)]

    def field_page(self, ruleset: str, anchors: Sequence[str], *, offset: int = 0,
                   limit: int | None = None) -> tuple[list[FieldEntry], int]:
        """One page of a ladder's field (the anchors and the `active` versions, as `ladder_field`),
        best rated first (an unrated bot at Elo 0; ties: anchors, then by name and version), and how
        many bots the field has. The database joins, orders and counts: only the page's rows are read."""
        members = _field_members(anchors)
        query = (select_columns(members.c.entrant, members.c.owner, members.c.sort_group, RatingRow.elo,
                                RatingRow.low, RatingRow.high, RatingRow.games, func.count().over())
                 .select_from(members)
                 .outerjoin(RatingRow, and_(col(RatingRow.ruleset) == ruleset,
                                            col(RatingRow.entrant) == members.c.entrant))
                 .order_by(func.coalesce(RatingRow.elo, 0.0).desc(), members.c.sort_group, members.c.name,
                           members.c.number)
                 .offset(offset).limit(limit))
        with Session(self.engine) as session:
            rows = session.exec(query).all()  # each with the size of the field (one pass, not a second query)
            total = int(rows[0][-1] if rows else session.exec(select(func.count()).select_from(members)).one())
        return [FieldEntry(entrant, owner, group == 0, elo, -math.inf if low is None else low,
                           math.inf if high is None else high, games or 0)
                for entrant, owner, group, elo, low, high, games, _ in rows], total

    def suspended_ladder_versions(self) -> list[tuple[str, str]]:
        """(NAME@N, reason) of every suspended version of a registered bot, by name and number."""
        query = (select(BotRow.name, SubmissionRow.number, SubmissionRow.suspended_reason)
                 .join(BotRow, col(BotRow.id) == col(SubmissionRow.bot_id))
                 .where(col(BotRow.removed_at).is_(None), col(SubmissionRow.suspended_reason).is_not(None))
                 .order_by(col(BotRow.name), col(SubmissionRow.number)))
        with Session(self.engine) as session:
            return [(f"{name}@{number}", str(reason)) for name, number, reason in session.exec(query)]

    def set_keep_active(self, name: str, number: int, keep: bool) -> None:
        """Keep `NAME@number` in the ladder although it is not the latest version (or stop keeping it)."""
        with self._writing() as session:
            bot = session.exec(select(BotRow).where(BotRow.name == name, col(BotRow.removed_at).is_(None))).first()
            if bot is None:
                raise UsageError(f"no registered bot is named {name!r} (see `arena bot list`)")
            changed = session.execute(update(SubmissionRow).where(
                col(SubmissionRow.bot_id) == bot.id, col(SubmissionRow.number) == number).values(keep_active=keep))
            if changed.rowcount == 0:  # type: ignore[attr-defined]
                raise UsageError(f"bot {name!r} has no version {number}")
            session.commit()

    def last_terminations(self, tournament_id: int, entrant: str, count: int) -> list[str]:
        """The seat terminations of an entrant's last `count` finished matches in a tournament, newest first."""
        query = (select(SeatRow.termination).join(MatchRow, col(MatchRow.id) == col(SeatRow.match_id))
                 .where(MatchRow.tournament_id == tournament_id, SeatRow.entrant == entrant,
                        MatchRow.status == MatchStatus.FINISHED)
                 .order_by(col(MatchRow.match_index).desc()).limit(count))
        with Session(self.engine) as session:
            return list(session.exec(query))

    def games_since(self, tournament_id: int, since: datetime, entrants: Sequence[str] | None = None) -> dict[str, int]:
        """Matches each entrant (of `entrants`: a page of the field, by their seats' index) played in
        a tournament since `since` (aborted ones too)."""
        recent = (MatchRow.tournament_id == tournament_id, col(MatchRow.finished_at) >= since)
        if entrants is None:
            query = (select(SeatRow.entrant, func.count(col(SeatRow.id)))
                     .join(MatchRow, col(MatchRow.id) == col(SeatRow.match_id)).where(*recent))
        else:  # from the page's seats, each match by its key: a join may walk the tournament's matches
            played = select(MatchRow.id).where(col(MatchRow.id) == col(SeatRow.match_id), *recent).exists()
            query = (select(SeatRow.entrant, func.count(col(SeatRow.id)))
                     .where(col(SeatRow.entrant).in_(entrants), played))
        query = query.group_by(SeatRow.entrant)
        with Session(self.engine) as session:
            return dict(session.exec(query).all())


def _field_members(anchors: Sequence[str]) -> Any:
    """The field as rows (entrant, owner, sort_group, name, number): the anchors (sort_group 0, in their
    order) and the versions `LadderVersion.active` keeps (sort_group 1), in SQL."""
    latest = (select(SubmissionRow.bot_id, func.max(SubmissionRow.number).label("number"))
              .group_by(col(SubmissionRow.bot_id)).subquery())
    owner = case((col(BotRow.author_id).is_not(None), "author:" + cast(BotRow.author_id, String)),
                 else_="bot:" + col(BotRow.name))
    versions = (select_columns(
        (col(BotRow.name) + "@" + cast(SubmissionRow.number, String)).label("entrant"), owner.label("owner"),
        literal(1, Integer).label("sort_group"), col(BotRow.name).label("name"),
        col(SubmissionRow.number).label("number"))
        .join(BotRow, col(BotRow.id) == col(SubmissionRow.bot_id))
        .join(latest, latest.c.bot_id == col(SubmissionRow.bot_id))
        .where(col(BotRow.removed_at).is_(None), col(BotRow.disabled).is_(False),
               col(SubmissionRow.suspended_reason).is_(None), col(SubmissionRow.validated_at).is_not(None),
               or_(col(SubmissionRow.number) == latest.c.number, col(SubmissionRow.keep_active).is_(True))))
    fixed = [select_columns(literal(anchor, String).label("entrant"),
                            literal(f"anchor:{anchor}", String).label("owner"), literal(0, Integer).label("sort_group"),
                            literal("", String).label("name"), literal(i, Integer).label("number"))
             for i, anchor in enumerate(anchors)]
    return union_all(*fixed, versions).subquery() if fixed else versions.subquery()


def _ladder_match(row: LadderMatchRow) -> LadderMatch:
    return LadderMatch(row.tournament_id, row.match_index, row.table_no, row.rotation, tuple(json.loads(row.seats)),
                       row.seed, row.chance_seed, row.why, row.planned_at)
