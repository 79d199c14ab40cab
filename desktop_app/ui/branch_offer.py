"""``BranchOfferBar``: "Switched branch. Summarize the branch you left?" after a sibling-arrow flip.

The arrows flip at once (issue 22 item 8); what pi asks *before* a switch is offered here *after*
it, in a strip over the top of the chat that blocks nothing: Summarize, Undo, Don't ask again, ✕.
It goes away by itself after :data:`OFFER_MS`, or when the user does anything else with the leaf.
"""

from __future__ import annotations

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from desktop_app.present.siblings import FlipOffer

from .offer_strip import OfferStrip

__all__ = ["OFFER_MS", "BranchOfferBar"]

#: How long the offer stays when nothing is clicked.
OFFER_MS = 20_000


class BranchOfferBar(OfferStrip):
    """The offer over the top of ``host`` (the chat panel); see the module docstring."""

    summarize = Signal(object)  #: the :class:`FlipOffer` to carry out
    undo = Signal(object)
    never = Signal()

    def __init__(self, host: QWidget) -> None:
        super().__init__(host, "branchOffer", "Dismiss (keep the switch, no summary)")
        self.offer: FlipOffer | None = None
        self.summarize_button = QPushButton("&Summarize", self)
        self.undo_button = QPushButton("&Undo", self)
        self.never_button = QPushButton("Don't ask again", self)
        self.never_button.setFlat(True)
        self.summarize_button.setToolTip("Go back and leave the branch with a summary, as pi's question would")
        self.undo_button.setToolTip("Go back to the branch you left")
        self.never_button.setToolTip("Never offer a summary when switching branches (branchSummary.skipPrompt)")
        buttons = QHBoxLayout()
        for button in (self.summarize_button, self.undo_button, self.never_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.add_rows(buttons)
        self.summarize_button.clicked.connect(lambda: self._answer(self.summarize))
        self.undo_button.clicked.connect(lambda: self._answer(self.undo))
        self.never_button.clicked.connect(self._never)

    def show_offer(self, offer: FlipOffer) -> None:
        self.offer = offer
        self.label.setText(offer.text)
        self.pop_up(OFFER_MS)

    def dismiss(self) -> None:
        self.offer = None
        super().dismiss()

    def _answer(self, signal: SignalInstance) -> None:
        offer = self.offer
        self.dismiss()
        if offer is not None:
            signal.emit(offer)

    def _never(self) -> None:
        self.dismiss()
        self.never.emit()
