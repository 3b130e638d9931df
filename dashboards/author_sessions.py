"""Signed-in authors: server-side sessions in the dashboard's memory, and the sign-in rate limit.

A session is a random id (the cookie's only content) that names, in this process's memory, the
author, their key (needed for every call to the authors' service, never sent to the browser), a
token every form of the session must carry (the defence against cross-site requests) and when it
ends: `IDLE` after its last request, `LIFETIME` after sign-in at the latest. Signing out forgets
it, so its cookie is worth nothing afterwards; so does restarting the dashboard (every author signs
in again). The cookie is HttpOnly and SameSite=Lax, and Secure when the page came over HTTPS.

Failed sign-ins count per client address and the author name the key claims, as failed keys do at
the gateway (arena/gateway/key_failures.py KeyFailures, the same class and limits): 10 within a
minute for one name from one address, then that name waits at that address; one stranger's
guesses do not lock out the other authors behind the same address.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from arena.gateway.authoring import AuthorConfig
from arena.gateway.key_failures import KeyFailures

COOKIE = "arena_session"
SIGNIN_COOKIE = "arena_signin"  # the sign-in form's own token (no session yet), double-submitted
LIFETIME_S = 8 * 3600.0
IDLE_S = 3600.0
MAX_SESSIONS = 10_000  # past it, the oldest are forgotten: memory stays bounded whoever signs in


@dataclass
class Session:
    id: str
    author: str
    key: str = field(repr=False)  # never in a log line or a page
    csrf: str = field(repr=False)
    started: float
    seen: float
    bots: set[str] = field(default_factory=set)  # the author's bots as the service last listed them
    notice: tuple[str, str | None] | None = None  # shown once by the next page: (message, token or None)

    def ends_at(self) -> float:
        return min(self.started + LIFETIME_S, self.seen + IDLE_S)

    def token_matches(self, sent: str | None) -> bool:
        return bool(sent) and hmac.compare_digest(self.csrf.encode(), str(sent).encode())


class Sessions:
    """The signed-in sessions of one dashboard process."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        config = AuthorConfig()
        self.failures = KeyFailures(config.auth_failures, config.auth_window_s, clock)

    def start(self, author: str, key: str) -> Session:
        """A new session (a fresh id: never one the browser brought along)."""
        now = self.clock()
        self._forget_ended(now)
        session = Session(secrets.token_urlsafe(32), author, key, secrets.token_urlsafe(32), now, now)
        self._sessions[session.id] = session
        return session

    def get(self, request: Request, touch: bool = True) -> Session | None:
        """The request's live session, or None; `touch`: the request counts as activity (the bot
        page's polling does not, so an open tab left alone still ends after IDLE)."""
        session = self._sessions.get(request.cookies.get(COOKIE, ""))
        now = self.clock()
        if session is None or session.ends_at() <= now:
            return None
        if touch:
            session.seen = now
        return session

    def end(self, session: Session) -> None:
        self._sessions.pop(session.id, None)

    def end_all(self, author: str) -> None:
        """Forget every session of `author` (their key stopped working)."""
        for sid in [sid for sid, s in self._sessions.items() if s.author == author]:
            del self._sessions[sid]

    def __len__(self) -> int:
        return len(self._sessions)

    def _forget_ended(self, now: float) -> None:
        for sid in [sid for sid, s in self._sessions.items() if s.ends_at() <= now]:
            del self._sessions[sid]
        while len(self._sessions) >= MAX_SESSIONS:
            del self._sessions[min(self._sessions, key=lambda sid: self._sessions[sid].seen)]


def secure(request: Request) -> bool:
    """Whether the page came over HTTPS (uvicorn with --tls-cert, or a trusted proxy said so)."""
    return request.url.scheme == "https"


def set_session_cookie(response: Response, request: Request, session: Session) -> None:
    response.set_cookie(COOKIE, session.id, max_age=int(LIFETIME_S), path="/", secure=secure(request),
                        httponly=True, samesite="lax")


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path="/", secure=secure(request), httponly=True, samesite="lax")


def signin_token(request: Request) -> str:
    """The sign-in form's token: the one in its cookie, or a new one (then set by the page)."""
    return request.cookies.get(SIGNIN_COOKIE) or secrets.token_urlsafe(32)


def signin_token_matches(request: Request, sent: object) -> bool:
    """The sign-in form sent back the token of its own cookie (which another site cannot read)."""
    cookie = request.cookies.get(SIGNIN_COOKIE)
    return isinstance(sent, str) and bool(cookie) and hmac.compare_digest(sent.encode(), str(cookie).encode())


def set_signin_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(SIGNIN_COOKIE, token, max_age=3600, path="/signin", secure=secure(request),
                        httponly=True, samesite="strict")
