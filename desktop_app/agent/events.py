"""What the agent tells the views: one frozen dataclass per event, the ``AgentEvent`` union.

Views handle them with ``match`` + ``typing.assert_never``, so a new event is a type error in every
consumer that forgot it. Stream events are not re-worded: :class:`StreamUpdated` carries each one
with the partial assistant message accumulated so far (text, thinking and tool calls), so a view
never folds deltas itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop_app.llm.protocol import StreamEvent
from desktop_app.tools import ToolUpdate

__all__ = [
    "AgentError",
    "AgentEvent",
    "BranchSummaryFinished",
    "BranchSummaryStarted",
    "CompactionFailed",
    "CompactionFinished",
    "CompactionProgress",
    "CompactionStarted",
    "MessageAppended",
    "ReplyRecovered",
    "RetryScheduled",
    "SessionChanged",
    "StreamUpdated",
    "ToolCallsFinished",
    "ToolCallsStarted",
    "ToolResultAppended",
    "ToolUpdated",
    "TurnFinished",
    "TurnStarted",
    "WaitingForServer",
    "WorkingFolderMissing",
]


@dataclass(frozen=True)
class TurnStarted:
    """The user's message is on disk and the request is about to go out."""


@dataclass(frozen=True)
class TurnFinished:
    """The turn is over (replied, failed, aborted or recovered)."""


@dataclass(frozen=True)
class StreamUpdated:
    """One stream event of a chat turn and the partial assistant message after it (pi shape)."""

    event: StreamEvent
    partial: dict[str, Any]


@dataclass(frozen=True)
class WaitingForServer:
    """Nothing has come from the server for ``seconds`` (repeated while the silence lasts)."""

    seconds: float


@dataclass(frozen=True)
class MessageAppended:
    entry_id: str
    message: dict[str, Any]


@dataclass(frozen=True)
class RetryScheduled:
    attempt: int
    delay_ms: int
    error: str


@dataclass(frozen=True)
class CompactionStarted:
    reason: str
    """``manual``, ``threshold`` or ``overflow``."""


@dataclass(frozen=True)
class CompactionProgress:
    reason: str
    chars: int


@dataclass(frozen=True)
class CompactionFinished:
    reason: str
    entry_id: str
    will_retry: bool
    tokens_before: int


@dataclass(frozen=True)
class CompactionFailed:
    reason: str
    aborted: bool
    error: str


@dataclass(frozen=True)
class BranchSummaryStarted:
    pass


@dataclass(frozen=True)
class BranchSummaryFinished:
    aborted: bool
    entry_id: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class SessionChanged:
    session_file: str | None


@dataclass(frozen=True)
class AgentError:
    message: str


@dataclass(frozen=True)
class ReplyRecovered:
    """A reply that could not be appended to the session (disk full, request entry gone) was kept
    in the recovery file ``path``; ``message`` says why, for the user."""

    path: str
    message: str


@dataclass(frozen=True)
class ToolCallsStarted:
    """The assistant ``entry_id`` asked for tools; ``calls`` are its ``toolCall`` blocks in order.

    Approval cards (through ``AgentSession.approver``) and runs follow; then one
    :class:`ToolResultAppended` per call, in call order, and :class:`ToolCallsFinished`.
    """

    entry_id: str
    calls: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class ToolUpdated:
    """A running tool's partial output (bash's running tail), for the live tool row."""

    update: ToolUpdate


@dataclass(frozen=True)
class ToolResultAppended:
    """One ``toolResult`` message is in the session (entry ``entry_id``), in call order."""

    entry_id: str
    message: dict[str, Any]


@dataclass(frozen=True)
class ToolCallsFinished:
    """Every result of the batch is appended. ``aborted``: Esc stopped it and the turn ends here;
    otherwise the next request goes out at once (a new streamed reply follows)."""

    aborted: bool


@dataclass(frozen=True)
class WorkingFolderMissing:
    """The session's folder (``cwd``) does not exist: tools fail with pi's error until the window
    points the agent at another folder (``AgentSession.use_working_folder``), as pi asks on resume."""

    cwd: str


AgentEvent = (
    TurnStarted
    | TurnFinished
    | StreamUpdated
    | WaitingForServer
    | MessageAppended
    | RetryScheduled
    | CompactionStarted
    | CompactionProgress
    | CompactionFinished
    | CompactionFailed
    | BranchSummaryStarted
    | BranchSummaryFinished
    | SessionChanged
    | AgentError
    | ReplyRecovered
    | ToolCallsStarted
    | ToolUpdated
    | ToolResultAppended
    | ToolCallsFinished
    | WorkingFolderMissing
)
