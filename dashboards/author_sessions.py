"""Signed-in authors: server-side sessions in the database, and the sign-in rate limit.

A session is a random id (the cookie's only content) that names, in the `author_session` table
(arena/store/author_sessions.py), the author, their key (needed for every call to the authors'
service, never sent to the browser), a token every form of the session must carry (the defence
against cross-site requests) and when it ends: `IDLE` after its last request, `LIFETIME` after
sign-in at the latest. Every dashboard on the database shares the sessions, and a restart signs
nobody out; signing out deletes the row, so its cookie is worth nothing afterwards. The cookie is
HttpOnly and SameSite=Lax, and Secure when the page came over HTTPS.

The row is found by sha256(session id), never the id itself: whoever reads the table (a backup, a
replica) cannot present a live session's cookie. The author's key and the notice (which may carry
a bot's token, shown once) are sealed with AES-GCM under the secret the dashboards share and the
database does not hold (`$ARENA_SESSION_SECRET`, else `session.key` beside the host key, made on
first use, mode 0600), the row's hash as associated data so that a sealed key cannot be moved to
another row. A row the secret no longer opens (the secret changed) ends its session: its author
signs in again. `last seen` is written at most once a minute per session (`SEEN_EVERY_S`).

Failed sign-ins count per client address and the author name the key claims, as failed keys do at
the gateway (arena/gateway/key_failures.py KeyFailures, the same class and limits): 10 within a
minute for one name from one address, then that name waits at that address; one stranger's
guesses do not lock out the other authors behind the same address.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from starlette.requests import Request
from starlette.responses import Response

from arena.gateway.authoring import AuthorConfig
from arena.gateway.key_failures import KeyFailures
from arena.link.hostkey import host_key_path, secret_from
from arena.store import Store
from arena.store.author_sessions import StoredSession

COOKIE = "arena_session"
SIGNIN_COOKIE = "arena_signin"  # the sign-in form's own token (no session yet), double-submitted
LIFETIME_S = 8 * 3600.0
IDLE_S = 3600.0
SEEN_EVERY_S = 60.0  # `last seen` written at most this often: a page is not a write each time
MAX_SESSIONS = 10_000  # past it, the least recently seen are deleted: the table stays bounded
NONCE_BYTES = 12  # AES-GCM's standard nonce, random per sealing


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
    stored: tuple[frozenset[str], tuple[str, str | None] | None] = field(default=(frozenset(), None), repr=False)

    def ends_at(self) -> float:
        return min(self.started + LIFETIME_S, self.seen + IDLE_S)

    def token_matches(self, sent: str | None) -> bool:
        return bool(sent) and hmac.compare_digest(self.csrf.encode(), str(sent).encode())


def session_secret() -> str:
    """The secret the dashboards seal keys with: `$ARENA_SESSION_SECRET`, or the file beside the
    host key (created when missing, owner-only)."""
    return secret_from("ARENA_SESSION_SECRET", host_key_path().parent / "session.key", "session secret")


def _id_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class Sessions:
    """The signed-in sessions of every dashboard on one database."""

    def __init__(self, store: Store, secret: str | None = None, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        material = (secret if secret is not None else session_secret()).encode()
        self._cipher = AESGCM(HKDF(hashes.SHA256(), 32, None, b"arena author session").derive(material))
        config = AuthorConfig()
        self.failures = KeyFailures(config.auth_failures, config.auth_window_s, clock)

    def start(self, author: str, key: str) -> Session:
        """A new session (a fresh id: never one the browser brought along); ended ones are deleted."""
        now = self.clock()
        session = Session(secrets.token_urlsafe(32), author, key, secrets.token_urlsafe(32), now, now)
        id_hash = _id_hash(session.id)
        self.store.add_author_session(
            StoredSession(id_hash, author, session.csrf, now, now, [], self._seal(key.encode(), id_hash), None),
            ended_before=now - IDLE_S, started_before=now - LIFETIME_S, keep=MAX_SESSIONS)
        return session

    def get(self, request: Request, touch: bool = True) -> Session | None:
        """The request's live session, or None; `touch`: the request counts as activity (the bot
        page's polling does not, so an open tab left alone still ends after IDLE)."""
        session_id = request.cookies.get(COOKIE, "")
        stored = self.store.author_session(_id_hash(session_id)) if session_id else None
        if stored is None:
            return None
        now = self.clock()
        session = self._opened(session_id, stored)
        if session is None or session.ends_at() <= now:  # ended, or sealed under another secret
            self.store.delete_author_sessions(id_hash=stored.id_hash)
            return None
        if touch and now - stored.seen >= SEEN_EVERY_S:
            self.store.touch_author_session(stored.id_hash, now)
            session.seen = now
        return session

    def save(self, session: Session) -> None:
        """Write what a page changed in the session: its bots as listed, its notice."""
        if (frozenset(session.bots), session.notice) == session.stored:
            return
        id_hash = _id_hash(session.id)
        notice = None if session.notice is None else self._seal(json.dumps(session.notice).encode(), id_hash)
        self.store.keep_author_session_state(id_hash, sorted(session.bots), notice)
        session.stored = (frozenset(session.bots), session.notice)

    def end(self, session: Session) -> None:
        self.store.delete_author_sessions(id_hash=_id_hash(session.id))

    def end_all(self, author: str) -> None:
        """End every session of `author` (their key stopped working)."""
        self.store.delete_author_sessions(author=author)

    def __len__(self) -> int:
        return self.store.count_author_sessions()

    def _seal(self, data: bytes, id_hash: str) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return nonce + self._cipher.encrypt(nonce, data, id_hash.encode())

    def _unseal(self, sealed: bytes, id_hash: str) -> bytes:
        return self._cipher.decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], id_hash.encode())

    def _opened(self, session_id: str, stored: StoredSession) -> Session | None:
        """The session of a row; None when the secret does not open it (it changed since)."""
        try:
            key = self._unseal(stored.key, stored.id_hash).decode()
            notice = None if stored.notice is None else json.loads(self._unseal(stored.notice, stored.id_hash))
        except (InvalidTag, ValueError):
            return None
        notice = None if notice is None else (notice[0], notice[1])
        bots = set(stored.bots)
        return Session(session_id, stored.author, key, stored.csrf, stored.started, stored.seen, bots, notice,
                       (frozenset(bots), notice))


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
