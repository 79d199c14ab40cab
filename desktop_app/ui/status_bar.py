"""``ArborStatusBar``: model, thinking level, context meter, session file and follow state.

The context meter is the one number a user of a long session watches: how full the model's window
is, and how far from the point where auto-compaction kicks in (pi-spec §5.4: when the context
exceeds ``window − reserveTokens``). So the meter draws that threshold as a tick on the bar.
Right after a compaction the size is unknown until the next reply reports usage; pi's footer then
shows ``?/<window>`` (pi-spec §5.3). This one shows the window's estimate instead, marked ``~``
(``~12k/200k``: issue 22); ``?`` is left for a context that cannot be counted at all.

Everything shown is pushed in by the window (``set_*``); the status bar computes nothing about the
session itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QStatusBar, QToolButton, QWidget

from desktop_app.present.context_meter import format_tokens

from .plain import plain_label, plain_text

__all__ = ["ArborStatusBar", "ContextMeter", "ElidedLabel", "StatusNotice", "format_tokens"]


def _threshold_text(count: int) -> str:
    """The compaction threshold with one decimal (``183.6k``): it is compared against, not skimmed."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"


class ContextMeter(QWidget):
    """``143k/200k`` and a small bar with the auto-compaction threshold marked on it."""

    BAR_WIDTH = 84
    BAR_HEIGHT = 8
    GAP = 6

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("contextMeter")
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self._tokens: int | None = None
        self._window = 0
        self._reserve = 0
        self._explanation = ""
        self._estimated = False
        self._update_tooltip()

    # ================================================================================ state

    def set_usage(
        self, tokens: int | None, window: int, reserve: int, explanation: str = "", *, estimated: bool = False
    ) -> None:
        """``tokens`` in the context (``None``: unknown), of a ``window``; compaction at ``window − reserve``.

        ``explanation`` (what the number counts) goes into the tooltip; ``estimated``: the number is
        an estimate (just compacted), shown as ``~12k``.
        """
        self._explanation = explanation
        self._estimated = estimated and tokens is not None
        self._tokens = None if tokens is None else max(0, int(tokens))
        self._window = max(0, int(window))
        self._reserve = max(0, int(reserve))
        self._update_tooltip()
        self.updateGeometry()
        self.update()

    @property
    def tokens(self) -> int | None:
        return self._tokens

    @property
    def context_window(self) -> int:
        """The model's context window in tokens (0: unknown). Not ``window``: that is QWidget's."""
        return self._window

    @property
    def threshold(self) -> int | None:
        """Tokens above which pi compacts automatically (``None`` when the window is unknown)."""
        if self._window <= 0 or self._reserve >= self._window:
            return None
        return self._window - self._reserve

    @property
    def fill_fraction(self) -> float | None:
        """How full the bar is, 0…1 (``None`` when unknown: after a compaction, or no window)."""
        if self._tokens is None or self._window <= 0:
            return None
        return min(1.0, self._tokens / self._window)

    @property
    def threshold_fraction(self) -> float | None:
        threshold = self.threshold
        return None if threshold is None else threshold / self._window

    def text(self) -> str:
        """``"143k/200k"``, ``"~12k/200k"`` for an estimate, or ``"?/200k"`` when the size is unknown."""
        used = "?" if self._tokens is None else ("~" if self._estimated else "") + format_tokens(self._tokens)
        return f"{used}/{format_tokens(self._window)}" if self._window > 0 else used

    def threshold_label(self) -> str:
        threshold = self.threshold
        return f"auto-compact at {_threshold_text(threshold)}" if threshold is not None else ""

    def level(self) -> str:
        """``unknown``, ``ok``, ``near`` (within 10% of the window below the threshold) or ``over``."""
        threshold = self.threshold
        if self._tokens is None or self._window <= 0:
            return "unknown"
        if threshold is not None and self._tokens > threshold:
            return "over"
        if threshold is not None and self._tokens > threshold - self._window * 0.1:
            return "near"
        return "ok"

    def _update_tooltip(self) -> None:
        if self._window <= 0:
            self.setToolTip("Context size: no model window known")
            return
        lines = []
        if self._tokens is None:
            lines.append(
                f"Context: unknown of {self._window:,} tokens — just compacted; the next reply reports the size."
            )
        else:
            percent = self._tokens / self._window * 100
            about = "about " if self._estimated else ""
            lines.append(f"Context: {about}{self._tokens:,} of {self._window:,} tokens ({percent:.1f}%).")
        threshold = self.threshold
        if threshold is not None:
            lines.append(f"Auto-compaction above {threshold:,} tokens (window − reserve {self._reserve:,}).")
        if self._explanation:
            lines.append(self._explanation)
        self.setToolTip(plain_text("\n".join(lines)))

    # ================================================================================ geometry

    def _text_width(self, text: str) -> int:
        return QFontMetrics(self.font()).horizontalAdvance(text)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        metrics = QFontMetrics(self.font())
        width = self._text_width(self.text()) + self.GAP + self.BAR_WIDTH
        label = self.threshold_label()
        if label:
            width += self.GAP + self._text_width(label)
        return QSize(width + 4, max(metrics.height(), self.BAR_HEIGHT + 6))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.sizeHint()

    def bar_rect(self) -> QRect:
        """Where the bar is drawn (widget coordinates)."""
        left = self._text_width(self.text()) + self.GAP
        top = (self.height() - self.BAR_HEIGHT) // 2
        return QRect(left, top, self.BAR_WIDTH, self.BAR_HEIGHT)

    def threshold_x(self) -> int | None:
        """The x of the threshold tick (widget coordinates), or ``None`` when there is none."""
        fraction = self.threshold_fraction
        if fraction is None:
            return None
        bar = self.bar_rect()
        return bar.left() + round(fraction * (bar.width() - 1))

    # ================================================================================ painting

    def _fill_color(self) -> QColor:
        dark = self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5
        colors = {
            "ok": "#3fb950" if dark else "#1a7f37",
            "near": "#d29922" if dark else "#bf8700",
            "over": "#f85149" if dark else "#cf222e",
        }
        return QColor(colors.get(self.level(), "#808080"))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_color = palette.color(QPalette.ColorRole.WindowText)
        painter.setPen(text_color)
        bar = self.bar_rect()
        painter.drawText(
            QRect(0, 0, bar.left() - self.GAP + 2, self.height()),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            self.text(),
        )
        groove = QColor(text_color)
        groove.setAlphaF(0.18)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(groove)
        painter.drawRoundedRect(QRectF(bar), 3, 3)
        fraction = self.fill_fraction
        if fraction:
            painter.setBrush(self._fill_color())
            painter.drawRoundedRect(
                QRectF(bar.left(), bar.top(), max(3.0, bar.width() * fraction), bar.height()), 3, 3
            )
        tick = self.threshold_x()
        if tick is not None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.fillRect(QRect(tick - 1, bar.top() - 3, 2, bar.height() + 6), text_color)
        label = self.threshold_label()
        if label:
            dim = QColor(text_color)
            dim.setAlphaF(0.65)
            painter.setPen(dim)
            painter.drawText(
                QRect(bar.right() + self.GAP + 1, 0, self.width() - bar.right() - self.GAP, self.height()),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                label,
            )
        painter.end()


class ElidedLabel(QLabel):
    """A label that elides its text in the middle to fit (a path keeps its start and its file name)."""

    def __init__(
        self, parent: Any = None, max_width: int = 320, mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle
    ) -> None:
        super().__init__(parent)
        self._full = ""
        self._mode = mode
        self.setMaximumWidth(max_width)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(plain_text(text))
        self._elide()
        self.updateGeometry()

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        metrics = QFontMetrics(self.font())
        return QSize(min(self.maximumWidth(), metrics.horizontalAdvance(self._full) + 4), metrics.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(min(60, self.sizeHint().width()), self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(10, self.width() - 2)
        self.setText(QFontMetrics(self.font()).elidedText(self._full, self._mode, width))


NOTICE_MS = 60_000
"""How long a notice stays unless dismissed or replaced: long enough to read and act on."""


class StatusNotice(QWidget):
    """What just happened, said whole, with buttons to act on it ("Open", "Show in list") and ✕.

    A temporary status message is cut to the room the permanent widgets leave and gone in seconds;
    a fork or a clone deserves a sentence that stays until it is dismissed or replaced (issue 22
    item 4). The text is plain; ``detail`` (a full path) is its tooltip and can be copied from it.
    """

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusNotice")
        # whole when there is room (the sentences are short); in a narrow window it gives way, elided,
        # rather than widen the window, and its tooltip still has all of it and the path
        self._label = ElidedLabel(self, max_width=4000, mode=Qt.TextElideMode.ElideRight)
        self._label.setObjectName("statusNoticeText")
        self._detail = ""
        self._buttons: list[QToolButton] = []
        self._close = QToolButton(self)
        self._close.setText("✕")
        self._close.setToolTip("Dismiss")
        self._close.setAutoRaise(True)
        self._close.clicked.connect(self.dismiss)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(6)
        self._layout.addWidget(self._label, 1)
        self._layout.addWidget(self._close)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        self.hide()

    def show_notice(
        self, text: str, detail: str = "", actions: Sequence[tuple[str, Callable[[], Any]]] = (), timeout_ms: int = NOTICE_MS
    ) -> None:
        for button in self._buttons:
            self._layout.removeWidget(button)
            button.deleteLater()
        self._buttons = []
        self._label.set_full_text(text)
        self._detail = detail
        self._label.setToolTip(plain_text("\n".join(part for part in (text, detail) if part)))
        for name, slot in actions:
            button = QToolButton(self)
            button.setText(name)
            button.clicked.connect(lambda _checked=False, act=slot: act())
            self._layout.insertWidget(self._layout.count() - 1, button)
            self._buttons.append(button)
        self.show()
        self._timer.start(timeout_ms)

    def dismiss(self) -> None:
        self._timer.stop()
        self._label.set_full_text("")
        self._detail = ""
        self.hide()
        self.dismissed.emit()

    def text(self) -> str:
        """The whole sentence (the label may show it elided in a narrow window)."""
        return self._label.full_text()

    def detail(self) -> str:
        return self._detail

    def actions_shown(self) -> list[str]:
        """The names of the buttons shown ("Open", "Show in list")."""
        return [b.text() for b in self._buttons]

    def trigger(self, name: str) -> None:
        """Click the button called ``name`` (automation)."""
        next(b for b in self._buttons if b.text() == name).click()


def _separator(parent: QWidget) -> QLabel:
    label = QLabel("·", parent)
    label.setEnabled(False)
    return label


class ArborStatusBar(QStatusBar):
    """The window's status bar. Temporary messages (``showMessage``) appear on the left."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("arborStatusBar")
        self._model = plain_label(QLabel(self))
        self._model.setObjectName("statusModel")
        self._model.setToolTip("Model")
        self._thinking = plain_label(QLabel(self))
        self._thinking.setObjectName("statusThinking")
        self._thinking.setToolTip("Thinking level")
        self._meter = ContextMeter(self)
        self._file = ElidedLabel(self)
        self._file.setObjectName("statusFile")
        self._following = QLabel(self)
        self._following.setObjectName("statusFollowing")
        self._following.setToolTip(
            "The file is watched: entries appended by another program (pi) show up here"
        )
        widgets: list[QWidget] = [
            self._model,
            _separator(self),
            self._thinking,
            _separator(self),
            self._meter,
            _separator(self),
            self._file,
            self._following,
        ]
        for widget in widgets:
            self.addPermanentWidget(widget)
        self.notice = StatusNotice(self)
        self.notice.dismissed.connect(self._notice_dismissed)
        self.addWidget(self.notice, 1)
        self.set_model(None)
        self.set_thinking(None)
        self.set_context_usage(None, 0, 0)
        self.set_session_file(None)
        self.set_following(False)

    # ================================================================================ API

    def show_notice(self, text: str, detail: str = "", actions: Sequence[tuple[str, Callable[[], Any]]] = ()) -> None:
        """A sentence that stays (until dismissed or replaced) with buttons; a temporary message
        would hide it, so the one shown now is cleared."""
        self.clearMessage()
        self.notice.show_notice(text, detail, actions)
        self._file.hide()  # the notice is about a file (its tooltip has the path): room for its words

    def _notice_dismissed(self) -> None:
        self._file.show()

    def set_model(self, name: str | None) -> None:
        """The model id (``claude-sonnet-4-5``), or ``None`` for "no model"."""
        self._model.setText(name or "no model")

    def use_model_picker(self, picker: QWidget) -> None:
        """Show the model in ``picker`` (a button with a menu of models) instead of the plain label:
        the model appears once, where the label was (:meth:`model_text` still reads the id)."""
        self.insertPermanentWidget(1, picker)  # after the notice, the one normal widget: the first permanent one
        self._model.hide()

    def set_thinking(self, level: str | None) -> None:
        """The thinking level (``off``, ``minimal``, ``low``, ``medium``, ``high``, ``xhigh``)."""
        self._thinking.setText(f"thinking {level}" if level else "thinking off")

    def set_context_usage(
        self, tokens: int | None, window: int, reserve: int, explanation: str = "", *, estimated: bool = False
    ) -> None:
        """Context meter: ``tokens`` of ``window`` (``estimated``: right after a compaction); threshold
        ``window − reserve``; ``explanation`` says in the tooltip what the number counts."""
        self._meter.set_usage(tokens, window, reserve, explanation, estimated=estimated)

    def set_session_file(self, path: str | os.PathLike[str] | None) -> None:
        """The session file, elided in the middle (full path in the tooltip)."""
        self._file.set_full_text(os.fspath(path) if path is not None else "unsaved session")

    def set_following(self, following: bool) -> None:
        """Whether the session file is followed for external appends. Said as "watching file":
        "following" beside the canvas read as the canvas following the leaf (issue 22, Found 1),
        even while its "Jump to leaf" button said it did not."""
        self._following.setText("● watching file" if following else "")
        self._following.setVisible(following)

    # ================================================================================ reading back

    @property
    def meter(self) -> ContextMeter:
        return self._meter

    def model_text(self) -> str:
        return self._model.text()

    def thinking_text(self) -> str:
        return self._thinking.text()

    def context_text(self) -> str:
        return self._meter.text()

    def file_text(self) -> str:
        """The full path (the label itself may be elided)."""
        return self._file.full_text()

    def following_text(self) -> str:
        return self._following.text()
