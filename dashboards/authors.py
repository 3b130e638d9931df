"""The author pages: sign in with the author key, my bots, upload a version, read my bot's logs,
rotate its token, disable and enable it (docs/dashboard.md, "Author pages").

Every action is a call to the gateway's authors' service with the signed-in author's key
(dashboards/author_client.py), so it passes the service's own checks, quotas and rate limits and
fails with its one-line error, shown on the page. What the service does not send — a version's
suspension, the bot's recent and running matches — is read from the dashboard's database,
for the bots the service listed as the author's.

A bot that is not the author's (another author's, the operator's, or none at all) is "no such
page" (404), in the same words as any unknown address, whatever the page. Every POST needs the
session's form token; a request without a live session changes nothing.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError
from arena.gateway.authoring import AuthorConfig, Authoring, Unauthenticated
from arena.link.tls import is_loopback
from arena.store import Store
from arena.store.authors import key_author
from dashboards import author_sessions as auth
from dashboards.author_client import AuthorsClient, ServiceError, Upload
from dashboards.author_views import bot_url, bot_view, recent_matches
from dashboards.pages import render
from dashboards.params import BadRequest
from engine import registry

ARCHIVES = {".zip": "zip", ".tar.gz": "tar.gz", ".tgz": "tar.gz"}
FORM_SLACK = 64 * 1024  # a form's fields and multipart framing besides the archive
# Private pages: never cached, never framed; and should an author's or a bot's text ever slip past
# the escaping, no inline or foreign script may run (only the dashboard's own files).
NO_STORE = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
            "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                       "img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                                       "form-action 'self'; frame-ancestors 'none'"}


class AuthorPages:
    """What the author pages need: the authors' service, the sessions, the upload limit."""

    def __init__(self, client: AuthorsClient, max_upload_bytes: int = AuthorConfig().max_archive_bytes,
                 sessions: auth.Sessions | None = None) -> None:
        self.client = client
        self.max_upload_bytes = max_upload_bytes
        self._sessions = sessions

    @property
    def sessions(self) -> auth.Sessions:
        assert self._sessions is not None, "create_app binds the sessions to the dashboard's database"
        return self._sessions

    def bind(self, store: Store) -> None:
        """Keep the sessions in the dashboard's database, unless some were given."""
        if self._sessions is None:
            self._sessions = auth.Sessions(store)


class SignIn(ArenaError):
    """The request needs a live session and has none: GETs go to the sign-in page."""


# -- helpers ---------------------------------------------------------------------------------


def _pages(request: Request) -> AuthorPages:
    pages = request.app.state.authors
    if pages is None:
        raise BadRequest("author sign-in is off on this dashboard: it was started without TLS on a network "
                         "address (see docs/dashboard.md, Author pages)", 404)
    return pages


async def _live(request: Request, touch: bool = True) -> auth.Session | None:
    """The request's live session, or None (read from the database on the thread pool)."""
    return await run_in_threadpool(_pages(request).sessions.get, request, touch)


async def _session(request: Request) -> auth.Session:
    session = await _live(request)
    if session is None:
        raise SignIn
    return session


def _check_length(request: Request, limit: int) -> None:
    """Refuse a body that does not say its size, or says more than `limit`, before reading it."""
    size = request.headers.get("content-length", "")
    if not size.isdigit():
        raise BadRequest("a form must say its size (Content-Length); send it from the dashboard's page", 411)
    if int(size) > limit:
        raise BadRequest(f"this form sent {int(size)} bytes, more than the {limit} it may; nothing was done", 413)


async def _form(request: Request, session: auth.Session, max_files: int = 0) -> FormData:
    """The POSTed form, once its token is the session's (403 otherwise: nothing is done)."""
    if not max_files:  # an upload's size is checked against the upload limit by its page
        _check_length(request, FORM_SLACK)
    form = await request.form(max_files=max_files, max_fields=8, max_part_size=FORM_SLACK)
    sent = form.get("csrf")
    if not session.token_matches(sent if isinstance(sent, str) else None):
        raise BadRequest("this form did not come from your session's page (its token is missing or stale); "
                         "reload the page and send it again", 403)
    return form


def _text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _not_found(request: Request) -> BadRequest:
    """The same words as any unknown address: nothing says whether the bot exists."""
    return BadRequest(f"no such page: {request.url.path}", 404)


async def _call(request: Request, session: auth.Session, method: str, *args: Any) -> Any:
    """One call of the authors' service with the session's key (on the thread pool)."""
    pages = _pages(request)
    try:
        return await run_in_threadpool(getattr(pages.client, method), session.key, *args)
    except ServiceError as error:
        if error.status == 401:  # the key was rotated or the author disabled: every session ends
            await run_in_threadpool(pages.sessions.end_all, session.author)
            raise SignIn from None
        raise


async def _owned_call(request: Request, session: auth.Session, method: str, *args: Any) -> Any:
    """A call on one bot (args[0]): 404, as for any unknown address, when it is not the author's."""
    try:
        return await _call(request, session, method, *args)
    except ServiceError as error:
        if error.not_yours:
            raise _not_found(request) from None
        raise


async def _owned(request: Request, session: auth.Session, bot: str) -> Any:
    """The bot as the service lists it (AuthorBot), when it is the author's; 404 otherwise."""
    [listed] = await _owned_call(request, session, "list_bots", bot)
    session.bots.add(bot)
    await _keep(request, session)
    return listed


async def _keep(request: Request, session: auth.Session) -> None:
    """Write what this request changed in the session (its bots, its notice) to the database."""
    await run_in_threadpool(_pages(request).sessions.save, session)


def _page(request: Request, template: str, data: dict[str, Any], title: str, status: int = 200) -> Response:
    response = render(request, template, data, "mine", title, status)
    response.headers.update(NO_STORE)
    return response


def _redirect(url: str) -> Response:
    return RedirectResponse(url, status_code=303, headers=NO_STORE)


# -- sign in and out -------------------------------------------------------------------------


async def signin_page(request: Request) -> Response:
    if await _live(request) is not None:
        return _redirect("/my")
    return _signin_form(request, "", 200)


def _signin_form(request: Request, error: str, status: int) -> Response:
    token = auth.signin_token(request)
    response = _page(request, "author_signin.html", {"csrf": token, "error": error}, "Sign in", status)
    auth.set_signin_cookie(response, request, token)
    return response


async def signin(request: Request) -> Response:
    """Check the key (per-address limit, the store, then the service) and start a session."""
    pages = _pages(request)
    _check_length(request, FORM_SLACK)
    form = await request.form(max_files=0, max_fields=4, max_part_size=4096)
    if not auth.signin_token_matches(request, form.get("csrf")):
        return _signin_form(request, "the sign-in form expired or came from another site; sign in again", 403)
    address = request.client.host if request.client else "unknown"
    key = _text(form, "key")
    failures, name = pages.sessions.failures, key_author(key)  # counted per address and claimed author
    if (wait := failures.refused_for(address, name)) > 0:
        return _signin_form(request, f"too many failed sign-ins ({failures.why(address, name)}); "
                                     f"try again in {wait:.0f} s", 429)
    try:
        author = await run_in_threadpool(_check_key, request.app.state.store, key)
        await run_in_threadpool(pages.client.list_bots, key)  # the service must take it too
    except Unauthenticated as error:
        failures.failed(address, name)
        return _signin_form(request, error.detail, 401)
    except ServiceError as error:
        if error.status == 401:
            failures.failed(address, name)
        return _signin_form(request, error.message, error.status)
    if (previous := await _live(request)) is not None:  # one session per browser
        await run_in_threadpool(pages.sessions.end, previous)
    session = await run_in_threadpool(pages.sessions.start, author, key)
    response = _redirect("/my")
    auth.set_session_cookie(response, request, session)
    response.delete_cookie(auth.SIGNIN_COOKIE, path="/signin")
    return response


def _check_key(store: Store, key: str) -> str:
    """The author's name, or Unauthenticated in the service's words. Checked in the database first
    so that wrong keys never reach the gateway: it counts failures per peer, and for the gateway
    the dashboard is one peer for every author; 10 wrong keys there would lock out everyone."""
    if not key:
        raise Unauthenticated("no author key: paste the key that the arena's operator gave you "
                              "(`arena author add NAME` printed it)")
    return Authoring(store, AuthorConfig()).author(key).name


async def signout(request: Request) -> Response:
    pages = _pages(request)
    session = await _live(request)
    if session is not None:
        await _form(request, session)
        await run_in_threadpool(pages.sessions.end, session)
    response = _redirect("/signin")
    auth.clear_session_cookie(response, request)
    return response


# -- my bots -------------------------------------------------------------------------------------


async def my_bots(request: Request) -> Response:
    session = await _session(request)
    listed = await _call(request, session, "list_bots")
    session.bots = {bot.name for bot in listed}
    store: Store = request.app.state.store
    bots = [await run_in_threadpool(bot_view, store, bot) for bot in listed]
    data = {"author": session.author, "bots": bots, "csrf": session.csrf, "notice": _notice(session)}
    await _keep(request, session)
    return _page(request, "author_bots.html", data, "My bots")


async def bot_page(request: Request) -> Response:
    session = await _session(request)
    listed = await _owned(request, session, request.path_params["name"])
    store: Store = request.app.state.store
    view = await run_in_threadpool(bot_view, store, listed)
    recent = await run_in_threadpool(recent_matches, store, listed.name, [v["entrant"] for v in view["versions"]])
    data = {"author": session.author, "bot": view, "recent": recent, "csrf": session.csrf, "notice": _notice(session)}
    await _keep(request, session)
    return _page(request, "author_bot.html", data, listed.name)


def _notice(session: auth.Session) -> dict[str, str | None] | None:
    """What the last action left to say (shown once: a token is never shown twice)."""
    notice, session.notice = session.notice, None
    return {"message": notice[0], "token": notice[1]} if notice else None


async def recent_json(request: Request) -> Response:
    """The bot page's recent and running matches, polled by static/author.js."""
    session = await _live(request, touch=False)
    name = request.path_params["name"]
    if session is None:
        return JSONResponse({"error": "signed out: sign in again", "status": 401}, 401, headers=NO_STORE)
    if name not in session.bots:  # listed as the author's by the service when the page was loaded
        raise _not_found(request)
    store: Store = request.app.state.store
    entrants = [v.entrant for v in await run_in_threadpool(store.versions, name)]
    return JSONResponse(await run_in_threadpool(recent_matches, store, name, entrants), headers=NO_STORE)


def _bot_and_match(request: Request) -> tuple[str, str]:
    """The page's bot name and match id (digits: anything else is no such page)."""
    name, match = request.path_params["name"], request.path_params["match"]
    if not match.isdigit():
        raise _not_found(request)
    return name, match


async def log_page(request: Request) -> Response:
    session = await _session(request)
    name, match = _bot_and_match(request)
    logs = await _owned_call(request, session, "read_log", name, int(match))
    if not logs:
        raise BadRequest(f"no stored output of {name} in match {match}: the arena keeps the output of the bots "
                         "it launched, for matches stored since", 404)
    data = {"bot": name, "match": int(match), "logs": [
        {"seat": e.seat, "entrant": f"{e.bot}@{e.version}" if e.version else e.bot, "termination": e.termination,
         "reason": e.reason, "text": e.text} for e in logs]}
    return _page(request, "author_log.html", data, f"{name} in match {match}")


async def replay_page(request: Request) -> Response:
    """The match as the author's bot's seat saw it, each decision beside what the bot printed then."""
    session = await _session(request)
    name, match = _bot_and_match(request)
    replay = await _owned_call(request, session, "read_replay", name, int(match))
    data = {"bot": name, "match": int(match), "replay": replay}
    return _page(request, "author_replay.html", data, f"{name} in match {match}: its replay")


# -- actions -----------------------------------------------------------------------------------


async def upload_page(request: Request) -> Response:
    session = await _session(request)
    name = request.path_params.get("name")
    if name is not None:
        await _owned(request, session, name)
    return _upload_form(request, session, name, "", "", 200)


def _upload_form(request: Request, session: auth.Session, bot: str | None, command: str, error: str,
                 status: int, new_name: str = "") -> Response:
    data = {"bot": bot, "new_name": new_name, "command": command, "error": error, "csrf": session.csrf,
            "max_mb": _pages(request).max_upload_bytes / (1024 * 1024), "games": registry.game_ids()}
    return _page(request, "author_upload.html", data, f"Upload a version of {bot}" if bot else "New bot", status)


async def upload(request: Request) -> Response:
    """An archive and its command, streamed to the service's SubmitVersion."""
    session = await _session(request)
    pages = _pages(request)
    name = request.path_params.get("name")
    if name is not None:  # a version of an existing bot of mine (a new one comes through /my/new)
        await _owned(request, session, name)
    try:
        _check_length(request, pages.max_upload_bytes + FORM_SLACK)  # before a byte of it is read
    except BadRequest as error:
        return _upload_form(request, session, name, "", _too_large(pages) if error.status == 413 else error.message,
                            error.status)
    form = await _form(request, session, max_files=1)
    if _text(form, "try_only"):
        return await _try(request, session, name, form)
    reply = await _send_upload(request, session, name, form, "submit")
    if isinstance(reply, Response):
        return reply
    version = reply.version
    session.bots.add(version.bot)
    message = (f"stored {version.bot}@{version.number} (sha256 {version.sha256[:12]}): "
               f"`{version.bot}` plays it in new matches")
    session.notice = (message + ("; its token follows, shown only this once" if reply.token else ""),
                      reply.token or None)
    await _keep(request, session)
    return _redirect(bot_url(version.bot))


async def _try(request: Request, session: auth.Session, name: str | None, form: FormData) -> Response:
    """"Try only": the archive played in a few unrated matches (TryVersion), nothing stored; the
    results, faults and the bot's own output on a page for its author alone."""
    bot = name or _text(form, "bot")
    game, matches = _text(form, "game"), _text(form, "matches") or "2"
    reply = await _send_upload(request, session, name, form, "try_version", game,
                               int(matches) if matches.isdigit() else 0)
    if isinstance(reply, Response):
        return reply
    data = {"bot": bot, "game": reply.game_id, "matches": list(reply.matches), "csrf": session.csrf}
    return _page(request, "author_try.html", data, f"Try of {bot}")


async def _send_upload(request: Request, session: auth.Session, name: str | None, form: FormData, method: str,
                       *args: Any) -> Any:
    """The service's reply to the form's archive sent through `method` (submit or try_version), or
    the upload form again with the service's one-line refusal (another's bot: 404, as everywhere)."""
    bot, command, archive = name or _text(form, "bot"), _text(form, "command"), form.get("archive")
    try:
        return await _call(request, session, method, _upload_of(_pages(request), bot, command, archive), *args)
    except ServiceError as error:
        if error.not_yours and name is not None:
            raise _not_found(request) from None
        return _upload_form(request, session, name, command, error.message, error.status, bot)
    except ValueError as error:
        return _upload_form(request, session, name, command, str(error), 400, bot)
    finally:
        if isinstance(archive, UploadFile):
            await archive.close()


def _upload_of(pages: AuthorPages, bot: str, command: str, archive: Any) -> Upload:
    """The form's archive as an Upload; ValueError (one line) for a missing or unknown file."""
    if not isinstance(archive, UploadFile) or not archive.filename:
        raise ValueError("no archive: choose your bot's folder packed as .tar.gz, .tgz or .zip")
    lower = archive.filename.lower()
    formats = [fmt for suffix, fmt in ARCHIVES.items() if lower.endswith(suffix)]
    if not formats:
        raise ValueError(f"{archive.filename!r} is not a .tar.gz, .tgz or .zip archive; pack your bot's folder as one")
    size = archive.size if archive.size is not None else 0
    if size == 0:
        raise ValueError(f"{archive.filename!r} is empty; choose the archive of your bot's folder")
    if size > pages.max_upload_bytes:
        raise ValueError(_too_large(pages))
    return Upload(bot, command, formats[0], archive.file, size)


def _too_large(pages: AuthorPages) -> str:
    return (f"limit reached: the archive is larger than {pages.max_upload_bytes / (1024 * 1024):g} MiB, the most "
            "one submission may send; leave out what the bot does not need to run")


async def register(request: Request) -> Response:
    """A bot that dials in: its token, shown once on its page."""
    session = await _session(request)
    form = await _form(request, session)
    bot = _text(form, "bot")
    try:
        token = await _call(request, session, "register", bot)
    except ServiceError as error:
        return _upload_form(request, session, None, "", error.message, error.status, bot)
    session.bots.add(bot)
    session.notice = (f"registered {bot}: it dials in with its token, which follows, shown only this once", token)
    await _keep(request, session)
    return _redirect(bot_url(bot))


async def rotate(request: Request) -> Response:
    session = await _session(request)
    name = request.path_params["name"]
    await _form(request, session)
    token = await _owned_call(request, session, "rotate", name)
    session.notice = (f"a new token for {name}: the old one no longer works (its open stream was closed); "
                      "shown only this once", token)
    await _keep(request, session)
    return _redirect(bot_url(name))


async def set_state(request: Request) -> Response:
    session = await _session(request)
    name = request.path_params["name"]
    form = await _form(request, session)
    disabled = _text(form, "disabled") == "1"
    await _owned_call(request, session, "set_disabled", name, disabled)
    session.notice = (f"{name} is {'disabled: it may not connect or be seated' if disabled else 'enabled again'}", None)
    await _keep(request, session)
    return _redirect(bot_url(name))


def service_error(request: Request, error: Exception) -> Response:
    """A refusal the page has no form for (or the gateway unreachable): its one line."""
    assert isinstance(error, ServiceError)
    return _page(request, "error.html", {"status": error.status, "message": error.message},
                 f"Error {error.status}", error.status)


def sign_in_first(request: Request, error: Exception) -> Response:
    if request.method == "GET":
        return _redirect("/signin")
    response = _page(request, "error.html", {"status": 401, "message": "your session has ended (signed out or "
                     "expired): nothing was done; sign in again"}, "Signed out", 401)
    auth.clear_session_cookie(response, request)
    return response


def signin_allowed(host: str, tls: bool, proxy: bool, insecure: bool) -> bool:
    """Author pages are on unless the key would cross a network in the clear."""
    return tls or proxy or insecure or is_loopback(host)


def routes() -> list[Route]:
    return [
        Route("/signin", signin_page, methods=["GET"]),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/my", my_bots, methods=["GET"]),
        Route("/my/new", upload_page, methods=["GET"]),
        Route("/my/new", upload, methods=["POST"]),
        Route("/my/register", register, methods=["POST"]),
        Route("/my/bots/{name}", bot_page, methods=["GET"]),
        Route("/my/bots/{name}/recent", recent_json, methods=["GET"]),
        Route("/my/bots/{name}/upload", upload_page, methods=["GET"]),
        Route("/my/bots/{name}/upload", upload, methods=["POST"]),
        Route("/my/bots/{name}/token", rotate, methods=["POST"]),
        Route("/my/bots/{name}/state", set_state, methods=["POST"]),
        Route("/my/bots/{name}/logs/{match}", log_page, methods=["GET"]),
        Route("/my/bots/{name}/replays/{match}", replay_page, methods=["GET"]),
    ]
