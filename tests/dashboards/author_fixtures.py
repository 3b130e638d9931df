"""An arena for the author pages' tests: a real gateway on 127.0.0.1 serving the authors' service,
a store with two authors (alice, mallory), and the dashboard acting through that service.

Import the fixtures into a test module with `from tests.dashboards.author_fixtures import *`.
"""

from __future__ import annotations

import io
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from arena.gateway.authoring import AuthorConfig
from arena.gateway.server import GatewayThread
from arena.match.runner import run_match
from arena.store import MatchResult, SeatResult, Store
from arena.tournament.schedule import TournamentConfig
from arena.trial import play_trial
from dashboards.app import create_app
from dashboards.author_client import AuthorsClient
from dashboards.authors import AuthorPages
from tests.arena.gateway_fixtures import HOST_KEY, ROOT

__all__ = ["AuthorArena", "author_arena", "pack", "store_match_with_logs", "dump", "PYTHON_EXAMPLE", "CSRF"]

PYTHON_EXAMPLE = ROOT / "bots" / "examples" / "python"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@dataclass
class AuthorArena:
    store: Store  # the arena's (writes)
    gateway: GatewayThread
    keys: dict[str, str]
    app: Any
    root: Path

    def client(self, https: bool = False) -> TestClient:
        return TestClient(self.app, base_url="https://testserver" if https else "http://testserver",
                          follow_redirects=False)

    def sign_in(self, client: TestClient, who: str) -> str:
        """Sign `who` in through the form; the session's form token."""
        page = client.get("/signin")
        answer = client.post("/signin", data={"key": self.keys[who], "csrf": CSRF.search(page.text).group(1)})
        assert answer.status_code == 303 and answer.headers["location"] == "/my", answer.text[:500]
        return CSRF.search(client.get("/my").text).group(1)


@pytest.fixture
def author_arena(tmp_path: Path) -> Iterator[AuthorArena]:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    keys = {name: store.add_author(name) for name in ("alice", "mallory")}
    root = tmp_path / "submissions"
    config = AuthorConfig(submissions_root=root, trial=play_trial)  # `arena serve`'s: tries on
    with GatewayThread(store, host_key=HOST_KEY, author_config=config) as gateway:
        client = AuthorsClient(gateway.address)
        try:
            yield AuthorArena(store, gateway, keys, create_app(Store(url, reader=True), AuthorPages(client)), root)
        finally:
            client.close()


def pack(folder: Path, extra: dict[str, bytes] | None = None) -> bytes:
    """The folder's files (and `extra` ones) as a .tar.gz, entries at the top, as arena-bot packs it."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for entry in sorted(folder.iterdir()):
            if entry.name != "__pycache__":
                archive.add(entry, arcname=entry.name)
        for name, data in (extra or {}).items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def store_match_with_logs(store: Store, bots: list[tuple[str, str, str]], termination: str = "normal",
                          reason: str = "") -> int:
    """A real gang_of_dice match stored as the driver stores one whose seats were launched bots
    (`(name, entrant, log text)` per seat); seat 0 ended with `termination`. Its id."""
    record = run_match("gang_of_dice", ["random"] * len(bots), seed=5)
    config = TournamentConfig(game_id="gang_of_dice", players_per_match=len(bots), entrants=tuple(b[1] for b in bots))
    tournament = store.create_tournament("gang_of_dice", record.ruleset, "round_robin", config.to_json(), 1)
    seats = [SeatResult(n, entrant, entrant, kind="submitted", version="sha256:0", score=record.returns[n],
                        rank=n + 1, termination=termination if n == 0 else "normal", reason=reason if n == 0 else "")
             for n, (_, entrant, _) in enumerate(bots)]
    store.record_match(MatchResult(tournament, 0, 0, 0, 0, "gang_of_dice", record.ruleset, 5, 5, seats,
                                   record.to_json(), decisions=10, logs={n: b[2] for n, b in enumerate(bots)}))
    store.set_tournament_status(tournament, "finished")
    return store.matches(tournament_id=tournament)[0].id


def dump(store: Store) -> list[Any]:
    """Every row an author's action could change."""
    with store.engine.connect() as connection:
        return [list(connection.execute(text(f"SELECT * FROM {table} ORDER BY id")))
                for table in ("author", "bot", "submission")]
