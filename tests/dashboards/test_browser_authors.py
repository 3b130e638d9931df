"""An author in a real browser (Debian's headless Chromium, driven by Playwright), against a real
gateway whose authors' service the dashboard uses: sign in, upload the Python example as a new
bot and then as its new version, see it listed, watch its first matches arrive (a real tournament,
the bot launched in its sandbox), read its log, rotate its token, sign out. And `<script>` in a command and a log runs
nowhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.gateway.authoring import AuthorConfig
from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.match.executor import LocalExecutor
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from dashboards.app import create_app
from dashboards.author_client import AuthorsClient
from dashboards.authors import AuthorPages
from dashboards.screenshot import serve
from tests.arena.gateway_fixtures import HOST_KEY
from tests.dashboards.author_fixtures import PYTHON_EXAMPLE, pack, store_match_with_logs
from tests.dashboards.test_browser import page  # noqa: F401 - the page fixture

pytestmark = pytest.mark.browser
SCRIPT = "<script>document.title='pwned'</script>"


class Site:
    def __init__(self, base: str, store: Store, gateway: GatewayThread, key: str) -> None:
        self.base, self.store, self.gateway, self.key = base, store, gateway, key


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """The arena (a store, a gateway that launches bots in their sandbox) and its dashboard on loopback."""
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    monkeypatch.delenv("ARENA_UNSANDBOXED", raising=False)
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    key = store.add_author("alice")
    config = AuthorConfig(submissions_root=tmp_path / "submissions")
    with GatewayThread(store, host_key=HOST_KEY, limits=LaunchLimits(linger_s=30.0, cpu_seconds=60),
                       author_config=config) as gateway:
        client = AuthorsClient(gateway.address)
        app = create_app(Store(url, reader=True), AuthorPages(client))
        with serve(store, app=app) as base:
            yield Site(base, store, gateway, key)
        client.close()


def sign_in(page: Any, site: Site) -> None:  # noqa: F811
    page.goto(f"{site.base}/my")
    page.wait_for_url("**/signin")
    page.fill("#key", site.key)
    page.click("#signin")
    page.wait_for_url("**/my")
    assert page.inner_text("#author") == "alice"


def upload_new(page: Any, site: Site, archive: Path, command: str) -> None:  # noqa: F811
    page.click("#new-bot")
    page.wait_for_url("**/my/new")
    page.fill("#bot", "pybot")
    page.set_input_files("#archive", str(archive))
    page.fill("#command", command)
    page.click("#upload")
    page.wait_for_url("**/my/bots/pybot")


def test_an_author_signs_in_uploads_watches_reads_the_log_rotates_and_signs_out(
        page: Any, site: Site, tmp_path: Path) -> None:  # noqa: F811
    archive = tmp_path / "python-example.tar.gz"
    archive.write_bytes(pack(PYTHON_EXAMPLE))
    sign_in(page, site)
    upload_new(page, site, archive, "python3 random_bot.py")
    assert page.get_attribute("#versions tbody tr", "data-version") == "pybot@1"
    first_token = page.inner_text("#token")
    assert site.store.bot_by_token(first_token).name == "pybot"

    page.click("#upload-link")  # a new version of the bot: listed at once, on top
    page.wait_for_url("**/my/bots/pybot/upload")
    page.set_input_files("#archive", str(archive))
    page.fill("#command", "python3 random_bot.py")
    page.click("#upload")
    page.wait_for_url("**/my/bots/pybot")
    assert page.eval_on_selector_all("#versions tbody tr", "rows => rows.map(r => r.dataset.version)") == \
        ["pybot@2", "pybot@1"]
    assert "stored pybot@2" in page.inner_text("#notice") and page.locator("#token").count() == 0
    assert page.locator("#recent-rows tr.none").count() == 1

    config = TournamentConfig("gang_of_dice", 2, ("pybot", "random"), seed=3, gateway=site.gateway.address)
    tournament = start_tournament(site.store, config, "first games")
    play_tournament(site.store, tournament, LocalExecutor(live=True))
    played = [m.id for m in site.store.matches(tournament_id=tournament)]
    assert len(played) == 2
    # the page follows the new matches without a reload (it polls every 5 s)
    page.wait_for_function(f"() => document.querySelectorAll('#recent-rows tr[data-match]').length === {len(played)}",
                           timeout=15_000)
    assert page.locator("#notice").count() == 1, "no reload happened: the notice is still on the page"
    assert set(page.eval_on_selector_all("#recent-rows code", "cells => cells.map(c => c.textContent)")) == {"pybot@2"}

    page.click(f"#recent-rows tr[data-match='{played[0]}'] a.log-link")
    page.wait_for_url(f"**/my/bots/pybot/logs/{played[0]}")
    [log] = site.store.bot_logs(played[0], "pybot")
    assert log.text.strip() and page.inner_text(".log-text").strip() == log.text.strip()
    assert "pybot@2" in page.inner_text("h2")

    page.go_back()
    page.wait_for_url("**/my/bots/pybot")
    page.click("#rotate")
    page.wait_for_url("**/my/bots/pybot")
    second_token = page.inner_text("#token")
    assert second_token != first_token and site.store.bot_by_token(first_token) is None
    assert site.store.bot_by_token(second_token).name == "pybot"

    page.click("#signout")
    page.wait_for_url("**/signin")
    page.goto(f"{site.base}/my/bots/pybot")
    page.wait_for_url("**/signin")


def test_script_in_a_command_and_a_log_is_shown_as_text_and_runs_nowhere(page: Any, site: Site,  # noqa: F811
                                                                         tmp_path: Path) -> None:
    archive = tmp_path / "python-example.tar.gz"
    archive.write_bytes(pack(PYTHON_EXAMPLE))
    sign_in(page, site)
    upload_new(page, site, archive, f"python3 random_bot.py {SCRIPT}")
    match = store_match_with_logs(site.store, [("pybot", "pybot@1", f"{SCRIPT}\n"), ("x", "random", "")],
                                  "crash", f"crashed: {SCRIPT}")
    page.reload()
    assert page.inner_text("#versions code.command") == f"python3 random_bot.py {SCRIPT}"
    page.wait_for_function(f"() => document.querySelector(\"#recent-rows tr[data-match='{match}'] .reason\")"
                           f" && document.querySelector(\"#recent-rows tr[data-match='{match}'] .reason\").textContent"
                           f" === {('crashed: ' + SCRIPT)!r}", timeout=15_000)  # drawn by author.js
    page.goto(f"{site.base}/my/bots/pybot/logs/{match}")
    assert page.inner_text(".log-text").strip() == SCRIPT and page.inner_text(".crash-reason") == f"crashed: {SCRIPT}"
    for url in (f"{site.base}/my", f"{site.base}/my/bots/pybot", f"{site.base}/my/bots/pybot/logs/{match}"):
        page.goto(url)
        page.wait_for_timeout(200)
        assert page.title() != "pwned" and page.locator("script:not([src])").count() == 0, url
    assert re.search(r"pwned", page.title()) is None


DEBUG_BOT = '''
import os
import sys

from arena_sdk import Bot, Decision, run


class Debugger(Bot):
    def decide(self, decision: Decision) -> int:
        print(f"thinking step={decision.step} <b>bold?</b>", file=sys.stderr, flush=True)
        return decision.legal_actions[-1]


run(os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"], Debugger())
'''


def test_an_author_steps_through_her_replay_with_her_bots_output_beside_each_decision(
        page: Any, site: Site, tmp_path: Path) -> None:  # noqa: F811
    folder = tmp_path / "debugger"
    folder.mkdir()
    (folder / "bot.py").write_text(DEBUG_BOT)
    archive = tmp_path / "debugger.tar.gz"
    archive.write_bytes(pack(folder))
    sign_in(page, site)
    upload_new(page, site, archive, "python3 bot.py")
    config = TournamentConfig("gang_of_dice", 2, ("pybot", "random"), seed=3, gateway=site.gateway.address)
    tournament = start_tournament(site.store, config, "debugging")
    play_tournament(site.store, tournament, LocalExecutor())
    played = [m.id for m in site.store.matches(tournament_id=tournament)]

    page.reload()
    page.click(f"#recent-rows tr[data-match='{played[0]}'] a.replay-link")
    page.wait_for_url(f"**/my/bots/pybot/replays/{played[0]}")
    rows = page.eval_on_selector_all("tr.decision", "rows => rows.map(r => [r.dataset.step, "
                                     "r.querySelector('.decision-output').textContent])")
    # each decision's own line, and no other step's (the kit's "connected to ..." may come in the first)
    assert rows and all(re.findall(r"thinking step=(\d+) <b>bold\?</b>\n", text) == [step] for step, text in rows), rows
    assert page.locator(".decision-output b").count() == 0, "the bot's output is text, never markup"
    page.goto(f"{site.base}/matches/{played[0]}")
    assert "thinking step=" not in page.content(), "the public replay page never shows it"
