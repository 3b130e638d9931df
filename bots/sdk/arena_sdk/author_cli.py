"""`arena-bot`: a bot author's command line, for an arena on another machine (docs/authors.md).

    arena-bot --server HOST:PORT --key-file F [--tls] [--ca FILE] ACTION ...
      submit NAME PATH --command "..."   store a folder or .zip/.tar.gz/.tgz as NAME's next version
      register NAME                      register a bot that dials in; prints its token once
      versions NAME                      NAME's versions with hash, date and ratings
      token NAME --rotate                a new token for NAME (the old one stops working)
      disable NAME | enable NAME         stop NAME from connecting and playing, or let it again
      logs NAME --match ID               NAME's stored output in match ID
      try NAME PATH --command "..." --game G [--matches N]
                                         play PATH in a few unrated matches against the ladder's
                                         anchors: results, faults and logs; nothing is stored
      bots                               every bot of yours: state, versions, rating and rank per ruleset
      matches NAME [--lost] [--crashed] [--opponent X] [--ruleset R] [--since T] [--until T]
                                         NAME's stored matches, newest first: result, opponents, ending, link
      replay NAME ID [-o FILE]           match ID as NAME's seat saw it (JSON), with what it printed
                                         at each of its decisions

It talks to the arena's authors' service (proto/arena/v1/authors.proto) with the author key that
the arena's operator gave you (`arena author add NAME`), read from --key-file, which must be
readable by you alone. It prints what the arena's own `arena bot ...` commands print. A folder is
packed into a temporary .tar.gz first; an archive is streamed in chunks of 64 KiB as it is read.
With --tls (or --ca FILE, a PEM certificate authority; default: the system's; or $ARENA_TLS_CA /
$ARENA_TLS=1, as the SDK reads them) the connection is TLS; a client whose TLS does not fit the
gateway's is told so (`TLSMismatch`, the SDK's diagnosis: tls.py). Errors are one line,
`arena-bot: error: ...`, and exit status 2 (gRPC's native log lines are kept off the terminal:
they would come before that line and say less).
"""

from __future__ import annotations

import argparse
import math
import os
import stat
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import grpc

from arena_sdk import author_views
from arena_sdk.author_views import CliError
from arena_sdk.tls import CA_ENV, TLS, TLS_ENV, diagnose
from arena_sdk.v1 import authors_pb2 as pb
from arena_sdk.v1 import authors_pb2_grpc

CHUNK = 64 * 1024
ARCHIVES = {".zip": "zip", ".tar.gz": "tar.gz", ".tgz": "tar.gz"}
DEFAULT_SERVER = "127.0.0.1:50051"
TOKEN_NOTE = "(shown only this once; the arena keeps only a hash)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena-bot", description="Register and submit your bots to an arena.")
    parser.add_argument("--server", default=os.environ.get("ARENA_SERVER", DEFAULT_SERVER),
                        help=f"the arena's gateway, HOST:PORT (default $ARENA_SERVER or {DEFAULT_SERVER})")
    parser.add_argument("--key-file", type=Path, default=os.environ.get("ARENA_AUTHOR_KEY_FILE"),
                        help="file holding your author key, readable by you alone (default $ARENA_AUTHOR_KEY_FILE)")
    parser.add_argument("--tls", action="store_true", default=env_tls(),
                        help=f"connect with TLS (see the arena's docs/tls.md; default ${TLS_ENV}=1)")
    parser.add_argument("--ca", type=Path, metavar="FILE", default=os.environ.get(CA_ENV, "").strip() or None,
                        help=f"PEM certificate authority to trust (implies --tls; default ${CA_ENV})")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a call may take (default 600)")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    submit = _action(actions, "submit", "store a folder or archive as the bot's next version (NAME@N)")
    submit.add_argument("path", type=Path, help="a folder, or a .tar.gz / .tgz / .zip archive of one")
    submit.add_argument("--command", required=True, help="command line that starts the bot, run in its folder")
    _action(actions, "register", "register a bot that dials in, and print its token (shown once)")
    _action(actions, "versions", "list a bot's versions with hash, date and ratings")
    token = _action(actions, "token", "--rotate: a new token; the old one stops working")
    token.add_argument("--rotate", action="store_true", help="issue a new token and print it (shown once)")
    _action(actions, "disable", "stop a bot from connecting or playing")
    _action(actions, "enable", "let a disabled bot connect and play again")
    logs = _action(actions, "logs", "print a launched bot's stored output in one match")
    logs.add_argument("--match", type=int, required=True, metavar="ID",
                      help="the match id (`arena-bot matches NAME` lists them)")
    trial = _action(actions, "try", "play a folder in a few unrated matches against the ladder's anchors "
                                    "(results, faults, logs; nothing is stored)")
    trial.add_argument("path", type=Path, help="a folder, or a .tar.gz / .tgz / .zip archive of one")
    trial.add_argument("--command", required=True, help="command line that starts the bot, run in its folder")
    trial.add_argument("--game", required=True, help="the game whose ladder's anchors it plays, e.g. gang_of_dice")
    trial.add_argument("--matches", type=int, default=2, help="how many matches (default 2; the arena caps it)")
    author_views.add_actions(actions, _action)
    return parser


def env_tls() -> bool:
    return os.environ.get(TLS_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def _action(actions: Any, name: str, about: str) -> argparse.ArgumentParser:
    parser = actions.add_parser(name, help=about)
    parser.add_argument("name", help="your bot's name")
    return parser


def console_main() -> int:
    """The `arena-bot` command: `main`, with gRPC's native log kept off the terminal."""
    quiet_native_log()
    return main()


def quiet_native_log() -> None:
    """gRPC's C core logs to file descriptor 2 (a failed TLS handshake is a raw `ssl_transport_security.cc`
    line), and it was loaded with the kit, before $GRPC_VERBOSITY could be set: so fd 2 goes to
    /dev/null, and Python's stderr (our one-line errors, a traceback) to a copy of the terminal's."""
    sys.stderr.flush()
    kept = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    sys.stderr = open(kept, "w", buffering=1, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        key = read_key(args.key_file)
        with open_channel(args.server, args.tls, args.ca) as channel:
            stub = authors_pb2_grpc.AuthorsStub(channel)
            return ACTIONS[args.action](Caller(stub, key, args.timeout), args)
    except CliError as error:
        print(f"arena-bot: error: {error}", file=sys.stderr)
        return 2
    except grpc.RpcError as error:
        print(f"arena-bot: error: {describe(error, args.server, args.tls, args.ca)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena-bot: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `arena-bot logs ... | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0


def read_key(path: Path | None) -> str:
    """The author key in `path`, which only its owner may read or change."""
    if path is None:
        raise CliError("no --key-file: give the file holding the author key the arena's operator gave you")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise CliError(f"the key file {path} can be read or changed by other users (mode {mode:04o}); "
                           f"make it yours only with `chmod 600 {path}`")
        key = path.read_text().strip()
    except OSError as error:
        raise CliError(f"cannot read the key file {path} ({error.strerror}); "
                       "give the file holding your author key") from None
    if not key:
        raise CliError(f"the key file {path} is empty; put the author key the arena's operator gave you in it")
    return key


def open_channel(server: str, tls: bool, ca: Path | None) -> grpc.Channel:
    """A plaintext channel, or a TLS one trusting `ca` (PEM) or the system's authorities."""
    host, sep, port = server.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise CliError(f"bad --server {server!r}: write HOST:PORT, e.g. {DEFAULT_SERVER}")
    if not tls and ca is None:
        return grpc.insecure_channel(server)
    try:
        roots = ca.read_bytes() if ca is not None else None
    except OSError as error:
        raise CliError(f"cannot read --ca {ca} ({error.strerror}); give a PEM certificate file") from None
    return grpc.secure_channel(server, grpc.ssl_channel_credentials(root_certificates=roots))


def describe(error: grpc.RpcError, server: str, tls: bool = False, ca: Path | None = None) -> str:
    """One line for a failed call; a TLS mismatch as the SDK words it (`TLSMismatch`)."""
    code, details = error.code(), (error.details() or "").replace("\n", " ")  # type: ignore[attr-defined]
    if code == grpc.StatusCode.UNAVAILABLE:
        settings = TLS(str(ca), ca.read_bytes()) if ca is not None else TLS() if tls else None
        if hint := diagnose(server, settings):
            return f"TLSMismatch: {hint}"
        return f"cannot reach the arena at {server} ({details}); check --server (and --tls/--ca)"
    if code == grpc.StatusCode.UNIMPLEMENTED:
        return f"the server at {server} has no authors' service; is it an arena gateway (`arena serve`)?"
    return f"{details} ({code.name})"


class Caller:
    """The authors' calls with the key in their metadata and a deadline."""

    def __init__(self, stub: authors_pb2_grpc.AuthorsStub, key: str, timeout: float) -> None:
        self.stub, self.timeout = stub, timeout
        self.metadata = (("authorization", f"Bearer {key}"),)

    def __call__(self, method: str, request: Any) -> Any:
        return getattr(self.stub, method)(request, metadata=self.metadata, timeout=self.timeout)


# -- the actions --------------------------------------------------------------------------------


def submit_command(call: Caller, args: argparse.Namespace) -> int:
    check_command(args)
    with archive_of(args.path) as (archive, archive_format):
        reply = call("SubmitVersion", submission(version_header(args, archive, archive_format), archive))
    version = reply.version
    if reply.token:
        print(f"registered bot {version.bot!r}. Its token {TOKEN_NOTE}:")
        print(reply.token)
    entrant = f"{version.bot}@{version.number}"
    print(f"stored {entrant}: sha256 {version.sha256[:12]}")
    print(f"`{version.bot}` now plays {entrant} in new matches and tournaments; "
          + ("earlier versions stay playable as NAME@N." if version.number > 1 else "pin it with NAME@N."))
    return 0


def check_command(args: argparse.Namespace) -> None:
    """A submit's or a try's --command, refused when empty before anything is packed."""
    if not args.command.strip():
        raise CliError("--command is empty: give the command line that starts the bot in its folder, "
                       "e.g. 'python3 bot.py'")


def version_header(args: argparse.Namespace, archive: Path, archive_format: str) -> pb.SubmitHeader:
    """What a submit and a try say of the version before its archive's chunks."""
    return pb.SubmitHeader(bot=args.name, command=args.command, archive_format=archive_format,
                           size=archive.stat().st_size)


def submission(header: pb.SubmitHeader, archive: Path) -> Iterator[pb.SubmitVersionRequest]:
    """The header, then the archive in chunks, read as they are sent."""
    yield pb.SubmitVersionRequest(header=header)
    with archive.open("rb") as data:
        while chunk := data.read(CHUNK):
            yield pb.SubmitVersionRequest(chunk=chunk)


class archive_of:  # noqa: N801 - used like a function: `with archive_of(path) as (file, format)`
    """`path` itself when it is an archive; a folder packed into a temporary .tar.gz (removed after)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.packed: Path | None = None

    def __enter__(self) -> tuple[Path, str]:
        if self.path.is_dir():
            self.packed = pack(self.path)
            return self.packed, "tar.gz"
        name = self.path.name.lower()
        for suffix, archive_format in ARCHIVES.items():
            if name.endswith(suffix) and self.path.is_file():
                return self.path, archive_format
        if not self.path.exists():
            raise CliError(f"{self.path} does not exist; give a folder or a .tar.gz / .tgz / .zip archive")
        raise CliError(f"{self.path} is neither a folder nor an archive; give a folder or a file ending in "
                       ".tar.gz, .tgz or .zip")

    def __exit__(self, *exc: object) -> None:
        if self.packed is not None:
            self.packed.unlink(missing_ok=True)


def pack(folder: Path) -> Path:
    """The folder's entries (not the folder itself; links kept as links) in a private .tar.gz, so
    the arena stores the same tree as `arena bot submit FOLDER` would."""
    descriptor, name = tempfile.mkstemp(prefix="arena-bot-", suffix=".tar.gz")
    try:
        with os.fdopen(descriptor, "wb") as out, tarfile.open(fileobj=out, mode="w:gz") as archive:
            for entry in sorted(folder.iterdir()):
                archive.add(entry, arcname=entry.name)
    except OSError as error:
        Path(name).unlink(missing_ok=True)
        raise CliError(f"cannot pack {folder}: {error.strerror or error} ({error.filename or 'a file'})") from None
    return Path(name)


def register_command(call: Caller, args: argparse.Namespace) -> int:
    reply = call("RegisterBot", pb.RegisterBotRequest(bot=args.name))
    print(f"registered bot {args.name!r}. Its token {TOKEN_NOTE}:")
    print(reply.token)
    print(f"Run your bot with this token against the gateway at {args.server}, e.g.:")
    tls = f" --ca {args.ca}" if args.ca else " --tls" if args.tls else ""
    print(f"  python3 random_bot.py --address {args.server} --token {reply.token}{tls}")
    print("  (a gateway that serves TLS needs --ca CA.pem, the certificate authority its operator gives you, "
          f"or ${CA_ENV})")
    return 0


def versions_command(call: Caller, args: argparse.Namespace) -> int:
    bots = call("ListBots", pb.ListBotsRequest(bot=args.name)).bots
    versions = list(bots[0].versions) if bots else []
    if not versions:
        print(f"{args.name} has no versions: it dials in with its token (submit one with `arena-bot submit`)")
    else:
        print(format_versions(args.name, versions))
    return 0


def format_versions(name: str, versions: list[pb.AuthorBotVersion]) -> str:
    """The table `arena bot versions NAME` prints (arena/cli/bot.py format_versions), line for line."""
    latest = f"{name}@{versions[-1].number}"
    lines = [f"{name}: {len(versions)} version(s); `{name}` plays the latest, {latest}",
             f"  {'version':<{len(latest) + 2}} {'sha256':<12}  {'submitted':<16}  ratings"]
    for version in versions:
        rated = "; ".join(f"{r.ruleset}: {r.elo:.0f} ({format_interval(r.low, r.high).strip()}), {r.games} games"
                          + (", provisional" if r.provisional else "") for r in version.ratings) or "not rated yet"
        suspended = f"; SUSPENDED: {version.suspended}" if version.suspended else ""
        submitted = datetime.fromisoformat(version.submitted_at)
        lines.append(f"  {version.bot + '@' + str(version.number):<{len(latest) + 2}} "
                     f"{version.sha256[:12] or '(command)':<12}  {submitted:%Y-%m-%d %H:%M}  {rated}{suspended}")
    lines += [f"  {v.bot}@{v.number} is held back: {v.hold}" for v in versions if v.hold]
    lines.append(f"  command of {latest}: {versions[-1].command}")
    return "\n".join(lines)


def format_interval(low: float, high: float) -> str:
    """'1788 – 1934', as the arena's leaderboard writes a 95 % interval ('?' for an unknown end)."""
    def end(value: float) -> str:
        return "?" if math.isinf(value) or math.isnan(value) else f"{value:.0f}"
    return f"{end(low):>5} – {end(high):<5}"


def token_command(call: Caller, args: argparse.Namespace) -> int:
    if not args.rotate:
        raise CliError("tokens are kept only as hashes and cannot be shown again; "
                       f"`arena-bot token {args.name} --rotate` issues a new one")
    reply = call("RotateToken", pb.RotateTokenRequest(bot=args.name))
    print(f"new token for bot {args.name!r} (shown only this once; the old token no longer works):")
    print(reply.token)
    print(f"Streams opened with the old token are closed: {closed(args.server, reply.streams_closed)}.")
    return 0


def closed(server: str, streams: int) -> str:
    return f"the gateway at {server} closed {streams} open stream(s)"


def disable_command(call: Caller, args: argparse.Namespace) -> int:
    reply = call("SetBotState", pb.SetBotStateRequest(bot=args.name, disabled=True))
    print(f"disabled bot {args.name!r}: it may not connect or be seated; `arena-bot enable {args.name}` lifts it")
    print(f"Its open stream is closed: {closed(args.server, reply.streams_closed)}.")
    return 0


def enable_command(call: Caller, args: argparse.Namespace) -> int:
    call("SetBotState", pb.SetBotStateRequest(bot=args.name, disabled=False))
    print(f"enabled bot {args.name!r}: it may connect and play again with its token")
    return 0


def logs_command(call: Caller, args: argparse.Namespace) -> int:
    logs = call("ReadLog", pb.ReadLogRequest(bot=args.name, match_id=args.match)).logs
    if not logs:
        print(f"no stored output of {args.name} in match {args.match} (the arena keeps the output of bots it launched)")
    for entry in logs:
        version = f"@{entry.version}" if entry.version else ""
        reason = f": {entry.reason}" if entry.reason else ""
        print(f"match {entry.match_id}, seat {entry.seat}: {entry.bot}{version}, {entry.termination}{reason}")
        if entry.text or "is not launched again" not in entry.reason:
            print(entry.text.rstrip("\n"))
        else:
            print("(no output: the arena skipped this launch, waiting after the bot's last launch failed "
                  "(the back-off above); its output of that failed launch is in that match's log)")
    return 0


def try_command(call: Caller, args: argparse.Namespace) -> int:
    check_command(args)
    with archive_of(args.path) as (archive, archive_format):
        submit = version_header(args, archive, archive_format)
        header = pb.TryHeader(submit=submit, game_id=args.game, matches=args.matches)
        reply = call("TryVersion", try_stream(header, archive))
    print(f"{args.name}: {len(reply.matches)} unrated match(es) of {reply.game_id} against the ladder's anchors "
          "(nothing stored)")
    for number, match in enumerate(reply.matches, 1):
        print(format_trial(number, match))
    return 0 if all(not m.fault and not m.error for m in reply.matches) else 1


def try_stream(header: pb.TryHeader, archive: Path) -> Iterator[pb.TryVersionRequest]:
    """The header, then the archive in chunks (as `submission`)."""
    yield pb.TryVersionRequest(header=header)
    for part in submission(header.submit, archive):
        if part.HasField("chunk"):
            yield pb.TryVersionRequest(chunk=part.chunk)


def format_trial(number: int, match: pb.TrialMatch) -> str:
    """One match of a try: its table, the bot's result or fault, then its log."""
    table = ", ".join(f"{seat}: {bot}" for seat, bot in enumerate(match.seats))
    if match.error:
        return f"match {number} ({table}): not played: {match.error}"
    result = f"rank {match.rank}, score {match.score:g}, {match.termination}"
    fault = f"; fault: {match.fault}" if match.fault else ""
    log = match.log.rstrip("\n") or "(it printed nothing while its seat was open)"
    return f"match {number} ({table}; it sat at seat {match.seat}): {result}{fault}\n  log:\n" + \
        "\n".join(f"    {line}" for line in log.splitlines())


ACTIONS = {"submit": submit_command, "register": register_command, "versions": versions_command,
           "token": token_command, "disable": disable_command, "enable": enable_command, "logs": logs_command,
           "try": try_command, "bots": author_views.bots_command, "matches": author_views.matches_command,
           "replay": author_views.replay_command}


if __name__ == "__main__":
    sys.exit(console_main())
