"""Serve the dashboard in this process and photograph a page with Debian's headless Chromium.

    .venv/bin/python -m dashboards.screenshot --db sqlite:///arena.db --out docs/leaderboard.png

Needs the dev extra (Playwright for Python) and the `chromium` Debian package; Playwright's own
browser download is never used. The browser tests start the server and the browser the same way.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from arena.store import Store
from dashboards.app import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@contextmanager
def serve(store: Store, port: int = 0, app: Any = None) -> Iterator[str]:
    """The dashboard of `store` (or `app`) on 127.0.0.1 (a free port when 0) in a thread; yields its URL."""
    import uvicorn

    port = port or free_port()
    app = app if app is not None else create_app(store)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="dashboard", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the dashboard did not start on 127.0.0.1:{port}")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright; yields the Browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def take(browser: Any, url: str, out: str, width: int = 1360) -> None:
    """A screenshot of the whole page at `url` once its charts are drawn."""
    page = browser.new_page(viewport={"width": width, "height": 900}, device_scale_factor=1)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => [...document.querySelectorAll('canvas[data-chart]')].every(c => Chart.getChart(c))")
    page.screenshot(path=out, full_page=True)
    page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    parser.add_argument("--path", default="/leaderboard", help="the page to photograph (default /leaderboard)")
    parser.add_argument("--out", default="docs/leaderboard.png", help="PNG file to write")
    parser.add_argument("--width", type=int, default=1360, help="viewport width in CSS pixels")
    args = parser.parse_args()
    with serve(Store(args.db)) as base, chromium() as browser:
        take(browser, base + args.path, args.out, args.width)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
