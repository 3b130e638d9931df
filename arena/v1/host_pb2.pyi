from arena.v1 import bot_pb2 as _bot_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HostCall(_message.Message):
    __slots__ = ("call_id", "open_seat", "decide", "close_seat")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEAT_FIELD_NUMBER: _ClassVar[int]
    DECIDE_FIELD_NUMBER: _ClassVar[int]
    CLOSE_SEAT_FIELD_NUMBER: _ClassVar[int]
    call_id: int
    open_seat: OpenSeatRequest
    decide: DecideRequest
    close_seat: CloseSeatRequest
    def __init__(self, call_id: _Optional[int] = ..., open_seat: _Optional[_Union[OpenSeatRequest, _Mapping]] = ..., decide: _Optional[_Union[DecideRequest, _Mapping]] = ..., close_seat: _Optional[_Union[CloseSeatRequest, _Mapping]] = ...) -> None: ...

class HostReply(_message.Message):
    __slots__ = ("call_id", "seat", "decide", "error", "leg_open")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECIDE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    LEG_OPEN_FIELD_NUMBER: _ClassVar[int]
    call_id: int
    seat: SeatReply
    decide: DecideReply
    error: HostError
    leg_open: HostLegProof
    def __init__(self, call_id: _Optional[int] = ..., seat: _Optional[_Union[SeatReply, _Mapping]] = ..., decide: _Optional[_Union[DecideReply, _Mapping]] = ..., error: _Optional[_Union[HostError, _Mapping]] = ..., leg_open: _Optional[_Union[HostLegProof, _Mapping]] = ...) -> None: ...

class HostError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class OpenSeatRequest(_message.Message):
    __slots__ = ("bot_name", "connect_timeout_ms", "start")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECT_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    connect_timeout_ms: int
    start: _bot_pb2.MatchStart
    def __init__(self, bot_name: _Optional[str] = ..., connect_timeout_ms: _Optional[int] = ..., start: _Optional[_Union[_bot_pb2.MatchStart, _Mapping]] = ...) -> None: ...

class DecideRequest(_message.Message):
    __slots__ = ("bot_name", "request", "deadline_ms")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    request: _bot_pb2.DecisionRequest
    deadline_ms: int
    def __init__(self, bot_name: _Optional[str] = ..., request: _Optional[_Union[_bot_pb2.DecisionRequest, _Mapping]] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class DecideReply(_message.Message):
    __slots__ = ("action_id", "elapsed_ms", "fault", "reason")
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    action_id: int
    elapsed_ms: float
    fault: _bot_pb2.Termination
    reason: str
    def __init__(self, action_id: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., fault: _Optional[_Union[_bot_pb2.Termination, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class CloseSeatRequest(_message.Message):
    __slots__ = ("bot_name", "end")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    end: _bot_pb2.MatchEnd
    def __init__(self, bot_name: _Optional[str] = ..., end: _Optional[_Union[_bot_pb2.MatchEnd, _Mapping]] = ...) -> None: ...

class SeatReply(_message.Message):
    __slots__ = ("fault", "reason", "version", "output_tail", "decision_marks")
    FAULT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TAIL_FIELD_NUMBER: _ClassVar[int]
    DECISION_MARKS_FIELD_NUMBER: _ClassVar[int]
    fault: _bot_pb2.Termination
    reason: str
    version: str
    output_tail: bytes
    decision_marks: _containers.RepeatedCompositeFieldContainer[DecisionMark]
    def __init__(self, fault: _Optional[_Union[_bot_pb2.Termination, str]] = ..., reason: _Optional[str] = ..., version: _Optional[str] = ..., output_tail: _Optional[bytes] = ..., decision_marks: _Optional[_Iterable[_Union[DecisionMark, _Mapping]]] = ...) -> None: ...

class CheckAccessRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CheckAccessReply(_message.Message):
    __slots__ = ("closed",)
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    closed: int
    def __init__(self, closed: _Optional[int] = ...) -> None: ...

class HostLegRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HostLegReply(_message.Message):
    __slots__ = ("port",)
    PORT_FIELD_NUMBER: _ClassVar[int]
    port: int
    def __init__(self, port: _Optional[int] = ...) -> None: ...

class HostLegChallenge(_message.Message):
    __slots__ = ("protocol", "nonce")
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    protocol: str
    nonce: bytes
    def __init__(self, protocol: _Optional[str] = ..., nonce: _Optional[bytes] = ...) -> None: ...

class HostLegProof(_message.Message):
    __slots__ = ("nonce", "mac")
    NONCE_FIELD_NUMBER: _ClassVar[int]
    MAC_FIELD_NUMBER: _ClassVar[int]
    nonce: bytes
    mac: bytes
    def __init__(self, nonce: _Optional[bytes] = ..., mac: _Optional[bytes] = ...) -> None: ...

class DecisionMark(_message.Message):
    __slots__ = ("step", "offset")
    STEP_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    step: int
    offset: int
    def __init__(self, step: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...
