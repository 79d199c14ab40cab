"""Rendering a chat row in bounded slices across event-loop turns (issue 13 item 4).

Qt lays out rich text on the thread that owns the document, and PySide6 holds the GIL while it
does, so moving a ``QTextDocument`` to a worker thread would still stall the UI thread for as long
as the layout takes (measured: a 200,000-character reply holds the GIL ~80 ms in ``size()``).
What bounds a stall is bounding each piece of work instead:

* the row's HTML is produced one top-level part at a time (``present.chat_render.render_parts``: a markdown
  chunk, a highlighted code block), lazily;
* consecutive parts are grouped into *segments* of about :data:`SEGMENT_CHARS` HTML characters,
  each its own :class:`~desktop_app.ui.markdown.SafeTextDocument`, laid out when it is built;
* a :class:`RenderJob` does that work in units (one part, or one segment's document), and a
  :class:`SliceScheduler` runs a job a slice at a time — at most :data:`SLICE_CHARS` characters of
  work, at least one unit — one slice per event-loop turn. Work is counted in characters, not
  time, so what a slice does never depends on how busy the machine is: a short message is always
  done in its first slice.

A row is painted as a :class:`StackedDocument`: its segments one under the other. A short message
is one segment, done in the first slice, so it is shown at once as before; a long one is shown as
plain text (a bounded preview) until its last slice lands. Segments are cached by their HTML and
width, so a streaming reply rebuilds only its growing end.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QPointF, QRectF, QSizeF, QTimer, Signal
from PySide6.QtGui import QAbstractTextDocumentLayout, QFont, QPainter

from ..markdown import SafeTextDocument

__all__ = [
    "PREVIEW_CHARS",
    "SEGMENT_CHARS",
    "SLICE_CHARS",
    "RenderJob",
    "SliceScheduler",
    "StackedDocument",
    "new_segment",
]

#: HTML characters per segment document: its ``setHtml`` and layout take a few milliseconds.
SEGMENT_CHARS = 8_000
#: Work per slice, in HTML characters produced or laid out (a unit is never split, so a slice is
#: at most this plus one unit).
SLICE_CHARS = 16_000
#: Plain-text characters a row shows while its rich text is being built.
PREVIEW_CHARS = 2_000


def _blank(font: QFont) -> SafeTextDocument:
    doc = SafeTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(font)
    doc.setUndoRedoEnabled(False)
    return doc


def new_segment(html: str, font: QFont, width: float) -> SafeTextDocument:
    """A document for one segment's HTML, laid out at ``width`` (the costly part, done here)."""
    doc = _blank(font)
    doc.setHtml(html)
    doc.setTextWidth(width)
    doc.size()  # lay it out now, inside this unit of work, not later while painting
    return doc


class StackedDocument:
    """A row's rich text as documents stacked vertically; the delegate paints and hit-tests it.

    ``placeholder`` marks the plain-text preview shown while the real one is being built (its
    height must not be remembered as the row's).
    """

    def __init__(self, segments: list[SafeTextDocument], *, placeholder: bool = False) -> None:
        self.segments = segments
        self.placeholder = placeholder

    def textWidth(self) -> float:  # noqa: N802 - mirrors QTextDocument
        return self.segments[0].textWidth() if self.segments else 0.0

    def setTextWidth(self, width: float) -> None:  # noqa: N802 - mirrors QTextDocument
        for segment in self.segments:
            segment.setTextWidth(width)

    def chars(self) -> int:
        """Characters held (what a relayout at another width costs, roughly)."""
        return sum(segment.characterCount() for segment in self.segments)

    def size(self) -> QSizeF:
        return QSizeF(self.textWidth(), sum(segment.size().height() for segment in self.segments))

    def placed(self) -> Iterator[tuple[SafeTextDocument, float]]:
        """Each segment with the y of its top edge."""
        top = 0.0
        for segment in self.segments:
            yield segment, top
            top += segment.size().height()

    def draw(self, painter: QPainter, context: QAbstractTextDocumentLayout.PaintContext) -> None:
        """Draw the segments that meet ``context.clip`` (document coordinates of the whole stack)."""
        clip = QRectF(context.clip)
        for segment, top in self.placed():
            height = segment.size().height()
            if top > clip.bottom():
                break
            if top + height < clip.top():
                continue
            painter.save()
            painter.translate(0, top)
            local = QAbstractTextDocumentLayout.PaintContext(context)
            local.clip = clip.translated(0, -top)
            segment.documentLayout().draw(painter, local)
            painter.restore()

    def locate(self, point: QPointF) -> tuple[SafeTextDocument, QPointF] | None:
        """The segment under ``point`` and the point in its coordinates (``None``: below the text)."""
        for segment, top in self.placed():
            if point.y() < top + segment.size().height():
                return segment, QPointF(point.x(), point.y() - top)
        return None

    def toPlainText(self) -> str:  # noqa: N802 - mirrors QTextDocument
        return "\n".join(segment.toPlainText() for segment in self.segments)

    def toHtml(self) -> str:  # noqa: N802 - mirrors QTextDocument
        return "\n".join(segment.toHtml() for segment in self.segments)


def preview_document(text: str, font: QFont, width: float) -> StackedDocument:
    """The plain-text stand-in shown until the rich text is ready (bounded, so it is cheap)."""
    shown = text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + " …"
    doc = _blank(font)
    doc.setPlainText(shown)
    doc.setTextWidth(width)
    return StackedDocument([doc], placeholder=True)


@dataclass
class RenderJob:
    """Building one row's :class:`StackedDocument` from its HTML parts, a unit at a time.

    Units: produce the next part's HTML, add it to the group, or turn the group into a segment
    document when the next part would take it past :data:`SEGMENT_CHARS`. A group is cut only
    where no ``<div>`` a part opened is still open.
    """

    slot: Hashable  #: what the job renders (one job per slot; a newer one replaces it)
    key: Hashable  #: the cache key of the result
    parts: Iterator[str]
    font: QFont
    width: float
    #: segments by (HTML, width, font); the scheduler gives every job its own shared one
    cache: OrderedDict[tuple[str, float, str], SafeTextDocument] = field(default_factory=OrderedDict)
    cache_limit: int = 256  #: segments the cache keeps (0: none, every segment built anew)
    owner: Any = None  #: kept alive with the result (the message its key refers to)
    row: int = -1  #: where the row was when the job started (a hint for relayout)
    group: list[str] = field(default_factory=list)
    held: str | None = None  #: the part produced last, not yet in a group
    exhausted: bool = False
    group_chars: int = 0
    depth: int = 0
    segments: list[SafeTextDocument] = field(default_factory=list)
    html: list[str] = field(default_factory=list)  #: every part, in order (for checks)
    done: bool = False
    slices: list[int] = field(default_factory=list)  #: characters of work of each slice run
    units: list[int] = field(default_factory=list)  #: characters of work of each unit done

    @property
    def result(self) -> StackedDocument:
        assert self.done, "the job has not finished"
        return StackedDocument(self.segments)

    def run_slice(self, max_chars: int) -> int:
        """Do units until ``max_chars`` characters of work are done (at least one unit).

        A unit whose cost is known beforehand (building a segment) that would take the slice past
        ``max_chars`` is left for the next slice, so a slice is at most ``max_chars`` or one unit.
        """
        worked = 0
        while not self.done:
            if worked and worked + self.next_cost() > max_chars:
                break
            cost = self._unit()
            self.units.append(cost)
            worked += cost
            if worked >= max_chars:
                break
        self.slices.append(worked)
        return worked

    def next_cost(self) -> int:
        """Characters the next unit will cost if it builds a segment (else 0: not known yet)."""
        return self.group_chars if self._flush_due() else 0

    def _flush_due(self) -> bool:
        if not self.group:
            return False
        if self.exhausted:
            return True
        held = self.held
        return held is not None and self.depth == 0 and self.group_chars + len(held) > SEGMENT_CHARS

    def _unit(self) -> int:
        if self._flush_due():
            return self._flush()
        if self.exhausted:
            self.done = True
            return 0
        part = self.held
        if part is None:  # produce the next part: its HTML is computed now
            part = next(self.parts, None)
            if part is None:
                self.exhausted = True
                return 0
            self.html.append(part)
            self.held = part
            return len(part)
        self.held = None  # it fits the group (or the group cannot be cut here)
        self.group.append(part)
        self.group_chars += len(part)
        self.depth += part.count("<div") - part.count("</div>")
        return 0

    def _flush(self) -> int:
        html = "\n".join(self.group)
        self.group, self.group_chars = [], 0
        key = (html, self.width, self.font.key())
        segment = self.cache.get(key)
        if segment is not None:  # built before (a streaming reply's finished part): free
            self.cache.move_to_end(key)
            self.segments.append(segment)
            if segment.textWidth() != self.width:  # another row changed it: a layout again
                segment.setTextWidth(self.width)
                segment.size()
                return len(html)
            return 0
        segment = new_segment(html, self.font, self.width)
        self.cache[key] = segment
        while len(self.cache) > self.cache_limit:
            self.cache.popitem(last=False)
        self.segments.append(segment)
        return len(html)


class SliceScheduler(QObject):
    """Runs :class:`RenderJob` slices, one per event-loop turn (a zero-timeout timer between them).

    One job per slot: starting another for the same slot drops the first (``stats["dropped"]``),
    as does :meth:`cancel`, so a render for a message that has changed never lands. Every slice's
    size is recorded in :attr:`slices` (the last 10,000), which is what the tests check.
    """

    #: A job finished (argument: the job; ``job.result`` is its document).
    finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.slice_chars = SLICE_CHARS
        self.cache: OrderedDict[tuple[str, float, str], SafeTextDocument] = OrderedDict()
        self.cache_limit = 256  # segments kept for re-use (a streaming reply's finished ones)
        self._jobs: OrderedDict[Hashable, RenderJob] = OrderedDict()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._tick)
        self.slices: list[int] = []
        self.stats = {"jobs": 0, "finished_at_once": 0, "dropped": 0}

    def start(self, job: RenderJob) -> RenderJob:
        """Run ``job``'s first slice now; if that does not finish it, the rest follows turn by turn.

        A job already running for the same slot is dropped.
        """
        self.cancel(job.slot)
        job.cache, job.cache_limit = self.cache, self.cache_limit
        self.stats["jobs"] += 1
        self._run(job)
        if job.done:
            self.stats["finished_at_once"] += 1
            return job
        self._jobs[job.slot] = job
        self._timer.start()
        return job

    def pending(self, slot: Hashable) -> RenderJob | None:
        return self._jobs.get(slot)

    def slots(self) -> list[Hashable]:
        """The slots with a job under way."""
        return list(self._jobs)

    def cancel(self, slot: Hashable | None = None) -> None:
        """Drop the job of ``slot`` (every job: ``None``); its result will never be delivered."""
        slots = list(self._jobs) if slot is None else [slot] if slot in self._jobs else []
        for dropped in slots:
            del self._jobs[dropped]
            self.stats["dropped"] += 1

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    def _run(self, job: RenderJob) -> None:
        self.slices.append(job.run_slice(self.slice_chars))
        if len(self.slices) > 10_000:
            del self.slices[:5_000]

    def _tick(self) -> None:
        if not self._jobs:
            return
        slot, job = next(iter(self._jobs.items()))
        self._run(job)
        if job.done:
            del self._jobs[slot]
            self.finished.emit(job)
        else:
            self._jobs.move_to_end(slot)  # round robin: a long job does not hold the others back
        if self._jobs:
            self._timer.start()
