"""The Store, and everything the driver writes: bots, tournaments, matches, ratings.

Opening a database (URLs, SQLite files, migrations, read-only readers) is arena/store/connect.py.

Only the tournament driver writes (workers return records to it). Writing a match is
idempotent: a match already stored under its key is skipped, and the database's unique
constraints refuse a second copy even from a second driver.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import delete, event, insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

from arena.errors import StoreError, UsageError
from arena.outcomes import MatchStatus, TournamentStatus
from arena.record_encoding import encode_record
from arena.store.aggregates import add_matches, with_ids
from arena.store.author_sessions import AuthorSessionStore
from arena.store.authors import AuthorAccounts
from arena.store.bot_logs import BotLogStore, insert_logs
from arena.store.bots import BotAccess, Versions, hash_token, new_token
from arena.store.bulk import execute_many
from arena.store.checkpoint import Checkpointer
from arena.store.connect import default_db_url, explain, is_read_only, open_engine
from arena.store.ladder import LadderStore
from arena.store.live import LiveStore, delete_live
from arena.store.rating_history import keep_older_values, replace_history, write_point
from arena.store.records import BotInfo, MatchResult, RatingEntry, SeatResult
from arena.store.sprt_tests import SprtStore
from arena.store.tables import (
    BotRow,
    BotVersionRow,
    LiveMatchRow,
    MatchRow,
    RatingRow,
    SeatRow,
    SubmissionRow,
    TournamentRow,
    now,
)

BOT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


def check_bot_name(name: str) -> None:
    """UsageError unless `name` can name a bot (no '@' or '#': they mark versions and labels)."""
    if not BOT_NAME.match(name):
        raise UsageError(f"bad bot name {name!r}: use a letter, then up to 63 letters, digits, '_', '.' or '-'")


def _bot_info(row: BotRow) -> BotInfo:
    assert row.id is not None
    return BotInfo(row.id, row.name, row.command, row.created_at, row.files, row.disabled)


LIVE_BOT = col(BotRow.removed_at).is_(None)  # a removed bot's row only keeps its name taken


class Store(SprtStore, Versions, BotAccess, LiveStore, AuthorAccounts, AuthorSessionStore, BotLogStore, LadderStore):
    """One database, opened by URL; brings its schema to the newest revision (arena/store/migrations)."""

    def __init__(self, url: str | None = None, *, reader: bool = False, create: bool = True) -> None:
        """`reader`: this process only reads, so a file it may not write is opened read-only
        (`read_only` is then True); `create=False`: a missing SQLite file is a UsageError."""
        self.url = url or default_db_url()
        self.engine = open_engine(self.url, reader=reader, create=create)
        self.read_only = is_read_only(self.engine)
        self._version_ids: dict[tuple[str, str, str], int] = {}
        self._entrant_numbers: dict[str, int] = {}  # committed entrant numbers (aggregates.entrant_numbers)
        file = self.engine.url.database if self.engine.dialect.name == "sqlite" else None
        self.checkpointer = Checkpointer(Path(file)) if file and not self.read_only else None
        if self.checkpointer is not None:  # disposing of the engine ends the thread and its connection
            event.listen(self.engine, "engine_disposed", self.checkpointer.stopped_with)

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        """A session for writes: a database that refuses one (its disk is full, it turned
        read-only) is a StoreError, one line that says which database and why."""
        try:
            with Session(self.engine) as session:
                yield session
        except OperationalError as error:
            raise StoreError(explain(self.url, error)) from None

    # -- registered external bots -----------------------------------------------------------

    def register_bot(self, name: str, command: str | None = None, files: str | None = None,
                     author_id: int | None = None) -> str:
        """Store a new bot and return its token; only a hash of the token is kept.

        `command` launches the bot when a match needs it, from its own folder `files` (or none):
        that is the bot's version 1 (`NAME@1`), as if submitted. Without a command the bot only
        dials in, and has no versions until one is submitted (`arena bot submit`). `author_id`:
        the author whose bot it is (arena/store/authors.py); None: the operator's.
        """
        return self.register_bots([name], command, files, author_id)[0]

    def register_bots(self, names: Sequence[str], command: str | None = None, files: str | None = None,
                      author_id: int | None = None) -> list[str]:
        """`register_bot` for each name, in one transaction (all or none): their tokens, in order.

        For a field of thousands of bots at once (bench/scale_history.py): two transactions a bot
        took about 20 minutes for 10,000 on a loaded machine."""
        for name in names:
            check_bot_name(name)
        if len(set(names)) < len(names):
            raise UsageError("the bots to register have a name twice; give each name once")
        tokens = [new_token() for _ in names]
        stamp = now()
        with self._writing() as session:
            for start in range(0, len(names), 500):
                _refuse_taken(session, names[start:start + 500])
            rows = [dict(name=name, token_hash=hash_token(token), command=command, files=files, author_id=author_id,
                         created_at=stamp, disabled=False) for name, token in zip(names, tokens)]
            ids = dict(session.execute(insert(BotRow).returning(col(BotRow.name), col(BotRow.id)), rows).all())
            if command:  # version 1 of each, as `add_version` numbers a new bot's first
                session.execute(insert(SubmissionRow), [
                    dict(bot_id=ids[name], number=1, sha256="", command=command, files=files, created_at=stamp,
                         keep_active=False) for name in names])
            session.commit()
        return tokens

    def bot_by_token(self, token: str) -> BotInfo | None:
        """The bot whose token this is, or None."""
        with Session(self.engine) as session:
            row = session.exec(select(BotRow).where(BotRow.token_hash == hash_token(token), LIVE_BOT)).first()
            return _bot_info(row) if row else None

    def bot(self, name: str) -> BotInfo | None:
        """The registered bot with this name, or None (also when it was removed)."""
        with Session(self.engine) as session:
            row = session.exec(select(BotRow).where(BotRow.name == name, LIVE_BOT)).first()
            return _bot_info(row) if row else None

    def bots(self) -> list[BotInfo]:
        """Every registered bot (not the removed ones), by name."""
        with Session(self.engine) as session:
            return [_bot_info(row) for row in session.exec(select(BotRow).where(LIVE_BOT).order_by(BotRow.name))]

    # -- tournaments ------------------------------------------------------------------------

    def create_tournament(
        self, game_id: str, ruleset: str, kind: str, config: dict[str, Any], total_matches: int,
        name: str = "",
    ) -> int:
        """A new tournament in status `running`; returns its id."""
        row = TournamentRow(
            name=name, game_id=game_id, ruleset=ruleset, kind=kind, config=json.dumps(config),
            status=TournamentStatus.RUNNING, total_matches=total_matches,
        )
        with self._writing() as session:
            session.add(row)
            session.commit()
            assert row.id is not None
            return row.id

    def set_tournament_status(self, tournament_id: int, status: str) -> None:
        """running, interrupted or finished (finished also stamps `finished_at`). Its live rows
        go: no match is being played at a status change (a resume starts its matches afresh)."""
        values: dict[str, Any] = {"status": status, "updated_at": now()}
        if status == TournamentStatus.FINISHED:
            values["finished_at"] = now()
        with self._writing() as session:
            session.execute(update(TournamentRow).where(col(TournamentRow.id) == tournament_id).values(**values))
            session.execute(delete(LiveMatchRow).where(col(LiveMatchRow.tournament_id) == tournament_id))
            session.commit()

    def touch_tournament(self, tournament_id: int) -> None:
        """Mark a running tournament as alive (`arena tournament list` flags one that stops)."""
        with self._writing() as session:
            session.execute(update(TournamentRow).where(col(TournamentRow.id) == tournament_id)
                            .values(updated_at=now()))
            session.commit()

    def set_tournament_note(self, tournament_id: int, note: str) -> None:
        """What last happened to a tournament, one line (the ladder page and `arena ladder status` show it)."""
        with self._writing() as session:
            session.execute(update(TournamentRow).where(col(TournamentRow.id) == tournament_id)
                            .values(note=note[:500], updated_at=now()))
            session.commit()

    def stored_indexes(self, tournament_id: int) -> set[int]:
        """The match indexes of a tournament that are already stored (finished or aborted)."""
        with Session(self.engine) as session:
            query = select(MatchRow.match_index).where(MatchRow.tournament_id == tournament_id)
            return set(session.exec(query))

    # -- matches ----------------------------------------------------------------------------

    def record_matches(self, results: Sequence[MatchResult]) -> int:
        """Write results in one transaction, skipping any already stored; returns how many were new.

        One statement per table for the whole batch (matches, seats, logs; bot versions looked up
        once and cached); a record is stored as the worker that played it encoded it (a result
        without `encoded_record` is encoded here, before the transaction opens), so a writer holds
        SQLite's lock only for the inserts."""
        if not results:
            return 0
        rows = {r.key: _match_row(r) for r in results}  # the last copy of a key wins, as before
        with self._writing() as session:
            stored = set(session.exec(select(MatchRow.key).where(col(MatchRow.key).in_(list(rows)))))
            fresh = [r for r in {r.key: r for r in results}.values() if r.key not in stored]
            try:
                self._write_batch(session, WrittenBatch(fresh, [rows[r.key] for r in fresh]))
                delete_live(session, [(r.tournament_id, r.match_index) for r in results])
                session.commit()
                if self.checkpointer is not None:  # the WAL copied back beside this writer, not in its commits
                    self.checkpointer.written()
                return len(fresh)
            except IntegrityError:  # another writer got there first: fall back to one at a time
                session.rollback()
                self._version_ids.clear()
        return sum(self.record_matches([r]) for r in results) if len(results) > 1 else 0

    def record_match(self, result: MatchResult) -> bool:
        """Write one result; False when it was already stored (nothing changes then)."""
        return self.record_matches([result]) == 1

    def _write_batch(self, session: Session, batch: WrittenBatch) -> None:
        """Every row of a batch of new matches, in the caller's transaction. Once the match and
        seat rows are in, `batch` knows every new match's id and seats: rows derived from them
        (write-time aggregates) belong here, after `_insert_matches`, in the same transaction."""
        if batch.results:
            self._insert_matches(session, batch)
            # the dashboard's figures (arena/store/aggregates.py)
            add_matches(session, with_ids(batch.rows, batch.match_ids), batch.seat_rows, self._entrant_numbers)

    def _insert_matches(self, session: Session, batch: WrittenBatch) -> None:
        # Core bulk inserts (one statement per table, RETURNING the new ids): the ORM's
        # object-per-row path costs about a millisecond per match, which a fast tournament feels.
        # (of the table, not the mapped class: the ORM's bulk path would collect every row again)
        table = MatchRow.__table__  # type: ignore[attr-defined]
        returned = execute_many(session, table, insert(table).returning(table.c.id, table.c.key), batch.rows)
        batch.match_ids.update({key: match_id for match_id, key in returned})
        versions = self._bot_version_ids(session, {_version_key(seat): seat.kind
                                                   for r in batch.results for seat in r.seats})
        batch.seat_rows.extend(
            dict(match_id=batch.match_ids[r.key], seat=seat.seat, entrant=seat.entrant, score=seat.score,
                 rank=seat.rank, termination=seat.termination, reason=seat.reason, faults=seat.faults,
                 bot_version_id=versions[_version_key(seat)])
            for r in batch.results for seat in r.seats
        )
        execute_many(session, SeatRow.__table__, insert(SeatRow.__table__), batch.seat_rows)  # type: ignore[attr-defined]
        insert_logs(session, batch.match_ids, batch.results)

    def _bot_version_ids(self, session: Session,
                         wanted: dict[tuple[str, str, str], str]) -> dict[tuple[str, str, str], int]:
        """The bot_version id of each (name, spec, version) -> kind: cached (every stored one read
        at the first call), the missing ones looked up in one query and the new ones inserted in one
        statement."""
        missing = [key for key in wanted if key not in self._version_ids]
        if missing:
            names = {name for name, _, _ in missing}
            query = select(BotVersionRow.id, BotVersionRow.name, BotVersionRow.spec, BotVersionRow.version)
            if self._version_ids:  # else every stored version at once: a small table, then no reads
                query = query.where(col(BotVersionRow.name).in_(names))  # of it per batch (4 ms at 10k bots)
            found = {(name, spec, version): version_id for version_id, name, spec, version in session.execute(query)}
            new = [dict(name=n, spec=s, kind=wanted[(n, s, v)], version=v, created_at=now())
                   for n, s, v in missing if (n, s, v) not in found]
            if new:
                returned = session.execute(insert(BotVersionRow).returning(
                    col(BotVersionRow.id), col(BotVersionRow.name), col(BotVersionRow.spec),
                    col(BotVersionRow.version)), new)
                found.update({(name, spec, version): version_id for version_id, name, spec, version in returned})
            self._version_ids.update(found)
        return {key: self._version_ids[key] for key in wanted}

    # -- ratings ----------------------------------------------------------------------------

    def replace_ratings(
        self, ruleset: str, game_id: str, entries: Iterable[RatingEntry],
        history: Iterable[tuple[int, int, str, float]],
    ) -> None:
        """Replace a ruleset's ratings and history (position, match id, entrant, elo) atomically.
        The history's newest point takes its values from `entries` (arena/store/rating_history.py)."""
        stamp = now()
        with self._writing() as session:
            session.execute(delete(RatingRow).where(col(RatingRow.ruleset) == ruleset))
            point_id, at_newest = replace_history(session, ruleset, history) or (None, set())
            ratings = [dict(ruleset=ruleset, game_id=game_id, updated_at=stamp,
                            point_id=point_id if e.entrant in at_newest else None, **vars(e)) for e in entries]
            if ratings:
                session.execute(insert(RatingRow), ratings)
            session.commit()

    def write_ratings(
        self, ruleset: str, game_id: str, entries: list[RatingEntry], point: tuple[int, int] | None,
        drop: Iterable[int] = (), *, every: bool = True,
    ) -> None:
        """Write a ruleset's ratings and a history point at `point` (position, match id), after
        thinning out the history points at the positions in `drop` (arena/store/rating_history.py).

        `every`: `entries` is the whole table; it replaces every stored rating of the ruleset and each
        entry gets a point. Otherwise (a live update) `entries` are the ratings that changed since the
        last write: their rows are written by key, the others stay as stored, and only they get a point.
        Either way the rows are written by key (an upsert), so that PostgreSQL updates them in their
        pages (migration 0025) instead of adding a second copy of the table at every full rerate."""
        when = now()
        with self._writing() as session:
            point_id = None if point is None else write_point(session, ruleset, point, drop)
            if point_id is not None and entries:
                keep_older_values(session, ruleset, point_id, None if every else [e.entrant for e in entries])
            ratings = [dict(ruleset=ruleset, game_id=game_id, updated_at=when, point_id=point_id, **vars(e))
                       for e in entries]
            if ratings:
                _upsert_ratings(session, ratings)
            if every:
                _delete_other_ratings(session, ruleset, {e.entrant for e in entries})
            session.commit()


def _delete_other_ratings(session: Session, ruleset: str, kept: set[str]) -> None:
    """Delete the ruleset's ratings of entrants not in `kept` (a full table that no longer rates them)."""
    stored = session.exec(select(RatingRow.entrant).where(col(RatingRow.ruleset) == ruleset)).all()
    others = [name for name in stored if name not in kept]
    for start in range(0, len(others), 500):
        session.execute(delete(RatingRow).where(col(RatingRow.ruleset) == ruleset,
                                                col(RatingRow.entrant).in_(others[start:start + 500])))


def _upsert_ratings(session: Session, ratings: list[dict[str, Any]]) -> None:
    """Insert rating rows, or overwrite the stored ones with the same (ruleset, entrant) (through the
    driver, arena/store/bulk.py: 10k rows of a big field's table cost more through SQLAlchemy's
    per-row parameters than the database's work)."""
    table = RatingRow.__table__  # type: ignore[attr-defined]
    statement = (postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert)(table)
    values = {name: statement.excluded[name] for name in ratings[0] if name not in ("ruleset", "entrant")}
    execute_many(session, table, statement.on_conflict_do_update(index_elements=["ruleset", "entrant"], set_=values),
                 ratings)


@dataclass
class WrittenBatch:
    """New matches being written in one transaction: their results and match rows; their ids (by
    key) and seat rows once inserted."""

    results: list[MatchResult]
    rows: list[dict[str, Any]]
    match_ids: dict[str, int] = field(default_factory=dict)
    seat_rows: list[dict[str, Any]] = field(default_factory=list)


def _refuse_taken(session: Session, names: Sequence[str]) -> None:
    """UsageError when a bot of one of these names is registered, or was and was removed."""
    found = session.exec(select(BotRow).where(col(BotRow.name).in_(names))).first()
    if found is None:
        return
    if found.removed_at is not None:
        raise UsageError(f"a bot named {found.name!r} was removed; its name stays with its match history: "
                         "choose another name")
    raise UsageError(f"a bot named {found.name!r} is already registered; choose another name")


def _version_key(seat: SeatResult) -> tuple[str, str, str]:
    return (seat.entrant, seat.spec, seat.version)


def _match_row(result: MatchResult) -> dict[str, Any]:
    # `result.record` is the public record: the driver moved the bots' logs out of it (split_logs);
    # the worker that played the match encoded it already, as a rule (`encoded_record`)
    record = result.encoded_record if result.encoded_record is not None else encode_record(result.record)
    return dict(
        key=result.key, tournament_id=result.tournament_id, match_index=result.match_index,
        round=result.round, table_no=result.table_no, rotation=result.rotation,
        game_id=result.game_id, ruleset=result.ruleset, num_players=len(result.seats),
        seed=result.seed, chance_seed=result.chance_seed,
        status=MatchStatus.ABORTED if result.aborted_reason else MatchStatus.FINISHED,
        aborted_reason=result.aborted_reason, decisions=result.decisions,
        duration_ms=result.duration_ms, attempts=result.attempts, node=result.node, record=record,
        finished_at=now(),
    )
