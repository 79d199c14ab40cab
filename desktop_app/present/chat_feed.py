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

pi 1.6.0 sessions add two things the rows must say (:func:`chat_messages`). A ``system`` message
(the prompt and tool set, or a change to them) becomes a row marked with its one-line summary
(:data:`SYSTEM_MARK`). A ``context_edit`` changes what an earlier entry contributes: the chat then
shows the entry as the model sees it and says so (:data:`EDIT_MARK`) — a replaced message with its
replacement, an omitted one dimmed in its place although the model no longer receives it. Which
edit wins is pi's projection (the latest edit per target, none before the kept range), the very
rule the context is built with.
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
from desktop_app.session.context import (
    active_edits,
    context_message,
    edit_key,
    entry_context_messages,
    project_path,
)
from desktop_app.session.kinds import EntryKind, Role, kind_of, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile
from desktop_app.session.system_prompt import content_text

from .pi16_words import EDIT_OMITTED, EDIT_REPLACED, system_summary

__all__ = [
    "EDIT_MARK",
    "SYSTEM_MARK",
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
    "chat_messages",
    "session_profile",
]

Message = dict[str, Any]
#: Entries that change the context above them: the chat rebinds.
_REBIND_KINDS = frozenset({EntryKind.COMPACTION, EntryKind.BRANCH_SUMMARY, EntryKind.CONTEXT_EDIT})

#: Key of a row's context-edit mark: ``{"state": "omitted" | "replaced", "editId", "targetId",
#: "original"}`` (``original``: the text the edit replaced). Rows only; never written to a file.
EDIT_MARK = "arbor:edit"
#: Key of a system row's mark: ``{"summary": one line, "whole": the whole prompt (the first one or
#: a compaction's checkpoint), "checkpoint": the prompt replayed at the compaction}``.
SYSTEM_MARK = "arbor:system"


def session_profile(session: SessionView) -> PiProfile:
    """The pi-version profile a session was opened with (a view without one: today's pi)."""
    profile = getattr(session, "profile", None)
    return profile if isinstance(profile, PiProfile) else PI_1_6_0


def chat_messages(session: SessionView, leaf_id: str | None = None) -> list[Any]:
    """The chat's rows at ``leaf_id`` (the leaf when ``None``): the context messages, with system
    messages and context-edited entries marked (see the module docstring). A context without
    either is returned as it is, the same message objects."""
    messages = session.build_session_context(leaf_id).messages
    target = leaf_id if leaf_id is not None else session.leaf_id
    rows: list[Any] = messages
    if session.index.context_edits:  # else no walk of the path (72,000 entries at 100k: ~20 ms)
        path = session.get_branch(target) if target is not None else []
        edit = EntryKind.CONTEXT_EDIT
        if any(kind_of(e) is edit for e in path):
            rows = _edit_marked(path, messages, session_profile(session))
    if any(_is_system(m) for m in rows):
        rows = _system_marked(rows)
    return rows


def _edit_marked(path: list[dict[str, Any]], messages: list[Any], profile: PiProfile) -> list[Any]:
    projected = project_path(path, profile=profile)
    if [m for p in projected for m in p.messages] != messages:  # cannot tell the sources: show pi's
        return messages
    edits = active_edits(path, profile)
    rows: list[Any] = []
    for entry in projected:
        edit = edits.get(edit_key(entry.source.get("id")))
        if edit is None:
            rows.extend(entry.messages)
            continue
        raw = entry_context_messages(entry.source, profile=profile)
        if entry.messages == raw:  # a replacement pi does not apply (not ``{content}``)
            rows.extend(entry.messages)
            continue
        shown = raw if not entry.messages else entry.messages
        state = EDIT_OMITTED if not entry.messages else EDIT_REPLACED
        for i, message in enumerate(shown):
            original = " ".join(content_text(raw[i].get("content")).split()) if i < len(raw) else ""
            mark = {"state": state, "editId": edit.get("id"), "targetId": entry.source.get("id"), "original": original}
            rows.append({**message, EDIT_MARK: mark})
    return rows


def _system_marked(rows: list[Any]) -> list[Any]:
    out: list[Any] = []
    seen = False
    for i, message in enumerate(rows):
        if _is_system(message):
            checkpoint = i + 1 < len(rows) and role_of(rows[i + 1]) is Role.COMPACTION_SUMMARY
            message = _system_row(message, whole=checkpoint or not seen, checkpoint=checkpoint)
            seen = True
        out.append(message)
    return out


def _is_system(message: Any) -> bool:
    return role_of(message) is Role.SYSTEM


def _system_row(message: dict[str, Any], *, whole: bool, checkpoint: bool) -> dict[str, Any]:
    """A system message with its mark: the whole prompt (the first, or a compaction's checkpoint) or a change."""
    mark = {"summary": system_summary(message, whole=whole), "whole": whole, "checkpoint": checkpoint}
    return {**message, SYSTEM_MARK: mark}


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
        self.system_shown = False  #: a system row is among the rows (a new one is then a change)

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
        rows = chat_messages(session)
        self.system_shown = any(_is_system(m) for m in rows)
        return ShowContext(rows, self.leaf_id)

    # ------------------------------------------------------------------------------- entries

    def message_of(self, entry_id: str) -> Any | None:
        """The message entry ``entry_id`` stands for in the chat (``None``: not a message entry)."""
        entry = self._session.get_entry(entry_id)
        if entry is None or kind_of(entry) is not EntryKind.MESSAGE:
            return None
        return entry.get("message")

    def entry_id_of(self, message: Any) -> str | None:
        """The entry a chat row's message comes from: a context edit's mark names it; else the
        branch is walked back from the chat's leaf (only when a card's action is chosen), the same
        object first found, else an equal one (a reply shown as it streamed)."""
        mark = message.get(EDIT_MARK) if type(message) is dict else None
        if isinstance(mark, dict) and isinstance(mark.get("targetId"), str):
            return str(mark["targetId"])
        if self.leaf_id is None:
            return None
        branch = self._session.get_branch(self.leaf_id)
        for entry in reversed(branch):
            if entry.get("message") is message:
                return str(entry.get("id"))
        for entry in reversed(branch):
            if kind_of(entry) is EntryKind.MESSAGE and entry.get("message") == message:
                return str(entry.get("id"))
        return None

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
        system_shown = self.system_shown
        for entry in appended:
            if entry.get("parentId") != parent or kind_of(entry) in _REBIND_KINDS:
                return self.refresh()
            message = context_message(entry)
            if message is not None:
                if _is_system(message):  # the whole prompt if no system row is above it, else a change
                    message = _system_row(message, whole=not system_shown, checkpoint=False)
                    system_shown = True
                messages.append(message)
            parent = entry.get("id")
        self.leaf_id, self.system_shown = parent, system_shown
        return [AppendRows(messages)] if messages else []

    # ------------------------------------------------------------------------------- agent

    def on_agent_event(self, event: AgentEvent) -> list[ChatUpdate]:
        match event:
            case TurnStarted():
                self.streaming, self.partial = True, None
                return [StreamStarted(), SetBusy(True)]
            case StreamUpdated(partial=partial):
                return self._stream_updated(partial)
            case MessageAppended(entry_id=entry_id, message=message):
                return self._reply_saved(entry_id, message)
            case RetryScheduled():
                self.streaming, self.partial = True, None
                return [StreamStarted()]
            case TurnFinished():
                return self._turn_finished()
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

    def _stream_updated(self, partial: Message) -> list[ChatUpdate]:
        """The live row grows (ignored when none is up: the turn already ended)."""
        if not self.streaming:
            return []
        self.partial = partial
        return [StreamChanged(partial)]

    def _turn_finished(self) -> list[ChatUpdate]:
        """Not busy; a live row with no reply saved goes, and rows the turn left behind are caught up."""
        updates: list[ChatUpdate] = [SetBusy(False)]
        if self.streaming:
            self.streaming, self.partial = False, None
            updates.append(StreamDropped())
        if self.leaf_id != self._session.leaf_id:
            updates.append(self._rebind())
        return updates

    def _reply_saved(self, entry_id: str, message: Message) -> list[ChatUpdate]:
        if role_of(message) is not Role.ASSISTANT or not self.streaming:
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
        case WorkingFolderMissing():
            return None  # said by the window's folder banner when a tool call needs the folder
        case _:
            return None
