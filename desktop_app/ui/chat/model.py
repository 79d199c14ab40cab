"""``ChatModel``: the context of the active leaf as a flat Qt list model, plus one live row.

Rows are exactly the messages ``build_session_context`` returns, in order, minus custom messages
whose ``display`` is false (pi-spec §4.5; they still count in :attr:`ChatModel.hidden_count`).
While a reply streams, one extra row at the end holds it; its growth is announced with
``stream_updated`` (see there why not ``dataChanged``), its end with an ordinary ``dataChanged``.

Rebinding to another leaf must be instant for sessions with thousands of messages, so the model
keeps the message list as given and computes everything lazily in ``data()``: ``set_messages`` is
one filter pass and a model reset, with nothing built per row. Collapsed/expanded state lives here
(not in the widgets) and survives rebinding, keyed by message identity, or by content for summary
and custom messages, which the context builder re-creates on every call.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from enum import IntEnum
from typing import Any, Literal, NamedTuple

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop_app.present.chat_feed import EDIT_MARK, SYSTEM_MARK
from desktop_app.present.chat_messages import (
    collapsible_sections,
    is_displayed,
    message_kind,
    message_status,
    message_text,
)
from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of

__all__ = ["ChatModel", "ChatRole", "DeltaKind", "RowState"]

DeltaKind = Literal["text", "thinking", "toolcall"]
_Index = QModelIndex | QPersistentModelIndex

#: A stream delta's kind → the kind of block it grows, and the field its text goes to.
_DELTA_BLOCKS: dict[str, tuple[BlockKind, str]] = {
    "text": (BlockKind.TEXT, "text"),
    "thinking": (BlockKind.THINKING, "thinking"),
    "toolcall": (BlockKind.TOOL_CALL, "partialJson"),
}


_NONE: frozenset[int] = frozenset()
_REBUILT_KINDS = frozenset({Role.COMPACTION_SUMMARY, Role.BRANCH_SUMMARY, Role.CUSTOM})


def _state_key(message: Any) -> Hashable:
    if type(message) is dict and role_of(message) in _REBUILT_KINDS:
        return (message["role"], message.get("timestamp"), message_text(message), str(message.get("fromId")))
    if type(message) is dict and (EDIT_MARK in message or SYSTEM_MARK in message):  # marked copies
        return ("marked", message.get("role"), message.get("timestamp"), str(message.get(EDIT_MARK)), message_text(message))
    return ("id", id(message))


class RowState(NamedTuple):
    """A row as the delegate sees it: message, state key, revision, expanded sections, live or not."""

    message: Any
    key: Hashable
    revision: int
    expanded: frozenset[int]
    streaming: bool


class ChatRole(IntEnum):
    """Item data roles of :class:`ChatModel` (``DisplayRole`` is the plain text too)."""

    Kind = Qt.ItemDataRole.UserRole + 1  #: message role (``user``, ``assistant``, ...) or ``unknown``
    Text = Kind + 1  #: plain text of the row (see ``present.chat_messages.message_text``)
    Collapsed = Kind + 2  #: bool: every collapsible section of the row is collapsed
    ExpandedSections = Kind + 3  #: frozenset of expanded section indices
    Message = Kind + 4  #: the message dict itself
    Status = Kind + 5  #: ``ok``, ``error``, ``aborted`` or ``streaming``
    Streaming = Kind + 6  #: bool: the live row
    Revision = Kind + 7  #: int bumped whenever the live row's content changes


class ChatModel(QAbstractListModel):
    """Context messages as rows; a streaming row appended while a reply arrives."""

    #: Emitted after :meth:`set_messages` (argument: the number of rows shown).
    messages_reset = Signal(int)
    #: A live row was added (or restarted).
    stream_started = Signal()
    #: The live row became an ordinary row (finished or aborted).
    stream_finished = Signal()
    #: The live row's content grew (argument: its row). Deltas are announced with this signal and
    #: not ``dataChanged``: ``QListView`` answers any ``dataChanged`` with a layout of *every* row,
    #: which on a long session would cost tens of milliseconds per token. Views repaint the row.
    stream_updated = Signal(int)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []
        self._hidden = 0
        self._stream: dict[str, Any] | None = None
        self._stream_revision = 0
        # state key -> (message kept alive so an id() key cannot be reused, expanded sections)
        self._expanded: dict[Hashable, tuple[Any, frozenset[int]]] = {}

    # ================================================================================ Qt model API

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's signature
        if parent.isValid():
            return 0
        return len(self._rows) + (self._stream is not None)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled if index.isValid() else Qt.ItemFlag.NoItemFlags

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self.rowCount():
            return None
        row = index.row()
        message = self.message(row)
        if role in (Qt.ItemDataRole.DisplayRole, ChatRole.Text):
            return message_text(message)
        if role == ChatRole.Kind:
            return message_kind(message)
        if role == ChatRole.Collapsed:
            return self.is_collapsed(row)
        if role == ChatRole.ExpandedSections:
            return self.expanded(row)
        if role == ChatRole.Message:
            return message
        if role == ChatRole.Status:
            return "streaming" if self.is_stream_row(row) else message_status(message)
        if role == ChatRole.Streaming:
            return self.is_stream_row(row)
        if role == ChatRole.Revision:
            return self.revision(row)
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        """``Collapsed`` can be set: ``True`` collapses every section of the row, ``False`` expands them."""
        if role != ChatRole.Collapsed or not index.isValid():
            return False
        row = index.row()
        sections = frozenset() if value else frozenset(collapsible_sections(self.message(row)))
        self._set_sections(row, sections)
        return True

    # ================================================================================ content

    def set_messages(self, messages: Sequence[Any]) -> None:
        """Show ``messages`` (a context's message list); one reset, nothing built per row.

        A live stream, if any, stays as the last row.
        """
        self.beginResetModel()
        # is_displayed() inlined, and the role read as a plain key against the member held in a local
        # (role_of() per message is 8x slower): this runs over every message of the context on each rebind.
        custom = Role.CUSTOM
        self._rows = [
            m for m in messages if type(m) is not dict or m.get("role") != custom or is_displayed(m)
        ]
        self._hidden = len(messages) - len(self._rows)
        self.endResetModel()
        self.messages_reset.emit(self.rowCount())

    def append_message(self, message: Any) -> None:
        """Add one message after the last one (before the live row): following an append cheaply."""
        if not is_displayed(message):
            self._hidden += 1
            return
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(message)
        self.endInsertRows()

    @property
    def hidden_count(self) -> int:
        """How many context messages are not rows (custom messages with ``display`` false)."""
        return self._hidden

    def messages(self) -> list[Any]:
        """The messages shown, in row order (without the live row)."""
        return list(self._rows)

    def message(self, row: int) -> Any:
        """The message of ``row`` (the live row's is the in-progress assistant message)."""
        if row == len(self._rows) and self._stream is not None:
            return self._stream
        return self._rows[row]

    def revision(self, row: int) -> int:
        """Changes whenever the content of ``row`` changes in place (only the live row does)."""
        return self._stream_revision if self.is_stream_row(row) else 0

    def row_key(self, row: int) -> Hashable:
        """A key for ``row``'s message that is stable across rebinding (for state and caches).

        Messages read from entries are the same objects on every ``build_session_context`` call,
        so their identity is the key. Summary and custom messages are rebuilt each time: their
        key is their content.
        """
        return _state_key(self.message(row))

    def row_states(self) -> list[RowState]:
        """:meth:`row_state` of every row, computed in one pass (the delegate's layout fast path)."""
        expanded = self._expanded
        states = []
        for message in self._rows:
            key = _state_key(message)
            state = expanded.get(key) if expanded else None
            states.append(RowState(message, key, 0, state[1] if state is not None else _NONE, False))
        if self._stream is not None:
            states.append(self.row_state(len(self._rows)))
        return states

    def row_state(self, row: int) -> RowState:
        """Everything the delegate needs about ``row`` in one call (it asks for every row on layout)."""
        stream = self._stream is not None and row == len(self._rows)
        message = self._stream if stream else self._rows[row]
        key = _state_key(message)
        state = self._expanded.get(key)
        return RowState(
            message,
            key,
            self._stream_revision if stream else 0,
            state[1] if state is not None else _NONE,
            stream,
        )

    # ================================================================================ collapsing

    def expanded(self, row: int) -> frozenset[int]:
        """Expanded section indices of ``row`` (every section starts collapsed)."""
        state = self._expanded.get(self.row_key(row))
        return state[1] if state is not None else _NONE

    def is_collapsed(self, row: int, section: int | None = None) -> bool:
        """Whether ``section`` (default: every collapsible section) of ``row`` is collapsed.

        A row with nothing to collapse is never collapsed.
        """
        expanded = self.expanded(row)
        if section is not None:
            return section not in expanded
        sections = collapsible_sections(self.message(row))
        return bool(sections) and not any(s in expanded for s in sections)

    def set_expanded(self, row: int, section: int, expanded: bool) -> None:
        """Expand or collapse one section (a block index, or 0 for a single-section row)."""
        current = self.expanded(row)
        self._set_sections(row, current | {section} if expanded else current - {section})

    def toggle(self, row: int, section: int = 0) -> None:
        """Flip one section (what a click on its header does)."""
        self.set_expanded(row, section, self.is_collapsed(row, section))

    def _set_sections(self, row: int, sections: frozenset[int]) -> None:
        key = self.row_key(row)
        if sections:
            self._expanded[key] = (self.message(row), sections)
        else:
            self._expanded.pop(key, None)
        index = self.index(row)
        self.dataChanged.emit(index, index, [ChatRole.Collapsed, ChatRole.ExpandedSections])

    # ================================================================================ streaming

    @property
    def is_streaming(self) -> bool:
        return self._stream is not None

    def stream_row(self) -> int | None:
        """Row of the live reply, or ``None``."""
        return len(self._rows) if self._stream is not None else None

    def is_stream_row(self, row: int) -> bool:
        return self._stream is not None and row == len(self._rows)

    def begin_stream(self) -> None:
        """Add the live row (an empty assistant message); restarts it if one is already live."""
        self.stream_started.emit()
        if self._stream is not None:
            self._stream = {"role": "assistant", "content": []}
            self._bump_stream()
            return
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._stream = {"role": "assistant", "content": []}
        self._stream_revision += 1
        self.endInsertRows()

    def append_delta(self, kind: DeltaKind, text: str) -> None:
        """Append streamed text to the live row: to its last block of that kind, or a new block.

        ``toolcall`` deltas are the arguments' JSON as it arrives (kept as ``partialJson``).
        """
        if kind not in _DELTA_BLOCKS:
            raise ValueError(f"unknown delta kind {kind!r}")
        if self._stream is None:
            self.begin_stream()
        assert self._stream is not None
        grows, field = _DELTA_BLOCKS[kind]
        blocks: list[dict[str, Any]] = self._stream["content"]
        if blocks and block_kind(blocks[-1]) is grows:
            blocks[-1][field] = blocks[-1].get(field, "") + text
        else:
            block: dict[str, Any] = {"type": grows.value, field: text}
            if grows is BlockKind.TOOL_CALL:
                block.update(name="", arguments=None)
            blocks.append(block)
        self._bump_stream()

    def set_stream_message(self, partial: dict[str, Any]) -> None:
        """Show ``partial`` (the reply accumulated so far: text, thinking, tool calls) in the live row.

        The live row keeps one dict whose content is replaced, so state keyed by the row (an
        expanded thinking block) survives every update.
        """
        if self._stream is None:
            self.begin_stream()
        assert self._stream is not None
        self._stream.clear()
        self._stream.update(partial)
        self._stream.setdefault("role", "assistant")
        self._stream.setdefault("content", [])
        self._bump_stream()

    def drop_stream(self) -> None:
        """Take the live row away (the turn ended with no reply to show)."""
        if self._stream is None:
            return
        row = len(self._rows)
        self._expanded.pop(("id", id(self._stream)), None)
        self.beginRemoveRows(QModelIndex(), row, row)
        self._stream = None
        self.endRemoveRows()
        self.stream_finished.emit()

    def set_stream_tool_name(self, name: str) -> None:
        """Name the live row's last tool call (a tool-call start event carries the name)."""
        if self._stream is not None and self._stream["content"]:
            block = self._stream["content"][-1]
            if block_kind(block) is BlockKind.TOOL_CALL:
                block["name"] = name
                self._bump_stream()

    def stream_message(self) -> dict[str, Any] | None:
        """The in-progress assistant message (shared, do not mutate)."""
        return self._stream

    def end_stream(self, final_message: Any) -> None:
        """Replace the live row with the finished message, which becomes an ordinary row."""
        self._finish_stream(final_message)

    def abort_stream(self, partial_message: Any = None) -> None:
        """End the live row as aborted: the given partial message, or what has arrived so far.

        The row is marked aborted even if the message says otherwise (``stopReason`` set on a copy);
        an ``error`` stop reason is kept, since that is the more precise news.
        """
        if partial_message is None:
            if self._stream is None:
                return
            partial_message = dict(self._stream)
        if isinstance(partial_message, dict) and partial_message.get("stopReason") not in (
            "aborted",
            "error",
        ):
            partial_message = {**partial_message, "stopReason": "aborted"}
        self._finish_stream(partial_message)

    def _finish_stream(self, message: Any) -> None:
        if self._stream is None:
            self.append_message(message)
            return
        row = len(self._rows)
        stream_state = self._expanded.pop(("id", id(self._stream)), None)
        if not is_displayed(message):
            self.beginRemoveRows(QModelIndex(), row, row)
            self._stream = None
            self._hidden += 1
            self.endRemoveRows()
            self.stream_finished.emit()
            return
        self._stream = None
        self._rows.append(message)
        if stream_state is not None:
            self._expanded[self.row_key(row)] = (message, stream_state[1])
        self.stream_finished.emit()
        index = self.index(row)
        self.dataChanged.emit(index, index)

    def _bump_stream(self) -> None:
        self._stream_revision += 1
        self.stream_updated.emit(len(self._rows))
