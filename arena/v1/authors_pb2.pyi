from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegisterBotRequest(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    def __init__(self, bot: _Optional[str] = ...) -> None: ...

class RegisterBotReply(_message.Message):
    __slots__ = ("bot", "token")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot: str
    token: str
    def __init__(self, bot: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class SubmitHeader(_message.Message):
    __slots__ = ("bot", "command", "archive_format", "size")
    BOT_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    bot: str
    command: str
    archive_format: str
    size: int
    def __init__(self, bot: _Optional[str] = ..., command: _Optional[str] = ..., archive_format: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...

class SubmitVersionRequest(_message.Message):
    __slots__ = ("header", "chunk")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    header: SubmitHeader
    chunk: bytes
    def __init__(self, header: _Optional[_Union[SubmitHeader, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class SubmitVersionReply(_message.Message):
    __slots__ = ("version", "token")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    version: AuthorBotVersion
    token: str
    def __init__(self, version: _Optional[_Union[AuthorBotVersion, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class VersionRating(_message.Message):
    __slots__ = ("game_id", "ruleset", "place", "elo", "low", "high", "games", "provisional")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    ruleset: str
    place: int
    elo: float
    low: float
    high: float
    games: int
    provisional: bool
    def __init__(self, game_id: _Optional[str] = ..., ruleset: _Optional[str] = ..., place: _Optional[int] = ..., elo: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., games: _Optional[int] = ..., provisional: _Optional[bool] = ...) -> None: ...

class AuthorBotVersion(_message.Message):
    __slots__ = ("bot", "number", "sha256", "command", "files", "submitted_at", "ratings", "hold", "suspended")
    BOT_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    HOLD_FIELD_NUMBER: _ClassVar[int]
    SUSPENDED_FIELD_NUMBER: _ClassVar[int]
    bot: str
    number: int
    sha256: str
    command: str
    files: str
    submitted_at: str
    ratings: _containers.RepeatedCompositeFieldContainer[VersionRating]
    hold: str
    suspended: str
    def __init__(self, bot: _Optional[str] = ..., number: _Optional[int] = ..., sha256: _Optional[str] = ..., command: _Optional[str] = ..., files: _Optional[str] = ..., submitted_at: _Optional[str] = ..., ratings: _Optional[_Iterable[_Union[VersionRating, _Mapping]]] = ..., hold: _Optional[str] = ..., suspended: _Optional[str] = ...) -> None: ...

class AuthorBot(_message.Message):
    __slots__ = ("name", "disabled", "registered_at", "versions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_AT_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    disabled: bool
    registered_at: str
    versions: _containers.RepeatedCompositeFieldContainer[AuthorBotVersion]
    def __init__(self, name: _Optional[str] = ..., disabled: _Optional[bool] = ..., registered_at: _Optional[str] = ..., versions: _Optional[_Iterable[_Union[AuthorBotVersion, _Mapping]]] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    def __init__(self, bot: _Optional[str] = ...) -> None: ...

class ListBotsReply(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[AuthorBot]
    def __init__(self, bots: _Optional[_Iterable[_Union[AuthorBot, _Mapping]]] = ...) -> None: ...

class RotateTokenRequest(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    def __init__(self, bot: _Optional[str] = ...) -> None: ...

class RotateTokenReply(_message.Message):
    __slots__ = ("token", "streams_closed")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    STREAMS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    token: str
    streams_closed: int
    def __init__(self, token: _Optional[str] = ..., streams_closed: _Optional[int] = ...) -> None: ...

class SetBotStateRequest(_message.Message):
    __slots__ = ("bot", "disabled")
    BOT_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    bot: str
    disabled: bool
    def __init__(self, bot: _Optional[str] = ..., disabled: _Optional[bool] = ...) -> None: ...

class SetBotStateReply(_message.Message):
    __slots__ = ("streams_closed",)
    STREAMS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    streams_closed: int
    def __init__(self, streams_closed: _Optional[int] = ...) -> None: ...

class ReadLogRequest(_message.Message):
    __slots__ = ("bot", "match_id")
    BOT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    bot: str
    match_id: int
    def __init__(self, bot: _Optional[str] = ..., match_id: _Optional[int] = ...) -> None: ...

class BotLogEntry(_message.Message):
    __slots__ = ("match_id", "seat", "bot", "version", "termination", "reason", "text")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    match_id: int
    seat: int
    bot: str
    version: int
    termination: str
    reason: str
    text: str
    def __init__(self, match_id: _Optional[int] = ..., seat: _Optional[int] = ..., bot: _Optional[str] = ..., version: _Optional[int] = ..., termination: _Optional[str] = ..., reason: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class ReadLogReply(_message.Message):
    __slots__ = ("logs",)
    LOGS_FIELD_NUMBER: _ClassVar[int]
    logs: _containers.RepeatedCompositeFieldContainer[BotLogEntry]
    def __init__(self, logs: _Optional[_Iterable[_Union[BotLogEntry, _Mapping]]] = ...) -> None: ...

class TryHeader(_message.Message):
    __slots__ = ("submit", "game_id", "matches")
    SUBMIT_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    submit: SubmitHeader
    game_id: str
    matches: int
    def __init__(self, submit: _Optional[_Union[SubmitHeader, _Mapping]] = ..., game_id: _Optional[str] = ..., matches: _Optional[int] = ...) -> None: ...

class TryVersionRequest(_message.Message):
    __slots__ = ("header", "chunk")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    header: TryHeader
    chunk: bytes
    def __init__(self, header: _Optional[_Union[TryHeader, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class TrialMatch(_message.Message):
    __slots__ = ("seats", "seat", "termination", "reason", "fault", "strikes", "rank", "score", "log", "error")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[str]
    seat: int
    termination: str
    reason: str
    fault: str
    strikes: int
    rank: int
    score: float
    log: str
    error: str
    def __init__(self, seats: _Optional[_Iterable[str]] = ..., seat: _Optional[int] = ..., termination: _Optional[str] = ..., reason: _Optional[str] = ..., fault: _Optional[str] = ..., strikes: _Optional[int] = ..., rank: _Optional[int] = ..., score: _Optional[float] = ..., log: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class TryVersionReply(_message.Message):
    __slots__ = ("game_id", "matches")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    matches: _containers.RepeatedCompositeFieldContainer[TrialMatch]
    def __init__(self, game_id: _Optional[str] = ..., matches: _Optional[_Iterable[_Union[TrialMatch, _Mapping]]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("bot", "lost", "crashed", "opponent", "ruleset", "since", "until", "before_id", "limit")
    BOT_FIELD_NUMBER: _ClassVar[int]
    LOST_FIELD_NUMBER: _ClassVar[int]
    CRASHED_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    BEFORE_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    lost: bool
    crashed: bool
    opponent: str
    ruleset: str
    since: str
    until: str
    before_id: int
    limit: int
    def __init__(self, bot: _Optional[str] = ..., lost: _Optional[bool] = ..., crashed: _Optional[bool] = ..., opponent: _Optional[str] = ..., ruleset: _Optional[str] = ..., since: _Optional[str] = ..., until: _Optional[str] = ..., before_id: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class MatchSeat(_message.Message):
    __slots__ = ("seat", "entrant", "rank", "score", "termination", "reason", "mine")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MINE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    entrant: str
    rank: int
    score: float
    termination: str
    reason: str
    mine: bool
    def __init__(self, seat: _Optional[int] = ..., entrant: _Optional[str] = ..., rank: _Optional[int] = ..., score: _Optional[float] = ..., termination: _Optional[str] = ..., reason: _Optional[str] = ..., mine: _Optional[bool] = ...) -> None: ...

class AuthorMatch(_message.Message):
    __slots__ = ("match_id", "game_id", "ruleset", "status", "finished_at", "result", "seats", "link")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    LINK_FIELD_NUMBER: _ClassVar[int]
    match_id: int
    game_id: str
    ruleset: str
    status: str
    finished_at: str
    result: str
    seats: _containers.RepeatedCompositeFieldContainer[MatchSeat]
    link: str
    def __init__(self, match_id: _Optional[int] = ..., game_id: _Optional[str] = ..., ruleset: _Optional[str] = ..., status: _Optional[str] = ..., finished_at: _Optional[str] = ..., result: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[MatchSeat, _Mapping]]] = ..., link: _Optional[str] = ...) -> None: ...

class ListMatchesReply(_message.Message):
    __slots__ = ("matches", "next_before_id")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_BEFORE_ID_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[AuthorMatch]
    next_before_id: int
    def __init__(self, matches: _Optional[_Iterable[_Union[AuthorMatch, _Mapping]]] = ..., next_before_id: _Optional[int] = ...) -> None: ...

class ReadReplayRequest(_message.Message):
    __slots__ = ("bot", "match_id", "seat")
    BOT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    match_id: int
    seat: int
    def __init__(self, bot: _Optional[str] = ..., match_id: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class ReadReplayReply(_message.Message):
    __slots__ = ("replay_json",)
    REPLAY_JSON_FIELD_NUMBER: _ClassVar[int]
    replay_json: str
    def __init__(self, replay_json: _Optional[str] = ...) -> None: ...
