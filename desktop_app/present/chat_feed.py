"""What the chat shows: the one consumer of both event streams (session and agent). No Qt.

The chat shows exactly the context of the active leaf (``build_session_context``), plus one live
row while a reply streams. Two sources change that: the session (entries appended by this process
or another program, the leaf moved, the file reloaded) and the agent (a turn started, the partial
reply grew, the reply was saved, a retry, a compaction). :class:`ChatFeed` turns each event into
the :data:`ChatUpdate` commands a chat panel applies — and holds the only state that decides it:
which leaf the rows stand for and whether a live row is up. There are no window flags to keep in
step by hand.

The live row is the partial assistant message that :class:`~desktop_app.agent.StreamUpdated`
carries (text, thinking *and* tool calls so far, accumulated once by the agent), so the feed never
folds deltas itself. Session appends that arrive while a reply streams are not shown as rows then:
the reply's own entry becomes the live row's final message, and anything else is caught by a
rebind when the turn ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, assert_never

from desktop_app.agent.events import (
    AgentError,
    AgentEvent,
    BranchSummaryFinished,
    BranchSummaryStarted,
    CompactionFailed,
    CompactionFinished,
    CompactionProgress,
    CompactionStarted,
    MessageAppended,
    ReplyRecovered,
    RetryScheduled,
    SessionChanged,
    StreamUpdated,
    ToolCallsFinished,
    ToolCallsStarted,
    ToolResultAppended,
    ToolUpdated,
    TurnFinished,
    TurnStarted,
    WaitingForServer,
    WorkingFolderMissing,
)
from desktop_app.session import (
    EntryAppended,
    ExternalAppend,
    LeafMoved,
    Reloaded,
    SessionEvent,
    SessionFailed,
    SessionView,
)
from desktop_app.session.context import context_message

__all__ = [
    "AppendRows",
    "ChatFeed",
    "ChatUpdate",
    "SetBusy",
    "ShowContext",
    "ShowError",
    "StreamDropped",
    "StreamEnded",
    "StreamStarted",
    "StreamChanged",
    "agent_status",
]

Message = dict[str, Any]
_REBIND_TYPES = ("compaction", "branch_summary")  # they change the context above them: rebind


@dataclass(frozen=True)
class ShowContext:
    """Replace every row with ``messages`` (the context of ``leaf_id``); a live row stays last."""

    messages: Sequence[Any]
    leaf_id: str | None


@dataclass(frozen=True)
class AppendRows:
    """Entries appended under the chat's leaf: add their messages after the last row."""

    messages: Sequence[Any]


@dataclass(frozen=True)
class StreamStarted:
    """Put up an empty live row (or restart it: a retry begins the reply again)."""


@dataclass(frozen=True)
class StreamChanged:
    """The live row now shows ``partial`` (text, thinking and tool calls so far)."""

    partial: Message


@dataclass(frozen=True)
class StreamEnded:
    """The live row becomes ``message`` (the saved reply); ``aborted`` marks a stopped one."""

    message: Message
    aborted: bool


@dataclass(frozen=True)
class StreamDropped:
    """The turn ended with no reply saved: take the live row away."""


@dataclass(frozen=True)
class SetBusy:
    busy: bool


@dataclass(frozen=True)
class ShowError:
    text: str


ChatUpdate: TypeAlias = (
    ShowContext | AppendRows | StreamStarted | StreamChanged | StreamEnded | StreamDropped | SetBusy | ShowError
)


class ChatFeed:
    """Session and agent events → :data:`ChatUpdate` lists (see the module docstring)."""

    def __init__(self, session: SessionView) -> None:
        self._session = session
        self.leaf_id: str | None = None  #: the entry the rows end at
        self.streaming = False  #: a live row is up
        self.partial: Message | None = None  #: what the live row shows

    def bind(self, session: SessionView) -> list[ChatUpdate]:
        """Show ``session`` (the window opened another one); any live row is gone with the old one."""
        self._session = session
        updates: list[ChatUpdate] = [StreamDropped()] if self.streaming else []
        self.streaming, self.partial = False, None
        return [*updates, self._rebind()]

    def refresh(self) -> list[ChatUpdate]:
        """The rows again from the session (nothing while a reply streams: it is caught up after)."""
        return [] if self.streaming else [self._rebind()]

    def _rebind(self) -> ShowContext:
        session = self._session
        self.leaf_id = session.leaf_id
        return ShowContext(session.build_session_context().messages, self.leaf_id)

    # ------------------------------------------------------------------------------- session

    def on_session_event(self, event: SessionEvent) -> list[ChatUpdate]:
        match event:
            case EntryAppended(entry=entry, leaf_id=leaf_id):
                return self._appended((entry,), leaf_id)
            case ExternalAppend(entries=entries, leaf_id=leaf_id):
                return self._appended(entries, leaf_id)
            case LeafMoved() | Reloaded():
                return self.refresh()
            case SessionFailed(message=message):
                return [ShowError(message)] if message else []
            case _:
                assert_never(event)

    def _appended(self, entries: Iterable[dict[str, Any]], leaf_id: str | None) -> list[ChatUpdate]:
        """Entries that extend the chat's leaf add rows (a long context is not rebuilt for one
        message); anything else — another branch, a compaction, a branch summary — rebinds."""
        if self.streaming:
            return []
        appended = [e for e in entries if isinstance(e, dict)]
        if not appended or leaf_id != appended[-1].get("id"):
            return self.refresh()
        messages: list[Any] = []
        parent = self.leaf_id
        for entry in appended:
            if entry.get("parentId") != parent or entry.get("type") in _REBIND_TYPES:
                return self.refresh()
            message = context_message(entry)
            if message is not None:
                messages.append(message)
            parent = entry.get("id")
        self.leaf_id = parent
        return [AppendRows(messages)] if messages else []

    # ------------------------------------------------------------------------------- agent

    def on_agent_event(self, event: AgentEvent) -> list[ChatUpdate]:
        match event:
            case TurnStarted():
                self.streaming, self.partial = True, None
                return [StreamStarted(), SetBusy(True)]
            case StreamUpdated(partial=partial):
                if not self.streaming:
                    return []
                self.partial = partial
                return [StreamChanged(partial)]
            case MessageAppended(entry_id=entry_id, message=message):
                return self._reply_saved(entry_id, message)
            case RetryScheduled():
                self.streaming, self.partial = True, None
                return [StreamStarted()]
            case TurnFinished():
                updates: list[ChatUpdate] = [SetBusy(False)]
                if self.streaming:
                    self.streaming, self.partial = False, None
                    updates.append(StreamDropped())
                if self.leaf_id != self._session.leaf_id:
                    updates.append(self._rebind())
                return updates
            case CompactionFinished():
                return self.refresh()
            case AgentError(message=message):
                return [ShowError(message)]
            case ReplyRecovered(path=path, message=message):
                return [ShowError(f"{message}. The reply was saved to {path}")]
            case ToolCallsFinished(aborted=aborted):
                if aborted:
                    return []
                self.streaming, self.partial = True, None  # the next reply streams at once
                return [StreamStarted()]
            case ToolCallsStarted() | ToolUpdated() | ToolResultAppended():
                return []  # minimal (issue 12): result rows come from the session's EntryAppended
            case (
                WorkingFolderMissing()
                | WaitingForServer()
                | CompactionStarted()
                | CompactionProgress()
                | CompactionFailed()
                | BranchSummaryStarted()
                | BranchSummaryFinished()
                | SessionChanged()
            ):
                return []  # the status bar's news (agent_status), or the window rebinds (bind)
            case _:
                assert_never(event)

    def _reply_saved(self, entry_id: str, message: Message) -> list[ChatUpdate]:
        if message.get("role") != "assistant" or not self.streaming:
            return []
        self.streaming, self.partial = False, None
        self.leaf_id = entry_id  # the live row became this entry's message
        updates: list[ChatUpdate] = [StreamEnded(message, aborted=message.get("stopReason") == "aborted")]
        if message.get("stopReason") == "error":
            updates.append(ShowError(str(message.get("errorMessage") or "The request failed")))
        return updates


def agent_status(event: AgentEvent) -> tuple[str, int] | None:
    """The status-bar line an agent event calls for, with how long it stays (ms; 0 = until
    replaced); ``("", 0)`` clears it, ``None`` leaves it alone."""
    match event:
        case RetryScheduled(attempt=attempt, delay_ms=delay_ms, error=error):
            return f"Retrying in {delay_ms / 1000:.1f} s (attempt {attempt}): {error}", 8000
        case WaitingForServer(seconds=seconds):
            return f"Waiting for the server… {seconds:.0f} s (Esc to stop)", 1500
        case CompactionStarted(reason=reason):
            what = "Compacting context…" if reason == "manual" else "Auto-compacting…"
            return f"{what} (Esc to cancel)", 0
        case CompactionProgress(chars=chars):
            return f"Compacting context… {chars:,} characters received (Esc to cancel)", 0
        case CompactionFinished():
            return "Compacted.", 5000
        case CompactionFailed(error=error):
            return error, 8000
        case BranchSummaryStarted():
            return "Summarizing the branch you are leaving… (Esc to cancel)", 0
        case BranchSummaryFinished():
            return "", 0
        case ToolUpdated(update=update):
            tail = [line for line in update.text.splitlines() if line.strip()]
            last = f" {tail[-1][:200]}" if tail else ""
            return f"{update.tool_name} running…{last} (Esc to stop)", 0
        case ToolCallsFinished():
            return "", 0
        case WorkingFolderMissing(cwd=cwd):
            return f"The session's folder does not exist: {cwd} (tools cannot run there)", 8000
        case _:
            return None
