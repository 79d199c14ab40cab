"""``MessageDelegate``: paints one chat row with a cached ``QTextDocument``; clicks toggle sections.

Why a delegate and not a widget per message: a session context can hold thousands of messages,
and rebinding the chat to another leaf must take milliseconds. A ``QListView`` asks the delegate
for every row's ``sizeHint`` on layout but paints only the visible rows, so:

* ``sizeHint`` never builds a document. It returns the exact height when this row has been laid
  out at this width before, else a cheap estimate from the text length (``estimate_height``).
* ``paint`` builds (or reuses) the row's document, lays it out at the row width, and if the real
  height differs from the one the view used, records it and asks for one coalesced relayout
  (``sizeHintChanged``, from a zero timer; the live row's at most every ``STREAM_RELAYOUT_MS``).
* Documents are cached per row (LRU, keyed by message, expanded sections, revision and theme) and
  re-laid out only when the width changes; exact heights are cached per width.
* Finished user and assistant cards end with a painted line of actions (Retry or Regenerate, Edit &
  branch, Copy; ``present.card_actions`` decides which): no widget per card, a click is hit-tested
  like a section toggle and reported as :attr:`MessageDelegate.action_clicked`.
* The live (streaming) row is re-rendered at most every ``STREAM_RENDER_MS`` and grows in steps of
  a quarter viewport (at least ``STREAM_HEADROOM_LINES`` lines), so a fast stream neither re-parses its markdown per token nor
  relayouts thousands of rows per wrapped line.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QAbstractItemView, QStyledItemDelegate, QStyleOptionViewItem

from desktop_app.present.card_actions import has_action_line
from desktop_app.present.chat_messages import (
    CARD_KINDS,
    SINGLE_SECTION_KINDS,
    content_blocks,
    edit_mark,
    message_kind,
    message_status,
    message_text,
)
from desktop_app.present.chat_render import render_parts
from desktop_app.present.chat_theme import ChatTheme
from desktop_app.present.pi16_words import EDIT_OMITTED
from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of
from desktop_app.tools.display import shown_text as as_text

from ..markdown import markdown_parts
from .model import ChatModel, RowState
from .row_hits import PAD_Y, RowHits
from .sliced import SLICE_CHARS, RenderJob, SliceScheduler, StackedDocument, preview_document
from .theme import theme_for_palette

__all__ = ["MessageDelegate"]

_Index = QModelIndex | QPersistentModelIndex

MARGIN_X = 10  # row edge → bubble
MARGIN_Y = 4
PAD_X = 12  # bubble edge → text
ACCENT_W = 4  # left bar of cards and failed replies
USER_INDENT = 44  # user bubbles sit to the right, replies to the left
TOOL_INDENT = 22  # tool results nest under the call that asked for them
DOC_CACHE_SIZE = 160
HEIGHT_CACHE_LIMIT = 50_000
STREAM_RELAYOUT_MS = 80
STREAM_HEADROOM_LINES = 4
STREAM_RENDER_MS = 50
ACTION_PAD = 6  # above the action line (below the text)
STREAM_SLOT = "live row"  # the scheduler slot of the live row's render (other rows: their cache key)


#: How far a row's bubble is pushed right, by row kind (a role; other rows: none).
_INDENTS: dict[str, int] = {Role.USER: USER_INDENT, Role.TOOL_RESULT: TOOL_INDENT}


def _indent(kind: str) -> int:
    return _INDENTS.get(kind, 0)


def _text_lines(text: str, chars_per_line: int) -> float:
    """Lines ``text`` takes wrapped at ``chars_per_line`` (plus half a line per paragraph gap)."""
    return text.count("\n") + 1 + len(text) / chars_per_line + text.count("\n\n") * 0.5


def _section_text(message: dict[str, Any], role: Role) -> str:
    """The text of a one-section row (tool result, bash run, summary, system prompt) for its estimate."""
    if role is Role.TOOL_RESULT:
        blocks = content_blocks(message)
        return "\n".join(as_text(b.get("text")) for b in blocks if block_kind(b) is BlockKind.TEXT)
    if role is Role.SYSTEM:
        return message_text(message)
    return as_text(message.get("summary" if role in CARD_KINDS else "output"))


def _content_lines(content: Any, expanded: frozenset[int], chars_per_line: int) -> float:
    """Estimated lines of a user, custom or assistant row's content: text wrapped, other blocks one
    line each when collapsed and a dozen when expanded."""
    if isinstance(content, str):
        return _text_lines(content, chars_per_line)
    if not isinstance(content, list):
        return 0.0
    lines = 0.0
    text = BlockKind.TEXT  # the member in a local, the key read raw: block_kind() per block is 8x slower
    for i, block in enumerate(content):
        if type(block) is dict and block.get("type") == text:
            lines += _text_lines(as_text(block.get("text")), chars_per_line)
        elif i in expanded:
            lines += 12
        else:
            lines += 1.25
    return lines


#: Rows whose estimate counts their content's lines (the rest: one section, or a fixed guess).
_CONTENT_ROWS = frozenset({Role.USER, Role.CUSTOM, Role.ASSISTANT})


def _has_accent(kind: str, status: str) -> bool:
    return kind in CARD_KINDS or status in ("error", "aborted")


class MessageDelegate(QStyledItemDelegate):
    """Paints :class:`ChatModel` rows; owns the document and height caches."""

    #: A non-toggle link in a message was clicked (the panel decides what to do; nothing is opened here).
    link_activated = Signal(str)
    #: An action on a card's action line was clicked: ``(row, action name)``.
    action_clicked = Signal(int, str)

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self._view = view
        self._model: ChatModel | None = None
        self._docs: OrderedDict[Hashable, tuple[Any, StackedDocument]] = OrderedDict()
        self._previews: dict[Hashable, StackedDocument] = {}  # shown while a row's render runs
        self.scheduler = SliceScheduler(self)
        self.scheduler.finished.connect(self._render_finished)
        self._heights: dict[Hashable, tuple[Any, int]] = {}
        self._size_list: list[QSize | None] | None = None  # row -> size for the current layout
        self._size_width = 0
        self._relayout_row: int | None = None
        self._relayout = QTimer(self)
        self._relayout.setSingleShot(True)
        self._relayout.timeout.connect(self._emit_relayout)
        self._swallow_release = False
        self._row_width = 0
        self._stream_doc: tuple[Hashable, StackedDocument] | None = None
        self._stream_height: tuple[int, int] | None = None  # (width, height) allotted to the live row
        self._stream_rendered_at = 0.0
        self._stream_repaint = QTimer(self)
        self._stream_repaint.setSingleShot(True)
        self._stream_repaint.timeout.connect(self._repaint_stream_row)
        self._line = 16
        self._char = 7
        self.stats = {"documents_built": 0, "estimates": 0}
        self.hits = RowHits(self)  #: what a point on a row is: an action, a section header, a link
        self.refresh_metrics()
        view.viewport().installEventFilter(self)
        view.installEventFilter(self)

    # ================================================================================ configuration

    def eventFilter(self, watched: Any, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        """Track the viewport width and the font: ``sizeHint`` reads both for every row."""
        if event.type() in (QEvent.Type.Resize, QEvent.Type.FontChange, QEvent.Type.Show):
            self.refresh_metrics()
        return False

    def refresh_metrics(self) -> None:
        metrics = QFontMetrics(self._view.font())
        self._line = metrics.lineSpacing()
        self._char = max(1, metrics.averageCharWidth())
        self._row_width = max(120, self._view.viewport().width())

    def theme(self, palette: QPalette | None = None) -> ChatTheme:
        return theme_for_palette(palette if palette is not None else self._view.palette())

    def invalidate(self, row: int | None = None) -> None:
        """Forget layout sizes (all rows, or one); documents and exact heights stay cached by key."""
        if row is None:
            self._size_list = None
        elif self._size_list is not None and row < len(self._size_list):
            self._size_list[row] = None

    def attach(self, model: ChatModel) -> None:
        """Follow ``model``'s changes so per-row layout sizes never outlive the rows they describe."""
        self._model = model
        model.stream_started.connect(self._stream_ended)
        model.stream_finished.connect(self._stream_ended)
        model.stream_updated.connect(self.invalidate)
        model.modelReset.connect(self.invalidate)
        model.modelReset.connect(self._drop_row_renders)
        model.rowsInserted.connect(lambda _parent, first, _last: self._forget_from(first))
        model.rowsRemoved.connect(lambda _parent, first, _last: self._forget_from(first))
        model.dataChanged.connect(lambda top, bottom, _roles=(): self._forget_range(top.row(), bottom.row()))

    def _forget_from(self, first: int) -> None:
        if self._size_list is not None:
            del self._size_list[first:]

    def _forget_range(self, first: int, last: int) -> None:
        for row in range(first, last + 1):
            self.invalidate(row)

    def _drop_row_renders(self) -> None:
        """Other messages are shown now: renders still running for the old rows are dropped."""
        for slot in [s for s in self.scheduler.slots() if s != STREAM_SLOT]:
            self.scheduler.cancel(slot)
            self._previews.pop(slot, None)

    def _stream_ended(self) -> None:
        self.scheduler.cancel(STREAM_SLOT)  # the live row's message changed: its render is stale
        self._stream_doc = None
        self._stream_height = None
        self._stream_repaint.stop()

    def _repaint_stream_row(self) -> None:
        model = self._model
        row = model.stream_row() if model is not None else None
        if model is not None and row is not None:
            self._view.update(model.index(row))

    # ================================================================================ geometry

    @property
    def row_width(self) -> int:
        return self._row_width

    def bubble_rect(self, rect: QRect, kind: str) -> QRect:
        left = rect.left() + MARGIN_X + _indent(kind)
        return QRect(
            left, rect.top() + MARGIN_Y, rect.right() - MARGIN_X - left + 1, rect.height() - 2 * MARGIN_Y
        )

    def line_height(self) -> int:
        return self._line

    def font(self) -> QFont:
        """The chat's font (the action line is set in it)."""
        return self._view.font()

    def text_left(self, kind: str, status: str) -> int:
        return PAD_X + (ACCENT_W if _has_accent(kind, status) else 0)

    def text_width(self, row_width: int, kind: str, status: str) -> int:
        bubble = row_width - 2 * MARGIN_X - _indent(kind)
        return max(40, bubble - self.text_left(kind, status) - PAD_X)

    @staticmethod
    def _chrome() -> int:
        return 2 * PAD_Y + 2 * MARGIN_Y

    def action_line_height(self, message: Any, streaming: bool = False) -> int:
        """Height the card's action line adds (0 for cards without one)."""
        return self._line + ACTION_PAD if has_action_line(message, streaming=streaming) else 0

    # ================================================================================ documents

    def document(self, model: ChatModel, row: int, theme: ChatTheme | None = None) -> StackedDocument:
        """The row's document (cached), laid out at the width it was built for.

        Built by a :class:`~.sliced.RenderJob` whose first slice runs now: a short message is
        done at once; a long one shows a plain-text preview (the live row: its previous render)
        while the scheduler finishes it over the next event-loop turns.
        """
        theme = theme or self.theme()
        state = model.row_state(row)
        key = (state.key, state.revision, state.expanded, state.streaming, theme.dark)
        if state.streaming:  # one slot: every delta is a new revision, none is worth keeping
            current = self._stream_doc
            if current is not None and current[0] == key:
                return current[1]
            if self.scheduler.pending(STREAM_SLOT) is not None:  # one at a time: it lands first
                return current[1] if current is not None else self._preview(STREAM_SLOT, state, row)
            if current is not None:
                # Re-render the live row at most every STREAM_RENDER_MS: a long reply costs
                # milliseconds to lay out, and tokens arrive faster than that.
                wait = STREAM_RENDER_MS - (time.monotonic() - self._stream_rendered_at) * 1000
                if wait > 0:
                    if not self._stream_repaint.isActive():
                        self._stream_repaint.start(max(1, int(wait)))
                    return current[1]
            job = self._render(STREAM_SLOT, key, state, theme, row, self._row_width)
            if job.done:
                self._keep(job)
                return job.result
            return current[1] if current is not None else self._preview(STREAM_SLOT, state, row)
        cached = self._docs.get(key)
        if cached is not None:
            self._docs.move_to_end(key)
            return cached[1]
        if self.scheduler.pending(key) is not None:
            return self._preview(key, state, row)
        job = self._render(key, key, state, theme, row, self._row_width)
        if job.done:
            self._keep(job)
            return job.result
        return self._preview(key, state, row)

    def _render(
        self, slot: Hashable, key: Hashable, state: RowState, theme: ChatTheme, row: int, row_width: int
    ) -> RenderJob:
        kind = message_kind(state.message)
        status = "streaming" if state.streaming else message_status(state.message)
        parts = render_parts(
            state.message, theme, state.expanded, markdown=markdown_parts, streaming=state.streaming
        )
        width = self.text_width(row_width, kind, status)
        job = RenderJob(slot, key, parts, self._view.font(), width, owner=state.message, row=row)
        self.stats["documents_built"] += 1
        return self.scheduler.start(job)

    def _preview(self, slot: Hashable, state: RowState, row: int) -> StackedDocument:
        preview = self._previews.get(slot)
        if preview is None:
            kind = message_kind(state.message)
            status = "streaming" if state.streaming else message_status(state.message)
            width = self.text_width(self._row_width, kind, status)
            preview = preview_document(message_text(state.message), self._view.font(), width)
            self._previews[slot] = preview
        return preview

    def _keep(self, job: RenderJob) -> None:
        """Cache a finished render under its key (the live row's in its one slot)."""
        self._previews.pop(job.slot, None)
        if job.slot == STREAM_SLOT:
            self._stream_doc = (job.key, job.result)
            self._stream_rendered_at = time.monotonic()
            return
        self._docs[job.key] = (job.owner, job.result)
        self._docs.move_to_end(job.key)
        while len(self._docs) > DOC_CACHE_SIZE:
            self._docs.popitem(last=False)

    def _render_finished(self, job: RenderJob) -> None:
        """A render that took several slices is done: show it and let the view take its height."""
        self._keep(job)
        model = self._model
        row = job.row
        if model is None or not 0 <= row < model.rowCount():
            return
        state = model.row_state(row)
        if job.slot != STREAM_SLOT and isinstance(job.key, tuple) and state.key != job.key[0]:
            return  # the row moved; its height is corrected when it is painted
        self.invalidate(row)
        self._schedule_relayout(row, state.streaming)
        self._view.update(model.index(row))

    def laid_out_document(self, model: ChatModel, row: int, row_width: int) -> tuple[StackedDocument, int]:
        """The row's document laid out for ``row_width``, and the row height that needs.

        A long document built for another width is rendered again at this one in slices; until
        then it is painted (clipped) at its old width and its height is not remembered.
        """
        state = model.row_state(row)
        kind = message_kind(state.message)
        status = "streaming" if state.streaming else message_status(state.message)
        doc = self.document(model, row)
        text_width = self.text_width(row_width, kind, status)
        if doc.textWidth() != text_width:
            if doc.placeholder or len(doc.segments) == 1 or doc.chars() <= SLICE_CHARS:
                doc.setTextWidth(text_width)
            else:
                doc = self._relayout_sliced(state, row, row_width, doc)
        height = math.ceil(doc.size().height()) + self._chrome() + self.action_line_height(state.message, state.streaming)
        if state.streaming:
            # Grow the live row in steps of a few lines, so a reply arriving token by token
            # relayouts the list every few lines rather than on every wrapped line.
            step = max(STREAM_HEADROOM_LINES * self._line, self._view.viewport().height() // 4)
            height = -(-height // step) * step
            if self._stream_height is not None and self._stream_height[0] == row_width:
                height = max(height, self._stream_height[1])
            self._stream_height = (row_width, height)
        elif not doc.placeholder and doc.textWidth() == text_width:
            if len(self._heights) > HEIGHT_CACHE_LIMIT:  # every width a window was ever dragged to
                self._heights.clear()
            self._heights[(state.key, state.revision, state.expanded, row_width)] = (state.message, height)
        return doc, height

    def _relayout_sliced(self, state: RowState, row: int, row_width: int, doc: StackedDocument) -> StackedDocument:
        theme = self.theme()
        key = (state.key, state.revision, state.expanded, state.streaming, theme.dark)
        slot = STREAM_SLOT if state.streaming else key
        if self.scheduler.pending(slot) is None:
            job = self._render(slot, key, state, theme, row, row_width)
            if job.done:
                self._keep(job)
                return job.result
        return doc

    # ================================================================================ sizes

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:  # noqa: N802 - Qt's name
        """Exact height if this row was laid out at this width before, else an estimate (no document).

        The view asks for every row on each layout; after a reset all sizes are computed in one
        Python pass (:meth:`_rebuild_sizes`) and this call is a list lookup.
        """
        row = index.row()
        sizes = self._size_list
        if self._size_width != self._row_width or sizes is None:
            sizes = self._rebuild_sizes()
        size = sizes[row] if row < len(sizes) else None
        if size is None:
            model = self._model if self._model is not None else index.model()
            assert isinstance(model, ChatModel)
            size = self._size_for(model.row_state(row), self._row_width)
            if row >= len(sizes):
                sizes.extend([None] * (row + 1 - len(sizes)))
            sizes[row] = size
        return size

    def _size_for(self, state: RowState, width: int) -> QSize:
        if state.streaming and self._stream_height is not None and self._stream_height[0] == width:
            return QSize(width, self._stream_height[1])
        exact = self._heights.get((state.key, state.revision, state.expanded, width))
        height = exact[1] if exact is not None else self.estimate_height(state.message, state.expanded, width)
        return QSize(width, height)

    def _rebuild_sizes(self) -> list[QSize | None]:
        width = self._row_width
        model = self._model
        self._size_width = width
        sizes: list[QSize | None] = (
            [self._size_for(state, width) for state in model.row_states()] if model is not None else []
        )
        self._size_list = sizes
        return sizes

    def estimate_height(self, message: Any, expanded: frozenset[int], width: int) -> int:
        """A cheap guess of a row's height (no document): line count from text length and width.

        Only rows never painted at this width use it; painting corrects it. Collapsed sections are
        one line each, which is most of a coding session (tool calls and results).
        """
        self.stats["estimates"] += 1
        line = self._line
        chrome = 2 * PAD_Y + 2 * MARGIN_Y
        role = role_of(message)
        single = role in SINGLE_SECTION_KINDS
        if single and not expanded:
            return chrome + line + 4 + (line + 4 if role is Role.BASH_EXECUTION else 0)
        chars_per_line = max(12, (width - 2 * MARGIN_X - _indent(role) - 2 * PAD_X) // self._char)
        lines = 1.0  # header or toggle line
        if single:
            lines += 1 + min(_text_lines(_section_text(message, role), chars_per_line), 420)
        elif role in _CONTENT_ROWS:
            lines += _content_lines(message.get("content"), expanded, chars_per_line)
            if role is Role.ASSISTANT and message.get("stopReason") in ("error", "aborted"):
                lines += 2
        else:
            lines += 8
        return int(lines * line) + chrome + self.action_line_height(message)

    # ================================================================================ painting

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        model = index.model()
        assert isinstance(model, ChatModel)
        row = index.row()
        theme = self.theme(option.palette)
        message = model.message(row)
        kind = message_kind(message)
        streaming = model.is_stream_row(row)
        status = "streaming" if streaming else message_status(message)
        rect = QRect(option.rect)
        doc, height = self.laid_out_document(model, row, rect.width())
        if height != rect.height() and not doc.placeholder:  # a preview keeps the estimated height
            self.invalidate(row)
            self._schedule_relayout(row, streaming)

        is_error_result = kind == Role.TOOL_RESULT and bool(message.get("isError"))
        bubble = theme.bubble(kind, "ok" if streaming else status, is_error_result)
        box = self.bubble_rect(rect, kind)
        if streaming:  # the live row has headroom below its text; the bubble hugs the text
            box.setHeight(min(box.height(), math.ceil(doc.size().height()) + 2 * PAD_Y))
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(QColor(bubble.border))
        pen.setWidthF(1.5 if kind in CARD_KINDS else 1.0)
        mark = edit_mark(message)
        if kind == Role.CUSTOM or mark is not None:
            pen.setStyle(Qt.PenStyle.DashLine)
        if mark is not None:  # a context edit omitted or replaced it (pi 1.6.0)
            pen.setColor(QColor(theme.edit.border))
        omitted = mark is not None and mark.get("state") == EDIT_OMITTED
        painter.setPen(pen)
        painter.setBrush(QColor(bubble.fill))
        outline = QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.drawRoundedRect(outline, 8, 8)
        if _has_accent(kind, status):
            path = QPainterPath()
            path.addRoundedRect(outline, 8, 8)
            painter.setClipPath(path)
            painter.fillRect(QRectF(box.left(), box.top(), ACCENT_W, box.height()), QColor(bubble.accent))
            painter.setClipping(False)

        actions_h = self.action_line_height(message, streaming)
        if actions_h:
            self.hits.paint_actions(painter, model, row, rect, theme)
        text_left = box.left() + self.text_left(kind, status)
        painter.translate(text_left, box.top() + PAD_Y)
        clip = QRectF(0, 0, doc.textWidth(), max(0, box.height() - 2 * PAD_Y - actions_h))
        painter.setClipRect(clip)
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette.setColor(QPalette.ColorRole.Text, QColor(theme.text))
        # Only what the viewport shows: a row can be thousands of pixels tall, and the layout
        # draws every block inside the clip it is given.
        top = box.top() + PAD_Y
        context.clip = clip.intersected(QRectF(self._view.viewport().rect()).translated(-text_left, -top))
        if doc.placeholder and top < 0:  # a tall row scrolled into: show the preview where one looks
            painter.translate(0, -top)
            context.clip = context.clip.translated(0, top)
        if omitted:  # still shown where it was, faded: the model does not receive it
            painter.setOpacity(0.5)
        doc.draw(painter, context)
        painter.restore()

    def _schedule_relayout(self, row: int, streaming: bool) -> None:
        self._relayout_row = row if self._relayout_row is None else min(row, self._relayout_row)
        if not self._relayout.isActive():
            self._relayout.start(STREAM_RELAYOUT_MS if streaming else 0)

    def _emit_relayout(self) -> None:
        row, self._relayout_row = self._relayout_row, None
        model = self._view.model()
        if row is not None and model is not None and row < model.rowCount():
            self.sizeHintChanged.emit(model.index(row, 0))

    # ================================================================================ clicks

    def hit_section(self, model: ChatModel, row: int, rect: QRect, pos: QPoint | QPointF) -> int | None:
        """The collapsible section whose header line is under ``pos`` (viewport coordinates)."""
        return self.hits.hit_section(model, row, rect, pos)

    def section_rect(self, model: ChatModel, row: int, rect: QRect, section: int) -> QRect | None:
        """Where the header line of ``section`` is drawn (viewport coordinates), or ``None``."""
        return self.hits.section_rect(model, row, rect, section)

    def editorEvent(  # noqa: N802 - Qt's name
        self, event: QEvent, model: Any, option: QStyleOptionViewItem, index: _Index
    ) -> bool:
        """Left click on a toggle line flips that section; on a collapsed card, anywhere expands it."""
        if not isinstance(model, ChatModel) or not isinstance(event, QMouseEvent):
            return False
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        if event.type() == QEvent.Type.MouseButtonDblClick:
            self._swallow_release = True  # a double click toggles once, not twice
            return True
        if event.type() == QEvent.Type.MouseButtonPress:
            return True
        if event.type() != QEvent.Type.MouseButtonRelease:
            return False
        if self._swallow_release:
            self._swallow_release = False
            return True
        row = index.row()
        pos = event.position()
        action = self.hits.hit_action(model, row, option.rect, pos)
        if action is not None:
            self.action_clicked.emit(row, action.value)
            return True
        section = self.hit_section(model, row, option.rect, pos)
        if section is None:
            kind = message_kind(model.message(row))
            inside = self.bubble_rect(option.rect, kind).contains(pos.toPoint())
            if kind in SINGLE_SECTION_KINDS and inside and model.is_collapsed(row, 0):
                section = 0
        if section is not None:
            model.toggle(row, section)
            self.invalidate(row)
            return True
        link = self.hits.link_at(model, row, option.rect, pos)
        if link:
            self.link_activated.emit(link)
            return True
        return False
