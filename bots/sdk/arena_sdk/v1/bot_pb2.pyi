from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_NORMAL: _ClassVar[Termination]
    TERMINATION_TIMEOUT: _ClassVar[Termination]
    TERMINATION_ILLEGAL_ACTION: _ClassVar[Termination]
    TERMINATION_PROTOCOL_ERROR: _ClassVar[Termination]
    TERMINATION_DISCONNECT: _ClassVar[Termination]
    TERMINATION_CRASH: _ClassVar[Termination]
    TERMINATION_ABORTED: _ClassVar[Termination]
TERMINATION_UNSPECIFIED: Termination
TERMINATION_NORMAL: Termination
TERMINATION_TIMEOUT: Termination
TERMINATION_ILLEGAL_ACTION: Termination
TERMINATION_PROTOCOL_ERROR: Termination
TERMINATION_DISCONNECT: Termination
TERMINATION_CRASH: Termination
TERMINATION_ABORTED: Termination

class BotMessage(_message.Message):
    __slots__ = ("action", "hello")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    action: Action
    hello: Hello
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., hello: _Optional[_Union[Hello, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("request_id", "action_id")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    action_id: int
    def __init__(self, request_id: _Optional[int] = ..., action_id: _Optional[int] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("client", "version")
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    client: str
    version: str
    def __init__(self, client: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "match_start", "decision", "match_end", "notice")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    decision: DecisionRequest
    match_end: MatchEnd
    notice: Notice
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("bot_name", "protocol", "session_id")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    protocol: str
    session_id: str
    def __init__(self, bot_name: _Optional[str] = ..., protocol: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_ms", "bank_ms", "grace_ms", "max_strikes")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    grace_ms: int
    max_strikes: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., grace_ms: _Optional[int] = ..., max_strikes: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "seat", "game_id", "ruleset", "num_players", "options_json", "time_control", "seat_bots")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEAT_BOTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    game_id: str
    ruleset: str
    num_players: int
    options_json: str
    time_control: TimeControl
    seat_bots: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., game_id: _Optional[str] = ..., ruleset: _Optional[str] = ..., num_players: _Optional[int] = ..., options_json: _Optional[str] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., seat_bots: _Optional[_Iterable[str]] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "label")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    id: int
    label: str
    def __init__(self, id: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "match_id", "seat", "game_id", "ruleset", "step", "observation_json", "legal_actions", "time_left_ms", "decision_ms", "bank_ms")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_JSON_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    match_id: str
    seat: int
    game_id: str
    ruleset: str
    step: int
    observation_json: str
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    time_left_ms: int
    decision_ms: int
    bank_ms: int
    def __init__(self, request_id: _Optional[int] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., game_id: _Optional[str] = ..., ruleset: _Optional[str] = ..., step: _Optional[int] = ..., observation_json: _Optional[str] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., time_left_ms: _Optional[int] = ..., decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "seat", "returns", "ranks", "termination", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    returns: _containers.RepeatedScalarFieldContainer[float]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    termination: Termination
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., returns: _Optional[_Iterable[float]] = ..., ranks: _Optional[_Iterable[int]] = ..., termination: _Optional[_Union[Termination, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("message", "request_id")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    message: str
    request_id: int
    def __init__(self, message: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...
