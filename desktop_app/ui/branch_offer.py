"""``BranchOfferBar``: "Switched branch. Summarize the branch you left?" after a sibling-arrow flip.

The arrows flip at once (issue 22 item 8); what pi asks *before* a switch is offered here *after*
it, in a strip over the top of the chat that blocks nothing: Summarize, Undo, Don't ask again, ✕.
It goes away by itself after :data:`OFFER_MS`, or when the user does anything else with the leaf.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop_app.present.siblings import FlipOffer

__all__ = ["OFFER_MS", "BranchOfferBar"]

#: How long the offer stays when nothing is clicked.
OFFER_MS = 20_000


class BranchOfferBar(QFrame):
    """The offer over the top of ``host`` (the chat panel); see the module docstring."""

    summarize = Signal(object)  #: the :class:`FlipOffer` to carry out
    undo = Signal(object)
    never = Signal()

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setObjectName("branchOffer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.offer: FlipOffer | None = None
        self.label = QLabel(self)
        self.summarize_button = QPushButton("&Summarize", self)
        self.undo_button = QPushButton("&Undo", self)
        self.never_button = QPushButton("Don't ask again", self)
        self.never_button.setFlat(True)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Dismiss (keep the switch, no summary)")
        self.summarize_button.setToolTip("Go back and leave the branch with a summary, as pi's question would")
        self.undo_button.setToolTip("Go back to the branch you left")
        self.never_button.setToolTip("Never offer a summary when switching branches (branchSummary.skipPrompt)")
        self.label.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.label, 1)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        buttons = QHBoxLayout()
        for button in (self.summarize_button, self.undo_button, self.never_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addLayout(buttons)
        self.summarize_button.clicked.connect(lambda: self._answer(self.summarize))
        self.undo_button.clicked.connect(lambda: self._answer(self.undo))
        self.never_button.clicked.connect(self._never)
        self.close_button.clicked.connect(self.dismiss)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        host.installEventFilter(self)
        self.hide()

    def show_offer(self, offer: FlipOffer) -> None:
        self.offer = offer
        self.label.setText(offer.text)
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        self._place()
        self.show()
        self.raise_()
        self._timer.start(OFFER_MS)

    def dismiss(self) -> None:
        self.offer = None
        self._timer.stop()
        self.hide()

    def room_taken(self) -> int:
        """Room the offer takes over the chat while shown (the files offer goes below it)."""
        return self.height() + 6 if self.isVisible() else 0

    def _answer(self, signal: SignalInstance) -> None:
        offer = self.offer
        self.dismiss()
        if offer is not None:
            signal.emit(offer)

    def _never(self) -> None:
        self.dismiss()
        self.never.emit()

    def _place(self) -> None:
        host = self.parentWidget()
        if host is None:
            return
        width = max(200, host.width() - 16)
        self.setGeometry(8, 8, width, self.heightForWidth(width) if self.hasHeightForWidth() else self.sizeHint().height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False
